"""``python -m shardproof …``: the same command line as the ``shardproof`` script."""

import sys

from .entry import main

sys.exit(main())
