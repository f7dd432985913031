"""Torch-free knowledge shared by the linter and the verifier: checklist items, locations, methods."""
