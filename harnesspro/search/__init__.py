"""The search-cost account: improver model calls (analyzer, planner, editor, synthesizer),
metered apart from the harness being evaluated, and the offline scripted improver model."""
