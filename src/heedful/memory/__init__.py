"""heedful.memory."""
