"""`python -m shardproof.nets render [--check] [--out DIR]`: write (or check) the generated files.

Writes `lemmas/nets/*.lemma` (the nets' forward and step ties) and the statements that must fail:
`tests/nets_negative/*_perreplica.lemma` (per-replica BatchNorm) and
`tests/nets_negative/*_unscaled_step.lemma` (each replica's loss divided by the global batch).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .files import refuse_other_blocks, render_all, render_negatives


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m shardproof.nets")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="write the generated .lemma files")
    r.add_argument("--out", default=None,
                   help="write the nets' files under this lemma root instead (the must-fail "
                        "files are then not written)")
    r.add_argument("--check", action="store_true",
                   help="do not write; exit 1 when a generated file is missing or stale")
    args = ap.parse_args(argv)
    # The checkout is the current directory, never the one the package happens to be installed
    # from (an editable install of another clone would be rewritten behind the user's back).
    repo = Path.cwd()
    if not args.out and not ((repo / "lemmas").is_dir() and (repo / "tests").is_dir()):
        print(f"python -m shardproof.nets: error: {repo} has no lemmas/ and tests/: run this from "
              "the repository's root, or give --out DIR", file=sys.stderr)
        return 2
    root = Path(args.out) if args.out else repo / "lemmas"
    try:
        files = render_all()
        if args.out and not args.check:    # another root may hold other nets' blocks
            files = refuse_other_blocks(root, files)
        targets = [(root / rel, text) for rel, text in files.items()]
        if not args.out:
            targets += [(repo / "tests" / rel, text) for rel, text in render_negatives().items()]
    except ValueError as exc:       # a description mistake (naming the block), or a clash
        print(f"python -m shardproof.nets: error: {exc}", file=sys.stderr)
        return 2
    stale = []
    for p, text in targets:
        rel = p
        if args.check:
            if not p.exists() or p.read_text(encoding="utf-8") != text:
                stale.append(str(rel))
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            if not p.exists() or p.read_text(encoding="utf-8") != text:
                p.write_text(text, encoding="utf-8")
                print(f"wrote {p}")
    if args.check and stale:
        print("stale generated files: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
