"""The replay kernel: a small, boring re-check of every proof the engine reports.

The engine searches (where to rewrite, which instance, how to discharge, how to normalise); the
kernel only *checks*.  It receives a theorem's elaborated statement and hypotheses, the
definitions and lemma statements in scope, and the engine's trace, and replays each step:

* ``unfold [d…]`` — δ: every application of the named definitions is replaced by its body with
  the arguments substituted (capture-avoiding), then β.
* ``rw`` — the cited rule (a lemma already accepted by this kernel, or a hypothesis) is
  instantiated with the recorded instance; the subterm at the recorded position must be
  definitionally equal to the instantiated left side; every instantiated ``Fin`` variable must be
  in range (arithmetic gateway); every instantiated hypothesis must be discharged the way the
  trace says (a hypothesis of the goal, definitional equality — sizes by polynomial equality — or
  nonzero sizes); then every occurrence of that subterm whose free names mean the same thing is
  replaced by the instantiated right side.
* ``close`` — each equation of the goal holds by definitional equality (β, δ, α, polynomial
  equality of sizes), or, for ``norm`` proofs, by the ring comparison: both sides, after δβ,
  are read at a fresh index and compared as polynomials over the same atoms (the ring oracle).
* ``size_fact`` — ``a ≠ 0`` / ``0 < a`` for a monomial of sizes the hypotheses make nonzero.
* ``witness`` — an ``∃ vars, hyps ∧ a ≠ b`` theorem (or a closed ``a ≠ b``) at one exact
  assignment of its variables: the kernel's normal form with every name a number checks the
  hypotheses and that the two sides differ there (:func:`.nf.check_witness`); the engine's
  evaluator only proposes the assignment.  A theorem's own binders are universal: never.

Nothing here searches: every choice (position, instance, discharge, definitions to unfold) is
read from the trace, and every loop is bounded by the term or by explicit fuel.  It imports only
the standard library, :mod:`.terms` and the arithmetic gateway :mod:`.arith`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from itertools import count
from typing import Any

from .. import arith
from .. import terms as T

BINDING = (T.Lam, T.Sum, T.Forall)
NODES = (T.App, T.BinOp, T.Neg, T.Ite, T.Cmp, T.And)      # walked into by δ, β and replacement
_ZERO = T.Num(Fraction(0))
TRUE = T.Cmp("=", _ZERO, _ZERO)       # `True`: a proved proposition P rewrites to it


class Rejected(Exception):
    """A step the kernel does not accept; the message names the step and what failed."""


@dataclass(frozen=True)
class KDecl:
    """What the kernel knows of a global: a definition's parameters and body, or a theorem's
    binders (with the ``Fin`` ranges and sizes among them), hypotheses and statement."""

    name: str
    kind: str                                     # "def" | "theorem" | "opaque"
    params: tuple[str, ...] = ()
    body: T.Term | None = None                    # def body / theorem statement
    fins: tuple[tuple[str, T.Term], ...] = ()
    hyps: tuple[tuple[str, T.Term], ...] = ()
    ptypes: tuple[T.Term, ...] = ()               # the parameters' types (binders' for a theorem)
    ret: T.Term | None = None                     # the result type of a def (not a Prop) or op
    linear_in: str | None = None


@dataclass
class Goal:
    """The theorem being replayed: statement, hypotheses, its ``Fin`` variables' ranges."""

    stmt: T.Term
    hyps: dict[str, T.Term]
    fins: dict[str, T.Term]
    decls: Any                                    # name -> KDecl | None, by ``.get``
    accepted: frozenset[str]                      # theorems this kernel has accepted
    types: dict[str, T.Term] = field(default_factory=dict)   # the theorem's binders' types
    existential: bool = False          # `∃ binders, hyps ∧ stmt` (else `∀ binders, hyps → stmt`)


def _holds(test, *args: Any) -> bool:
    """An arithmetic question to the gateway; a term that is not a size makes it false."""
    try:
        return test(*args)
    except arith.NotASize:
        return False


# --------------------------------------------------------------------------- terms

def _map(t: T.Term, f) -> T.Term:
    """``t`` with ``f`` applied to the children a position walks into (see :func:`kids`) of a
    binder form or an application, operator, ``if`` or comparison; other terms are kept."""
    if isinstance(t, BINDING):
        return T.rebind(t, t.binders, f(t.body))
    return t.map_children(f) if isinstance(t, NODES) else t


def _fields(t: T.Term) -> list[Any]:
    """The fields of ``t`` but its span, tuples spread out."""
    out: list[Any] = []
    for fl in fields(t):
        v = getattr(t, fl.name)
        if fl.name != "span":
            out.extend(v if isinstance(v, tuple) else (v,))
    return out


def _fresh(base: str, avoid: set[str]) -> str:
    """A new binder name: `i~1` is no identifier (`i_1` was a global's name, and δ took the
    renamed binder for it)."""
    return next(f"{base}~{k}" for k in count(1) if f"{base}~{k}" not in avoid)


def subst(t: T.Term, m: dict[str, T.Term]) -> T.Term:
    """Capture-avoiding substitution of free names (a binder that would capture is renamed)."""
    if not m or m.keys().isdisjoint(T.free_names_seq(t)):
        return t
    if isinstance(t, T.Var):
        return m.get(t.name, t)
    if not isinstance(t, BINDING):
        return t.map_children(lambda c: subst(c, m))
    free_vals = set().union(*map(T.free_names, m.values()))
    inner = dict(m)
    bs = []
    for b in t.binders:
        ty = subst(b.ty, inner) if b.ty is not None else None
        name = b.name
        inner.pop(b.name, None)
        if name in free_vals:
            name = _fresh(name, free_vals | T.free_names(t) | T.free_names(t.body) | set(inner)
                          | {c.name for c in t.binders})     # (and not a later binder's name)
            inner[b.name] = T.Var(name)
        bs.append(T.Binder(name, ty, b.implicit, span=b.span))
    return T.rebind(t, tuple(bs), subst(t.body, inner))


def beta(t: T.Term) -> T.Term:
    """β-reduce everywhere.  A vector ``fun`` with several binders is read at ONE flat index,
    so it is not curried: ``(fun (i : Fin a) (j : Fin b) => e) p`` stays as it is."""
    if not isinstance(t, T.App):
        return _map(t, beta)
    fn = beta(t.fn)
    args = tuple(beta(a) for a in t.args)
    while isinstance(fn, T.Lam) and args and not (fn.vec is True and len(fn.binders) > 1):
        if fn.vec is not False and len(fn.binders) > 1 and len(args) < len(fn.binders):
            break
        k = min(len(fn.binders), len(args))
        body = T.rebind(fn, fn.binders[k:], fn.body) if fn.binders[k:] else fn.body
        fn = beta(subst(body, {b.name: a for b, a in zip(fn.binders, args)}))
        args = args[k:]
    if isinstance(fn, T.App) and args:
        return T.App(fn.fn, fn.args + args, span=t.span)
    return T.App(fn, args, span=t.span) if args else fn


def unfold_head(t: T.Term, decls: dict[str, KDecl], bound: Any = frozenset()) -> T.Term | None:
    """δ at the head: ``d a₁ … aₙ`` for ``def d p₁ … pₙ := body`` is ``body[p := a]``; not
    where a global of the body is hidden by the theorem's name or by a binder above (``bound``):
    the body would land under it and mean that instead (capture)."""
    head, args = (t.fn, t.args) if isinstance(t, T.App) else (t, ())
    d = decls.get(head.name) if isinstance(head, T.Var) else None
    if d is None or d.kind != "def" or d.body is None or len(args) < len(d.params) or \
            (T.free_names(d.body) - set(d.params)) & (getattr(decls, "hidden", set()) | bound):
        return None
    body = subst(d.body, dict(zip(d.params, args)))
    rest = args[len(d.params):]
    return beta(T.App(body, tuple(rest))) if rest else body


def unfold_all(t: T.Term, names: set[str], decls: dict[str, KDecl], bound: frozenset[str],
               fuel: list[int]) -> T.Term:
    """δ for every application of the named definitions (outermost first), then β; at most
    ``fuel`` nodes built (nested definitions can double the term at every level)."""
    fuel[0] -= 1
    if fuel[0] < 0:
        raise Rejected("the unfolding grows past its bound of nodes")
    head = t.fn if isinstance(t, T.App) else t
    if isinstance(head, T.Var) and head.name in names:
        u = unfold_head(t, decls, bound)
        if u is not None:
            return unfold_all(beta(u), names, decls, bound, fuel)
    if isinstance(t, BINDING):                    # a binder of that name is not the definition
        names = names - {b.name for b in t.binders}
        bound = bound | {b.name for b in t.binders}
    return _map(t, lambda c: unfold_all(c, names, decls, bound, fuel))


def _is_size(t: T.Term) -> bool:
    if isinstance(t, (T.Var, T.Num)):
        return True
    return isinstance(t, T.BinOp) and t.op in ("+", "*") and _is_size(t.lhs) and _is_size(t.rhs)


def defeq(a: T.Term, b: T.Term, decls: dict[str, KDecl], fuel: list[int]) -> bool:
    """Definitional equality: α, polynomial equality of size terms, congruence, lazy δ."""
    fuel[0] -= 1
    if fuel[0] < 0:
        return False
    if a == b:
        return True
    if _is_size(a) and _is_size(b):
        return _holds(arith.sizes_equal, a, b)
    if type(a) is type(b) and _congruent(a, b, decls, fuel):
        return True
    ua, ub = unfold_head(a, decls), unfold_head(b, decls)
    if ua is None and ub is None:
        return False
    fuel[0] -= 500              # an unfolding costs more than a comparison: ≤ fuel/500 of them
    return defeq(beta(ua) if ua is not None else a, beta(ub) if ub is not None else b,
                 decls, fuel)


def _congruent(a: T.Term, b: T.Term, decls: dict[str, KDecl], fuel: list[int]) -> bool:
    """Two terms of one constructor with equal other fields and definitionally equal children.
    Binders are paired in order, ``b``'s renamed to ``a``'s in the types after them and in the
    body: ``a``'s names must be distinct and not free in ``b`` (the renaming would capture)."""
    if not isinstance(a, BINDING):
        fa, fb = _fields(a), _fields(b)
        return len(fa) == len(fb) and all(defeq(x, y, decls, fuel) if isinstance(x, T.Term)
                                          else x == y for x, y in zip(fa, fb))
    names = {x.name for x in a.binders}
    if len(names) != len(a.binders) or len(a.binders) != len(b.binders) or \
            names & T.free_names(b) or any(decls.get(x.name) for x in a.binders + b.binders):
        return False                              # (lazy δ would take such a binder for a global)
    ren: dict[str, T.Term] = {}
    for x, y in zip(a.binders, b.binders):
        if (x.ty is None) != (y.ty is None) or \
                (x.ty is not None and not defeq(x.ty, subst(y.ty, ren), decls, fuel)):
            return False
        ren[y.name] = T.Var(x.name)
    return defeq(a.body, subst(b.body, ren), decls, fuel)


# --------------------------------------------------------------------------- positions

def kids(t: T.Term) -> list[T.Term]:
    """The children a position walks into: a binder form's body; else the non-binder terms."""
    if isinstance(t, BINDING):
        return [t.body]
    return [c for c in t.children() if not isinstance(c, T.Binder)]


def at_path(t: T.Term, path: list[int]) -> tuple[T.Term, dict[str, T.Term | None]]:
    """The subterm at ``path`` and the names bound above it with their types."""
    bound: dict[str, T.Term | None] = {}
    for k in path:
        if isinstance(t, BINDING):    # a type that mentions a name rebound here is stale: None
            new = {b.name for b in t.binders}
            bound = {n: None if ty is None or T.free_names(ty) & new else ty
                     for n, ty in {**bound, **{b.name: b.ty for b in t.binders}}.items()}
        ks = kids(t)
        if not 0 <= k < len(ks):
            raise Rejected(f"position {path} is not in the goal")
        t = ks[k]
    return t, bound


def replace_at(t: T.Term, path: list[int], new: T.Term) -> T.Term:
    """``t`` with the subterm at ``path`` replaced by ``new``."""
    if not path:
        return new
    if not isinstance(t, BINDING + NODES):
        raise Rejected(f"cannot rewrite inside a `{type(t).__name__}`")
    k = count()
    return _map(t, lambda c: replace_at(c, path[1:], new) if next(k) == path[0] else c)


# --------------------------------------------------------------------------- instance types

NAT, REAL = T.Var("Nat"), T.Var("ℝ")


def type_of(t: T.Term, goal: Goal, local: dict[str, Any]) -> T.Term | None:
    """The type of an instance term, every part of it checked (None: ill-typed, or beyond this
    small inference: the kernel refuses the instance).  ``local``: binders above, with types.
    (Not remembered: a vector `fun` and a map `fun` are equal terms, `Lam.vec` is outside
    equality, and a memo keyed by the term gave the map the vector's type.)"""
    if isinstance(t, T.Num):
        return NAT if t.value.denominator == 1 and t.value >= 0 else REAL
    if isinstance(t, T.Var):
        ty = local.get(t.name, goal.types.get(t.name))
        return ty if ty is not None else _applied(goal.decls.get(t.name), (), goal, local)
    if isinstance(t, T.App):
        if isinstance(t.fn, T.Var) and t.fn.name not in local and t.fn.name not in goal.types:
            return _applied(goal.decls.get(t.fn.name), t.args, goal, local)
        ty = type_of(t.fn, goal, local)
        for a in t.args:
            ty = _apply(ty, a, goal, local)
        return ty
    if isinstance(t, (T.Lam, T.Sum)):
        inner = {**local, **{b.name: b.ty for b in t.binders}}
        body = type_of(t.body, goal, inner)
        sizes = [_fin_size(b.ty) for b in t.binders]
        if any(T.free_names(z) & set(inner) for z in sizes if z is not None):
            return None                  # a range that depends on a bound index
        if getattr(t, "vec", None) is False and None not in sizes and _scalar(body):
            return None                  # the type checker makes this a vector: never a map
        if isinstance(t, T.Sum) or t.vec is not False:
            if None in sizes or not _scalar(body):
                return None
            return REAL if isinstance(t, T.Sum) else T.App(T.Var("Vec"), (_product(sizes),))
        for b in reversed(t.binders):
            body = T.Arrow(b.ty, body) if body is not None and b.ty is not None else None
        return body
    if isinstance(t, T.Neg):
        ty = type_of(t.arg, goal, local)
        return REAL if _scalar(ty) else ty if _is_vec(ty) else None
    if isinstance(t, T.BinOp):
        a, b = type_of(t.lhs, goal, local), type_of(t.rhs, goal, local)
        if _scalar(a) and _scalar(b):
            nat = _scalar(a) == _scalar(b) == "nat" and t.op in ("+", "*")
            return NAT if nat else REAL    # index arithmetic; `^` is real, as the type checker has it
        if t.op == "•" and _scalar(a) and _is_vec(b):
            return b
        return a if t.op in ("+", "-") and _is_vec(a) and same_type(a, b, False) else None
    if isinstance(t, T.Ite):
        a, b = type_of(t.then, goal, local), type_of(t.els, goal, local)
        if _scalar(a) and _scalar(b):
            return REAL                             # as the type checker has it
        return a if a is not None and same_type(a, b, False) else None
    return None


def _scalar(ty: Any) -> str | None:
    """"nat" for a natural number or an index, "real" for a real, else None."""
    return "nat" if ty == NAT or _fin_size(ty) else "real" if ty == REAL else None


def _apply(ty: Any, arg: T.Term, goal: Goal, local: dict) -> T.Term | None:
    """The type of a value of type ``ty`` applied to ``arg``, the argument checked: an index in
    the range of the domain (a vector's too), anything else of the domain's type."""
    dom = ty.dom if isinstance(ty, T.Arrow) else T.App(T.Var("Fin"), ty.args) if _is_vec(ty) \
        else None
    if dom is None:
        return None
    if _fin_size(dom) is not None:                # (a name bound here is not the goal's)
        fins = {n: b for n, b in goal.fins.items() if n not in local} | \
            {n: _fin_size(b) for n, b in local.items() if _fin_size(b)}
        ok = _scalar(type_of(arg, goal, local)) == "nat" and \
            _holds(arith.index_in_range, arg, _fin_size(dom), fins)
    else:
        ok = same_type(type_of(arg, goal, local), dom)
    return (ty.cod if isinstance(ty, T.Arrow) else REAL) if ok else None


def _applied(d: Any, args: tuple[T.Term, ...], goal: Goal, local: dict) -> T.Term | None:
    """The type of the global ``d`` applied to ``args``, each argument checked against its
    parameter's type (a map type while some are missing)."""
    if d is None or d.kind not in ("def", "opaque") or d.ret is None or \
            len(d.ptypes) != len(d.params):
        return None
    m: dict[str, T.Term] = {}
    for p, pty, a in zip(d.params, d.ptypes, args):
        if _apply(T.Arrow(subst(pty, m), NAT), a, goal, local) is None:
            return None
        if a != T.Var(p):                         # (p := p changes nothing)
            m[p] = a
    rest = d.params[len(args):]
    for _, h in d.hyps:           # its obligations (`castIdx` needs a = b), every name given
        h, missing = subst(h, m), set(rest) & T.free_names(h)
        if missing or not (h.op == "=" and _holds(arith.sizes_equal, h.lhs, h.rhs) or
                           size_fact(h, goal, set(local))):
            return None
    ty = subst(d.ret, m)
    for pty in reversed(d.ptypes[len(args):]):
        if set(rest) & T.free_names(pty) or set(rest) & T.free_names(d.ret):
            return None                              # a later type depends on a missing one
        ty = T.Arrow(subst(pty, m), ty)
    for a in args[len(d.params):]:
        ty = _apply(ty, a, goal, local)
    return ty


def between_sizes(c: T.Cmp, goal: Goal) -> bool:
    """Are both sides of ``c`` sizes or indices?  (A `≠` between reals says the sides differ
    for SOME values — a witness shows it —; between sizes, for all of them.)"""
    return all(_scalar(type_of(x, goal, {})) == "nat" for x in (c.lhs, c.rhs))


def _is_vec(ty: Any) -> bool:
    return isinstance(ty, T.App) and ty.fn == T.Var("Vec")


def _fin_size(ty: Any) -> T.Term | None:
    return ty.args[0] if isinstance(ty, T.App) and ty.fn == T.Var("Fin") else None


def _product(sizes: list[T.Term]) -> T.Term:
    out = sizes[0]
    for x in sizes[1:]:
        out = T.BinOp("*", out, x)
    return out


def same_type(a: Any, b: Any, top: bool = True) -> bool:
    """Types equal up to polynomial equality of sizes; at the top, a natural number or an index
    where a real, a size or an index is expected (an index's range is checked on its own)."""
    if isinstance(a, T.Arrow) and isinstance(b, T.Arrow):
        return same_type(a.dom, b.dom, False) and same_type(a.cod, b.cod, False)
    if top and (a == NAT or _fin_size(a)) and (b in (NAT, REAL) or _fin_size(b)):
        return True
    if isinstance(a, T.App) and isinstance(b, T.App):
        return a.fn == b.fn and _holds(arith.sizes_equal, a.args[0], b.args[0])
    return a == b


def _binder_named(t: T.Term, goal: Goal, names: set[str] = frozenset()) -> str | None:
    """A binder in ``t`` named like a global (δ finds globals by name, so it would be unfolded
    as one: a definition's body may bind a name declared as a global after it) or in ``names``."""
    todo = [t]
    while todo:
        u = todo.pop()
        todo.extend(kids(u))
        for b in getattr(u, "binders", ()):
            if b.name in names or goal.decls.get(b.name) is not None:
                return b.name
    return None


def no_global_binder(t: T.Term, goal: Goal) -> None:
    name = _binder_named(t, goal)
    if name is not None:
        raise Rejected(f"a binder is named like the global `{name}`, which δ would take it for")


def check_instance(goal: Goal, name: str, declared: dict, inst: dict, btypes: dict) -> None:
    """Each instance has its variable's declared type (``btypes``: binders above the place),
    and binds no name that means something else here (δ finds globals by name)."""
    for v, val in inst.items():
        if _binder_named(val, goal, set(goal.types) | set(btypes)):
            raise Rejected(f"the instance of `{v}` of `{name}` rebinds a name in use")
        want, got = declared.get(v), type_of(val, goal, btypes)
        want = subst(want, inst) if want is not None else None
        if not (want is not None and same_type(got, want)):
            raise Rejected(f"the instance of `{v}` of `{name}` does not have its type")


# --------------------------------------------------------------------------- rewriting

def _strip_forall(t: T.Term) -> tuple[T.Term, list[T.Binder]]:
    bs: list[T.Binder] = []
    while isinstance(t, T.Forall):
        bs.extend(t.binders)
        t = t.body
    return t, bs


def _monomial(t: T.Term) -> bool:
    if isinstance(t, T.Var) or (isinstance(t, T.Num) and t.value > 0):
        return True
    return isinstance(t, T.BinOp) and t.op == "*" and _monomial(t.lhs) and _monomial(t.rhs)


def _nonzero_monomial(h: T.Term, hyp: bool = False) -> T.Term | None:
    """``m`` when ``h`` is ``0 < m`` or ``m ≠ 0`` with ``m`` a monomial of sizes; a hypothesis
    (``hyp``) ``c < m`` or ``c ≤ m`` with a number ``c > 0`` makes ``m`` nonzero too."""
    m = None
    if isinstance(h, T.Cmp) and (h.op == "<" and h.lhs == _ZERO or hyp and h.op in ("<", "≤")
                                 and isinstance(h.lhs, T.Num) and h.lhs.value > 0):
        m = h.rhs
    if isinstance(h, T.Cmp) and h.op == "≠" and h.rhs == _ZERO:
        m = h.lhs
    return m if m is not None and _monomial(m) else None


def nonzero_names(hyps: list[T.Term]) -> set[str]:
    """Size names known nonzero from hypotheses ``0 < m`` or ``m ≠ 0`` with ``m`` a monomial."""
    out: set[str] = set()
    for h in hyps:
        m = _nonzero_monomial(h, hyp=True)
        if m is not None:
            out |= T.free_names(m)
    return out


def facts(goal: Goal) -> list[T.Term]:
    """The hypotheses, and `0 < n` for each `Fin n` binder of a `∀` theorem (none is below 0:
    where `n = 0` the theorem holds vacuously) — of the statement's own outermost `∀`s too, over
    sizes they do not bind (Lean's `intro`: the statement is decided where its indices exist)."""
    bs = [] if goal.existential else _strip_forall(goal.stmt)[1]
    own = [b.ty.args[0] for b in bs if _fin_size(b.ty) is not None and
           not T.free_names(b.ty) & {x.name for x in bs}]
    return list(goal.hyps.values()) + [T.Cmp("<", _ZERO, n) for n in own + list(
        goal.fins.values()) if not goal.existential]


def positive_sizes(goal: Goal) -> frozenset[str]:
    """The goal's sizes a hypothesis makes nonzero, so ≥ 1 (Nat: a real known nonzero may be
    negative)."""
    nats = {n for n, ty in goal.types.items() if ty == NAT}
    return frozenset(nonzero_names(facts(goal)) & nats)


def size_fact(fact: T.Term, goal: Goal, bound: set[str] = frozenset()) -> bool:
    """``0 < m`` or ``m ≠ 0`` for a monomial ``m`` of the goal's sizes, each known nonzero
    (``bound``: names bound where the fact is asked, which are not the goal's)."""
    m = _nonzero_monomial(fact)
    return m is not None and T.free_names(m) <= positive_sizes(goal) - bound


def discharge(h: T.Term, how: str, goal: Goal) -> None:
    """Check one instantiated hypothesis of a cited rule the way the trace says it holds."""
    body, binders = _strip_forall(h)
    eq = isinstance(body, T.Cmp) and body.op == "="
    if how.startswith("hyp:"):
        gh = goal.hyps.get(how[4:])
        ok = gh is not None and defeq(beta(h), beta(gh), goal.decls, [20000])
        why = f"hypothesis `{how[4:]}` is not the instance required"
    elif how == "defeq" and eq:
        ok = not any(goal.decls.get(b.name) for b in binders) and defeq(beta(body.lhs), beta(body.rhs), goal.decls, [20000])
        why = "the two sides are not definitionally equal"
    else:
        ok = how == "nonzero" and not binders and size_fact(body, goal)
        why = f"discharge `{how}` does not establish it"
    if not ok:
        raise Rejected(why)


def rewrite(goal: Goal, step: dict[str, Any]) -> T.Term:
    """Replay one ``rw`` step; returns the new statement."""
    name = step["lemma"]
    if name in goal.hyps:
        stmt, params, fins, rhyps = goal.hyps[name], (), {}, ()
    else:
        d = goal.decls.get(name)
        if d is None or d.kind != "theorem" or d.body is None:
            raise Rejected(f"`{name}` is neither a hypothesis nor a theorem in scope")
        if name not in goal.accepted:
            raise Rejected(f"`{name}` has not been accepted by the kernel")
        stmt, params, fins, rhyps = d.body, d.params, dict(d.fins), d.hyps
    eq, bs = _strip_forall(stmt)
    vars_ = set(params) | {b.name for b in bs}
    fins |= {b.name: _fin_size(b.ty) for b in bs if _fin_size(b.ty) is not None}
    declared = dict(zip(params, d.ptypes)) if params else {}
    declared |= {b.name: b.ty for b in bs}
    if not (isinstance(eq, T.Cmp) and eq.op == "="):
        eq = T.Cmp("=", eq, TRUE)                 # a proved proposition P is P = True
    inst: dict[str, T.Term] = step["inst"]
    if not set(inst) <= vars_:
        raise Rejected(f"the instance binds names that are not variables of `{name}`")
    missing = vars_ - set(inst)                   # every variable: each instance is typed
    if missing:
        raise Rejected(f"the instance leaves {sorted(missing)} unbound")
    lhs, rhs = subst(eq.lhs, inst), subst(eq.rhs, inst)
    hs = [(hname, subst(h, inst)) for hname, h in rhyps]
    rule_names = set().union(T.free_names(stmt), *(T.free_names(h) for _, h in rhyps)) - vars_
    # (the rule's own names: of its sides, its binders' types and its hypotheses)
    stmt = goal.stmt
    if not step["paths"]:
        raise Rejected("no position to rewrite at")
    for path in step["paths"]:                    # each occurrence is checked where it is
        sub, btypes = at_path(stmt, path)
        bound, pfins = set(btypes), {n: _fin_size(ty) for n, ty in btypes.items() if _fin_size(ty)}
        check_instance(goal, name, declared, inst, btypes)
        if rule_names & bound:                    # there they would mean the bound variable
            raise Rejected(f"`{min(rule_names & bound)}` of `{name}` is bound at {path}")
        if any(goal.decls.get(n) is not None for n in bound):     # δ would take it for that
            raise Rejected(f"a name bound at {path} is also a global's")
        stale = {n for n, ty in goal.types.items() if T.free_names(ty) & bound}
        if any(T.free_names(v) & stale for v in inst.values()):   # its type's names rebound
            raise Rejected(f"an instance's type mentions a name bound at {path}")
        if name not in goal.hyps and rule_names & (set(goal.types) | set(goal.hyps)):
            raise Rejected(f"`{name}` uses a global that a name of the theorem hides")   # δ
        scope = set(goal.types) | bound | set(goal.hyps) | {"Fin", "Vec", "Nat", "ℝ"}
        for v in inst.values():
            for n in T.free_names(v) - scope:
                if goal.decls.get(n) is None:
                    raise Rejected(f"the instance mentions `{n}`, which is not in scope")
        if not defeq(lhs, sub, goal.decls, [20000]):
            raise Rejected(f"the subterm at {path} is not an instance of `{name}`'s left side")
        for v, size in fins.items():
            fins_here = {n: b for n, b in goal.fins.items()
                         if n not in bound and not T.free_names(b) & bound} | pfins
            if v in inst and not _holds(arith.index_in_range, inst[v], subst(size, inst),
                                        fins_here, (), positive_sizes(goal) - bound):
                raise Rejected(f"the index `{v}` of `{name}` is not shown in range")
        for hname, hi in hs:
            if T.free_names(hi) & bound:
                raise Rejected(f"hypothesis `{hname}` would mention a bound variable")
        stmt = replace_at(stmt, path, rhs)
    hows = step["how"]
    if len(hows) != len(rhyps):
        raise Rejected(f"{len(rhyps)} hypotheses of `{name}` but {len(hows)} discharges")
    for (hname, hi), how in zip(hs, hows):
        try:
            discharge(hi, how, goal)
        except Rejected as e:
            raise Rejected(f"hypothesis `{hname}` of `{name}`: {e}") from None
    return stmt


# --------------------------------------------------------------------------- closing

def equations(s: T.Term) -> list[T.Term]:
    """The atomic statements of a conjunction (under ∀)."""
    if isinstance(s, T.And):
        return equations(s.lhs) + equations(s.rhs)
    return equations(s.body) if isinstance(s, T.Forall) else [s]


def close(goal: Goal) -> None:
    """A ``defeq`` step: each equation of the goal holds by definitional equality."""
    no_global_binder(goal.stmt, goal)
    for s in equations(goal.stmt):
        if not (isinstance(s, T.Cmp) and s.op == "="):
            raise Rejected(f"cannot close a statement of the form `{type(s).__name__}`")
        if not defeq(beta(s.lhs), beta(s.rhs), goal.decls, [40000]):
            raise Rejected("the two sides are not definitionally equal")


# --------------------------------------------------------------------------- replay

# The names a replay reports for the kernel's rules and the oracles it calls.  What each one
# means and why it is sound is its line of the allowlist `lemmas/axioms.allow` (one source:
# tests/test_kernel.py checks that the two name the same rules); `shardproof axioms` lists them.
RULES = frozenset(["kernel:" + n for n in (
    "delta beta rw discharge-hyp discharge-defeq discharge-nonzero defeq "
    "size-fact nf-inverse nf-indicator nf-read nf-sum nf-merge nf-hypothesis opaque-congruence "
    "linear-jacobian witness witness-sqrt-exp").split()] + ["oracle:ring", "oracle:index-ring",
                                                            "oracle:index-range"])


class _Scoped:
    """The globals with the theorem's own names hidden: a variable `zr` is never the global
    `zr` that a later declaration of the file introduces (δ finds globals by name)."""

    def __init__(self, decls: Any, hidden: set[str]) -> None:
        self.decls, self.hidden = decls, hidden

    def get(self, name: str) -> Any:
        return None if name in self.hidden else self.decls.get(name)


def replay(goal: Goal, trace: list[dict[str, Any]]) -> list[str]:
    """Replay ``trace`` on ``goal``; returns what the proof rests on: the kernel rules and
    oracles used, ``def:NAME`` for unfolded definitions and ``lemma:NAME`` for cited lemmas.

    Raises :class:`Rejected` at the first step that does not check, naming it.
    """
    used: set[str] = set()
    closed = False
    goal.decls = _Scoped(goal.decls, set(goal.types) | set(goal.hyps))
    for k, step in enumerate(trace):
        rule = step.get("rule") if isinstance(step, dict) else None
        try:
            if closed:
                raise Rejected("a step after the goal was closed")
            if goal.existential and rule != "witness":   # (its binders are not universal)
                raise Rejected("an `∃` is shown by a witness, and by no other step")
            if rule == "unfold":
                names = set(step["names"])
                bad = [n for n in names if getattr(goal.decls.get(n), "kind", None) != "def"]
                if bad:
                    raise Rejected(f"`{bad[0]}` is not a definition")
                goal.stmt = unfold_all(goal.stmt, names, goal.decls, frozenset(), [200_000])
                used |= {f"def:{n}" for n in names} | {"kernel:delta", "kernel:beta"}
            elif rule == "rw":
                goal.stmt = rewrite(goal, step)
                used |= {"kernel:rw", "oracle:index-ring", "oracle:index-range"}
                used |= {"kernel:discharge-" + h.split(":")[0] for h in step["how"]}
                if step["lemma"] not in goal.hyps:
                    used.add("lemma:" + step["lemma"])
            elif rule == "defeq":
                close(goal)
                used |= {"kernel:defeq", "oracle:index-ring"}
            elif rule == "norm":        # the kernel's own normal forms of the two sides agree
                from .nf import check_statement  # (here: nf imports this module)
                used |= check_statement(goal, step.get("unroll", False))
            elif rule == "witness":     # a `≠` at one exact assignment, evaluated here
                from .nf import check_witness
                used |= check_witness(goal, step["assignment"])
            else:
                raise Rejected(f"unknown rule `{rule}`")
            closed = rule in ("defeq", "norm", "witness")
        except Rejected as e:
            raise Rejected(f"step {k + 1} ({rule}): {e}") from None
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:   # (malformed)
            raise Rejected(f"step {k + 1} ({rule}): malformed step ({e!r})") from None
        except ArithmeticError as e:              # an oracle's bound (ring.TooLarge)
            raise Rejected(f"step {k + 1} ({rule}): {e}") from None
    if not closed:
        raise Rejected("the trace ends before the goal is closed")
    return sorted(used)
