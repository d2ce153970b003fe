"""`harnesspro bench`: every strategy on every behaviour profile at an equal rollout budget,
judged on the test split with the official tests (runner -> arithmetic -> report)."""
