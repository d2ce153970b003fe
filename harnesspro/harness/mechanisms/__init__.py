"""The catalog of harness mechanisms the offline (catalog-mode) editor can apply."""
