"""No theorem of `lemmas/` is proved vacuously: the hypotheses of each one hold together.

A theorem whose hypotheses contradict each other (`0 < R` next to `R = 0`, say) is proved by any
proof and says nothing.  For every theorem of `lemmas/` (the kit, `nets/ops.lemma`, the block
templates and the per-net files) that has hypotheses, this module exhibits a model of them:

* **numeric** — sizes chosen so that every size a `0 < m` / `m ≠ 0` hypothesis needs is at least 1
  (replica and batch sizes 2, the other sizes 2, then 1, then 3, the first choice that satisfies
  the size hypotheses and fits; failing those, the first sizes in 1..4 that satisfy the size
  hypotheses), data built by `semantics.sample_assignment` in exact arithmetic
  (the families that `∀ r, x r = …` hypotheses define are computed from them; the rest is drawn),
  and then EVERY hypothesis re-evaluated on it: `semantics.evaluate(h, env, a, "exact") is True`.
  Every `Fin` binder of the theorem must be inhabited at those sizes, too (`r : Fin R` at R = 0
  would make the conclusion vacuous at the sizes shown).
* **numeric, hypothesis variables only** — when the data of all the binders is past what the
  evaluator builds (200,000 entries: a whole network's weights at real widths), the same on the
  binders the hypotheses mention (and the sizes): the others are unconstrained, and every type has
  a value (`Vec n`, `ℝ`, families of them; each `Fin` is checked inhabited).
* **structural** — when even those are too large (the forward ties of the 224×224 nets: the
  input batch alone is R·N·150,528 entries, and its shards as many again), a proof of
  satisfiability by shape: every hypothesis on sizes alone holds (exactly) at the chosen sizes;
  every other one is a *definition* `∀ (r : Fin S), v r = RHS` (or `v = RHS`) of a distinct
  variable `v` — a family over all of `Fin S`, with `v` not in `RHS` — and the definitions are
  acyclic, or is `0 < x` / `0 ≤ x` for a real `x` that no definition defines and no other
  hypothesis mentions.  Then: pick the sizes, any data for the undefined variables (a positive
  real for such an `x`), and compute the defined ones in dependency order — every operation of
  the language is total (`docs/semantics.md`: `x / 0 = 0`, `sqrt x = 0` for `x < 0`), so each
  right side has a value, of the target's type by elaboration.

Nothing is skipped silently: `test_vacuity_census` prints how many theorems each route covered
and lists the structural-only ones with the reason, and fails if any theorem with hypotheses is
covered by none.  The self-tests at the end show the check fails on contradictory hypotheses (a
copy of a kit theorem with `(hz : R = 0)` next to `0 < R`, or `ε < 0` next to `0 < ε`), on both
the numeric and the structural route.
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from shardproof import arith, semantics
from shardproof import terms as T
from shardproof.library import Library
from shardproof.pretty import pretty
from shardproof.types import FinT, FunT, NatT, RealT, VecT

ROOT = Path(__file__).resolve().parents[1]
LEMMAS = ROOT / "lemmas"
# The evaluator's bound on the data it builds (`semantics.FLOAT_ELEMENTS`).
LIMIT = semantics.FLOAT_ELEMENTS
REPLICA_BATCH = ("R", "N")
OTHER_SIZES = (2, 1, 3)           # the other sizes, in the order they are tried
SOFT = 20_000                     # past this many entries at size 2, try size 1 first
DRAWS = (("halves", 0), ("integers", 1), ("halves", 2))
TRUE_PROP = T.Cmp("=", T.Num(Fraction(0)), T.Num(Fraction(0)))


def _load(root: Path, paths=None):
    lib = Library(root)
    out = []
    for f in sorted(paths or root.rglob("*.lemma")):
        lf = lib.load(f)
        out.extend((f, g, lf.env) for g in lf.own if g.kind == "theorem")
    return out


ALL = _load(LEMMAS)
WITH_HYPS = [(f, g, env) for f, g, env in ALL if g.hyps]
BY_NAME = {g.name: (f, g, env) for f, g, env in WITH_HYPS}


# ============================================================================ sizes and data

def _sizes_of(g) -> list[str]:
    return [n for n, ty in g.binders if isinstance(ty, NatT)]


def _resolve(g, chosen: dict[str, int]) -> dict[str, int] | None:
    """The free sizes as chosen, the sizes a hypothesis `a = b` ties computed from them."""
    tied = dict(g.size_subst)
    vals = {n: chosen[n] for n in _sizes_of(g) if n not in tied}
    pending = dict(tied)
    while pending:
        done = False
        for n, t in list(pending.items()):
            try:
                vals[n] = arith.size_value(t, vals)
            except (KeyError, arith.NotASize):
                continue
            del pending[n]
            done = True
        if not done:
            return None
    return vals


def _candidates(g):
    """Replica and batch sizes 2; the other sizes all 2, then 1, then 3 — but 1 first when the
    data at 2 is large (ResNet-50's resolution binder `q`: 64×64 inputs are 4× 32×32 ones)."""
    out = []
    for other in OTHER_SIZES:
        chosen = {n: (2 if n in REPLICA_BATCH else other) for n in _sizes_of(g)}
        vals = _resolve(g, chosen)
        if vals is not None:
            out.append((chosen, vals))
    if len(out) > 1 and _entries(_restricted(g).binders, out[0][1]) > SOFT \
            and _entries(_restricted(g).binders, out[1][1]) < _entries(_restricted(g).binders,
                                                                        out[0][1]):
        out[0], out[1] = out[1], out[0]
    return out


def _sizes_for(g, env):
    """The size choices to try: the preferred ones above; when the size hypotheses hold at none of
    them (`R * N = 3`, say), the first sizes in 1..4 (smallest sum first) where they hold."""
    out = _candidates(g)
    if not _size_hyps(g) or any(not _failing_size_hyps(g, env, v) for _, v in out):
        return out
    free = [n for n in _sizes_of(g) if n not in dict(g.size_subst)]
    if 4 ** len(free) > 4096:
        return out
    for combo in sorted(itertools.product(range(1, 5), repeat=len(free)), key=sum):
        vals = _resolve(g, dict(zip(free, combo)))
        if vals is not None and not _failing_size_hyps(g, env, vals):
            return out + [(dict(zip(free, combo)), vals)]
    return out


def _count(ty, vals: dict[str, int]) -> int:
    """Entries of data a binder of this type takes at these sizes."""
    if isinstance(ty, VecT):
        return arith.size_value(ty.size, vals)
    if isinstance(ty, RealT):
        return 1
    if isinstance(ty, FunT) and isinstance(ty.dom, FinT):
        return arith.size_value(ty.dom.size, vals) * _count(ty.cod, vals)
    return 0          # a size, an index, a per-example map (a small random model)


def _entries(binders, vals) -> int:
    return sum(_count(ty, vals) for _, ty in binders)


def _hyp_names(g) -> set[str]:
    """The binders of `g` its hypotheses mention (sizes included)."""
    out: set[str] = set()
    for _, h in g.hyps:
        out |= T.free_names(h)
    return out & {n for n, _ in g.binders}


def _restricted(g):
    """`g` with only the binders its hypotheses mention (and the sizes), and a trivial statement."""
    used = _hyp_names(g)
    binders = tuple((n, ty) for n, ty in g.binders if isinstance(ty, NatT) or n in used)
    return dataclasses.replace(g, binders=binders, stmt=TRUE_PROP)


def _empty_fins(g, vals) -> list[str]:
    """The `Fin` binders of `g` (also the domains of its families) that are empty at these sizes."""
    out = []
    for n, ty in g.binders:
        t = ty
        while True:
            if isinstance(t, FinT) and arith.size_value(t.size, vals) < 1:
                out.append(n)
                break
            if isinstance(t, FunT) and isinstance(t.dom, FinT):
                if arith.size_value(t.dom.size, vals) < 1:
                    out.append(n)
                    break
                t = t.cod
                continue
            break
    return out


def _size_hyps(g):
    sizes = set(_sizes_of(g))
    return [(hn, h) for hn, h in g.hyps if T.free_names(h) <= sizes]


def _failing_size_hyps(g, env, vals) -> list[str]:
    a = semantics.Assignment(sizes=dict(vals))
    return [hn for hn, h in _size_hyps(g) if semantics.evaluate(h, env, a, "exact") is not True]


# ============================================================================ the checks

@dataclasses.dataclass
class Outcome:
    route: str             # "numeric" | "numeric-hyp-vars" | "structural" | "FAILED"
    sizes: dict[str, int]
    detail: str = ""


def numeric_check(g, env, limit: int = LIMIT) -> Outcome:
    """A concrete model of every hypothesis, re-evaluated exactly; FAILED/`too large` otherwise."""
    tried = []
    for chosen, vals in _sizes_for(g, env):
        if _failing_size_hyps(g, env, vals):
            tried.append(f"{vals}: size hypotheses {_failing_size_hyps(g, env, vals)} fail")
            continue
        empty = _empty_fins(g, vals)
        if empty:
            tried.append(f"{vals}: `Fin` binders / family domains {empty} are empty")
            continue
        decl, route = g, "numeric"
        n = _entries(g.binders, vals)
        if n > limit:
            decl, route = _restricted(g), "numeric-hyp-vars"
            n = _entries(decl.binders, vals)
            if n > limit:
                tried.append(f"too large at {vals}: {n:,} entries for the hypotheses' "
                             f"variables {sorted(_hyp_names(g) - set(_sizes_of(g)))} "
                             f"(the evaluator builds up to {limit:,})")
                continue
        key = (decl.binders, decl.hyps, decl.size_subst, tuple(sorted(chosen.items())))
        if route == "numeric-hyp-vars" and key in _MODELS:    # the same hypotheses, in the
            return Outcome(route, vals, _MODELS[key])          # same file: the same model
        for data, seed in DRAWS:
            rng = np.random.default_rng([seed, sum(map(ord, g.name))])
            try:
                with np.errstate(all="ignore"):   # sympy conversions raise numpy's flags
                    a = semantics.sample_assignment(decl, env, chosen, rng, "exact", data=data)
            except semantics.EvalError as exc:
                tried.append(f"{vals}: the evaluator cannot build the data: {exc}")
                break
            if a is None:
                tried.append(f"{vals}, {data} data: some hypothesis fails")
                continue
            with np.errstate(all="ignore"):
                bad = [hn for hn, h in g.hyps
                       if semantics.evaluate(h, env, a, "exact") is not True]
            if bad:   # the sampler said yes, the evaluator says no: report, never pass
                return Outcome("FAILED", vals, f"hypotheses {bad} are false on the assignment "
                                               f"sample_assignment built:\n{a.format()}")
            if route == "numeric-hyp-vars":
                _MODELS[key] = f"{n:,} entries (a model shared with {g.name})"
            return Outcome(route, vals, f"{n:,} entries")
    return Outcome("FAILED", {}, "no model found: " + "; ".join(tried))


_MODELS: dict = {}


def _definition(h, types):
    """`(target, rhs, bound)` when `h` is `∀ (r : Fin S), v r = RHS` over v's whole domain (or
    `v = RHS`) with v a data binder of the theorem not occurring in RHS; else None."""
    binders: tuple = ()
    body = h
    if isinstance(h, T.Forall):
        binders = h.binders
        body = h.body
    if not (isinstance(body, T.Cmp) and body.op == "="):
        return None
    names = tuple(b.name for b in binders)
    if len(set(names)) != len(names):
        return None
    for lhs, rhs in ((body.lhs, body.rhs), (body.rhs, body.lhs)):
        if names:
            if not (isinstance(lhs, T.App) and isinstance(lhs.fn, T.Var)
                    and tuple(lhs.args) == tuple(T.Var(n) for n in names)):
                continue
            target = lhs.fn.name
            ty = types.get(target)
            ok = True
            for b in binders:     # each bound index ranges over the family's whole domain
                bty = b.ty
                if not (isinstance(ty, FunT) and isinstance(ty.dom, FinT)
                        and isinstance(bty, T.App) and bty.fn == T.Var("Fin")
                        and arith.sizes_equal(bty.args[0], ty.dom.size)):
                    ok = False
                    break
                ty = ty.cod
            if not ok or not isinstance(ty, (VecT, RealT)):
                continue
        else:
            if not (isinstance(lhs, T.Var) and isinstance(types.get(lhs.name), (VecT, RealT))):
                continue
            target = lhs.name
        if target not in T.free_names(rhs, frozenset(names)):
            return target, rhs, frozenset(names)
    return None


def _positivity(h, types):
    """The real binder `x` of `0 < x` / `0 ≤ x` / `x > 0` / `x ≥ 0`, else None."""
    if not isinstance(h, T.Cmp):
        return None
    zero = T.Num(Fraction(0))
    for op, a, b in ((h.op, h.lhs, h.rhs), ({">": "<", "≥": "≤"}.get(h.op, ""), h.rhs, h.lhs)):
        if op in ("<", "≤") and a == zero and isinstance(b, T.Var) \
                and isinstance(types.get(b.name), RealT):
            return b.name
    return None


def structural_check(g, env) -> Outcome:
    """Satisfiability by shape (module docstring); FAILED with the reason when it cannot show it."""
    types = dict(g.binders)
    sizes = set(_sizes_of(g))
    choices = _sizes_for(g, env)
    if not choices:
        return Outcome("FAILED", {}, "the size ties cannot be resolved")
    vals = next((v for _, v in choices if not _failing_size_hyps(g, env, v)), choices[0][1])
    bad = _failing_size_hyps(g, env, vals)
    if bad:
        return Outcome("FAILED", vals, f"size hypotheses {bad} are false at {vals}")
    empty = _empty_fins(g, vals)
    if empty:
        return Outcome("FAILED", vals, f"`Fin` binders / family domains {empty} are empty at {vals}")
    defs: dict[str, tuple[T.Term, frozenset]] = {}
    positive: list[tuple[str, str]] = []
    for hn, h in g.hyps:
        if T.free_names(h) <= sizes:
            continue
        d = _definition(h, types)
        if d is not None:
            target, rhs, bound = d
            if target in defs:
                return Outcome("FAILED", vals, f"`{target}` is defined twice ({hn})")
            unknown = T.free_names(rhs, bound) - set(types) - set(env.decls)
            if unknown:
                return Outcome("FAILED", vals, f"{hn} reads unknown names {sorted(unknown)}")
            defs[target] = (rhs, bound)
            continue
        x = _positivity(h, types)
        if x is not None:
            positive.append((hn, x))
            continue
        return Outcome("FAILED", vals, f"{hn} is neither a size fact, a definition nor a "
                                       f"positivity: {pretty(h)}")
    for hn, x in positive:
        others = [on for on, o in g.hyps if on != hn and x in T.free_names(o)
                  and _definition(o, types) is None]
        if x in defs or others:
            return Outcome("FAILED", vals,
                           f"{hn}: `{x}` is also constrained by {others or 'a definition'}")
    # the definitions, in dependency order
    order, known = [], set(types) - set(defs)
    pending = dict(defs)
    while pending:
        ready = [v for v, (rhs, bound) in pending.items()
                 if (T.free_names(rhs, bound) & set(types)) <= known]
        if not ready:
            return Outcome("FAILED", vals, f"the definitions of {sorted(pending)} are cyclic")
        for v in ready:
            order.append(v)
            known.add(v)
            del pending[v]
    return Outcome("structural", vals, f"{len(order)} definition(s) {order}, "
                                       f"{len(positive)} positivity, "
                                       f"{len(_size_hyps(g))} size fact(s)")


def vacuity_check(g, env, limit: int = LIMIT) -> Outcome:
    out = numeric_check(g, env, limit)
    if out.route != "FAILED" or "too large" not in out.detail:
        return out
    # too large to build at the sizes tried: the structural argument, saying why
    st = structural_check(g, env)
    first = out.detail.split(": ", 1)[1].split("; ")[0]
    st.detail += (f"\n(numerically: {out.detail})" if st.route == "FAILED"
                  else f"; not built: {first}")
    return st


@cache
def _outcome(name: str) -> Outcome:
    _, g, env = BY_NAME[name]
    return vacuity_check(g, env)



# ============================================================================ the library

@pytest.fixture(autouse=True, scope="module")
def _exact_arrays_up_to_the_float_bound():
    """The audit builds whole models in exact arithmetic, at the nets' real widths (ResNet-50's
    prefix: 12,288 entries); the evaluator's exact bound (EXACT_CELLS, 10,000) is for the
    search's re-check of a candidate and would send those models to the structural route."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(semantics, "EXACT_CELLS", semantics.ARRAY_CELLS)
        yield


@pytest.mark.parametrize("name", list(BY_NAME), ids=list(BY_NAME))
def test_hypotheses_are_satisfiable(name):
    f, g, _ = BY_NAME[name]
    _assert_not_vacuous(str(f.relative_to(LEMMAS)), g, _outcome(name))


def _assert_not_vacuous(where: str, g, out: Outcome) -> None:
    assert out.route != "FAILED", (
        f"{g.name} ({where}) may be VACUOUS — no model of its hypotheses "
        f"{[hn for hn, _ in g.hyps]}: {out.detail}")


def test_vacuity_census(capsys):
    """Every theorem with hypotheses is covered by one route; the structural-only ones listed."""
    assert len(WITH_HYPS) == len(BY_NAME), "theorem names must be unique across lemmas/"
    routes: dict[str, list[str]] = {}
    for name in BY_NAME:
        routes.setdefault(_outcome(name).route, []).append(name)
    lines = [f"vacuity: {len(ALL)} theorems, {len(WITH_HYPS)} with hypotheses: "
             + ", ".join(f"{k} {len(v)}" for k, v in sorted(routes.items()))]
    by_file: dict[str, list[str]] = {}
    for name in routes.get("structural", []):
        by_file.setdefault(str(BY_NAME[name][0].relative_to(LEMMAS)), []).append(name)
    for file, names in by_file.items():
        lines.append(f"  structural only, {file}: {len(names)} ({names[0]}, …): "
                     f"{_outcome(names[0]).detail}")
    also = sum(structural_check(BY_NAME[n][1], BY_NAME[n][2]).route == "structural"
               for n in BY_NAME)
    lines.append(f"  (the structural argument alone also applies to {also} of the "
                 f"{len(WITH_HYPS)})")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert not routes.get("FAILED"), routes.get("FAILED")
    assert sum(map(len, routes.values())) == len(WITH_HYPS)
    assert len(WITH_HYPS) >= 400 and len(routes.get("numeric", [])) >= 300


# ============================================================================ self-tests

ORIGINAL = """
/-- a copy of `den_bnSyncF_allReduce` -/
theorem vac_original (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r := by norm

/-- the same with `R = 0` next to `0 < R` -/
theorem vac_sizes (R N oc h w : Nat) (hR : 0 < R) (hz : R = 0) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r := by norm

/-- the same with `ε < 0` next to `0 < ε` -/
theorem vac_reals (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ)
    (hε : 0 < ε) (hε' : ε < 0)
    (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r := by norm

/-- the same with `N * (h * w) = 0` next to `N * (h * w) ≠ 0` -/
theorem vac_product (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (hm0 : N * (h * w) = 0)
    (ε : ℝ) (γ β : Vec oc) (x : Fin R → Vec (N * (oc * (h * w))))
    (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R) :
    bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)
      = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r := by norm
"""
SELF = {"vac_original": True, "vac_sizes": False, "vac_reals": False, "vac_product": False}


@pytest.fixture(scope="module")
def selftest_theorems(tmp_path_factory):
    """The theorems above, in a temporary lemma root holding a copy of the kit."""
    root = tmp_path_factory.mktemp("vacuity")
    (root / ".lemmaroot").write_text("")
    shutil.copytree(LEMMAS / "kit", root / "kit")
    p = root / "selftest.lemma"
    p.write_text("import kit.bn_site\n" + ORIGINAL, encoding="utf-8")
    return {g.name: (g, env) for _, g, env in _load(root, [p])}


@pytest.mark.parametrize("name", list(SELF))
@pytest.mark.parametrize("route", ["numeric", "structural"])
def test_selftest_the_check_can_fail(name, route, selftest_theorems):
    """Contradictory hypotheses fail the check; the consistent original passes — by evaluation,
    and by the structural argument alone (which `vacuity_check` falls back to when the data is
    too large: forced here by a limit of 0 entries)."""
    g, env = selftest_theorems[name]
    if route == "numeric":
        out = vacuity_check(g, env)
    else:
        out = structural_check(g, env)
        if SELF[name]:
            assert vacuity_check(g, env, limit=0).route == "structural"
    if SELF[name]:
        assert out.route == route, out.detail
    else:
        assert out.route == "FAILED", f"{name} passed the vacuity check: {out}"
        with pytest.raises(AssertionError, match="VACUOUS"):   # as the library test says it
            _assert_not_vacuous("selftest.lemma", g, out)
