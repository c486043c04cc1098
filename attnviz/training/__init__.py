"""Data loading, training loops and BLEU, used by ``attnviz train`` and ``attnviz eval``."""
