"""``python -m shardproof …``: the same command line as the ``shardproof`` script."""

import sys

from .cli import main

sys.exit(main())
