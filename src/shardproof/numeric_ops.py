"""Numeric reference semantics of shardproof's OPAQUE per-example ops.

The symbolic engine never looks inside these ops; their meaning *is* the code in
this module.  Everything here is deterministic and works in two modes:

* ``float64`` numpy arrays (vectorised; integer/float32 inputs are converted to
  float64), and
* ``dtype=object`` numpy arrays holding exact numbers (``fractions.Fraction``,
  sympy numbers, Python ints).  Only ``+``, ``-``, ``*`` and ``>`` are applied to
  the elements, so exact numbers are never converted to float.  Mixing an exact
  (object) tensor with a float tensor in one call is rejected with ValueError;
  integer-dtype arrays are accepted alongside exact tensors (they are converted
  to Python ints).

Conventions
-----------
Every tensor is a FLAT 1-D array describing one example, in row-major (C) order:

* activation ``[c, h, w]``: flat index ``(ci*h + y)*w + x``;
* conv kernel ``W[oc, ic, kH, kW]``; depthwise kernel ``W[c, kH, kW]``;
* bias ``b[oc]`` / ``b[c]``.

"same" padding for a kH x kW kernel: ``pH = (kH-1)//2`` rows on top,
``pW = (kW-1)//2`` columns on the left, zeros outside the input.

Strided ops take an input of spatial size ``2h x 2w``, compute the stride-1
"same" op at that resolution and keep either the EVEN positions ``(2*ho, 2*wo)``
(``*Strided``: symmetric padding, torchvision style) or the ODD positions
``(2*ho+1, 2*wo+1)`` (``*StridedXla``).  The odd phase equals a stride-2
correlation of the input padded by ``((k-2)//2, k//2)`` per spatial axis (for
odd ``k``; for ``k = 1`` that "pad" is a crop of the first row/column).  For
odd ``k >= 3`` this is exactly XLA/TensorFlow ``padding='SAME'`` with stride 2
at even input size.  NOTE: for ``k = 1`` (and for even ``k``) XLA 'SAME' pads
``max(k-2, 0)//2`` on top, which is the EVEN phase, not the odd one.

Public API
----------
* ``OPS: dict[str, OpSpec]`` -- the registry (see :class:`OpSpec`);
* ``apply(name, sizes, tensors)`` -- validate and evaluate an op;
* ``linear_matrix(name, sizes, fixed_tensors)`` -- the matrix ``M`` with
  ``op(sizes, *fixed_tensors, dy) == M @ dy`` for the ops linear in ``dy``;
* one module-level function per op, named like the op, taking the size
  parameters then the tensors positionally, e.g.
  ``conv(ic, oc, h, w, kH, kW, W, b, x)``; these validate like ``apply``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

__all__ = [
    "OpSpec",
    "OPS",
    "apply",
    "linear_matrix",
    "conv",
    "convStrided",
    "convStridedXla",
    "depthwise",
    "depthwiseStrided",
    "depthwiseStridedXla",
    "maxPool3s2",
    "maxPool3s2Back",
    "convIn",
    "convStridedIn",
    "convStridedXlaIn",
    "depthwiseIn",
    "depthwiseStridedIn",
    "depthwiseStridedXlaIn",
    "convWGrad",
    "convStridedWGrad",
    "convStridedXlaWGrad",
    "depthwiseWGrad",
    "depthwiseStridedWGrad",
    "depthwiseStridedXlaWGrad",
]


# --------------------------------------------------------------------------- #
# dtype handling
# --------------------------------------------------------------------------- #


def _coerce(tensors: Sequence[object]) -> tuple[list[np.ndarray], bool]:
    """Return (arrays, exact): 1-D float64 arrays, or 1-D object arrays if any is exact."""
    arrs = [np.asarray(t) for t in tensors]
    exact = any(a.dtype == object for a in arrs)
    out = []
    for a in arrs:
        if a.ndim != 1:
            raise ValueError(f"tensors must be flat 1-D arrays, got shape {a.shape}")
        if exact:
            if a.dtype == object:
                out.append(a)
            elif a.dtype.kind in "iu":
                conv = np.empty(a.shape, dtype=object)
                conv[:] = [int(v) for v in a.tolist()]
                out.append(conv)
            else:
                raise ValueError(
                    "cannot mix exact (dtype=object) tensors with dtype "
                    f"{a.dtype}: that would silently turn exact numbers into floats"
                )
        else:
            if a.dtype.kind not in "iuf":
                raise ValueError(f"unsupported tensor dtype {a.dtype} (use float64 or object)")
            out.append(a.astype(np.float64, copy=False))
    return out, exact


def _zeros(shape: tuple[int, ...], like: np.ndarray) -> np.ndarray:
    """Zeros of ``like``'s kind; in object mode the zero is ``like[0]*0`` (keeps the number type)."""
    if like.dtype != object:
        return np.zeros(shape, dtype=np.float64)
    z = np.empty(shape, dtype=object)
    z.fill(like.flat[0] * 0 if like.size else 0)
    return z


def _mix(Wk: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``out[o, y, x] = sum_i Wk[o, i] * X[i, y, x]``."""
    if X.dtype == object or Wk.dtype == object:
        return (Wk[:, :, None, None] * X[None, :, :, :]).sum(axis=1)
    return np.tensordot(Wk, X, axes=1)


def _corr_spatial(D: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``out[o, i] = sum_{y,x} D[o, y, x] * X[i, y, x]``."""
    if X.dtype == object or D.dtype == object:
        return (D[:, None, :, :] * X[None, :, :, :]).sum(axis=(2, 3))
    return np.tensordot(D, X, axes=([1, 2], [1, 2]))


# --------------------------------------------------------------------------- #
# geometry of the (possibly strided) "same" correlation
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _Geom:
    """Output (ho, wo) at tap (kh, kw) reads padded input (s*ho+phase+kh, s*wo+phase+kw)."""

    h: int  # output height
    w: int  # output width
    kH: int
    kW: int
    s: int  # stride (1 or 2)
    phase: int  # 0 (even positions) or 1 (odd positions)

    @property
    def hin(self) -> int:
        return self.s * self.h

    @property
    def win(self) -> int:
        return self.s * self.w

    @property
    def pH(self) -> int:
        return (self.kH - 1) // 2

    @property
    def pW(self) -> int:
        return (self.kW - 1) // 2

    @property
    def padded_shape(self) -> tuple[int, int]:
        hp = max(self.pH + self.hin, self.s * (self.h - 1) + self.phase + self.kH)
        wp = max(self.pW + self.win, self.s * (self.w - 1) + self.phase + self.kW)
        return hp, wp

    def window(self, kh: int, kw: int) -> tuple[slice, slice]:
        """Padded-coordinate slices read by tap (kh, kw) for all outputs."""
        r0 = self.phase + kh
        c0 = self.phase + kw
        return (
            slice(r0, r0 + self.s * (self.h - 1) + 1, self.s),
            slice(c0, c0 + self.s * (self.w - 1) + 1, self.s),
        )

    def pad(self, X: np.ndarray) -> np.ndarray:
        """Zero-pad ``X[c, hin, win]`` to the padded frame."""
        hp, wp = self.padded_shape
        P = _zeros((X.shape[0], hp, wp), X)
        P[:, self.pH : self.pH + self.hin, self.pW : self.pW + self.win] = X
        return P

    def crop(self, P: np.ndarray) -> np.ndarray:
        """Inverse frame map of :meth:`pad`: drop everything outside the input."""
        return P[:, self.pH : self.pH + self.hin, self.pW : self.pW + self.win]


# --------------------------------------------------------------------------- #
# generic kernels (shared by the plain / even-strided / odd-strided variants)
# --------------------------------------------------------------------------- #


def _conv_fwd(g: _Geom, ic: int, oc: int, W, b, x) -> np.ndarray:
    (W, b, x), _ = _coerce((W, b, x))
    W4 = W.reshape(oc, ic, g.kH, g.kW)
    P = g.pad(x.reshape(ic, g.hin, g.win))
    y = np.broadcast_to(b.reshape(oc, 1, 1), (oc, g.h, g.w)).copy()
    for kh in range(g.kH):
        for kw in range(g.kW):
            rs, cs = g.window(kh, kw)
            y = y + _mix(W4[:, :, kh, kw], P[:, rs, cs])
    return y.reshape(-1)


def _conv_in(g: _Geom, ic: int, oc: int, W, dy) -> np.ndarray:
    (W, dy), _ = _coerce((W, dy))
    W4 = W.reshape(oc, ic, g.kH, g.kW)
    D = dy.reshape(oc, g.h, g.w)
    hp, wp = g.padded_shape
    P = _zeros((ic, hp, wp), dy)
    for kh in range(g.kH):
        for kw in range(g.kW):
            rs, cs = g.window(kh, kw)
            P[:, rs, cs] += _mix(W4[:, :, kh, kw].T, D)
    return g.crop(P).reshape(-1)


def _conv_wgrad(g: _Geom, ic: int, oc: int, x, dy) -> np.ndarray:
    (x, dy), _ = _coerce((x, dy))
    P = g.pad(x.reshape(ic, g.hin, g.win))
    D = dy.reshape(oc, g.h, g.w)
    dW = _zeros((oc, ic, g.kH, g.kW), dy)
    for kh in range(g.kH):
        for kw in range(g.kW):
            rs, cs = g.window(kh, kw)
            dW[:, :, kh, kw] = _corr_spatial(D, P[:, rs, cs])
    return dW.reshape(-1)


def _dw_fwd(g: _Geom, c: int, W, b, x) -> np.ndarray:
    (W, b, x), _ = _coerce((W, b, x))
    W3 = W.reshape(c, g.kH, g.kW)
    P = g.pad(x.reshape(c, g.hin, g.win))
    y = np.broadcast_to(b.reshape(c, 1, 1), (c, g.h, g.w)).copy()
    for kh in range(g.kH):
        for kw in range(g.kW):
            rs, cs = g.window(kh, kw)
            y = y + W3[:, kh, kw][:, None, None] * P[:, rs, cs]
    return y.reshape(-1)


def _dw_in(g: _Geom, c: int, W, dy) -> np.ndarray:
    (W, dy), _ = _coerce((W, dy))
    W3 = W.reshape(c, g.kH, g.kW)
    D = dy.reshape(c, g.h, g.w)
    hp, wp = g.padded_shape
    P = _zeros((c, hp, wp), dy)
    for kh in range(g.kH):
        for kw in range(g.kW):
            rs, cs = g.window(kh, kw)
            P[:, rs, cs] += W3[:, kh, kw][:, None, None] * D
    return g.crop(P).reshape(-1)


def _dw_wgrad(g: _Geom, c: int, x, dy) -> np.ndarray:
    (x, dy), _ = _coerce((x, dy))
    P = g.pad(x.reshape(c, g.hin, g.win))
    D = dy.reshape(c, g.h, g.w)
    dW = _zeros((c, g.kH, g.kW), dy)
    for kh in range(g.kH):
        for kw in range(g.kW):
            rs, cs = g.window(kh, kw)
            dW[:, kh, kw] = (P[:, rs, cs] * D).sum(axis=(1, 2))
    return dW.reshape(-1)


# --------------------------------------------------------------------------- #
# max pool 3x3 stride 2
# --------------------------------------------------------------------------- #


def _greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a > b`` entry by entry; for exact entries, decided from digits sympy guarantees (its
    own ``>`` may be undecided, or read from too few digits): an undecided one is a ValueError."""
    if a.dtype != object and b.dtype != object:
        return np.asarray(a > b, dtype=bool)
    from . import arith
    try:
        return np.vectorize(lambda x, y: arith.exact_sign(x - y) > 0, otypes=[bool])(a, b)
    except arith.UndecidedSign as exc:
        raise ValueError(f"max-pool: {exc}") from None


def _pool_argmax(c: int, h: int, w: int, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(max, flat argmax into [c, 2h, 2w]) of every 3x3/s2 window, clamped, first max wins."""
    W2 = 2 * w
    ci = np.arange(c)[:, None, None]
    best_val = best_idx = None
    for a in range(3):
        rows = np.maximum(2 * np.arange(h) + a - 1, 0)[None, :, None]
        for bb in range(3):
            cols = np.maximum(2 * np.arange(w) + bb - 1, 0)[None, None, :]
            cand = X[ci, rows, cols]
            idx = np.broadcast_to((ci * (2 * h) + rows) * W2 + cols, (c, h, w))
            if best_val is None:
                best_val, best_idx = cand, idx
            else:
                gt = _greater(cand, best_val)
                best_val = np.where(gt, cand, best_val)
                best_idx = np.where(gt, idx, best_idx)
    return best_val, best_idx


def _max_pool(sizes: tuple[int, ...], x) -> np.ndarray:
    c, h, w = sizes
    (x,), _ = _coerce((x,))
    val, _idx = _pool_argmax(c, h, w, x.reshape(c, 2 * h, 2 * w))
    return val.reshape(-1)


def _max_pool_back(sizes: tuple[int, ...], x, dy) -> np.ndarray:
    c, h, w = sizes
    (x, dy), _ = _coerce((x, dy))
    _val, idx = _pool_argmax(c, h, w, x.reshape(c, 2 * h, 2 * w))
    dx = _zeros((c * 4 * h * w,), dy)
    np.add.at(dx, idx.reshape(-1), dy)
    return dx


# --------------------------------------------------------------------------- #
# registry
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class OpSpec:
    """Signature and reference implementation of one opaque op.

    ``fn(sizes, *tensors)`` evaluates the op (no length validation: use
    :func:`apply`); ``param_sizes(sizes)`` gives the required length of each
    tensor parameter, ``out_size(sizes)`` the output length; ``linear_in`` names
    the tensor parameter the op is linear in (``None`` if it is not linear).
    """

    name: str
    size_params: tuple[str, ...]
    tensor_params: tuple[str, ...]
    param_sizes: Callable[[tuple[int, ...]], tuple[int, ...]]
    out_size: Callable[[tuple[int, ...]], int]
    linear_in: str | None
    fn: Callable[..., np.ndarray]
    doc: str


_CONV_SIZES = ("ic", "oc", "h", "w", "kH", "kW")
_DW_SIZES = ("c", "h", "w", "kH", "kW")
_POOL_SIZES = ("c", "h", "w")

# (name suffix, stride, phase, index expression used in the docs)
_VARIANTS = (
    ("", 1, 0, "y0+kh-pH, x0+kw-pW", "[.,h,w]"),
    ("Strided", 2, 0, "2*y0+kh-pH, 2*x0+kw-pW", "[.,2h,2w]"),
    ("StridedXla", 2, 1, "2*y0+1+kh-pH, 2*x0+1+kw-pW", "[.,2h,2w]"),
)

OPS: dict[str, OpSpec] = {}


def _register(spec: OpSpec) -> None:
    OPS[spec.name] = spec


def _build_registry() -> None:
    for suffix, s, phase, ix, xshape in _VARIANTS:
        sq = s * s

        def conv_geom(sz, s=s, phase=phase):
            ic, oc, h, w, kH, kW = sz
            return _Geom(h, w, kH, kW, s, phase), ic, oc

        def dw_geom(sz, s=s, phase=phase):
            c, h, w, kH, kW = sz
            return _Geom(h, w, kH, kW, s, phase), c

        # ---- conv family ----
        _register(OpSpec(
            name=f"conv{suffix}",
            size_params=_CONV_SIZES,
            tensor_params=("W", "b", "x"),
            param_sizes=lambda z, sq=sq: (z[1] * z[0] * z[4] * z[5], z[1], z[0] * sq * z[2] * z[3]),
            out_size=lambda z: z[1] * z[2] * z[3],
            linear_in=None,
            fn=lambda z, W, b, x, G=conv_geom: _conv_fwd(*G(z), W, b, x),
            doc=f"y[o,y0,x0] = b[o] + sum_(i,kh,kw) W[o,i,kh,kw] * x[i, {ix}]"
                f"  (x {xshape.replace('.', 'ic')}, zero outside; y [oc,h,w])",
        ))
        _register(OpSpec(
            name=f"conv{suffix}In",
            size_params=_CONV_SIZES,
            tensor_params=("W", "dy"),
            param_sizes=lambda z: (z[1] * z[0] * z[4] * z[5], z[1] * z[2] * z[3]),
            out_size=lambda z, sq=sq: z[0] * sq * z[2] * z[3],
            linear_in="dy",
            fn=lambda z, W, dy, G=conv_geom: _conv_in(*G(z), W, dy),
            doc=f"dx[i, {ix}] += sum_o W[o,i,kh,kw] * dy[o,y0,x0] over all (y0,x0,kh,kw) "
                f"hitting the input  (= J^T dy of conv{suffix} w.r.t. x)",
        ))
        _register(OpSpec(
            name=f"conv{suffix}WGrad",
            size_params=_CONV_SIZES,
            tensor_params=("x", "dy"),
            param_sizes=lambda z, sq=sq: (z[0] * sq * z[2] * z[3], z[1] * z[2] * z[3]),
            out_size=lambda z: z[1] * z[0] * z[4] * z[5],
            linear_in="dy",
            fn=lambda z, x, dy, G=conv_geom: _conv_wgrad(*G(z), x, dy),
            doc=f"dW[o,i,kh,kw] = sum_(y0<h,x0<w) x[i, {ix}] * dy[o,y0,x0]  (zero-padded x)",
        ))
        # ---- depthwise family ----
        _register(OpSpec(
            name=f"depthwise{suffix}",
            size_params=_DW_SIZES,
            tensor_params=("W", "b", "x"),
            param_sizes=lambda z, sq=sq: (z[0] * z[3] * z[4], z[0], z[0] * sq * z[1] * z[2]),
            out_size=lambda z: z[0] * z[1] * z[2],
            linear_in=None,
            fn=lambda z, W, b, x, G=dw_geom: _dw_fwd(*G(z), W, b, x),
            doc=f"y[ci,y0,x0] = b[ci] + sum_(kh,kw) W[ci,kh,kw] * x[ci, {ix}]"
                f"  (x {xshape.replace('.', 'c')}, zero outside; y [c,h,w])",
        ))
        _register(OpSpec(
            name=f"depthwise{suffix}In",
            size_params=_DW_SIZES,
            tensor_params=("W", "dy"),
            param_sizes=lambda z: (z[0] * z[3] * z[4], z[0] * z[1] * z[2]),
            out_size=lambda z, sq=sq: z[0] * sq * z[1] * z[2],
            linear_in="dy",
            fn=lambda z, W, dy, G=dw_geom: _dw_in(*G(z), W, dy),
            doc=f"dx[ci, {ix}] += W[ci,kh,kw] * dy[ci,y0,x0] over all (y0,x0,kh,kw) "
                f"hitting the input  (= J^T dy of depthwise{suffix} w.r.t. x)",
        ))
        _register(OpSpec(
            name=f"depthwise{suffix}WGrad",
            size_params=_DW_SIZES,
            tensor_params=("x", "dy"),
            param_sizes=lambda z, sq=sq: (z[0] * sq * z[1] * z[2], z[0] * z[1] * z[2]),
            out_size=lambda z: z[0] * z[3] * z[4],
            linear_in="dy",
            fn=lambda z, x, dy, G=dw_geom: _dw_wgrad(*G(z), x, dy),
            doc=f"dW[ci,kh,kw] = sum_(y0<h,x0<w) x[ci, {ix}] * dy[ci,y0,x0]  (zero-padded x)",
        ))

    _register(OpSpec(
        name="maxPool3s2",
        size_params=_POOL_SIZES,
        tensor_params=("x",),
        param_sizes=lambda z: (z[0] * 4 * z[1] * z[2],),
        out_size=lambda z: z[0] * z[1] * z[2],
        linear_in=None,
        fn=_max_pool,
        doc="y[ci,ho,wo] = max_(a,b in 0..2) x[ci, T(2ho+a-1), T(2wo+b-1)], T(v) = max(v,0)"
            "  (x [c,2h,2w]; = -inf padding 1)",
    ))
    _register(OpSpec(
        name="maxPool3s2Back",
        size_params=_POOL_SIZES,
        tensor_params=("x", "dy"),
        param_sizes=lambda z: (z[0] * 4 * z[1] * z[2], z[0] * z[1] * z[2]),
        out_size=lambda z: z[0] * 4 * z[1] * z[2],
        linear_in="dy",
        fn=_max_pool_back,
        doc="dx[argmax window(ci,ho,wo)] += dy[ci,ho,wo]; argmax = first strict max scanning "
            "(a,b) row-major over the clamped positions of maxPool3s2",
    ))


_build_registry()
# Present the registry in catalogue order (forwards, pooling, input-VJPs, weight grads).
OPS = {name: OPS[name] for name in __all__[4:]}


# --------------------------------------------------------------------------- #
# validated entry points
# --------------------------------------------------------------------------- #


def _spec(name: str) -> OpSpec:
    try:
        return OPS[name]
    except KeyError:
        raise ValueError(f"unknown opaque op {name!r}; known ops: {sorted(OPS)}") from None


def _check_sizes(spec: OpSpec, sizes: Sequence[int]) -> tuple[int, ...]:
    sizes = tuple(sizes)
    if len(sizes) != len(spec.size_params):
        raise ValueError(
            f"{spec.name} takes {len(spec.size_params)} sizes {spec.size_params}, got {len(sizes)}"
        )
    for pname, v in zip(spec.size_params, sizes):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"{spec.name}: size {pname} must be a positive int, got {v!r}")
    return tuple(int(v) for v in sizes)


def _check_tensors(spec: OpSpec, sizes: tuple[int, ...], tensors: Sequence[object]) -> None:
    if len(tensors) != len(spec.tensor_params):
        raise ValueError(
            f"{spec.name} takes {len(spec.tensor_params)} tensors {spec.tensor_params}, "
            f"got {len(tensors)}"
        )
    expected = spec.param_sizes(sizes)
    for pname, t, n in zip(spec.tensor_params, tensors, expected):
        a = np.asarray(t)
        if a.ndim != 1:
            raise ValueError(f"{spec.name}: tensor {pname} must be flat 1-D, got shape {a.shape}")
        if a.shape[0] != n:
            raise ValueError(
                f"{spec.name}{sizes}: tensor {pname} must have length {n}, got {a.shape[0]}"
            )


def apply(name: str, sizes: Sequence[int], tensors: Sequence[object]) -> np.ndarray:
    """Validate sizes and tensor lengths (ValueError on mismatch), then evaluate op ``name``."""
    spec = _spec(name)
    sz = _check_sizes(spec, sizes)
    tensors = tuple(tensors)
    _check_tensors(spec, sz, tensors)
    return spec.fn(sz, *tensors)


def linear_matrix(name: str, sizes: Sequence[int], fixed_tensors: Sequence[object]) -> np.ndarray:
    """Matrix M, shape (out_size, len(dy)), with op(sizes, *fixed_tensors, dy) == M @ dy.

    Only for ops with ``linear_in`` set (the linear argument is the last one).
    Column j is the op applied to the j-th basis vector; in object mode (any
    fixed tensor of dtype object) the basis holds the Python ints 0 and 1, so M
    is exact.
    """
    spec = _spec(name)
    if spec.linear_in is None:
        raise ValueError(f"{name} is not linear in any argument")
    if spec.tensor_params[-1] != spec.linear_in:
        raise ValueError(f"{name}: the linear argument must be the last tensor parameter")
    sz = _check_sizes(spec, sizes)
    fixed = tuple(fixed_tensors)
    if len(fixed) != len(spec.tensor_params) - 1:
        raise ValueError(
            f"{name} needs {len(spec.tensor_params) - 1} fixed tensors "
            f"{spec.tensor_params[:-1]}, got {len(fixed)}"
        )
    n = spec.param_sizes(sz)[-1]
    exact = any(np.asarray(t).dtype == object for t in fixed)
    out_n = spec.out_size(sz)
    M = np.empty((out_n, n), dtype=object) if exact else np.empty((out_n, n), dtype=np.float64)
    for j in range(n):
        if exact:
            e = np.empty(n, dtype=object)
            e.fill(0)
            e[j] = 1
        else:
            e = np.zeros(n, dtype=np.float64)
            e[j] = 1.0
        tensors = fixed + (e,)
        _check_tensors(spec, sz, tensors)
        M[:, j] = spec.fn(sz, *tensors)
    return M


# --------------------------------------------------------------------------- #
# module-level functions, one per op: f(<sizes...>, <tensors...>)
# --------------------------------------------------------------------------- #


def _make_public(spec: OpSpec) -> Callable[..., np.ndarray]:
    ns = len(spec.size_params)

    def op(*args):
        if len(args) != ns + len(spec.tensor_params):
            raise ValueError(
                f"{spec.name}({', '.join(spec.size_params + spec.tensor_params)}) takes "
                f"{ns + len(spec.tensor_params)} positional arguments, got {len(args)}"
            )
        return apply(spec.name, args[:ns], args[ns:])

    op.__name__ = op.__qualname__ = spec.name
    op.__doc__ = (
        f"{spec.name}({', '.join(spec.size_params)}; {', '.join(spec.tensor_params)}): "
        f"{spec.doc}"
    )
    return op


conv = _make_public(OPS["conv"])
convStrided = _make_public(OPS["convStrided"])
convStridedXla = _make_public(OPS["convStridedXla"])
depthwise = _make_public(OPS["depthwise"])
depthwiseStrided = _make_public(OPS["depthwiseStrided"])
depthwiseStridedXla = _make_public(OPS["depthwiseStridedXla"])
maxPool3s2 = _make_public(OPS["maxPool3s2"])
maxPool3s2Back = _make_public(OPS["maxPool3s2Back"])
convIn = _make_public(OPS["convIn"])
convStridedIn = _make_public(OPS["convStridedIn"])
convStridedXlaIn = _make_public(OPS["convStridedXlaIn"])
depthwiseIn = _make_public(OPS["depthwiseIn"])
depthwiseStridedIn = _make_public(OPS["depthwiseStridedIn"])
depthwiseStridedXlaIn = _make_public(OPS["depthwiseStridedXlaIn"])
convWGrad = _make_public(OPS["convWGrad"])
convStridedWGrad = _make_public(OPS["convStridedWGrad"])
convStridedXlaWGrad = _make_public(OPS["convStridedXlaWGrad"])
depthwiseWGrad = _make_public(OPS["depthwiseWGrad"])
depthwiseStridedWGrad = _make_public(OPS["depthwiseStridedWGrad"])
depthwiseStridedXlaWGrad = _make_public(OPS["depthwiseStridedXlaWGrad"])
