"""camlint.extract."""
