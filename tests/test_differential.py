"""The normaliser checked differentially against the reference semantics.

For a term ``t`` the engine computes a normal form ``nf(t)`` (``rewrite.normalize``); the
semantics (``shardproof.semantics.evaluate``) computes the value of ``t`` itself.  At random
inputs the two must agree: ``nfeval(nf(t)) == evaluate(t)``, at every output position, for

* every side of every equation of the sample theorems (the micro-suite of ``test_micro.py``,
  true AND false statements, and the benchmark's nine theorems) — false statements matter as
  much: the engine must compute each side correctly even when the sides differ;
* random terms from a small grammar of prelude ops (pointwise maps, masks, vector arithmetic,
  `fun`, `∑`, `if`, `sqrt`, `exp`, division).

The normal form is evaluated exactly (Fractions, floats only after an irrational sqrt/exp), the
semantics in float64; values are compared with a relative/absolute tolerance of 1e-9.  Skipped
when ``shardproof.semantics`` does not exist yet.
"""

from __future__ import annotations

import re

import copy
import importlib.util
import itertools
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from shardproof.library import Library
from shardproof.rewrite.nfeval import NFEvaluator, env_from_assignment, statement_normal_forms
from shardproof.rewrite.normalize import EngineGap
from shardproof.types import NatT

HAS_SEMANTICS = importlib.util.find_spec("shardproof.semantics") is not None
pytestmark = pytest.mark.skipif(not HAS_SEMANTICS, reason="shardproof.semantics (the numeric "
                                "evaluator) is not available yet: nothing to compare against")

ROOT = Path(__file__).resolve().parents[1]


def _load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MICRO = _load_module(ROOT / "tests" / "test_micro.py", "_micro_corpus_d")
BENCH = _load_module(ROOT / "bench" / "engine_bench.py", "_engine_bench_d")
TEXTS: dict[str, str] = dict(MICRO.PROVE)
TEXTS.update({k: v[0] for k, v in MICRO.FAIL.items()})
TEXTS.update(BENCH.lemma_texts())


def close(x: Any, y: Any) -> bool:
    fx, fy = float(x), float(y)
    if math.isnan(fx) or math.isnan(fy):
        return math.isnan(fx) and math.isnan(fy)
    return math.isclose(fx, fy, rel_tol=1e-9, abs_tol=1e-9)


def check_sides(g, genv, sizes: dict[str, int], seed: int, data: str = "halves",
                may_skip: bool = True) -> int:
    """Compare nfeval(nf(side)) with evaluate(side) for every side; return #values compared."""
    from shardproof import semantics

    try:
        sides, _ = statement_normal_forms(g, genv)
    except (NotImplementedError, EngineGap) as exc:
        if not may_skip:
            raise
        pytest.skip(f"{g.name}: not a statement the engine normalises ({exc})")
    rng = np.random.default_rng(seed)
    a = semantics.sample_assignment(g, genv, sizes, rng, "float", data=data)
    if a is None:
        pytest.skip(f"{g.name}: no assignment satisfies the hypotheses at {sizes}")
    base = env_from_assignment(a, exact=True)
    count = 0
    for side in sides:
        sem = {which: semantics.evaluate(term, genv, a, "float")
               for which, term in (("lhs", side.lhs), ("rhs", side.rhs))}
        reps = [None] if side.replica is None else list(range(len(sem["lhs"])))
        ev: NFEvaluator | None = None
        for r in reps:
            vals = {k: (v if r is None else v(r)) for k, v in sem.items()}
            outs = [None] if side.output is None else list(range(len(vals["lhs"])))
            for o in outs:
                positions = {fi.source: a.indices[fi.source] for fi in side.indices
                             if fi.source is not None and fi.source in a.indices}
                if r is not None:
                    positions["@rep"] = r
                if o is not None:
                    positions["@out"] = o
                env = copy.copy(base)
                env.indices = dict(base.indices)
                if not side.bind(env, positions):
                    continue  # a position of another case of a case split
                if ev is None:
                    ev = NFEvaluator(env)
                for k, v in env.indices.items():
                    ev.set_index(k, v)
                for which, nf in (("lhs", side.nf_lhs), ("rhs", side.nf_rhs)):
                    want = vals[which] if o is None else vals[which][o]
                    got = ev.poly(nf)
                    assert close(got, want), (
                        f"{g.name}: {which} at replica {r}, position {o}, sizes {a.sizes}, "
                        f"indices {a.indices}: normal form gives {got}, semantics {want}")
                    count += 1
    return count


# ------------------------------------------------------------------------- the sample theorems

@pytest.fixture(scope="module")
def corpus() -> dict[str, tuple]:
    with tempfile.TemporaryDirectory(prefix="shardproof-diff-") as d:
        yield MICRO.load_corpus(Path(d), TEXTS)


SIZE_PLANS = {
    "2s": lambda n: 2,                                                  # everything 2
    "R2N3": lambda n: {"R": 2, "N": 3}.get(n, 1 if n in ("h", "w", "kH", "kW") else 2),
}


@pytest.mark.parametrize("plan", sorted(SIZE_PLANS))
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_theorem_sides(corpus, name: str, plan: str) -> None:
    g, genv = corpus[name]
    sizes = {n: SIZE_PLANS[plan](n) for n, ty in g.binders if isinstance(ty, NatT)}
    if plan != "2s" and sum(sizes.values()) > 14:
        sizes = {n: min(v, 2) for n, v in sizes.items()}
    assert check_sides(g, genv, sizes, seed=sum(map(ord, name))) > 0


# ------------------------------------------------------------------------- random terms

VEC_UNARY = ["relu n", "relu6 n", "sigmoid n", "swish n"]
VEC_BINARY = ["addVB", "subB", "mulB", "reluMaskB n", "relu6MaskB n", "swBackB n"]
SCALED = ["scaleB", "shiftB", "divConstB"]


def scalars() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(["s", "t", "2", "(1 / 2)", "X 0", "Y 0"])
    return st.recursive(leaf, lambda c: st.one_of(
        st.tuples(c, st.sampled_from(["+", "-", "*", "/"]), c).map(lambda t: f"({t[0]} {t[1]} "
                                                                              f"{t[2]})"),
        c.map(lambda x: f"(sqrt ({x} * {x}))"),
        c.map(lambda x: f"(∑ (k : Fin n), X k * {x})"),
    ), max_leaves=4)


def vectors() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(["X", "Y"])

    def extend(c):
        return st.one_of(
            st.tuples(st.sampled_from(VEC_UNARY), c).map(lambda t: f"({t[0]} {t[1]})"),
            st.tuples(st.sampled_from(VEC_BINARY), c, c).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(SCALED), scalars(), c).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(scalars(), c).map(lambda t: f"({t[0]} • {t[1]})"),
            st.tuples(c, st.sampled_from(["+", "-"]), c).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(c, c).map(lambda t: f"(fun (i : Fin n) => if 0 < at n {t[0]} i then "
                                          f"at n {t[1]} i else at n {t[0]} i * s)"),
            st.tuples(c, c).map(lambda t: f"(fun (i : Fin n) => at n {t[0]} i * (∑ (j : Fin n), "
                                          f"at n {t[1]} j * at n {t[0]} j) / (n * s))"),
            c.map(lambda x: f"(fun (i : Fin n) => sqrt (at n {x} i * at n {x} i + t) "
                            f"+ exp (at n {x} i / 4))"),
        )
    return st.recursive(leaf, extend, max_leaves=5)


_RT = tempfile.TemporaryDirectory(prefix="shardproof-diff-random-")
_RLIB: list[Library] = []
_RCOUNT = itertools.count()


def _distinct_binders(text: str) -> str:
    """Give every generated `(fun (i : Fin n) => …)` and `(∑ (k : Fin n), …)` its own index
    name, innermost first (a binder may not shadow an enclosing one): the body of each is up to
    its closing parenthesis, and the `i` (`k`) left in it after the inner ones are renamed are
    its own."""
    heads = {"(fun (i : Fin n) => ": ("i", "(fun ({} : Fin n) => "),
             "(∑ (k : Fin n), ": ("k", "(∑ ({} : Fin n), ")}
    count = [0]

    def go(t: str) -> str:
        out, k = [], 0
        while True:
            found = [(t.find(h, k), h) for h in heads if t.find(h, k) >= 0]
            if not found:
                break
            j, h = min(found)
            depth, e = 0, j
            while True:                               # the parenthesis closing this binder
                depth += {"(": 1, ")": -1}.get(t[e], 0)
                if depth == 0:
                    break
                e += 1
            body = go(t[j + len(h):e])
            count[0] += 1
            old, fmt = heads[h]
            name = f"{old}{count[0]}"
            out.append(t[k:j] + fmt.format(name) + re.sub(rf"\b{old}\b", name, body) + ")")
            k = e + 1
        return "".join(out) + t[k:]
    return go(text)


def _random_theorem(vec: str):
    vec = _distinct_binders(vec)
    root = Path(_RT.name)
    if not _RLIB:
        (root / ".lemmaroot").write_text("")
        _RLIB.append(Library(root))
    p = root / f"r{next(_RCOUNT)}.lemma"
    p.write_text("def at (n : Nat) (v : Vec n) (i : Fin n) : ℝ := v i\n"
                 "theorem d (n : Nat) (hn : 0 < n) (X Y : Vec n) (s t : ℝ) :\n"
                 f"    {vec} = X\n", encoding="utf-8")
    lf = _RLIB[0].load(p)
    return lf.own[-1], lf.env


@settings(max_examples=150, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(vec=vectors(), n=st.integers(2, 3), seed=st.integers(0, 10_000),
       data=st.sampled_from(["halves", "integers", "normal"]))
def test_random_terms(vec: str, n: int, seed: int, data: str) -> None:
    g, genv = _random_theorem(vec)
    assert check_sides(g, genv, {"n": n}, seed, data, may_skip=False) > 0
