"""heedful.bench."""
