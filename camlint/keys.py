"""The 12 checklist keys (shared/taxonomy.md): the single vocabulary of schema, output and rules."""
from __future__ import annotations

KEYS: tuple[str, ...] = (
    "model", "method", "layer", "location", "target", "tokens",
    "reshape", "weighting", "heads", "relu", "postprocess", "implementation",
)

REPORTED, PARTIAL, MISSING, NOT_APPLICABLE = "reported", "partial", "missing", "not_applicable"
STATUSES: tuple[str, ...] = (REPORTED, PARTIAL, MISSING, NOT_APPLICABLE)

# What a reader must be able to rebuild for each key (one line, used in tables and hints).
DESCRIPTIONS: dict[str, str] = {
    "model": "architecture and the exact weights",
    "method": "which CAM variant",
    "layer": "which transformer block(s), and how several are combined",
    "location": "where inside the block the feature map is taken (F1..F6, cross-attention)",
    "target": "the differentiated scalar (logit, probability, similarity...) and its class",
    "tokens": "what happens to [CLS], distillation and register tokens",
    "reshape": "how the token sequence becomes a 2-D grid (size and order)",
    "weighting": "how channels (or heads) are combined",
    "heads": "how attention heads are combined (attention locations only)",
    "relu": "where the ReLU (or clamp) is applied, or that there is none",
    "postprocess": "normalisation and upsampling to image size",
    "implementation": "code used, with version or commit",
}

# Keys that must be known to re-execute a spec (implementation is provenance, not a choice).
EXECUTABLE_KEYS: tuple[str, ...] = tuple(k for k in KEYS if k != "implementation")

from camlint.core.locations import ATTENTION_LOCATIONS  # noqa: E402,F401  (one record per location)
