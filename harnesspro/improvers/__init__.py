"""The `llm` improver: analyzer, planner and editor as model calls through the search account,
each falling back to its catalog counterpart with a recorded reason."""
