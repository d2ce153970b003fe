"""Test synthesis without ground truth: `offline` writes checks from the instruction and the
seed's rollouts, `llm` asks the improver model for an executable test, `judge` reads a
trajectory. Freezing and scoring with them is `harnesspro.evaluation.scoring`.
"""
