"""heedful.integrations."""
