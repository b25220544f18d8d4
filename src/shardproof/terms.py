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
from operator import attrgetter
from typing import Any

from .errors import Span


class _MemoSlots:
    """Where a term keeps what it memoises: its hash (``_h``, see :func:`_install_methods`), its
    free names (``_fv``, see :func:`free_names`) and its size as a tree (``_sz``, see
    :func:`tree_size`).  Not fields: outside equality, hashing, ``repr`` and pickling (a term is
    immutable, so none ever goes stale)."""

    __slots__ = ("_fv", "_h", "_sz")


@dataclass(frozen=True, slots=True)
class Term(_MemoSlots):
    """Base class.  ``span`` is where the term was written (not part of equality)."""

    def _repr_html_(self) -> str:
        from .display import term_html
        return term_html(self)

    def _repr_latex_(self) -> str:
        from .display import term_latex
        return term_latex(self)

    def children(self) -> tuple["Term", ...]:
        """The term fields (and the terms inside tuple fields) but the span, in field order.

        Every term class gets an unrolled copy of this loop (:func:`_install_methods`)."""
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
    # written with a decimal point (`2.0` too): Lean's default type for it is `Float`, not ℕ
    decimal: bool = field(default=False, compare=False, repr=False)


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
class Exists(Term):
    """`∃ (R N : Nat) (hR : 0 < R) (X : Vec …), a ≠ b`: only as a theorem's whole statement,
    where the elaborator reads its binders as the variables a witness gives values to."""

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
    """`by step; step …`.  A theorem without `:=` gets ``Proof((ProofStep("norm"),))``,
    ``implicit`` (not written: printed back without `:=`)."""

    steps: tuple[ProofStep, ...]
    span: Span | None = field(default=None, compare=False, repr=False)
    implicit: bool = field(default=False, compare=False, repr=False)


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
class Include(Decl):
    """`include hR hN`: every later theorem of the file takes these `variable` binders (and
    those their types mention) whether it mentions them or not, as Lean's `include`."""

    names: tuple[str, ...]
    spans: tuple[Span | None, ...] = field(default=(), compare=False, repr=False)
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


def _hash_fields(cls: type) -> list[str]:
    """The fields the dataclass ``__hash__`` of ``cls`` hashes (dataclasses' own rule)."""
    return [f.name for f in fields(cls) if (f.compare if f.hash is None else f.hash)]


def _memo_hash(cls: type) -> Any:
    """The dataclass hash of ``cls``, ``hash((self.f, …))``, remembered in the ``_h`` slot.
    The fields are read by one C-level ``attrgetter``: one Python frame per level of a term,
    as with the generated dataclass hash (deep terms, recursion limit)."""
    names = _hash_fields(cls)
    get = attrgetter(*names) if names else (lambda self: ())
    single = len(names) == 1

    def __hash__(self: Any) -> int:
        try:
            return self._h
        except AttributeError:
            pass
        h = hash((get(self),) if single else get(self))
        object.__setattr__(self, "_h", h)
        return h
    __hash__.__qualname__ = f"{cls.__name__}.__hash__"
    return __hash__


def _children_method(cls: type) -> Any:
    """``children`` for ``cls`` with its field names looked up once (the generic loop of
    :meth:`Term.children`, same result)."""
    names = [f.name for f in fields(cls) if f.name != "span"]

    def children(self: Any) -> tuple[Term, ...]:
        out: list[Term] = []
        for n in names:
            v = getattr(self, n)
            if isinstance(v, Term):
                out.append(v)
            elif isinstance(v, tuple):
                out.extend([x for x in v if isinstance(x, Term)])
        return tuple(out)
    children.__qualname__ = f"{cls.__name__}.children"
    children.__doc__ = Term.children.__doc__
    return children


def _map_children_method(cls: type) -> Any:
    """``map_children`` for ``cls``: the term with ``f`` applied to each child term (inside
    tuple fields too, so binders' types), span kept; the term itself when no child changed
    (terms are shared, not copied)."""
    names = [f.name for f in fields(cls)]

    def map_children(self: Any, f: Any) -> Any:
        vals, changed = {}, False
        for n in names:
            v = getattr(self, n)
            if isinstance(v, Term):
                w = vals[n] = f(v)
                changed = changed or w is not v
            elif isinstance(v, tuple):
                w = vals[n] = tuple([f(x) if isinstance(x, Term) else x for x in v])
                changed = changed or any(a is not b for a, b in zip(w, v))
            else:
                vals[n] = v
        return cls(**vals) if changed else self
    map_children.__qualname__ = f"{cls.__name__}.map_children"
    return map_children


def _install_methods() -> None:
    """Give every term class (1) a ``children`` and a ``map_children`` with its field names
    looked up once and (2) a ``__hash__`` that remembers the dataclass hash (the same value, computed once).  Terms are
    immutable, so a remembered hash never goes stale; it is not pickled (the dataclass state is
    the fields only), so a term sent to another process computes it again there."""
    todo, seen = [Term], set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        todo.extend(cls.__subclasses__())
        if "__hash__" in cls.__dict__ and cls.__dict__["__hash__"] is not None:
            cls.__hash__ = _memo_hash(cls)
        if cls is not Term:         # the generic loop stays on the base class
            cls.children = _children_method(cls)
            cls.map_children = _map_children_method(cls)


_install_methods()


def rebind(t: "Lam | Sum | Forall | Exists", binders: tuple[Binder, ...], body: Term) -> Term:
    """A binder form with new binders/body, keeping its other attributes (span, ``vec``)."""
    if isinstance(t, Lam):
        return Lam(binders, body, span=t.span, vec=t.vec)
    return type(t)(binders, body, span=t.span)


TREE_SIZE_CAP = 1 << 30


def tree_size(t: Term) -> int:
    """The nodes of ``t`` as a tree (a shared subterm counted at each of its occurrences, so
    `x = x + x` rewritten k times is 2^k), at most TREE_SIZE_CAP; memoised in each node, so a
    term that shares most of its parts with one measured before costs only its new nodes."""
    todo = [t]
    while todo:
        u = todo[-1]
        if getattr(u, "_sz", None) is not None:
            todo.pop()
            continue
        kids = u.children()
        pending = [c for c in kids if getattr(c, "_sz", None) is None]
        if pending:
            todo.extend(pending)
            continue
        object.__setattr__(u, "_sz", min(TREE_SIZE_CAP, 1 + sum(c._sz for c in kids)))
        todo.pop()
    return t._sz


def free_names(t: Term, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names used in ``t`` and not bound inside it (by `fun`, `∑`, `∀`).

    A fresh set (callers may change it), filled in the order of the names' first free
    occurrences (a pre-order walk), as the walk itself would fill it."""
    names = _free(t)
    if not bound:
        return set(names)
    return {x for x in names if x not in bound}


def free_names_seq(t: Term) -> tuple[str, ...]:
    """The free names of ``t`` (as :func:`free_names`) in the order of their first occurrence,
    as a tuple shared with the term's memo (read-only, no copy)."""
    return _free(t)


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """``a`` then the names of ``b`` not in ``a`` (first-occurrence order is kept)."""
    if not b or a == b:
        return a
    if not a:
        return b
    if len(a) > 16:
        seen = set(a)
        extra = tuple([x for x in b if x not in seen])
    else:
        extra = tuple([x for x in b if x not in a])
    return a + extra if extra else a


def _free(u: Term) -> tuple[str, ...]:
    """The free names of ``u`` in the order of their first occurrence, memoised in the term."""
    res = getattr(u, "_fv", None)
    if res is not None:
        return res
    cls = type(u)               # the common classes first, their children read directly
    if cls is Var:
        res = (u.name,)
    elif cls is Num:
        res = ()
    elif cls is BinOp or cls is Cmp or cls is And:
        res = _union(_free(u.lhs), _free(u.rhs))
    elif cls is App:
        res = _free(u.fn)
        for a in u.args:
            res = _union(res, _free(a))
    elif isinstance(u, Var):
        res = (u.name,)
    elif isinstance(u, (Lam, Sum, Forall, Exists)):
        out: list[str] = []
        seen: set[str] = set()
        inner: set[str] = set()
        for bd in u.binders:
            if bd.ty is not None:
                for x in _free(bd.ty):
                    if x not in inner and x not in seen:
                        seen.add(x)
                        out.append(x)
            inner.add(bd.name)
        for x in _free(u.body):
            if x not in inner and x not in seen:
                seen.add(x)
                out.append(x)
        res = tuple(out)
    elif isinstance(u, NamedArg):
        res = _free(u.value)
    else:
        kids = u.children()
        if not kids:
            res = ()
        elif len(kids) == 1:
            res = _free(kids[0])
        else:
            out = []
            seen = set()
            for c in kids:
                for x in _free(c):
                    if x not in seen:
                        seen.add(x)
                        out.append(x)
            res = tuple(out)
    object.__setattr__(u, "_fv", res)
    return res
