"""Numeric parity: run the replica programs and the single-device program, compare.

An end-to-end check of the data-parallel claims that does not use the symbolic engine at all.
It interprets the same network descriptions the `.lemma` files are rendered from
(:mod:`shardproof.nets`), at small real sizes, with numpy float64 and the opaque ops of
:mod:`shardproof.numeric_ops` (conv, strided and XLA-SAME conv, depthwise, max pool, and their
VJPs), and runs two programs:

* **single device**: the forward at the global batch `R·N` with batch-statistics BatchNorm, the
  smoothed cross-entropy cotangent divided by `R·B`, the backward chain (three-term BatchNorm
  input gradient, per-example VJPs), every parameter's gradient node;
* **R replicas in lockstep**: replica `r` holds examples `r·N … r·N + N − 1`; every BatchNorm
  all-reduces the mean and then Chan's variance (`syncStats`), every BatchNorm backward
  all-reduces `[mean(γ·dy), mean(x̂·γ·dy)]` (`bnSyncInB`), every other op is per example; each
  replica divides its cotangent by its own batch `B = N`; the replicas' gradient nodes are
  all-reduce-averaged.

It reports the largest differences: replica outputs against the shards of the global output
(T2), the averaged gradients against the global gradients (T3).  With ``per_replica_bn=True``
the replicas use their own batch statistics (plain DDP) and the differences are large — the
negative result, numerically.  ``check_backward=True`` also compares the single-device backward
with finite differences of the smoothed cross-entropy loss (the chain is a real gradient).

Sizes: `R = 2`, `N = 2`, 32 × 32 inputs (the nets' 224 = 32·7 with the base 7 replaced by 1, so
every stride and spatial level is the real one), real channel widths unless a width multiplier
is given (channel widths are scaled and rounded up to at least 1; kernels, input channels and
the class count are kept).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import numeric_ops as no
from .nets.spec import BN, DW, GAP, SE, Act, Block, Conv, Dense, FromPixel, MaxPool, Net, ToPixel

_CHANNEL_SIZES = {"c", "ic", "oc", "mid", "m1", "m2", "q"}


# --------------------------------------------------------------------------- shapes and params

@dataclass
class BlockPlan:
    block: Block
    sizes: dict[str, int]          # template binder -> int (h, w = output extents)
    cin: int
    level_in: int


def plan(net: Net, base: int = 1, width: float = 1.0) -> list[BlockPlan]:
    """Concrete sizes of every block at input `2^input_level · base` and width multiplier."""
    out = []
    level = net.input_level
    for b in net.blocks:
        t = b.template
        sz: dict[str, int] = {}
        for k, v in b.sizes.items():
            v = int(v)
            if k in _CHANNEL_SIZES and not (b is net.blocks[0] and k == "ic"):
                v = max(1, math.ceil(v * width))
            sz[k] = v
        h = base * 2 ** (level - t.level_in)
        sz["h"] = sz["w"] = h
        out.append(BlockPlan(b, sz, sz.get(t.cin, net.cin), t.level_in))
        # the output level: spatial templates end at level 0 (h); the head ends flat
        level = level - t.level_in
    return out


class DescriptionError(ValueError):
    """A net description the interpreter cannot run (shapes that do not fit)."""


def _layer_shapes(layers, c: int, hw: Any, sz: dict[str, int]):
    """Yield (layer, c_in, hw_in, c_out, hw_out, {param: shape})."""
    for layer in layers:
        ps: dict[str, tuple[int, ...]] = {}
        if isinstance(layer, Conv):
            k, co = _v(layer.k, sz), _v(layer.cout, sz)
            hw2 = hw if layer.kind == "conv" else (hw[0] // 2, hw[1] // 2)
            ps[layer.W] = (co, c, k, k)
            yield layer, c, hw, co, hw2, ps
            c, hw = co, hw2
        elif isinstance(layer, DW):
            k = _v(layer.k, sz)
            hw2 = hw if layer.kind == "conv" else (hw[0] // 2, hw[1] // 2)
            ps[layer.W] = (c, k, k)
            yield layer, c, hw, c, hw2, ps
            hw = hw2
        elif isinstance(layer, BN):
            ps[layer.g] = (c,)
            ps[layer.bt] = (c,)
            yield layer, c, hw, c, hw, ps
        elif isinstance(layer, SE):
            q = _v(layer.q, sz)
            ps.update({layer.Wa: (c, q), layer.ba: (q,), layer.Wb: (q, c), layer.bb: (c,)})
            yield layer, c, hw, c, hw, ps
        elif isinstance(layer, MaxPool):
            hw2 = (hw[0] // 2, hw[1] // 2)
            yield layer, c, hw, c, hw2, ps
            hw = hw2
        elif isinstance(layer, GAP):
            yield layer, c, hw, c, None, ps
            hw = None
        elif isinstance(layer, ToPixel):
            yield layer, c, hw, c, (1, 1), ps
            hw = (1, 1)
        elif isinstance(layer, FromPixel):
            yield layer, c, hw, c, None, ps
            hw = None
        elif isinstance(layer, Dense):
            K = _v(layer.cout, sz)
            ps.update({layer.W: (c, K), layer.b: (K,)})
            yield layer, c, hw, K, hw, ps
            c = K
        else:
            yield layer, c, hw, c, hw, ps


def _v(s: str, sz: dict[str, int]) -> int:
    return int(s) if s.isdigit() else sz[s]


def init_params(net: Net, plans: list[BlockPlan], K: int, rng: np.random.Generator
                ) -> dict[tuple[str, str], np.ndarray]:
    """He-style random weights; BN γ near 1 and β near 0 (random, so no symmetry hides a bug)."""
    params: dict[tuple[str, str], np.ndarray] = {}
    for bp in plans:
        t = bp.block.template
        sz = dict(bp.sizes, K=K)
        hw = (bp.sizes["h"] * 2 ** t.level_in,) * 2
        for path in _paths(t):
            for layer, c, _, co, _, ps in _layer_shapes(path, bp.cin, hw, sz):
                for name, shape in ps.items():
                    key = (bp.block.prefix, name)
                    if key in params:
                        continue
                    if isinstance(layer, BN):
                        v = (1.0 + 0.1 * rng.standard_normal(shape)) if name == layer.g else \
                            0.1 * rng.standard_normal(shape)
                    elif len(shape) == 1:
                        v = 0.1 * rng.standard_normal(shape)
                    else:
                        fan_in = int(np.prod(shape[1:])) if isinstance(layer, (Conv, DW)) \
                            else shape[0]
                        v = rng.standard_normal(shape) * math.sqrt(2.0 / max(fan_in, 1))
                    params[key] = v
    return params


def _paths(t) -> list:
    out = [t.body]
    if t.skip:
        out.append(t.skip)
    out.append(t.post)
    return out


# --------------------------------------------------------------------------- numeric ops

def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _conv_fn(layer: Conv):
    return {"conv": no.conv, "strided": no.convStrided, "xla": no.convStridedXla}[layer.kind]


def _dw_fn(layer: DW):
    return {"conv": no.depthwise, "strided": no.depthwiseStrided,
            "xla": no.depthwiseStridedXla}[layer.kind]


def _per_example(fn, xs: np.ndarray, *args) -> np.ndarray:
    return np.stack([fn(*args, x) for x in xs])


class Program:
    """One forward/backward program over replica groups.

    Activations are lists over replicas of arrays `(n, c, h, w)` (or `(n, c)` when flat).
    With one group of `R·N` examples this is the single-device program; with `R` groups of `N`
    examples and ``sync=True`` it is the data-parallel program with sync-BN."""

    def __init__(self, params: dict, eps: float, sync: bool) -> None:
        self.p = params
        self.eps = eps
        self.sync = sync

    # -- BatchNorm statistics
    def bn_stats(self, xs: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        axes = (0, 2, 3)
        if not self.sync:
            return [(x.mean(axis=axes), x.var(axis=axes)) for x in xs]
        R = len(xs)
        mus = [x.mean(axis=axes) for x in xs]
        mu = sum(mus) / R                                            # round 1: the mean
        var = sum(x.var(axis=axes) + (m - mu) ** 2 for x, m in zip(xs, mus)) / R  # Chan
        return [(mu, var)] * R

    # -- forward of one path
    def fwd(self, prefix: str, layers, xs: list[np.ndarray], sz: dict[str, int], tape: list):
        for layer in layers:
            tape.append((layer, xs))
            xs = [self.fwd1(prefix, layer, x, sz, tape, xs, i) for i, x in enumerate(xs)] \
                if not isinstance(layer, BN) else self.bn_fwd(prefix, layer, xs, tape)
        return xs

    def bn_fwd(self, prefix: str, layer: BN, xs, tape):
        g, b = self.p[(prefix, layer.g)], self.p[(prefix, layer.bt)]
        st = self.bn_stats(xs)
        tape[-1] = (layer, xs, st)
        out = []
        for x, (mu, var) in zip(xs, st):
            xh = (x - mu[None, :, None, None]) / np.sqrt(var + self.eps)[None, :, None, None]
            out.append(g[None, :, None, None] * xh + b[None, :, None, None])
        return out

    def fwd1(self, prefix, layer, x, sz, tape, xs, i):
        p = self.p
        if isinstance(layer, Conv):
            W = p[(prefix, layer.W)]
            co, ci, k, _ = W.shape
            n, _, H, Wd = x.shape
            h, w = (H, Wd) if layer.kind == "conv" else (H // 2, Wd // 2)
            f = _conv_fn(layer)
            y = _per_example(lambda xv: f(ci, co, h, w, k, k, W.ravel(), np.zeros(co), xv),
                             x.reshape(n, -1))
            return y.reshape(n, co, h, w)
        if isinstance(layer, DW):
            W = p[(prefix, layer.W)]
            c, k, _ = W.shape
            n, _, H, Wd = x.shape
            h, w = (H, Wd) if layer.kind == "conv" else (H // 2, Wd // 2)
            f = _dw_fn(layer)
            y = _per_example(lambda xv: f(c, h, w, k, k, W.ravel(), np.zeros(c), xv),
                             x.reshape(n, -1))
            return y.reshape(n, c, h, w)
        if isinstance(layer, Act):
            if layer.fn == "relu":
                return np.where(x > 0, x, 0.0)
            if layer.fn == "relu6":
                return np.clip(x, 0.0, 6.0)
            return x * _sig(x)
        if isinstance(layer, SE):
            Wa, ba, Wb, bb = (p[(prefix, layer.Wa)], p[(prefix, layer.ba)],
                              p[(prefix, layer.Wb)], p[(prefix, layer.bb)])
            z0 = x.mean(axis=(2, 3))
            z1 = z0 @ Wa + ba
            a1 = z1 * _sig(z1)
            g = _sig(a1 @ Wb + bb)
            return x * g[:, :, None, None]
        if isinstance(layer, MaxPool):
            n, c, H, Wd = x.shape
            y = _per_example(lambda xv: no.maxPool3s2(c, H // 2, Wd // 2, xv), x.reshape(n, -1))
            return y.reshape(n, c, H // 2, Wd // 2)
        if isinstance(layer, GAP):
            return x.mean(axis=(2, 3))
        if isinstance(layer, ToPixel):
            return x[:, :, None, None]
        if isinstance(layer, FromPixel):
            return x[:, :, 0, 0]
        if isinstance(layer, Dense):
            return x @ p[(prefix, layer.W)] + p[(prefix, layer.b)]
        raise TypeError(layer)

    # -- backward of one path (tape entries in forward order)
    def bwd(self, prefix: str, tape: list, ds: list[np.ndarray], grads: dict):
        for entry in reversed(tape):
            layer = entry[0]
            if isinstance(layer, BN):
                ds = self.bn_bwd(prefix, layer, entry[1], entry[2], ds, grads)
            else:
                ds = [self.bwd1(prefix, layer, x, d, grads, i)
                      for i, (x, d) in enumerate(zip(entry[1], ds))]
        return ds

    def _acc(self, grads: dict, key, i: int, v: np.ndarray) -> None:
        grads.setdefault(key, {})
        grads[key][i] = grads[key].get(i, 0.0) + v

    def bn_bwd(self, prefix, layer: BN, xs, st, ds, grads):
        g = self.p[(prefix, layer.g)]
        axes = (0, 2, 3)
        xhs, dhs = [], []
        for x, (mu, var), d in zip(xs, st, ds):
            xhs.append((x - mu[None, :, None, None]) / np.sqrt(var + self.eps)[None, :, None, None])
            dhs.append(g[None, :, None, None] * d)
        # the two backward means: per replica, then all-reduced (bnSyncDyStatsB, one collective)
        mdy = [dh.mean(axis=axes) for dh in dhs]
        mdyx = [(xh * dh).mean(axis=axes) for xh, dh in zip(xhs, dhs)]
        if self.sync:
            R = len(xs)
            mdy = [sum(mdy) / R] * R
            mdyx = [sum(mdyx) / R] * R
        out = []
        for i, (xh, dh, (mu, var), d) in enumerate(zip(xhs, dhs, st, ds)):
            s = 1.0 / np.sqrt(var + self.eps)
            out.append(s[None, :, None, None] * (dh - mdy[i][None, :, None, None]
                                                 - xh * mdyx[i][None, :, None, None]))
            self._acc(grads, (prefix, layer.g), i, (d * xh).sum(axis=axes))
            self._acc(grads, (prefix, layer.bt), i, d.sum(axis=axes))
        return out

    def bwd1(self, prefix, layer, x, d, grads, i):
        p = self.p
        if isinstance(layer, Conv):
            W = p[(prefix, layer.W)]
            co, ci, k, _ = W.shape
            n = x.shape[0]
            h, w = d.shape[2], d.shape[3]
            kind = {"conv": "", "strided": "Strided", "xla": "StridedXla"}[layer.kind]
            fin = getattr(no, f"conv{kind}In")
            fw = getattr(no, f"conv{kind}WGrad")
            dx = np.stack([fin(ci, co, h, w, k, k, W.ravel(), dv) for dv in d.reshape(n, -1)])
            dW = sum(fw(ci, co, h, w, k, k, xv, dv)
                     for xv, dv in zip(x.reshape(n, -1), d.reshape(n, -1)))
            self._acc(grads, (prefix, layer.W), i, dW.reshape(W.shape))
            return dx.reshape(x.shape)
        if isinstance(layer, DW):
            W = p[(prefix, layer.W)]
            c, k, _ = W.shape
            n = x.shape[0]
            h, w = d.shape[2], d.shape[3]
            kind = {"conv": "", "strided": "Strided", "xla": "StridedXla"}[layer.kind]
            fin = getattr(no, f"depthwise{kind}In")
            fw = getattr(no, f"depthwise{kind}WGrad")
            dx = np.stack([fin(c, h, w, k, k, W.ravel(), dv) for dv in d.reshape(n, -1)])
            dW = sum(fw(c, h, w, k, k, xv, dv)
                     for xv, dv in zip(x.reshape(n, -1), d.reshape(n, -1)))
            self._acc(grads, (prefix, layer.W), i, dW.reshape(W.shape))
            return dx.reshape(x.shape)
        if isinstance(layer, Act):
            if layer.fn == "relu":
                return d * (x > 0)
            if layer.fn == "relu6":
                return d * ((x > 0) & (x < 6))
            s = _sig(x)
            return d * (s * (1 + x * (1 - s)))
        if isinstance(layer, SE):
            Wa, ba, Wb, bb = (p[(prefix, layer.Wa)], p[(prefix, layer.ba)],
                              p[(prefix, layer.Wb)], p[(prefix, layer.bb)])
            z0 = x.mean(axis=(2, 3))
            z1 = z0 @ Wa + ba
            sz1 = _sig(z1)
            a1 = z1 * sz1
            gate = _sig(a1 @ Wb + bb)
            dgate = (x * d).sum(axis=(2, 3))
            dz2 = dgate * gate * (1 - gate)
            da1 = dz2 @ Wb.T
            dz1 = da1 * (sz1 * (1 + z1 * (1 - sz1)))
            dz0 = dz1 @ Wa.T
            self._acc(grads, (prefix, layer.Wb), i, a1.T @ dz2)
            self._acc(grads, (prefix, layer.bb), i, dz2.sum(axis=0))
            self._acc(grads, (prefix, layer.Wa), i, z0.T @ dz1)
            self._acc(grads, (prefix, layer.ba), i, dz1.sum(axis=0))
            S = x.shape[2] * x.shape[3]
            return d * gate[:, :, None, None] + dz0[:, :, None, None] / S
        if isinstance(layer, MaxPool):
            n, c, H, Wd = x.shape
            dx = np.stack([no.maxPool3s2Back(c, H // 2, Wd // 2, xv, dv)
                           for xv, dv in zip(x.reshape(n, -1), d.reshape(n, -1))])
            return dx.reshape(x.shape)
        if isinstance(layer, GAP):
            S = x.shape[2] * x.shape[3]
            return np.broadcast_to(d[:, :, None, None] / S, x.shape).copy()
        if isinstance(layer, ToPixel):
            return d[:, :, 0, 0]
        if isinstance(layer, FromPixel):
            return d[:, :, None, None]
        if isinstance(layer, Dense):
            W = p[(prefix, layer.W)]
            self._acc(grads, (prefix, layer.W), i, x.T @ d)
            self._acc(grads, (prefix, layer.b), i, d.sum(axis=0))
            return d @ W.T
        raise TypeError(layer)

    # -- a whole block and a whole net
    def block_fwd(self, bp: BlockPlan, xs):
        t = bp.block.template
        tapes: dict[str, list] = {"body": [], "skip": [], "post": []}
        body = self.fwd(bp.block.prefix, t.body, xs, bp.sizes, tapes["body"])
        if t.skip is not None:
            skip = self.fwd(bp.block.prefix, t.skip, xs, bp.sizes, tapes["skip"])
            if body[0].shape != skip[0].shape:     # numpy would say only "could not broadcast"
                raise DescriptionError(
                    f"block `{bp.block.prefix}` ({t.name}): the residual add joins a body of "
                    f"shape {body[0].shape} and a skip of shape {skip[0].shape}")
            body = [a + b for a, b in zip(body, skip)]
        out = self.fwd(bp.block.prefix, t.post, body, bp.sizes, tapes["post"])
        return out, tapes

    def block_bwd(self, bp: BlockPlan, tapes, ds, grads):
        t = bp.block.template
        dm = self.bwd(bp.block.prefix, tapes["post"], ds, grads)
        db = self.bwd(bp.block.prefix, tapes["body"], dm, grads)
        if t.skip is not None:
            dsk = self.bwd(bp.block.prefix, tapes["skip"], dm, grads) if t.skip else dm
            db = [a + b for a, b in zip(db, dsk)]
        return db

    def forward(self, plans: list[BlockPlan], xs):
        tapes = []
        for bp in plans:
            try:
                xs, tp = self.block_fwd(bp, xs)
            except DescriptionError:
                raise
            except ValueError as e:     # a shape error inside a layer: name the block
                raise DescriptionError(f"block `{bp.block.prefix}` "
                                       f"({bp.block.template.name}): {e}") from e
            tapes.append(tp)
        return xs, tapes

    def backward(self, plans, tapes, ds):
        grads: dict = {}
        for bp, tp in zip(reversed(plans), reversed(tapes)):
            ds = self.block_bwd(bp, tp, ds, grads)
        return grads


def smoothed_ce_cot(z: np.ndarray, t: np.ndarray, alpha: float, B: float) -> np.ndarray:
    """`(softmax(z) − t + α·t − α/K) / B`, row by row (`smoothedLossCotGraph`)."""
    K = z.shape[1]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    sm = e / e.sum(axis=1, keepdims=True)
    return (sm - t + alpha * t - alpha / K) / B


def smoothed_ce_loss(z: np.ndarray, t: np.ndarray, alpha: float, B: float) -> float:
    """The loss whose gradient in `z` is :func:`smoothed_ce_cot` when each `t` row sums to 1."""
    K = z.shape[1]
    m = z.max(axis=1, keepdims=True)
    lse = (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))[:, 0]
    ts = (1 - alpha) * t + alpha / K
    return float(((lse - (ts * z).sum(axis=1))).sum() / B)


# --------------------------------------------------------------------------- the harness

# `--check-backward`: the single-device gradient must agree with a central difference of the
# loss to FD_TOL (relative) at some step of FD_STEPS, tried largest first.  One fixed step does
# not suit every net: at the real widths a step of 1e-6 is too large for the loss's curvature
# (MobileNetV4 read 3.5e-2 there) and a relu, relu6 or max-pool kink within the step breaks the
# difference; smaller steps stay far above the rounding noise of the float64 loss.
FD_TOL = 1e-4
# the two programs agree to float64 rounding, accumulated through the net
PARITY_TOL = 1e-8
FD_STEPS = (1e-6, 1e-7, 1e-8, 1e-9)


@dataclass
class ParityReport:
    net: str
    R: int
    N: int
    resolution: int
    width: float
    classes: int
    n_params: int
    n_param_tensors: int
    forward_max_abs: float
    forward_max_rel: float
    grad_max_rel: float
    grad_worst: str
    seconds_single: float
    seconds_replicas: float
    seconds: float
    per_replica_bn: bool = False
    backward_fd_rel: float | None = None
    notes: list[str] = field(default_factory=list)

    def ok(self, tol: float = PARITY_TOL) -> bool:
        return self.forward_max_rel < tol and self.grad_max_rel < tol

    def backward_ok(self, tol: float = FD_TOL) -> bool:
        """The finite-difference check passed (or was not asked for)."""
        return self.backward_fd_rel is None or self.backward_fd_rel < tol

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    den = max(float(np.abs(b).max()), 1e-300)
    return float(np.abs(a - b).max()) / den


def run_parity(net: Net, R: int = 2, N: int = 2, base: int = 1, width: float = 1.0,
               K: int = 10, alpha: float = 0.1, eps: float = 1e-5, seed: int = 0,
               per_replica_bn: bool = False, check_backward: bool = False) -> ParityReport:
    """Run the replica programs and the single-device program of `net`; compare them."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    plans = plan(net, base, width)
    params = init_params(net, plans, K, rng)
    res = base * 2 ** net.input_level
    X = rng.standard_normal((R * N, net.cin, res, res))
    labels = rng.integers(0, K, size=R * N)
    T = np.eye(K)[labels]
    # single device at R·N
    ts = time.perf_counter()
    single = Program(params, eps, sync=True)
    (Y,), tapes = single.forward(plans, [X])
    if Y.shape != (R * N, K):      # (numpy said only "could not be broadcast": review 80)
        last = net.blocks[-1]
        raise DescriptionError(f"the net ends with block `{last.prefix}` ({last.template.name}), "
                               f"whose output per example has {math.prod(Y.shape[1:])} entries, "
                               f"not the K = {K} classes: a net ends with a head")
    G = smoothed_ce_cot(Y, T, alpha, R * N)
    g_single = single.backward(plans, tapes, [G])
    t_single = time.perf_counter() - ts
    # R replicas with sync-BN (or per-replica BN)
    tr = time.perf_counter()
    rep = Program(params, eps, sync=not per_replica_bn)
    shards = [X[r * N:(r + 1) * N] for r in range(R)]
    Ys, rtapes = rep.forward(plans, shards)
    gs = [smoothed_ce_cot(Ys[r], T[r * N:(r + 1) * N], alpha, N) for r in range(R)]
    g_rep = rep.backward(plans, rtapes, gs)
    t_rep = time.perf_counter() - tr
    # compare: forward (T2) and the all-reduced gradients (T3)
    Yrep = np.concatenate(Ys)
    fwd_abs = float(np.abs(Yrep - Y).max())
    fwd_rel = _rel(Yrep, Y)
    worst, worst_key = 0.0, ""
    n_scalars = 0
    # relative to each tensor's own scale, with a floor at 1e-6 of the largest gradient: some
    # gradients vanish identically (a BatchNorm β whose output feeds a conv and a BatchNorm:
    # the BN input-gradient sums to zero per channel), and both programs then hold rounding
    # noise
    scale = max(float(np.abs(per[0]).max()) for per in g_single.values())
    for key, per in g_single.items():
        gglob = per[0]
        gmean = sum(g_rep[key][r] for r in range(R)) / R
        n_scalars += gglob.size
        den = max(float(np.abs(gglob).max()), 1e-6 * scale)
        e = float(np.abs(gmean - gglob).max()) / den
        if e > worst:
            worst, worst_key = e, f"{key[0]}.{key[1]}"
    rep_out = ParityReport(
        net=net.key, R=R, N=N, resolution=res, width=width, classes=K,
        n_params=n_scalars, n_param_tensors=len(g_single), forward_max_abs=fwd_abs,
        forward_max_rel=fwd_rel, grad_max_rel=worst, grad_worst=worst_key,
        seconds_single=t_single, seconds_replicas=t_rep, seconds=0.0,
        per_replica_bn=per_replica_bn)
    if check_backward:
        rep_out.backward_fd_rel = _fd_check(single, plans, params, X, T, alpha, g_single, rng)
    rep_out.seconds = time.perf_counter() - t0
    return rep_out


def _fd_error(loss, P: np.ndarray, idx: tuple, g: float) -> float:
    """Relative error of `g` against the central differences of `loss` in `P[idx]`: the
    smallest over FD_STEPS, stopping at the first step within FD_TOL."""
    old = P[idx]
    best = math.inf
    for h in FD_STEPS:
        P[idx] = old + h
        lp = loss()
        P[idx] = old - h
        lm = loss()
        P[idx] = old
        fd = (lp - lm) / (2 * h)
        best = min(best, abs(fd - g) / max(abs(fd), abs(g), 1e-300))
        if best < FD_TOL:
            break
    return best


def _fd_check(prog: Program, plans, params, X, T, alpha, grads, rng,
              probes: int = 2) -> float:
    """Largest relative error of the single-device gradient against central differences of
    the smoothed cross-entropy loss (:func:`_fd_error`), at the largest-gradient coordinate
    of a few random parameter tensors."""
    B = X.shape[0]

    def loss() -> float:
        (Y,), _ = prog.forward(plans, [X])
        return smoothed_ce_loss(Y, T, alpha, B)
    scale = max(float(np.abs(g[0]).max()) for g in grads.values())
    keys = [k for k in grads if float(np.abs(grads[k][0]).max()) >= 1e-3 * scale]
    picks = [keys[i] for i in rng.choice(len(keys), size=min(len(keys), 2 * probes * 3),
                                         replace=False)]
    worst = 0.0
    for key in picks:
        P = params[key]
        g = grads[key][0]
        # the coordinate with the largest gradient, well above finite-difference noise
        idx = np.unravel_index(int(np.abs(g).argmax()), g.shape)
        worst = max(worst, _fd_error(loss, P, idx, float(g[idx])))
    return worst


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    from .nets import NETS

    def positive(text: str) -> int:
        n = int(text)
        if not 1 <= n <= 64:           # (a numeric run: 64 replicas of 64 at 224² is ~8 GB)
            raise argparse.ArgumentTypeError(f"must be from 1 to 64, not {n}")
        return n

    def replicas(text: str) -> int:
        n = positive(text)
        if n == 1:
            raise argparse.ArgumentTypeError(
                "must be at least 2: with one replica the replica program and the "
                "single-device program are the same code, so the comparison is vacuous")
        return n

    def base(text: str) -> int:
        n = int(text)
        if not 1 <= n <= 16:           # 16: 512 × 512 inputs
            raise argparse.ArgumentTypeError(f"must be from 1 to 16, not {n}")
        return n

    def width(text: str) -> float:
        w = float(text)
        if not 0 < w <= 4:
            raise argparse.ArgumentTypeError(f"must be in (0, 4], not {w}")
        return w
    ap = argparse.ArgumentParser(
        prog="python -m shardproof.parity",
        description="Run each net's replica programs (R replicas of N examples, sync-BN, "
                    "all-reduced gradients, loss divided by N) and its single-device program "
                    f"at R·N numerically, and compare them (relative tolerance {PARITY_TOL:g}).  "
                    "Exit status: 0 when every net agrees (with --per-replica-bn: when every net "
                    "DISAGREES, as plain DDP must) and, with --check-backward, every "
                    "finite-difference check passes; 1 otherwise; 2 on bad arguments or a net "
                    "description the interpreter cannot run.")
    def net(text: str) -> str:
        if text not in NETS:
            raise argparse.ArgumentTypeError(f"no net `{text}`; the nets: {', '.join(NETS)}")
        return text
    ap.add_argument("nets", nargs="*", type=net, metavar="NET",
                    help=f"nets to run (default: all): {', '.join(NETS)}")
    ap.add_argument("--R", type=replicas, default=2, help="replicas, at least 2 (default 2)")
    ap.add_argument("--N", type=positive, default=2, help="examples per replica (default 2)")
    ap.add_argument("--base", type=base, default=1,
                    help="input side = base · 2^(the net's downsamplings): 1 gives 32 × 32, "
                         "7 gives 224 × 224 (default 1)")
    ap.add_argument("--width", type=width, default=1.0,
                    help="channel width multiplier (default 1.0: the real widths)")
    ap.add_argument("--per-replica-bn", action="store_true",
                    help="each replica's BatchNorm uses its own batch statistics (plain DDP)")
    ap.add_argument("--check-backward", action="store_true",
                    help="also check the single-device gradient against central differences "
                         f"of the loss: relative error below {FD_TOL:g} at some step of "
                         f"{', '.join(f'{h:g}' for h in FD_STEPS)}, at the largest-gradient "
                         "coordinate of a dozen random parameter tensors")
    ap.add_argument("--json", action="store_true", help="one JSON object per net")
    a = ap.parse_args(argv)
    bad = 0
    for key in a.nets or list(NETS):
        try:
            r = run_parity(NETS[key], R=a.R, N=a.N, base=a.base, width=a.width,
                           per_replica_bn=a.per_replica_bn, check_backward=a.check_backward)
        except DescriptionError as e:
            print(f"python -m shardproof.parity: net `{key}`: {e}", file=sys.stderr)
            return 2
        if a.json:
            print(json.dumps(r.as_dict()))
        else:
            print(_line(key, r))
        bad += ((not r.ok()) != a.per_replica_bn) + (not r.backward_ok())
    return 1 if bad else 0


def _verdict(r: ParityReport) -> str:
    """`ok` when the programs agree as they must (with per-replica BatchNorm: disagree)."""
    if r.per_replica_bn:
        return "ok (differs, as plain DDP must)" if not r.ok() else "UNEXPECTED AGREEMENT"
    return "ok" if r.ok() else "MISMATCH"


def _line(key: str, r: ParityReport) -> str:
    fd = ("" if r.backward_fd_rel is None else
          f"  fd rel {r.backward_fd_rel:.1e} (tol {FD_TOL:g}): "
          + ("ok" if r.backward_ok() else "FD MISMATCH"))
    return (f"{key:16s} {_verdict(r)}: fwd rel {r.forward_max_rel:.2e}  grad rel "
            f"{r.grad_max_rel:.2e} ({r.grad_worst}) (tol {PARITY_TOL:g})  "
            f"{r.n_param_tensors} tensors / {r.n_params} scalars  {r.seconds:.2f}s" + fd)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
