"""The ring/field oracle: rational polynomials over atoms.

The kernel's normal form (:mod:`shardproof.kernel.nf`) writes every real as a polynomial with
``Fraction`` coefficients over *atoms*: hashable tuples, tagged by their first element, that may
hold index polynomials (:class:`IPoly`) and the keys of other polynomials.  This module is the
arithmetic it calls and trusts, reached through the gateway :mod:`shardproof.arith` and named
``oracle:ring`` in every proof's axioms:

* the commutative-ring laws, decided by keeping polynomials as ``{monomial: coefficient}``
  dictionaries (a monomial is a sorted tuple of ``(atom, exponent)``, every coefficient nonzero);
* indicator atoms (tags in :data:`IDEMPOTENT`) are idempotent: ``[c]² = [c]``;
* the field inverse with Lean's ``x⁻¹ = 0`` at ``0``: a monomial's atoms that the caller says are
  invertible take a negative exponent, an atom ``("inv", a)`` becomes ``a`` again (and
  ``("invp", q)`` becomes ``q``), any other atom ``a`` becomes the atom ``("inv", a)``; a
  polynomial of several terms has the monomial ``g`` common to its terms inverted as above and
  the rest, ``q``, becomes the atom ``("invp", q / lead)`` (``(a·b)⁻¹ = a⁻¹·b⁻¹`` and
  ``(a⁻¹)⁻¹ = a`` hold for every value, so no step needs ``a ≠ 0`` unless the caller asserts
  it);
* index maps through atoms (renaming or substituting index variables inside keys).

Nothing here knows about terms.  ``tests/test_ring.py`` checks the laws on random polynomials.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .rewrite.ipoly import IPoly

IDEMPOTENT = ("pos", "ieq", "ilt")          # indicator atoms: [c]² = [c]
MAX_POWER_WORK = 100_000

# An atom is hashed, compared and ordered as a tree, though its parts are shared (a value used
# twice in each of K nested ops makes 2^K nodes): past this many it is refused, so the work
# stays bounded.  The library's largest atom has 247 nodes.
MAX_ATOM_NODES = 50_000


class TooLarge(ArithmeticError):
    """An atom past MAX_ATOM_NODES (the kernel refuses the step)."""


def nodes(x: Any, cap: int = MAX_ATOM_NODES) -> int:
    """The nodes of an atom's tree, counted up to just past ``cap``."""
    n, todo = 0, [x]
    while todo and n <= cap:
        u = todo.pop()
        n += 1
        if type(u) is tuple:
            todo.extend(u)
    return n


def srt(xs: Any) -> tuple:
    """A canonical order for monomials and polynomial keys (by ``repr``: deterministic)."""
    xs = tuple(xs)
    return xs if len(xs) < 2 else tuple(sorted(xs, key=repr))


def mono_mul(a: tuple, b: tuple) -> tuple:
    d = dict(a)
    for atom, e in b:
        d[atom] = 1 if atom[0] in IDEMPOTENT else d.get(atom, 0) + e
    return srt((x, e) for x, e in d.items() if e)


class RPoly:
    """A polynomial over atoms with rational coefficients: ``{monomial: coefficient}``."""

    __slots__ = ("d",)

    def __init__(self, d: dict | None = None) -> None:
        self.d = {m: c for m, c in (d or {}).items() if c != 0}

    @staticmethod
    def const(c: Fraction | int) -> RPoly:
        return RPoly({(): Fraction(c)})

    @staticmethod
    def atom(a: tuple, e: int = 1) -> RPoly:
        if nodes(a) > MAX_ATOM_NODES:
            raise TooLarge(f"an atom of more than {MAX_ATOM_NODES:,} nodes")
        return RPoly({((a, e),): Fraction(1)})

    def __add__(self, o: RPoly) -> RPoly:
        d = dict(self.d)
        for m, c in o.d.items():
            d[m] = d.get(m, 0) + c
        return RPoly(d)

    def scale(self, k: Fraction | int) -> RPoly:
        return RPoly({m: c * k for m, c in self.d.items()})

    def __sub__(self, o: RPoly) -> RPoly:
        return self + o.scale(-1)

    def __mul__(self, o: RPoly) -> RPoly:
        d: dict = {}
        for m1, c1 in self.d.items():
            for m2, c2 in o.d.items():
                m = mono_mul(m1, m2)
                d[m] = d.get(m, 0) + c1 * c2
        return RPoly(d)

    def power(self, e: int) -> RPoly:
        """``self ** e``, refused past MAX_POWER_WORK products of terms in all (the inverse's
        only product its caller's fuel does not count: `1 / (1 / (a + b + c + d + e)) ^ 64`
        ran 450 s)."""
        out, work = RPoly.const(1), 0
        for _ in range(e):
            work += len(out.d) * len(self.d)
            if work > MAX_POWER_WORK:
                raise TooLarge(f"a power of more than {MAX_POWER_WORK:,} products of terms")
            out = out * self
        return out

    def inverse(self, invertible: Callable[[tuple], bool]) -> RPoly:
        """``self⁻¹`` (``0⁻¹ = 0``); ``invertible(atom)``: the atom is known nonzero."""
        if not self.d:
            return RPoly()
        if len(self.d) > 1:
            # (g·q)⁻¹ = g⁻¹·q⁻¹ in a field with 0⁻¹ = 0 (Lean's `mul_inv`): the monomial g
            # common to every term (an indicator's [c] aside) is inverted as a monomial
            exps = [dict(m) for m in self.d]
            g = srt((a, min(x.get(a, 0) for x in exps))
                    for a in {a for x in exps for a in x} if a[0] not in IDEMPOTENT)
            g = tuple((a, e) for a, e in g if e)
            if g:
                q = RPoly({mono_mul(m, tuple((a, -e) for a, e in g)): c for m, c in self.d.items()})
                return RPoly({g: Fraction(1)}).inverse(invertible) * q.inverse(invertible)
            lead = min(self.d.items(), key=repr)[1]
            return RPoly.atom(("invp", self.scale(1 / lead).key())).scale(1 / lead)
        (m, c), = self.d.items()
        out = RPoly.const(1 / c)
        for a, e in m:
            out = out * (RPoly.atom(a[1], e) if a[0] == "inv" and e > 0 else
                         RPoly(dict(a[1][1])).power(e) if a[0] == "invp" and e > 0 else
                         RPoly.atom(a, -e) if invertible(a) else RPoly.atom(("inv", a), e))
        return out

    def key(self) -> tuple:
        return ("P", srt(self.d.items()))


def map_indices(x: Any, f: Callable[[IPoly], IPoly]) -> Any:
    """``f`` applied to every index polynomial of an atom or key, re-sorting what is sorted
    (polynomial keys and monomials)."""
    if isinstance(x, IPoly):
        return f(x)
    if not isinstance(x, tuple):
        return x
    if x and x[0] == "P":
        return ("P", srt((map_indices(m, f), c) for m, c in x[1]))
    out = tuple(map_indices(e, f) for e in x)
    if x and isinstance(x[0], tuple) and len(x[0]) == 2 and isinstance(x[0][1], int) \
            and isinstance(x[0][0], tuple):
        return srt(out)                                    # a monomial
    return out


def index_polys(x: Any) -> Any:
    """The index polynomials inside an atom or key, depth first."""
    if isinstance(x, IPoly):
        yield x
    elif isinstance(x, tuple):
        for e in x:
            yield from index_polys(e)


def index_vars(x: Any, memo: dict) -> frozenset[str]:
    """The index variables an atom or key mentions (``memo``: by identity, for shared keys)."""
    if isinstance(x, IPoly):
        return x.vars()
    if not isinstance(x, tuple):
        return frozenset()
    hit = memo.get(id(x))
    if hit is not None and hit[0] is x:
        return hit[1]
    out = frozenset().union(*(index_vars(e, memo) for e in x))
    memo[id(x)] = (x, out)
    return out
