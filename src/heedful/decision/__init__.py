"""heedful.decision."""
