"""camlint.verify."""
