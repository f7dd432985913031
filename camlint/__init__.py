"""camlint: a reporting-checklist linter and verifier for Grad-CAM on Vision Transformers.

Importing this package is cheap: nothing heavy (torch, timm, pylatexenc) is imported here.
"""
__version__ = "0.1.0"

__all__ = ["__version__"]
