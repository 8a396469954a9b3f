"""heedful.learn."""
