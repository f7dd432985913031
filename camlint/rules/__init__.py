"""Rules: one unit per rule (registry.py lists them), the engine that runs them, findings, suppressions."""
