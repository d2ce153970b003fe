"""The harness contract and the run's harness repository (git commits and worktrees)."""
