"""shardproof: prove that a data-parallel (sync-BN) training step is the global-batch step."""

__version__ = "0.1.0"
