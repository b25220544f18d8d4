"""Mechanical false variants of every theorem of `lemmas/kit/`, and what the checker makes of them.

The project promises that every library lemma has false variants the checker must refuse; the
hand-written corpus (`tests/mustfail/`) covers some. This module derives variants from each kit
theorem's *elaborated* statement (terms of `shardproof.terms`; no theorem names, no table of
verdicts) and checks them:

(a) **wrong factor** — each equation `lhs = rhs` of the statement (also under `∀` and inside
    `∧`, one equation at a time) becomes `lhs = 2 • rhs` for a vector equation, `lhs = 2 * rhs`
    for a real or size one (the type is the elaborator's, `GlobalDecl.prop_types`, by position).
    A statement that is a `Prop`-valued definition applied to arguments (`ConvWSync R N …`) is
    UNFOLDED with the library's own elaborated definition (`def` body, parameters substituted;
    the equation types are carried over from the definition's `prop_types`), so its equations get variants
    too; none is skipped for being a definition. Since the original is proved, the variant holds
    exactly where `rhs = 0`: the test first asks the engine for `rhs = 0 • rhs` (`rhs = 0` for a
    real); when that is proved — and the search finds no counterexample to it — the variant is
    TRUE and skipped with that reason. Otherwise: the full checker (`prove.decide`: engine, then
    kernel replay; the engine's `attempt` is also looked at alone) must NOT prove it, the replay
    kernel's own closing steps (`norm` by its independent normal form, `defeq`) must reject it,
    and the counterexample search must refute it, the counterexample re-evaluated `False` in
    exact (and float) arithmetic with the hypotheses `True`.
(b) **missing hypothesis** — each hypothesis `0 < m`, `m > 0` or `m ≠ 0` dropped, one at a time.
    Such a variant may be true (a redundant hypothesis), so the test asserts consistency: a
    counterexample re-evaluates (`False` exactly, the remaining hypotheses `True`) and then the
    checker did not prove the variant; a proved variant has no counterexample, neither from the
    search nor at assignments that set each name of `m` to 0 (where the dropped hypothesis
    fails). The counts of refuted / unknown / proved variants are reported, each with what the
    numbers say where `m = 0` (holds / vacuous: an index binder has no value). (Writing this module
    found that the evaluator lost the member shape of an empty replica family, `R = 0`, so the
    search could not judge such statements there; `Assignment.member_shapes` now keeps it.)
(c) **shifted index** — for each `Fin` binder the statement quantifies over (a theorem binder
    `r : Fin R` that no hypothesis mentions, or a `∀ (idx : Fin …)` of the statement, after the
    unfolding of (a)) and each equation in its scope whose two sides both use it, the binder is
    replaced by the fixed index `0` in ONE side (the right side, then separately the left side).
    Such a variant is false unless the range has ≤ 1 element or that side does not depend on the
    index; the latter is detected honestly (the engine proves `side = side[r := 0]`, and the
    search finds no counterexample to it) and skipped with the reason. Otherwise the checker must
    not prove it, the kernel's `norm`/`defeq` must reject it, and the search must refute it
    (re-evaluated exactly). Replica indices (a `Fin R` where `R` is the domain of a replica
    family `Fin R → …` of the theorem, or the leading factor of a global batch `(R * N) * …` of
    a vector binder) are counted separately. Note the source
    language would require `0 < R` to write the index `0`; the variant's meaning is unaffected
    (at `R = 0` there is no `r`, so the statement is vacuous there).

Variants are built on elaborated terms and handed to the engine/kernel/search as
`GlobalDecl`s (`dataclasses.replace`), exactly as the checker receives parsed theorems.
`≠` statements between values (existence statements proved by a witness) get no variants in
(a)/(c) (they have no equation) and none in (b) (dropping a hypothesis only weakens an existence
statement); they are counted as skipped.

A false variant that the checker proves is a soundness bug: the test fails and names it. There
is no expected-unknown list: every false variant of (a) and (c) is refuted today (the smallest
sizes suffice: replica and batch sizes 2, one index shifted), so an unrefuted one fails too, as
a regression of the search. Budgets: 2 s of search per (a)/(c) variant (each is refuted in its
first draws, < 0.3 s), 0.3 s per (b) variant (most are true); the module runs in about 30 s.

Run `python tests/test_kit_variants.py` (or set SHARDPROOF_VARIANTS_REPORT=1 under pytest) for
the counts per category and the outcome of every (b) variant.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from shardproof import arith, semantics
from shardproof import terms as T
from shardproof.check import Checker, Options
from shardproof.library import Library
from shardproof.pretty import pretty
from shardproof.prove import attempt, decide
from shardproof.types import FinT, FunT, NatT, PropT, RealT, VecT, subst_term

ROOT = Path(__file__).resolve().parents[1]
LEMMAS = ROOT / "lemmas"
KIT_DIR = LEMMAS / "kit"

# Search budgets (seconds) per variant: the smallest sizes come first, so a false variant is
# usually refuted in its first draw; the budget bounds the rare slow one.
SEARCH_SECONDS = 2.0
ZERO_CHECK_SECONDS = 0.5
HYP_SEARCH_SECONDS = 0.3

TWO = T.Num(Fraction(2))
ZERO = T.Num(Fraction(0))


# ============================================================================ the kit

def _load_kit():
    lib = Library(LEMMAS)
    out = []
    for f in sorted(KIT_DIR.rglob("*.lemma")):
        lf = lib.load(f)
        out.extend((g, lf.env) for g in lf.own if g.kind == "theorem")
    return out


KIT = _load_kit()
IDS = [g.name for g, _ in KIT]


def _is_value_ne(g) -> bool:
    """A `≠` between reals or vectors: an existence statement (proved by a witness)."""
    return isinstance(g.stmt, T.Cmp) and g.stmt.op == "≠" and \
        not isinstance(g.cmp_types.get(g.stmt), NatT)


# ============================================================================ term surgery

def _bound_names(t: T.Term) -> set[str]:
    out: set[str] = set()
    todo = [t]
    while todo:
        u = todo.pop()
        if isinstance(u, (T.Lam, T.Sum, T.Forall)):
            out.update(b.name for b in u.binders)
        todo.extend(u.children())
    return out


class Skip(Exception):
    """A statement (or part) this module cannot make a variant of, with the reason."""


def unfold_props(t: T.Term, env, types: dict, out: dict, path=(), rel=(), depth: int = 0
                 ) -> T.Term:
    """Unfold `Prop`-valued definitions in the propositional skeleton (`∧`, `∀`, applications)
    with the library's elaborated definitions.  ``types``: the equation types of the term being
    unfolded by position (`∧` 0 / 1, `∀` 0) relative to it (``rel``); ``out`` receives them by
    position in the result (``path``), an unfolded body's from its definition."""
    if isinstance(t, T.And):
        return T.And(unfold_props(t.lhs, env, types, out, path + (0,), rel + (0,), depth),
                     unfold_props(t.rhs, env, types, out, path + (1,), rel + (1,), depth),
                     span=t.span)
    if isinstance(t, T.Forall):
        return T.rebind(t, t.binders,
                        unfold_props(t.body, env, types, out, path + (0,), rel + (0,), depth))
    if isinstance(t, T.Cmp) and rel in types:
        out[path] = types[rel]
    if isinstance(t, T.App) and isinstance(t.fn, T.Var):
        d = env.get(t.fn.name)
        if d is not None and d.kind == "def" and isinstance(d.ret_ty, PropT):
            if depth > 8:
                raise Skip(f"`{t.fn.name}` unfolds too deeply")
            params = [p for p in d.params if p.kind != "hyp"]
            if len(params) != len(t.args):
                raise Skip(f"`{t.fn.name}` is applied partially")
            free_args = set().union(*(T.free_names(a) for a in t.args)) if t.args else set()
            clash = free_args & _bound_names(d.body)
            if clash:  # subst_term does not rename binders: refuse rather than capture
                raise Skip(f"unfolding `{t.fn.name}` would capture {sorted(clash)}")
            body = subst_term(d.body, {p.name: a for p, a in zip(params, t.args)})
            return unfold_props(body, env, d.prop_types, out, path, (), depth + 1)
    return t


def equations(t: T.Term, path=(), scope=()):
    """The equations of the propositional skeleton: (path, the `Cmp`, the `∀`-binders above)."""
    if isinstance(t, T.And):
        yield from equations(t.lhs, path + ("lhs",), scope)
        yield from equations(t.rhs, path + ("rhs",), scope)
    elif isinstance(t, T.Forall):
        yield from equations(t.body, path + ("body",), scope + tuple(t.binders))
    elif isinstance(t, T.Cmp) and t.op == "=":
        yield path, t, scope


def replace_at(t: T.Term, path, new: T.Term) -> T.Term:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(t, T.And):
        if head == "lhs":
            return T.And(replace_at(t.lhs, rest, new), t.rhs, span=t.span)
        return T.And(t.lhs, replace_at(t.rhs, rest, new), span=t.span)
    assert isinstance(t, T.Forall) and head == "body"
    return T.rebind(t, t.binders, replace_at(t.body, rest, new))


def _position(path) -> tuple[int, ...]:
    """A path of :func:`equations` as a position of `GlobalDecl.prop_types`."""
    return tuple({"lhs": 0, "rhs": 1, "body": 0}[p] for p in path)


def variant_decl(g, stmt: T.Term, types: dict, tag: str, hyps=None):
    """``g`` with statement ``stmt``, its equations typed by position (``types``): a variant
    replaces one equation by another of the same type, at the same position."""
    return dataclasses.replace(g, name=f"{g.name}~{tag}", stmt=stmt,
                               prop_types=types, hyps=g.hyps if hyps is None else hyps)


def _scaled(rhs: T.Term, ty, k: T.Num) -> T.Term:
    return T.BinOp("•", k, rhs) if isinstance(ty, VecT) else T.BinOp("*", k, rhs)


def _is_fin(ty: T.Term | None) -> bool:
    return isinstance(ty, T.App) and ty.fn == T.Var("Fin")


# ============================================================================ verdicts

_OPTIONS = Options(search_seconds=0.0, replay=True)


def checker_verdict(v) -> str:
    """The full checker's verdict without its search: engine, then kernel replay.

    A statement that is not a `≠` is `proved` only if the engine proves it and the kernel replays
    the proof; the engine is also run on its own (`attempt`), so that an engine proof the kernel
    rejects is seen too."""
    at = attempt(v.decl, v.env)
    res = decide(v.decl, v.env, Checker(_OPTIONS), _OPTIONS)
    return "engine-proved" if at.proved and res.verdict != "proved" else res.verdict


def kernel_closes(v) -> list[str]:
    """The closing steps (`norm`, `defeq`) the replay kernel accepts ON ITS OWN for the variant,
    with no engine in between (its own normal form; definitional equality)."""
    from shardproof.prove import replay_in_kernel
    out = []
    for rule in ("norm", "defeq"):
        failure, _ = replay_in_kernel(v.decl, v.env, [{"rule": rule}], Checker(_OPTIONS))
        if failure is None:
            out.append(rule)
    return out


def _recheck(g, env, cx) -> None:
    """The counterexample refutes ``g`` in exact arithmetic and satisfies its hypotheses."""
    assert semantics.evaluate(g.stmt, env, cx.assignment, "exact") is False, \
        f"{g.name}: the counterexample does not re-evaluate to False: {cx.message}"
    assert semantics.evaluate(g.stmt, env, cx.assignment, "float") is False, cx.message
    for hname, h in g.hyps:
        assert semantics.evaluate(h, env, cx.assignment, "exact") is True, \
            f"{g.name}: the counterexample violates hypothesis {hname}: {cx.message}"


def _search(g, env, seconds=SEARCH_SECONDS):
    return semantics.find_counterexample(g, env, budget_seconds=seconds)


@dataclasses.dataclass
class Variant:
    decl: object
    env: object
    what: str                 # a readable description
    extra: dict = dataclasses.field(default_factory=dict)

    def show(self) -> str:
        return f"{self.decl.name}: {self.what}\n    {pretty(self.decl.stmt)[:600]}"


# ============================================================================ (a) wrong factor

def _expanded(g, env):
    types: dict = {}
    stmt = unfold_props(g.stmt, env, g.prop_types, types)
    return stmt, types


def factor_variants(g, env):
    """(variants, skipped reasons) of category (a)."""
    if _is_value_ne(g):
        return [], ["a `≠` between values has no equation"]
    stmt, types = _expanded(g, env)
    out, skipped = [], []
    for k, (path, eq, _) in enumerate(equations(stmt)):
        ty = types.get(_position(path))
        if not isinstance(ty, (VecT, RealT, NatT)):
            skipped.append(f"equation {k} has type {ty}: no scalar multiple")
            continue
        new = T.Cmp("=", eq.lhs, _scaled(eq.rhs, ty, TWO))
        zero = T.Cmp("=", eq.rhs, T.BinOp("•", ZERO, eq.rhs) if isinstance(ty, VecT) else ZERO)
        vd = variant_decl(g, replace_at(stmt, path, new), types, f"factor{k}")
        zd = variant_decl(g, replace_at(stmt, path, zero), types, f"rhs{k}=0")
        out.append(Variant(vd, env, f"equation {k}: lhs = 2·rhs", {"zero": zd}))
    if not out and not skipped:
        skipped.append("no equation in the statement (a size fact)")
    return out, skipped


# ============================================================================ (b) hypotheses

def _nonzero_target(h: T.Term, types: dict) -> T.Term | None:
    """`m` when ``h`` is `0 < m`, `m > 0` or `m ≠ 0`."""
    if not isinstance(h, T.Cmp):
        return None
    if h.op == "<" and h.lhs == ZERO:
        return h.rhs
    if h.op == ">" and h.rhs == ZERO:
        return h.lhs
    if h.op == "≠" and h.rhs == ZERO:
        return h.lhs
    return None


def hyp_variants(g, env):
    if _is_value_ne(g):
        return [], [("a `≠` between values is an existence statement: dropping a hypothesis "
                     "only weakens it")]
    out = []
    for i, (hname, h) in enumerate(g.hyps):
        m = _nonzero_target(h, g.cmp_types)
        if m is None:
            continue
        hyps = g.hyps[:i] + g.hyps[i + 1:]
        vd = variant_decl(g, g.stmt, g.prop_types, f"without_{hname}", hyps=hyps)
        out.append(Variant(vd, env, f"without ({hname} : {pretty(h)})", {"m": m, "h": h}))
    return out, []


# ============================================================================ (c) shifted index

def _replica_sizes(g) -> set[str]:
    """Sizes that count replicas: the domain `R` of a family binder `Fin R → …`, or the leading
    factor `R` of a global batch `(R * N) * …` in a vector binder's size."""
    out = set()
    for _, ty in g.binders:
        if isinstance(ty, FunT) and isinstance(ty.dom, FinT) and isinstance(ty.dom.size, T.Var):
            out.add(ty.dom.size.name)
        if isinstance(ty, VecT):
            s = ty.size
            if isinstance(s, T.BinOp) and s.op == "*" and isinstance(s.lhs, T.BinOp) and \
                    s.lhs.op == "*" and isinstance(s.lhs.lhs, T.Var):
                out.add(s.lhs.lhs.name)
    return out


def index_variants(g, env):
    if _is_value_ne(g):
        return [], ["a `≠` between values has no equation"]
    stmt, types = _expanded(g, env)
    hyp_names = set().union(*(T.free_names(h) for _, h in g.hyps)) if g.hyps else set()
    outer = [(n, ty.size) for n, ty in g.binders if isinstance(ty, FinT) and n not in hyp_names]
    replica = _replica_sizes(g)
    out, skipped = [], []
    for k, (path, eq, scope) in enumerate(equations(stmt)):
        cands = list(outer) + [(b.name, b.ty.args[0]) for b in scope if _is_fin(b.ty)]
        for name, size in cands:
            if not (name in T.free_names(eq.lhs) and name in T.free_names(eq.rhs)):
                if name in T.free_names(eq.lhs) or name in T.free_names(eq.rhs):
                    skipped.append(f"`{name}` is used on one side of equation {k} only: "
                                   "replacing it there is an instance of the statement")
                continue
            is_rep = isinstance(size, T.Var) and size.name in replica
            for side in ("rhs", "lhs"):
                s_old = getattr(eq, side)
                s_new = subst_term(s_old, {name: ZERO})
                new = T.Cmp("=", s_new, eq.rhs) if side == "lhs" else T.Cmp("=", eq.lhs, s_new)
                indep = T.Cmp("=", s_old, s_new)
                vd = variant_decl(g, replace_at(stmt, path, new), types,
                                  f"{name}:=0@{side}{k}")
                idd = variant_decl(g, replace_at(stmt, path, indep), types,
                                   f"{side}{k}_indep_{name}")
                out.append(Variant(vd, env, f"`{name} : Fin {pretty(size)}` := 0 in the {side} "
                                   f"of equation {k}", {"indep": idd, "replica": is_rep}))
    if not out:
        skipped.append("no `Fin` binder used on both sides of an equation")
    return out, skipped


# ============================================================================ outcomes

RESULTS: dict[str, Counter] = {"factor": Counter(), "hyp": Counter(), "index": Counter(),
                               "index-replica": Counter()}
UNREFUTED: dict[str, list[str]] = {"factor": [], "index": []}
SKIPS: dict[str, Counter] = {"factor": Counter(), "hyp": Counter(), "index": Counter()}
HYP_DETAIL: list = []      # (b): (variant, checker verdict, what the numbers say)


def _true_by_engine_and_search(d, env) -> bool:
    """`d` (a statement the variant's truth reduces to) is proved by the checker — and, as a
    cross-check of that proof, the search finds no counterexample to it."""
    if checker_verdict(Variant(d, env, "")) != "proved":
        return False
    cx = _search(d, env, ZERO_CHECK_SECONDS)
    assert cx is None, f"SOUNDNESS: the checker proves {d.name}, but it fails: {cx.message}\n" \
                       f"{pretty(d.stmt)}\n{cx.assignment.format()}"
    return True


def run_must_fail(v: Variant, true_if, category: str, counter: Counter) -> str:
    """A variant that is false unless ``true_if`` (a reduced statement) holds: not proved, and
    refuted by the search (or listed as unrefuted)."""
    if _true_by_engine_and_search(true_if, v.env):
        SKIPS[category][f"variant is true: {true_if.name.split('~')[1]} is proved"] += 1
        counter["skipped (true)"] += 1
        return "skipped"
    verdict = checker_verdict(v)
    assert verdict not in ("proved", "engine-proved"), \
        f"SOUNDNESS: the checker ({verdict}) accepts the false variant\n{v.show()}"
    closes = kernel_closes(v)
    assert not closes, f"SOUNDNESS: the kernel's own {closes} closes the false variant\n{v.show()}"
    counter["not proved"] += 1
    cx = _search(v.decl, v.env)
    if cx is None:
        counter["unrefuted"] += 1
        return "unrefuted"
    _recheck(v.decl, v.env, cx)
    counter["refuted"] += 1
    return "refuted"


def _vacuous(g, sizes: dict) -> bool:
    """Some `Fin` binder of the theorem has an empty range at these sizes."""
    for _, ty in g.binders:
        if isinstance(ty, FinT):
            try:
                if arith.size_value(ty.size, sizes) == 0:
                    return True
            except (KeyError, arith.NotASize):
                pass
    return False


def _zero_assignments(v: Variant):
    """Assignments where one name of the dropped hypothesis's `m` is 0 (the other sizes 2 or 1):
    (name, assignment), or (name, "vacuous") when an index binder has no value there, or
    (name, the evaluator's reason) when it cannot build one."""
    g = v.decl
    sizes = [n for n, ty in g.binders if isinstance(ty, NatT)]
    for z in [n for n in T.free_names(v.extra["m"]) if n in sizes]:
        for other in (2, 1):
            at = {**{n: other for n in sizes}, z: 0}
            try:
                a = semantics.sample_assignment(g, v.env, at, np.random.default_rng(other),
                                                "exact")
            except semantics.EvalError as e:
                yield z, str(e)
                continue
            if a is None and _vacuous(g, at):
                yield z, "vacuous"
            elif a is not None:
                yield z, a


def _at_zero(v: Variant):
    """What the statement is at the points where a name of `m` is 0: a `Counterexample` found
    there (None when none), and how the points were judged (a Counter: `evaluated`, `vacuous`,
    `not evaluable: …`)."""
    how: Counter = Counter()
    for z, a in _zero_assignments(v):
        if isinstance(a, str):
            how["vacuous" if a == "vacuous" else f"not evaluable: {a}"] += 1
            continue
        try:
            cx = semantics.counterexample_at(v.decl, v.env, a, "exact")
            how["evaluated"] += 1
        except semantics.EvalError as e:
            how[f"not evaluable: {e}"] += 1
            continue
        if cx is not None:
            return cx, how
    return None, how


def _zero_class(how: Counter) -> str:
    if how["evaluated"]:
        return "holds where m = 0"
    if how["vacuous"]:
        return "vacuous where m = 0 (no index)"
    return "not evaluable where m = 0"


def run_hyp(v: Variant) -> str:
    """Consistency of a variant without one nonzero hypothesis (it may be true)."""
    verdict = checker_verdict(v)
    proved = verdict in ("proved", "engine-proved")
    c = RESULTS["hyp"]
    cx, how = _at_zero(v)
    if cx is None:
        cx = _search(v.decl, v.env, HYP_SEARCH_SECONDS)
    if cx is not None:
        _recheck(v.decl, v.env, cx)
        assert not proved, f"SOUNDNESS: the checker ({verdict}) proves a refuted variant\n" \
                           f"{v.show()}\n{cx.message}\n{cx.assignment.format()}"
        c["refuted"] += 1
        HYP_DETAIL.append((v.decl.name, verdict, "refuted"))
        return "refuted"
    zc = _zero_class(how)
    HYP_DETAIL.append((v.decl.name, verdict, zc))
    key = {"proved": "proved", "engine-proved": "engine-proved only"}.get(verdict, "unknown")
    c[key] += 1
    c[f"{key}, {zc}"] += 1
    return key


# ============================================================================ tests


@pytest.mark.parametrize("g,env", KIT, ids=IDS)
def test_wrong_factor(g, env):
    variants, skipped = factor_variants(g, env)
    for s in skipped:
        SKIPS["factor"][s] += 1
    bad = []
    for v in variants:
        RESULTS["factor"]["generated"] += 1
        if run_must_fail(v, v.extra["zero"], "factor", RESULTS["factor"]) == "unrefuted":
            UNREFUTED["factor"].append(v.decl.name)
            bad.append(v)
    assert not bad, "the search does not refute:\n" + "\n".join(v.show() for v in bad)


@pytest.mark.parametrize("g,env", KIT, ids=IDS)
def test_missing_hypothesis(g, env):
    variants, skipped = hyp_variants(g, env)
    for s in skipped:
        SKIPS["hyp"][s] += 1
    if not variants and not skipped:
        SKIPS["hyp"]["no hypothesis `0 < m` / `m ≠ 0`"] += 1
    for v in variants:
        RESULTS["hyp"]["generated"] += 1
        run_hyp(v)


@pytest.mark.parametrize("g,env", KIT, ids=IDS)
def test_shifted_index(g, env):
    variants, skipped = index_variants(g, env)
    for s in skipped:
        SKIPS["index"][s] += 1
    bad = []
    for v in variants:
        c = RESULTS["index-replica" if v.extra["replica"] else "index"]
        c["generated"] += 1
        if run_must_fail(v, v.extra["indep"], "index", c) == "unrefuted":
            UNREFUTED["index"].append(v.decl.name)
            bad.append(v)
    assert not bad, "the search does not refute:\n" + "\n".join(v.show() for v in bad)


def report() -> str:
    lines = []
    for cat, c in RESULTS.items():
        lines.append(f"{cat}:")
        lines.extend(f"    {k}: {n}" for k, n in sorted(c.items()))
    for cat, c in SKIPS.items():
        for reason, n in sorted(c.items()):
            lines.append(f"  skipped in {cat}: {n} × {reason}")
    for cat, names in UNREFUTED.items():
        lines.extend(f"  unrefuted in {cat}: {n}" for n in names)
    lines.extend(f"  (b) {n}: {verdict}, {what}" for n, verdict, what in HYP_DETAIL)
    return "\n".join(lines)


def test_variant_report(capsys):
    """The counts over the whole kit (set SHARDPROOF_VARIANTS_REPORT=1 to print them)."""
    if RESULTS["factor"]["generated"] == 0:
        pytest.skip("the per-theorem tests did not run in this session")
    f = RESULTS["factor"]
    assert f["generated"] >= len(KIT) - 6 and f["refuted"] + f["skipped (true)"] == f["generated"]
    for cat in ("index", "index-replica"):
        c = RESULTS[cat]
        assert c["refuted"] + c["skipped (true)"] == c["generated"]
    assert RESULTS["index-replica"]["generated"] > 0 and RESULTS["hyp"]["generated"] > 0
    if os.environ.get("SHARDPROOF_VARIANTS_REPORT"):
        with capsys.disabled():
            print("\n" + report())


if __name__ == "__main__":  # pragma: no cover - a report for people
    t0 = time.perf_counter()
    for test in (test_wrong_factor, test_missing_hypothesis, test_shifted_index):
        for g, env in KIT:
            test(g, env)
    print(report())
    print(f"{time.perf_counter() - t0:.1f} s")
