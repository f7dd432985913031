"""The filled reporting checklist: one status per key (judge), the analysis rules read, its renderings."""
