"""camlint.latex."""
