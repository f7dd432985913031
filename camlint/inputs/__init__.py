"""Front ends for what reviewers and authors hold besides LaTeX sources: PDF, archives, Markdown, text.

Each reads its input into the LaTeX front end's document model (camlint.inputs.model) and goes
through the same analysis (camlint.inputs.latex.analyze.analyze_units), so every extraction
improvement applies to every input. This module only dispatches and stays light: the PDF
library is imported when a PDF is read, never for a LaTeX check.
"""
