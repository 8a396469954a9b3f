"""heedful.salience."""
