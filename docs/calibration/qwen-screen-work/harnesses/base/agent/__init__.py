"""The seed harness: one bash tool, one loop, everything tunable in harness.yaml."""
