"""Test synthesis without ground truth, and the frozen-test scorer beside it.

`offline` writes checks from the instruction and the seed's rollouts; `frozen` freezes the
tests by hash in the run folder and grades rollouts with them.
"""
