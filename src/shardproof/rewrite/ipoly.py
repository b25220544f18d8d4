"""Integer polynomials for sizes and index expressions.

``r*N + n`` and ``n + N*r`` are the same :class:`IPoly`: a sorted tuple of (monomial,
coefficient) pairs, each monomial a sorted tuple of (variable, exponent).  Hand-written rather
than sympy because index arithmetic is on the engine's hot path (the prototype's profile was
dominated by sympy round-trips); exactness is the same: integer coefficients, no division.
"""

from __future__ import annotations

from typing import Iterable

Mono = tuple[tuple[str, int], ...]


def _mono_mul(a: Mono, b: Mono) -> Mono:
    if not a:
        return b
    if not b:
        return a
    d = dict(a)
    for v, e in b:
        d[v] = d.get(v, 0) + e
    return tuple(sorted(d.items()))


class IPoly:
    """An integer polynomial over named variables (sizes and index variables)."""

    __slots__ = ("terms", "_hash", "_vars", "_str")

    def __init__(self, terms: Iterable[tuple[Mono, int]] | dict[Mono, int] = ()) -> None:
        items = terms.items() if isinstance(terms, dict) else terms
        acc: dict[Mono, int] = {}
        for m, c in items:
            if c:
                acc[m] = acc.get(m, 0) + c
        self.terms: tuple[tuple[Mono, int], ...] = tuple(
            sorted((m, c) for m, c in acc.items() if c))
        self._hash = hash(self.terms)
        self._vars: frozenset[str] | None = None
        self._str: str | None = None

    @staticmethod
    def _of(terms: tuple[tuple[Mono, int], ...]) -> IPoly:
        """The polynomial of ``terms`` already in canonical form (sorted by monomial, distinct
        monomials, nonzero coefficients) -- the constructor without its normalisation."""
        p = _new(IPoly)
        p.terms = terms
        p._hash = hash(terms)
        p._vars = None
        p._str = None
        return p

    @staticmethod
    def _of_dict(d: dict[Mono, int]) -> IPoly:
        """The polynomial of ``{monomial: coefficient}`` (distinct monomials; zero coefficients
        dropped): the same result as ``IPoly(d)``."""
        # Monomials are distinct, so sorting the pairs sorts by monomial alone.
        return IPoly._of(tuple([mc for mc in sorted(d.items()) if mc[1]]))

    # ---- constructors
    @staticmethod
    def const(c: int) -> "IPoly":
        return IPoly({(): c}) if c else ZERO

    @staticmethod
    def var(name: str) -> "IPoly":
        p = _VARS.get(name)
        if p is None:
            p = _VARS[name] = IPoly({((name, 1),): 1})
        return p

    # ---- protocol
    def __eq__(self, other: object) -> bool:
        return isinstance(other, IPoly) and self.terms == other.terms

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: "IPoly") -> bool:
        return self.terms < other.terms

    def key(self) -> tuple:
        return self.terms

    def __repr__(self) -> str:
        return f"IPoly({self})"

    def __str__(self) -> str:
        s = self._str
        if s is None:
            s = self._str = self._format()
        return s

    def _format(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for m, c in self.terms:
            body = "*".join(v if e == 1 else f"{v}^{e}" for v, e in m)
            if not body:
                parts.append(str(c))
            elif c == 1:
                parts.append(body)
            elif c == -1:
                parts.append("-" + body)
            else:
                parts.append(f"{c}*{body}")
        return " + ".join(parts).replace("+ -", "- ")

    # ---- arithmetic
    def __add__(self, other: "IPoly") -> "IPoly":
        if not other.terms:
            return self
        if not self.terms:
            return other
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, 0) + c
        return IPoly._of_dict(d)

    def __neg__(self) -> "IPoly":
        return IPoly._of(tuple([(m, -c) for m, c in self.terms]))

    def __sub__(self, other: "IPoly") -> "IPoly":
        return self + (-other)

    def __mul__(self, other: "IPoly") -> "IPoly":
        if not self.terms or not other.terms:
            return ZERO
        return IPoly._of_dict(_mul_terms(self.terms, other.terms))

    def scale(self, k: int) -> "IPoly":
        return IPoly((m, c * k) for m, c in self.terms)

    # ---- inspection
    def vars(self) -> frozenset[str]:
        if self._vars is None:
            self._vars = frozenset(v for m, _ in self.terms for v, _ in m)
        return self._vars

    def is_const(self) -> bool:
        return all(not m for m, _ in self.terms)

    def const_value(self) -> int:
        for m, c in self.terms:
            if not m:
                return c
        return 0

    def is_zero(self) -> bool:
        return not self.terms

    def subst(self, mapping: dict[str, "IPoly"]) -> "IPoly":
        """Replace variables by polynomials."""
        if not mapping or not (self.vars() & mapping.keys()):
            return self
        acc: dict[Mono, int] = {}
        powers: dict[tuple[str, int], tuple[tuple[Mono, int], ...]] = {}
        for m, c in self.terms:
            # c · (the mapped factors, in order) · (the monomial of the unmapped variables)
            cur: tuple[tuple[Mono, int], ...] = (((), c),)
            rest: list[tuple[str, int]] = []
            for v, e in m:
                if v in mapping:
                    f = powers.get((v, e))
                    if f is None:
                        f = powers[(v, e)] = _power(mapping[v].terms, e)
                    cur = tuple(_mul_terms(cur, f).items())
                else:
                    rest.append((v, e))
            r = tuple(rest)
            for mm, cc in cur:
                if cc:
                    k = _mono_mul(mm, r)
                    acc[k] = acc.get(k, 0) + cc
        return IPoly._of_dict(acc)

    def rename(self, mapping: dict[str, str]) -> "IPoly":
        if not mapping or not (self.vars() & mapping.keys()):
            return self
        return IPoly((tuple(sorted((mapping.get(v, v), e) for v, e in m)), c)
                     for m, c in self.terms)

    def nonneg_coeffs(self) -> bool:
        return all(c >= 0 for _, c in self.terms)

    def as_monomial(self) -> tuple[int, Mono] | None:
        """``(c, m)`` when the polynomial is a single term ``c * m``."""
        if len(self.terms) == 1:
            m, c = self.terms[0]
            return c, m
        return None

    def divide_by_monomial(self, c: int, m: Mono) -> tuple["IPoly", "IPoly"]:
        """Split into (quotient, remainder): terms divisible by ``c*m`` and the rest."""
        md = dict(m)
        q: dict[Mono, int] = {}
        r: dict[Mono, int] = {}
        for tm, tc in self.terms:
            td = dict(tm)
            if tc % c == 0 and all(td.get(v, 0) >= e for v, e in md.items()):
                nd = {v: td[v] - md.get(v, 0) for v in td}
                nm = tuple(sorted((v, e) for v, e in nd.items() if e))
                q[nm] = q.get(nm, 0) + tc // c
            else:
                r[tm] = r.get(tm, 0) + tc
        return IPoly(q), IPoly(r)

    def degree_in(self, v: str) -> int:
        return max((dict(m).get(v, 0) for m, _ in self.terms), default=0)


def _mul_terms(a: tuple[tuple[Mono, int], ...], b: tuple[tuple[Mono, int], ...]
               ) -> dict[Mono, int]:
    """The product of two term tuples as ``{monomial: coefficient}`` (zeros not yet dropped)."""
    d: dict[Mono, int] = {}
    for m1, c1 in a:
        for m2, c2 in b:
            m = _mono_mul(m1, m2)
            d[m] = d.get(m, 0) + c1 * c2
    return d


def _power(t: tuple[tuple[Mono, int], ...], e: int) -> tuple[tuple[Mono, int], ...]:
    """``t ** e`` as a term tuple, nonzero coefficients."""
    if e <= 0:
        return (((), 1),)
    out = t
    for _ in range(e - 1):
        out = tuple((m, c) for m, c in _mul_terms(out, t).items() if c)
    return out


_new = object.__new__
_VARS: dict[str, IPoly] = {}
ZERO = IPoly()
ONE = IPoly({(): 1})


def max_over(p: IPoly, bounds: dict[str, IPoly]) -> IPoly | None:
    """An upper bound of ``p`` over ``0 ≤ v < bounds[v]``: every variable at its maximum.

    Only valid when ``p`` has nonnegative coefficients (it is then monotone in every variable);
    returns None otherwise.
    """
    if not p.nonneg_coeffs():
        return None
    return p.subst({v: b - ONE for v, b in bounds.items() if v in p.vars()})


def provably_nonneg(p: IPoly, at_least_one: set[str]) -> bool:
    """Is ``p ≥ 0`` for all naturals, given that the names in ``at_least_one`` are ≥ 1?

    Shifts each such name to ``1 + t`` and checks that every coefficient is nonnegative.
    """
    if p.nonneg_coeffs():
        return True
    shift = {v: IPoly.var(v) + ONE for v in at_least_one if v in p.vars()}
    return p.subst(shift).nonneg_coeffs()


def below(p: IPoly, bound: IPoly, bounds: dict[str, IPoly],
          known_positive: set[str] | frozenset[str] = frozenset()) -> bool:
    """Is ``0 ≤ p < bound`` whenever every variable ``v`` of ``bounds`` is below its bound?

    ``known_positive`` are sizes a hypothesis makes ≥ 1 (the bounds of used ranges are ≥ 1
    anyway: a range that is used is nonempty).
    """
    if not p.nonneg_coeffs():
        return False
    used = {v: b for v, b in bounds.items() if v in p.vars()}
    if len(p.terms) == 1 and p.terms[0][1] == 1 and len(p.terms[0][0]) == 1 and \
            p.terms[0][0][0][1] == 1:
        v = p.terms[0][0][0][0]
        if v in used and used[v] == bound:
            return True
    mx = max_over(p, used)
    if mx is None:
        return False
    positive: set[str] = set(known_positive)
    for b in used.values():
        mono = b.as_monomial()
        if mono is not None and mono[0] > 0:
            positive.update(v for v, _ in mono[1])
    return provably_nonneg(bound - ONE - mx, positive)
