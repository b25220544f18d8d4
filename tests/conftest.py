"""Test-wide settings.

The command line caches verdicts in `.shardproof-cache` by default; tests run the checker with
stub engines and temporary files, so the default cache is off here (tests that exercise the
cache pass `--cache-dir` explicitly).
"""

import os

os.environ.setdefault("SHARDPROOF_NO_CACHE", "1")
