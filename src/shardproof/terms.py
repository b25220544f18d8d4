"""Frozen, hashable terms of the `.lemma` language.

One small class per construct.  Children are tuples; every class is a frozen slotted dataclass,
so terms are immutable and hashable and ``t == type(t)(*fields)``.  The source span sits outside
equality (``compare=False``): two terms written at different places are equal.

Types are terms too, as in Lean: ``Vec n`` is ``App(Var("Vec"), (n,))``, ``Fin R → Vec n`` is an
:class:`Arrow`.  Constructors never normalise: what the user wrote is what is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction

from .errors import Span


@dataclass(frozen=True, slots=True)
class Term:
    """Base class.  ``span`` is where the term was written (not part of equality)."""

    def _repr_html_(self) -> str:
        from .display import term_html
        return term_html(self)

    def _repr_latex_(self) -> str:
        from .display import term_latex
        return term_latex(self)

    def children(self) -> tuple["Term", ...]:
        out: list[Term] = []
        for f in fields(self):
            if f.name == "span":
                continue
            v = getattr(self, f.name)
            if isinstance(v, Term):
                out.append(v)
            elif isinstance(v, tuple):
                out.extend(x for x in v if isinstance(x, Term))
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Var(Term):
    """A name: a variable, a definition, an opaque op or a type former (`Vec`, `Fin`, `Nat`, `ℝ`)."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Num(Term):
    """A numeral: a natural number (`2`) or a decimal (`0.1`, stored exactly as 1/10)."""

    value: Fraction
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class NamedArg(Term):
    """`(N := 2)`: an argument given by name (implicit arguments, witness assignments)."""

    name: str
    value: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class App(Term):
    """Application by juxtaposition, `f a b` (an op, a definition, a family `e r`, or `v i`)."""

    fn: Term
    args: tuple[Term, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Index(Term):
    """`X[i, j]`: multi-index; `X[i, j] = X (i * b + j)` when `X : Vec (a * b)`."""

    base: Term
    indices: tuple[Term, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class BinOp(Term):
    """Infix arithmetic: `+ - * / ^` and `•` (scalar times vector)."""

    op: str
    lhs: Term
    rhs: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Neg(Term):
    arg: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Binder(Term):
    """`(x y : T)` is two binders; ``implicit`` for `{…}`; ``ty`` is None when left to inference."""

    name: str
    ty: Term | None
    implicit: bool = False
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Lam(Term):
    """`fun (i : Fin a) (j : Fin b) => body`: a vector of size `a * b` (or a family over `Fin R`).

    ``vec`` is set by the type checker: True when the `fun` denotes a vector (read at ONE flat
    index), False when it is a function (a family or a map, applied argument by argument).
    """

    binders: tuple[Binder, ...]
    body: Term
    span: Span | None = field(default=None, compare=False, repr=False)
    vec: bool | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Sum(Term):
    """`∑ (i : Fin a) (j : Fin b), body`."""

    binders: tuple[Binder, ...]
    body: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Ite(Term):
    """`if cond then a else b` (cond is a comparison or a conjunction of comparisons)."""

    cond: Term
    then: Term
    els: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Cmp(Term):
    """A relation `a = b`, `a ≠ b`, `a < b`, `a ≤ b`, `a > b`, `a ≥ b` (a proposition)."""

    op: str
    lhs: Term
    rhs: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class And(Term):
    lhs: Term
    rhs: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Forall(Term):
    """`∀ r, P` or `∀ (r : Fin R) (s : ℝ), P`."""

    binders: tuple[Binder, ...]
    body: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Arrow(Term):
    """The function type `A → B` (replica families `Fin R → Vec n`, maps `Vec a → Vec b`)."""

    dom: Term
    cod: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class VecLit(Term):
    """`![0, 2]`: a literal vector (used in witnesses)."""

    items: tuple[Term, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class ProofStep(Term):
    """One tactic: `norm [l₁, l₂]`, `rw [l₁, he]`, `witness (R := 2) …`, `unfold [d]`."""

    tactic: str
    names: tuple[Var, ...] = ()
    assignments: tuple[NamedArg, ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Proof(Term):
    """`by step; step …`.  A theorem without `:=` gets ``Proof((ProofStep("norm"),))``."""

    steps: tuple[ProofStep, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Decl(Term):
    """Base for top-level items."""


@dataclass(frozen=True, slots=True)
class Import(Decl):
    """`import kit.defs` → ``<root>/kit/defs.lemma``."""

    path: tuple[str, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Variable(Decl):
    """`variable (R N : Nat)`: binders added to later declarations that mention them."""

    binders: tuple[Binder, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Def(Decl):
    """`def name binders : type := body` — a transparent definition (unfolded by the engine)."""

    name: str
    binders: tuple[Binder, ...]
    ret: Term
    body: Term
    doc: str | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Opaque(Decl):
    """`opaque name binders : type` — a primitive whose meaning is its numeric implementation.

    ``linear_in`` names the argument the op is linear in (`@[linear dy]`): the engine then writes
    ``op(…, dy)[k] = Σ_j J(…)[k, j] · dy[j]`` with an opaque Jacobian entry ``J``.
    """

    name: str
    binders: tuple[Binder, ...]
    ret: Term
    linear_in: str | None = None
    doc: str | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Theorem(Decl):
    """`theorem name binders : statement := by …`."""

    name: str
    binders: tuple[Binder, ...]
    stmt: Term
    proof: Proof
    doc: str | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Module(Term):
    """A parsed file: its path, the `/-! … -/` header and its declarations in order."""

    path: str
    header: str | None
    decls: tuple[Decl, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


def rebind(t: "Lam | Sum | Forall", binders: tuple[Binder, ...], body: Term) -> Term:
    """A binder form with new binders/body, keeping its other attributes (span, ``vec``)."""
    if isinstance(t, Lam):
        return Lam(binders, body, span=t.span, vec=t.vec)
    return type(t)(binders, body, span=t.span)


def free_names(t: Term, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names used in ``t`` and not bound inside it (by `fun`, `∑`, `∀`)."""
    out: set[str] = set()

    def go(u: Term, b: frozenset[str]) -> None:
        if isinstance(u, Var):
            if u.name not in b:
                out.add(u.name)
        elif isinstance(u, (Lam, Sum, Forall)):
            inner = set(b)
            for bd in u.binders:
                if bd.ty is not None:
                    go(bd.ty, frozenset(inner))
                inner.add(bd.name)
            go(u.body, frozenset(inner))
        elif isinstance(u, NamedArg):
            go(u.value, b)
        else:
            for c in u.children():
                go(c, b)

    go(t, bound)
    return out
