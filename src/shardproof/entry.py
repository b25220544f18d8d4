"""The ``shardproof`` command: :func:`shardproof.cli.main`, with Ctrl-C while the checker's
modules load (about 0.15 s) ending as it does later — "shardproof: interrupted", exit 130 — not
in a traceback (the seventy-sixth review: the console script imported all of ``cli`` before
``main``'s own handler was in place)."""

import os
import sys


def main() -> int:
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        print("shardproof: interrupted", file=sys.stderr, flush=True)
        os._exit(130)       # (now: a module half imported has nothing to clean up)
    return cli_main()
