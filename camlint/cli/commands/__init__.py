"""The click commands, one module per family; camlint.cli.main assembles them into `camlint`."""
