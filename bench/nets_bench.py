"""Benchmarks of the five nets: symbolic check time, numeric parity time, depth scaling.

Per net:

* **symbolic**: a fresh checker proves everything the net needs — the SyncKit, the network ops
  (`nets/ops.lemma`), the net's block templates (`nets/blocks/<T>.lemma`) and the net's
  own files (T2, T3 and the smoothed-CE corollary).  Reported split into `shared` (kit + ops,
  loaded and proved once per run of `shardproof check lemmas/`, and sympy's import, which
  the range check may need once per process: ~0.3 s), `templates` and `net`;
  `symbolic` = templates + net (the per-net cost once the kit is loaded) and `symbolic_cold`
  = all three.  Target: `symbolic` < 3 s.
* **parity**: :func:`shardproof.parity.run_parity` at R = 2, N = 2, 32 × 32, real widths: the
  replica programs and the single-device program forward and backward, numerically.
* **ratio** = parity / symbolic.  Target ≥ 10 (the proof holds for ALL sizes; the numeric run
  checks one).
* **depth**: a synthetic net (ResNet stem, a chain of `n × 4` basic identity blocks, head) at
  n = 1, 2, 4, rendered by the same renderer; time of its own T2 + T3 files.  Target: the 4×
  chain within 4.5× the 1× time.

Run: ``python bench/nets_bench.py [--json] [--nets resnet34 …] [--no-parity]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from shardproof import arith
from shardproof.check import Checker, Options, lemma_files
from shardproof.nets import NETS
from shardproof.nets.render import NetRenderer, render_blocks
from shardproof.nets.resnet34 import BASIC_ID, HEAD, STEM
from shardproof.nets.spec import Block, Net


def _check(ck: Checker, files) -> tuple[float, int, int]:
    t = time.perf_counter()
    n = bad = 0
    for f in files:
        for v in ck.check_file(Path(f)):
            n += 1
            bad += v.verdict != "proved"
    return time.perf_counter() - t, n, bad


def symbolic(key: str, root: Path) -> dict:
    net = NETS[key]
    names: list[str] = []
    for b in net.blocks:
        if b.template.name not in names:
            names.append(b.template.name)
    ck = Checker(Options(search_seconds=0.0))
    shared = lemma_files([root / "kit"]) + [root / "nets" / "ops.lemma"]
    tmpl = [root / "nets" / "blocks" / f"{t}.lemma" for t in names]
    own = [root / "nets" / f"{key}.lemma", root / "nets" / f"{key}_step.lemma"]
    t0 = time.perf_counter()
    arith.sp()     # sympy (the range check's fallback), once per process: a shared cost too
    t_shared, _, _ = _check(ck, shared)
    t_shared += time.perf_counter() - t0
    t_tmpl, n_t, bad_t = _check(ck, tmpl)
    t_net, n_n, bad_n = _check(ck, own)
    return {"shared_s": t_shared, "templates_s": t_tmpl, "net_s": t_net,
            "symbolic_s": t_tmpl + t_net, "symbolic_cold_s": t_shared + t_tmpl + t_net,
            "theorems": n_t + n_n, "not_proved": bad_t + bad_n}


def synthetic_net(units: int) -> Net:
    blocks = [Block(STEM, "stem", {"ic": 3, "oc": 64, "k": 7})]
    blocks += [Block(BASIC_ID, f"b{i}", {"c": 64, "k": 3}) for i in range(4 * units)]
    blocks += [Block(HEAD, "head", {"c": 64})]
    return Net(key=f"chain{units}", title=f"Synthetic chain ×{units}", short=f"ch{units}",
               fwd_name=f"chain{units}Fwd", sync_name=f"chain{units}FwdSync",
               t2_name=f"chain{units}_shard", tied_name=f"chain{units}Tied",
               t3_name=f"chain{units}_tied", cin=3, base="7", input_level=2, blocks=blocks,
               census=0, bn_sites=0)


def depth(root: Path, reps: int = 3) -> dict:
    _, infos = render_blocks([STEM, BASIC_ID, HEAD])
    arith.sp()                     # (imported before any timed run, as in `symbolic`)
    ck = Checker(Options(search_seconds=0.0))
    _check(ck, lemma_files([root / "kit"]) + [root / "nets" / "ops.lemma"] +
           [root / "nets" / "blocks" / f"{t.name}.lemma" for t in (STEM, BASIC_ID, HEAD)])
    out = {}
    for units in (1, 2, 4):
        net = synthetic_net(units)
        nr = NetRenderer(net, infos)
        (root / "nets" / f"{net.key}.lemma").write_text(nr.render_fwd() + "\n")
        (root / "nets" / f"{net.key}_step.lemma").write_text(nr.render_step() + "\n")
        best = None
        for _ in range(reps):
            ck2 = Checker(Options(search_seconds=0.0))
            ck2.verdicts = dict(ck.verdicts)
            ck2.libraries = {}
            t, _n, bad = _check(ck2, [root / "nets" / f"{net.key}.lemma",
                                     root / "nets" / f"{net.key}_step.lemma"])
            assert bad == 0, f"synthetic chain ×{units}: {bad} theorems not proved"
            best = t if best is None else min(best, t)
        out[units] = {"blocks": len(net.blocks), "seconds": best}
    base = out[1]["seconds"]
    for row in out.values():
        row["ratio"] = row["seconds"] / base
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nets", nargs="*", default=list(NETS))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-parity", action="store_true")
    ap.add_argument("--no-depth", action="store_true")
    ap.add_argument("--base", type=int, default=1,
                    help="parity input 32·BASE pixels (1: 32×32; 7: the nets' 224×224)")
    a = ap.parse_args(argv)
    from shardproof.parity import run_parity
    tmp = Path(tempfile.mkdtemp(prefix="nets_bench_"))
    try:
        root = tmp / "lemmas"
        shutil.copytree(REPO / "lemmas", root)
        rows = []
        for key in a.nets:
            row = {"net": key, **symbolic(key, root)}
            if not a.no_parity:
                t = time.perf_counter()
                r = run_parity(NETS[key], R=2, N=2, width=1.0, base=a.base)
                row["parity_s"] = time.perf_counter() - t
                row["parity_ok"] = r.ok()
                row["ratio"] = row["parity_s"] / row["symbolic_s"]
                row["ratio_cold"] = row["parity_s"] / row["symbolic_cold_s"]
            rows.append(row)
            if not a.json:
                print(f"{key:16s} symbolic {row['symbolic_s']:6.2f}s (templates "
                      f"{row['templates_s']:.2f} + net {row['net_s']:.2f}; with kit "
                      f"{row['symbolic_cold_s']:.2f})  {row['theorems']} theorems, "
                      f"{row['not_proved']} not proved"
                      + ("" if a.no_parity else
                         f"  parity {row['parity_s']:6.2f}s ({'ok' if row['parity_ok'] else 'FAIL'})"
                         f"  ratio {row['ratio']:.1f}×"), flush=True)
        result = {"nets": rows}
        if not a.no_depth:
            d = depth(root)
            result["depth"] = d
            if not a.json:
                print("depth: " + ", ".join(f"×{u} ({v['blocks']} blocks) {v['seconds']:.2f}s "
                                            f"= {v['ratio']:.2f}×" for u, v in d.items()))
        if a.json:
            print(json.dumps(result, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
