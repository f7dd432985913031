"""camlint.inputs.latex."""
