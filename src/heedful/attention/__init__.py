"""heedful.attention."""
