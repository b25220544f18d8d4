"""Every rewrite rule of the engine, property-tested against brute force.

For each entry of kind ``rule`` in :data:`shardproof.rewrite.rules.RULES` there is a hypothesis
test (:data:`RULE_TESTS` maps rule → test; a test fails when a rule is added without one).  Each
test builds instances of the rule's LEFT side, computes the engine's normal form, and compares
the normal form's value (:mod:`shardproof.rewrite.nfeval`) with a brute-force evaluation of the
un-normalised construct: an explicit loop over the binders for the sum rules, plain Python /
numpy for the term-level rules (division, `if`, definitions, hypotheses, flat-index reading,
linear ops).  Each test also asserts that the rule actually fired, so the property is never
vacuous.  Sizes are small but include R, N ≥ 2; data are halves in [-3, 3] (with many zeros and
ties, so indicators and `1/0 = 0` are exercised).

Also here: every rule name the engine records while checking the sample theorems is registered,
and ``docs/rules.md`` is the rendering of the registry.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
import tempfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shardproof import numeric_ops
from shardproof.library import Library
from shardproof.prove import attempt
from shardproof.rewrite import rules
from shardproof.rewrite.ipoly import IPoly
from shardproof.rewrite.nf import (
    ONE,
    ZERO,
    Acc,
    EqZ,
    Fn,
    InvP,
    NFContext,
    Poly,
    Pos,
    Rec,
    Scalar,
    Size,
    SumA,
    indicator_pos,
    inverse,
    mk_sum,
    show_poly,
)
from shardproof.rewrite.nfeval import (
    NFEnv,
    NFEvaluator,
    eval_poly,
    statement_normal_forms,
)

ROOT = Path(__file__).resolve().parents[1]
# SHARDPROOF_EXAMPLES_SCALE=k runs k times as many (random, not derandomized) examples.
_SCALE = max(1, int(os.environ.get("SHARDPROOF_EXAMPLES_SCALE", "1")))
_HC = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
SETTINGS = settings(max_examples=50 * _SCALE, deadline=None, derandomize=_SCALE == 1,
                    suppress_health_check=_HC)
FEW = settings(max_examples=25 * _SCALE, deadline=None, derandomize=_SCALE == 1,
               suppress_health_check=_HC)
MANY = settings(max_examples=150 * _SCALE, deadline=None, derandomize=_SCALE == 1,
                suppress_health_check=_HC)
TLEN = 160  # every tensor of the sum tests is this long (all generated indices stay below it)


# =========================================================================== helpers

def V(name: str) -> IPoly:
    return IPoly.var(name)


def K(c: int) -> IPoly:
    return IPoly.const(c)


def acc(name: str, *idx: IPoly) -> Poly:
    return Poly.atom(Acc(name, tuple(idx)))


def same(x: Any, y: Any) -> bool:
    """Exact equality; with a tolerance once a value went through an irrational sqrt/exp."""
    if isinstance(x, float) or isinstance(y, float):
        return math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=1e-9)
    return x == y


def lean_inv(x: Any) -> Any:
    return x * 0 if x == 0 else 1 / x


def data(seed: int, n: int = TLEN, kind: int = 0) -> np.ndarray:
    """Halves in [-3, 3] (kind 0) or values in {-1, 0, 1} (kind 1: zeros and ties)."""
    rng = np.random.default_rng(seed)
    if kind == 1:
        return np.array([Fraction(int(v)) for v in rng.integers(-1, 2, n)], dtype=object)
    return np.array([Fraction(int(v), 2) for v in rng.integers(-6, 7, n)], dtype=object)


def make_env(sizes: dict[str, int], seed: int, kind: int = 0, **extra: Any) -> NFEnv:
    env = NFEnv(sizes=dict(sizes), exact=True)
    for k, name in enumerate(("X", "Y", "Z")):
        env.tensors[name] = data(seed + k, TLEN, kind)
    sc = data(seed + 7, 4, kind)
    env.scalars = {"a": sc[0], "b": sc[1], "c": sc[2]}
    env.indices.update(extra)
    return env


def brute_sum(binders: list[tuple[str, IPoly]], body: Poly, env: NFEnv) -> Any:
    """Σ over the binders by an explicit loop (the meaning of the un-normalised sum)."""
    ev = NFEvaluator(env)
    vals = dict(env.sizes)
    ranges = [eval_ipoly_int(bd, vals) for _, bd in binders]
    total: Any = Fraction(0)
    if any(r <= 0 for r in ranges):
        return total
    for point in itertools.product(*(range(r) for r in ranges)):
        for (b, _), v in zip(binders, point):
            ev.set_index(b, v)
        total += ev.poly(body)
    return total


def eval_ipoly_int(p: IPoly, vals: dict[str, int]) -> int:
    from shardproof.rewrite.nfeval import eval_ipoly
    return eval_ipoly(p, vals)


def check_sum(binders: list[tuple[str, IPoly]], body: Poly, env: NFEnv,
              nonzero: set[str] | None = None) -> NFContext:
    ctx = NFContext(set(nonzero or ()))
    nf = mk_sum(list(binders), body, ctx)
    want = brute_sum(binders, body, env)
    got = eval_poly(nf, env)
    assert same(got, want), (f"Σ_{binders} {show_poly(body)}\n  normal form {show_poly(nf)}\n"
                         f"  = {got}, brute force = {want}, sizes {env.sizes}")
    return ctx


sizes_st = st.fixed_dictionaries({"U": st.integers(2, 3), "V": st.integers(1, 3),
                                  "W": st.integers(0, 3), "I": st.integers(1, 3)})
seed_st = st.integers(0, 2 ** 20)
kind_st = st.sampled_from([0, 0, 1])


# ---------------------------------------------------------------- random bodies over binders

@st.composite
def index_st(draw, names: list[str]) -> IPoly:
    """A small index polynomial over binders/free indices and sizes, nonnegative, < TLEN."""
    p = K(draw(st.integers(0, 2)))
    for n in draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True)):
        coef = draw(st.sampled_from([K(1), K(2), V("V"), V("U")]))
        p = p + V(n) * coef
    return p


@st.composite
def factor_st(draw, names: list[str], ctx: NFContext, depth: int = 0) -> Poly:
    kind = draw(st.sampled_from(["acc", "acc", "acc", "scalar", "size", "pos", "sqrt", "inv",
                                 "sum"] if depth == 0 else ["acc", "scalar", "size"]))
    if kind == "acc":
        return acc(draw(st.sampled_from(["X", "Y", "Z"])), draw(index_st(names)))
    if kind == "scalar":
        return Poly.atom(Scalar(draw(st.sampled_from(["a", "b"]))))
    if kind == "size":
        return Poly.atom(Size(draw(st.sampled_from(["U", "V"]))))
    if kind == "pos":
        return indicator_pos(acc("X", draw(index_st(names))) - acc("Y", draw(index_st(names))))
    if kind == "sqrt":
        return Poly.atom(Fn("sqrt", (acc("Z", draw(index_st(names))).pow(2),)))
    if kind == "inv":
        return inverse(acc("X", draw(index_st(names))) + Poly.const(draw(st.sampled_from(
            [1, Fraction(1, 2), -1]))), ctx)
    inner = f"j{draw(st.integers(0, 99))}"
    body = draw(factor_st(names + [inner], ctx, depth + 1))
    return mk_sum([(inner, V(draw(st.sampled_from(["V", "W"]))))], body, ctx)


@st.composite
def body_st(draw, names: list[str], ctx: NFContext) -> Poly:
    out = ZERO
    for _ in range(draw(st.integers(1, 3))):
        m = Poly.const(draw(st.sampled_from([1, 1, 2, Fraction(-1, 2), 3])))
        for _ in range(draw(st.integers(1, 3))):
            m = m * draw(factor_st(names, ctx))
        out = out + m
    return out


# =========================================================================== the sum rules

@MANY
@given(sizes=sizes_st, seed=seed_st, kind=kind_st, data_=st.data())
def test_mk_sum_random_bodies(sizes, seed, kind, data_) -> None:
    """Σ of random bodies (all sum rules mixed) equals the explicit loop."""
    ctx = NFContext(set())
    nb = data_.draw(st.integers(1, 3))
    binders = [("u", V("U")), ("v", V("V")), ("t", V("W"))][:nb]
    body = data_.draw(body_st([b for b, _ in binders] + ["i"], ctx))
    env = make_env(sizes, seed, kind, i=data_.draw(st.integers(0, 2)))
    check_sum(binders, body, env)


MERGE_OK = {
    "rN+n": lambda u, v, U, Vb: u * Vb + v,
    "n+Nr": lambda u, v, U, Vb: v + Vb * u,
    "offset": lambda u, v, U, Vb: u * Vb + v + K(2),
}
MERGE_BAD = {
    "rR+n": lambda u, v, U, Vb: u * U + v,
    "r+n": lambda u, v, U, Vb: u + v,
    "2(rN+n)": lambda u, v, U, Vb: (u * Vb + v) * K(2) + u,
}


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, pattern=st.sampled_from(sorted(MERGE_OK)),
       extra=st.sampled_from(["none", "scalar", "Ysame", "Zsq"]))
def test_sum_merge(sizes, seed, pattern, extra) -> None:
    """Σ_{u<U} Σ_{v<V} f(u·V + v) = Σ_{w<U·V} f(w): merged, and equal to both loops."""
    u, v, U, Vb = V("u"), V("v"), V("U"), V("V")
    idx = MERGE_OK[pattern](u, v, U, Vb)

    def f(p: IPoly) -> Poly:
        body = acc("X", p)
        if extra == "scalar":
            body = body * Poly.atom(Scalar("a"))
        elif extra == "Ysame":
            body = body * acc("Y", p)
        elif extra == "Zsq":
            body = body * acc("Z", p).pow(2)
        return body

    env = make_env(sizes, seed)
    ctx = check_sum([("u", U), ("v", Vb)], f(idx), env)
    assert "sum_merge" in ctx.rules_used
    # …and the merged sum is literally Σ_{w<U·V} f(w) (+offset)
    w_idx = V("w") + (K(2) if pattern == "offset" else K(0))
    ctx2 = NFContext(set())
    assert mk_sum([("u", U), ("v", Vb)], f(idx), NFContext(set())) == \
        mk_sum([("w", U * Vb)], f(w_idx), ctx2)


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, pattern=st.sampled_from(sorted(MERGE_BAD)),
       with_y=st.booleans())
def test_sum_merge_refuses(sizes, seed, pattern, with_y) -> None:
    """`X[u·U+v]`, `X[u+v]`, `X[u·V+v]·Y[v]`: no merge fires, and the value is still right."""
    u, v, U, Vb = V("u"), V("v"), V("U"), V("V")
    body = acc("X", MERGE_BAD[pattern](u, v, U, Vb))
    if with_y:
        body = acc("X", u * Vb + v) * acc("Y", v)
    env = make_env(sizes, seed)
    ctx = check_sum([("u", U), ("v", Vb)], body, env)
    assert "sum_merge" not in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, order=st.permutations([0, 1, 2]))
def test_sum_merge_three_levels(sizes, seed, order) -> None:
    """Σ_r Σ_n Σ_j X[(r·N+n)·a+j] = Σ_m X[m], whatever the binder order."""
    r, n, j = V("r"), V("n"), V("j")
    R, N, A = V("U"), V("V"), V("I")
    binders = [("r", R), ("n", N), ("j", A)]
    binders = [binders[k] for k in order]
    body = acc("X", (r * N + n) * A + j) * acc("Y", (r * N + n) * A + j)
    env = make_env(sizes, seed)
    ctx = check_sum(binders, body, env)
    assert ctx.rules_used.get("sum_merge", 0) >= 2
    assert mk_sum(binders, body, NFContext(set())) == \
        mk_sum([("m", R * N * A)], acc("X", V("m")) * acc("Y", V("m")), NFContext(set()))


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st, k=st.integers(1, 2), dep=st.booleans())
def test_sum_absorb(sizes, seed, kind, k, dep) -> None:
    """Σ_u (Σ_j g(u, j))^k · f(u) = Σ_{u, j₁…j_k} g(u, j₁)⋯g(u, j_k) · f(u)."""
    ctx0 = NFContext(set())
    inner_body = acc("X", V("u") * V("W") + V("j")) if dep else acc("X", V("j"))
    inner = mk_sum([("j", V("W"))], inner_body * acc("Z", V("j")), ctx0)
    body = inner.pow(k) * acc("Y", V("u"))
    env = make_env(sizes, seed, kind)
    ctx = check_sum([("u", V("U"))], body, env)
    if dep:
        assert "sum_absorb" in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st)
def test_sum_components(sizes, seed, kind) -> None:
    """Σ_{u,v} f(u)·g(v) = (Σ_u f(u))·(Σ_v g(v)); and (Σ X)² has the form of Σ_{a,b} X_a X_b."""
    body = acc("X", V("u")) * acc("Y", V("v") + K(1)) * Poly.atom(Scalar("a"))
    env = make_env(sizes, seed, kind)
    ctx = check_sum([("u", V("U")), ("v", V("V"))], body, env)
    assert "sum_components" in ctx.rules_used
    sq = mk_sum([("i", V("U"))], acc("X", V("i")), NFContext(set())).pow(2)
    ab = mk_sum([("p", V("U")), ("q", V("U"))], acc("X", V("p")) * acc("X", V("q")),
                NFContext(set()))
    assert sq == ab
    assert same(eval_poly(sq, env), brute_sum([("p", V("U")), ("q", V("U"))],
                                           acc("X", V("p")) * acc("X", V("q")), env))


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st)
def test_sum_pull_out(sizes, seed, kind) -> None:
    """Σ_u c·f(u) = c·Σ_u f(u) when c does not depend on u (c: scalar, access at a free index,
    an inner sum over other binders)."""
    c = Poly.atom(Scalar("b")) * acc("Z", V("i")) * mk_sum([("q", V("V"))], acc("Y", V("q")),
                                                          NFContext(set()))
    body = c * acc("X", V("u") + V("i"))
    env = make_env(sizes, seed, kind, i=1)
    ctx = check_sum([("u", V("U"))], body, env)
    assert "sum_pull_out" in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st)
def test_sum_const(sizes, seed, kind) -> None:
    """Σ_{k<K} c = K·c (here with K = V, W — possibly 0 — and the product U·V)."""
    env = make_env(sizes, seed, kind)
    for binders in ([("k", V("V"))], [("k", V("W")), ("u", V("U"))], [("k", V("U") * V("V"))]):
        body = Poly.atom(Scalar("a")) * acc("X", V("u")) if len(binders) == 2 else \
            Poly.atom(Scalar("a"))
        ctx = check_sum(binders, body, env)
        assert "sum_const" in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st)
def test_sum_split_add(sizes, seed, kind) -> None:
    """Σ_u (f(u) + g(u)) = Σ_u f(u) + Σ_u g(u)."""
    body = acc("X", V("u")) + acc("Y", V("u") * K(2)) * Poly.atom(Scalar("a")) - acc("Z", V("u"))
    env = make_env(sizes, seed, kind)
    ctx = check_sum([("u", V("U"))], body, env)
    assert "sum_split_add" in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st,
       c=st.sampled_from([Fraction(3), Fraction(-1, 2), Fraction(2, 3)]))
def test_sum_pull_const(sizes, seed, kind, c) -> None:
    """Σ_u c·f(u) = c·Σ_u f(u) for a rational c."""
    body = acc("X", V("u")).scale(c) * acc("Y", V("u"))
    env = make_env(sizes, seed, kind)
    ctx = check_sum([("u", V("U"))], body, env)
    assert "sum_pull_const" in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, kind=kind_st)
def test_sum_unit_range(sizes, seed, kind) -> None:
    """Σ_{u<1} f(u) = f(0), also with other binders and an inner sum mentioning u."""
    inner = mk_sum([("j", V("V"))], acc("Y", V("u") + V("j")), NFContext(set()))
    for binders in ([("u", K(1))], [("u", K(1)), ("v", V("V"))]):
        body = acc("X", V("u") * V("V") + V("v") if len(binders) == 2 else V("u") + K(3)) * inner
        env = make_env(sizes, seed, kind)
        ctx = check_sum(binders, body, env)
        assert "sum_unit_range" in ctx.rules_used


@SETTINGS
@given(sizes=sizes_st, seed=seed_st)
def test_sum_empty_range(sizes, seed) -> None:
    """Σ_{u<0} f(u) = 0 (a constant-0 bound; a size that happens to be 0 is the loop's 0)."""
    env = make_env(sizes, seed)
    ctx = check_sum([("u", K(0)), ("v", V("V"))], acc("X", V("u") + V("v")), env)
    assert "sum_empty_range" in ctx.rules_used
    env0 = make_env({**sizes, "W": 0}, seed)
    check_sum([("u", V("W")), ("v", V("V"))], acc("X", V("u") + V("v")), env0)


@SETTINGS
@given(sizes=sizes_st, seed=seed_st, perm=st.permutations([0, 1, 2]))
def test_sum_canonical_names(sizes, seed, perm) -> None:
    """(procedures sum_canonical_names / sum_alpha_ties) renaming and reordering the binders
    gives the same normal form; symmetric binders (ties) included."""
    names = ["p", "q", "s"]
    body = acc("X", V("p")) * acc("X", V("q")) * acc("Y", V("p") + V("s"))
    bs = [(n, V("U")) for n in names]
    ren = {"p": "a1", "q": "a2", "s": "a3"}
    body2 = acc("X", V(ren["p"])) * acc("X", V(ren["q"])) * acc("Y", V(ren["p"]) + V(ren["s"]))
    bs2 = [(ren[n], V("U")) for n in names]
    bs2 = [bs2[k] for k in perm]
    assert mk_sum(bs, body, NFContext(set())) == mk_sum(bs2, body2, NFContext(set()))
    check_sum(bs, body, make_env(sizes, seed))


# =========================================================================== inverses

def _mono_st(nonzero: set[str]):
    atoms = [Poly.atom(Size("U")), Poly.atom(Size("V")), Poly.atom(Scalar("a")),
             Poly.atom(Scalar("b")), acc("X", K(0)), acc("X", K(1)),
             Poly.atom(Fn("sqrt", (acc("Y", K(0)),))),
             # reciprocals, inverted back: (1/b)⁻¹ = b and (1/p)⁻¹ = p, true at 0 too
             inverse(Poly.atom(Scalar("b")), NFContext(set())),
             inverse(acc("X", K(0)) - acc("Y", K(1)), NFContext(set()))]
    return st.lists(st.tuples(st.sampled_from(range(len(atoms))), st.integers(1, 2)),
                    min_size=0, max_size=4).map(lambda fs: [(atoms[i], e) for i, e in fs])


def _env_with_facts(nz: set[str], seed: int, kind: int, data_: Any) -> NFEnv:
    """Data for the inverse tests: the names in ``nz`` (known nonzero) nonzero, the rest
    anything, 0 included."""
    sizes = {"U": data_.draw(st.integers(1 if "U" in nz else 0, 3)),
             "V": data_.draw(st.integers(1 if "V" in nz else 0, 3)), "W": 1, "I": 1}
    env = make_env(sizes, seed, kind)
    if "a" in nz and env.scalars["a"] == 0:
        env.scalars["a"] = Fraction(5, 2)
    return env


@SETTINGS
@given(seed=seed_st, kind=kind_st, nz=st.sets(st.sampled_from(["U", "V", "a"])),
       coef=st.sampled_from([Fraction(1), Fraction(-2), Fraction(3, 4)]), data_=st.data())
def test_inv_monomial(seed, kind, nz, coef, data_) -> None:
    """(c · Π aᵢ^eᵢ)⁻¹ against Lean's x⁻¹ (0 at 0), with some names known nonzero: the data
    respect the nonzero facts, everything else may be 0."""
    factors = data_.draw(_mono_st(nz))
    p = Poly.const(coef)
    for a, e in factors:
        p = p * a.pow(e)
    ctx = NFContext(set(nz))
    # a monomial with negative exponents of nonzero names as well
    if "U" in nz:
        p = p * inverse(Poly.atom(Size("U")), ctx)
    q = inverse(p, ctx)
    assert "inv_monomial" in ctx.rules_used or p.as_const() is not None
    env = _env_with_facts(nz, seed, kind, data_)
    assert same(eval_poly(q, env), lean_inv(eval_poly(p, env))), (show_poly(p), show_poly(q))


@SETTINGS
@given(seed=seed_st, kind=kind_st, nz=st.sets(st.sampled_from(["U", "V", "a"])), data_=st.data())
def test_inv_content(seed, kind, nz, data_) -> None:
    """(g·q)⁻¹ = g⁻¹·q⁻¹ for g common to every term (Lean's `mul_inv`, true where g or q is 0),
    against Lean's x⁻¹: g a monomial of sizes and scalars (with negative powers of names known
    nonzero), q a polynomial of ≥ 2 terms."""
    ctx = NFContext(set(nz))
    g = Poly.const(data_.draw(st.sampled_from([Fraction(1), Fraction(-2), Fraction(3, 4)])))
    for a, e in data_.draw(_mono_st(nz)):
        g = g * a.pow(e)
    if "V" in nz and data_.draw(st.booleans()):
        g = g * inverse(Poly.atom(Size("V")), ctx)
    q = acc("X", K(0)) + Poly.atom(Size("U")) * acc("Y", K(1)).scale(Fraction(-1, 2))
    if data_.draw(st.booleans()):
        q = q + Poly.atom(Scalar("b"))
    p = g * q
    out = inverse(p, ctx)
    assume(len(p.terms) >= 2)
    assert ("inv_content" in ctx.rules_used) == (g.as_const() is None)
    env = _env_with_facts(nz, seed, kind, data_)
    assert same(eval_poly(out, env), lean_inv(eval_poly(p, env))), (show_poly(p), show_poly(out))


@FEW
@given(R=st.integers(0, 3), v=st.integers(-4, 4))
def test_inv_monomial_needs_the_nonzero_fact(R, v) -> None:
    """R · (1/R) · v is v only when R ≠ 0 is known; without the fact nothing cancels and the
    normal form is right at R = 0 too (where Lean gives 0)."""
    Rp, vp = Poly.atom(Size("R")), Poly.atom(Scalar("v"))
    for nz in (set(), {"R"}):
        ctx = NFContext(nz)
        e = Rp * inverse(Rp, ctx) * vp
        if nz:
            assert e == vp
        else:
            assert e != vp
            assert any(isinstance(a, Rec) for m, _ in e.terms for a, _ in m)
        if nz and R == 0:
            continue  # the hypothesis 0 < R excludes this instance
        env = NFEnv(sizes={"R": R}, scalars={"v": Fraction(v)})
        assert eval_poly(e, env) == (Fraction(v) if R else 0)
    # 1/R * (R * v) through the whole engine:
    for hyp, proved in (("(hR : 0 < R) ", True), ("", False)):
        g, genv = _theorem(f"theorem t (R : Nat) {hyp}(v : ℝ) : 1 / R * (R * v) = v")
        assert attempt(g, genv).proved is proved


@SETTINGS
@given(seed=seed_st, kind=kind_st, data_=st.data())
def test_inv_opaque(seed, kind, data_) -> None:
    """p⁻¹ = (1/lead)·InvP(p/lead) for p with ≥ 2 terms, against Lean's x⁻¹ (p may be 0)."""
    terms = data_.draw(st.lists(st.tuples(st.sampled_from([Fraction(1), Fraction(-1),
                                                          Fraction(2), Fraction(1, 2)]),
                                          st.integers(0, 5)), min_size=2, max_size=4))
    p = ZERO
    for c, i in terms:
        p = p + acc("X", K(i)).scale(c)
    p = p + Poly.atom(Scalar("a")) * acc("Y", K(0))
    ctx = NFContext(set())
    q = inverse(p, ctx)
    assume(len(p.terms) >= 2)
    assert "inv_opaque" in ctx.rules_used
    env = make_env({"U": 2, "V": 2, "W": 2, "I": 1}, seed, kind)
    assert same(eval_poly(q, env), lean_inv(eval_poly(p, env)))
    # a polynomial that is zero at these data: X[0] − X[0]·(its value)…
    z = acc("X", K(0)) - acc("Y", K(1))
    env.tensors["Y"][1] = env.tensors["X"][0]
    assert eval_poly(inverse(z, NFContext(set())), env) == 0


# =========================================================================== term-level rules

_ROOT_DIR = tempfile.TemporaryDirectory(prefix="shardproof-rules-")
_LIB: Library | None = None
_COUNT = itertools.count()


def _theorem(text: str) -> tuple[Any, Any]:
    """Elaborate a single theorem (plus defs) in a private lemma root."""
    global _LIB
    root = Path(_ROOT_DIR.name)
    if _LIB is None:
        (root / ".lemmaroot").write_text("")
        _LIB = Library(root)
    p = root / f"t{next(_COUNT)}.lemma"
    p.write_text(text + "\n", encoding="utf-8")
    lf = _LIB.load(p)
    g = [d for d in lf.own if d.kind == "theorem"][-1]
    return g, lf.env


_NF_CACHE: dict[str, tuple] = {}


def lhs_nf(text: str) -> tuple[Any, Any, NFContext]:
    """The normal form of the first equation's left side (computed once per text)."""
    hit = _NF_CACHE.get(text)
    if hit is None:
        g, genv = _theorem(text)
        sides, ctx = statement_normal_forms(g, genv)
        hit = (g, sides[0], ctx)
        _NF_CACHE[text] = hit
    return hit


def values(side, env: NFEnv, positions: dict[str, int]) -> Any:
    """Bind the side's free indices (``positions`` by source name or '@out'), evaluate."""
    assert side.bind(env, positions)
    return eval_poly(side.nf_lhs, env)


def fr(seed: int, n: int, kind: int = 0) -> np.ndarray:
    return data(seed, n, kind)


@SETTINGS
@given(a=st.integers(-3, 3), b=st.integers(-2, 2), R=st.integers(0, 3))
def test_div_as_inverse(a, b, R) -> None:
    """a / b = a · b⁻¹ with b⁻¹ = 0 at b = 0 (reals and a size as divisor)."""
    _g, side, ctx = lhs_nf("theorem t (a b : ℝ) : a / b = a")
    assert "div_as_inverse" in ctx.rules_used
    env = NFEnv(scalars={"a": Fraction(a), "b": Fraction(b)})
    assert values(side, env, {}) == (Fraction(a, b) if b else 0)
    _g, side, ctx = lhs_nf("theorem t (R : Nat) (a b : ℝ) : (a + b) / (R * b) = a")
    env = NFEnv(sizes={"R": R}, scalars={"a": Fraction(a), "b": Fraction(b)})
    assert values(side, env, {}) == (Fraction(a + b, R * b) if R * b else 0)


COND_TEXTS = {
    "<": (lambda x, y: x < y), "≤": (lambda x, y: x <= y), ">": (lambda x, y: x > y),
    "≥": (lambda x, y: x >= y), "=": (lambda x, y: x == y), "≠": (lambda x, y: x != y),
}


@SETTINGS
@given(op=st.sampled_from(sorted(COND_TEXTS)), x=st.integers(-2, 2), y=st.integers(-2, 2),
       z=st.integers(-2, 2), conj=st.booleans())
def test_ite_indicator(op, x, y, z, conj) -> None:
    """if c then a else b = b + [c]·(a − b), for every comparison and for a conjunction."""
    cond = f"x {op} y" + (" ∧ 0 < z" if conj else "")
    _g, side, ctx = lhs_nf(f"theorem t (x y z : ℝ) : (if {cond} then x * y + 1 else z - x) = z")
    assert "ite_indicator" in ctx.rules_used
    env = NFEnv(scalars={"x": Fraction(x), "y": Fraction(y), "z": Fraction(z)})
    c = COND_TEXTS[op](x, y) and (not conj or 0 < z)
    assert values(side, env, {}) == (x * y + 1 if c else z - x)


@SETTINGS
@given(C=st.integers(2, 3), seed=seed_st, a=st.integers(-2, 2))
def test_sum_unroll(C, seed, a) -> None:
    """Σ_{i<n} f(i) = f(0) + … + f(n−1) for a numeral n from 2 to 4, with a symbolic binder
    after it and an `if` on the unrolled index (decided once it is a number)."""
    text = ("theorem t (C : Nat) (X : Vec (4 * C)) (Y : Vec 3) (a : ℝ) :"
            " (∑ (k : Fin 4) (c : Fin C), (if k = 1 then a else Y[2]) * X[k, c])"
            " + (∑ (i : Fin 3) (j : Fin 2), Y i * Y j) = a")
    hit = _NF_CACHE.get(("unroll", text))
    if hit is None:
        g, genv = _theorem(text)
        sides, ctx = statement_normal_forms(g, genv, unroll=True)
        hit = _NF_CACHE[("unroll", text)] = (sides[0], ctx)
    side, ctx = hit
    assert "sum_unroll" in ctx.rules_used
    X, Y = fr(seed, 4 * C), fr(seed + 1, 3)
    env = NFEnv(sizes={"C": C}, scalars={"a": Fraction(a)}, tensors={"X": X, "Y": Y})
    want = sum((a if k == 1 else Y[2]) * X[k * C + c] for k in range(4) for c in range(C)) + \
        sum(Y[i] * Y[j] for i in range(3) for j in range(2))
    assert values(side, env, {}) == want


PACK = """def pack3 (C : Nat) (X Y Z : Vec C) : Vec (3 * C) :=
  fun (k : Fin 3) (j : Fin C) =>
    if k = 1 then X j else (if k < 1 then Y j else (if k ≠ 2 ∧ k ≥ 1 then Z j else X j * Y j))
"""


@SETTINGS
@given(k=st.integers(0, 2), C=st.integers(1, 3), seed=seed_st, data_=st.data())
def test_index_compare_const(k, C, seed, data_) -> None:
    """A comparison of indices whose difference is a constant is decided (`bnPackB`-style)."""
    _g, side, ctx = lhs_nf(PACK + f"theorem t (C : Nat) (X Y Z : Vec C) (c : Fin C) :"
                                 f" (pack3 C X Y Z)[{k}, c] = X c")
    assert "index_compare_const" in ctx.rules_used
    c = data_.draw(st.integers(0, C - 1))
    X, Y, Z = fr(seed, C), fr(seed + 1, C), fr(seed + 2, C)
    env = NFEnv(sizes={"C": C}, tensors={"X": X, "Y": Y, "Z": Z})
    want = [Y[c], X[c], X[c] * Y[c]][k]
    assert values(side, env, {"c": c}) == want


@SETTINGS
@given(A=st.integers(1, 3), B=st.integers(2, 3), D=st.integers(1, 2), seed=seed_st)
def test_access_decompose(A, B, D, seed) -> None:
    """(fun i j => body) p = body[i := q, j := d] for p = q·B + d, and X[i, j, k] reads."""
    _g, side, ctx = lhs_nf("theorem t (A B D : Nat) (X : Vec A) (Y : Vec B) (Z : Vec (A * (B * D))) :"
                          " (fun (i : Fin A) (j : Fin B) (k : Fin D) =>"
                          " X i * Y j + Z[i, j, k] * X i) = Z")
    assert "access_decompose" in ctx.rules_used
    X, Y, Z = fr(seed, A), fr(seed + 1, B), fr(seed + 2, A * B * D)
    env = NFEnv(sizes={"A": A, "B": B, "D": D}, tensors={"X": X, "Y": Y, "Z": Z})
    for p in range(A * B * D):
        i, j, k = p // (B * D), (p // D) % B, p % D
        e2 = NFEnv(**{**env.__dict__, "indices": {}})
        want = X[i] * Y[j] + Z[(i * B + j) * D + k] * X[i]
        assert values(side, e2, {"@out": p}) == want


@SETTINGS
@given(a=st.integers(-3, 3), b=st.integers(-3, 3), R=st.integers(2, 3), N=st.integers(1, 3),
       n=st.integers(1, 2), seed=seed_st, data_=st.data())
def test_unfold(a, b, R, N, n, seed, data_) -> None:
    """f a₁ … aₙ = body[params := a₁ … aₙ] (a real def, and the prelude's `shard`)."""
    _g, side, ctx = lhs_nf("def f (x y : ℝ) : ℝ := x * y + x / 2\n"
                          "theorem t (a b : ℝ) : f (a + b) b = a")
    assert "unfold" in ctx.rules_used
    env = NFEnv(scalars={"a": Fraction(a), "b": Fraction(b)})
    assert values(side, env, {}) == (a + b) * b + Fraction(a + b, 2)
    _g, side, ctx = lhs_nf("theorem t (R N n : Nat) (X : Vec ((R * N) * n)) (r : Fin R) :"
                          " shard R N n X r = shard R N n X r")
    assert "unfold" in ctx.rules_used
    X = fr(seed, R * N * n)
    r = data_.draw(st.integers(0, R - 1))
    for p in range(N * n):
        env = NFEnv(sizes={"R": R, "N": N, "n": n}, tensors={"X": X})
        assert values(side, env, {"r": r, "@out": p}) == X[r * N * n + p]


@SETTINGS
@given(R=st.integers(2, 3), N=st.integers(1, 3), a=st.integers(1, 2), seed=seed_st,
       data_=st.data())
def test_hyp(R, N, a, seed, data_) -> None:
    """e r = RHS(r) for (he : ∀ r, e r = shard …), and a vector hypothesis (hy : y = X + X)."""
    _g, side, ctx = lhs_nf("theorem t (R N a : Nat) (e : Fin R → Vec (N * a))"
                          " (X : Vec ((R * N) * a)) (y : Vec ((R * N) * a))"
                          " (he : ∀ r, e r = shard R N a X r) (hy : y = X + X) (r : Fin R) :"
                          " (fun (n : Fin N) (j : Fin a) => e r (n * a + j) * y[r * N + n, j])"
                          " = e r")
    assert ctx.rules_used.get("hyp", 0) >= 2
    X = fr(seed, R * N * a)
    r = data_.draw(st.integers(0, R - 1))
    for p in range(N * a):
        env = NFEnv(sizes={"R": R, "N": N, "a": a}, tensors={"X": X})
        assert values(side, env, {"r": r, "@out": p}) == X[r * N * a + p] * 2 * X[r * N * a + p]


LINEAR_CASES = {
    "convIn": ("theorem t (ic oc h w kH kW : Nat) (W : Vec (oc * ic * kH * kW))"
               " (dy : Vec (oc * (h * w))) : convIn ic oc h w kH kW W dy = convIn ic oc h w kH kW W dy",
               ("W", "dy")),
    "convStridedWGrad": ("theorem t (ic oc h w kH kW : Nat) (x : Vec (ic * ((2 * h) * (2 * w))))"
                         " (dy : Vec (oc * (h * w))) : convStridedWGrad ic oc h w kH kW x dy"
                         " = convStridedWGrad ic oc h w kH kW x dy", ("x", "dy")),
    "depthwiseStridedXlaIn": ("theorem t (c h w kH kW : Nat) (W : Vec (c * kH * kW))"
                              " (dy : Vec (c * (h * w))) : depthwiseStridedXlaIn c h w kH kW W dy"
                              " = depthwiseStridedXlaIn c h w kH kW W dy", ("W", "dy")),
    "maxPool3s2Back": ("theorem t (c h w : Nat) (x : Vec (c * ((2 * h) * (2 * w))))"
                       " (dy : Vec (c * (h * w))) : maxPool3s2Back c h w x dy"
                       " = maxPool3s2Back c h w x dy", ("x", "dy")),
}


@FEW
@given(op=st.sampled_from(sorted(LINEAR_CASES)), ch=st.integers(1, 2), h=st.integers(1, 2),
       w=st.integers(1, 2), k=st.sampled_from([1, 3]), seed=seed_st, kind=kind_st)
def test_linear_jacobian(op, ch, h, w, k, seed, kind) -> None:
    """op(…, dy)[k] = Σ_j J(…)[k, j]·dy[j] against the op's own implementation."""
    text, tensors = LINEAR_CASES[op]
    _g, side, ctx = lhs_nf(text)
    assert "linear_jacobian" in ctx.rules_used
    spec = numeric_ops.OPS[op]
    names = spec.size_params
    vals = {"ic": ch, "oc": 3 - ch, "c": ch, "h": h, "w": w, "kH": k, "kW": 1}
    sizes = tuple(vals[n] for n in names)
    arrs = [fr(seed + t, n, kind) for t, n in enumerate(spec.param_sizes(sizes))]
    want = numeric_ops.apply(op, sizes, arrs)
    env = NFEnv(sizes={n: vals[n] for n in names}, tensors=dict(zip(tensors, arrs)))
    ev_env = env
    for p in range(len(want)):
        e2 = NFEnv(**{**ev_env.__dict__, "indices": {}})
        assert values(side, e2, {"@out": p}) == want[p], (op, sizes, p)


PACK2 = """def pack2 (C : Nat) (a b : Vec C) : Vec (2 * C) :=
  fun (k : Fin 2) (c : Fin C) => if k = 0 then a c else b c
"""


@SETTINGS
@given(C=st.integers(1, 3), seed=seed_st, kind=kind_st)
def test_case_split_index(C, seed, kind) -> None:
    """P(i) for all i < k from P(0), …, P(k − 1): the split cases cover every position and each
    case's normal form is the brute-force value there; a swapped pack is not proved."""
    text = PACK2 + ("theorem t (C : Nat) (a b : Vec C) : pack2 C a b"
                    " = fun (k : Fin 2) (c : Fin C) => if k ≠ 0 then b c else a c")
    g, genv = _theorem(text)
    sides, ctx = statement_normal_forms(g, genv)
    assert "case_split_index" in ctx.rules_used and len(sides) == 2
    A, B = fr(seed, C, kind), fr(seed + 1, C, kind)
    for p in range(2 * C):
        hits = 0
        for side in sides:
            env = NFEnv(sizes={"C": C}, tensors={"a": A, "b": B})
            if side.bind(env, {"@out": p}):
                hits += 1
                want = A[p] if p < C else B[p - C]
                assert eval_poly(side.nf_lhs, env) == want == eval_poly(side.nf_rhs, env)
        assert hits == 1
    assert attempt(g, genv).proved
    g2, genv2 = _theorem(PACK2 + "theorem t2 (C : Nat) (a b : Vec C) : pack2 C a b"
                         " = fun (k : Fin 2) (c : Fin C) => if k = 0 then b c else a c")
    assert not attempt(g2, genv2).proved


# =========================================================================== the registry

RULE_TESTS: dict[str, Callable[..., None]] = {
    "unfold": test_unfold,
    "hyp": test_hyp,
    "access_decompose": test_access_decompose,
    "linear_jacobian": test_linear_jacobian,
    "div_as_inverse": test_div_as_inverse,
    "inv_monomial": test_inv_monomial,
    "inv_content": test_inv_content,
    "inv_opaque": test_inv_opaque,
    "ite_indicator": test_ite_indicator,
    "index_compare_const": test_index_compare_const,
    "sum_unroll": test_sum_unroll,
    "sum_unit_range": test_sum_unit_range,
    "sum_empty_range": test_sum_empty_range,
    "sum_split_add": test_sum_split_add,
    "sum_pull_const": test_sum_pull_const,
    "sum_absorb": test_sum_absorb,
    "sum_pull_out": test_sum_pull_out,
    "sum_const": test_sum_const,
    "sum_components": test_sum_components,
    "sum_merge": test_sum_merge,
    "case_split_index": test_case_split_index,
}


def test_every_rule_has_a_property_test() -> None:
    registered = {r.name for r in rules.RULES if r.kind == "rule"}
    assert registered == set(RULE_TESTS), (
        f"rules without a property test: {sorted(registered - set(RULE_TESTS))}; "
        f"tests for unknown rules: {sorted(set(RULE_TESTS) - registered)}")


def _load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_recorded_rules_are_registered(tmp_path: Path) -> None:
    """Every rule name the engine records on the sample theorems is in the registry."""
    micro = _load_module(ROOT / "tests" / "test_micro.py", "_micro_corpus")
    bench = _load_module(ROOT / "bench" / "engine_bench.py", "_engine_bench")
    texts = dict(micro.PROVE)
    texts.update({k: v[0] for k, v in micro.FAIL.items()})
    corpus = micro.load_corpus(tmp_path / "micro", texts)
    corpus.update(bench.load_all(tmp_path / "bench"))
    seen: dict[str, str] = {}
    for name, (g, genv) in corpus.items():
        at = attempt(g, genv)
        assert at.ctx is not None
        for r in at.ctx.rules_used:
            if not r.startswith(("def:", "opaque:")):
                seen.setdefault(r, name)
        for s in at.steps:
            seen.setdefault(s["rule"], name)
    unknown = {r: n for r, n in seen.items() if r not in rules.BY_NAME}
    assert not unknown, f"rules recorded but not registered (rule: first theorem): {unknown}"
    assert {"sum_merge", "unfold", "hyp", "linear_jacobian"} <= set(seen)


def test_docs_rules_md_is_generated() -> None:
    path = ROOT / "docs" / "rules.md"
    assert path.read_text(encoding="utf-8") == rules.render_markdown(), \
        "regenerate with: python -m shardproof.rewrite.rules > docs/rules.md"


def test_every_rules_place_names_code_that_exists() -> None:
    """Each rule's "applied in" (`module.function`, or a module) names a function of the engine:
    the eighty-first review found `normalize.real`, which is `normalize.Normaliser.real`."""
    import importlib
    missing = []
    for r in rules.RULES:
        mod, _, rest = r.where.partition(".")
        obj = importlib.import_module(f"shardproof.rewrite.{mod}" if mod in (
            "ipoly", "nf", "normalize", "tactics", "nfeval") else f"shardproof.{mod}")
        for part in rest.split(".") if rest else ():
            obj = getattr(obj, part, None)
        if obj is None:
            missing.append((r.name, r.where))
    assert not missing, missing


def test_nfeval_lean_conventions() -> None:
    """nfeval itself: 1/0 = 0, sqrt of a negative = 0, negative powers of 0 are 0, exactness."""
    env = NFEnv(sizes={"R": 0}, scalars={"a": Fraction(-4), "b": Fraction(9, 4)})
    ctx = NFContext(set())
    R = Poly.atom(Size("R"))
    assert eval_poly(inverse(R, ctx), env) == 0
    assert eval_poly(Poly.atom(Fn("sqrt", (Poly.atom(Scalar("a")),))), env) == 0
    assert eval_poly(Poly.atom(Fn("sqrt", (Poly.atom(Scalar("b")),))), env) == Fraction(3, 2)
    assert eval_poly(Poly.mono(((Size("R"), -2),)), env) == 0
    assert eval_poly(Poly.atom(InvP(Poly.atom(Scalar("a")) + ONE.scale(Fraction(4)))), env) == 0
    assert eval_poly(Poly.atom(EqZ(Poly.atom(Scalar("a")) + Poly.const(4))), env) == 1
    assert eval_poly(Poly.atom(Pos(Poly.atom(Scalar("a")))), env) == 0
    s = Poly.atom(SumA((("#1.0", IPoly.var("R")),), ((Scalar("b"), 1),)))
    assert eval_poly(s, env) == 0
    f = eval_poly(Poly.atom(Fn("sqrt", (Poly.const(2),))), env)
    assert isinstance(f, float) and math.isclose(f, math.sqrt(2))
