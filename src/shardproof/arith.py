"""The arithmetic gateway: the only module that imports sympy.

Used for (1) deciding size equalities in types, exactly (``(R*N)*(c*h*w) = R*(N*(c*h*w))``),
(2) the range check of index expressions (``r*N + n < R*N`` when ``r < R``, ``n < N``), and
(3) exact real numbers for counterexamples (``sqrt``, ``exp`` of rationals).  Only exact
``Integer``/``Rational`` values are built here; never ``Float``.

(1) and (2) first run on the engine's canonical integer polynomials (``rewrite.ipoly``), which
decide polynomial identity exactly and cost microseconds; sympy is the fallback for the range
check and the tests cross-check both paths.  sympy itself is imported on first use, so a run
that needs no exact reals never pays its import.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from . import terms as T
from .rewrite.ipoly import IPoly, below
# The ring/field oracle, re-exported: the kernel reaches it only through this gateway.
from .ring import RPoly, index_polys, index_vars, map_indices, nodes, srt


class NotASize(Exception):
    """The term is not built from size names, numerals, `+` and `*`."""


_SYMPY: Any = None


def sp() -> Any:
    """The sympy module, imported on first use."""
    global _SYMPY
    if _SYMPY is None:
        import sympy as _s
        _SYMPY = _s
    return _SYMPY


class _LazySympy:
    """``sympy.X`` without importing sympy until the first such use."""

    def __getattr__(self, name: str) -> Any:
        return getattr(sp(), name)


sympy = _LazySympy()


def to_sympy(t: T.Term, subst: tuple[tuple[str, T.Term], ...] = ()) -> "sympy.Expr":
    """A size (or index) term as a sympy polynomial; ``subst`` replaces names first."""
    return _to_sympy(t, subst)


@lru_cache(maxsize=65536)
def _to_sympy(t: T.Term, subst: tuple[tuple[str, T.Term], ...]) -> "sympy.Expr":
    if isinstance(t, T.Var):
        for name, val in subst:
            if name == t.name:
                return _to_sympy(val, subst)
        return sympy.Symbol(t.name, integer=True, nonnegative=True)
    if isinstance(t, T.Num):
        if t.value.denominator != 1:
            raise NotASize(f"{t.value} is not a natural number")
        return sympy.Integer(t.value.numerator)
    if isinstance(t, T.BinOp) and t.op in ("+", "*"):
        a, b = _to_sympy(t.lhs, subst), _to_sympy(t.rhs, subst)
        return sympy.expand(a + b if t.op == "+" else a * b)
    raise NotASize(type(t).__name__)


@lru_cache(maxsize=65536)
def to_ipoly(t: T.Term, subst: tuple[tuple[str, T.Term], ...] = ()) -> IPoly:
    """A size (or index) term as a canonical integer polynomial."""
    if isinstance(t, T.Var):
        for name, val in subst:
            if name == t.name:
                return to_ipoly(val, subst)
        return IPoly.var(t.name)
    if isinstance(t, T.Num):
        if t.value.denominator != 1:
            raise NotASize(f"{t.value} is not a natural number")
        return IPoly.const(t.value.numerator)
    if isinstance(t, T.BinOp) and t.op in ("+", "*"):
        a, b = to_ipoly(t.lhs, subst), to_ipoly(t.rhs, subst)
        if t.op == "*" and len(a.terms) * len(b.terms) > MAX_SIZE_TERMS:
            # a "size" this large is a product of sums of reals met by matching: not expanded
            raise NotASize("a product too large to expand as a size")
        return a + b if t.op == "+" else a * b
    raise NotASize(type(t).__name__)


MAX_SIZE_TERMS = 10_000


@lru_cache(maxsize=65536)
def sizes_equal(a: T.Term, b: T.Term, subst: tuple[tuple[str, T.Term], ...] = ()) -> bool:
    """Exact equality of two size expressions as polynomials (after ``subst``)."""
    return to_ipoly(a, subst) == to_ipoly(b, subst)


def sizes_equal_sympy(a: T.Term, b: T.Term, subst: tuple[tuple[str, T.Term], ...] = ()) -> bool:
    """The same decision by sympy (the tests cross-check the two)."""
    return sp().expand(_to_sympy(a, subst) - _to_sympy(b, subst)) == 0


def _nonneg_coeffs(expr: "sympy.Expr", gens: list) -> bool:
    expr = sympy.expand(expr)
    if expr == 0:
        return True
    if not gens:
        return bool(expr >= 0)
    poly = sympy.Poly(expr, *gens)
    return all(c >= 0 for c in poly.coeffs())


def _expansion_terms(ip: IPoly, bounds: dict[str, IPoly]) -> int:
    """An upper bound on the terms of ``ip`` with each variable put at its bound minus one: a
    t-term bound to the d-th power has at most C(d + t, t) terms (the forty-ninth review)."""
    from math import comb
    est = max(len(ip.terms), 1)
    for v in ip.vars() & bounds.keys():
        est *= comb(ip.degree_in(v) + len(bounds[v].terms) + 1, len(bounds[v].terms) + 1)
        if est > MAX_SIZE_TERMS:
            break
    return est


def index_in_range(index: T.Term, bound: T.Term, var_bounds: dict[str, T.Term],
                   subst: tuple[tuple[str, T.Term], ...] = (),
                   positive_names: frozenset[str] = frozenset()) -> bool:
    """Is ``index < bound`` for every value of the index variables (``v < var_bounds[v]``)?

    Sound and incomplete: the index must be a polynomial with nonnegative coefficients in the
    index variables; we bound it by putting every variable at its maximum ``B_v - 1`` and show
    ``bound - 1 - max`` has nonnegative coefficients once every size that bounds a variable is
    written ``1 + t`` (a range that is used is nonempty).
    """
    try:
        ip = to_ipoly(index, subst)
        bounds = {v: to_ipoly(b, subst) for v, b in var_bounds.items()}
        bp = to_ipoly(bound, subst)
        pos = set(positive_names)
        if _expansion_terms(ip, bounds) > MAX_SIZE_TERMS:
            return False        # (not shown; `(s₀ + … + s₉ − 1)⁹` ran sympy for minutes)
        if below(ip, bp, bounds, pos):
            return True
    except NotASize:
        raise
    idx = _to_sympy(index, subst)
    bnd = _to_sympy(bound, subst)
    ivars = {v: sympy.Symbol(v, integer=True, nonnegative=True) for v in var_bounds}
    used = [ivars[v] for v in var_bounds if ivars[v] in idx.free_symbols]
    if used and not _nonneg_coeffs(idx, used):
        return False
    maxval = idx.subs({ivars[v]: _to_sympy(var_bounds[v], subst) - 1
                       for v in var_bounds if ivars[v] in idx.free_symbols})
    diff = sympy.expand(bnd - 1 - maxval)
    positive: set[sympy.Symbol] = {sympy.Symbol(n, integer=True, nonnegative=True)
                                    for n in positive_names}
    for v in var_bounds:
        if ivars[v] in idx.free_symbols:
            b = _to_sympy(var_bounds[v], subst)
            factors = b.as_ordered_factors() if isinstance(b, sympy.Mul) else [b]
            for f in factors:
                if isinstance(f, sympy.Symbol):
                    positive.add(f)
                elif isinstance(f, sympy.Pow) and isinstance(f.base, sympy.Symbol):
                    positive.add(f.base)
    shifted = diff.subs({s: s + 1 for s in positive}, simultaneous=True)
    gens = sorted(shifted.free_symbols, key=lambda s: s.name)
    return _nonneg_coeffs(shifted, gens)


def digits(p: IPoly, sizes: list[IPoly], bounds: dict[str, IPoly],
           positive: frozenset[str]) -> list[IPoly] | None:
    """``p = d₁·(B₂⋯Bₖ) + … + dₖ`` for ``sizes = [B₁, …, Bₖ]``, with every ``0 ≤ dⱼ < Bⱼ``
    (the top digit ``d₁`` too) shown by :func:`below` over the index variables' ``bounds``;
    None when a range is not a monomial or a digit is not shown in range."""
    out: list[IPoly] = []
    for b in reversed(sizes[1:]):
        mono = b.as_monomial()
        if mono is None or mono[0] <= 0:
            return None
        q, r = p.divide_by_monomial(*mono)
        if not below(r, b, {v: bounds[v] for v in r.vars() if v in bounds}, positive):
            return None
        out.append(r)
        p = q
    if not below(p, sizes[0], {v: bounds[v] for v in p.vars() if v in bounds}, positive):
        return None                                  # the top digit too: a read in range
    return [p] + out[::-1]


def size_value(t: T.Term, values: dict[str, int]) -> int:
    """Evaluate a size term at concrete sizes."""
    if isinstance(t, T.Var):
        return values[t.name]
    if isinstance(t, T.Num):
        return int(t.value)
    if isinstance(t, T.BinOp):
        a, b = size_value(t.lhs, values), size_value(t.rhs, values)
        return a + b if t.op == "+" else a * b
    raise NotASize(type(t).__name__)


# ---- exact reals for counterexamples -----------------------------------------------------------

def exact(x: Fraction | int) -> sympy.Expr:
    x = Fraction(x)
    return sympy.Rational(x.numerator, x.denominator)


def exact_sqrt(x: sympy.Expr) -> sympy.Expr:
    return sympy.sqrt(x)


def exact_exp(x: sympy.Expr) -> sympy.Expr:
    """``exp(x)``, left unevaluated for an irrational ``x``: sympy's own evaluation asks for
    the real and imaginary parts and signs of nested exponentials, which took minutes on the
    swish chain of an EfficientNet block (the sixty-second review); ``exp(0)`` is still 1."""
    return sympy.exp(x, evaluate=bool(x.is_Rational))


def exact_str(x: sympy.Expr) -> str:
    """An exact number as text, as sympy prints it but for Euler's number: `exp(1)`, not `E`,
    which a reader takes for a variable (`28/(1 + exp(1))**2`; the sixty-eighth review)."""
    global _PRINTER
    if _PRINTER is None:
        class _Printer(sp().printing.str.StrPrinter):
            def _print_Exp1(self, expr: Any) -> str:
                return "exp(1)"
        _PRINTER = _Printer()
    return _PRINTER.doprint(x)


_PRINTER: Any = None


# ---- conversions and signs for the evaluator (shardproof.semantics) ----------------------------

def to_exact(x: object) -> sympy.Expr:
    """An exact sympy number from an int, Fraction, binary float (read exactly) or sympy number.

    Floats are converted digit-for-digit (``0.5`` is 1/2, ``0.1`` is 3602879701896397/2**55): the
    evaluator samples data as small dyadic numbers so that the exact reading is the intended one.
    """
    if isinstance(x, sympy.Basic):
        return x  # type: ignore[return-value]
    if isinstance(x, bool):
        return sympy.Integer(int(x))
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, Fraction):
        return exact(x)
    if isinstance(x, float):
        return exact(Fraction(x))
    if hasattr(x, "item"):  # numpy scalar
        return to_exact(x.item())  # type: ignore[union-attr]
    raise TypeError(f"cannot read {x!r} as an exact number")


def is_exact(x: object) -> bool:
    return isinstance(x, sympy.Basic)


class UndecidedSign(ArithmeticError):
    """The sign of an exact real could not be decided (sympy cannot evaluate it to 60 or 300
    correct digits, nor show it is zero)."""


def _digits(e: sympy.Expr, n: int) -> sympy.Float | None:
    """``e`` to ``n`` CORRECT digits, or None when sympy cannot reach them.  (Plain ``N`` then
    returns a Float without one correct digit: ``-0.e+22`` for e⁵⁰⁰·((1 + √2)³ − (7 + 5√2)),
    which is 0 — a red-team review had a false `≠` proved and a true `=` refuted by its sign.)"""
    try:
        v = e.evalf(n, strict=True, maxn=4 * n)
    except (ArithmeticError, ValueError, TypeError):      # PrecisionExhausted is a ValueError
        return None
    return v if v.is_Float else None


def exact_sign(x: object, before_zero_test: Callable[[], None] | None = None) -> int:
    """-1, 0 or 1, decided: the sign of a value evaluated to 60 correct digits (300 when it is
    within 1e-50 of zero: √2 − 1.41421…(59 digits) is not 0); 0 only when sympy shows it
    (``equals(0)``, after ``before_zero_test()``, which may charge for it); otherwise
    :class:`UndecidedSign`, never a guess."""
    e = to_exact(x)
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    for n, tiny in ((60, "1e-50"), (300, "0")):
        v = _digits(e, n)
        if v is not None and abs(v) > sympy.Float(tiny, n):
            return 1 if v > 0 else -1
    if _zero_test_affordable(e):
        charge = before_zero_test or ZERO_TEST_CHARGE[0]
        if charge is not None:
            charge()
        if e.equals(0) is True:
            return 0
    raise UndecidedSign(f"cannot decide the sign of {e}")


# `equals(0)` simplifies, down to minimal polynomials whose degree doubles with each radical
# and grows with each power: √u·√v − √(uv) took 0.2 s with u = 2 + √3 and v = 7 + √11 (6
# radicals), 26 s with u = 2 + √3 + √5 (8), minutes with u = 2 + √(3 + √(5 + √7)) (7, nested
# three deep), and (1 + √2)^k·(√2 − 1)^k − 1 took 0.6 s at k = 1024, minutes at 65536; the
# product of the eight conjugates of (√2 + √3 + √5 + √7)^k took 0.6 s at k = 16, 4.3 s at 32,
# 36 s at 64.  Past these bounds (on the expression's shape, calibrated on such cases: not a
# clock, so that verdicts do not depend on the machine) it is not asked: undecided.
MAX_ZERO_TEST_RADICALS = 5
MAX_ZERO_TEST_POWER = 256
MAX_ZERO_TEST_EXPANSION = 2_048     # Σ |k|·2^(radicals of b) over the powers b^k of irrationals
MAX_ZERO_TEST_OPS = 1_000           # sympy.count_ops (40 linear factors in 4 radicals: 0.5 s)
ZERO_TEST_CHARGE: list[Callable[[], None] | None] = [None]   # the evaluator's work charge


def _radicals(e: Any) -> list[Any]:
    return [a for a in e.atoms(sympy.Pow, sympy.exp) if not (a.is_Pow and a.exp.is_Integer)]


def _zero_test_affordable(e: Any) -> bool:
    radicals = _radicals(e)
    roots = lambda x: [a for a in _radicals(x) if a.is_Pow]              # noqa: E731
    nested3 = any(roots(q.args[0]) for r in roots(e) for q in roots(r.args[0]))   # (√ in √ in √)
    powers = [a for a in e.atoms(sympy.Pow) if a.exp.is_Integer and not a.base.is_Rational]
    expansion = sum(abs(int(a.exp)) * 2 ** len(_radicals(a.base)) for a in powers)
    return len(radicals) <= MAX_ZERO_TEST_RADICALS and not nested3 and \
        all(abs(a.exp) <= MAX_ZERO_TEST_POWER for a in powers) and \
        expansion <= MAX_ZERO_TEST_EXPANSION and sympy.count_ops(e) <= MAX_ZERO_TEST_OPS


def exact_to_float(x: object) -> float:
    return float(to_exact(x))


def exact_pystr(x: object) -> str:
    """Python source for an exact number, for pasting next to numpy: ``5/2`` where a float
    holds the value exactly (the search's halves), else sympy's exact form with every name
    qualified (``sympy.Rational(5, 6)``, ``sympy.exp(sympy.Rational(5, 2))``, ``sympy.E``: a
    binder named `E` cannot shadow it).  A float `5/6` or `math.exp(5/2)` moved the replayed
    point, and the code printed other sides (the seventy-third review)."""
    e = to_exact(x)
    if e.is_Integer:
        return str(int(e))
    if exact_in_float(e):
        return f"{e.p}/{e.q}"
    global _PY_PRINTER
    if _PY_PRINTER is None:
        class _Printer(sp().printing.str.StrPrinter):
            def _print_Rational(self, r: Any) -> str:
                return f"Rational({r.p}, {r.q})"
            _print_Half = _print_Rational

            def _print_Exp1(self, _: Any) -> str:
                return "E"
        _PY_PRINTER = _Printer()
    # (an exact number's text names only sympy's functions and constants)
    return re.sub(r"\b([A-Za-z_]\w*)", r"sympy.\1", _PY_PRINTER.doprint(e))


_PY_PRINTER: Any = None


def exact_in_float(x: object) -> bool:
    """Does a float hold this exact number exactly (an integer or a fraction of a power of two
    that fits)?  Then numpy reads the code `exact_pystr` writes as it is."""
    if not is_exact(x):
        return True
    e = to_exact(x)
    if not e.is_Rational:
        return False
    try:
        return Fraction(int(e.p), int(e.q)) == Fraction(int(e.p) / int(e.q))
    except OverflowError:            # (past a float's range)
        return False

