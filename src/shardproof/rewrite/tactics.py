"""Lemma application: `by rw [l₁, h]` rewrites the statement with proved lemmas and hypotheses.

A cited theorem ``l : ∀ binders, hyps → lhs = rhs`` is a conditional rewrite rule.  `rw` finds
the first subterm that matches ``lhs`` (first-order matching on elaborated terms, where a family
pattern ``e`` matches any term in an argument slot), instantiates the rule, discharges each
instantiated hypothesis, and replaces every occurrence of that instance by ``rhs``.  A hypothesis
is discharged when, after β-reduction, its two sides are equal up to unfolding definitions
(`defeq`), or when a hypothesis of the goal says it.  The goal is closed by `defeq`, or by the
normaliser when the tactic list ends with `norm`.

Every step is recorded as ``{"rule": "rw", "lemma": …, "instance": …, "discharged": …}`` so
the kernel can replay it by matching and substitution alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import count
from typing import AbstractSet, Any, Callable

from .. import arith
from .. import terms as T
from ..kernel import BINDING, NODES, TRUE, at_path, kids, replace_at
from ..pretty import clip, pretty
from ..types import FinT, GlobalDecl, GlobalEnv, NatT, subst_term


class TacticError(Exception):
    """A tactic did not apply (reported as `unknown` with this reason)."""


@dataclass
class RwRule:
    name: str
    vars: set[str]                 # pattern variables
    lhs: T.Term
    rhs: T.Term
    hyps: list[tuple[str, T.Term]] = field(default_factory=list)
    size_vars: set[str] = field(default_factory=set)
    is_lemma: bool = True
    fin_vars: dict[str, T.Term] = field(default_factory=dict)  # pattern var -> its `Fin` size


# A proved proposition P that is not an equation rewrites to `TRUE` (`0 = 0`, the kernel's):
# P = True by propositional extensionality; a conjunct that became `0 = 0` closes by defeq.
def rule_of_theorem(g: GlobalDecl, reverse: bool = False) -> RwRule:
    stmt = g.stmt
    vars_ = {n for n, _ in g.binders}
    extra: set[str] = set()
    while isinstance(stmt, T.Forall):
        extra |= {b.name for b in stmt.binders}
        stmt = stmt.body
    if not (isinstance(stmt, T.Cmp) and stmt.op == "="):
        if reverse:
            raise TacticError(f"`{g.name}` is not an equation and cannot be used to rewrite "
                              "right to left")
        stmt = T.Cmp("=", stmt, TRUE)             # a proved proposition P is `P = True`
    lhs, rhs = (stmt.rhs, stmt.lhs) if reverse else (stmt.lhs, stmt.rhs)
    sizes = {n for n, ty in g.binders if isinstance(ty, NatT)}
    fins = {n: ty.size for n, ty in g.binders if isinstance(ty, FinT)}
    fins.update(_forall_fins(g.stmt))
    return RwRule(g.name, vars_ | extra, lhs, rhs, list(g.hyps), sizes, fin_vars=fins)


def _forall_fins(t: T.Term | None) -> dict[str, T.Term]:
    out: dict[str, T.Term] = {}
    while isinstance(t, T.Forall):
        for b in t.binders:
            if isinstance(b.ty, T.App) and b.ty.fn == T.Var("Fin"):
                out[b.name] = b.ty.args[0]
        t = t.body
    return out


def rule_of_hypothesis(name: str, h: T.Term, reverse: bool = False) -> RwRule:
    vars_: set[str] = set()
    body = h
    while isinstance(body, T.Forall):
        vars_ |= {b.name for b in body.binders}
        body = body.body
    if not (isinstance(body, T.Cmp) and body.op == "="):
        raise TacticError(f"the hypothesis `{name}` is not an equation")
    lhs, rhs = (body.rhs, body.lhs) if reverse else (body.lhs, body.rhs)
    return RwRule(name, vars_, lhs, rhs, [], set(), is_lemma=False, fin_vars=_forall_fins(h))


# --------------------------------------------------------------------------- β and δ

def _fresh_name(base: str, avoid: set[str]) -> str:
    """A new binder name: `i~1` is no identifier (`i_1` could be a global's name)."""
    k = 1
    while f"{base}~{k}" in avoid:
        k += 1
    return f"{base}~{k}"


def subst_capture_free(t: T.Term, m: dict[str, T.Term]) -> T.Term:
    """Substitution that renames binders which would capture a free name of the values."""
    if not m or m.keys().isdisjoint(T.free_names_seq(t)):
        return t
    if isinstance(t, (T.Lam, T.Sum, T.Forall)):
        free_vals: set[str] = set()
        for v in m.values():
            free_vals |= T.free_names(v)
        inner = dict(m)
        bs = []
        for b in t.binders:
            ty = subst_capture_free(b.ty, inner) if b.ty is not None else None
            name = b.name
            inner.pop(b.name, None)
            if name in free_vals:
                new = _fresh_name(name, free_vals | T.free_names(t) | T.free_names(t.body)
                                  | set(inner) | {c.name for c in t.binders})   # (later
                # binders' types are in scope, and a later binder's name would shadow it)
                inner[b.name] = T.Var(new)
                name = new
            bs.append(T.Binder(name, ty, b.implicit, span=b.span))
        return T.rebind(t, tuple(bs), subst_capture_free(t.body, inner))
    if isinstance(t, T.Var):
        return m.get(t.name, t)
    if isinstance(t, T.App):
        return T.App(subst_capture_free(t.fn, m), tuple(subst_capture_free(a, m) for a in t.args),
                     span=t.span)
    if isinstance(t, T.BinOp):
        return T.BinOp(t.op, subst_capture_free(t.lhs, m), subst_capture_free(t.rhs, m),
                       span=t.span)
    if isinstance(t, T.Neg):
        return T.Neg(subst_capture_free(t.arg, m), span=t.span)
    if isinstance(t, T.Ite):
        return T.Ite(subst_capture_free(t.cond, m), subst_capture_free(t.then, m),
                     subst_capture_free(t.els, m), span=t.span)
    if isinstance(t, T.Cmp):
        return T.Cmp(t.op, subst_capture_free(t.lhs, m), subst_capture_free(t.rhs, m),
                     span=t.span)
    if isinstance(t, T.And):
        return T.And(subst_capture_free(t.lhs, m), subst_capture_free(t.rhs, m), span=t.span)
    return subst_term(t, m)


def beta(t: T.Term) -> T.Term:
    """β-reduce `(fun x => b) a` everywhere (families and maps applied to arguments).  A part
    with nothing to reduce is returned itself, not rebuilt (a rebuilt term computes its hash
    and free names again)."""
    if isinstance(t, T.App):
        fn = beta(t.fn)
        args = tuple(beta(a) for a in t.args)
        same = fn is t.fn and all(x is y for x, y in zip(args, t.args))
        while isinstance(fn, T.Lam) and args and (fn.vec is False or len(fn.binders) == 1
                                                  or len(args) >= len(fn.binders)):
            if fn.vec is True and len(fn.binders) > 1:
                break  # a vector `fun` is read at one flat index: not a curried function
            k = min(len(fn.binders), len(args))
            m = {b.name: a for b, a in zip(fn.binders[:k], args[:k])}
            rest_binders = fn.binders[k:]
            body = subst_capture_free(fn.body, m) if not rest_binders else \
                subst_capture_free(T.Lam(rest_binders, fn.body, span=fn.span, vec=fn.vec), m)
            fn = beta(body)
            args = args[k:]
            same = False
        if isinstance(fn, T.App) and args:
            return T.App(fn.fn, fn.args + args, span=t.span)
        if not args:
            return fn
        return t if same else T.App(fn, args, span=t.span)
    if isinstance(t, (T.Lam, T.Sum, T.Forall)):
        body = beta(t.body)
        return t if body is t.body else T.rebind(t, t.binders, body)
    if isinstance(t, (T.BinOp, T.Neg, T.Ite, T.Cmp, T.And)):
        return t.map_children(beta)        # (binder-free: every child is β-reduced)
    return t


def unfold_head(t: T.Term, genv: GlobalEnv) -> T.Term | None:
    """One δ-step at the head: `f a…` with `def f` becomes its body (then β)."""
    head, args = (t.fn, t.args) if isinstance(t, T.App) else (t, ())
    if not isinstance(head, T.Var):
        return None
    g = genv.get(head.name)
    if g is None or g.kind != "def" or g.body is None:
        return None
    params = [p for p in g.params if p.kind != "hyp"]
    if len(args) < len(params):
        return None
    m = {p.name: a for p, a in zip(params, args)}
    body = subst_capture_free(g.body, m)
    rest = args[len(params):]
    return beta(T.App(body, tuple(rest))) if rest else body


def _is_size_term(t: T.Term) -> bool:
    if isinstance(t, (T.Var, T.Num)):
        return True
    return isinstance(t, T.BinOp) and t.op in ("+", "*") and _is_size_term(t.lhs) and \
        _is_size_term(t.rhs)


def defeq(a: T.Term, b: T.Term, genv: GlobalEnv, fuel: list[int]) -> bool:
    """Equality up to β, δ (unfolding definitions lazily) and polynomial equality of sizes."""
    fuel[0] -= 1
    if fuel[0] < 0:
        return False
    if a == b:
        return True
    if _is_size_term(a) and _is_size_term(b):
        try:
            return arith.sizes_equal(a, b)
        except arith.NotASize:
            return False
    a, b = _flat_app(a), _flat_app(b)    # `(f x) y` is `f x y`: the heads are then names
    ha = a.fn if isinstance(a, T.App) else a
    hb = b.fn if isinstance(b, T.App) else b
    if type(a) is type(b) and not isinstance(a, (T.App, T.Var)):
        ca, cb = _parts(a), _parts(b)
        if isinstance(a, (T.Lam, T.Sum, T.Forall)) and ca[0] == cb[0]:   # binders' types up
            ca, cb = ca[:1] + list(ca[1]) + ca[2:], cb[:1] + list(cb[1]) + cb[2:]   # to δ/sizes
        if ca is not None and cb is not None and len(ca) == len(cb) and \
                all(x == y if not isinstance(x, T.Term) else defeq(x, y, genv, fuel)
                    for x, y in zip(ca, cb)):
            return True
    if isinstance(a, T.App) and isinstance(b, T.App) and ha == hb and \
            len(a.args) == len(b.args):
        if all(defeq(x, y, genv, fuel) for x, y in zip(a.args, b.args)):
            return True
    ua, ub = unfold_head(a, genv), unfold_head(b, genv)
    if ua is not None and ub is not None:
        return defeq(ua, ub, genv, fuel)
    if ua is not None:
        return defeq(ua, b, genv, fuel)
    if ub is not None:
        return defeq(a, ub, genv, fuel)
    return False


def _parts(t: T.Term) -> list | None:
    if isinstance(t, (T.Lam, T.Sum, T.Forall)):
        return [tuple(b.name for b in t.binders), tuple(b.ty for b in t.binders), t.body]
    if isinstance(t, T.BinOp):
        return [t.op, t.lhs, t.rhs]
    if isinstance(t, T.Neg):
        return [t.arg]
    if isinstance(t, T.Ite):
        return [t.cond, t.then, t.els]
    if isinstance(t, T.Cmp):
        return [t.op, t.lhs, t.rhs]
    if isinstance(t, T.And):
        return [t.lhs, t.rhs]
    if isinstance(t, T.VecLit):              # entry by entry (the sixty-ninth review: a literal
        return [len(t.items), *t.items]      # in a lemma never matched, and `rw` blamed a hyp)
    return None


# --------------------------------------------------------------------------- matching

_FRESH = count()


def match(pat: T.Term, t: T.Term, vars_: set[str], sub: dict[str, T.Term], genv: GlobalEnv,
          size_vars: set[str]) -> bool:
    if isinstance(pat, T.Var) and pat.name in vars_:
        if pat.name in sub:
            return defeq(sub[pat.name], t, genv, [2000])
        sub[pat.name] = t
        return True
    if isinstance(pat, T.App) and isinstance(t, T.App):
        # A pattern variable in head position matches a prefix of the term's spine.
        if isinstance(pat.fn, T.Var) and pat.fn.name in vars_ and len(t.args) >= len(pat.args):
            k = len(t.args) - len(pat.args)
            head = t.fn if k == 0 else T.App(t.fn, t.args[:k])
            saved = dict(sub)
            if match(pat.fn, head, vars_, sub, genv, size_vars) and all(
                    match(p, a, vars_, sub, genv, size_vars)
                    for p, a in zip(pat.args, t.args[k:])):
                return True
            sub.clear()
            sub.update(saved)
            return False
        if len(pat.args) != len(t.args):
            return False
        saved = dict(sub)
        if match(pat.fn, t.fn, vars_, sub, genv, size_vars) and all(
                match(p, a, vars_, sub, genv, size_vars) for p, a in zip(pat.args, t.args)):
            return True
        sub.clear()
        sub.update(saved)
        return False
    if isinstance(pat, T.Var) and isinstance(t, T.Var):
        return pat.name == t.name
    if isinstance(pat, T.Num) and isinstance(t, T.Num):
        return pat.value == t.value
    if _is_size_term(pat) and _is_size_term(t) and not (T.free_names(pat) & vars_):
        try:
            return arith.sizes_equal(pat, t)
        except arith.NotASize:
            return False
    if type(pat) is not type(t):
        return False
    if isinstance(pat, (T.Lam, T.Sum, T.Forall)):
        if len(pat.binders) != len(t.binders):
            return False
        if isinstance(pat, T.Lam) and pat.vec is not None and t.vec is not None and \
                pat.vec != t.vec:
            return False
        # Binders paired in order under common fresh names (`@` is in no identifier), in the
        # types after them as in the bodies, as the kernel's `_congruent` does: a later type's
        # `n` bound by an earlier binder is not a free `n` of the same spelling (the
        # sixty-seventh review: `∀ (n : Nat) (i : Fin n), …` matched `∀ (p : Nat) (i : Fin
        # n), …` with a free `n`). A value bound here, in a type or the body, may not mention
        # them (it would escape its binder).
        saved0 = dict(sub)
        ren_p: dict[str, T.Term] = {}
        ren_t: dict[str, T.Term] = {}
        inner = set(vars_)
        for pb, tb in zip(pat.binders, t.binders):
            if (pb.ty is None) != (tb.ty is None) or pb.ty is not None and not match(
                    subst_capture_free(pb.ty, ren_p), subst_capture_free(tb.ty, ren_t), inner,
                    sub, genv, size_vars):
                sub.clear()
                sub.update(saved0)
                return False
            ren_p[pb.name] = ren_t[tb.name] = T.Var(f"{tb.name}@m{next(_FRESH)}")
            inner.discard(pb.name)
        fresh = {v.name for v in ren_t.values()}
        ok = match(subst_capture_free(pat.body, ren_p), subst_capture_free(t.body, ren_t), inner,
                   sub, genv, size_vars) and not any(
            fresh & T.free_names(v) for k, v in sub.items() if saved0.get(k) is not v)
        if not ok:
            sub.clear()
            sub.update(saved0)
        return ok
    pp, tp = _parts(pat), _parts(t)
    if pp is None or tp is None or len(pp) != len(tp):
        return False
    saved = dict(sub)
    for x, y in zip(pp, tp):
        if isinstance(x, T.Term):
            if not match(x, y, vars_, sub, genv, size_vars):
                sub.clear()
                sub.update(saved)
                return False
        elif x != y:
            return False
    return True


def _subterms(t: T.Term, bound: frozenset[str] = frozenset(),
              fins: dict[str, T.Term] | None = None, path: tuple[int, ...] = (),
              need: str | None = None):
    """Subterms in pre-order with the names bound above them, the `Fin` ranges of those and
    their position (child indices as :func:`shardproof.kernel.kids` counts them).

    With ``need``, a subterm in which that name is not free is skipped with everything below
    it: a pattern whose head is the global ``need`` matches only where ``need`` occurs free
    (matching compares heads by name), so the matches met, and their order, are the same."""
    if need is not None and need not in T.free_names_seq(t):
        return
    fins = fins if fins is not None else {}
    yield t, bound, fins, path
    if isinstance(t, T.VecLit):     # positions (the kernel's) do not go into a literal's
        return                      # entries: a match there rewrote nothing (the seventieth)
    if isinstance(t, (T.Lam, T.Sum, T.Forall)):
        new = {b.name for b in t.binders}
        inner = bound | new
        f2 = dict(fins)
        for b in t.binders:
            if isinstance(b.ty, T.App) and b.ty.fn == T.Var("Fin"):
                f2[b.name] = b.ty.args[0]
            else:
                f2.pop(b.name, None)
        # a range that mentions a name rebound here means the outer one: not known here
        f2 = {n: r for n, r in f2.items() if not T.free_names(r) & new}
        yield from _subterms(t.body, inner, f2, path + (0,), need)
        return
    k = 0
    for c in t.children():
        if isinstance(c, T.Binder):
            continue
        yield from _subterms(c, bound, fins, path + (k,), need)
        k += 1


def _indices_in_range(rule: RwRule, sub: dict[str, T.Term], fins: dict[str, T.Term],
                      goal: Goal, bound: frozenset[str] = frozenset(), final: bool = False
                      ) -> bool:
    """Every pattern variable of type `Fin S` must be instantiated below S (instantiated).
    A range with a variable of the rule still unbound is left for later (refused when
    ``final``): read now, its free name would be taken for the goal's name."""
    if not rule.fin_vars:
        return True
    from ..types import nonzero_names
    bounds = {**{n: r for n, r in goal.fin_bounds.items()       # (not where a binder rebinds
                 if n not in bound and not T.free_names(r) & bound}, **fins}  # its range's name)
    # sizes a hypothesis makes ≥ 1 (`0 < R`): with them `0` is in `Fin R` — not a name a
    # binder above rebinds (the sixty-fourth review: the goal's `0 < R` for a bound `R`)
    positive = frozenset(nonzero_names([gh for _, gh in goal.hyps] + goal.facts)
                         & (goal.sizes or set())) - bound
    for v, size in rule.fin_vars.items():
        if v not in sub:
            continue
        if T.free_names(size) & (rule.vars - set(sub)):
            if final:
                return False
            continue
        below = subst_capture_free(size, sub)
        try:
            if not arith.index_in_range(sub[v], below, bounds, (), positive):
                return False
        except arith.NotASize:
            return False
    return True


# --------------------------------------------------------------------------- rewriting

@dataclass
class Goal:
    stmt: T.Term
    hyps: list[tuple[str, T.Term]]
    genv: GlobalEnv
    fin_bounds: dict[str, T.Term] = field(default_factory=dict)  # the goal's index variables
    sizes: frozenset[str] | None = None          # the goal's Nat variables (None: not known)
    facts: list[T.Term] = field(default_factory=list)   # `0 < n` of its `Fin n` binders


def discharge(h: T.Term, goal: Goal, rule: RwRule, sub: dict[str, T.Term],
              prove_eq: Callable[[T.Term, T.Term, T.Term], bool] | None) -> tuple[str, str]:
    """Prove an instantiated hypothesis of a cited lemma; binds leftover pattern variables.

    Returns a description and the discharge's kind as the kernel replays it: ``hyp:NAME``,
    ``defeq``, ``sizes`` or ``nonzero``."""
    body = h
    binders: list[T.Binder] = []
    while isinstance(body, T.Forall):
        binders.extend(body.binders)
        body = body.body
    inst = subst_capture_free(h, {k: v for k, v in sub.items()})
    # 1. A goal hypothesis that matches (also binds leftover variables); see 4 for one that
    #    matches once the instance is put in and β-reduced.
    for hname, gh in goal.hyps:
        s2 = _says_directly(h, gh, sub, goal, rule)
        if s2 is not None:
            sub.update(s2)
            return f"by hypothesis {hname}", f"hyp:{hname}"
    # 2. An equation that holds by β/δ once its left side is evaluated (binds the right side's
    #    leftover variables by matching).
    if isinstance(body, T.Cmp) and body.op == "=":
        # the hypothesis's own ∀-names, renamed apart from the instance's free names (a bound
        # `r` once became the goal's `r` here, and `fun s => g r` "matched" `e r`)
        fresh = {b.name: T.Var(f"{b.name}@d{k}") for k, b in enumerate(binders)}
        eq = subst_capture_free(body, fresh)
        local = {v.name for v in fresh.values()}
        lhs_i = beta(subst_capture_free(eq.lhs, {k: v for k, v in sub.items()
                                                 if k not in local}))
        s2 = dict(sub)
        pvars = rule.vars - local
        if match(eq.rhs, lhs_i, pvars, s2, goal.genv, rule.size_vars) and not any(
                T.free_names(v) & local for k, v in s2.items() if k not in sub):
            # (a value with the hypothesis's own `∀`-name would escape its binder)
            sub.update({k: v for k, v in s2.items() if k not in local})
            return "by β/δ (definitional)", "defeq"
        rhs_i = beta(subst_capture_free(eq.rhs, {k: v for k, v in sub.items()
                                                 if k not in local}))
        if defeq(lhs_i, rhs_i, goal.genv, [5000]):
            return "by β/δ (definitional)", "defeq"
    # 3. Size facts: `0 < R` (an equation `a = b` between sizes is definitional: 2. above).
    if isinstance(body, T.Cmp) and not binders:
        li = subst_capture_free(body.lhs, sub)
        ri = subst_capture_free(body.rhs, sub)
        closed = not (T.free_names(li) | T.free_names(ri)) & (rule.vars - set(sub))
        for hname, gh in goal.hyps:     # (with a variable unbound, 1 would have matched it)
            if closed and gh == T.Cmp(body.op, li, ri):
                return f"by hypothesis {hname}", f"hyp:{hname}"
        from ..types import nonzero_names
        nz = nonzero_names([gh for _, gh in goal.hyps] + goal.facts)
        zero = T.Num(Fraction(0))
        target = None
        if body.op == "<" and li == zero:
            target = ri
        elif body.op == "≠" and ri == zero:
            target = li
        names = T.free_names(target) if target is not None else set()
        if goal.sizes is not None:
            nz &= goal.sizes                     # a real known nonzero may be negative
        if target is not None and names <= nz and _monomial(target):   # (`0 < 2`: a kit
            return "by nonzero sizes of the hypotheses", "nonzero"    # lemma cited at R := 2)
    # 4. As 1, with the instance put in and β-reduced (`x := fun q => xr q` makes `∀ r, x r =
    #    …` read `∀ r, xr r = …`, the goal's `hx`; the kernel β-reduces both too). In `reduced`
    #    the instance's values bring the goal's names, so the rule's variables still to bind
    #    are renamed apart first (`@l`: no source name has an `@`; the sixty-first review
    #    matched a leftover `k` with the goal's `k` the instance brought in). Last: what 2 and 3
    #    show, they show as before this step existed.
    reduced = _reduced(h, sub, rule)
    for hname, gh in goal.hyps if reduced is not None else ():
        s2 = _says_reduced(reduced, gh, sub, goal, rule)  # type: ignore[arg-type]
        if s2 is not None:
            sub.update(s2)
            return f"by hypothesis {hname}", f"hyp:{hname}"
    # 5. The normaliser, when allowed.
    if prove_eq is not None and isinstance(body, T.Cmp) and body.op == "=":
        if prove_eq(inst, body.lhs, body.rhs):
            return "by the normaliser", "norm"
    raise TacticError(f"cannot discharge the hypothesis `{pretty(inst)}` of `{rule.name}`")


def _says_directly(h: T.Term, gh: T.Term, sub: dict[str, T.Term], goal: Goal,
                   rule: RwRule) -> dict[str, T.Term] | None:
    """The instance (``sub`` extended) under which the goal's hypothesis ``gh`` says ``h`` by
    matching (``discharge``'s step 1); None when it does not."""
    s2 = dict(sub)
    return s2 if match(h, gh, rule.vars, s2, goal.genv, rule.size_vars) else None


def _reduced(h: T.Term, sub: dict[str, T.Term], rule: RwRule
             ) -> tuple[T.Term, dict[str, str]] | None:
    """``h`` with the instance put in and β-reduced, the rule's variables still to bind renamed
    apart (``discharge``'s step 4), and that renaming; None when the instance makes no β-redex
    (no `fun` among its values for ``h``'s names)."""
    if not any(isinstance(sub.get(v), T.Lam) for v in T.free_names(h)):
        return None
    apart = {v: f"{v}@l" for v in rule.vars - set(sub)}
    return beta(subst_capture_free(h, {**sub, **{v: T.Var(n) for v, n in apart.items()}})), apart


def _says_reduced(reduced: tuple[T.Term, dict[str, str]], gh: T.Term, sub: dict[str, T.Term],
                  goal: Goal, rule: RwRule) -> dict[str, T.Term] | None:
    """As :func:`_says_directly`, for ``h`` as :func:`_reduced` gives it (step 4)."""
    term, apart = reduced
    s2: dict[str, T.Term] = {}
    if not match(term, gh, set(apart.values()), s2, goal.genv,
                 {apart[v] for v in rule.size_vars if v in apart}):
        return None
    return {**sub, **{v: s2[n] for v, n in apart.items() if n in s2}}


def _monomial(t: T.Term) -> bool:
    """A product of names and POSITIVE numerals (`R * 0` is no nonzero size, whatever R is)."""
    if isinstance(t, T.Var) or (isinstance(t, T.Num) and t.value > 0):
        return True
    return isinstance(t, T.BinOp) and t.op == "*" and _monomial(t.lhs) and _monomial(t.rhs)


def replace_like(t: T.Term, path: list[int], new: T.Term) -> tuple[T.Term, list[list[int]]]:
    """Replace the subterm at ``path`` by ``new``, and every other occurrence of it whose free
    names (and those of ``new``) are bound the same way: free at both places, or bound by
    binders of the same type (a `Fin` range over outer names).  Elsewhere the occurrence means
    something else (an index of a different range, say) and is left alone.  Returns the new
    term and the positions replaced (the kernel re-checks each one where it is)."""
    old = at_path(t, path)[0]
    names = T.free_names(old) | T.free_names(new)

    def scope(u: T.Term, pos: tuple[int, ...], env: dict[str, Any], bound: frozenset[str]):
        if isinstance(u, BINDING):
            env = dict(env)
            for b in u.binders:
                if b.name in names:
                    # Bound by a binder whose type mentions bound names: never the same meaning.
                    dependent = b.ty is None or T.free_names(b.ty) & bound
                    env[b.name] = pos if dependent else b.ty
                bound = bound | {b.name}
        return env, bound

    env0: dict[str, Any] = {}
    bound0: frozenset[str] = frozenset()
    u = t
    for i, k in enumerate(path):
        env0, bound0 = scope(u, tuple(path[:i]), env0, bound0)
        u = kids(u)[k]
    # A name free in ``old`` and not bound at ``path`` is free in every subterm holding an
    # occurrence that means the same (same bindings): subterms without it are skipped.
    need = next((x for x in T.free_names_seq(old) if x not in bound0), None)
    paths: list[list[int]] = []
    h = hash(old)                       # terms remember their hash: a cheap first test
    stack: list[tuple[T.Term, tuple[int, ...], dict[str, Any], frozenset[str]]] = \
        [(t, (), {}, frozenset())]
    while stack:                        # pre-order, as the kernel's positions count
        u, pos, env, bound = stack.pop()
        if need is not None and need not in T.free_names_seq(u):
            continue
        if hash(u) == h and u == old and env == env0:
            paths.append(list(pos))
        elif isinstance(u, BINDING + NODES):
            env, bound = scope(u, pos, env, bound)
            ks = kids(u)
            stack.extend((ks[k], pos + (k,), env, bound) for k in range(len(ks) - 1, -1, -1))
    for p in paths:
        t = replace_at(t, p, new)
    return t, paths


def _matches(t: T.Term) -> str:
    return f"it matches `{clip(pretty(t), 80)}`"


HYP_TEXT = 300          # characters of a cited lemma's hypothesis quoted in a miss


def _hyp_miss(hname: str, h: T.Term, sub: dict[str, T.Term], goal: Goal, rule: RwRule) -> str:
    """Why a hypothesis of a cited lemma did not follow from the goal's: the instance, and what
    a goal hypothesis nearly saying it gets wrong (the sixty-eighth review).  Only the message:
    what is accepted is ``discharge``'s alone."""
    inst = beta(subst_capture_free(h, sub))
    names = _source_map(inst)     # (binders renamed apart read `r` or `r'`, never `r~1`, in the
    text = f"its hypothesis `{hname} : {clip(pretty(_source_names(inst)), HYP_TEXT)}` does " \
        "not follow from the goal's hypotheses"                      # quote and in the hint)

    def source(msg: str) -> str:
        for k in sorted(names, key=len, reverse=True):
            msg = msg.replace(k, names[k])
        return msg
    try:        # a hint is a courtesy: whatever goes wrong in finding one, the plain message
        hint = _hyp_hint(h, sub, goal, rule)       # stands (never an internal error instead)
        if hint:
            return f"{text}: {source(hint)}"
        body = inst.body if isinstance(inst, T.Forall) else inst
        if isinstance(body, T.Cmp) and body.op == "=" and not T.free_names(inst) & (
                rule.vars - set(sub)):      # (the sides alike, differing deep inside)
            a, b = _first_difference(body.lhs, body.rhs, _Same(goal.genv))
            if a is not body.lhs:
                return source(f"{text} (is one missing? its two sides first differ at "
                              f"`{clip(pretty(a), 120)}` against `{clip(pretty(b), 120)}`)")
    except (RecursionError, ValueError, TypeError, AttributeError, KeyError):
        pass
    return f"{text} (is one missing?)"


def _as_goal_hyp(h: T.Term, gh: T.Term, sub: dict[str, T.Term], goal: Goal,
                 rule: RwRule) -> dict[str, T.Term] | None:
    """The instance under which ``gh`` says ``h``, as ``discharge`` (its steps 1 and 4) reads a
    goal hypothesis; None when it does not."""
    s2 = _says_directly(h, gh, sub, goal, rule)
    reduced = _reduced(h, sub, rule) if s2 is None else None
    return _says_reduced(reduced, gh, sub, goal, rule) if reduced is not None else s2


def _pointwise(gh: T.Term, binders: tuple[T.Binder, ...]) -> T.Term | None:
    """`f = g` (no `∀`) read at the binders: `∀ r, f r = g r`, β-reduced."""
    if not binders or not (isinstance(gh, T.Cmp) and gh.op == "="):
        return None
    avoid = T.free_names(gh)
    bs = tuple(T.Binder(b.name if b.name not in avoid else _fresh_name(b.name, avoid), b.ty)
               for b in binders)
    args = tuple(T.Var(b.name) for b in bs)
    return T.Forall(bs, T.Cmp("=", beta(T.App(gh.lhs, args)), beta(T.App(gh.rhs, args))))


def _hyp_hint(h: T.Term, sub: dict[str, T.Term], goal: Goal, rule: RwRule) -> str | None:
    """A goal hypothesis that says ``h`` with its two sides swapped, or as an equality of
    functions where ``h`` is pointwise (`∀ r, x r = …`), or one of the same shape (one side the
    same) that differs inside the other: say so."""
    inst = subst_capture_free(h, sub)
    binders: tuple[T.Binder, ...] = inst.binders if isinstance(inst, T.Forall) else ()
    body = h.body if isinstance(h, T.Forall) else h
    if not (isinstance(body, T.Cmp) and body.op == "="):
        return None
    flipped = T.Cmp("=", body.rhs, body.lhs)
    swapped = T.rebind(h, h.binders, flipped) if isinstance(h, T.Forall) else flipped
    for gname, gh in goal.hyps:
        fun = _pointwise(gh, binders)
        for pat, cand in ((swapped, gh), (h, fun), (swapped, fun)):
            s2 = _as_goal_hyp(pat, cand, sub, goal, rule) if cand is not None else None
            if s2 is None:
                continue
            want = clip(pretty(_source_names(beta(subst_capture_free(h, s2)))), HYP_TEXT)
            if cand is gh:
                return f"the goal's `{gname}` states it with the sides swapped; write `{want}`"
            return (f"the goal's `{gname}` states it as an equality of functions"
                    + (", with the sides swapped" if pat is swapped else "")
                    + f"; state it pointwise: `{want}`")
    inst = beta(inst)
    blind = _blind_side(inst, goal)
    if blind:
        return blind
    open_ = rule.vars - set(sub)
    for gname, gh in goal.hyps:          # (a variable of the lemma still open matches anything)
        same = _Same(goal.genv, open_, rule.size_vars)
        d = _differs_in_one_side(inst, gh, same)
        if d is not None:               # (one still open after it is `?G`, as in Lean)
            need = subst_capture_free(d[0], {**{v: T.Var(f"?{v}") for v in open_},
                                             **same.sub})
            return (f"the goal's `{gname}` has `{clip(pretty(d[1]), 120)}` where it needs "
                    f"`{clip(pretty(need), 120)}`")
    return None


def _blind_side(inst: T.Term, goal: Goal) -> str | None:
    """`∀ r', lhs = rhs` where one side reads the goal's own index `r` and not `r'`, the other
    `r'`: a family that ignores its own index (every replica reading replica `r`) — say so.
    (The eighty-ninth review: such a bug was blamed on the goal's hypothesis of the same name,
    which was right.)"""
    if not (isinstance(inst, T.Forall) and isinstance(inst.body, T.Cmp)):
        return None
    own = {b.name for b in inst.binders}
    sides = {"left": inst.body.lhs, "right": inst.body.rhs}
    reads = {k: T.free_names(v) for k, v in sides.items()}
    for k, names in reads.items():
        other = reads["right" if k == "left" else "left"]
        outer = sorted(names & set(goal.fin_bounds) - own)
        if outer and not names & own and other & own:
            idx = "`, `".join(sorted(own & other))
            return (f"its {k} side does not depend on `{idx}` but on the goal's `{outer[0]}`: "
                    f"is a family `fun (q : Fin …) => …` reading `{outer[0]}` where it should "
                    "read its own index `q` (every replica reading one replica)?")
    return None


def _source_map(t: T.Term) -> dict[str, str]:
    """For a `∀`'s binders renamed apart (`r~1`), names one can write back: `r`, else `r'`."""
    if not isinstance(t, T.Forall) or not any("~" in b.name for b in t.binders):
        return {}
    taken = T.free_names(t) | {b.name for b in t.binders}
    out = {}
    for b in t.binders:
        if "~" in b.name:
            name = b.name.split("~")[0]
            while name in taken:
                name += "'"
            taken.add(name)
            out[b.name] = name
    return out


def _source_names(t: T.Term) -> T.Term:
    """A `∀`'s binders renamed apart (`r~1`) given names one can write back (`_source_map`)."""
    names = _source_map(t)
    if not names:
        return t
    m = {k: T.Var(v) for k, v in names.items()}
    bs = []
    for b in t.binders:
        bs.append(T.Binder(names.get(b.name, b.name),
                           subst_capture_free(b.ty, m) if b.ty is not None else None, b.implicit))
    return T.rebind(t, tuple(bs), subst_capture_free(t.body, m))


class _Same:
    """Equal up to the names of binders and the arithmetic of sizes (as `match` reads it), the
    ``open`` variables matching anything (the same thing each time: ``sub``)."""

    def __init__(self, genv: GlobalEnv, open_: AbstractSet[str] = frozenset(),
                 size_vars: AbstractSet[str] = frozenset()) -> None:
        self.genv, self.open, self.size_vars = genv, set(open_), set(size_vars) & set(open_)
        self.sub: dict[str, T.Term] = {}

    def __call__(self, a: T.Term, b: T.Term) -> bool:
        if a == b:
            return True
        trial = dict(self.sub)
        if match(a, b, self.open, trial, self.genv, self.size_vars):
            self.sub = trial
            return True
        return False


def _renamed_apart(a: T.Term, b: T.Term) -> tuple[list[tuple[T.Term, T.Term]], T.Term] | None:
    """`b`'s binders renamed to `a`'s (same count, no capture): the pairs of binder types, and
    `b`'s body.  None when they cannot be paired."""
    if type(a) is not type(b) or len(a.binders) != len(b.binders):
        return None
    m: dict[str, T.Term] = {}
    pairs = []
    free_b = T.free_names(b)
    for ab, bb in zip(a.binders, b.binders):
        if ab.name in free_b:
            return None
        if (ab.ty is None) != (bb.ty is None):
            return None
        if ab.ty is not None:
            pairs.append((ab.ty, subst_capture_free(bb.ty, m)))
        m[bb.name] = T.Var(ab.name)
    return pairs, subst_capture_free(b.body, m)


def _differs_in_one_side(need: T.Term, gh: T.Term, same: _Same
                         ) -> tuple[T.Term, T.Term] | None:
    """When ``gh`` is an equation of ``need``'s shape (the same `∀` binders, one side the
    same), the first subterms where the other sides differ: (needed, given)."""
    if isinstance(need, T.Forall):
        got = _renamed_apart(need, gh)
        if got is None or not all(same(x, y) for x, y in got[0]):
            return None
        need, gh = need.body, got[1]
    if not (isinstance(need, T.Cmp) and isinstance(gh, T.Cmp) and need.op == gh.op):
        return None
    if same(need.lhs, gh.lhs) and not same(need.rhs, gh.rhs):
        return _first_difference(need.rhs, gh.rhs, same)
    if same(need.rhs, gh.rhs) and not same(need.lhs, gh.lhs):
        return _first_difference(need.lhs, gh.lhs, same)
    return None


def _first_difference(a: T.Term, b: T.Term, same: _Same, binders: bool = True
                      ) -> tuple[T.Term, T.Term]:
    """Walk two different terms of the same shape down to the first place they differ (into an
    arithmetic operand only where both are alike: `R * (R * B)` against `R * B`, not `R * B`
    against `B`; into binder forms, `b`'s binders renamed to `a`'s, only with ``binders``)."""
    while True:
        ka = kb = None
        if isinstance(a, T.App) and isinstance(b, T.App) and len(a.args) == len(b.args):
            ka, kb = [a.fn, *a.args], [b.fn, *b.args]
        elif isinstance(a, (T.BinOp, T.Cmp)) and type(a) is type(b) and a.op == b.op:
            ka, kb = [a.lhs, a.rhs], [b.lhs, b.rhs]
        elif isinstance(a, (T.Neg, T.Ite, T.And, T.VecLit, T.Index)) and type(a) is type(b) \
                and len(a.children()) == len(b.children()):
            ka, kb = list(a.children()), list(b.children())
        elif binders and isinstance(a, (T.Lam, T.Sum, T.Forall)):
            got = _renamed_apart(a, b)
            if got is not None:
                ka = [x for x, _ in got[0]] + [a.body]
                kb = [y for _, y in got[0]] + [got[1]]
        pair = next(((x, y) for x, y in zip(ka or [], kb or []) if not same(x, y)), None)
        if pair is None or isinstance(a, (T.BinOp, T.Neg)) and type(pair[0]) is not type(pair[1]):
            return a, b
        a, b = pair


def _ILL_TYPED() -> str:
    return ""               # (a marker for `rewrite_once`'s misses: the instance is ill-typed)


def rewrite_once(goal: Goal, rule: RwRule, prove_eq=None,
                 typed: Callable[[dict, tuple], bool] | None = None,
                 misses: list[str] | None = None,
                 fits: Callable[[dict, tuple], bool] | None = None) -> dict[str, Any] | None:
    """Rewrite the first match of ``rule.lhs`` in the goal; None when nothing matches.
    ``typed(instance, position)`` says whether an instance has the rule's variables' types;
    ``misses`` collects why each subterm the left side matches was not rewritten, the first
    whose instance ``fits`` (is of the variables' kinds) first."""
    ill_typed: list[str] = []

    def miss(why: Callable[[], str]) -> None:      # (only the first is shown: made once)
        if misses is not None and not misses:
            if why is _ILL_TYPED or fits is not None and not fits(sub, path):   # (review 80:
                if not ill_typed:        # a head variable took `f a` of `f a b` for a family,
                    ill_typed.append(f"{_matches(sub_t)}, but the instance does not have the "
                                     "types of the lemma's variables")   # and the miss shown
                return                   # was that instance's; a well-typed one's says more)
            misses.append(why())
    head = rule.lhs.fn if isinstance(rule.lhs, T.App) else rule.lhs
    need = head.name if isinstance(head, T.Var) and head.name not in rule.vars else None
    # The rule's own names (globals, the theorem's variables) mean something else where a
    # binder of the same name is in force: no rewriting there.
    own = set().union(T.free_names(rule.lhs), T.free_names(rule.rhs),   # (its binders' ranges
                      *map(T.free_names, rule.fin_vars.values()),       # and hypotheses too)
                      *(T.free_names(h) for _, h in rule.hyps)) - rule.vars
    for sub_t, bound, fins, path in _subterms(goal.stmt, need=need):
        if own & bound or any(goal.genv.get(n) is not None for n in bound):
            continue        # (δ in matching would take a binder named like a global for it)
        sub: dict[str, T.Term] = {}
        if not match(rule.lhs, sub_t, rule.vars, sub, goal.genv, rule.size_vars):
            continue
        first = len(sub)
        if not _indices_in_range(rule, sub, fins, goal, bound):
            miss(lambda: f"{_matches(sub_t)}, but an index of the instance is not shown in range")
            continue
        try:
            notes, open_ = [], []
            for hname, h in rule.hyps:
                was_open = bool(T.free_names(h) & (rule.vars - set(sub)))
                how, kind = discharge(h, goal, rule, sub, prove_eq)
                notes.append({"hyp": hname, "how": how, "kind": kind})
                # (matched to a goal hypothesis, every variable of it was bound by the match)
                open_.append(was_open and not kind.startswith("hyp:"))
        except TacticError:
            miss(lambda: f"{_matches(sub_t)}, but {_hyp_miss(hname, h, sub, goal, rule)}")
            continue
        missing = [v for v in T.free_names(rule.rhs) & rule.vars if v not in sub]
        if missing:
            miss(lambda: f"{_matches(sub_t)}, but nothing gives "
                 f"`{'`, `'.join(sorted(missing))}` (a variable of the right side only: give "
                 "it in a hypothesis the goal has)")
            continue
        # A `Fin` variable of the rule that nothing bound (a `∀ (r : Fin R)` whose `r` is
        # unused) still needs a value: the rule holds vacuously when its range is empty.
        # `0` serves when it is shown in range; otherwise there is no instance.
        unbound = sorted(v for v in rule.fin_vars if v not in sub)
        sub.update({v: T.Num(Fraction(0)) for v in unbound})
        # A hypothesis discharged with some of its variables still free read them as the
        # goal's names where they coincide, before a later hypothesis (or the `0` above) gave
        # them their values (the sixty-third and sixty-fourth reviews: `0 < R * n` "held" by
        # the goal's `n`, then `n := m`; `x = D k a` by the goal's `a`, then `a := 0`): every
        # such one is discharged again at the final instance, as the kernel checks it, and
        # the ranges of what the discharges bound are checked too.
        try:
            for k, (hname, h) in enumerate(rule.hyps):
                if open_[k]:
                    if T.free_names(h) & (rule.vars - set(sub)):
                        raise TacticError(f"`{hname}` leaves a variable of the rule unbound")
                    how, kind = discharge(h, goal, rule, dict(sub), prove_eq)
                    notes[k] = {"hyp": hname, "how": how, "kind": kind}
        except TacticError:
            miss(lambda: f"{_matches(sub_t)}, but its hypothesis `{hname} : "
                 f"{clip(pretty(beta(subst_capture_free(h, sub))), HYP_TEXT)}` does not "
                 "follow at the instance its other hypotheses give")
            continue
        left = sorted(rule.vars - set(sub))      # (one only a type mentions: `n` of `Fin n`)
        if left:
            miss(lambda: f"{_matches(sub_t)}, but nothing gives `{'`, `'.join(left)}` (give "
                 "it in a hypothesis the goal has)")
            continue
        # (with nothing bound since the first check, and nothing left unbound, it saw it all)
        if len(sub) > first and not _indices_in_range(rule, sub, fins, goal, bound, final=True):
            miss(lambda: f"{_matches(sub_t)}, but an index of the instance is not shown in range")
            continue
        if typed is not None and not typed(sub, path):
            miss(_ILL_TYPED)
            continue
        for hname, h in rule.hyps:
            inst = subst_capture_free(h, sub)
            if T.free_names(inst) & bound:
                break
        else:
            new = subst_capture_free(rule.rhs, sub)
            stmt, paths = replace_like(goal.stmt, list(path), new)
            if not paths:               # (nothing replaced where positions reach: no rewrite)
                continue
            goal.stmt = stmt
            return {"rule": "rw", "lemma": rule.name, "at": pretty(sub_t)[:200],
                    "detail": f"{pretty(sub_t)[:160]}  ⟶  {pretty(new)[:160]}",
                    "instance": {k: pretty(v)[:200] for k, v in sorted(sub.items())},
                    "discharged": notes, "paths": paths,
                    "inst": dict(sorted(sub.items())), "how": [n["kind"] for n in notes]}
    if misses is not None and not misses:
        misses.extend(ill_typed)
    return None


def _global_binder(t: T.Term, genv: GlobalEnv) -> bool:
    """Some binder in ``t`` or around it is named like a global (a definition's body may bind
    a name declared as a global after it: `∀ (zr : ℝ), kr 5 = zr` before `def zr := 0`)."""
    todo = [t]
    while todo:
        u = todo.pop()
        if any(genv.get(b.name) is not None for b in getattr(u, "binders", ())):
            return True
        todo.extend(c for c in u.children() if not isinstance(c, T.Binder))
    return False


def _flat_app(t: T.Term) -> T.Term:
    """``(f a) b`` as ``f a b`` (β leaves such spines where a `fun` became an application;
    compared by head, ``f a`` against ``f a'`` would need ``a = a'`` as written)."""
    while isinstance(t, T.App) and isinstance(t.fn, T.App):
        t = T.App(t.fn.fn, t.fn.args + t.args, span=t.span)
    return t


def close_by_defeq(goal: Goal, fuel: int = 20000) -> bool:
    if _global_binder(goal.stmt, goal.genv):   # δ finds globals by name: it would unfold one
        return False
    stmt = goal.stmt
    parts = [stmt]
    out = True
    while parts:
        s = parts.pop()
        if isinstance(s, T.And):
            parts += [s.lhs, s.rhs]
            continue
        if isinstance(s, T.Forall):
            parts.append(s.body)
            continue
        if isinstance(s, T.Cmp) and s.op == "=":
            out = out and defeq(beta(s.lhs), beta(s.rhs), goal.genv, [fuel])
        else:
            return False
    return out


UNFOLD_NODES = 200_000      # nodes an `unfold` may build (the library's largest: 1,533)


def unfold_defs(t: T.Term, names: set[str], genv: GlobalEnv,
                fuel: list[int] | None = None) -> T.Term:
    """δ-unfold every application of the named definitions (then β); not where a global of
    the body would land under a binder of its name (`∀ (g : ℝ), D = g` with `def D := g`).
    Bounded: definitions that each use the previous one twice double the term at every level
    (22 levels took minutes), so past UNFOLD_NODES nodes it stops with a reason."""
    fuel = [UNFOLD_NODES] if fuel is None else fuel
    fuel[0] -= 1
    if fuel[0] < 0:
        raise TacticError(f"unfold: the statement grows past {UNFOLD_NODES:,} nodes; unfold "
                          "fewer definitions at once, or prove a lemma for each and cite it")
    if isinstance(t, T.App) or isinstance(t, T.Var):
        head = t.fn if isinstance(t, T.App) else t
        if isinstance(head, T.Var) and head.name in names:
            u = unfold_head(t, genv)
            if u is not None:
                return unfold_defs(beta(u), names, genv, fuel)
        if isinstance(t, T.App):
            return T.App(unfold_defs(t.fn, names, genv, fuel),
                         tuple(unfold_defs(a, names, genv, fuel) for a in t.args), span=t.span)
        return t
    if isinstance(t, (T.Lam, T.Sum, T.Forall)):   # a binder of the name is not the def, and
        new = {b.name for b in t.binders}         # one named like a def's global keeps it folded
        inner = {n for n in names - new if not _globals_of(genv.get(n)) & new}
        return T.rebind(t, t.binders, unfold_defs(t.body, inner, genv, fuel))
    if isinstance(t, (T.BinOp, T.Neg, T.Ite, T.Cmp, T.And)):
        return t.map_children(lambda u: unfold_defs(u, names, genv, fuel))
    return t


def _globals_of(g: GlobalDecl | None) -> set[str]:
    """The free names of a definition's body other than its parameters."""
    if g is None or g.body is None:
        return set()
    return T.free_names(g.body) - {p.name for p in g.params}
