"""The normal form: polynomials over atoms, with sums as first-class atoms.

A value is a :class:`Poly`: a sorted collection of (monomial, coefficient) pairs; a monomial is a
sorted product of atoms with nonzero integer exponents; coefficients are exact ``Fraction``\\ s.
Sizes and real scalars are atoms too, so ``1/(R·N·S)`` is the monomial ``R⁻¹·N⁻¹·S⁻¹``.
A negative exponent is allowed only on a size or scalar known to be nonzero (from a hypothesis);
any other reciprocal is the atom ``Rec(a)`` or ``InvP(p)``, which never cancel — so no rule ever
divides by something that might be zero (Lean's ``x / 0 = 0`` keeps every other step valid:
``(a·b)⁻¹ = a⁻¹·b⁻¹`` holds for all reals under that convention).

Atoms: ``Size``/``Scalar`` symbols, ``Acc`` (a tensor or replica-family variable at canonical
integer-polynomial indices), ``Fn`` (``sqrt``, ``exp`` of normal forms — congruence only), ``Op``
(an opaque per-example op at an output index, its tensor arguments as canonical lambdas),
``Jac`` (a Jacobian entry of a linear opaque op), ``Pos``/``EqZ`` (indicators ``[d > 0]``,
``[d = 0]``), ``SumA`` (a sum over an UNORDERED set of binders with a one-monomial body), ``Rec``,
``InvP``.  :func:`mk_sum` applies the sum rules; see :mod:`shardproof.rewrite.rules` for the list.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Iterable

from .ipoly import IPoly, ONE as IONE

Mono = tuple[tuple["Atom", int], ...]

_fresh = itertools.count()


def fresh(prefix: str = "$") -> str:
    return f"{prefix}{next(_fresh)}"


class FuelExhausted(Exception):
    """A bounded loop of the normaliser ran out of fuel."""


# Atoms one normalisation may build (the library's most is under 1,000).  Substitution and
# renaming inside sums build atoms without ticking the step fuel: a `* 1` added to a definition
# made one theorem build ~10,000 a second for 330 s (the forty-second review).
MAX_ATOMS = 100_000
_BUILT = [0]                 # atoms built so far (a context's budget ends at a count of it)
# Polynomial arithmetic one normalisation may do, in term operations (a pair of terms
# multiplied, a term added; one on b-bit coefficients counts 1 + b²/16·10⁶, as a Fraction
# operation on such numbers costs about 3·10⁻¹² s · b² against ~50 µs for a term pair).  The
# library's most is under 800; products of sums of 316 terms took 30 s, and powers of numerals
# with thousands of digits minutes (the forty-sixth review): this is a few seconds at most.
MAX_WORK = 50_000
BIG_BITS = 2048              # below this a coefficient's size is not charged
_WORK = [0, MAX_WORK]        # work done so far, and where the current normalisation's ends


def _charge(ops: int, bits: int) -> None:
    """Charge ``ops`` term operations on coefficients of up to ``bits`` bits."""
    _WORK[0] += ops if bits <= BIG_BITS else ops * (1 + bits * bits // 16_000_000)
    if _WORK[0] > _WORK[1]:
        from .normalize import EngineGap
        raise EngineGap(f"the normaliser's budget of {MAX_WORK:,} polynomial term operations "
                        "ran out")


class Atom:
    __slots__ = ("key", "fv", "height", "_hash")
    tag = "?"

    def _finish(self, key: tuple, fv: frozenset[str], height: int) -> None:
        _BUILT[0] += 1
        if self.tag > "2" and key_nodes(key) > MAX_KEY_NODES:
            from .normalize import EngineGap
            raise EngineGap(f"a term whose key has more than {MAX_KEY_NODES:,} nodes (a value "
                            "used several times inside nested ops or inverses)")
        self.key = key
        self.fv = fv
        self.height = height
        self._hash = hash(key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Atom) and self.key == other.key

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: "Atom") -> bool:
        return self.key < other.key

    def subst(self, m: dict[str, IPoly], ctx: "NFContext") -> "Poly":
        raise NotImplementedError

    def __repr__(self) -> str:
        return show_atom(self)


class Size(Atom):
    __slots__ = ("name",)
    tag = "0"

    def __init__(self, name: str) -> None:
        self.name = name
        self._finish(("0", name), frozenset(), 0)

    def subst(self, m, ctx):
        return Poly.atom(self)


class Scalar(Atom):
    __slots__ = ("name",)
    tag = "1"

    def __init__(self, name: str) -> None:
        self.name = name
        self._finish(("1", name), frozenset(), 0)

    def subst(self, m, ctx):
        return Poly.atom(self)


class Acc(Atom):
    """``name[i₁]…[i_k]``: a tensor (k = 1) or a replica-family member (k = 2) at an index."""

    __slots__ = ("name", "idx")
    tag = "2"

    def __init__(self, name: str, idx: tuple[IPoly, ...]) -> None:
        self.name = name
        self.idx = idx
        fv: frozenset[str] = frozenset().union(*(p.vars() for p in idx)) if idx else frozenset()
        self._finish(("2", name, tuple(p.key() for p in idx)), fv, 0)

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return Poly.atom(Acc(self.name, tuple(p.subst(m) for p in self.idx)))


class Fn(Atom):
    """An opaque scalar function of normal forms (``sqrt``, ``exp``): equal in, equal out."""

    __slots__ = ("name", "args")
    tag = "3"

    def __init__(self, name: str, args: tuple["Poly", ...]) -> None:
        self.name = name
        self.args = args
        fv = frozenset().union(*(a.fv for a in args)) if args else frozenset()
        self._finish(("3", name, tuple(a.key for a in args)), fv,
                     max((a.height for a in args), default=0))

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return Poly.atom(Fn(self.name, tuple(subst_poly(a, m, ctx) for a in self.args)))


class LamNF:
    """A tensor-valued argument ``fun (i₁ … i_k) => body`` over canonical binder names."""

    __slots__ = ("binders", "body", "key", "fv", "height")

    def __init__(self, binders: tuple[tuple[str, IPoly], ...], body: "Poly") -> None:
        self.binders = binders
        self.body = body
        names = {b for b, _ in binders}
        self.fv = body.fv - names
        self.height = body.height + 1
        self.key = ("L", tuple((b, bd.key()) for b, bd in binders), body.key)

    def subst(self, m: dict[str, IPoly], ctx: "NFContext") -> "LamNF":
        if not (self.fv & m.keys()):
            return self
        return canonical_lam(self.binders, subst_poly(self.body, m, ctx))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LamNF) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def _mixed_radix(digits: list[IPoly], radices: list[IPoly]) -> IPoly:
    flat = digits[0]
    for d, r in zip(digits[1:], radices[1:]):
        flat = flat * r + d
    return flat


def canonical_lam(binders: tuple[tuple[str, IPoly], ...], body: "Poly") -> LamNF:
    h = body.height + 1
    mapping = {b: f"#{h}.{k}" for k, (b, _) in enumerate(binders)}
    tmp = {b: fresh("%") for b in mapping}
    body2 = rename_poly(rename_poly(body, tmp), {tmp[b]: mapping[b] for b in mapping})
    return LamNF(tuple((mapping[b], bd) for b, bd in binders), body2)


Arg = "Poly | LamNF"


class Op(Atom):
    """An opaque per-example op (non-linear use) at output index ``out``."""

    __slots__ = ("name", "sizes", "args", "out")
    tag = "4"

    def __init__(self, name: str, sizes: tuple[IPoly, ...], args: tuple, out: IPoly) -> None:
        self.name, self.sizes, self.args, self.out = name, sizes, args, out
        fv = out.vars().union(*(s.vars() for s in sizes), *(a.fv for a in args))
        self._finish(("4", name, tuple(s.key() for s in sizes), tuple(a.key for a in args),
                      out.key()), frozenset(fv), max((a.height for a in args), default=0))

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return Poly.atom(Op(self.name, tuple(s.subst(m) for s in self.sizes),
                            tuple(_subst_arg(a, m, ctx) for a in self.args), self.out.subst(m)))


class Jac(Atom):
    """Entry ``(out, inp)`` of the matrix of a linear op: ``op(…, dy)[out] = Σ_inp J · dy[inp]``."""

    __slots__ = ("name", "sizes", "args", "out", "inp")
    tag = "5"

    def __init__(self, name: str, sizes: tuple[IPoly, ...], args: tuple, out: IPoly,
                 inp: IPoly) -> None:
        self.name, self.sizes, self.args, self.out, self.inp = name, sizes, args, out, inp
        fv = out.vars() | inp.vars()
        fv = fv.union(*(s.vars() for s in sizes), *(a.fv for a in args))
        self._finish(("5", name, tuple(s.key() for s in sizes), tuple(a.key for a in args),
                      out.key(), inp.key()), frozenset(fv),
                     max((a.height for a in args), default=0))

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return Poly.atom(Jac(self.name, tuple(s.subst(m) for s in self.sizes),
                             tuple(_subst_arg(a, m, ctx) for a in self.args), self.out.subst(m),
                             self.inp.subst(m)))


def _subst_arg(a, m, ctx):
    return a.subst(m, ctx) if isinstance(a, LamNF) else subst_poly(a, m, ctx)


class Pos(Atom):
    """The indicator ``[d > 0]``."""

    __slots__ = ("d",)
    tag = "6"

    def __init__(self, d: "Poly") -> None:
        self.d = d
        self._finish(("6", d.key), d.fv, d.height)

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return indicator_pos(subst_poly(self.d, m, ctx))


class EqZ(Atom):
    """The indicator ``[d = 0]`` (``d`` scaled so that its leading coefficient is 1)."""

    __slots__ = ("d",)
    tag = "7"

    def __init__(self, d: "Poly") -> None:
        self.d = d
        self._finish(("7", d.key), d.fv, d.height)

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return indicator_eqz(subst_poly(self.d, m, ctx))


class SumA(Atom):
    """``Σ_{binders} body`` with unordered binders, canonical names and a one-monomial body."""

    __slots__ = ("binders", "body")
    tag = "8"

    def __init__(self, binders: tuple[tuple[str, IPoly], ...], body: Mono) -> None:
        self.binders = binders
        self.body = body
        names = {b for b, _ in binders}
        fv = frozenset().union(*(a.fv for a, _ in body)) - names
        fv = fv.union(*(bd.vars() for _, bd in binders))
        self._finish(("8", tuple((b, bd.key()) for b, bd in binders),
                      tuple((a.key, e) for a, e in body)), frozenset(fv),
                     1 + max((a.height for a, _ in body), default=0))

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        body = subst_mono(self.body, m, ctx)
        return mk_sum([(b, bd.subst(m)) for b, bd in self.binders], body, ctx)


class InvP(Atom):
    """``1 / p`` for a polynomial with several terms (``p`` monic); never cancelled."""

    __slots__ = ("p",)
    tag = "9"

    def __init__(self, p: "Poly") -> None:
        self.p = p
        self._finish(("9", p.key), p.fv, p.height)

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return inverse(subst_poly(self.p, m, ctx), ctx)


class Rec(Atom):
    """``1 / a`` for an atom not known to be nonzero; never cancelled against ``a``."""

    __slots__ = ("a",)
    tag = "A"

    def __init__(self, a: Atom) -> None:
        self.a = a
        self._finish(("A", a.key), a.fv, a.height)

    def subst(self, m, ctx):
        if not (self.fv & m.keys()):
            return Poly.atom(self)
        return inverse(self.a.subst(m, ctx), ctx)


# --------------------------------------------------------------------------- polynomials

def _mono_key(m: Mono) -> tuple:
    return tuple((a.key, e) for a, e in m)


def mono_mul(a: Mono, b: Mono) -> Mono:
    if not a:
        return b
    if not b:
        return a
    d: dict[Atom, int] = dict(a)
    for at, e in b:
        d[at] = d.get(at, 0) + e
    out = []
    for at, e in d.items():
        if e == 0:
            continue
        if isinstance(at, (Pos, EqZ)) and e > 0:
            e = 1  # indicators are idempotent: [c]² = [c]
        out.append((at, e))
    out.sort(key=lambda x: x[0].key)
    return tuple(out)


class Poly:
    """A polynomial over atoms with Fraction coefficients (immutable, hashable).

    The sort key, hash, free variables and height are computed on first use: most polynomials
    are intermediate results that are never compared.
    """

    __slots__ = ("terms", "_key", "_fv", "_height", "_hash", "_bits")

    def __init__(self, d: dict[Mono, Fraction], _sorted: bool = False) -> None:
        if _sorted:
            self.terms: tuple[tuple[Mono, Fraction], ...] = tuple(d.items())
        else:
            items = [(m, c) for m, c in d.items() if c]
            if len(items) > 1:
                items.sort(key=lambda x: _mono_key(x[0]))
            self.terms = tuple(items)
        self._key: tuple | None = None
        self._fv: frozenset[str] | None = None
        self._height = -1
        self._hash: int | None = None
        self._bits = -1

    def bits(self) -> int:
        """The largest coefficient's size in bits (numerator and denominator)."""
        b = self._bits
        if b < 0:
            b = self._bits = max((c.numerator.bit_length() + c.denominator.bit_length()
                                  for _, c in self.terms), default=0)
        return b

    @property
    def key(self) -> tuple:
        k = self._key
        if k is None:
            k = self._key = tuple((_mono_key(m), c.numerator, c.denominator)
                                  for m, c in self.terms)
        return k

    @property
    def fv(self) -> frozenset[str]:
        f = self._fv
        if f is None:
            acc: set[str] = set()
            for m, _ in self.terms:
                for a, _ in m:
                    acc |= a.fv
            f = self._fv = frozenset(acc)
        return f

    @property
    def height(self) -> int:
        h = self._height
        if h < 0:
            h = 0
            for m, _ in self.terms:
                for a, _ in m:
                    if a.height > h:
                        h = a.height
            self._height = h
        return h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Poly) and self.key == other.key

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(self.key)
        return h

    def __repr__(self) -> str:
        return show_poly(self)

    def _repr_html_(self) -> str:
        from ..display import poly_html
        return poly_html(self)

    def _repr_latex_(self) -> str:
        from ..display import poly_latex
        return poly_latex(self)

    @staticmethod
    def const(c: Fraction | int) -> "Poly":
        return Poly({(): Fraction(c)})

    @staticmethod
    def atom(a: Atom, e: int = 1) -> "Poly":
        return Poly({((a, e),): Fraction(1)})

    @staticmethod
    def mono(m: Mono, c: Fraction = Fraction(1)) -> "Poly":
        return Poly({m: c})

    def is_zero(self) -> bool:
        return not self.terms

    def as_const(self) -> Fraction | None:
        if not self.terms:
            return Fraction(0)
        if len(self.terms) == 1 and not self.terms[0][0]:
            return self.terms[0][1]
        return None

    def __add__(self, other: "Poly") -> "Poly":
        if not other.terms:
            return self
        if not self.terms:
            return other
        _charge(len(other.terms), max(self.bits(), other.bits()))
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, Fraction(0)) + c
        return Poly(d)

    def __neg__(self) -> "Poly":
        return Poly({m: -c for m, c in self.terms}, _sorted=True)

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def __mul__(self, other: "Poly") -> "Poly":
        if not self.terms or not other.terms:
            return ZERO
        if len(other.terms) == 1 and not other.terms[0][0]:
            c = other.terms[0][1]
            return self if c == 1 else self.scale(c)
        if len(self.terms) == 1 and not self.terms[0][0]:
            c = self.terms[0][1]
            return other if c == 1 else other.scale(c)
        if len(self.terms) * len(other.terms) > MAX_PRODUCT:
            from .normalize import EngineGap
            raise EngineGap(f"a product of {len(self.terms)} by {len(other.terms)} terms is not "
                            "expanded")
        _charge(len(self.terms) * len(other.terms), max(self.bits(), other.bits()))
        d: dict[Mono, Fraction] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = mono_mul(m1, m2)
                d[m] = d.get(m, Fraction(0)) + c1 * c2
        return Poly(d)

    def scale(self, k: Fraction) -> "Poly":
        if k == 0:
            return ZERO
        if k == 1:
            return self
        _charge(len(self.terms),
                max(self.bits(), k.numerator.bit_length() + k.denominator.bit_length()))
        return Poly({m: c * k for m, c in self.terms}, _sorted=True)

    def pow(self, n: int) -> "Poly":
        """``self ** n``, bounded: an exponent above MAX_POWER, or a result past MAX_TERMS
        terms, is not expanded (the proof attempt stops with a reason instead of running on)."""
        from .normalize import EngineGap
        if n > MAX_POWER:
            shown = str(n) if n < 10 ** 12 else "a number past 10^12"
            raise EngineGap(f"a power above {MAX_POWER} is not expanded (^ {shown})")
        if self.bits() * n > MAX_COEFF_BITS:    # `((3 ^ 64) ^ 64) ^ 64) ^ 64` ran for minutes
            raise EngineGap(f"a power whose numbers pass {MAX_COEFF_BITS:,} bits is not "
                            "expanded")
        out = ONE
        for _ in range(n):
            if len(out.terms) * len(self.terms) > MAX_TERMS:
                raise EngineGap(f"expanding this power exceeds {MAX_TERMS} terms")
            out = out * self
        return out


MAX_POWER = 64
MAX_COEFF_BITS = 1 << 22        # as the evaluator's powers (semantics.POWER_BITS)
# A key is hashed and compared as a tree, though its parts are shared: `g x y (g x y (… z))`
# with `u` twice in each `g` doubles it at every level.  The library's largest has 569 nodes.
MAX_KEY_NODES = 50_000


def key_nodes(key: tuple) -> int:
    """The nodes of a key's tree, counted up to just past MAX_KEY_NODES (the ring oracle's
    counter: a key is a tree of tuples, as an atom is)."""
    from ..ring import nodes
    return nodes(key, MAX_KEY_NODES)


MAX_TERMS = 200_000
MAX_PRODUCT = 100_000            # term pairs in one product (the library's largest: 6)


ZERO = Poly({})
ONE = Poly.const(1)


# --------------------------------------------------------------------------- context

class NFContext:
    """What the normaliser knows about one theorem: nonzero names, index-variable bounds, fuel."""

    def __init__(self, nonzero: set[str], fuel: int = 200_000) -> None:
        self.atom_limit = _BUILT[0] + MAX_ATOMS
        _WORK[1] = _WORK[0] + MAX_WORK
        self.nonzero = nonzero
        self.bounds: dict[str, IPoly] = {}
        self.free_indices: set[str] = set()      # the theorem's own (constants to every sum)
        self.fuel = fuel
        self.rules_used: dict[str, int] = {}
        self.trace: list[dict] = []
        self.trace_limit = 400

    def tick(self, n: int = 1) -> None:
        self.fuel -= n
        if self.fuel < 0:
            raise FuelExhausted("the normaliser's step budget")
        if _BUILT[0] > self.atom_limit:
            raise FuelExhausted(f"the normaliser's budget of {MAX_ATOMS:,} built terms")

    def use(self, rule: str, detail: str | None = None, at: str = "") -> None:
        self.rules_used[rule] = self.rules_used.get(rule, 0) + 1
        if detail is not None and len(self.trace) < self.trace_limit:
            self.trace.append({"rule": rule, "at": at, "detail": detail})


# --------------------------------------------------------------------------- substitution

def subst_mono(m: Mono, mp: dict[str, IPoly], ctx: NFContext) -> Poly:
    out = ONE
    for a, e in m:
        if a.fv & mp.keys():
            pa = a.subst(mp, ctx)
            if e > 0:
                out = out * pa.pow(e)
            else:
                out = out * inverse(pa, ctx).pow(-e)
        else:
            out = out * Poly.atom(a, e)
    return out


def subst_poly(p: Poly, mp: dict[str, IPoly], ctx: NFContext) -> Poly:
    if not (p.fv & mp.keys()):
        return p
    ctx.tick(0)                          # (checks the budget of built terms: renaming inside
    out = ZERO                           # substituted sums builds many and ticks nothing)
    for m, c in p.terms:
        out = out + subst_mono(m, mp, ctx).scale(c)
    return out


def rename_poly(p: Poly, mp: dict[str, str]) -> Poly:
    """Rename index variables (a bijection onto unused names: no normal form can change)."""
    if not (p.fv & mp.keys()):
        return p
    return Poly({rename_mono(m, mp): c for m, c in p.terms})


def rename_mono(m: Mono, mp: dict[str, str]) -> Mono:
    out = [(rename_atom(a, mp), e) for a, e in m]
    out.sort(key=lambda x: x[0].key)
    return tuple(out)


def rename_atom(a: Atom, mp: dict[str, str]) -> Atom:
    if not (a.fv & mp.keys()):
        return a
    if isinstance(a, Acc):
        return Acc(a.name, tuple(p.rename(mp) for p in a.idx))
    if isinstance(a, Fn):
        return Fn(a.name, tuple(rename_poly(x, mp) for x in a.args))
    if isinstance(a, Op):
        return Op(a.name, tuple(s.rename(mp) for s in a.sizes),
                  tuple(_rename_arg(x, mp) for x in a.args), a.out.rename(mp))
    if isinstance(a, Jac):
        return Jac(a.name, tuple(s.rename(mp) for s in a.sizes),
                   tuple(_rename_arg(x, mp) for x in a.args), a.out.rename(mp), a.inp.rename(mp))
    if isinstance(a, Pos):
        return Pos(rename_poly(a.d, mp))
    if isinstance(a, EqZ):
        return EqZ(rename_poly(a.d, mp))
    if isinstance(a, SumA):
        inner = {k: v for k, v in mp.items() if k not in {b for b, _ in a.binders}}
        return SumA(tuple((b, bd.rename(inner)) for b, bd in a.binders),
                    rename_mono(a.body, inner))
    if isinstance(a, InvP):
        return InvP(rename_poly(a.p, mp))
    if isinstance(a, Rec):
        return Rec(rename_atom(a.a, mp))
    return a


def _rename_arg(x, mp):
    if isinstance(x, LamNF):
        inner = {k: v for k, v in mp.items() if k not in {b for b, _ in x.binders}}
        return LamNF(x.binders, rename_poly(x.body, inner))
    return rename_poly(x, mp)


# --------------------------------------------------------------------------- inverse, indicators

def _is_nonzero_atom(a: Atom, ctx: NFContext) -> bool:
    return isinstance(a, (Size, Scalar)) and a.name in ctx.nonzero


def inverse(p: Poly, ctx: NFContext) -> Poly:
    """``1 / p`` with Lean's ``1 / 0 = 0``: exact for monomials, an opaque atom otherwise."""
    c = p.as_const()
    if c is not None:
        return Poly.const(0 if c == 0 else 1 / c)
    if len(p.terms) == 1:
        m, coef = p.terms[0]
        out: list[tuple[Atom, int]] = []
        res: Poly = ONE
        for a, e in m:
            if e < 0 and isinstance(a, (Size, Scalar)):
                out.append((a, -e))          # (a⁻ᵉ)⁻¹ = aᵉ
            elif isinstance(a, Rec):
                out.append((a.a, e))         # (1/a)⁻¹ = a  (true also at a = 0)
            elif isinstance(a, InvP) and e > 0:
                res = res * a.p.pow(e)       # (1/p)⁻¹ = p  (true also at p = 0)
            elif _is_nonzero_atom(a, ctx):
                out.append((a, -e))
            else:
                out.append((Rec(a), e))
        for a, e in out:
            res = res * Poly.atom(a, e)
        ctx.use("inv_monomial")
        return res.scale(1 / coef)
    # (g·q)⁻¹ = g⁻¹·q⁻¹ (Lean's `mul_inv`, true at 0 too): g, the monomial common to every
    # term (indicators aside: [c]⁻¹ stays an atom), is inverted as a monomial, so
    # 1/(K·N + N) is 1/N · 1/(K + 1) (the seventy-fourth review)
    exps = [dict(m) for m, _ in p.terms]
    atoms = {a for m in exps for a in m if not isinstance(a, (Pos, EqZ))}
    content = tuple(sorted(((a, min(m.get(a, 0) for m in exps)) for a in atoms),
                           key=lambda x: x[0].key))
    content = tuple((a, e) for a, e in content if e)
    if content:
        ctx.use("inv_content")
        unit = Poly.mono(tuple((a, -e) for a, e in content))
        return inverse(Poly.mono(content), ctx) * inverse(p * unit, ctx)
    lead = p.terms[-1][1]
    q = p.scale(1 / lead)
    ctx.use("inv_opaque")
    return Poly.atom(InvP(q)).scale(1 / lead)


def indicator_pos(d: Poly) -> Poly:
    """``[d > 0]`` — decided when ``d`` is a constant."""
    c = d.as_const()
    if c is not None:
        return ONE if c > 0 else ZERO
    return Poly.atom(Pos(d))


def indicator_eqz(d: Poly) -> Poly:
    """``[d = 0]`` with ``d`` normalised to leading coefficient 1 (``[d = 0] = [−d = 0]``)."""
    c = d.as_const()
    if c is not None:
        return ONE if c == 0 else ZERO
    lead = d.terms[-1][1]
    return Poly.atom(EqZ(d.scale(1 / lead)))


# --------------------------------------------------------------------------- sums

def bound_as_poly(b: IPoly) -> Poly:
    """A size polynomial as a real polynomial over ``Size`` atoms."""
    out = ZERO
    for m, c in b.terms:
        term = Poly.const(c)
        for v, e in m:
            term = term * Poly.atom(Size(v), e)
        out = out + term
    return out


def mk_sum(binders: list[tuple[str, IPoly]], body: Poly, ctx: NFContext) -> Poly:
    """``Σ_{binders} body`` in normal form (rules `sum_*` of rules.py, in this order)."""
    ctx.tick()
    if not binders:
        return body
    # sum_fresh: rename every binder fresh (capture avoidance).
    ren = {b: fresh() for b, _ in binders}
    bs = [(ren[b], bd) for b, bd in binders]
    body = rename_poly(body, ren)
    for b, bd in bs:
        ctx.bounds[b] = bd
    # sum_unit_range / sum_empty_range
    zero_subst: dict[str, IPoly] = {}
    for b, bd in list(bs):
        if bd.is_const() and bd.const_value() == 1:
            zero_subst[b] = IPoly()
            ctx.use("sum_unit_range")
        elif bd.is_const() and bd.const_value() == 0:
            ctx.use("sum_empty_range")
            return ZERO
    if zero_subst:
        body = subst_poly(body, zero_subst, ctx)
        bs = [(b, bd) for b, bd in bs if b not in zero_subst]
        if not bs:
            return body
    out = ZERO
    if len(body.terms) > 1:
        ctx.use("sum_split_add")
    for m, c in body.terms:
        if c != 1 and c != 0:
            ctx.use("sum_pull_const")
        out = out + _sum_mono(list(bs), m, ctx).scale(c)
    return out


def _sum_mono(bs: list[tuple[str, IPoly]], m: Mono, ctx: NFContext) -> Poly:
    names = {b for b, _ in bs}
    bounds = dict(bs)
    atoms: list[tuple[Atom, int]] = list(m)
    # sum_absorb: a positive power of an inner sum that depends on our binders joins them.
    changed = True
    while changed:
        changed = False
        for i, (a, e) in enumerate(atoms):
            if isinstance(a, SumA) and e > 0 and (a.fv & names):
                ctx.tick()
                ctx.use("sum_absorb")
                del atoms[i]
                for _ in range(e):
                    ren = {b: fresh() for b, _ in a.binders}
                    for b, bd in a.binders:
                        names.add(ren[b])
                        bounds[ren[b]] = bd
                        ctx.bounds[ren[b]] = bd
                    atoms = list(mono_mul(tuple(atoms), rename_mono(a.body, ren)))
                changed = True
                break
    # sum_pull_out: factors free of every binder leave the sum.
    outside: list[tuple[Atom, int]] = []
    inside: list[tuple[Atom, int]] = []
    for a, e in atoms:
        (inside if a.fv & names else outside).append((a, e))
    if outside and inside:
        ctx.use("sum_pull_out")
    res = Poly.mono(tuple(sorted(outside, key=lambda x: x[0].key)))
    # sum_const: a binder nothing uses contributes its range.
    used: set[str] = set()
    for a, _ in inside:
        used |= a.fv
    for b in sorted(names - used):
        ctx.use("sum_const")
        res = res * bound_as_poly(bounds[b])
    live = sorted(b for b in names if b in used)
    if not live:
        return res
    # sum_components: binders linked through shared factors form one sum each.
    parent = {b: b for b in live}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, _ in inside:
        bs_a = [b for b in live if b in a.fv]
        for b in bs_a[1:]:
            parent[find(b)] = find(bs_a[0])
    groups: dict[str, list[str]] = {}
    for b in live:
        groups.setdefault(find(b), []).append(b)
    if len(groups) > 1:
        ctx.use("sum_components")
    for root in sorted(groups, key=lambda r: min(groups[r])):
        gb = groups[root]
        gatoms = [(a, e) for a, e in inside if a.fv & set(gb)]
        res = res * Poly.atom(_merge_and_close({b: bounds[b] for b in gb}, gatoms, ctx))
    return res


def _merge_and_close(bounds: dict[str, IPoly], atoms: list[tuple[Atom, int]],
                     ctx: NFContext) -> SumA:
    """Apply `sum_merge` until no pair merges, then name binders canonically."""
    body: Mono = tuple(sorted(atoms, key=lambda x: x[0].key))
    merged = True
    while merged and len(bounds) > 1:
        merged = False
        order = sorted(bounds)
        for u in order:
            for v in order:
                if u == v:
                    continue
                ctx.tick()
                w = fresh()
                V = bounds[v]
                sub = {v: IPoly.var(w) - IPoly.var(u) * V}
                trial = subst_mono(body, sub, ctx)
                if u in trial.fv or len(trial.terms) != 1:
                    continue
                (m2, c2), = trial.terms
                if c2 != 1:
                    continue
                shown = f"({V})" if "+" in str(V) else str(V)    # (#u: never a size's name)
                ctx.use("sum_merge", f"Σ_{{#u<{bounds[u]}}} Σ_{{#v<{V}}} f(#u·{shown} + #v) "
                        f"= Σ_{{#w<{bounds[u] * V}}} f(#w)")
                nb = {b: bd for b, bd in bounds.items() if b not in (u, v)}
                nb[w] = bounds[u] * V
                ctx.bounds[w] = nb[w]
                bounds = nb
                body = m2
                merged = True
                break
            if merged:
                break
    return canonical_sum(bounds, body, ctx)


def canonical_sum(bounds: dict[str, IPoly], body: Mono, ctx: NFContext) -> SumA:
    """Name binders ``#h.k`` (h = nesting height) in an order fixed by their signatures."""
    h = 1 + max((a.height for a, _ in body), default=0)
    names = list(bounds)

    def signature(b: str) -> tuple:
        mp = {x: ("?" if x == b else "*") for x in names}
        return (bounds[b].key(), _mono_key(rename_mono(body, mp)))

    sigs = {b: signature(b) for b in names}
    names.sort(key=lambda b: sigs[b])
    groups = [list(g) for _, g in itertools.groupby(names, key=lambda b: sigs[b])]
    orders: Iterable[tuple[str, ...]]
    n_perm = 1
    for g in groups:
        for k in range(2, len(g) + 1):
            n_perm *= k
    if n_perm == 1:
        orders = [tuple(names)]
    else:
        ctx.use("sum_alpha_ties")
        if n_perm > 720:
            orders = [tuple(names)]  # bounded: a tie this large is left in signature order
        else:
            orders = (tuple(itertools.chain.from_iterable(p)) for p in
                      itertools.product(*(itertools.permutations(g) for g in groups)))
    best: SumA | None = None
    tmp = {b: fresh("%") for b in names}
    body_tmp = rename_mono(body, tmp)
    for order in orders:
        mp = {tmp[b]: f"#{h}.{k}" for k, b in enumerate(order)}
        cand = SumA(tuple((mp[tmp[b]], bounds[b]) for b in order), rename_mono(body_tmp, mp))
        if best is None or cand.key < best.key:
            best = cand
    assert best is not None
    return best


# --------------------------------------------------------------------------- display

def show_poly(p: Poly) -> str:
    if not p.terms:
        return "0"
    parts = []
    for m, c in p.terms:
        s = _show_mono(m)
        if c.numerator.bit_length() + c.denominator.bit_length() > SHOW_BITS:
            c = _Big(c)              # (decimal digits of a huge number take quadratic time)
        if not s:
            parts.append(str(c))
        elif c == 1:
            parts.append(s)
        elif c == -1:
            parts.append("-" + s)
        else:
            parts.append(f"{c}·{s}")
    return " + ".join(parts).replace("+ -", "- ")


SHOW_BITS = 10_000             # a coefficient past this many bits is shown by its size


class _Big:
    """A huge coefficient as printed in a residual: its sign and its size in bits."""

    def __init__(self, c: Fraction) -> None:
        self.c = c

    def __eq__(self, other: object) -> bool:
        return False

    def __str__(self) -> str:
        sign, num, den = "-" if self.c < 0 else "", self.c.numerator, self.c.denominator
        if den == 1:
            return f"{sign}⟨an integer of {num.bit_length():,} bits⟩"
        return f"{sign}⟨a fraction of {num.bit_length():,} / {den.bit_length():,} bits⟩"


def _show_mono(m: Mono) -> str:
    # A Σ's body is the product right after it, up to the next `+`/`-`: a sum that is a factor
    # of a longer product, or raised to a power, is parenthesised (the sixty-eighth review:
    # `(Σ_i x[i])^2` printed as `Σ_i x[i]^2`, the sum of the squares).
    out = []
    for a, e in m:
        s = show_atom(a)
        if isinstance(a, SumA) and (e != 1 or len(m) > 1):
            s = f"({s})"
        out.append(s if e == 1 else f"{s}^{e}")
    return "·".join(out)


def _idx(p: IPoly) -> str:
    return str(p).replace(" ", "")


def show_atom(a: Atom) -> str:
    if isinstance(a, (Size, Scalar)):
        return a.name
    if isinstance(a, Acc):
        return a.name + "".join(f"[{_idx(p)}]" for p in a.idx)
    if isinstance(a, Fn):
        return f"{a.name}({', '.join(show_poly(x) for x in a.args)})"
    if isinstance(a, (Op, Jac)):
        args = ", ".join(_show_arg(x) for x in a.args)
        sz = ",".join(_idx(s) for s in a.sizes)
        ix = f"[{_idx(a.out)}]" + (f"[{_idx(a.inp)}]" if isinstance(a, Jac) else "")
        head = a.name if isinstance(a, Op) else f"J⟨{a.name}⟩"
        return f"{head}⟨{sz}⟩({args}){ix}"
    if isinstance(a, Pos):
        return f"[{show_poly(a.d)} > 0]"
    if isinstance(a, EqZ):
        return f"[{show_poly(a.d)} = 0]"
    if isinstance(a, SumA):
        bs = ", ".join(f"{b}<{_idx(bd)}" for b, bd in a.binders)
        return f"Σ_{{{bs}}} {_show_mono(a.body) or '1'}"
    if isinstance(a, InvP):
        return f"1/({show_poly(a.p)})"
    if isinstance(a, Rec):
        return f"1/({show_atom(a.a)})" if isinstance(a.a, SumA) else f"1/{show_atom(a.a)}"
    return "?"


def _show_arg(x) -> str:
    if isinstance(x, LamNF):
        bs = " ".join(f"{b}<{_idx(bd)}" for b, bd in x.binders)
        return f"(λ {bs}. {show_poly(x.body)})"
    return show_poly(x)


__all__ = ["Poly", "Atom", "Size", "Scalar", "Acc", "Fn", "Op", "Jac", "Pos", "EqZ", "SumA",
           "InvP", "Rec", "LamNF", "NFContext", "mk_sum", "inverse", "indicator_pos",
           "indicator_eqz", "bound_as_poly", "subst_poly", "FuelExhausted", "ZERO", "ONE",
           "IONE", "fresh"]
