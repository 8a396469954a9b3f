"""heedful.engine."""
