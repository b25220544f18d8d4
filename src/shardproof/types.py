"""Types, shapes and elaboration.

The checker gives every term a type and returns an *elaborated* term: the same term classes, with
every implicit argument filled in, `X[i, j]` spelled as the flat access `X (i * b + j)`, and
hypothesis obligations of definitions discharged at the call site.  Sizes are terms built from
size names, numerals, `+` and `*`; two sizes are equal when they are equal polynomials (decided
by :mod:`shardproof.arith`).  Every index used to read a vector or a family is checked to be in
range, so every access the engine and the evaluator see is in bounds.

Types: ``Nat`` (sizes and index arithmetic), ``Fin n`` (an index below n), ``ℝ``, ``Vec n``
(n reals, flat), ``A → B`` (families ``Fin R → Vec n``, per-example maps ``Vec a → Vec b``), and
``Prop`` (statements and hypotheses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from . import arith
from . import terms as T
from .errors import NameError_, Span, TypeError_
from .pretty import pretty


# --------------------------------------------------------------------------- semantic types

@dataclass(frozen=True, slots=True)
class Ty:
    pass


@dataclass(frozen=True, slots=True)
class NatT(Ty):
    def __str__(self) -> str:
        return "Nat"


@dataclass(frozen=True, slots=True)
class RealT(Ty):
    def __str__(self) -> str:
        return "ℝ"


@dataclass(frozen=True, slots=True)
class PropT(Ty):
    def __str__(self) -> str:
        return "Prop"


@dataclass(frozen=True, slots=True)
class FinT(Ty):
    size: T.Term

    def __str__(self) -> str:
        return f"Fin {_paren(self.size)}"


@dataclass(frozen=True, slots=True)
class VecT(Ty):
    size: T.Term

    def __str__(self) -> str:
        return f"Vec {_paren(self.size)}"


@dataclass(frozen=True, slots=True)
class FunT(Ty):
    dom: Ty
    cod: Ty

    def __str__(self) -> str:
        d = f"({self.dom})" if isinstance(self.dom, FunT) else str(self.dom)
        return f"{d} → {self.cod}"


def _paren(t: T.Term) -> str:
    s = pretty(t)
    return s if isinstance(t, (T.Var, T.Num)) else f"({s})"


# --------------------------------------------------------------------------- global declarations

@dataclass(frozen=True)
class Param:
    """One parameter of a global: ``kind`` is ``size``, ``value`` or ``hyp`` (an obligation)."""

    name: str
    ty_term: T.Term
    kind: str
    implicit: bool


@dataclass
class GlobalDecl:
    """A `def`, `opaque` or proved-or-not `theorem`, elaborated."""

    name: str
    kind: str  # "def" | "opaque" | "theorem"
    params: tuple[Param, ...]
    ret_term: T.Term | None
    body: T.Term | None = None           # elaborated body of a def
    stmt: T.Term | None = None           # elaborated statement of a theorem
    binders: tuple[tuple[str, Ty], ...] = ()   # a theorem's binders with their types
    hyps: tuple[tuple[str, T.Term], ...] = ()  # a theorem's hypotheses (elaborated props)
    linear_in: str | None = None
    doc: str | None = None
    span: Span | None = None
    path: str = ""
    decl: T.Decl | None = None
    ret_ty: Ty | None = None
    proof: T.Proof | None = None
    size_subst: tuple[tuple[str, T.Term], ...] = ()
    cmp_types: dict = field(default_factory=dict)
    # The type of each equation of a theorem's statement or a `Prop` definition's body, by its
    # position under `∧` (0, 1) and `∀` (0): what the engine compares them as (not by text, which
    # two scopes may share with different types; see `Elaborator.positional_types`).
    prop_types: dict = field(default_factory=dict)
    # `theorem t : ∃ (x : X) …, a ≠ b`: ``binders`` and ``hyps`` are the `∃`'s, and a witness
    # proves it.  Otherwise a theorem's binders are universal (Lean's reading), as for `≠`.
    existential: bool = False


class GlobalEnv:
    """All globals visible to a file: the prelude, its imports, and its own declarations."""

    def __init__(self) -> None:
        self.decls: dict[str, GlobalDecl] = {}

    def add(self, d: GlobalDecl) -> None:
        self.decls[d.name] = d

    def get(self, name: str) -> GlobalDecl | None:
        return self.decls.get(name)

    def copy(self) -> "GlobalEnv":
        g = GlobalEnv()
        g.decls = dict(self.decls)
        return g


TYPE_NAMES = {"Nat", "ℕ", "ℝ", "Real", "Vec", "Fin", "Prop"}


# --------------------------------------------------------------------------- local context

@dataclass
class Ctx:
    env: GlobalEnv
    locals: dict[str, Ty] = field(default_factory=dict)
    subst: tuple[tuple[str, T.Term], ...] = ()   # size equalities a = b, oriented a := b
    facts: list[T.Term] = field(default_factory=list)
    theorem: str | None = None

    def child(self) -> "Ctx":
        return Ctx(self.env, dict(self.locals), self.subst, list(self.facts), self.theorem)

    def fin_bounds(self) -> dict[str, T.Term]:
        return {n: t.size for n, t in self.locals.items() if isinstance(t, FinT)}


def _err(msg: str, t: T.Term | None, ctx: Ctx, cls=TypeError_, hint: str | None = None):
    return cls(msg, getattr(t, "span", None), theorem=ctx.theorem, hint=hint)


# --------------------------------------------------------------------------- type equality

def same_size(a: T.Term, b: T.Term, ctx: Ctx) -> bool:
    try:
        if a is b or a == b:
            # Equal terms are equal polynomials when they are sizes at all, which ``to_ipoly``
            # decides (raising as ``sizes_equal`` would).  Faster: ``a`` is often a type just
            # built by substitution, whose hash ``sizes_equal``'s cache would compute and whose
            # key it would compare again.
            arith.to_ipoly(b, ctx.subst)
            return True
        return arith.sizes_equal(a, b, ctx.subst)
    except arith.NotASize:
        return False


def ty_eq(a: Ty, b: Ty, ctx: Ctx) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (VecT, FinT)):
        return same_size(a.size, b.size, ctx)  # type: ignore[attr-defined]
    if isinstance(a, FunT):
        return ty_eq(a.dom, b.dom, ctx) and ty_eq(a.cod, b.cod, ctx)  # type: ignore[attr-defined]
    return True


def is_nat(t: Ty) -> bool:
    return isinstance(t, (NatT, FinT))


# --------------------------------------------------------------------------- substitution

def subst_term(t: T.Term, m: dict[str, T.Term]) -> T.Term:
    """Replace free names by terms (types and sizes only bind nothing, props may: we respect it)."""
    if not m:
        return t
    cls = type(t)
    if cls is T.Var:
        return m.get(t.name, t)
    if cls is T.Num:
        return t
    if isinstance(t, T.Var):
        return m.get(t.name, t)
    if isinstance(t, (T.Num,)):
        return t
    # Only free occurrences are replaced, so a term without a free name of ``m`` comes back
    # unchanged (the same term, not a copy; the free names are memoised in the term).
    for x in T.free_names_seq(t):
        if x in m:
            break
    else:
        return t
    if cls is T.BinOp:
        return T.BinOp(t.op, subst_term(t.lhs, m), subst_term(t.rhs, m), span=t.span)
    if cls is T.App:
        return T.App(subst_term(t.fn, m), tuple([subst_term(a, m) for a in t.args]),
                     span=t.span)
    if isinstance(t, (T.Lam, T.Sum, T.Forall)):
        inner = dict(m)
        bs = []
        for b in t.binders:
            ty = subst_term(b.ty, inner) if b.ty is not None else None
            inner.pop(b.name, None)
            bs.append(T.Binder(b.name, ty, b.implicit, span=b.span))
        return T.rebind(t, tuple(bs), subst_term(t.body, inner))
    if isinstance(t, T.App):
        return T.App(subst_term(t.fn, m), tuple(subst_term(a, m) for a in t.args), span=t.span)
    if isinstance(t, T.Index):
        return T.Index(subst_term(t.base, m), tuple(subst_term(a, m) for a in t.indices),
                       span=t.span)
    if isinstance(t, T.BinOp):
        return T.BinOp(t.op, subst_term(t.lhs, m), subst_term(t.rhs, m), span=t.span)
    if isinstance(t, T.Neg):
        return T.Neg(subst_term(t.arg, m), span=t.span)
    if isinstance(t, T.Ite):
        return T.Ite(subst_term(t.cond, m), subst_term(t.then, m), subst_term(t.els, m),
                     span=t.span)
    if isinstance(t, T.Cmp):
        return T.Cmp(t.op, subst_term(t.lhs, m), subst_term(t.rhs, m), span=t.span)
    if isinstance(t, T.And):
        return T.And(subst_term(t.lhs, m), subst_term(t.rhs, m), span=t.span)
    if isinstance(t, T.Arrow):
        return T.Arrow(subst_term(t.dom, m), subst_term(t.cod, m), span=t.span)
    if isinstance(t, T.NamedArg):
        return T.NamedArg(t.name, subst_term(t.value, m), span=t.span)
    if isinstance(t, T.VecLit):
        return T.VecLit(tuple(subst_term(a, m) for a in t.items), span=t.span)
    return t


# --------------------------------------------------------------------------- the elaborator

_ELAB_NAMES: dict[type, str] = {}     # term class -> the name of its elaboration method


class Elaborator:
    """Bidirectional checking: ``elab(t, ctx, expected) -> (elaborated term, type)``.

    ``cmp_types`` remembers the type of the two sides of every equation it elaborated (the
    engine reads the shape of a vector equation from it).
    """

    def __init__(self) -> None:
        self.cmp_types: dict[T.Cmp, Ty] = {}
        self._cmp_made: dict[int, tuple[T.Cmp, Ty]] = {}    # id(comparison made) -> it, type
        self._cmp_memo: dict[tuple[int, int], tuple[T.Cmp, Ctx, tuple[T.Term, Ty]]] = {}

    # ---- types written by the user
    def type_of_term(self, t: T.Term, ctx: Ctx) -> Ty:
        if isinstance(t, T.Var):
            if t.name in ("Nat", "ℕ"):
                return NatT()
            if t.name in ("ℝ", "Real"):
                return RealT()
            if t.name == "Prop":
                return PropT()
            raise _err(f"`{t.name}` is not a type (expected Nat, ℝ, Vec n, Fin n or A → B)",
                       t, ctx)
        if isinstance(t, T.App) and isinstance(t.fn, T.Var) and t.fn.name in ("Vec", "Fin"):
            if len(t.args) != 1:
                raise _err(f"`{t.fn.name}` takes one size, got {len(t.args)}", t, ctx)
            size = self.size(t.args[0], ctx)
            return VecT(size) if t.fn.name == "Vec" else FinT(size)
        if isinstance(t, T.Arrow):
            return FunT(self.type_of_term(t.dom, ctx), self.type_of_term(t.cod, ctx))
        raise _err(f"`{pretty(t)}` is not a type", t, ctx)

    def size(self, t: T.Term, ctx: Ctx) -> T.Term:
        """Check that ``t`` is a size (Nat names, numerals, + and *) and return it elaborated."""
        if _is_size_term(t, ctx):
            # Already a size: local Nat names, natural numerals, + and *.  Elaborating it
            # gives back an equal term of type Nat (every node elaborates to itself), so skip.
            return t
        e, ty = self.elab(t, ctx, NatT())
        if not isinstance(ty, NatT) or not _is_size_term(e, ctx):
            raise _err(f"`{pretty(t)}` is not a size (sizes are Nat names, numerals, + and *)",
                       t, ctx)
        return e

    # ---- props
    def prop(self, t: T.Term, ctx: Ctx) -> T.Term:
        e, ty = self.elab(t, ctx, PropT())
        if not isinstance(ty, PropT):
            raise _err(f"expected a statement (Prop), got a term of type {ty}", t, ctx)
        return e

    # ---- expressions
    def elab(self, t: T.Term, ctx: Ctx, expected: Ty | None = None) -> tuple[T.Term, Ty]:
        cls = type(t)
        name = _ELAB_NAMES.get(cls)
        if name is None:
            name = _ELAB_NAMES[cls] = "_e_" + cls.__name__
        m = getattr(self, name, None)
        if m is None:
            raise _err(f"`{pretty(t)}` cannot be used here", t, ctx)
        return m(t, ctx, expected)

    def _e_Num(self, t: T.Num, ctx: Ctx, expected):
        if isinstance(expected, RealT) or t.value.denominator != 1:
            return t, RealT()
        return t, NatT()

    def _e_Var(self, t: T.Var, ctx: Ctx, expected):
        if t.name in ctx.locals:
            ty = ctx.locals[t.name]
            if isinstance(ty, NatT) and isinstance(expected, RealT):
                return t, RealT()  # a size used as a real number
            if isinstance(ty, PropT):      # nothing gives it a value (the search once read
                # a global of its name declared later: `if h then …` with `def h := 1 = 2`)
                raise _err(f"`{t.name}` is a hypothesis (it names a proof of a statement), "
                           "not a value or a statement: write the statement itself", t, ctx)
            return t, ty
        g = ctx.env.get(t.name)
        if g is not None:
            return self._apply_global(g, t, (), ctx, expected)
        if t.name in TYPE_NAMES:
            raise _err(f"the type `{t.name}` cannot be used as a value", t, ctx)
        raise _err(f"unknown name `{t.name}`", t, ctx, NameError_,
                   hint=_suggest(t.name, list(ctx.locals) + list(ctx.env.decls)))

    def _e_NamedArg(self, t: T.NamedArg, ctx: Ctx, expected):
        raise _err(f"a named argument `({t.name} := …)` is only allowed in an application",
                   t, ctx)

    def _e_Arrow(self, t, ctx, expected):
        raise _err("a function type cannot be used as a value", t, ctx)

    def _e_VecLit(self, t: T.VecLit, ctx: Ctx, expected):
        items = tuple(self.expect(i, ctx, RealT()) for i in t.items)
        return T.VecLit(items, span=t.span), VecT(T.Num(Fraction(len(items))))

    def expect(self, t: T.Term, ctx: Ctx, want: Ty) -> T.Term:
        e, ty = self.elab(t, ctx, want)
        if isinstance(want, RealT) and isinstance(ty, NatT):
            return e
        if isinstance(want, NatT) and isinstance(ty, FinT):
            return e
        if not ty_eq(ty, want, ctx):
            raise _mismatch(t, want, ty, ctx)
        return e

    def _e_Neg(self, t: T.Neg, ctx: Ctx, expected):
        e, ty = self.elab(t.arg, ctx, expected if expected is not None else RealT())
        if isinstance(ty, (NatT, FinT)):
            if isinstance(expected, (NatT, FinT)):
                raise _err("sizes and indices are natural numbers: no negation", t, ctx)
            ty = RealT()
        if not isinstance(ty, (RealT, VecT)):
            raise _err(f"cannot negate a term of type {ty}", t, ctx)
        return T.Neg(e, span=t.span), ty

    def _e_BinOp(self, t: T.BinOp, ctx: Ctx, expected):
        op = t.op
        if op == "•":
            s = self.expect(t.lhs, ctx, RealT())
            v, vty = self.elab(t.rhs, ctx, expected if isinstance(expected, VecT) else None)
            if not isinstance(vty, VecT):
                raise _err(f"`•` scales a vector; the right side has type {vty}", t.rhs, ctx)
            return T.BinOp("•", s, v, span=t.span), vty
        if op == "^":
            b, bty = self.elab(t.lhs, ctx, RealT())
            if not isinstance(t.rhs, T.Num) or t.rhs.value.denominator != 1 or \
                    t.rhs.value < 0 or t.rhs.decimal:        # (`2.0` is a Float in Lean)
                raise _err("the exponent must be a natural-number literal", t.rhs, ctx)
            if not isinstance(bty, (RealT, NatT)):
                raise _err(f"cannot raise a term of type {bty} to a power", t, ctx)
            return T.BinOp("^", b, t.rhs, span=t.span), RealT()
        if expected is None and _lean_real_tree([t], ctx):
            expected = RealT()
        want_real = isinstance(expected, RealT)
        want = expected if isinstance(expected, (VecT,)) else (RealT() if want_real else None)
        a, aty = self.elab(t.lhs, ctx, want)
        b, bty = self.elab(t.rhs, ctx, want if want is not None else
                           (RealT() if isinstance(aty, RealT) else None))
        if is_nat(aty) and is_nat(bty) and not want_real and op in ("+", "*"):
            if not (isinstance(aty, RealT) or isinstance(bty, RealT)):
                return T.BinOp(op, a, b, span=t.span), NatT()
        if op == "/" and is_nat(aty) and is_nat(bty) and not want_real:
            # 1 / R written where a real is meant (e.g. as a factor): it is a real division.
            pass
        if isinstance(aty, VecT) or isinstance(bty, VecT):
            if op not in ("+", "-"):
                raise _err(f"`{op}` between vectors is not defined (use `•` to scale, or an op)",
                           t, ctx)
            if not (isinstance(aty, VecT) and isinstance(bty, VecT)):
                raise _err(f"cannot add a vector and a scalar ({aty} {op} {bty})", t, ctx)
            if not same_size(aty.size, bty.size, ctx):
                raise _err(f"size mismatch in `{op}`: {aty} vs {bty}", t, ctx)
            return T.BinOp(op, a, b, span=t.span), aty
        for side, ty, tt, other in (("left", aty, t.lhs, bty), ("right", bty, t.rhs, aty)):
            if isinstance(ty, FinT) and not isinstance(expected, (NatT, FinT)) and (
                    want_real or op in ("-", "/") or isinstance(other, RealT)):
                raise _err("an index (Fin) cannot be used as a real number", tt, ctx)
            if not isinstance(ty, (RealT, NatT, FinT)):
                raise _err(f"the {side} side of `{op}` has type {ty}; expected a number", tt, ctx)
        if op == "-" and is_nat(aty) and is_nat(bty) and not want_real:
            raise _err("sizes and indices are natural numbers: no subtraction", t, ctx)
        return T.BinOp(op, a, b, span=t.span), RealT()

    def _e_Cmp(self, t: T.Cmp, ctx: Ctx, expected):
        # A side that comes back Nat against a real one is elaborated again as a real, so each
        # comparison nested in it would be elaborated twice per level (2^depth: 160 s for 23
        # nested `if`s): a comparison's result is remembered for this very term and context
        # (neither changes while a term is elaborated; both are kept alive, so ids stay theirs).
        key = (id(t), id(ctx))
        hit = self._cmp_memo.get(key)
        if hit is not None:
            return hit[2]
        out = self._e_Cmp_once(t, ctx)
        self._cmp_memo[key] = (t, ctx, out)
        return out

    def _record_cmp(self, out: T.Cmp, ty: Ty) -> None:
        """Remember the type of a comparison's sides: by the comparison made (for
        :meth:`positional_types`, what the engine compares equations as) and by text
        (``cmp_types``: whether a statement or a `≠` inside one is about sizes).  Terms compare
        by structure, so one comparison's text in two scopes that type it differently is one
        text key, and the one elaborated last wins: the statement's own comparison is always
        its own (it is elaborated after the hypotheses, and no comparison contains a copy of
        itself).  (Recording such a key as unknown made a statement `n ≠ 0` about a size, whose
        text a hypothesis also used about a real, read as a `≠` between reals: a witness
        "proved" it with `--no-replay`.  The engine once typed the equations of an unfolded
        definition body by text, and took a hypothesis's `Vec 2` for the body's `Vec m`: it
        now types equations by position.)"""
        self.cmp_types[out] = ty
        self._cmp_made[id(out)] = (out, ty)          # (the object kept: its id stays its own)

    def positional_types(self, stmt: T.Term) -> dict[tuple[int, ...], Ty]:
        """The types of the comparisons this elaborator made that sit at the top of the
        elaborated statement ``stmt`` (under `∧` and `∀`), by position.  Each is the type of
        that very comparison: text is shared by scopes (`x = cut2 x` about `Vec 2` in one,
        about `Vec m` in a definition's body that `unfold` brings in), positions are not."""
        out: dict[tuple[int, ...], Ty] = {}
        todo: list[tuple[T.Term, tuple[int, ...]]] = [(stmt, ())]
        while todo:
            t, path = todo.pop()
            if isinstance(t, T.And):
                todo += [(t.lhs, path + (0,)), (t.rhs, path + (1,))]
            elif isinstance(t, T.Forall):
                todo.append((t.body, path + (0,)))
            elif isinstance(t, T.Cmp) and id(t) in self._cmp_made and \
                    self._cmp_made[id(t)][0] is t:
                out[path] = self._cmp_made[id(t)][1]
        return out

    def _e_Cmp_once(self, t: T.Cmp, ctx: Ctx):
        a, aty = self.elab(t.lhs, ctx, RealT() if _lean_real_tree([t.lhs, t.rhs], ctx) else None)
        b, bty = self.elab(t.rhs, ctx, aty if not isinstance(aty, FinT) else NatT())
        if isinstance(aty, NatT) and isinstance(bty, RealT):
            a, aty = self.elab(t.lhs, ctx, RealT())
        if isinstance(aty, RealT) and isinstance(bty, NatT):
            b, bty = self.elab(t.rhs, ctx, RealT())
        if {type(aty), type(bty)} == {RealT, NatT}:
            aty = bty = RealT()      # a `Nat`-valued definition beside a real: Lean casts it
        op = t.op
        if op in (">", "≥"):             # `R > 0` is `0 < R`, as in Lean: one form for the facts
            op, a, b = {">": "<", "≥": "≤"}[op], b, a
        if is_nat(aty) and is_nat(bty):
            _lean_reads_in_fin(t, a, b, aty, bty, ctx)
            if op == "≤" and a == T.Num(Fraction(1)):     # `1 ≤ R` is `0 < R` for a size
                op, a = "<", T.Num(Fraction(0), span=a.span)
            out = T.Cmp(op, a, b, span=t.span)
            self._record_cmp(out, NatT())
            return out, PropT()
        if t.op in ("=", "≠"):
            if not ty_eq(aty, bty, ctx):
                raise _mismatch(t.rhs, aty, bty, ctx, what="the two sides of the equation")
            if isinstance(aty, PropT) or (isinstance(aty, FunT) and not _family_like(aty)):
                raise _err(f"cannot compare terms of type {aty}", t, ctx)
            out = T.Cmp(t.op, a, b, span=t.span)
            self._record_cmp(out, aty)
            return out, PropT()
        if not (isinstance(aty, RealT) and isinstance(bty, RealT)):
            raise _err(f"`{t.op}` compares numbers; got {aty} and {bty}", t, ctx)
        return T.Cmp(op, a, b, span=t.span), PropT()

    def _e_And(self, t: T.And, ctx: Ctx, expected):
        return T.And(self.prop(t.lhs, ctx), self.prop(t.rhs, ctx), span=t.span), PropT()

    def _e_Exists(self, t: T.Exists, ctx: Ctx, expected):
        raise _err("`∃` is read only as a theorem's whole statement (`theorem t : ∃ (x : ℝ) …, "
                   "a ≠ b`, a counterexample a witness gives)", t, ctx)

    def _e_Forall(self, t: T.Forall, ctx: Ctx, expected):
        inner = ctx.child()
        bs = self.bind(t.binders, t.body, inner)
        body = self.prop(t.body, inner)
        return T.Forall(bs, body, span=t.span), PropT()

    def bind(self, binders: tuple[T.Binder, ...], body: T.Term | None, ctx: Ctx,
             expected_doms: list[Ty] | None = None) -> tuple[T.Binder, ...]:
        """Add binders to ``ctx`` (inferring a missing type from its first use in ``body``)."""
        out = []
        for k, b in enumerate(binders):
            check_binder_name(b, binders[:k], ctx)
            if b.ty is None:
                ty = None
                if expected_doms is not None and k < len(expected_doms):
                    ty = expected_doms[k]
                elif body is not None:
                    ty = self._infer_binder(b.name, body, ctx)
                if ty is None:
                    raise _err(f"cannot infer the type of `{b.name}`; write `({b.name} : Fin n)`",
                               b, ctx)
                ty_term = ty_to_term(ty)
            else:
                ty = self.type_of_term(b.ty, ctx)
                ty_term = ty_to_term(ty)
            ctx.locals[b.name] = ty
            out.append(T.Binder(b.name, ty_term, b.implicit, span=b.span))
        return tuple(out)

    def _infer_binder(self, name: str, body: T.Term, ctx: Ctx) -> Ty | None:
        """The type a bare binder must have: from its first use as an argument of a local."""
        found: list[Ty] = []
        _infer_binder_walk(body, name, ctx, found)
        return found[0] if found else None

    def _e_Lam(self, t: T.Lam, ctx: Ctx, expected):
        inner = ctx.child()
        doms: list[Ty] | None = None
        body_expected: Ty | None = None
        if isinstance(expected, FunT):
            doms = []
            e: Ty | None = expected
            for _ in t.binders:
                if isinstance(e, FunT):
                    doms.append(e.dom)
                    e = e.cod
            if isinstance(e, (RealT, NatT, FunT, VecT)):  # `fun (m : Nat) => m - 1` as `Nat → ℝ`:
                body_expected = e    # a real body, as Lean elaborates it against the codomain;
                #                      a curried `fun m => fun k => …` gets the rest of the arrow
            if isinstance(e, VecT) and 0 < len(doms) < len(t.binders):
                # `fun (m : Nat) (i : Fin 2) => …` as `Nat → Vec 2` is Lean's curried
                # `fun m => fun (i : Fin 2) => …`: the inner `fun` a vector (the seventy-second)
                k = len(doms)
                inner_fun = T.Lam(t.binders[k:], t.body, span=t.span)
                return self._e_Lam(T.Lam(t.binders[:k], inner_fun, span=t.span), ctx, expected)
        elif isinstance(expected, VecT):
            body_expected = RealT()    # `Vec n` is `Fin n → ℝ`: Lean elaborates the body in ℝ
        if isinstance(expected, VecT) and any(b.ty is None for b in t.binders):
            sizes = split_size(expected.size, len(t.binders))
            if sizes is None:
                raise _err(f"{expected} does not split into {len(t.binders)} factors at its "
                           "top-level products, one per binder: give the binders' types "
                           "(`fun (i : Fin a) (j : Fin b) => …`)", t, ctx)
            doms = [FinT(s) for s in sizes]
        bs = self.bind(t.binders, t.body, inner, doms)
        btys = [inner.locals[b.name] for b in bs]
        # The body is elaborated once: elaborating it again for the family case made nested
        # `fun`s cost 2^depth.
        body, bty = self.elab(t.body, inner, body_expected)
        if all(isinstance(bt, FinT) for bt in btys):
            if isinstance(bty, NatT) and not _mentions_fin(body, inner):
                bty = RealT()
            if isinstance(bty, RealT):
                size = _product([bt.size for bt in btys])  # type: ignore[attr-defined]
                return T.Lam(bs, body, span=t.span, vec=True), VecT(size)
            if isinstance(bty, FinT) or isinstance(bty, NatT):
                raise _err("a `fun` over indices must produce real numbers", t.body, ctx)
        if isinstance(bty, NatT) and not isinstance(body_expected, NatT):
            bty = RealT()                  # (a `Nat → Nat` is one where Lean expects it)
        ty: Ty = bty
        for bt in reversed(btys):
            ty = FunT(bt, ty)
        return T.Lam(bs, body, span=t.span, vec=False), ty

    def _e_Sum(self, t: T.Sum, ctx: Ctx, expected):
        inner = ctx.child()
        bs = self.bind(t.binders, t.body, inner)
        for b in bs:
            if not isinstance(inner.locals[b.name], FinT):
                raise _err("`∑` ranges over `Fin n`", b, ctx)
        want = expected if isinstance(expected, VecT) else RealT()
        body, bty = self.elab(t.body, inner, want)
        if isinstance(bty, NatT):
            bty = RealT()
        if not isinstance(bty, (RealT, VecT)):
            raise _err(f"cannot sum terms of type {bty}", t.body, ctx)
        return T.Sum(bs, body, span=t.span), bty

    def _e_Ite(self, t: T.Ite, ctx: Ctx, expected):
        cond = self.prop(t.cond, ctx)
        a, aty = self.elab(t.then, ctx, expected or RealT())
        b, bty = self.elab(t.els, ctx, aty if not isinstance(aty, NatT) else RealT())
        if isinstance(aty, NatT):
            aty = RealT()
        if isinstance(bty, NatT):
            bty = RealT()
        if not ty_eq(aty, bty, ctx):
            raise _mismatch(t.els, aty, bty, ctx, what="the two branches")
        return T.Ite(cond, a, b, span=t.span), aty

    def _e_Index(self, t: T.Index, ctx: Ctx, expected):
        base, bty = self.elab(t.base, ctx, None)
        if not isinstance(bty, VecT):
            raise _err(f"only vectors can be indexed with `[…]`; this has type {bty}", t.base, ctx)
        factors = split_size(bty.size, len(t.indices))
        if factors is None:
            raise _err(f"{bty} does not split into {len(t.indices)} factors at its top-level "
                       "products (X[i, j] reads X : Vec (a * b) at i * b + j)", t, ctx)
        flat: T.Term | None = None
        for k, (ix, fac) in enumerate(zip(t.indices, factors)):
            e = self.index(ix, fac, ctx)
            flat = e if flat is None else T.BinOp("+", T.BinOp("*", flat, fac), e)
        assert flat is not None
        return T.App(base, (flat,), span=t.span), RealT()

    def index(self, ix: T.Term, bound: T.Term, ctx: Ctx, applied: T.Term | None = None
              ) -> T.Term:
        """Elaborate an index expression and check that it is below ``bound``.

        ``applied`` is the vector being read by application (`v i`), when there is one: a
        non-index argument there is most often one argument too many, and the message says so.
        """
        e, ty = self.elab(ix, ctx, NatT())
        if not is_nat(ty):
            if isinstance(ix, T.Ite):       # (not one argument too many: the review's `x (if …)`)
                raise _err(f"an index must be a natural number; this `if` has type {ty} (an "
                           "`if` whose branches are numerals or sizes is a real here; an index "
                           "is built from `Fin` variables, sizes, numerals, `+` and `*`)", ix, ctx)
            if applied is not None:
                raise _err(f"too many arguments: `{pretty(applied)}` is a vector (Vec "
                           f"{_paren(bound)}), so a further argument reads an index, but "
                           f"`{pretty(ix)}` has type {ty}", ix, ctx)
            raise _err(f"an index must be a natural number; this has type {ty}", ix, ctx)
        if isinstance(ty, FinT) and same_size(ty.size, bound, ctx):
            return e
        try:
            ok = arith.index_in_range(e, bound, ctx.fin_bounds(), ctx.subst,
                                      frozenset(nonzero_names(with_ties(ctx.facts, ctx.subst))))
        except arith.NotASize:
            raise _err(f"`{pretty(ix)}` is not an index expression (indices are built from "
                       "Fin variables, sizes, numerals, + and *)", ix, ctx) from None
        if not ok:
            raise _err(f"cannot show that the index `{pretty(ix)}` is below `{pretty(bound)}`",
                       ix, ctx)
        return e

    def _e_App(self, t: T.App, ctx: Ctx, expected):
        head = t.fn
        if isinstance(head, T.Var) and head.name not in ctx.locals:
            g = ctx.env.get(head.name)
            if g is not None:
                return self._apply_global(g, head, t.args, ctx, expected, span=t.span)
            if head.name in ("Vec", "Fin"):
                raise _err(f"`{head.name} …` is a type, not a value", t, ctx)
            raise _err(f"unknown name `{head.name}`", head, ctx, NameError_,
                       hint=_suggest(head.name, list(ctx.locals) + list(ctx.env.decls)))
        f, fty = self.elab(head, ctx, None)
        if isinstance(head, T.Lam) and len(head.binders) > 1 and isinstance(fty, VecT):
            # (the fiftieth review: `(fun (p : Fin 2) (q : Fin 2) => w p) p0` read entry p0 of
            # a `Vec 4` here, the function `q ↦ w p0` in Lean, and false statements were proved)
            raise _err("a `fun` with several binders is a vector here, read at one flat index, "
                       "but Lean applies it to its first argument (the rest is a function): "
                       "the same text would state something else", t, ctx,
                       hint="index it at every binder, `(fun p q => …)[i, j]`, or name the "
                            "vector with a `def`")
        return self._apply_value(f, fty, t.args, ctx, t)

    def _apply_value(self, f: T.Term, fty: Ty, args, ctx: Ctx, whole: T.Term):
        cur, cty = f, fty
        for a in args:
            if isinstance(a, T.NamedArg):
                raise _err("named arguments are for definitions and ops", a, ctx)
            if isinstance(cty, VecT):
                ix = self.index(a, cty.size, ctx, applied=_written_prefix(whole, a))
                cur, cty = _app(cur, ix, whole), RealT()
            elif isinstance(cty, FunT):
                if isinstance(cty.dom, FinT):
                    ix = self.index(a, cty.dom.size, ctx)
                    cur = _app(cur, ix, whole)
                else:
                    cur = _app(cur, self.expect(a, ctx, cty.dom), whole)
                cty = cty.cod
            else:
                raise _err(f"too many arguments: a term of type {cty} cannot be applied",
                           a, ctx, hint=_forgot_assign(a))
        return cur, cty

    def _apply_global(self, g: GlobalDecl, head: T.Var, args, ctx: Ctx, expected,
                      span: Span | None = None):
        if g.kind == "theorem":
            raise _err(f"`{g.name}` is a theorem; cite it in a proof (`by rw [{g.name}]`)",
                       head, ctx)
        named: dict[str, T.NamedArg] = {}
        for a in args:
            if isinstance(a, T.NamedArg):
                if a.name in named:
                    raise _err(f"the argument `{a.name}` of `{g.name}` is given twice", a, ctx)
                named[a.name] = a
        positional = [a for a in args if not isinstance(a, T.NamedArg)]
        explicit = [p for p in g.params if not p.implicit and p.kind != "hyp"]
        mapping: dict[str, T.Term] = {}
        out_args: dict[str, T.Term] = {}
        for nm, na in named.items():
            if not any(p.name == nm for p in g.params):
                raise _err(f"`{g.name}` has no parameter `{nm}`", na, ctx)
            if any(p.name == nm and p.kind == "hyp" for p in g.params):
                raise _err(f"`{nm}` is a condition of `{g.name}`: it is checked where `{g.name}` "
                           "is applied, not given as an argument", na, ctx)
        pos = iter(positional)
        for p in g.params:
            if p.kind == "hyp":
                continue
            if p.name in named:
                val = named[p.name].value
            elif p.implicit:
                continue
            else:
                try:
                    val = next(pos)
                except StopIteration:
                    break
            e = self._elab_param(g, p, val, mapping, ctx)
            out_args[p.name] = e
            mapping[p.name] = e
        extra = list(pos)
        for nm, na in named.items():   # a partial application takes its arguments in order
            if nm not in out_args:
                missing = next((p.name for p in g.params if p.kind != "hyp" and not p.implicit
                                and p.name not in out_args), "?")
                raise _err(f"`{g.name}` gets `{nm}` but not the argument `{missing}` before it: "
                           f"a partial application takes its arguments in order", na, ctx)
        # Implicits must now be known.
        for p in g.params:
            if p.implicit and p.kind != "hyp" and p.name not in mapping:
                raise _err(f"cannot infer the implicit argument `{p.name}` of `{g.name}`; "
                           f"give it as `({p.name} := …)`", head, ctx)
            if p.implicit and p.kind != "hyp":
                out_args[p.name] = mapping[p.name]
        remaining = [p for p in g.params if p.kind != "hyp" and p.name not in out_args]
        # Obligations whose names are all known are checked now.
        for p in g.params:
            if p.kind == "hyp":
                prop = subst_term(p.ty_term, mapping)
                if set(T.free_names(prop)) & {q.name for q in remaining}:
                    # nothing would check it when the rest arrives (`app (g 1)` with `f 2 x`)
                    raise _err(f"`{g.name}` is applied partially before its condition "
                               f"`{pretty(p.ty_term)}` can be checked; give all its arguments",
                               head, ctx)
                self.discharge(prop, ctx, head, g)
        full = tuple(out_args[p.name] for p in g.params if p.name in out_args)
        term: T.Term = head if not full else T.App(head, full, span=span)
        for p in remaining:     # (before the result type, elaborated here, names it: `relu`
            if not p.implicit and (any(p.name in T.free_names(q.ty_term) for q in remaining
                                       if q is not p) or   # alone was an error in the prelude)
                                   g.ret_term is not None and p.name in T.free_names(g.ret_term)):
                raise _err(f"`{g.name}` needs its argument `{p.name}` (later types depend on it)",
                           head, ctx)
        if g.kind == "def" or g.kind == "opaque":
            ret = self.type_of_term(subst_term(g.ret_term, mapping), ctx) \
                if g.ret_term is not None else PropT()
        else:  # pragma: no cover
            ret = PropT()
        ty: Ty = ret
        for p in reversed(remaining):
            if p.implicit:
                raise _err(f"`{g.name}` is applied partially before its implicit `{p.name}` "
                           "is known", head, ctx)
            if any(p.name in T.free_names(q.ty_term) for q in remaining if q is not p) or \
                    (g.ret_term is not None and p.name in T.free_names(g.ret_term)):
                raise _err(f"`{g.name}` needs its argument `{p.name}` (later types depend on it)",
                           head, ctx)
            ty = FunT(self.type_of_term(subst_term(p.ty_term, mapping), ctx), ty)
        if extra:
            if not isinstance(ty, (VecT, FunT)):
                raise _err(f"`{g.name}` takes {len(explicit)} explicit argument"
                           f"{'s' if len(explicit) != 1 else ''}, got {len(positional)}",
                           extra[0], ctx)
            whole = T.App(head, tuple(args), span=span)
            return self._apply_value(term, ty, extra, ctx, whole)
        return term, ty

    def _elab_param(self, g: GlobalDecl, p: Param, val: T.Term, mapping: dict[str, T.Term],
                    ctx: Ctx) -> T.Term:
        if p.kind == "size":
            return self.size(val, ctx)
        pty_term = subst_term(p.ty_term, mapping)
        # The implicit sizes not known yet, as holes `?a` substituted at once with the known
        # ones: a known value that names the caller's `b` is not taken for the definition's own
        # unknown `b` (the eighty-eighth review: `g u x` with `g {a b}` under `{b a}` failed).
        unknown = [q.name for q in g.params
                   if q.implicit and q.kind == "size" and q.name not in mapping]
        # Infer implicit sizes by matching the declared type with the argument's type.
        if unknown and not T.free_names(p.ty_term).isdisjoint(unknown):
            holes = {n: T.Var(f"?{n}") for n in unknown}
            pattern = subst_term(p.ty_term, {**mapping, **holes})
            e, aty = self.elab(val, ctx, None)
            if _head_name(pty_term) == "Vec":
                e, aty = _as_vector(e, aty, ctx)
            binds = match_type(pattern, aty, {h.name for h in holes.values()}, ctx)
            if binds is None:
                if not (_head_name(pty_term) == "Vec" and isinstance(aty, VecT) or
                        _head_name(pty_term) == "Fin" and isinstance(aty, FinT)):
                    raise _err(f"argument `{p.name}` of `{g.name}` should have type "
                               f"{pretty(pty_term)}, got {aty}", val, ctx)
                # (the seventy-fifth review: the implicits printed as if they were sizes, so
                # `Vec (c * b * a)` "should" be `Vec (c * a * b)`, an equal polynomial)
                unknown = [n for n, h in holes.items() if h.name in T.free_names(pattern)]
                shown = pattern
                them = ", ".join(f"`{n}`" for n in unknown)
                raise _err(f"cannot infer the implicit size{'s' if len(unknown) > 1 else ''} "
                           f"{them} of `{g.name}` from its argument `{p.name}`: the type "
                           f"{aty} is matched against {pretty(shown)} factor by factor, as "
                           f"Lean's unifier does; give {'them' if len(unknown) > 1 else 'it'} "
                           f"by name, `{g.name} ({unknown[0]} := …)`", val, ctx)
            mapping.update({n: binds[h.name] for n, h in holes.items() if h.name in binds})
            pty = self.type_of_term(subst_term(p.ty_term, mapping), ctx)
            if not ty_eq(pty, aty, ctx):
                raise _mismatch(val, pty, aty, ctx, what=f"argument `{p.name}` of `{g.name}`")
            return e
        pty = self.type_of_term(pty_term, ctx)
        if isinstance(pty, FinT):
            return self.index(val, pty.size, ctx)
        e, aty = self.elab(val, ctx, pty)
        if isinstance(pty, RealT) and isinstance(aty, NatT):
            return e
        if isinstance(pty, VecT):
            e, aty = _as_vector(e, aty, ctx, pty.size)
        if not ty_eq(pty, aty, ctx):
            raise _mismatch(val, pty, aty, ctx, what=f"argument `{p.name}` of `{g.name}`")
        return e

    def discharge(self, prop: T.Term, ctx: Ctx, at: T.Term, g: GlobalDecl) -> None:
        """Check a definition's hypothesis at a call site (size equalities and positivity)."""
        if isinstance(prop, T.Cmp) and prop.op == "=":
            if same_size(prop.lhs, prop.rhs, ctx):
                return
            raise _err(f"`{g.name}` needs `{pretty(prop)}`, which does not follow "
                       "(sizes differ)", at, ctx)
        if fact_holds(prop, ctx):
            return
        raise _err(f"`{g.name}` needs `{pretty(prop)}`; add it as a hypothesis", at, ctx)


def _as_vector(e: T.Term, aty: Ty, ctx: Ctx, size: T.Term | None = None
               ) -> tuple[T.Term, Ty]:
    """A family of reals `g : Fin n → ℝ` passed where a `Vec n` is expected: the catalog's
    `Vec n` IS a function `Fin n → ℝ` (Lean takes one for the other), so it is accepted, as the
    vector `fun (i : Fin n) => g i` (the two are kept apart elsewhere: a family is evaluated
    as a map, a vector as an array).  ``size``: the `n` expected, when known."""
    if not (isinstance(aty, FunT) and isinstance(aty.dom, FinT) and isinstance(aty.cod, RealT)) \
            or size is not None and not same_size(aty.dom.size, size, ctx):
        return e, aty               # (another size: the mismatch is reported as written)
    taken = T.free_names(e) | set(ctx.locals)
    name = next(n for n in ("i", "j", "k", *(f"i{k}" for k in range(1, 10_000)))
                if n not in taken and ctx.env.get(n) is None)
    binder = T.Binder(name, T.App(T.Var("Fin"), (aty.dom.size,)), span=e.span)
    return (T.Lam((binder,), T.App(e, (T.Var(name, span=e.span),), span=e.span), span=e.span,
                  vec=True), VecT(aty.dom.size))


def _head_name(t: T.Term) -> str | None:
    head = t.fn if isinstance(t, T.App) else t
    return head.name if isinstance(head, T.Var) else None


def is_negative_statement(g: GlobalDecl) -> bool:
    """`lhs ≠ rhs` between tensors or reals: shown by a witness when it is closed or the body of
    an `∃` (:attr:`GlobalDecl.existential`); under universal binders refuted where its sides
    are equal, else `unknown`.  Never a rule to rewrite with.

    (`≠` between sizes is an ordinary statement for all sizes, refuted by a counterexample.)
    """
    return isinstance(g.stmt, T.Cmp) and g.stmt.op == "≠" and \
        not isinstance(g.prop_types.get(()), NatT)


def _lean_reads_in_fin(t: T.Cmp, a: T.Term, b: T.Term, aty: Ty, bty: Ty, ctx: Ctx) -> None:
    """Refuse a comparison of indices that Lean computes in `Fin n`, where it means something
    else.  With every operand an index of `Fin n` (a variable, a `Fin`-valued definition, an
    `if` between indices) or a numeral, Lean's comparison is in `Fin n`: `+` and `*` wrap
    modulo n and a numeral k is k mod n (in `Fin 1`, `i + 1 = 0` holds and `i < 1` does not);
    here indices are natural numbers.  The two agree without arithmetic when every numeral is
    below n (the thirty-ninth and forty-fourth reviews)."""
    operands: list[T.Term] = []
    arithmetic = _index_operands(a, operands) | _index_operands(b, operands)
    kinds = [_index_kind(x, ctx) for x in operands]
    if "size" in kinds or all(k == "num" for k in kinds):
        return                                   # Lean reads it in ℕ (a size is ℕ)
    hint = "add a size to the comparison (`i + 1 = n`): then Lean reads it in ℕ too"
    if arithmetic:
        raise _err("every operand of this comparison is an index or a numeral, so Lean computes "
                   "it in `Fin n`, where `+` and `*` wrap around modulo n; here indices are "
                   "natural numbers: the same text would state something else", t, ctx,
                   hint=hint)
    sizes = [ty.size for ty in (aty, bty) if isinstance(ty, FinT)]
    for k in (x for x in operands if isinstance(x, T.Num)):
        small = next((n for n in sizes if not _below(k, n, ctx)), None)
        if k.value != 0 and (small is not None or not sizes):
            shown = f"`Fin {_paren(small)}`" if small is not None else "`Fin n`"
            raise _err(f"Lean reads the numeral `{pretty(k)}` compared with an index of "
                       f"{shown} modulo that size (in `Fin {pretty(k)}`, `{pretty(k)}` "
                       "is `0`); here it is the natural number, and the size's form does not "
                       "show it is larger (a hypothesis such as `1 < n` is not used)", k, ctx,
                       hint=f"write the size so that it is (`Fin (m + {k.value + 1})`), or add a "
                            "size to the comparison: then Lean reads it in ℕ too")


def _index_operands(t: T.Term, out: list[T.Term]) -> bool:
    """The operands of ``t`` through `+` and `*`; True when there is such an operator."""
    if isinstance(t, T.BinOp) and t.op in ("+", "*"):
        _index_operands(t.lhs, out)
        _index_operands(t.rhs, out)
        return True
    out.append(t)
    return False


def _index_kind(t: T.Term, ctx: Ctx) -> str | None:
    """An operand of a comparison between naturals: "num", "index" (its type is `Fin n`),
    "size" (`Nat`), or None (not known: treated as an index)."""
    if isinstance(t, T.Num):
        return "num"
    if isinstance(t, T.Ite):
        kinds = {_index_kind(t.then, ctx), _index_kind(t.els, ctx)}
        return "size" if "size" in kinds else "index" if kinds <= {"index", "num"} else None
    head, args = (t.fn, t.args) if isinstance(t, T.App) else (t, ())
    if not isinstance(head, T.Var):
        return None
    ty: Ty | None = ctx.locals.get(head.name)
    if ty is None:
        g = ctx.env.get(head.name)
        n_params = len([p for p in g.params if p.kind != "hyp"]) if g is not None else -1
        ty = g.ret_ty if g is not None and len(args) == n_params else None
    else:
        for _ in args:
            ty = ty.cod if isinstance(ty, FunT) else None
    return "index" if isinstance(ty, FinT) else "size" if isinstance(ty, NatT) else None


def _below(k: T.Num, n: T.Term, ctx: Ctx) -> bool:
    """Is the numeral ``k`` provably below the size ``n``?  (By the size's form and the nonzero
    facts in scope, as the index range check decides it: `1 < n` is not used.)"""
    try:
        return arith.index_in_range(k, n, ctx.fin_bounds(), ctx.subst,
                                    frozenset(nonzero_names(with_ties(ctx.facts, ctx.subst))))
    except arith.NotASize:
        return False


_ARITH_OPS = ("+", "-", "*", "/", "^")
_RANK = {"poly": 0, "dec": 1, "nat": 2, "real": 3}


class LeanReading:
    """Where Lean reads an arithmetic text in ℕ and this language in ℝ, refuse it.

    A model of Lean's elaboration, kept to what decides ℕ against ℝ.  Lean elaborates
    `a + b * c`, and a comparison's two sides together, as one tree (`binop%`, `binrel%`):
    the *leaves* (names, applications, `∑`, `if`, `fun`, `![…]`, numerals) are elaborated with
    no expected type, and the tree takes the largest of their types, or its expected type
    when it has one.  A unit is elaborated against an expected type only as an argument of a
    parameter, a definition's body, a cast `(e : ℝ)`, or inside such a unit (a `∑` or `fun`
    body, `if` branches, `![…]` entries); the head of an application and the scalar of `•`
    get none.  With no real in sight a tree is ℕ, where `-` stops at 0, `/` rounds down and
    there is no negation; here they act on reals.  Such a tree with `-`, `/` or a negation is
    an input error, at every tree (the thirty-ninth, forty-first and forty-third reviews).
    (A `≠` whose sides are ℕ in Lean but reals here has the same truth value in both: without
    `-`, `/` and negation, ℕ arithmetic is the reals'.)  A decimal with no real in sight is
    `Float` in Lean (its default instance), not exact: such a tree is refused too (the
    forty-eighth review).  Where the model is unsure it refuses."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        # id(global) -> (it, whether each argument position is real-valued: its parameters'
        # and then its result's domains), as :meth:`unit` reads them (the global kept alive)
        self._arg_reals: dict[int, tuple[GlobalDecl, tuple[bool, ...]]] = {}

    def _global_arg_reals(self, g: GlobalDecl) -> tuple[bool, ...]:
        hit = self._arg_reals.get(id(g))
        if hit is not None and hit[0] is g:
            return hit[1]
        params = [p.ty_term for p in g.params if p.kind != "hyp"]
        local = g.ret_ty
        while isinstance(local, FunT):
            params.append(ty_to_term(local.dom))
            local = local.cod
        reals = tuple(_real_valued(pty) for pty in params)
        self._arg_reals[id(g)] = (g, reals)
        return reals

    # ---- Lean's type of a unit elaborated with no expected type: "real", "nat" or "poly"
    # (numerals only: whatever the context makes them); for a vector or map, its entries'
    def kind(self, t: T.Term, bound: dict[str, str]) -> str:
        if isinstance(t, T.Num):
            if t.decimal:
                return "dec"
            return "poly" if t.value.denominator == 1 and t.value >= 0 else "real"
        if _is_arith(t):
            leaves: list[T.Term] = []
            _split_tree(t, leaves, [])
            return _largest(self.kind(x, bound) for x in leaves)
        if isinstance(t, T.BinOp) and t.op == "•":
            return self.kind(t.rhs, bound)
        if isinstance(t, T.Ite):
            k = self.kind(t.then, bound)          # (the `then` branch fixes the type first)
            return k if k != "poly" else self.kind(t.els, bound)
        if isinstance(t, (T.Sum, T.Lam)):
            return self.kind(t.body, {**bound, **_binder_kinds(t.binders)})
        if isinstance(t, T.VecLit):
            return next((k for k in (self.kind(x, bound) for x in t.items) if k != "poly"),
                        "poly")
        head, args = (t.fn, t.args) if isinstance(t, T.App) else (t, ())
        if not isinstance(head, T.Var):
            return self.kind(head, bound)        # `(fun k => …) 0`, `![…] 0`, `(s • f) 0`
        if head.name in bound:
            return bound[head.name]
        ty = self.ctx.locals.get(head.name)
        if ty is not None:
            for _ in args:
                ty = ty.cod if isinstance(ty, FunT) else None
            return "nat" if ty is not None and is_nat(ty) else "real"
        g = self.ctx.env.get(head.name)
        n_params = len([p for p in g.params if p.kind != "hyp"]) if g is not None else 0
        if g is None or g.kind not in ("def", "opaque") or len(args) < n_params:
            return "real"
        ty = g.ret_ty or RealT()        # arguments past the parameters apply its result (the
        for _ in args[n_params:]:       # forty-fifth review: `G n 0` for `G n : Fin 3 → Nat`)
            ty = ty.cod if isinstance(ty, FunT) else None     # (a vector read: real)
        return "nat" if ty is not None and is_nat(ty) else "real"

    # ---- the walk; ``want``: Lean's expected type of ``t`` ("real", or None for none)
    def check(self, t: T.Term, want: str | None, bound: dict[str, str] | None = None) -> None:
        bound = bound or {}
        if _is_arith(t):
            self.tree([t], want, bound, t)
        elif isinstance(t, T.Cmp):
            self.tree([t.lhs, t.rhs], None, bound, t)
        else:
            self.unit(t, want, bound)

    def tree(self, roots: list[T.Term], want: str | None, bound: dict[str, str],
             at: T.Term) -> None:
        leaves: list[T.Term] = []
        ops: list[T.Term] = []
        for r in roots:
            _split_tree(r, leaves, ops)
        kinds = [self.kind(x, bound) for x in leaves]
        is_real = want == "real" or "real" in kinds
        if not is_real and "dec" in kinds:
            raise _err("with no real beside it, Lean reads a decimal as a `Float` (its default "
                       "type; beside a natural number it has none), where `0.1 + 0.2 ≤ 0.3` is "
                       "false; here decimals are exact reals: the same text would state "
                       "something else", at, self.ctx,
                       hint="say the reals as in Lean: `(0.1 : ℝ)` (a cast), or give the "
                            "arithmetic a real operand")
        # numerals alone with a negation are ℤ in Lean (`-1 - 2 = -3`): only `/` differs there
        integer = all(k == "poly" for k in kinds) and any(isinstance(o, T.Neg) for o in ops)
        if not is_real:
            bad = next((o for o in ops if not integer and isinstance(o, T.Neg) or
                        isinstance(o, T.BinOp) and o.op in (("/",) if integer else ("-", "/"))),
                       None)
            if bad is not None:
                what = "a negation" if isinstance(bad, T.Neg) else f"`{bad.op}`"
                raise _err(f"every operand of this arithmetic is a natural number, so Lean "
                           f"computes it in ℕ, where {_NAT_MEANING[what]}; here {what} acts on "
                           "reals: the same text would state something else", at, self.ctx,
                           hint="to mean the reals, say so as in Lean: `(n - 1 : ℝ)`, "
                                "`(1 / R : ℝ)` (a cast), or give the arithmetic a real operand")
        for x, k in zip(leaves, kinds):      # a leaf has no expected type (numerals: the tree's)
            self.unit(x, "real" if is_real and k == "poly" else None, bound)

    def unit(self, t: T.Term, want: str | None, bound: dict[str, str]) -> None:
        if isinstance(t, (T.Num, T.Var)):
            return
        if _is_arith(t) or isinstance(t, T.Cmp):
            self.check(t, want, bound)
        elif isinstance(t, (T.Sum, T.Lam, T.Forall)):
            self.check(t.body, want, {**bound, **_binder_kinds(t.binders)})
        elif isinstance(t, (T.Ite, T.VecLit)):
            # without an expected type, the first branch (entry) that is not numerals alone
            # fixes the type, and numerals follow it (`if c then 1 / 2 else x` is real)
            want = want or ("real" if self.kind(t, bound) == "real" else None)
            if isinstance(t, T.Ite):
                self.check(t.cond, None, bound)
            for x in (t.then, t.els) if isinstance(t, T.Ite) else t.items:
                self.check(x, want, bound)
        elif isinstance(t, T.BinOp) and t.op == "•":
            self.check(t.lhs, None, bound)               # `leftact%`: the scalar alone
            self.check(t.rhs, want, bound)
        elif isinstance(t, T.App):
            head = t.fn
            named = isinstance(head, T.Var) and head.name not in bound
            g = self.ctx.env.get(head.name) if named and head.name not in self.ctx.locals \
                else None
            if g is not None:   # its parameters, then the domains of its result (`def s (c : ℝ)
                reals = self._global_arg_reals(g)      # : ℝ → ℝ`)
            else:
                params: list[T.Term] = []
                local = self.ctx.locals.get(head.name) if named else None
                while isinstance(local, FunT):           # a local function's domains
                    params.append(ty_to_term(local.dom))
                    local = local.cod
                reals = tuple(_real_valued(pty) for pty in params)
            n_reals = len(reals)
            for k, a in enumerate(t.args):
                if isinstance(a, (T.Num, T.Var)):
                    continue                             # (nothing to check: see `unit`)
                self.check(a, "real" if k < n_reals and reals[k] else None, bound)
            if not named:
                self.check(head, None, bound)            # a head is elaborated alone
        else:
            for c in t.children():
                if not isinstance(c, T.Binder):
                    self.check(c, None, bound)



def _lean_real_tree(roots: list[T.Term], ctx: Ctx) -> bool:
    """Whether Lean computes the arithmetic tree at ``roots`` (one root, or a comparison's two
    sides) in ℝ because a leaf beside a natural-number subtraction is real: `n - 1 + x` is
    `↑n - 1 + x` there (`binop%` coerces every leaf to the largest type), where the elaborator
    would otherwise meet `n - 1` first and refuse it (the forty-eighth review's first false
    positive).  Only the leaves whose kind needs no elaboration are read (names, applications
    of names, vector entries); a tree with an index (`Fin`) leaf keeps its reading (an index
    is not used as a real), and :class:`LeanReading` still checks the result."""
    leaves: list[T.Term] = []
    ops: list[T.Term] = []
    for r in roots:
        _split_tree(r, leaves, ops)
    if not any(isinstance(o, T.BinOp) and o.op == "-" for o in ops):
        return False                       # (only a natural-number `-` is refused without it)
    reading = LeanReading(ctx)
    real = False
    for x in leaves:
        head = x.fn if isinstance(x, T.App) else x
        if isinstance(head, T.Var) and isinstance(ctx.locals.get(head.name), FinT):
            return False
        if isinstance(x, T.Index) or isinstance(head, T.Var) and reading.kind(x, {}) == "real":
            real = True
    return real


def _largest(kinds) -> str:
    return max(kinds, key=_RANK.get, default="poly")


def _real_valued(ty: T.Term | None) -> bool:
    """A parameter whose argument Lean elaborates against a real type: `ℝ`, `Vec n`, or a
    function into them."""
    while isinstance(ty, T.Arrow):
        ty = ty.cod
    head = ty.fn if isinstance(ty, T.App) else ty
    return isinstance(head, T.Var) and head.name in ("ℝ", "Real", "Vec")


_NAT_MEANING = {"`-`": "`-` stops at 0 (`0 - 1 = 0`)", "`/`": "`/` rounds down (`1 / 2 = 0`)",
                "a negation": "there is no negation"}


def _is_arith(t: T.Term) -> bool:
    return isinstance(t, T.Neg) or isinstance(t, T.BinOp) and t.op in _ARITH_OPS


def _split_tree(t: T.Term, leaves: list[T.Term], ops: list[T.Term]) -> None:
    """The leaves and operator nodes of the arithmetic tree at ``t`` (a `^`'s exponent is a
    numeral, not a leaf)."""
    todo = [t]
    while todo:
        u = todo.pop()
        if not _is_arith(u):
            leaves.append(u)
            continue
        ops.append(u)
        if isinstance(u, T.Neg):
            todo.append(u.arg)
        else:
            todo += [u.lhs] if u.op == "^" else [u.lhs, u.rhs]


def _binder_kinds(binders: tuple[T.Binder, ...]) -> dict[str, str]:
    """A bound name's kind from its type (a function's: its result's): an index or a size is
    natural, anything else real."""
    out = {}
    for b in binders:
        ty = b.ty
        while isinstance(ty, T.Arrow):
            ty = ty.cod
        head = ty.fn if isinstance(ty, T.App) else ty
        out[b.name] = "nat" if isinstance(head, T.Var) and head.name in ("Fin", "Nat", "ℕ") \
            else "real"
    return out


def _family_like(t: Ty) -> bool:
    """Families `Fin R → Vec n` (and nested ones) are compared pointwise."""
    while isinstance(t, FunT):
        if not isinstance(t.dom, FinT):
            return False
        t = t.cod
    return isinstance(t, (VecT, RealT))


def fact_holds(prop: T.Term, ctx: Ctx) -> bool:
    """Does a size fact (`0 < R`, `n ≠ 0`) follow from the context's hypotheses?  (Any fact
    that is one of them does: `2 ≤ R` for a definition that needs it.)"""
    if prop in ctx.facts:
        return True
    if isinstance(prop, T.Cmp) and prop.op in ("<", "≠"):
        if prop.op == "<" and not (isinstance(prop.lhs, T.Num) and prop.lhs.value == 0):
            return False
        target = prop.rhs if prop.op == "<" else prop.lhs
        return size_nonzero(target, ctx)
    return False


def nonzero_names(ctx_facts: list[T.Term]) -> set[str]:
    """Size names known nonzero from facts `0 < R`, `R ≠ 0`, `N * (h * w) ≠ 0`, `0 < N * h`,
    and `c ≤ R` or `c < R` for a number `c > 0` (`2 ≤ R`: at least two replicas)."""
    out: set[str] = set()
    for f in ctx_facts:
        target = None
        if isinstance(f, T.Cmp) and f.op in ("<", "≤") and isinstance(f.lhs, T.Num) and (
                f.lhs.value > 0 or f.op == "<" and f.lhs.value == 0):
            target = f.rhs
        elif isinstance(f, T.Cmp) and f.op == "≠" and isinstance(f.rhs, T.Num) and \
                f.rhs.value == 0:
            target = f.lhs
        # (`0 * a ≠ 0`, a contradiction, makes nothing nonzero: the kernel's reading)
        if target is not None and _is_monomial(target) and _monomial_coeff(target) != 0:
            out.update(_monomial_names(target))
    return out


def binder_facts(g: "GlobalDecl") -> list[T.Term]:
    """`0 < n` for each `Fin n` binder of a `∀` theorem: no index is below 0, so where `n = 0`
    the theorem holds vacuously (Lean's `r.pos`), and a `1 / R` cancels under `(r : Fin R)`
    (the seventy-first review).  Not for an `∃`'s binders (a witness must show its values),
    nor for typing (Lean's `x 0` needs `NeZero R`; here it needs a hypothesis): only for which
    sizes are nonzero when normalising."""
    if g.kind != "theorem" or g.existential:
        return []
    return [T.Cmp("<", T.Num(Fraction(0)), ty.size) for _, ty in g.binders
            if isinstance(ty, FinT)]


def with_ties(facts: list[T.Term], ties: tuple[tuple[str, T.Term], ...]) -> list[T.Term]:
    """The facts, and the facts with the size ties substituted: `0 < R` and `R = N` (tied as
    `R := N`, so a range `Fin R` reads `Fin N`, and the normaliser every `R`) give `0 < N`."""
    m = dict(ties)
    return facts + [subst_term(f, m) for f in facts] if m else facts


def size_nonzero(t: T.Term, ctx: Ctx) -> bool:
    if not _is_monomial(t):
        return False
    nz = nonzero_names(with_ties(ctx.facts, ctx.subst))
    for nm in _monomial_names(t):
        if nm not in nz:
            return False
    return _monomial_coeff(t) != 0


def _is_monomial(t: T.Term) -> bool:
    if isinstance(t, (T.Var, T.Num)):
        return True
    return isinstance(t, T.BinOp) and t.op == "*" and _is_monomial(t.lhs) and _is_monomial(t.rhs)


def _monomial_names(t: T.Term) -> list[str]:
    if isinstance(t, T.Var):
        return [t.name]
    if isinstance(t, T.BinOp):
        return _monomial_names(t.lhs) + _monomial_names(t.rhs)
    return []


def _monomial_coeff(t: T.Term) -> Fraction:
    if isinstance(t, T.Num):
        return t.value
    if isinstance(t, T.BinOp):
        return _monomial_coeff(t.lhs) * _monomial_coeff(t.rhs)
    return Fraction(1)


def _written_prefix(whole: T.Term, arg: T.Term) -> T.Term:
    """The application as the user wrote it, up to (not including) the argument ``arg``."""
    if isinstance(whole, T.App):
        for k, x in enumerate(whole.args):
            if x is arg:
                return whole.fn if k == 0 else T.App(whole.fn, whole.args[:k])
    return whole


def _app(f: T.Term, a: T.Term, whole: T.Term) -> T.Term:
    if isinstance(f, T.App):
        return T.App(f.fn, f.args + (a,), span=whole.span)
    return T.App(f, (a,), span=whole.span)


def _mentions_fin(t: T.Term, ctx: Ctx) -> bool:
    return any(isinstance(ctx.locals.get(n), FinT) for n in T.free_names(t))


def is_size_term(t: T.Term, ctx: Ctx) -> bool:
    """Built from the context's sizes, natural numerals, `+` and `*`."""
    return _is_size_term(t, ctx)


def _is_size_term(t: T.Term, ctx: Ctx) -> bool:
    cls = type(t)                       # (the common classes first, without isinstance)
    if cls is T.BinOp:
        return t.op in ("+", "*") and _is_size_term(t.lhs, ctx) and _is_size_term(t.rhs, ctx)
    if cls is T.Var:
        return isinstance(ctx.locals.get(t.name), NatT)
    if cls is T.Num:
        v = t.value                     # a natural numeral (numerator's sign is the value's)
        return v.denominator == 1 and v.numerator >= 0
    return _is_size_term_any(t, ctx)


def _is_size_term_any(t: T.Term, ctx: Ctx) -> bool:
    if isinstance(t, T.Var):
        return isinstance(ctx.locals.get(t.name), NatT)
    if isinstance(t, T.Num):
        return t.value.denominator == 1 and t.value >= 0
    if isinstance(t, T.BinOp) and t.op in ("+", "*"):
        return _is_size_term(t.lhs, ctx) and _is_size_term(t.rhs, ctx)
    return False


def _product(sizes: list[T.Term]) -> T.Term:
    out = sizes[-1]
    for s in reversed(sizes[:-1]):
        out = T.BinOp("*", s, out)
    return out


def split_size(size: T.Term, k: int) -> list[T.Term] | None:
    """Split a size into k factors at its top-level products, right-recursively.

    ``N * (c * (h * w))`` splits into ``[N, c * (h * w)]`` for k = 2 and ``[N, c, h * w]`` for 3.
    """
    if k == 1:
        return [size]
    if isinstance(size, T.BinOp) and size.op == "*":
        rest = split_size(size.rhs, k - 1)
        if rest is not None:
            return [size.lhs] + rest
    return None


def ty_to_term(ty: Ty) -> T.Term:
    if isinstance(ty, NatT):
        return T.Var("Nat")
    if isinstance(ty, RealT):
        return T.Var("ℝ")
    if isinstance(ty, PropT):
        return T.Var("Prop")
    if isinstance(ty, VecT):
        return T.App(T.Var("Vec"), (ty.size,))
    if isinstance(ty, FinT):
        return T.App(T.Var("Fin"), (ty.size,))
    if isinstance(ty, FunT):
        return T.Arrow(ty_to_term(ty.dom), ty_to_term(ty.cod))
    raise AssertionError(ty)


def match_size(pat: T.Term, val: T.Term, holes: set[str], binds: dict[str, T.Term],
               ctx: Ctx) -> bool:
    """First-order matching of a size pattern against a size (holes are pattern variables)."""
    if isinstance(pat, T.Var) and pat.name in holes:
        if pat.name in binds:
            return same_size(binds[pat.name], val, ctx)
        binds[pat.name] = val
        return True
    if isinstance(pat, T.BinOp) and isinstance(val, T.BinOp) and pat.op == val.op:
        saved = dict(binds)
        if match_size(pat.lhs, val.lhs, holes, binds, ctx) and \
                match_size(pat.rhs, val.rhs, holes, binds, ctx):
            return True
        binds.clear()
        binds.update(saved)
    if not (T.free_names(pat) & holes):
        return same_size(pat, val, ctx)
    return False


def match_type(pat: T.Term, ty: Ty, holes: set[str], ctx: Ctx) -> dict[str, T.Term] | None:
    binds: dict[str, T.Term] = {}
    return binds if _match_type_go(pat, ty, holes, binds, ctx) else None


def _match_type_go(p: T.Term, t: Ty, holes: set[str], binds: dict[str, T.Term],
                   ctx: Ctx) -> bool:
    """The walk of :func:`match_type` (not a recursive closure: no reference cycle)."""
    if isinstance(p, T.App) and isinstance(p.fn, T.Var) and p.fn.name in ("Vec", "Fin"):
        want = VecT if p.fn.name == "Vec" else FinT
        return isinstance(t, want) and match_size(p.args[0], t.size, holes, binds, ctx)
    if isinstance(p, T.Arrow):
        return isinstance(t, FunT) and _match_type_go(p.dom, t.dom, holes, binds, ctx) and \
            _match_type_go(p.cod, t.cod, holes, binds, ctx)
    if isinstance(p, T.Var):
        return {"Nat": NatT, "ℕ": NatT, "ℝ": RealT, "Real": RealT}.get(p.name) is type(t)
    return False


def check_binder_name(b: T.Binder, before: tuple[T.Binder, ...], ctx: "Ctx") -> None:
    """A binder may not repeat a name of its own group (`fun (i : Fin 3) (i : Fin 2)` would
    read one index twice) nor take a global's name: unfolding and rewriting find globals by
    name, so a local `gg` would be taken for the definition `gg`."""
    if any(o.name == b.name for o in before):
        raise _err(f"the binder `{b.name}` is declared twice", b, ctx)
    if b.name in TYPE_NAMES:          # (`Fin 3` would be a type here and a value there)
        raise _err(f"`{b.name}` names a type: a binder cannot reuse it", b, ctx)
    if b.name in ctx.locals:
        raise _err(f"`{b.name}` is already bound here; a `fun`, `∑` or `∀` binder may not "
                   "shadow it: use another name", b, ctx)
    g = ctx.env.get(b.name)
    if g is not None:
        where = f" ({g.path}:{g.span.line})" if g.span is not None and g.path else ""
        raise _err(f"`{b.name}` is the name of a {_KIND_WORD.get(g.kind, g.kind)}{where}: a "
                   "binder cannot reuse it; rename the binder", b, ctx)


_KIND_WORD = {"def": "definition", "opaque": "built-in op", "theorem": "theorem"}


def _infer_binder_walk(u: T.Term, name: str, ctx: Ctx, found: list[Ty]) -> None:
    """The walk of :meth:`Elaborator._infer_binder` (a function, not a recursive closure: that
    would be a reference cycle holding ``ctx``, hence the whole environment, until a full
    collection)."""
    if found:
        return
    if isinstance(u, T.App) and isinstance(u.fn, T.Var):
        head = ctx.locals.get(u.fn.name)
        ty = head
        for a in u.args:
            if not isinstance(ty, (FunT, VecT)):
                break
            if isinstance(a, T.Var) and a.name == name:
                found.append(ty.dom if isinstance(ty, FunT) else FinT(ty.size))
                return
            ty = ty.cod if isinstance(ty, FunT) else None
        g = ctx.env.get(u.fn.name)
        if g is not None and head is None:
            explicit = [p for p in g.params if not p.implicit and p.kind != "hyp"]
            for p, a in zip(explicit, u.args):
                if isinstance(a, T.Var) and a.name == name:
                    ty_t = p.ty_term
                    if isinstance(ty_t, T.App) and isinstance(ty_t.fn, T.Var) and \
                            ty_t.fn.name == "Fin":
                        pass  # depends on other args: fall through to generic search
    for c in u.children():
        _infer_binder_walk(c, name, ctx, found)


def _too_large(size: T.Term) -> bool:
    """A size the type checker does not expand (past MAX_SIZE_TERMS terms)."""
    try:
        arith.to_ipoly(size)
    except arith.NotASize as e:
        return "too large" in str(e)
    return False


def _mismatch(t: T.Term, want: Ty, got: Ty, ctx: Ctx, what: str = "this term"):
    if isinstance(want, RealT) and isinstance(got, FinT):
        return _err(f"an index ({got}) cannot be used as a real number ({what})", t, ctx)
    if isinstance(want, VecT) and isinstance(got, VecT) and _too_large(got.size):
        # (the forty-ninth review: it read `S ≠ S as polynomials`)
        msg = (f"the size {pretty(got.size)} in {what} is too large to compare: expanded, it "
               f"has more than {arith.MAX_SIZE_TERMS:,} terms")
    elif isinstance(want, VecT) and isinstance(got, VecT):
        msg = (f"size mismatch in {what}: expected {want}, got {got} "
               f"({pretty(want.size)} ≠ {pretty(got.size)} as polynomials)")
    else:
        msg = f"type mismatch in {what}: expected {want}, got {got}"
        body = t        # (a `fun m => if …` where a `Nat → Nat` is expected: its body)
        while isinstance(body, T.Lam) and isinstance(want, FunT) and isinstance(got, FunT):
            for _ in body.binders:
                want, got = getattr(want, "cod", want), getattr(got, "cod", got)
            body = body.body
        if isinstance(want, NatT) and isinstance(got, RealT) and isinstance(body, (T.Ite, T.Sum)):
            msg += (f" ({'an `if`' if isinstance(body, T.Ite) else 'a `∑`'} is always a real "
                    "number here: sizes are polynomials, with no cases or sums; make the type ℝ)")
    return _err(msg, t, ctx)


# Names a Lean user writes that are not names here, and what to write (the fifty-seventh
# review): `by` after a statement without `:=` (the statement reads `v by norm`), Mathlib's
# `abs`, `max`, `min`.
_LEAN_NAME_HINTS = {
    "by": "a proof follows `:=`: `theorem t … : statement := by norm`",
    "abs": "write `|x|` as `relu x + relu (-x)`, or `if 0 ≤ x then x else -x`",
    "max": "write `max a b` as `if a ≤ b then b else a`",
    "min": "write `min a b` as `if a ≤ b then a else b`"}


def _forgot_assign(t: T.Term) -> str | None:
    """The hint for `by` read as an argument: a proof written without `:=`."""
    return _LEAN_NAME_HINTS["by"] if isinstance(t, T.Var) and t.name == "by" else None


def _suggest(name: str, known: list[str]) -> str | None:
    import difflib

    if name in _LEAN_NAME_HINTS and name not in known:
        return _LEAN_NAME_HINTS[name]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.7)
    return ("did you mean " + ", ".join(f"`{c}`" for c in close) + "?") if close else None
