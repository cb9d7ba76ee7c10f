"""A stage's steps run: the dispatch table over every compiled step kind, loops, retrieval,
synthesis, and the one model call that both understands and answers."""
