"""The click commands, one module per family; camlint.cli assembles them into `camlint`."""
