"""heedful.model."""
