"""Tests of the numeric reference semantics of the opaque ops (shardproof.numeric_ops)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shardproof import numeric_ops as N
from shardproof.numeric_ops import OPS, apply, linear_matrix

FORWARDS = ["conv", "convStrided", "convStridedXla", "depthwise", "depthwiseStrided",
            "depthwiseStridedXla"]
LINEAR = [n for n, s in OPS.items() if s.linear_in is not None]
KERNELS = [(1, 1), (3, 3), (5, 5), (2, 2), (3, 1), (1, 5)]
H, W_ = 3, 4  # non-square on purpose: catches h/w mix-ups
IC, OC, C = 2, 3, 2


def sizes_of(name: str, kH: int = 3, kW: int = 3, h: int = H, w: int = W_) -> tuple[int, ...]:
    if name.startswith("conv"):
        return (IC, OC, h, w, kH, kW)
    if name.startswith("depthwise"):
        return (C, h, w, kH, kW)
    return (C, h, w)


def rand_tensors(name, sizes, rng, *, ints=False):
    spec = OPS[name]
    out = []
    for n in spec.param_sizes(sizes):
        if ints:
            out.append(rng.integers(-5, 6, size=n).astype(np.float64))
        else:
            out.append(rng.standard_normal(n))
    return out


def to_fractions(a) -> np.ndarray:
    out = np.empty(len(a), dtype=object)
    out[:] = [Fraction(int(v)) for v in a]
    return out


def fd_vjp(fwd: str, sizes, tensors, argi: int, dy, eps: float = 1e-6) -> np.ndarray:
    """J^T dy of ``fwd`` w.r.t. tensor ``argi``, by central finite differences."""
    base = [np.array(t, dtype=np.float64) for t in tensors]
    g = np.zeros(len(base[argi]))
    for j in range(len(g)):
        plus = [t.copy() for t in base]
        minus = [t.copy() for t in base]
        plus[argi][j] += eps
        minus[argi][j] -= eps
        g[j] = (apply(fwd, sizes, plus) - apply(fwd, sizes, minus)) @ dy / (2 * eps)
    return g


# (vjp op) -> (forward op, index of the differentiated forward argument)
VJP_OF = {}
for _f in FORWARDS:
    VJP_OF[_f + "In"] = (_f, 2)
    VJP_OF[_f + "WGrad"] = (_f, 0)


# --------------------------------------------------------------------------- registry / API


def test_registry_shape():
    assert len(OPS) == 20
    assert set(LINEAR) == {"maxPool3s2Back"} | set(VJP_OF)
    for name, spec in OPS.items():
        assert spec.name == name
        assert spec.doc and "\n" not in spec.doc
        assert len(spec.param_sizes(sizes_of(name))) == len(spec.tensor_params)
        if spec.linear_in is not None:
            assert spec.linear_in == "dy" == spec.tensor_params[-1]
        fn = getattr(N, name)
        assert fn.__name__ == name and spec.doc in fn.__doc__


@pytest.mark.parametrize("name", list(OPS))
def test_out_size_and_module_function(name):
    rng = np.random.default_rng(0)
    sz = sizes_of(name)
    ts = rand_tensors(name, sz, rng)
    y = apply(name, sz, ts)
    assert y.shape == (OPS[name].out_size(sz),) and y.dtype == np.float64
    np.testing.assert_array_equal(getattr(N, name)(*sz, *ts), y)
    np.testing.assert_array_equal(OPS[name].fn(sz, *ts), y)
    # deterministic
    np.testing.assert_array_equal(apply(name, list(sz), [list(t) for t in ts]), y)


def test_validation_errors():
    sz = sizes_of("conv")
    W, b, x = rand_tensors("conv", sz, np.random.default_rng(0))
    with pytest.raises(ValueError, match="tensor x must have length 24, got 23"):
        apply("conv", sz, [W, b, x[:-1]])
    with pytest.raises(ValueError, match="takes 3 tensors"):
        apply("conv", sz, [W, b])
    with pytest.raises(ValueError, match="takes 6 sizes"):
        apply("conv", sz[:-1], [W, b, x])
    with pytest.raises(ValueError, match="positive int"):
        apply("conv", (2, 3, 3, 4, 3, 3.0), [W, b, x])
    with pytest.raises(ValueError, match="positive int"):
        apply("conv", (2, 3, 0, 4, 3, 3), [W, b, x])
    with pytest.raises(ValueError, match="flat 1-D"):
        apply("conv", sz, [W, b, x.reshape(2, 12)])
    with pytest.raises(ValueError, match="unknown opaque op"):
        apply("conv3d", sz, [W, b, x])
    with pytest.raises(ValueError, match="exact"):
        apply("conv", sz, [to_fractions(np.round(W)), b, x])
    with pytest.raises(ValueError, match="positional arguments"):
        N.conv(*sz, W, b)
    with pytest.raises(ValueError, match="not linear"):
        linear_matrix("conv", sz, [W, b])


# --------------------------------------------------------------------------- VJPs vs finite differences


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: f"k{k[0]}x{k[1]}")
@pytest.mark.parametrize("vjp", sorted(VJP_OF))
def test_vjp_matches_central_finite_differences(vjp, k):
    fwd, argi = VJP_OF[vjp]
    rng = np.random.default_rng([sorted(VJP_OF).index(vjp), *k])
    sz = sizes_of(fwd, *k)
    W, b, x = rand_tensors(fwd, sz, rng)
    dy = rng.standard_normal(OPS[fwd].out_size(sz))
    expected = fd_vjp(fwd, sz, [W, b, x], argi, dy)
    fixed = W if argi == 2 else x
    got = apply(vjp, sz, [fixed, dy])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("hw", [(1, 1), (2, 2), (3, 4)])
def test_max_pool_back_matches_finite_differences(hw):
    h, w = hw
    rng = np.random.default_rng(h * 10 + w)
    sz = (C, h, w)
    n = C * 4 * h * w
    x = rng.permutation(n) * 0.01 + 0.1  # distinct values, gaps >> eps: no ties
    dy = rng.standard_normal(C * h * w)
    expected = fd_vjp("maxPool3s2", sz, [x], 0, dy)
    np.testing.assert_allclose(N.maxPool3s2Back(*sz, x, dy), expected, rtol=1e-7, atol=1e-7)


# --------------------------------------------------------------------------- exact adjointness / linearity


@pytest.mark.parametrize("k", [(1, 1), (3, 3), (2, 3)], ids=lambda k: f"k{k[0]}x{k[1]}")
@pytest.mark.parametrize("vjp", sorted(VJP_OF))
def test_exact_adjoint_identity_with_fractions(vjp, k):
    """<dy, f(t) - f(t with the argument zeroed)> == <vjp(dy), argument>, exactly."""
    fwd, argi = VJP_OF[vjp]
    rng = np.random.default_rng(7)
    sz = sizes_of(fwd, *k, h=2, w=3)
    W, b, x = (to_fractions(t) for t in rand_tensors(fwd, sz, rng, ints=True))
    dy = to_fractions(rng.integers(-5, 6, OPS[fwd].out_size(sz)))
    args = [W, b, x]
    zeroed = list(args)
    zeroed[argi] = to_fractions(np.zeros(len(args[argi]), dtype=int))
    lhs = sum(dy * (apply(fwd, sz, args) - apply(fwd, sz, zeroed)))
    fixed = W if argi == 2 else x
    rhs = sum(apply(vjp, sz, [fixed, dy]) * args[argi])
    assert lhs == rhs and isinstance(lhs, Fraction)


fractions_st = st.fractions(min_value=-4, max_value=4, max_denominator=6)


@pytest.mark.parametrize("name", LINEAR)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_linear_in_dy_exact(name, data):
    spec = OPS[name]
    k = data.draw(st.sampled_from([(1, 1), (3, 3), (3, 1)]))
    h = data.draw(st.integers(1, 2))
    w = data.draw(st.integers(1, 2))
    sz = sizes_of(name, *k, h=h, w=w)
    if name.startswith("conv"):
        sz = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))) + sz[2:]

    def vec(n):
        out = np.empty(n, dtype=object)
        out[:] = data.draw(st.lists(fractions_st, min_size=n, max_size=n))
        return out

    lens = spec.param_sizes(sz)
    fixed = [vec(n) for n in lens[:-1]]
    dy1, dy2 = vec(lens[-1]), vec(lens[-1])
    s = data.draw(fractions_st)
    lhs = apply(name, sz, fixed + [s * dy1 + dy2])
    rhs = s * apply(name, sz, fixed + [dy1]) + apply(name, sz, fixed + [dy2])
    assert lhs.dtype == object
    assert list(lhs) == list(rhs)
    assert all(isinstance(v, Fraction) for v in lhs)


@pytest.mark.parametrize("name", LINEAR)
def test_linear_matrix(name):
    rng = np.random.default_rng(3)
    sz = sizes_of(name, 3, 3, h=2, w=2)
    ts = rand_tensors(name, sz, rng, ints=True)
    M = linear_matrix(name, sz, ts[:-1])
    assert M.shape == (OPS[name].out_size(sz), OPS[name].param_sizes(sz)[-1])
    np.testing.assert_allclose(M @ ts[-1], apply(name, sz, ts), rtol=1e-12, atol=1e-12)
    exact = [to_fractions(t) for t in ts]
    Mx = linear_matrix(name, sz, exact[:-1])
    assert Mx.dtype == object
    assert list(Mx.dot(exact[-1])) == list(apply(name, sz, exact))
    assert np.array_equal(Mx.astype(np.float64), M)


# --------------------------------------------------------------------------- exact mode


@pytest.mark.parametrize("k", [(1, 1), (3, 3), (5, 3)], ids=lambda k: f"k{k[0]}x{k[1]}")
@pytest.mark.parametrize("name", list(OPS))
def test_fractions_equal_float_on_integer_data(name, k):
    rng = np.random.default_rng(11)
    sz = sizes_of(name, *k)
    ts = rand_tensors(name, sz, rng, ints=True)
    yf = apply(name, sz, ts)
    yx = apply(name, sz, [to_fractions(t) for t in ts])
    assert yx.dtype == object
    assert all(type(v) is Fraction for v in yx)
    assert [float(v) for v in yx] == list(yf)


def test_sympy_numbers_and_int_mixing():
    sympy = pytest.importorskip("sympy")
    rng = np.random.default_rng(5)
    for name in ["conv", "convStridedXlaIn", "depthwiseStridedWGrad", "maxPool3s2Back"]:
        sz = sizes_of(name, 3, 3, h=2, w=2)
        ts = rand_tensors(name, sz, rng, ints=True)
        sym, frac = [], []
        for t in ts:
            a = np.empty(len(t), dtype=object)
            a[:] = [sympy.Rational(int(v), 3) for v in t]
            sym.append(a)
            f = np.empty(len(t), dtype=object)
            f[:] = [Fraction(int(v), 3) for v in t]
            frac.append(f)
        ys = apply(name, sz, sym)
        assert all(isinstance(v, sympy.Rational) for v in ys)
        assert [Fraction(int(v.p), int(v.q)) for v in ys] == list(apply(name, sz, frac))
    # integer-dtype arrays are accepted next to exact tensors and stay exact
    sz = sizes_of("convIn", 3, 3)
    W, dy = rand_tensors("convIn", sz, rng, ints=True)
    got = apply("convIn", sz, [to_fractions(W), dy.astype(np.int64)])
    assert all(type(v) is Fraction for v in got)
    assert [float(v) for v in got] == list(apply("convIn", sz, [W, dy]))


# --------------------------------------------------------------------------- strided phases / XLA SAME


@pytest.mark.parametrize("base", ["conv", "depthwise"])
@pytest.mark.parametrize("kind", ["", "In", "WGrad"])
def test_even_and_odd_phase_differ(base, kind):
    rng = np.random.default_rng(2)
    even, odd = f"{base}Strided{kind}", f"{base}StridedXla{kind}"
    for k in [(1, 1), (3, 3), (5, 5)]:
        sz = sizes_of(even, *k)
        ts = rand_tensors(even, sz, rng)
        assert not np.allclose(apply(even, sz, ts), apply(odd, sz, ts))


def _ref_stride2_padded(W4, b, X, pad_h, pad_w, depthwise):
    """Stride-2 VALID correlation of X[c, H, W] padded by (top,bottom),(left,right); negative = crop."""

    def pad_axis(a, axis, lo, hi):
        if lo < 0:
            a = np.take(a, range(-lo, a.shape[axis]), axis=axis)
            lo = 0
        widths = [(0, 0)] * a.ndim
        widths[axis] = (lo, hi)
        return np.pad(a, widths)

    P = pad_axis(pad_axis(X, 1, *pad_h), 2, *pad_w)
    kH, kW = W4.shape[-2:]
    ho_n = (P.shape[1] - kH) // 2 + 1
    wo_n = (P.shape[2] - kW) // 2 + 1
    oc = W4.shape[0]
    y = np.zeros((oc, ho_n, wo_n))
    for o in range(oc):
        for i in range(ho_n):
            for j in range(wo_n):
                patch = P[:, 2 * i : 2 * i + kH, 2 * j : 2 * j + kW]
                if depthwise:
                    y[o, i, j] = b[o] + np.sum(W4[o] * patch[o])
                else:
                    y[o, i, j] = b[o] + np.sum(W4[o] * patch)
    return y.reshape(-1)


@pytest.mark.parametrize("depthwise", [False, True])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_odd_phase_equals_explicit_asymmetric_pad_stride2(k, depthwise):
    """convStridedXla == pad ((k-2)//2, k//2) per axis, then stride-2 VALID correlation."""
    rng = np.random.default_rng(k)
    name = "depthwiseStridedXla" if depthwise else "convStridedXla"
    sz = sizes_of(name, k, k)
    Wt, b, x = rand_tensors(name, sz, rng)
    cin = C if depthwise else IC
    W4 = Wt.reshape(C, k, k) if depthwise else Wt.reshape(OC, IC, k, k)
    X = x.reshape(cin, 2 * H, 2 * W_)
    pad = ((k - 2) // 2, k // 2)
    ref = _ref_stride2_padded(W4, b, X, pad, pad, depthwise)
    assert ref.shape == (OPS[name].out_size(sz),)
    np.testing.assert_allclose(apply(name, sz, [Wt, b, x]), ref, rtol=1e-12, atol=1e-12)
    # and the even phase is the symmetric torchvision padding ((k-1)//2, (k-1)//2)
    even = name.replace("Xla", "")
    sym = ((k - 1) // 2, (k - 1) // 2)
    ref_even = _ref_stride2_padded(W4, b, X, sym, sym, depthwise)
    np.testing.assert_allclose(apply(even, sz, [Wt, b, x]), ref_even, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_which_phase_is_tensorflow_same(k):
    """TF/XLA 'SAME' (stride 2, even input) pads top = max(k-2,0)//2: odd phase only for odd k>=3."""
    rng = np.random.default_rng(100 + k)
    sz = sizes_of("convStrided", k, k)
    Wt, b, x = rand_tensors("convStrided", sz, rng)
    total_h = max((H - 1) * 2 + k - 2 * H, 0)
    total_w = max((W_ - 1) * 2 + k - 2 * W_, 0)
    ref = _ref_stride2_padded(
        Wt.reshape(OC, IC, k, k), b, x.reshape(IC, 2 * H, 2 * W_),
        (total_h // 2, total_h - total_h // 2), (total_w // 2, total_w - total_w // 2), False,
    )
    odd = np.allclose(apply("convStridedXla", sz, [Wt, b, x]), ref)
    even = np.allclose(apply("convStrided", sz, [Wt, b, x]), ref)
    assert (odd, even) == ((True, False) if k % 2 == 1 and k >= 3 else (False, True))


# --------------------------------------------------------------------------- max pool catalogue details


def test_max_pool_clamp_at_top_left_uses_row_zero():
    # c=1, h=w=2: input 4x4. Window (0,0) covers rows {T(-1),0,1} = {0,1}, cols {0,1}.
    x = np.arange(16, dtype=float).reshape(4, 4)
    x[0, 0] = 50.0  # only reachable through the clamped rows/cols
    x[2, 2] = 40.0  # not in window (0,0)
    y = N.maxPool3s2(1, 2, 2, x.reshape(-1)).reshape(2, 2)
    assert y[0, 0] == 50.0
    assert y[1, 1] == 40.0  # rows/cols {1,2,3}: max(40, 15, ...) = 40 -> 40 > 15
    dx = N.maxPool3s2Back(1, 2, 2, x.reshape(-1), np.array([1.0, 2.0, 3.0, 4.0])).reshape(4, 4)
    assert dx[0, 0] == 1.0  # the clamped position is the argmax of window (0,0)


def test_max_pool_windows_overlap_and_backward_accumulates():
    # x[1,1] lies in all four windows of a 4x4 input (rows/cols 1 are shared).
    x = np.zeros(16)
    x[1 * 4 + 1] = 9.0
    dy = np.array([1.0, 2.0, 3.0, 4.0])
    assert list(N.maxPool3s2(1, 2, 2, x)) == [9.0] * 4
    dx = N.maxPool3s2Back(1, 2, 2, x, dy)
    expected = np.zeros(16)
    expected[5] = 10.0
    np.testing.assert_array_equal(dx, expected)
    # exact mode too
    dxx = N.maxPool3s2Back(1, 2, 2, to_fractions(x), to_fractions(dy))
    assert list(dxx) == [Fraction(int(v)) for v in expected]


def test_max_pool_ties_first_max_wins_and_bottom_right():
    # all values equal: every window keeps its first (clamped) position (T(2ho-1), T(2wo-1)).
    x = np.ones(16)
    dy = np.array([1.0, 2.0, 3.0, 4.0])
    dx = N.maxPool3s2Back(1, 2, 2, x, dy).reshape(4, 4)
    expected = np.zeros((4, 4))
    expected[0, 0], expected[0, 1], expected[1, 0], expected[1, 1] = 1.0, 2.0, 3.0, 4.0
    np.testing.assert_array_equal(dx, expected)
    # the bottom-right input is reached by the last window only
    x = np.zeros(2 * 36)
    x[36 + 35] = 5.0  # channel 1, position (5, 5) of a 6x6 input
    y = N.maxPool3s2(2, 3, 3, x)
    assert y[9 + 8] == 5.0 and np.count_nonzero(y) == 1
