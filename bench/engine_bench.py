"""Engine benchmark: the five reference identities of normal-form.md and four false variants.

Usage::

    python bench/engine_bench.py            # warm, in-process: median of --runs runs per lemma
    python bench/engine_bench.py --cold     # also: everything once in a fresh process
    python bench/engine_bench.py --runs 9 --json

What is timed is the engine only (``prove.attempt``: unfold, normalise, compare), after one
warm-up run, with ``time.perf_counter``.  For the false variants the counterexample search
(``semantics.find_counterexample``) that turns "not proved" into "refuted" is timed separately.
The theorems are written into a temporary lemma root (they use only the prelude).  The
prototype's figures are those of ``shared/design/normal-form.md``; the targets are a tenth.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ---------------------------------------------------------------------------- the lemmas

DEFS = """
/-- Replica `r`'s sync-BN input cotangent: every replica's `[μ ‖ σ² ‖ mdy ‖ mdyx]` all-reduced
(reading the forward's `syncStats`), then `bnSyncBack` of this replica's operand and cotangent. -/
def bnSyncInB (R N oc h w : Nat) (ε : ℝ) (γ : Vec oc) (xs dys : Fin R → Vec (N * (oc * h * w)))
    (r : Fin R) : Vec (N * (oc * (h * w))) :=
  bnSyncBack N oc (h * w) ε γ (reassocB N oc h w (xs r)) (reassocB N oc h w (dys r))
    (allReduceMean R (fun (r' : Fin R) =>
      bnSyncDyStatsB N oc (h * w) ε γ (reassocB N oc h w (xs r')) (reassocB N oc h w (dys r'))
        (syncStats R N oc (h * w) (fun (q : Fin R) => reassocB N oc h w (xs q)))))

/-- The WRONG statistics: the mean of the per-replica variances (no Chan correction). -/
def syncStatsNaive (R N C S : Nat) (x : Fin R → Vec (N * (C * S))) : Vec (2 * C) :=
  bnPackB C (allReduceMean R (fun (r : Fin R) => bnBatchMeanB N C S (x r)))
    (allReduceMean R (fun (r : Fin R) => fun (c : Fin C) => bnVar N C S (x r) c))

/-- The interleaved cut: replica `r` owns global examples `r, r + R, r + 2R, …`. -/
def shardI (R N a : Nat) (X : Vec ((R * N) * a)) (r : Fin R) : Vec (N * a) :=
  fun (n : Fin N) (j : Fin a) => X[r + n * R, j]
"""

# (name, statement text, expected verdict, prototype ms or None)
TRUE_LEMMAS: list[tuple[str, str, float]] = [
    ("bnSyncF_shard", """
/-- sync-BN forward (mean, then Chan's variance, all-reduced) = the shard of global-batch BN. -/
theorem bnSyncF_shard (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r
""", 190.0),
    ("bnSyncInB_shard", """
/-- sync-BN input gradient = the shard of the global-batch BN input gradient. -/
theorem bnSyncInB_shard (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ : Vec oc) (xs dys : Fin R → Vec (N * (oc * h * w)))
    (X DY : Vec ((R * N) * (oc * h * w)))
    (hx : ∀ r, xs r = shard R N (oc * h * w) X r) (hdy : ∀ r, dys r = shard R N (oc * h * w) DY r)
    (r : Fin R) :
    bnSyncInB R N oc h w ε γ xs dys r = shard R N (oc * (h * w)) (bnInB (R * N) oc h w ε γ X DY) r
""", 704.0),
    ("convStridedWGrad_P4", """
/-- P4: the all-reduce mean of the strided conv weight gradients = 1/R · the global one. -/
theorem convStridedWGrad_P4 (R N ic oc h w kH kW : Nat) (hR : 0 < R) (b : Vec oc)
    (W : Vec (oc * ic * kH * kW)) (X : Vec ((R * N) * (ic * ((2 * h) * (2 * w)))))
    (DY : Vec ((R * N) * (oc * (h * w)))) (dy : Fin R → Vec (N * (oc * (h * w))))
    (hdy : ∀ r, dy r = shard R N (oc * (h * w)) DY r) (idx : Fin (oc * ic * kH * kW)) :
    1 / R * (∑ (r : Fin R), convStridedWeightGradB N ic oc h w kH kW b
        (shard R N (ic * ((2 * h) * (2 * w))) X r) W (dy r) idx)
      = 1 / R * convStridedWeightGradB (R * N) ic oc h w kH kW b X W DY idx
""", 55.0),
    ("replicaLossCot_eq", """
/-- The replica's smoothed-CE cotangent (divisor B) = R × the shard of the global one (R·B). -/
theorem replicaLossCot_eq (R N K : Nat) (hR : 0 < R) (α B : ℝ) (Z : Vec ((R * N) * K))
    (TT : Vec ((R * N) * (1 * K))) (r : Fin R) :
    unrowB N K (smoothedLossCotGraph N K α B (rowB N K (shard R N K Z r)) (shard R N (1 * K) TT r))
      = shard R N K (R • unrowB (R * N) K
          (smoothedLossCotGraph (R * N) K α (R * B) (rowB (R * N) K Z) TT)) r
""", 31.0),
    ("relu6MaskB_smul", """
/-- The relu6 mask is homogeneous in `dy`. -/
theorem relu6MaskB_smul (n : Nat) (pre : Vec n) (s : ℝ) (dy : Vec n) :
    relu6MaskB n pre (s • dy) = s • relu6MaskB n pre dy
""", 1.7),
]

FALSE_LEMMAS: list[tuple[str, str]] = [
    ("bn_perReplica", """
/-- FALSE: per-replica BatchNorm statistics are not the global-batch statistics. -/
theorem bn_perReplica (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnBatch N oc (h * w) ε γ β (x r)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r
"""),
    ("bn_naiveVar", """
/-- FALSE: averaging the replicas' variances (no Chan correction) is not the global variance. -/
theorem bn_naiveVar (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStatsNaive R N oc (h * w) x)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r
"""),
    ("replicaLossCot_noR", """
/-- FALSE: the replica cotangent without the factor R. -/
theorem replicaLossCot_noR (R N K : Nat) (hR : 0 < R) (α B : ℝ) (Z : Vec ((R * N) * K))
    (TT : Vec ((R * N) * (1 * K))) (r : Fin R) :
    unrowB N K (smoothedLossCotGraph N K α B (rowB N K (shard R N K Z r)) (shard R N (1 * K) TT r))
      = shard R N K (unrowB (R * N) K
          (smoothedLossCotGraph (R * N) K α (R * B) (rowB (R * N) K Z) TT)) r
"""),
    ("bnSyncF_interleaved", """
/-- FALSE: the contiguous shard's sync-BN output read through the interleaved cut. -/
theorem bnSyncF_interleaved (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)
      = shardI R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r
"""),
]

REFERENCE = [name for name, _, _ in TRUE_LEMMAS]
FALSE_NAMES = [name for name, _ in FALSE_LEMMAS]
PROTOTYPE_MS = {name: ms for name, _, ms in TRUE_LEMMAS}
TARGET_MS = {name: ms / 10 for name, ms in PROTOTYPE_MS.items()}
PROTOTYPE_FALSE = "30–755"


def lemma_texts() -> dict[str, str]:
    """``{theorem name: .lemma text}`` (each text carries the shared definitions)."""
    out = {name: DEFS + text for name, text, _ in TRUE_LEMMAS}
    out.update({name: DEFS + text for name, text in FALSE_LEMMAS})
    return out


def write_root(root: Path) -> dict[str, Path]:
    """Write one file per theorem into a lemma root; return ``{name: path}``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".lemmaroot").write_text("")
    paths = {}
    for name, text in lemma_texts().items():
        p = root / f"{name}.lemma"
        p.write_text(text, encoding="utf-8")
        paths[name] = p
    return paths


def load_all(root: Path) -> dict[str, tuple[object, object]]:
    """``{name: (GlobalDecl, GlobalEnv)}`` for every benchmark theorem."""
    from shardproof.library import Library

    lib = Library(root)
    out = {}
    for name, p in write_root(root).items():
        lf = lib.load(p)
        g = next(d for d in lf.own if d.kind == "theorem" and d.name == name)
        out[name] = (g, lf.env)
    return out


# ---------------------------------------------------------------------------- measuring

def _time_attempt(g, env) -> tuple[float, bool]:
    from shardproof.prove import attempt

    t0 = time.perf_counter()
    at = attempt(g, env)
    return (time.perf_counter() - t0) * 1000, at.proved


def _time_search(g, env, budget: float) -> tuple[float, bool]:
    try:
        from shardproof import semantics
    except ImportError:  # pragma: no cover
        return float("nan"), False
    t0 = time.perf_counter()
    cx = semantics.find_counterexample(g, env, budget_seconds=budget)
    return (time.perf_counter() - t0) * 1000, cx is not None


def warm(runs: int, budget: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="shardproof-bench-") as d:
        thms = load_all(Path(d))
        for name in REFERENCE + FALSE_NAMES:
            g, env = thms[name]
            _time_attempt(g, env)  # warm-up
            times, proved = [], None
            for _ in range(runs):
                ms, proved = _time_attempt(g, env)
                times.append(ms)
            row = {"name": name, "expected": "proved" if name in REFERENCE else "refuted",
                   "proved": proved, "median_ms": statistics.median(times),
                   "min_ms": min(times), "runs": runs}
            if name in FALSE_NAMES:
                sms, found = _time_search(g, env, budget)
                row["search_ms"], row["refuted"] = sms, found
            rows.append(row)
    return rows


def cold_child() -> dict:
    """Run in a fresh process: import, load and check everything exactly once."""
    t0 = time.perf_counter()
    import shardproof.prove  # noqa: F401  (the engine and what it imports)
    from shardproof.library import prelude_env
    t_import = time.perf_counter()
    prelude_env()
    t_prelude = time.perf_counter()
    per: dict[str, float] = {}
    verdicts: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="shardproof-bench-") as d:
        thms = load_all(Path(d))
        t_load = time.perf_counter()
        for name in REFERENCE + FALSE_NAMES:
            g, env = thms[name]
            ms, proved = _time_attempt(g, env)
            per[name] = ms
            verdict = "proved" if proved else "not proved"
            if not proved:
                sms, found = _time_search(g, env, 5.0)
                per[name + ":search"] = sms
                verdict = "refuted" if found else "unknown"
            verdicts[name] = verdict
    t_end = time.perf_counter()
    return {"import_ms": (t_import - t0) * 1000, "prelude_ms": (t_prelude - t_import) * 1000,
            "load_ms": (t_load - t_prelude) * 1000, "check_ms": (t_end - t_load) * 1000,
            "total_in_process_ms": (t_end - t0) * 1000, "per_theorem_ms": per,
            "verdicts": verdicts}


def cold() -> dict:
    env = dict(os.environ)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--cold-child"],
                         capture_output=True, text=True, env=env, check=True)
    wall = (time.perf_counter() - t0) * 1000
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_wall_ms"] = wall
    return res


# ---------------------------------------------------------------------------- report

def table(rows: list[dict]) -> str:
    head = (f"{'lemma':<22} {'verdict':<10} {'median ms':>10} {'min ms':>8} {'proto ms':>9} "
            f"{'target ms':>9} {'proto/ours':>10} {'ours/target':>11}")
    lines = [head, "-" * len(head)]
    for r in rows:
        name = r["name"]
        if name in REFERENCE:
            verdict = "proved" if r["proved"] else "NOT PROVED"
            p, t = PROTOTYPE_MS[name], TARGET_MS[name]
            lines.append(f"{name:<22} {verdict:<10} {r['median_ms']:>10.2f} {r['min_ms']:>8.2f} "
                         f"{p:>9.1f} {t:>9.2f} {p / r['median_ms']:>9.1f}x "
                         f"{r['median_ms'] / t:>10.2f}x")
        else:
            verdict = "PROVED?!" if r["proved"] else ("refuted" if r.get("refuted") else "unknown")
            lines.append(f"{name:<22} {verdict:<10} {r['median_ms']:>10.2f} {r['min_ms']:>8.2f} "
                         f"{PROTOTYPE_FALSE:>9} {'':>9} {'':>10} {'':>11}   "
                         f"(+ counterexample search {r.get('search_ms', float('nan')):.1f} ms)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per lemma (after a warm-up)")
    ap.add_argument("--cold", action="store_true", help="also check everything in a fresh process")
    ap.add_argument("--cold-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--budget", type=float, default=5.0, help="counterexample search budget (s)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.cold_child:
        print(json.dumps(cold_child()))
        return 0
    rows = warm(max(5, args.runs), args.budget)
    result: dict = {"warm": rows}
    if args.cold:
        result["cold"] = cold()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"engine only (prove.attempt), median of {max(5, args.runs)} runs after a warm-up\n")
        print(table(rows))
        if args.cold:
            c = result["cold"]
            print("\ncold, fresh process (python bench/engine_bench.py --cold-child):")
            print(f"  process wall time      {c['process_wall_ms']:8.1f} ms")
            print(f"  import engine          {c['import_ms']:8.1f} ms")
            print(f"  elaborate prelude      {c['prelude_ms']:8.1f} ms")
            print(f"  load the 9 theorems    {c['load_ms']:8.1f} ms")
            print(f"  check all (first run)  {c['check_ms']:8.1f} ms")
            for name, ms in c["per_theorem_ms"].items():
                print(f"    {name:<30} {ms:8.2f} ms")
            print(f"  verdicts: {c['verdicts']}")
    bad = [r["name"] for r in rows if (r["name"] in REFERENCE) != bool(r["proved"])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
