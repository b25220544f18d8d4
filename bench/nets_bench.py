"""Benchmarks of the five nets: symbolic check time, numeric parity time, depth scaling.

Per net:

* **symbolic**: a fresh checker proves everything the net needs — the SyncKit, the network ops
  (`nets/ops.lemma`), the net's block templates (`nets/blocks/<T>.lemma`) and the net's
  own files (T2, T3 and the smoothed-CE corollary).  Reported split into `shared` (kit + ops,
  loaded and proved once per run of `shardproof check lemmas/`, and sympy's import, which
  the range check may need once per process: ~0.3 s), `templates` and `net`;
  `symbolic` = templates + net (the per-net cost once the kit is loaded) and `symbolic_cold`
  = all three.  Target: `symbolic` < 3 s.  `symbolic` is also split into reading and
  elaborating the files (`read`), the engine, and the kernel's replay.
* **parity**: :func:`shardproof.parity.run_parity` at R = 2, N = 2, 32 × 32 (``--base 7``:
  224 × 224), real widths: the replica programs and the single-device program forward and
  backward, numerically — in a child process whose BLAS is pinned to one thread
  (``OPENBLAS_NUM_THREADS`` = ``OMP_NUM_THREADS`` = ``MKL_NUM_THREADS`` = 1), as the symbolic
  check runs on one core; ``--default-threads`` leaves numpy's default.
* **ratio** = parity / symbolic.  Target ≥ 10 (the proof holds for ALL sizes; the numeric run
  checks one).
* **depth**: a synthetic net (ResNet stem, a chain of `n × 4` basic identity blocks, head) at
  n = 1, 2, 4, rendered by the same renderer; time of its own T2 + T3 files alone, by a
  checker that keeps the kit's, the ops' and the templates' libraries and verdicts (so none
  of those is re-proved), best of 5; the own theorems are counted.  Target: the 4× chain
  within 4.5× the 1× time.

Run: ``python bench/nets_bench.py [--json] [--nets resnet34 …] [--base B] [--no-parity]
[--no-depth] [--default-threads]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
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


class _Phases:
    """Time spent reading and elaborating files (`Checker.load`), in the engine (`decide`
    without its replays) and in the kernel's replay (`replay_in_kernel`), while active: the
    three wrapped for the duration, then put back."""

    def __init__(self) -> None:
        self.acc = {"load": 0.0, "decide": 0.0, "replay": 0.0}

    def __enter__(self) -> "_Phases":
        from shardproof import check, prove
        self.saved = [(check.Checker, "load"), (prove, "decide"), (prove, "replay_in_kernel")]
        self.orig = [getattr(o, n) for o, n in self.saved]
        for (owner, name), tag, f in zip(self.saved, ("load", "decide", "replay"), self.orig):
            setattr(owner, name, self._timed(f, tag))
        return self

    def _timed(self, f, tag: str):
        def g(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                self.acc[tag] += time.perf_counter() - t
        return g

    def __exit__(self, *exc) -> None:
        for (owner, name), f in zip(self.saved, self.orig):
            setattr(owner, name, f)

    def split(self) -> dict:
        return {"load_s": self.acc["load"], "engine_s": self.acc["decide"] - self.acc["replay"],
                "replay_s": self.acc["replay"]}


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
    _check(ck, shared)
    t_shared = time.perf_counter() - t0    # sympy's import + kit + ops, each counted once
    with _Phases() as phases:
        t_tmpl, n_t, bad_t = _check(ck, tmpl)
        t_net, n_n, bad_n = _check(ck, own)
    return {"shared_s": t_shared, "templates_s": t_tmpl, "net_s": t_net,
            "symbolic_s": t_tmpl + t_net, "symbolic_cold_s": t_shared + t_tmpl + t_net,
            "theorems": n_t + n_n, "not_proved": bad_t + bad_n, **phases.split()}


def synthetic_net(units: int) -> Net:
    blocks = [Block(STEM, "stem", {"ic": 3, "oc": 64, "k": 7})]
    blocks += [Block(BASIC_ID, f"b{i}", {"c": 64, "k": 3}) for i in range(4 * units)]
    blocks += [Block(HEAD, "head", {"c": 64})]
    return Net(key=f"chain{units}", title=f"Synthetic chain ×{units}", short=f"ch{units}",
               fwd_name=f"chain{units}Fwd", sync_name=f"chain{units}FwdSync",
               t2_name=f"chain{units}_shard", tied_name=f"chain{units}Tied",
               t3_name=f"chain{units}_tied", cin=3, base="7", input_level=2, blocks=blocks,
               census=0, bn_sites=0)


def own_files_checker(ck: Checker, files: list[Path]) -> Checker:
    """A checker that knows everything `ck` proved (its libraries, verdicts and the declarations
    they are for) but not `files`: checking them then decides only their own theorems."""
    ck2 = Checker(Options(search_seconds=0.0))
    ck2.verdicts = dict(ck.verdicts)
    # `verdict_of` reuses a verdict only for the very declaration it was given for: a fresh
    # library would re-elaborate the imports and re-prove them (~160 theorems), so keep both
    ck2._decl_of = dict(ck._decl_of)
    ck2.libraries = dict(ck.libraries)
    lib = ck2.library_for(files[0])
    for f in files:           # (the library object is shared with `ck`: a dropped file is
        lib.files.pop(str(Path(f).resolve()), None)     # parsed afresh by either checker)
    return ck2


def depth(root: Path, reps: int = 5) -> dict:
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
        files = [root / "nets" / f"{net.key}.lemma", root / "nets" / f"{net.key}_step.lemma"]
        best = None
        for _ in range(reps):
            t, n, bad = _check(own_files_checker(ck, files), files)
            assert bad == 0, f"synthetic chain ×{units}: {bad} theorems not proved"
            best = t if best is None else min(best, t)
        out[units] = {"blocks": len(net.blocks), "theorems": n, "seconds": best}
    base = out[1]["seconds"]
    for row in out.values():
        row["ratio"] = row["seconds"] / base
    return out


# numpy's BLAS starts one thread per core; the symbolic check runs on one.  Pinned to one thread,
# the parity run is compared like with like, and it does not swing with the other cores' load.
BLAS_ONE_THREAD = {v: "1" for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}

_PARITY_CHILD = (
    "import json, sys, time\n"
    "from shardproof.nets import NETS\n"
    "from shardproof.parity import run_parity\n"
    "key, base = sys.argv[1], int(sys.argv[2])\n"
    "t = time.perf_counter()\n"
    "r = run_parity(NETS[key], R=2, N=2, width=1.0, base=base)\n"
    "print(json.dumps({'seconds': time.perf_counter() - t, 'ok': r.ok()}))\n")


def parity(key: str, base: int, one_thread: bool) -> tuple[float, bool]:
    """Time `run_parity` in a child process: the BLAS thread count is fixed when numpy is
    imported, and this process has imported it already."""
    env = {**os.environ, **(BLAS_ONE_THREAD if one_thread else {})}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"),
                                                      env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", _PARITY_CHILD, key, str(base)], env=env,
                         check=True, capture_output=True, text=True).stdout
    row = json.loads(out.strip().splitlines()[-1])
    return row["seconds"], row["ok"]


def _base(text: str) -> int:
    n = int(text)
    if not 1 <= n <= 16:          # as `python -m shardproof.parity --base`: 16 is 512 × 512
        raise argparse.ArgumentTypeError(f"must be from 1 to 16, not {n}")
    return n


def _net(text: str) -> str:
    if text not in NETS:
        raise argparse.ArgumentTypeError(f"no net `{text}`; the nets: {', '.join(NETS)}")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Symbolic check time, numeric parity time and depth scaling of the nets "
                    "(exit 2 on bad arguments).")
    ap.add_argument("--nets", nargs="+", type=_net, default=list(NETS),
                    help=f"nets to run (default: all): {', '.join(NETS)}")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-parity", action="store_true")
    ap.add_argument("--no-depth", action="store_true")
    ap.add_argument("--base", type=_base, default=1,
                    help="parity input 32·BASE pixels (1: 32×32; 7: the nets' 224×224)")
    ap.add_argument("--default-threads", action="store_true",
                    help="run parity with numpy's default BLAS threads (default: one thread, "
                         "as the symbolic check uses one core)")
    a = ap.parse_args(argv)
    threads = "default BLAS threads" if a.default_threads else "BLAS pinned to 1 thread"
    if not a.json and not a.no_parity:
        print(f"parity: R = 2, N = 2, {32 * a.base}×{32 * a.base}, real widths, {threads}, "
              "in a child process", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="nets_bench_"))
    try:
        root = tmp / "lemmas"
        shutil.copytree(REPO / "lemmas", root)
        rows = []
        for key in a.nets:
            row = {"net": key, **symbolic(key, root)}
            if not a.no_parity:
                row["parity_s"], row["parity_ok"] = parity(key, a.base, not a.default_threads)
                row["parity_threads"] = threads
                row["ratio"] = row["parity_s"] / row["symbolic_s"]
                row["ratio_cold"] = row["parity_s"] / row["symbolic_cold_s"]
            rows.append(row)
            if not a.json:
                print(f"{key:16s} symbolic {row['symbolic_s']:6.2f}s (templates "
                      f"{row['templates_s']:.2f} + net {row['net_s']:.2f} = read "
                      f"{row['load_s']:.2f} + engine {row['engine_s']:.2f} + replay "
                      f"{row['replay_s']:.2f}; with kit "
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
                print("depth (the chain's own files): " + ", ".join(
                    f"×{u} ({v['blocks']} blocks, {v['theorems']} theorems) {v['seconds']:.2f}s "
                    f"= {v['ratio']:.2f}×" for u, v in d.items()))
        if a.json:
            print(json.dumps(result, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
