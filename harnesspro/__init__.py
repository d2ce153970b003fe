"""HarnessPro: evolve an LLM agent's harness toward the Pareto front of pass rate vs cost."""

__version__ = "0.1.0"
