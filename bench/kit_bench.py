"""The whole SyncKit (`lemmas/kit/`) checked in a fresh process, imports included.

Target (issue 4): under 1.5 s on the project's 2-core machine.  Prints the wall time of
`shardproof check --no-cache lemmas/kit` (median of `--runs` fresh processes, default 5; no
verdict cache; every proof replayed by the kernel, the default), the same with `--no-replay`
(the engine alone: the target was set before the kernel existed), the same with a warm verdict
cache, and the five slowest theorems (from one in-process run).

    python bench/kit_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "lemmas" / "kit"


def fresh(args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "shardproof.cli", *args], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def _runs(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Wall time of `shardproof check lemmas/kit` in fresh processes: no cache, "
                    "no cache with --no-replay, warm cache; then the five slowest theorems.")
    ap.add_argument("--runs", type=_runs, default=5,
                    help="fresh processes per variant; the median is reported (default 5)")
    a = ap.parse_args(argv)
    cold = [fresh(["check", "--no-cache", "-q", str(KIT)]) for _ in range(a.runs)]
    engine = [fresh(["check", "--no-cache", "--no-replay", "-q", str(KIT)])
              for _ in range(a.runs)]
    with tempfile.TemporaryDirectory() as d:
        fresh(["check", "--cache-dir", d, "-q", str(KIT)])
        warm = [fresh(["check", "--cache-dir", d, "-q", str(KIT)]) for _ in range(a.runs)]
    from shardproof.check import Options, check_paths
    rep = check_paths([KIT], Options())
    slow = sorted(rep.verdicts, key=lambda v: -v.seconds)[:5]
    print(f"lemmas/kit: {len(rep.verdicts)} theorems, "
          f"{sum(v.verdict == 'proved' for v in rep.verdicts)} proved")
    print(f"fresh process, no cache: median {statistics.median(cold):.2f} s "
          f"(runs {', '.join(f'{x:.2f}' for x in cold)}); target < 1.5 s: "
          f"{'met' if statistics.median(cold) < 1.5 else 'MISSED'}")
    print(f"fresh process, no cache, --no-replay: median {statistics.median(engine):.2f} s "
          f"(runs {', '.join(f'{x:.2f}' for x in engine)}); replay − no-replay: "
          f"{statistics.median(cold) - statistics.median(engine):+.2f} s (with --no-replay the "
          "`≠` witnesses go to the exact evaluator, which imports sympy, ~0.3 s; with replay "
          "the kernel alone checks a witness that gives every binder a numeral)")
    print(f"fresh process, warm cache: median {statistics.median(warm):.2f} s")
    print("slowest five (in-process):")
    for v in slow:
        print(f"  {v.seconds * 1000:8.1f} ms  {v.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
