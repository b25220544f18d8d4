"""Strategy: prove a theorem by normal forms, else look for a counterexample, else `unknown`.

``decide`` is the only place verdicts are made.  ``proved`` requires identical normal forms of
the two sides of every equation of the statement (after unfolding definitions and rewriting with
the hypotheses); a `≠` statement between reals or vectors is proved only by an exact witness,
and only as an `∃` or between closed terms (under universal binders it is refuted where its
sides are equal, else `unknown`).  Every failure goes to the numeric counterexample search
(:mod:`shardproof.semantics`), whose findings are re-checked in exact arithmetic before they
are reported as ``refuted``.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from . import terms as T
from .pretty import clip, pretty
from .rewrite.ipoly import IPoly
from .rewrite.nf import Acc, FuelExhausted, NFContext, Poly, Scalar, SumA, show_poly
from .rewrite.normalize import (
    EngineGap,
    FnT,
    FVal,
    Normaliser,
    TVal,
    VarT,
    _LAYOUT_HINT,
    _Lazy,
    _PropVal,
    kind_of,
    size_leaves,
)
from .types import (
    FinT,
    FunT,
    GlobalDecl,
    GlobalEnv,
    NatT,
    RealT,
    VecT,
    binder_facts,
    is_negative_statement,
    nonzero_names,
    subst_term,
    ty_to_term,
    with_ties,
)

if TYPE_CHECKING:  # pragma: no cover
    from .check import Checker, Options, Verdict


ORACLE_RING = "oracle:ring"          # commutative-ring arithmetic of Fraction polynomials
ORACLE_INDEX = "oracle:index-ring"   # integer polynomial arithmetic of indices and sizes


@dataclass
class Attempt:
    """What the engine made of a statement."""

    proved: bool
    reason: str | None = None
    residual: str | None = None
    ctx: NFContext | None = None
    lemmas: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    ktrace: list[dict[str, Any]] = field(default_factory=list)   # what the kernel replays
    cites: str | None = None          # the cited theorem that is not proved (the proof stopped)
    stopped: bool = False             # the script broke at one of its tactics (the reason)
    final: T.Term | None = None       # the goal its script's steps reached, when it ran them all


# A goal that rewriting may build, as a tree (the library's largest: under 2,000 nodes).
# `rw [h, h, …]` with `h : x = x + x` doubled it at every step: 22 steps took 275 s and 2 GB
# before the step fuel noticed (the forty-sixth review).
MAX_GOAL_NODES = 100_000


class Failure(Exception):
    def __init__(self, reason: str, residual: str | None = None,
                 cites: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.residual = residual
        self.cites = cites


def hyp_definitions(g: GlobalDecl) -> dict[str, tuple[list[T.Binder], T.Term, str]]:
    """The variables the hypotheses define: `x = RHS`, `∀ r, e r = RHS` (as the kernel's
    `definitions`), each name's first, `RHS` without it."""
    hyp_defs: dict[str, tuple[list[T.Binder], T.Term, str]] = {}
    types = dict(g.binders)
    for hname, h in g.hyps:
        oriented = _orient(h)
        if oriented is not None:
            var, binders, rhs = oriented
            if var not in T.free_names(rhs) and var not in hyp_defs and \
                    _covers(binders, types.get(var), g):
                hyp_defs[var] = (binders, rhs, hname)
    return hyp_defs


def defined_facts(g: GlobalDecl, facts: list[T.Term]) -> list[T.Term]:
    """The facts with the reals the hypotheses define substituted, to a fixpoint (`x ≠ 0` with
    `x = y * y` says `y ≠ 0`, as the kernel reads it: the eighty-second review)."""
    reals = {n for n, ty in g.binders if isinstance(ty, RealT)}
    m = {v: rhs for v, (bs, rhs, _) in hyp_definitions(g).items() if v in reals and not bs}
    out = list(facts)
    for _ in m:
        new = [subst_term(f, m) for f in out]
        if new == out or sum(map(T.tree_size, new)) > 100_000:   # (a chain of squares)
            break
        out = new
    return facts + out if m else facts


def theorem_env(g: GlobalDecl, nz: Normaliser) -> dict[str, Any]:
    """Values for a theorem's binders; hypotheses `∀ r, e r = RHS` define the family `e`."""
    env: dict[str, Any] = {}
    hyp_defs = hyp_definitions(g)
    for name, ty in g.binders:
        if isinstance(ty, NatT):
            if name in nz.size_subst:
                env[name] = nz.nat(nz.size_subst[name], env)
            else:
                env[name] = IPoly.var(name)
        elif isinstance(ty, FinT):
            env[name] = free_index(name, ty.size, nz, env)
        elif isinstance(ty, RealT) and name in hyp_defs and not hyp_defs[name][0]:
            env[name] = _hyp_lazy(name, hyp_defs[name], env, nz, real=True)   # `x = RHS` (as
        elif isinstance(ty, RealT):                              # the kernel's `definitions`)
            env[name] = Poly.atom(Scalar(name))
        elif isinstance(ty, VecT):
            size = nz.nat(ty.size, env)
            if name in hyp_defs and not hyp_defs[name][0]:
                env[name] = _hyp_lazy(name, hyp_defs[name], env, nz)
            elif name in hyp_defs:        # `∀ (i : Fin S), x i = RHS`: x is `fun i => RHS`
                binders, rhs, hname = hyp_defs[name]
                env[name] = _hyp_lazy(name, ([], T.Lam(tuple(binders), rhs, vec=True), hname),
                                      env, nz)
            else:
                env[name] = VarT(name, (), size)
        elif isinstance(ty, FunT):
            if name in hyp_defs:
                env[name] = _hyp_family(name, hyp_defs[name], env, nz)
            else:
                env[name] = var_function(name, ty, (), nz, env)
        else:
            raise EngineGap(f"binder `{name}` of type {ty}")
    return env


def free_index(name: str, size: T.Term, nz: Normaliser, env: dict[str, Any]) -> IPoly:
    """A free index variable, split into the leaves of its `Fin` type's product tree."""
    leaves = [nz.nat(s, env) for s in size_leaves(size)]
    if len(leaves) == 1:
        nz.ctx.bounds[name] = leaves[0]
        nz.ctx.free_indices.add(name)
        return IPoly.var(name)
    flat: IPoly | None = None
    for k, b in enumerate(leaves):
        if b.is_const() and b.const_value() == 1:
            d = IPoly()
        else:
            leaf = f"{name}.{k}"
            nz.ctx.bounds[leaf] = b
            nz.ctx.free_indices.add(leaf)
            d = IPoly.var(leaf)
        flat = d if flat is None else flat * b + d
    assert flat is not None
    return flat


def var_function(name: str, ty: Any, fam: tuple[IPoly, ...], nz: Normaliser,
                 env: dict[str, Any]) -> Any:
    """A function-typed variable: a family is read by index; a map is an uninterpreted op."""
    if isinstance(ty, FunT) and isinstance(ty.dom, FinT):
        cod = ty.cod
        last = cod
        while isinstance(last, FunT):
            last = last.cod

        def f(r: IPoly) -> Any:
            if isinstance(last, NatT) and not fam:   # (the seventy-fourth review: "of type Nat")
                raise EngineGap(f"`{name} : {ty}` is a family of sizes (per-replica sizes, as "
                                "uneven shards need, are not built: docs/architecture.md)")
            if isinstance(cod, VecT):
                return VarT(name, fam + (r,), nz.nat(cod.size, env))
            if isinstance(cod, RealT):
                from .rewrite.nf import Acc
                return Poly.atom(Acc(name, fam + (r,)))
            return var_function(name, cod, fam + (r,), nz, env)
        return FVal("nat", f)
    if isinstance(ty, FunT) and isinstance(ty.dom, VecT):
        # An uninterpreted map of one or more vectors (curried): an opaque op named `name`.
        from .rewrite.normalize import OpT
        doms: list[Any] = []
        cod: Any = ty
        while isinstance(cod, FunT) and isinstance(cod.dom, VecT):
            doms.append(T.App(T.Var("Vec"), (cod.dom.size,)))
            cod = cod.cod
        if not isinstance(cod, VecT):
            raise EngineGap(f"a variable `{name}` of type {ty}")
        out = nz.nat(cod.size, env)

        def curry(k: int, got: list[Any]) -> FVal:
            def g(x: Any) -> Any:
                args = got + [x]
                if k + 1 == len(doms):
                    return OpT(nz, name, fam, [(f"x{i}", a, doms[i]) for i, a in
                                               enumerate(args)], None, out)   # member `fam`
                return curry(k + 1, args)
            return FVal("tensor", g)
        return curry(0, [])
    raise EngineGap(f"a variable `{name}` of type {ty}")


def _covers(binders: list[T.Binder], ty: Any, g: GlobalDecl) -> bool:
    """A hypothesis `∀ (r : Fin S), e r = …` defines `e : Fin R → …` only when S = R (a
    vector `Vec R` is `Fin R → ℝ`, as in Lean)."""
    from . import arith
    if isinstance(ty, VecT):
        ty = FunT(FinT(ty.size), RealT())
    for b in binders:
        if not isinstance(ty, FunT) or not isinstance(ty.dom, FinT):
            return False
        bty = b.ty
        if not (isinstance(bty, T.App) and bty.fn == T.Var("Fin")):
            return False
        try:             # (as written, size ties aside: the kernel's reading, as above)
            if not arith.sizes_equal(bty.args[0], ty.dom.size):
                return False
        except arith.NotASize:
            return False
        ty = ty.cod
    return True


def _orient(h: T.Term) -> tuple[str, list[T.Binder], T.Term] | None:
    binders: list[T.Binder] = []
    body = h
    while isinstance(body, T.Forall):
        binders.extend(body.binders)
        body = body.body
    if not (isinstance(body, T.Cmp) and body.op == "="):
        return None
    # `x r = RHS` as written, the kernel's reading (`kernel.nf.definitions`): `RHS = x r` read
    # too left true theorems "not replayed" (the seventy-eighth review)
    lhs, rhs = body.lhs, body.rhs
    if isinstance(lhs, T.Var) and not binders:
        return lhs.name, [], rhs
    if isinstance(lhs, T.App) and isinstance(lhs.fn, T.Var) and \
            [a for a in lhs.args] == [T.Var(b.name) for b in binders] and binders:
        return lhs.fn.name, binders, rhs
    return None


def _hyp_lazy(name, hd, env, nz: Normaliser, real: bool = False) -> _Lazy:
    _, rhs, hname = hd

    def force() -> Any:
        nz.ctx.use("hyp", f"{name} := {pretty(rhs)}", at=hname)
        if real:
            return nz.real(rhs, env)
        v = nz.tensor(rhs, env)     # (a vector is read after it is forced: a cycle through
        return FnT(v.size, lambda p: lazy.during(lambda: v.at(p)))   # its entries, named too)
    lazy = _Lazy(force, name)
    return lazy


def _hyp_family(name, hd, env, nz: Normaliser) -> FVal:
    binders, rhs, hname = hd
    busy = _Lazy(lambda: None, name)    # its flag: the family read while it is being read

    def mk(k: int, e: dict[str, Any]) -> FVal:
        b = binders[k]

        def f(x: Any) -> Any:
            e2 = dict(e)
            e2[b.name] = x
            if k + 1 == len(binders):
                nz.ctx.use("hyp", f"{name} {b.name} := {pretty(rhs)}", at=hname)
                # Symbolic indices never end a cycle (`x i = y i`, `y i = 2 * x i`): named,
                # where it recursed until "nested too deeply"
                return busy.during(lambda: _real_value(nz, nz.any_value(rhs, e2)))
            return mk(k + 1, e2)
        return FVal("nat", f)
    return mk(0, env)


def _real_value(nz: Normaliser, v: Any) -> Any:
    """(a size, `e r = n`: a real family's value)"""
    return nz.size_as_real(v) if isinstance(v, IPoly) else v


# --------------------------------------------------------------------------- statements

class Prover:
    def __init__(self, g: GlobalDecl, genv: GlobalEnv, fuel: int) -> None:
        self.g = g
        self.ctx = NFContext(nonzero_names(with_ties(
            defined_facts(g, [h for _, h in g.hyps] + binder_facts(g)), g.size_subst)), fuel)
        self.nz = Normaliser(genv, self.ctx, g.size_subst)
        self.genv = genv
        self.counter = 0

    def run(self, stmt: T.Term | None = None, types: dict | None = None) -> Attempt:
        """Prove ``stmt`` (the theorem's statement), its equations typed by position
        (``types``, as :attr:`GlobalDecl.prop_types`)."""
        env = theorem_env(self.g, self.nz)
        stmt = stmt if stmt is not None else self.g.stmt
        # Lean's `intro`, as the kernel's `facts`: the statement is decided where the indices of
        # its own outermost `∀`s exist, so `0 < n` for each `Fin n` over sizes they do not bind
        from .kernel import _strip_forall
        bs = [] if self.g.existential else _strip_forall(stmt)[1]
        own = [T.Cmp("<", T.Num(Fraction(0)), b.ty.args[0]) for b in bs
               if isinstance(b.ty, T.App) and b.ty.fn == T.Var("Fin")
               and not T.free_names(b.ty) & {x.name for x in bs}]
        self.ctx.nonzero |= nonzero_names(with_ties(own, self.g.size_subst))
        self.prop(stmt, env, types if types is not None else self.g.prop_types)  # type: ignore
        return Attempt(True, ctx=self.ctx)

    def prop(self, t: T.Term, env: dict[str, Any], types: dict,
             path: tuple[int, ...] = ()) -> None:
        if isinstance(t, T.And):
            self.prop(t.lhs, env, types, path + (0,))
            self.prop(t.rhs, env, types, path + (1,))
            return
        if isinstance(t, T.Forall):
            env2 = dict(env)
            for b in t.binders:
                k = kind_of(b.ty)
                if k == "nat":
                    if isinstance(b.ty, T.App) and b.ty.fn == T.Var("Fin"):
                        self.counter += 1
                        env2[b.name] = free_index(f"{b.name}@{self.counter}", b.ty.args[0],
                                                  self.nz, env2)
                    else:
                        self.counter += 1  # a fresh size: never the outer one of that name
                        env2[b.name] = IPoly.var(f"{b.name}@{self.counter}")
                elif k == "real":
                    self.counter += 1
                    env2[b.name] = Poly.atom(Scalar(f"{b.name}@{self.counter}"))
                elif k == "tensor":
                    self.counter += 1
                    env2[b.name] = VarT(f"{b.name}@{self.counter}", (),
                                        self.nz.nat(b.ty.args[0], env2))  # type: ignore
                else:
                    raise EngineGap(f"∀ over a function `{b.name}`")
            self.prop(t.body, env2, types, path + (0,))
            return
        if isinstance(t, T.App) and isinstance(t.fn, T.Var) and \
                t.fn.name in env:
            # a variable (the theorem's, or a definition's parameter) that a global declared
            # later in the file shares the name of: never that global (δ finds globals by name)
            raise EngineGap(f"a statement given by the variable `{t.fn.name}`")
        if isinstance(t, T.App) and isinstance(t.fn, T.Var) and \
                self.genv.get(t.fn.name) is not None:
            g = self.genv.get(t.fn.name)
            v = self.nz.apply_global_value(t.fn.name, list(t.args), env, "prop")
            if isinstance(v, _PropVal):
                self.ctx.use("unfold", None)
                self.prop(v.body, v.env, g.prop_types if g else {})
                return
            raise EngineGap(f"`{t.fn.name}` is not a statement")
        if isinstance(t, T.Cmp):
            ty = types.get(path)
            if isinstance(ty, NatT) and t.op in ("≠", "<", "≤", ">", "≥"):
                self.size_fact(t, env)
                return
            if t.op != "=":
                raise Failure(f"the engine proves equations; `{t.op}` needs a witness or a "
                              "hypothesis")
            if isinstance(ty, NatT):
                d = self.nz.nat(t.lhs, env) - self.nz.nat(t.rhs, env)
                if not d.is_zero():
                    raise Failure("the two sizes differ", str(d))
                return
            self.equal(t.lhs, t.rhs, ty, env)
            return
        raise EngineGap(f"cannot prove a statement of the form {type(t).__name__}")

    def size_fact(self, t: T.Cmp, env: dict[str, Any]) -> None:
        """`a ≠ b`, `a < b`, `a ≤ b` between sizes, from the nonzero sizes of the hypotheses."""
        from .rewrite.ipoly import provably_nonneg
        a, b = self.nz.nat(t.lhs, env), self.nz.nat(t.rhs, env)
        op = t.op
        if op in (">", "≥"):
            a, b, op = b, a, {">": "<", "≥": "≤"}[op]
        nz = self.ctx.nonzero
        if op == "≤":
            ok = provably_nonneg(b - a, set(nz))
        elif op == "<":
            ok = provably_nonneg(b - a - IPoly.const(1), set(nz))
        else:  # ≠
            d = a - b
            mono = d.as_monomial()
            ok = (mono is not None and mono[0] != 0 and all(v in nz for v, _ in mono[1])) or \
                (d.is_const() and not d.is_zero())
            if not ok:
                ok = provably_nonneg(d - IPoly.const(1), set(nz)) or \
                    provably_nonneg(-d - IPoly.const(1), set(nz))
        self.ctx.use("size_fact", f"{pretty(t)} from the nonzero sizes {sorted(nz)}")
        if not ok:
            raise Failure(f"cannot derive the size fact `{pretty(t)}` from the hypotheses")

    def equal(self, lhs: T.Term, rhs: T.Term, ty: Any, env: dict[str, Any]) -> None:
        if isinstance(ty, RealT) or ty is None:
            a, b = self.nz.real(lhs, env), self.nz.real(rhs, env)
            if not (isinstance(a, Poly) and isinstance(b, Poly)):
                # An equation the elaborator never typed (one a `rw` or `unfold` brought in).
                raise EngineGap(f"the type of the equation `{pretty(lhs)[:80]} = …` is not "
                                "known here (it came from unfolding or rewriting); prove it "
                                "as a lemma of its own and cite it")
            self.compare(a, b, lhs, rhs)
            return
        if isinstance(ty, VecT):
            idx = self.output_index(ty.size, env)
            ta, tb = self.nz.tensor(lhs, env), self.nz.tensor(rhs, env)
            self.compare_at(ta, tb, idx, lhs, rhs)
            return
        if isinstance(ty, FunT):
            fa = self.nz.value(lhs, env, None)
            fb = self.nz.value(rhs, env, None)
            self.counter += 1
            assert isinstance(ty.dom, FinT)
            r = free_index(f"@r{self.counter}", ty.dom.size, self.nz, env)
            va, vb = fa(r), fb(r)
            self.compare_values(va, vb, ty.cod, lhs, rhs, env)
            return
        raise EngineGap(f"cannot compare terms of type {ty}")

    def compare_at(self, ta: TVal, tb: TVal, idx: IPoly, lhs: T.Term, rhs: T.Term,
                   depth: int = 0) -> None:
        """Compare two vectors at a symbolic index; split a small free index leaf if needed."""
        from .rewrite.normalize import CaseSplit
        try:
            a, b = ta.at(idx), tb.at(idx)
        except CaseSplit as cs:
            if cs.var not in idx.vars() or depth > 3:
                raise EngineGap(str(cs)) from None
            self.ctx.use("case_split_index", f"{cs.var} ∈ {{0, …, {cs.bound - 1}}}")
            for k in range(cs.bound):
                self.compare_at(ta, tb, idx.subst({cs.var: IPoly.const(k)}), lhs, rhs,
                                depth + 1)
            return
        self.compare(a, b, lhs, rhs, idx)

    def compare_values(self, va, vb, ty, lhs, rhs, env) -> None:
        if isinstance(ty, VecT):
            idx = self.output_index(ty.size, env)
            self.compare_at(va, vb, idx, lhs, rhs)
        elif isinstance(ty, RealT):
            self.compare(va, vb, lhs, rhs)
        elif isinstance(ty, FunT):
            self.counter += 1
            r = free_index(f"@r{self.counter}", ty.dom.size, self.nz, env)
            self.compare_values(va(r), vb(r), ty.cod, lhs, rhs, env)
        else:
            raise EngineGap(f"cannot compare values of type {ty}")

    def output_index(self, size: T.Term, env: dict[str, Any]) -> IPoly:
        self.counter += 1
        return free_index(f"@i{self.counter}", size, self.nz, env)

    def compare(self, a: Poly, b: Poly, lhs: T.Term, rhs: T.Term, idx: IPoly | None = None
                ) -> None:
        self.ctx.use("compare_normal_forms", None)
        if a == b:
            return
        diff = a - b
        where = f" at index {idx}" if idx is not None else ""
        raise Failure(f"the normal forms differ{where}{_adjacent_ranges(diff)}",
                      show_poly(diff)[:4000])


def _adjacent_ranges(diff: Poly) -> str:
    """A note when the residual has sums over ranges `a`, `b` and `a + b`, or `a` and `a + 1`:
    the engine does not split or merge sums over adjacent ranges (the seventy-fourth review: the
    residual read as "a missing all-reduce"), and the way round it today."""
    ranges: dict[IPoly, set[str]] = {}      # a sum's range: the tensors its body reads
    for m, _ in diff.terms:
        for atom, _ in m:
            if isinstance(atom, SumA) and len(atom.binders) == 1 and \
                    not atom.binders[0][1].is_const():   # (not `Fin 5` beside `Fin 8`)
                ranges.setdefault(atom.binders[0][1], set()).update(
                    a.name for a, _ in atom.body if isinstance(a, Acc))
    for a, b in itertools.combinations(ranges, 2):
        if not ranges[a] & ranges[b]:         # (sums of different vectors: the seventy-ninth
            continue                          # review's sign split of x beside one of y)
        shown = f"`{a}`, `{b}` and `{a + b}`" if a + b in ranges else \
            f"`{a}` and `{b}`" if (a - b).is_const() else None
        if shown:
            return (f" (it has sums over {shown}: `norm` does not split or merge sums over "
                    "adjacent ranges, which uneven shards need (docs/architecture.md); state "
                    "the split as a hypothesis and `rw` with it)")
    return ""


def _retype(old: T.Term, new: T.Term, types: dict, out: dict,
            path: tuple[int, ...] = ()) -> None:
    """Carry the equation types of a statement over to its rewritten copy, position by
    position, where the skeleton (`∧`, `∀`, an equation) is unchanged.  An equation a tactic
    brings in (`unfold [P]` puts P's body where `P` was) is untyped: the engine then says so
    (its text may be one a hypothesis or another scope types differently)."""
    if isinstance(old, T.Cmp) and isinstance(new, T.Cmp):
        if path in types:
            out[path] = types[path]
    elif isinstance(old, T.And) and isinstance(new, T.And):
        _retype(old.lhs, new.lhs, types, out, path + (0,))
        _retype(old.rhs, new.rhs, types, out, path + (1,))
    elif isinstance(old, T.Forall) and isinstance(new, T.Forall):
        _retype(old.body, new.body, types, out, path + (0,))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _rewrite_label(n: int, tactics: list[T.ProofStep], k: int, j: int) -> str:
    """Name the rewrite that failed: `step n` is the number it has in the trace `explain` prints
    (the steps before it are the trace), not the tactic's number (the sixty-eighth review: a
    third rewrite `rw [a, b, a]` was "step 1", the number the trace gives the first `a`).  When
    that could be read otherwise, which tactic of the script, and which use of the name in it:
    ``step 5 (`rw [a]`, the 2nd use of it in tactic 2 `rw [c, a, d, a]`)`` after an `unfold`."""
    names = [x.name for x in tactics[k].names]
    name = names[j]
    head = f"step {n} (`rw [{name}]`"
    if len(names) == 1:
        return head + (")" if n == k + 1 else f", tactic {k + 1})")
    shown = ", ".join(names)                # the tactic's text, clipped past 120 characters
    if len(shown) > 120:
        cut = shown.rfind(", ", 0, 100)
        shown = (shown[:cut] if cut >= 0 else names[0]) + ", …"
    text = f"tactic {k + 1} `{tactics[k].tactic} [{shown}]`"
    if names.count(name) == 1:
        return f"{head}, {text})"
    return f"{head}, the {_ordinal(names[:j + 1].count(name))} use of it in {text})"


def attempt(g: GlobalDecl, genv: GlobalEnv, fuel: int = 200_000,
            proved: Callable[[str], GlobalDecl | None] | None = None,
            untyped: bool = False) -> Attempt:
    """Run the engine on one theorem (no counterexample search).

    ``proved(name)`` returns a cited lemma's declaration when it has been proved (else None).
    ``untyped``: a `rw` takes the first match without the kernel's test of its instance's types
    (the kernel's replay makes that test again; see :func:`decide`).
    """
    from .rewrite import tactics as tac

    pr = Prover(g, genv, fuel)
    kgoal = None                       # the kernel's view of the goal, for instance typing
    steps: list[dict[str, Any]] = []
    ktrace: list[dict[str, Any]] = []
    lemmas: list[str] = []
    scripted = False
    try:
        stmt = g.stmt
        assert stmt is not None
        hyps = dict(g.hyps)
        goal = tac.Goal(stmt, list(g.hyps), genv,
                        {n: ty.size for n, ty in g.binders if isinstance(ty, FinT)},
                        frozenset(n for n, ty in g.binders if isinstance(ty, NatT)),
                        binder_facts(g))
        cur_types: dict = dict(g.prop_types)        # the equations' types, by position
        tactics = list(g.proof.steps) if g.proof is not None else [T.ProofStep("norm")]
        need_norm = not tactics or tactics[-1].tactic == "norm"
        scripted = True                   # (a failure from here on is the script's)
        for k, step in enumerate(tactics):
            if step.tactic not in ("norm", "rw", "unfold", "witness"):
                raise Failure(f"unknown tactic `{step.tactic}` (use norm, rw [..], unfold [..] "
                              "or witness)")
            if step.tactic == "unfold":
                names = {n.name for n in step.names}
                for n in step.names:
                    d = genv.get(n.name)
                    if d is None or d.kind != "def":
                        raise Failure(f"unfold: `{n.name}` is not a definition")
                before = goal.stmt
                goal.stmt = tac.unfold_defs(goal.stmt, names, genv)
                moved: dict = {}
                _retype(before, goal.stmt, cur_types, moved)
                cur_types = moved
                steps.append({"rule": "unfold", "at": "", "detail": ", ".join(sorted(names))})
                ktrace.append({"rule": "unfold", "names": sorted(names)})
                continue
            for j, nm in enumerate(step.names):
                if nm.name in hyps:
                    rule = tac.rule_of_hypothesis(nm.name, hyps[nm.name])
                else:
                    lg = genv.get(nm.name)
                    if lg is None or lg.kind != "theorem":
                        raise Failure(f"`{nm.name}` is neither a hypothesis of `{g.name}` nor a "
                                      "theorem in scope")
                    if is_negative_statement(lg):
                        raise Failure(f"cannot cite `{nm.name}`: a `≠` theorem is not an "
                                      "equation to rewrite with (a witness proves it at SOME "
                                      "values)")
                    if proved is None or proved(nm.name) is None:
                        raise Failure(f"cannot cite `{nm.name}`: it is not proved (only proved "
                                      "theorems declared earlier or imported can be cited)",
                                      cites=nm.name)
                    rule = tac.rule_of_theorem(lg)
                    lemmas.append(nm.name)
                count = 0
                if kgoal is None:
                    kgoal = kernel_goal(g, genv, frozenset())
                typed = None if untyped else _instance_typing(
                    kgoal, goal, nm.name, dict(g.hyps), None if nm.name in hyps else lg)
                fits = _instance_kinds(kgoal, goal, nm.name, dict(g.hyps),
                                       None if nm.name in hyps else lg)
                misses: list[str] = []
                while True:
                    pr.ctx.tick(10)
                    before = goal.stmt
                    rec = tac.rewrite_once(goal, rule, typed=typed, misses=misses, fits=fits)
                    if rec is None:
                        break
                    if T.tree_size(goal.stmt) > MAX_GOAL_NODES:
                        raise Failure(f"rewriting with `{nm.name}` grew the goal past "
                                      f"{MAX_GOAL_NODES:,} nodes")
                    moved = {}
                    _retype(before, goal.stmt, cur_types, moved)
                    cur_types = moved
                    ktrace.append({"rule": "rw", "lemma": rec["lemma"], "paths": rec.pop("paths"),
                                   "inst": rec.pop("inst"), "how": rec.pop("how")})
                    steps.append(rec)
                    count += 1
                    if step.tactic == "rw" or count > 200:
                        break
                if count == 0 and step.tactic == "rw":
                    which = _rewrite_label(len(steps) + 1, tactics, k, j)
                    raise Failure(f"{which}: {misses[0]}" if misses else
                                  f"{which}: `{nm.name}` did not match any subterm of the goal")
        scripted = False
        if goal.stmt is not stmt and tac.close_by_defeq(goal) and not need_norm:
            steps.append({"rule": "defeq", "at": "", "detail": "closed up to unfolding"})
            ktrace.append({"rule": "defeq"})
            return Attempt(True, ctx=pr.ctx, lemmas=lemmas, steps=steps, ktrace=ktrace)
        final = goal.stmt if steps else None
        try:
            res = pr.run(goal.stmt, cur_types)
            ktrace.append({"rule": "norm"})
        except (Failure, EngineGap) as first:
            if not pr.nz.saw_numeral_sum:
                raise
            # again with every `∑` over `Fin 2` … `Fin 4` written out term by term (not the
            # default: a sum over `Fin (2 * C)` written as one would no longer meet it)
            pr2 = Prover(g, genv, fuel)
            pr2.nz.unroll = True
            try:
                res = pr2.run(goal.stmt, cur_types)
            except (Failure, EngineGap, FuelExhausted, RecursionError):
                raise first from None                  # the reason is the first attempt's
            ktrace.append({"rule": "norm", "unroll": True})
        res.lemmas, res.steps, res.ktrace, res.final = lemmas, steps, ktrace, final
        return res
    except tac.TacticError as e:
        out = Attempt(False, str(e), None, pr.ctx, lemmas, steps)
    except Failure as f:
        out = Attempt(False, f.reason, f.residual, pr.ctx, lemmas, steps, cites=f.cites)
    except EngineGap as e:
        out = Attempt(False, f"outside what the engine decides: {e}", None, pr.ctx, lemmas,
                      steps)
    except FuelExhausted as e:
        out = Attempt(False, f"out of fuel in {e} (rule budget {fuel})", None, pr.ctx, lemmas,
                      steps)
    except RecursionError:
        out = Attempt(False, "the term is nested too deeply for the normaliser", None, pr.ctx,
                      lemmas, steps)
    out.stopped = scripted
    out.final = None if scripted or not steps else goal.stmt
    return out


def _missing_side_conditions(g: GlobalDecl, residual: str | None,
                             genv: GlobalEnv | None = None, fuel: int = 200_000) -> str | None:
    """Name the hypothesis to add when a residual shows an uncancelled reciprocal of a size or a
    real variable: the whole name after `1/` (the fifty-eighth review: `1/xy` named `x` too), and
    for a real `x ≠ 0`, which no sign hypothesis contradicts (`0 < x` beside `x < 0` would make
    the theorem vacuous).  With ``genv``, for a statement proved by `norm` alone, the engine
    first tries it with those names nonzero: where that does not prove it either, the hint
    says so instead of asking for hypotheses that would not help (the ninety-fifth review)."""
    if not residual:
        return None
    nz = nonzero_names(with_ties(defined_facts(g, [h for _, h in g.hyps] + binder_facts(g)),
                                 g.size_subst))
    named = [(n, ty) for n, ty in g.binders if isinstance(ty, (NatT, RealT)) and n not in nz]
    missing = [(n, ty) for n, ty in named
               if re.search(rf"1/{re.escape(n)}(?![\w'₀-₉])", residual)]
    if not missing:
        return None
    taken = {n for n, _ in g.binders} | {n for n, _ in g.hyps}
    out, add = [], []
    for n, ty in missing:
        # a real given by an equation written `RHS = x`, which `norm` does not substitute (it
        # reads `x = RHS`): turning it round is the fix, not a new hypothesis (reviews 71, 81)
        eq = next((hn for hn, h in g.hyps if isinstance(h, T.Cmp) and h.op == "=" and
                   h.rhs == T.Var(n) and h.lhs != T.Var(n)), None)
        if eq is not None and isinstance(ty, RealT):
            out.append(f"`{n} ≠ 0` — but `{eq}` says what `{n}` is: write it `{n} = …` "
                       "(`norm` substitutes an equation with the variable on the left)")
        else:
            add.append((n, ty))
    if add and genv is not None and _not_enough(g, genv, {n for n, _ in add}, fuel):
        names = ", ".join(f"`{n} ≠ 0`" for n, _ in add)
        return ", ".join(out + [f"{names} — but with {'it' if len(add) == 1 else 'them'} the "
                                "normal forms still differ: the reciprocal is not all that is left"])
    for n, ty in add:
        hn = f"h{n}"
        while hn in taken:            # (the suggested name must not clash with one in use)
            hn += "'"
        taken.add(hn)
        out.append(f"`{n} ≠ 0` (add a hypothesis `({hn} : "
                   f"{f'0 < {n}' if isinstance(ty, NatT) else f'{n} ≠ 0'})`)")
    return ", ".join(out)


def _not_enough(g: GlobalDecl, genv: GlobalEnv, names: set[str], fuel: int) -> bool:
    """Does `norm` still fail on ``g`` (no script) with ``names`` known nonzero?  False where it
    cannot tell (a script, or the engine stops for another reason than differing forms)."""
    if g.proof is not None and any(s.tactic != "norm" or s.names for s in g.proof.steps):
        return False
    pr = Prover(g, genv, fuel)                   # (the budget of the attempt it repeats)
    pr.ctx.nonzero |= names
    try:
        pr.run()
        return False
    except Failure:
        return True
    except Exception:               # (outside the engine, out of fuel: no claim either way)
        return False


_FORALL_NE = ("Lean reads a `≠` under the theorem's binders for EVERY value of them, and this "
              "checker does not prove that for reals or vectors (a witness shows one value); "
              "to state that the equation fails for some values, a counterexample, write "
              "`theorem NAME : ∃ (x : …) (h : …), a ≠ b := by witness (x := …)`")


def decide(g: GlobalDecl, genv: GlobalEnv, checker: Checker, options: Options) -> Verdict:
    from .check import Verdict
    from .types import is_negative_statement

    # `≠` between tensors or reals is a negative result ("not an identity"): proved by an
    # exact witness.  `≠` between sizes is a size fact, decided for all sizes by the engine.
    if is_negative_statement(g):
        if g.binders and not g.existential:       # Lean's reading: the sides differ for ALL
            notes: list[str] = []                 # values; refuted where they are equal
            cex = _search(g, genv, options, notes, witness=False) \
                if options.search_seconds > 0 else None
            if cex is not None:
                return _refuted(g, cex, notes)    # (its message: the two sides are equal)
            return Verdict(g.name, g.path, 0, "unknown", 0.0,
                           reason="; ".join([_FORALL_NE] + notes))
        given = _rational_witness(g) if options.replay else None
        direct = None                # the kernel's reason for refusing the given witness
        if given is not None:        # every binder given a rational: the kernel decides alone
            ktrace = [{"rule": "witness", "assignment": given}]
            direct, kernel = replay_in_kernel(g, genv, ktrace, checker)
            if direct is None:
                checker.ktraces[g.name] = ktrace
                cex = {"assignment": given, "lhs": None, "rhs": None, "index": None,
                       "binding": {}, "witness": True, "python": None,
                       "message": "the two sides differ at the given values (the replay "
                                  "kernel's exact evaluation)"}
                return Verdict(g.name, g.path, 0, "proved", 0.0, rules=["exact_witness"],
                               replayed=True, kernel=kernel, counterexample=cex,
                               trace=[{"rule": "exact_witness", "at": "",
                                       "detail": "the given assignment makes the two sides "
                                                 "differ, evaluated by the replay kernel"}])
        unshrunk: list[dict[str, Any]] = []
        v = _decide_ne(g, genv, options, unshrunk)  # (finds or completes a witness, or says why not)
        if direct is not None and v.verdict != "proved":
            v.reason = f"the kernel rejects the given witness: {direct}; then {v.reason}"
        if v.verdict == "proved" and options.replay:
            # The evaluator found the assignment; the kernel re-evaluates it on its own.
            ktrace = [{"rule": "witness",
                       "assignment": _unused_filled(g, v.counterexample["assignment"])}]
            failure, v.kernel = replay_in_kernel(g, genv, ktrace, checker)
            if failure is not None and unshrunk:    # shrunk to √(11/4): as found it was √9
                first = [{"rule": "witness",
                          "assignment": _unused_filled(g, unshrunk[0]["assignment"])}]
                again, kernel = replay_in_kernel(g, genv, first, checker)
                if again is None:
                    ktrace, failure, v.kernel, v.counterexample = first, None, kernel, unshrunk[0]
            checker.ktraces[g.name] = ktrace
            if failure is not None:       # (say which witness, and how to give another)
                which = "given" if given is not None else "the search found"   # (review 82)
                v.verdict, v.reason = "unknown", (
                    f"the kernel rejects the witness {which} ("
                    f"{_assignment_text(v.counterexample['assignment'])}): {failure}; give one "
                    "with `by witness (…)`, at values where the kernel can compare the two "
                    "sides exactly (rationals; a square root only of a rational square)"
                    + (f"; {v.reason}" if v.reason else ""))      # (a clock note stays)
                v.rules = []
            else:                # `proved` rests on the kernel's evaluation, not the evaluator's
                v.trace = [{**s, "detail": s["detail"] + "; re-evaluated by the replay kernel"}
                           for s in v.trace]
            v.oracles = []
            v.replayed = failure is None
        return v
    def proved(name: str) -> GlobalDecl | None:
        v = checker.verdict_of(genv.get(name))
        return genv.get(name) if v is not None and v.verdict == "proved" else None

    # With replay on, the engine first takes each `rw`'s first match untyped: the kernel tests
    # every instance's types when it replays, and the engine's own test of them, the same
    # function, was a tenth of a net's check.  Where that proof does not replay, or the engine
    # stops, the typed attempt runs as before and decides the verdict (the first match that
    # passes the kernel's test is the one the typed attempt takes: a replayed proof is that
    # attempt's proof).
    fast = None
    if options.replay and g.proof is not None and \
            any(st.tactic == "rw" for st in g.proof.steps):
        fast = _untyped_attempt(g, genv, options, proved, checker)
    at = fast[0] if fast is not None else attempt(g, genv, options.fuel, proved)
    if at.proved:
        ctx = at.ctx
        assert ctx is not None
        rules = sorted(r for r in ctx.rules_used if not r.startswith(("def:", "opaque:")))
        if at.steps:
            rules = sorted(set(rules) | {s["rule"] for s in at.steps})
        defs = sorted(r[4:] for r in ctx.rules_used if r.startswith("def:"))
        opaques = sorted(r[7:] for r in ctx.rules_used if r.startswith("opaque:"))
        trace = list(at.steps) + [{"rule": "unfold", "at": "", "detail": d} for d in defs] + \
            list(ctx.trace)
        replayed, kernel = None, []
        if options.replay:
            failure, kernel = fast[1] if fast is not None else \
                replay_in_kernel(g, genv, at.ktrace, checker)
            checker.ktraces[g.name] = at.ktrace
            if failure is not None:
                if "a digit of a flat index not shown in range" in failure:   # (review 87)
                    failure += f"; {_LAYOUT_HINT}"
                if failure.endswith("a statement of the form Cmp"):          # (review 88)
                    failure += f" ({_SIZE_FACT_FORMS})"
                return Verdict(g.name, g.path, 0, "unknown", 0.0, reason="the engine's proof "
                               f"does not replay in the kernel: {failure}",
                               lemmas=sorted(set(at.lemmas)), trace=trace, replayed=False)
            replayed = True
        return Verdict(g.name, g.path, 0, "proved", 0.0, rules=rules, replayed=replayed,
                       kernel=kernel,
                       lemmas=sorted(set(at.lemmas)),
                       oracles=[ORACLE_RING, ORACLE_INDEX] + [f"opaque:{o}" for o in opaques],
                       trace=trace)
    notes: list[str] = []
    cex = _search(g, genv, options, notes) if options.search_seconds > 0 else None
    if cex is not None:
        v = _refuted(g, cex, notes)
        if at.stopped and at.reason:      # where the script broke, as `unknown` would say it
            v.stopped, v.trace = _clip_terms(at.reason), list(at.steps)
        return v
    reason = "; ".join([at.reason or "not proved"] + _where_sides_differ(at.final, genv) +
                       notes + _refuted_root(at.cites, genv, checker))
    hint = _missing_side_conditions(g, at.residual, genv, options.fuel)
    if hint:
        reason += f"; the residual keeps a reciprocal: needs {hint}"
    # the steps the engine took before it stopped (`explain` shows where a script broke)
    return Verdict(g.name, g.path, 0, "unknown", 0.0, reason=reason, residual=at.residual,
                   trace=list(at.steps))


# The size facts the kernel replays, where the engine decides more (`0 ≠ N`, `N + 1 ≠ 0`,
# `N ≤ N + 1`: the eighty-eighth review found such statements `unknown` with the kernel's
# "a statement of the form Cmp" alone as the reason).
_SIZE_FACT_FORMS = ("the kernel replays a size fact written `m ≠ 0` or `0 < m` (`m > 0`, "
                    "`1 ≤ m`, `m ≥ 1` read as `0 < m`), `m` a product of sizes the hypotheses "
                    "make nonzero: `N ≠ 0`, not `0 ≠ N`; other comparisons (`N + 1 ≠ 0`, "
                    "`N ≤ N + 1`) are not replayed, and `--no-replay` shows what the engine "
                    "alone decides")


def _untyped_attempt(g: GlobalDecl, genv: GlobalEnv, options: Options,
                     proved: Callable[[str], GlobalDecl | None], checker: Checker
                     ) -> tuple[Attempt, tuple[str | None, list[str]]] | None:
    """The engine's proof with untyped `rw` matches and its replay, when it replays; None
    otherwise (the caller then runs the typed attempt)."""
    try:
        at = attempt(g, genv, options.fuel, proved, untyped=True)
    except Exception:                # (an ill-typed instance may reach code that assumes types)
        return None
    if not at.proved:
        return None
    failure, kernel = replay_in_kernel(g, genv, at.ktrace, checker)
    return (at, (failure, kernel)) if failure is None else None


def _where_sides_differ(final: T.Term | None, genv: GlobalEnv) -> list[str]:
    """Where the two sides of the equation a script's steps reached first differ, walking both
    alike and unfolding a definition met against something else (the eighty-ninth review: a
    swapped weight field in a block, every `rw` applied, then `norm` out of budget, named no
    place; `b0MbResid_dg` against `b0MbResid_zbb`, or `R • T` against `N • T`, is the place)."""
    from .rewrite.tactics import _first_difference, _Same, unfold_head
    body = final
    while isinstance(body, T.Forall):
        body = body.body
    if not (isinstance(body, T.Cmp) and body.op == "="):
        return []
    head = lambda t: t.fn if isinstance(t, T.App) else t     # noqa: E731
    try:
        # (not into binder forms: there the right side would print under the left side's
        # binder names, and the engine's renamed-apart `j~1`: the ninetieth review)
        lhs, rhs = body.lhs, body.rhs
        a, b = _first_difference(lhs, rhs, _Same(genv), binders=False)
        for _ in range(8):           # (each round unfolds one definition where they differ)
            if head(a) == head(b):
                break
            ub, ua = unfold_head(b, genv), unfold_head(a, genv)   # (the right side first:
            if ub is not None:                                  # the program as written)
                rhs = _replaced(rhs, b, ub)
            elif ua is not None:
                lhs = _replaced(lhs, a, ua)
            else:
                break
            a, b = _first_difference(lhs, rhs, _Same(genv), binders=False)
        here, there = clip(pretty(a), 120), clip(pretty(b), 120)
    except (RecursionError, ValueError, TypeError, AttributeError, KeyError):
        return []            # (a courtesy: the reason stands without it)
    if a is lhs or a == b or "~" in here + there:     # (an engine's name: not the user's text)
        return []
    return [f"after the script's steps the two sides first differ at `{here}` against "
            f"`{there}`"]


def _replaced(t: T.Term, old: T.Term, new: T.Term) -> T.Term:
    """``t`` with the very subterm ``old`` (by identity) replaced by ``new``."""
    return new if t is old else t.map_children(lambda c: _replaced(c, old, new))


def _clip_terms(text: str, limit: int = 160) -> str:
    """A reason with every `…` quoted in it cut at ``limit`` characters (a refuted verdict's
    note of where its proof stopped: the counterexample is the news, the note stays short)."""
    return re.sub(r"`([^`]*)`", lambda m: m.group(0) if len(m.group(1)) <= limit
                  else f"`{m.group(1)[:limit]} …`", text)


def _assignment_text(assignment: dict[str, Any], limit: int = 300) -> str:
    """`R = 2, N = 2, ε = 3, X = [0, 1/2]`, clipped: a witness named in a reason."""
    from .check import cex_value
    text = ", ".join(f"{k} = {cex_value(x)}" for group in assignment.values()
                     if isinstance(group, dict) for k, x in group.items())
    return text if len(text) <= limit else text[:limit] + " …"


def _refuted(g: GlobalDecl, cex: dict, notes: list[str] = ()) -> Verdict:
    """The verdict for a counterexample the search found and re-checked exactly; where the
    search's wall-clock safety net cut its shrinking short, the reason says so (and the
    verdict, whose counterexample may then differ on another machine, is not cached)."""
    from .check import Verdict
    from .semantics import CLOCK_NOTE
    clock = f"; {CLOCK_NOTE}" if CLOCK_NOTE in notes else ""
    return Verdict(g.name, g.path, 0, "refuted", 0.0, counterexample=cex,
                   reason=str(cex.get("message") or "the statement fails here") +
                   " (checked in exact arithmetic)" + clock)


_ROOT = re.compile(r"it rests on `[^`]+`, which is (?:refuted|unknown: .*)")   # (said last)


def _refuted_root(cited: str | None, genv: GlobalEnv, checker: Checker) -> list[str]:
    """Where a chain of proofs that cite unproved theorems ends in a refuted one, name it: a
    whole net's statement with per-replica BatchNorm cites its prefix, which cites its own
    prefix, …, down to the first block that is refuted (read from the cited verdict's reason,
    so a cached verdict says the same).  A chain that ends in an `unknown` names that one and
    its reason (a block whose `0 < R` was dropped: the sixty-eighth review).  By name only: a
    cached reason keeps its text while the file or the line of that theorem moves
    (`shardproof explain NAME` shows where)."""
    v = checker.verdict_of(genv.get(cited)) if cited is not None else None
    if v is not None and v.verdict == "refuted":
        return [f"it rests on `{v.name}`, which is refuted"]
    if v is None or v.verdict != "unknown":
        return []
    m = _ROOT.search(v.reason or "")
    if m:
        return [m.group(0)]
    why = v.reason or "not proved"                     # (the root `unknown`'s own reason)
    why = why if len(why) <= 200 else why[:200] + " …"
    return [f"it rests on `{v.name}`, which is unknown: {why}"]


class KernelDecls:
    """The globals in scope as the kernel sees them (converted on first use)."""

    def __init__(self, genv: GlobalEnv) -> None:
        self.genv = genv
        self.memo: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        from .kernel import KDecl
        if name in self.memo:
            return self.memo[name]
        g = self.genv.get(name)
        k = None
        obligations = tuple((p.name, p.ty_term) for p in getattr(g, "params", ())
                            if p.kind == "hyp")
        if g is not None and g.kind == "def":
            ps = [p for p in g.params if p.kind != "hyp"]
            k = KDecl(name, "def", tuple(p.name for p in ps), g.body, hyps=obligations,
                      ptypes=tuple(p.ty_term for p in ps), ret=g.ret_term)
        elif g is not None and g.kind == "theorem":
            k = KDecl(name, "theorem", tuple(n for n, _ in g.binders), g.stmt,
                      tuple((n, ty.size) for n, ty in g.binders if isinstance(ty, FinT)),
                      tuple(g.hyps), ptypes=tuple(ty_to_term(ty) for _, ty in g.binders))
        elif g is not None and g.kind == "opaque":
            ps = [p for p in g.params if p.kind != "hyp"]
            k = KDecl(name, "opaque", tuple(p.name for p in ps), hyps=obligations,
                      ptypes=tuple(p.ty_term for p in ps), ret=g.ret_term, linear_in=g.linear_in)
        elif g is not None:
            k = KDecl(name, g.kind)
        self.memo[name] = k
        return k


def _skeleton(ty: Any, top: bool = True) -> Any:
    """A type with its sizes forgotten (at the top, a size, an index and a real are one kind,
    as the kernel's `same_type` takes them); None: not known."""
    if isinstance(ty, T.Arrow):
        dom, cod = _skeleton(ty.dom, False), _skeleton(ty.cod, False)
        return None if dom is None or cod is None else ("→", dom, cod)
    head = ty.fn if isinstance(ty, T.App) else ty
    if not isinstance(head, T.Var):
        return None
    return "scalar" if top and head.name in ("Nat", "Fin", "ℝ") else head.name


def _declared_types(kgoal: Any, name: str, hyps: dict[str, T.Term],
                    lemma: GlobalDecl | None) -> dict[str, Any]:
    """The types of a cited rule's variables, as the kernel reads them: a lemma's parameters
    and the `∀` binders of its statement (of a hypothesis's, for a hypothesis)."""
    from .kernel import _strip_forall
    kd = kgoal.decls.get(name) if lemma is not None else None
    declared = dict(zip(kd.params, kd.ptypes)) if kd is not None else {}
    stmt = lemma.stmt if lemma is not None else hyps[name]
    return declared | {b.name: b.ty for b in _strip_forall(stmt)[1]}


def _instance_kinds(kgoal: Any, goal: Any, name: str, hyps: dict[str, T.Term],
                    lemma: GlobalDecl | None) -> Callable[[dict, tuple], bool]:
    """False when a value of a `rw` instance, maybe partial, is of another kind than its
    variable (a vector for an index, a map for a family), whatever the sizes the match has not
    bound yet: to tell such a match apart in a message (the eightieth review).  Never a filter:
    the full test is :func:`_instance_typing`."""
    from .kernel import at_path, type_of
    declared = _declared_types(kgoal, name, hyps, lemma)

    def fits(inst: dict, path: tuple) -> bool:
        btypes = at_path(goal.stmt, list(path))[1]
        for v, val in inst.items():
            want, got = _skeleton(declared.get(v)), _skeleton(type_of(val, kgoal, btypes))
            if want is not None and got is not None and want != got:
                return False
        return True
    return fits


def _instance_typing(kgoal: Any, goal: Any, name: str, hyps: dict[str, T.Term],
                     lemma: GlobalDecl | None) -> Callable[[dict, tuple], bool]:
    """The kernel's test that a `rw` instance has the cited rule's variables' types, for the
    engine to skip the matches the kernel would refuse."""
    from .kernel import Rejected, at_path, check_instance
    declared = _declared_types(kgoal, name, hyps, lemma)

    def typed(inst: dict, path: tuple) -> bool:
        try:
            check_instance(kgoal, name, declared, inst, at_path(goal.stmt, list(path))[1])
        except Rejected:
            return False
        return True
    return typed


def kernel_goal(g: GlobalDecl, genv: GlobalEnv, accepted: frozenset[str]) -> Any:
    from .kernel import Goal
    assert g.stmt is not None
    from .types import ty_to_term
    return Goal(g.stmt, dict(g.hyps), {n: ty.size for n, ty in g.binders
                                       if isinstance(ty, FinT)}, KernelDecls(genv), accepted,
                {n: ty_to_term(ty) for n, ty in g.binders}, g.existential)


def replay_in_kernel(g: GlobalDecl, genv: GlobalEnv, ktrace: list[dict[str, Any]],
                     checker: Checker) -> tuple[str | None, list[str]]:
    """Replay the engine's proof of ``g`` in the kernel: (the kernel's reason when it rejects,
    what the replayed proof rests on)."""
    from .kernel import Rejected, replay
    # The theorems the trace cites that the kernel accepted, each for the declaration in scope
    # here; a witness-proved `≠` holds somewhere, not everywhere: never a rule to rewrite with.
    cited = {st.get("lemma") for st in ktrace if st.get("rule") == "rw"}
    accepted = frozenset(n for n in cited if isinstance(n, str)
                         and (v := checker.verdict_of(genv.get(n))) is not None
                         and v.verdict == "proved" and v.replayed
                         and not {"kernel:witness", "oracle:exact-evaluation"} & set(v.kernel))
    try:
        return None, replay(kernel_goal(g, genv, accepted), ktrace)
    except Rejected as e:
        return str(e), []
    except RecursionError:
        return "the term is nested too deeply for the kernel", []
    except Exception as e:      # a kernel bug rejects the proof (never proves, never crashes)
        return f"the kernel failed ({type(e).__name__}: {e})", []



def _search(g: GlobalDecl, genv: GlobalEnv, options: Options,
            notes: list[str] | None = None, witness: bool | None = None,
            unshrunk: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The search's counterexample (or witness), shrunk, as a record; ``unshrunk`` receives
    what the search found before shrinking, when that differs."""
    try:
        from . import semantics
    except ImportError:  # pragma: no cover - the evaluator is part of the package
        return None
    cex = semantics.find_counterexample(g, genv, budget_seconds=options.search_seconds,
                                        seed=options.seed, notes=notes, witness=witness)
    if cex is None:
        return None
    if unshrunk is not None and getattr(cex, "unshrunk", None) is not None:
        unshrunk.append(cex.unshrunk.to_dict())
    return cex.to_dict() if hasattr(cex, "to_dict") else dict(cex)


def _witness_step(g: GlobalDecl) -> T.ProofStep | None:
    if g.proof is None:
        return None
    for st in g.proof.steps:
        if st.tactic == "witness":
            return st
    return None


def _number(t: T.Term) -> Fraction | None:
    """A numeral of a witness, possibly negated, or a quotient of those (`1/2`, as `0.5`)."""
    if isinstance(t, T.Num):
        return t.value
    if isinstance(t, T.BinOp) and t.op == "/":      # (`-1/2` is `(-1) / 2`; Lean's `x / 0 = 0`)
        a, b = _number(t.lhs), _number(t.rhs)
        return None if a is None or b is None else a / b if b else Fraction(0)
    inner = _number(t.arg) if isinstance(t, T.Neg) else None
    return -inner if inner is not None else None


def _natural(t: T.Term) -> int | None:
    x = _number(t)
    decimal = isinstance(t, T.Num) and t.decimal              # (`1.0` is not a natural)
    return int(x) if x is not None and x.denominator == 1 and x >= 0 and not decimal else None


def _rational_witness(g: GlobalDecl) -> dict[str, Any] | None:
    """`by witness (…)` as the kernel reads an assignment, when it gives EVERY binder a
    numeral (a vector a literal of numerals); else None, and the evaluator completes it."""
    from .types import RealT
    step = _witness_step(g)
    given = {na.name: na.value for na in step.assignments} if step is not None else None
    if given is None or set(given) != {n for n, _ in g.binders}:
        return None
    out: dict[str, dict[str, Any]] = {k: {} for k in ("sizes", "reals", "tensors", "families",
                                                      "indices", "maps")}
    for name, ty in g.binders:
        v = given[name]
        if isinstance(ty, (NatT, FinT)) and _natural(v) is not None:
            out["sizes" if isinstance(ty, NatT) else "indices"][name] = _natural(v)
        elif isinstance(ty, RealT) and _number(v) is not None:
            out["reals"][name] = str(_number(v))
        elif isinstance(ty, VecT) and isinstance(v, T.VecLit) and \
                all(_number(x) is not None for x in v.items):
            out["tensors"][name] = [str(_number(x)) for x in v.items]
        else:
            return None
    return out


def _given_witness(g: GlobalDecl, genv: GlobalEnv, step: T.ProofStep) -> dict[str, Any] | None:
    """Check the assignment written in `by witness (R := 2) (X := ![0, 2]) …`, exactly."""
    import numpy as np

    from . import arith
    from . import semantics as sem
    from .types import RealT as _R

    types = dict(g.binders)
    a = sem.Assignment({}, {}, {}, {}, {})
    for na in step.assignments:
        ty = types.get(na.name)
        v = na.value
        if isinstance(ty, NatT) and _natural(v) is not None:
            a.sizes[na.name] = _natural(v)
        elif isinstance(ty, _R) and _number(v) is not None:
            a.reals[na.name] = arith.exact(_number(v))
        elif isinstance(ty, VecT) and isinstance(v, T.VecLit) and \
                all(_number(it) is not None for it in v.items):
            a.tensors[na.name] = np.array([arith.exact(_number(it)) for it in v.items],
                                          dtype=object)
        elif isinstance(ty, FinT) and _natural(v) is not None:
            a.indices[na.name] = _natural(v)
        else:
            raise Failure(f"witness: cannot use `({na.name} := …)` (give sizes and indices as "
                          "natural numerals, reals as numbers or fractions `1/3`, vectors as "
                          "![…] of those)")
    with sem.exact_budget(WITNESS_SECONDS):      # nested √ doubled the time per level
        try:
            full = sem.complete_assignment(g, genv, a, mode="exact")
        except sem.WitnessConflict as e:
            raise Failure(f"witness: the given values violate a hypothesis: {e}") from None
    if full is None:
        raise Failure("witness: the given values violate a hypothesis")
    for name, ty in g.binders:                       # the given values fit their types
        if isinstance(ty, FinT) and name in a.indices and \
                not a.indices[name] < arith.size_value(ty.size, full.sizes):
            raise Failure(f"witness: `{name}` := {a.indices[name]} is outside `{ty}`")
        if isinstance(ty, FinT) and arith.size_value(ty.size, full.sizes) == 0:
            raise Failure(f"witness: `{name}` has no value: `{ty}` is empty at these sizes")
        if isinstance(ty, VecT) and name in a.tensors and \
                len(a.tensors[name]) != arith.size_value(ty.size, full.sizes):
            raise Failure(f"witness: `{name}` has {len(a.tensors[name])} entries, but it is a "
                          f"`{ty}`")
    with sem.exact_budget(WITNESS_SECONDS):
        cx = sem.counterexample_at(g, genv, full, mode="exact", fixed=frozenset(a.indices))
        return cx.to_dict() if cx is not None else None


WITNESS_SECONDS = 30.0    # the work a given witness may take, in nominal seconds (then unknown)


def _unused_filled(g: GlobalDecl, assignment: dict[str, Any]) -> dict[str, Any]:
    """The evaluator's witness with a value (0) for each variable nothing mentions (not the
    statement, a hypothesis or another binder's type), which it leaves out: the kernel wants
    every variable given (the forty-third review saw a `KeyError` reach the reason)."""
    from . import arith
    used: set[str] = set(T.free_names(g.stmt)) if g.stmt is not None else set()
    for _, h in g.hyps:
        used |= T.free_names(h)
    for _, ty in g.binders:
        used |= T.free_names(ty_to_term(ty))
    out = {part: dict(assignment.get(part, {})) for part in
           ("sizes", "reals", "tensors", "families", "indices", "maps")}
    given = set().union(*(out[p] for p in out))
    for name, ty in g.binders:
        if name in used or name in given:
            continue
        try:
            if isinstance(ty, NatT):
                out["sizes"][name] = 0
            elif isinstance(ty, RealT):
                out["reals"][name] = 0
            elif isinstance(ty, VecT):
                out["tensors"][name] = [0] * arith.size_value(ty.size, out["sizes"])
            elif isinstance(ty, FinT) and arith.size_value(ty.size, out["sizes"]) > 0:
                out["indices"][name] = 0
            elif isinstance(ty, FunT) and isinstance(ty.dom, FinT) and isinstance(ty.cod, VecT):
                out["families"][name] = [[0] * arith.size_value(ty.cod.size, out["sizes"])
                                         for _ in range(arith.size_value(ty.dom.size,
                                                                         out["sizes"]))]
        except (KeyError, arith.NotASize):
            pass                           # (the kernel then says what is missing)
    return out


def _decide_ne(g: GlobalDecl, genv: GlobalEnv, options: Options,
               unshrunk: list[dict[str, Any]] | None = None) -> Verdict:
    from .check import Verdict

    step = _witness_step(g)
    if step is not None and step.assignments:
        try:
            cex = _given_witness(g, genv, step)
        except Failure as f:
            return Verdict(g.name, g.path, 0, "unknown", 0.0, reason=f.reason)
        except Exception as e:
            from .semantics import EvalError
            if not isinstance(e, EvalError):
                raise
            return Verdict(g.name, g.path, 0, "unknown", 0.0,
                           reason=f"witness: the statement cannot be evaluated here: {e}")
        if cex is None:
            return Verdict(g.name, g.path, 0, "unknown", 0.0,
                           reason="witness: the two sides are equal at the given values")
        return Verdict(g.name, g.path, 0, "proved", 0.0, rules=["exact_witness"],
                       oracles=["oracle:exact-evaluation"], counterexample=cex,
                       trace=[{"rule": "exact_witness", "at": "",
                               "detail": "the given assignment makes the two sides differ, "
                                         "evaluated in exact arithmetic"}])
    notes: list[str] = []                 # (a clock-stopped search is then not cached)
    cex = _search(g, genv, options, notes, unshrunk=unshrunk)
    if cex is not None:                   # (a clock-cut shrinking: said, and not cached)
        from .semantics import CLOCK_NOTE
        return Verdict(g.name, g.path, 0, "proved", 0.0, rules=["exact_witness"],
                       reason=CLOCK_NOTE if CLOCK_NOTE in notes else None,
                       oracles=["oracle:exact-evaluation"], counterexample=cex,
                       trace=[{"rule": "exact_witness", "at": "",
                               "detail": "the two sides differ at this assignment, "
                                         "evaluated in exact arithmetic"}])
    return Verdict(g.name, g.path, 0, "unknown", 0.0,
                   reason="; ".join(["no witness found within the search budget"] + notes))


__all__ = ["Attempt", "attempt", "decide", "theorem_env", "time"]
