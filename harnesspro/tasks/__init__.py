"""Tasks: the Harbor-format loader, the built-in suite, splits and the DPP coreset."""
