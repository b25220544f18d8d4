"""The fast integer-polynomial size arithmetic agrees with sympy's (the gateway's two paths)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shardproof import arith
from shardproof import terms as T

NAMES = ["R", "N", "c", "h", "w"]


def sizes(depth: int = 3):
    leaf = st.one_of(st.sampled_from([T.Var(n) for n in NAMES]),
                     st.integers(0, 3).map(lambda k: T.Num(Fraction(k))))
    return st.recursive(leaf, lambda sub: st.builds(T.BinOp, st.sampled_from(["+", "*"]), sub,
                                                    sub), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(sizes(), sizes())
def test_size_equality_agrees_with_sympy(a, b):
    assert arith.sizes_equal(a, b) == arith.sizes_equal_sympy(a, b)


@settings(max_examples=100, deadline=None)
@given(sizes())
def test_reassociation_is_equality(a):
    # (a * b) * c = a * (b * c) and a + b = b + a, whatever the sizes
    b, c = T.Var("N"), T.Var("h")
    assert arith.sizes_equal(T.BinOp("*", T.BinOp("*", a, b), c),
                             T.BinOp("*", a, T.BinOp("*", b, c)))
    assert arith.sizes_equal(T.BinOp("+", a, b), T.BinOp("+", b, a))


def test_range_checks():
    R, N, r, n = (T.Var(x) for x in ("R", "N", "r", "n"))
    bounds = {"r": R, "n": N}
    ok = T.BinOp("+", T.BinOp("*", r, N), n)                 # r·N + n < R·N
    bad = T.BinOp("+", T.BinOp("*", r, R), n)                # r·R + n: not below R·N
    assert arith.index_in_range(ok, T.BinOp("*", R, N), bounds)
    assert not arith.index_in_range(bad, T.BinOp("*", R, N), bounds)
    assert not arith.index_in_range(T.Num(Fraction(0)), N, {})          # N may be 0
    assert arith.index_in_range(T.Num(Fraction(0)), N, {}, positive_names=frozenset({"N"}))


def test_digits_check_every_digit_including_the_top_one() -> None:
    """Reading `fun (i : Fin 2) (j : Fin 3) => e` at `(i + 1)·3 + j` (i < 2, j < 3) may be out
    of range (the top digit i + 1 may be 2): `digits` refuses it rather than reading `e` there
    (found by red-teaming: only the lower digits were checked; the kernel relied on the type
    checker for the top one)."""
    from shardproof import arith
    from shardproof.rewrite.ipoly import IPoly
    two, three = IPoly.const(2), IPoly.const(3)
    i, j = IPoly.var("i"), IPoly.var("j")
    bounds = {"i": two, "j": three}
    assert arith.digits(i * three + j, [two, three], bounds, frozenset()) == [i, j]
    assert arith.digits((i + IPoly.const(1)) * three + j, [two, three], bounds,
                        frozenset()) is None
    assert arith.digits(i * three + j, [IPoly.const(1), three], bounds, frozenset()) is None


def test_exact_sign_decides_or_says_it_cannot() -> None:
    """A nonzero irrational within 1e-50 of 0 is not 0 (it once was: √2 minus its first 59
    digits); an irrational that IS 0 is 0; and too close to call is an error, never a guess."""
    import sympy

    from shardproof import arith
    d = sympy.Rational("1.4142135623730950488016887242096980785696718753769480731766")
    assert arith.exact_sign(sympy.sqrt(2) - d) == 1
    assert arith.exact_sign(d - sympy.sqrt(2)) == -1
    zero = sympy.sqrt(2 + sympy.sqrt(3)) - (sympy.sqrt(6) + sympy.sqrt(2)) / 2
    assert arith.exact_sign(zero) == 0
    e300 = sympy.Rational(1, 10 ** 300)           # −√2·10⁻⁶⁰⁰: sympy's digits are relative
    assert arith.exact_sign(sympy.sqrt(2) * e300 - sympy.sqrt(2) * e300 * (1 + e300)) == -1
    # 0, though sympy's 60-digit `N` once said "-0.e+22" (no correct digit) and its sign was
    # read: only guaranteed digits are read now, and 0 is shown by `equals(0)`
    big = sympy.exp(500) * ((1 + sympy.sqrt(2)) ** 3 - (7 + 5 * sympy.sqrt(2)))
    assert arith.exact_sign(big) == 0
    with pytest.raises(arith.UndecidedSign):         # too close to call: an error, no guess
        arith.exact_sign(big + sympy.Rational(1, 10 ** 40))


def test_the_exact_sign_test_ends() -> None:
    """Twenty-seventh review: `equals(0)` ran for over ten minutes on an exact zero written as
    nested square roots (√2+√3+√5+√7+√11 against the root of its square); past a few radicals
    it is not asked, and the sign is undecided (an error, never a guess)."""
    import time

    import sympy

    from shardproof import arith
    roots = sum(sympy.sqrt(p) for p in (2, 3, 5, 7, 11))
    zero = roots - sympy.sqrt(sympy.expand(roots ** 2))
    t0 = time.monotonic()
    with pytest.raises(arith.UndecidedSign):
        arith.exact_sign(zero)
    assert time.monotonic() - t0 < 30      # a bound (it was over 600 s), not a speed


@pytest.mark.parametrize("which", ["nested", "power", "six", "conjugates"])
def test_the_zero_test_is_not_asked_past_its_bounds(which: str) -> None:
    """Thirty-fourth review: under the old bound (8 radicals), √u·√v − √(uv) with
    u = 2 + √(3 + √(5 + √7)) (7 radicals, nested three deep) and
    (1 + √2)^65536·(√2 − 1)^65536 − 1 (one radical) each ran `equals(0)` for minutes.  Both are
    exact zeros; past the bounds (5 radicals, √ nested three deep, a power past 256) the sign
    is undecided at once, an error and never a guess — decided by the expression's shape, not by
    a clock.  The structural decision is tested, so the test cannot pass by being fast."""
    import sympy
    from sympy import sqrt

    from shardproof import arith
    if which == "nested":
        u, v = 2 + sqrt(3 + sqrt(5 + sqrt(7))), 7 + sqrt(11)
        zero = sqrt(u) * sqrt(v) - sqrt(sympy.expand(u * v))
    elif which == "power":
        zero = (1 + sqrt(2)) ** 65536 * (sqrt(2) - 1) ** 65536 - 1
    elif which == "six":                                # 6 radicals, 2 deep: 6 s
        u = 2 + sqrt(3) + sqrt(5) + sqrt(7)
        zero = sqrt(u) * sqrt(11) - sqrt(sympy.expand(u * 11))
    else:            # thirty-sixth review: the eight conjugates of √2 + √3 + √5 + √7 multiply
        # to −215; their 32nd powers (4 radicals, powers ≤ 256) took 4.3 s, the 128th minutes
        signs = [(a, b, c) for a in (1, -1) for b in (1, -1) for c in (1, -1)]
        conj = [(a * sqrt(2) + b * sqrt(3) + c * sqrt(5) + sqrt(7)) ** 32 for a, b, c in signs]
        zero = sympy.Add(sympy.Mul(*conj), -sympy.expand(conj[0]) * sympy.Mul(*conj[1:]),
                         evaluate=False)                     # (an exact zero)
    assert not arith._zero_test_affordable(zero)
    asked = []
    with pytest.raises(arith.UndecidedSign):
        arith.exact_sign(zero, lambda: asked.append(1))
    assert not asked
    # within the bounds, a zero is still shown (and charged before sympy runs)
    small = (1 + sqrt(2)) ** 16 * (sqrt(2) - 1) ** 16 - 1
    assert arith.exact_sign(small, lambda: asked.append(1)) == 0 and asked == [1]


def test_a_square_root_is_charged_before_it_is_computed() -> None:
    """Thirty-fourth review: a square root of a 1,000-bit radicand takes about 9 ms, but was
    charged 0.5 ms after the whole array was computed (10⁴ entries: minutes).  Now it is
    charged by the square of its bits before it runs, and past the budget nothing is computed."""
    import sympy

    from shardproof import semantics
    x = sympy.Rational(7, 3) ** 400 + 1                  # about 1,760 bits
    saved = semantics.WORK[0], semantics.WORK_LIMIT[0]
    try:
        semantics.WORK[0], semantics.WORK_LIMIT[0] = 0, 10_000
        with pytest.raises(semantics.EvalError, match="work budget"):
            semantics._e_sqrt(x)
        semantics.WORK[0], semantics.WORK_LIMIT[0] = 0, 10 ** 9
        semantics._e_sqrt(x)
        assert semantics.WORK[0] >= semantics._bits(sympy.sympify(x)) ** 2 // 25
    finally:
        semantics.WORK[0], semantics.WORK_LIMIT[0] = saved


def test_a_square_root_of_an_irrational_is_bounded_by_its_numbers() -> None:
    """Thirty-sixth review: the 2,000-bit bound and the charge of a square root read an
    irrational radicand as 64 bits, so `sqrt ((3 ^ 24000 + 1) * sqrt 2)` ran sympy's factoring of
    a 38,000-bit integer for minutes; an irrational radicand counts the bits of its numbers."""
    import sympy

    from shardproof import semantics
    with pytest.raises(semantics.EvalError, match="square root of more than"):
        semantics._e_sqrt((sympy.Integer(3) ** 24000 + 1) * sympy.sqrt(2))
    assert semantics._e_sqrt(4 * sympy.sqrt(2)) == 2 * 2 ** sympy.Rational(1, 4)
