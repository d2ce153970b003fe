"""Reports derived from the ledger: Pareto-front figures and cost reports."""
