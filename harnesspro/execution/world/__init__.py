"""World v3: a simulated model built from latent behaviour factors of a model (context length,
instruction weight, error use, checking, exploring, talking, tool-call format, reasoning
effort, temperature, and four hidden factors), not from a harness's mechanisms.

profile (the record) and draw (its distribution); lexicon and instructions (what an
instruction says and how much it weighs); signals (what results say); conversation (the
rollout's state, read off the messages); factors (the probabilities); moves (the commands);
decide (the next move); policy (the chat interface).
"""
