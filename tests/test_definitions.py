"""Every definition of the prelude, the kit and the nets' op layer, against independent numpy.

The proofs are about the definitions' *meaning*: a definition whose body says something other
than the mathematics it is named after makes every proof that unfolds it prove the wrong thing.
The BatchNorm family, `dense`, `gap` and the smoothed-CE cotangent have independent tests at
fixed sizes (``tests/test_semantics.py``, ``tests/test_oracle_torch_semantics.py``); this file
covers **every** `def` of

* the prelude (``src/shardproof/prelude/*.lemma``),
* the kit (``lemmas/kit/*.lemma``),
* the network op layer (``lemmas/nets/ops.lemma``; the generated block templates
  ``lemmas/nets/blocks/`` are out of scope: their record fields, forwards and input backwards
  are compared with the parity harness's independent numpy interpreter by
  ``tests/test_nets.py::test_block_templates_agree_with_the_parity_interpreter``),

enumerated from the library, so a new `def` without a reference here fails
:func:`test_every_definition_has_a_reference`.  Each definition is applied (through
``shardproof.semantics.evaluate``, the evaluator the counterexample search uses) to random data
at random sizes 1–3 drawn by hypothesis, and compared with a plain-numpy function written here
from the mathematics of ``../shared/seed/catalog.md`` §1 (and ``docs/semantics.md``) — never by
evaluating a definition twice.  The numpy side follows Lean's conventions where they matter:
``x / 0 = 0`` and ``sqrt x = 0`` for ``x < 0``.

The opaque per-example ops (`conv`, `convIn`, `maxPool3s2Back`, …) are not definitions; their
numbers are checked in ``tests/test_numeric_ops.py`` and against PyTorch in
``tests/test_oracle_torch.py``.  The definitions built on them (the batched input-VJP links, the
weight-gradient nodes, the ties) are checked here against a numpy conv written from catalog §1.11
(cross-correlation, "same" padding ``⌊(k−1)/2⌋`` before, even / odd output phase at stride 2),
whose input-VJP and weight gradient are the transposes of its Jacobians.

A second test states, for every definition, which must-fail file of ``tests/mustfail/`` holds a
plausible bug in or around it (``tests/test_kit.py`` checks that every one of those files is
refuted).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shardproof import terms as T
from shardproof.library import Library, prelude_env
from shardproof.semantics import Assignment, RandomMap, evaluate

ROOT = Path(__file__).resolve().parents[1]
LEMMAS = ROOT / "lemmas"
TESTS = ROOT / "tests"
MUSTFAIL = TESTS / "mustfail"


# ============================================================================ the definitions

def _load_definitions() -> dict[str, tuple[Any, Any, str]]:
    """name -> (decl, env, where) for every `def` in scope, in file order."""
    out: dict[str, tuple[Any, Any, str]] = {}
    env = prelude_env()
    for name, d in env.decls.items():
        if d.kind == "def":
            out[name] = (d, env, "prelude/" + Path(d.path).name)
    lib = Library(LEMMAS)
    files = sorted((LEMMAS / "kit").glob("*.lemma")) + [LEMMAS / "nets" / "ops.lemma"]
    for f in files:
        lf = lib.load(f)
        for d in lf.own:
            if d.kind == "def":
                assert d.name not in out, f"{d.name} is defined twice"
                out[d.name] = (d, lf.env, str(f.relative_to(LEMMAS)))
    return out


DEFS = _load_definitions()


# ============================================================================ numpy helpers
# Lean's total division and square root.

def ldiv(a, b):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    out = np.zeros(a.shape)
    np.divide(a, b, out=out, where=(b != 0))
    return out if out.ndim else float(out)


def lsqrt(x):
    x = np.asarray(x, dtype=float)
    out = np.sqrt(np.maximum(x, 0.0))
    return out if out.ndim else float(out)


def sig(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def apply_map(m: RandomMap, *vs) -> np.ndarray:
    """The sampled per-example map `v ↦ M v + c + (P v)²` (see `RandomMap`), recomputed."""
    v = np.concatenate([np.asarray(x, dtype=float) for x in vs])
    M, P, c = (np.asarray(x, dtype=float) for x in (m.M, m.P, m.c))
    return M @ v + c + (P @ v) ** 2


def rows(x, N):
    """A batch `Vec (N * a)` as N rows (batch axis outermost)."""
    return np.asarray(x, dtype=float).reshape(N, -1)


# ---- BatchNorm, catalog §1.7–§1.10 (layout [N, C, S], statistics over axes (0, 2))

def stats(x, N, C, S):
    x3 = np.asarray(x, dtype=float).reshape(N, C, S)
    mu = x3.sum(axis=(0, 2)) / (N * S)
    var = ((x3 - mu[None, :, None]) ** 2).sum(axis=(0, 2)) / (N * S)
    return mu, var


def bn_fwd(x, N, C, S, eps, g, b):
    mu, var = stats(x, N, C, S)
    xh = ldiv(x.reshape(N, C, S) - mu[None, :, None], lsqrt(var + eps)[None, :, None])
    return (g[None, :, None] * xh + b[None, :, None]).reshape(-1)


def bn_back(x, dy, N, C, S, eps, g):
    """Catalog §1.8 in its mean form: `s · (d̂ − mean(d̂) − x̂ · mean(x̂ ⊙ d̂))`, `d̂ = γ dy`."""
    mu, var = stats(x, N, C, S)
    s = ldiv(1.0, lsqrt(var + eps))[None, :, None]
    xh = (x.reshape(N, C, S) - mu[None, :, None]) * s
    d = g[None, :, None] * dy.reshape(N, C, S)
    out = s * (d - d.mean(axis=(0, 2), keepdims=True)
               - xh * (xh * d).mean(axis=(0, 2), keepdims=True))
    return out.reshape(-1)


def xhat_at(x, N, C, S, eps, mu, var):
    """x̂ at handed-in statistics (catalog §1.10, `bnSyncXhat`)."""
    return ldiv(x.reshape(N, C, S) - mu[None, :, None], lsqrt(var + eps)[None, :, None])


# ---- convolutions, catalog §1.11 (per example, layouts [c, h, w], [oc, ic, kH, kW], [c, kH, kW])

def conv_same(x3, W4, b):
    """Stride-1 cross-correlation, "same" padding `⌊(k−1)/2⌋` before, zero outside."""
    ic, H, Wd = x3.shape
    oc, _, kH, kW = W4.shape
    pH, pW = (kH - 1) // 2, (kW - 1) // 2
    P = np.zeros((ic, H + kH - 1, Wd + kW - 1))
    P[:, pH:pH + H, pW:pW + Wd] = x3
    y = np.zeros((oc, H, Wd)) + np.asarray(b, dtype=float).reshape(oc, 1, 1)
    for kh in range(kH):
        for kw in range(kW):
            y += np.einsum("oi,ihw->ohw", W4[:, :, kh, kw], P[:, kh:kh + H, kw:kw + Wd])
    return y


def dw_same(x3, W3, b):
    """Stride-1 depthwise: channel c with its own `kH × kW` kernel."""
    c, H, Wd = x3.shape
    _, kH, kW = W3.shape
    pH, pW = (kH - 1) // 2, (kW - 1) // 2
    P = np.zeros((c, H + kH - 1, Wd + kW - 1))
    P[:, pH:pH + H, pW:pW + Wd] = x3
    y = np.zeros((c, H, Wd)) + np.asarray(b, dtype=float).reshape(c, 1, 1)
    for kh in range(kH):
        for kw in range(kW):
            y += W3[:, kh, kw][:, None, None] * P[:, kh:kh + H, kw:kw + Wd]
    return y


@dataclass(frozen=True)
class ConvKind:
    """One of the six per-example ops: conv or depthwise, stride 1 / 2 even / 2 odd phase."""
    depthwise: bool
    stride: int
    phase: int

    def fwd(self, x, W, b, cin, cout, h, w, kH, kW):
        """`x` flat `[cin, s·h, s·w]` → flat `[cout, h, w]` (output h × w)."""
        s = self.stride
        x3 = np.asarray(x, dtype=float).reshape(cin, s * h, s * w)
        if self.depthwise:
            y = dw_same(x3, np.asarray(W, dtype=float).reshape(cin, kH, kW), b)
        else:
            y = conv_same(x3, np.asarray(W, dtype=float).reshape(cout, cin, kH, kW), b)
        if s == 2:  # decimate (even) or decimateOdd (odd)
            y = y[:, self.phase::2, self.phase::2]
        return y.reshape(-1)

    def jac_x(self, W, cin, cout, h, w, kH, kW):
        n = cin * self.stride ** 2 * h * w
        zb = np.zeros(cout)
        return np.stack([self.fwd(e, W, zb, cin, cout, h, w, kH, kW) for e in np.eye(n)], axis=1)

    def jac_w(self, x, cin, cout, h, w, kH, kW):
        n = (cin if self.depthwise else cout * cin) * kH * kW
        zb = np.zeros(cout)
        return np.stack([self.fwd(x, e, zb, cin, cout, h, w, kH, kW) for e in np.eye(n)], axis=1)

    def vjp_x(self, W, dy, *sz):
        return self.jac_x(W, *sz).T @ np.asarray(dy, dtype=float)

    def vjp_w(self, x, dy, *sz):
        return self.jac_w(x, *sz).T @ np.asarray(dy, dtype=float)


CONV = ConvKind(False, 1, 0)
CONV_S = ConvKind(False, 2, 0)
CONV_X = ConvKind(False, 2, 1)
DW = ConvKind(True, 1, 0)
DW_S = ConvKind(True, 2, 0)
DW_X = ConvKind(True, 2, 1)


def max_pool(x, c, h, w):
    """3×3 / s2 over `[c, 2h, 2w]`, natural-number truncated `2ho + a − 1` (clamps to 0)."""
    x3 = np.asarray(x, dtype=float).reshape(c, 2 * h, 2 * w)
    y = np.full((c, h, w), -np.inf)
    for ci in range(c):
        for ho in range(h):
            for wo in range(w):
                for a in range(3):
                    for b in range(3):
                        yi, xi = max(2 * ho + a - 1, 0), max(2 * wo + b - 1, 0)
                        y[ci, ho, wo] = max(y[ci, ho, wo], x3[ci, yi, xi])
    return y.reshape(-1)


def max_pool_back(x, dy, c, h, w):
    """Select-and-scatter: the first maximum of each window (row-major scan) receives dy."""
    x3 = np.asarray(x, dtype=float).reshape(c, 2 * h, 2 * w)
    d3 = np.asarray(dy, dtype=float).reshape(c, h, w)
    dx = np.zeros((c, 2 * h, 2 * w))
    for ci in range(c):
        for ho in range(h):
            for wo in range(w):
                best = None
                for a in range(3):
                    for b in range(3):
                        yi, xi = max(2 * ho + a - 1, 0), max(2 * wo + b - 1, 0)
                        if best is None or x3[ci, yi, xi] > x3[ci, best[0], best[1]]:
                            best = (yi, xi)
                dx[ci, best[0], best[1]] += d3[ci, ho, wo]
    return dx.reshape(-1)


def dense(W, b, x, a, c):
    """`y_j = Σ_i x_i W[i, j] + b_j`, `W` as `[a, c]` (catalog §1.11)."""
    return np.asarray(x, dtype=float) @ np.asarray(W, dtype=float).reshape(a, c) + b


def gap(x, c, h, w):
    return np.asarray(x, dtype=float).reshape(c, h * w).sum(axis=1) / (h * w)


def swish(x):
    x = np.asarray(x, dtype=float)
    return x / (1.0 + np.exp(-x))


def se_block(x, Wa, ba, Wb, bb, c, h, w, q):
    """Catalog §1.11: `x ⊙ broadcast(sigmoid(dense W₂ b₂ (swish(dense W₁ b₁ (GAP x)))))`."""
    gate = sig(dense(Wb, bb, swish(dense(Wa, ba, gap(x, c, h, w), c, q)), q, c))
    return (np.asarray(x, dtype=float).reshape(c, h * w) * gate[:, None]).reshape(-1)


def softmax(z):
    e = np.exp(np.asarray(z, dtype=float))
    return e / e.sum()


def per_example(N, f, *batches):
    """`[n, k] ↦ f(example n of each batch)[k]`."""
    return np.concatenate([np.asarray(f(*(rows(X, N)[n] for X in batches)), dtype=float)
                           .reshape(-1) for n in range(N)]) if N else np.zeros(0)


def shard(X, R, N, r):
    """Replica r's contiguous block: global examples `r·N … r·N + N − 1` (catalog §1.3)."""
    X = np.asarray(X, dtype=float)
    a = X.size // (R * N)
    return X[r * N * a:(r + 1) * N * a]


def close(x, y) -> bool:
    """The evaluator's own equality of reals (`np.isclose`, rtol = atol = 1e-9)."""
    return bool(np.all(np.isclose(x, y, rtol=1e-9, atol=1e-9)))


# ============================================================================ the references

@dataclass
class Case:
    fn: Callable[[Any], Any]
    tie: Callable[[dict], None] | None = None        # fix sizes a definition's obligations need
    prepare: Callable[[Any, Any], None] | None = None  # adjust drawn values (e.g. scaled cots)


REFS: dict[str, Case] = {}


def ref(*names: str, tie=None, prepare=None):
    def deco(fn):
        for n in names:
            assert n not in REFS, n
            REFS[n] = Case(fn, tie, prepare)
        return fn
    return deco


class V(dict):
    """The drawn sizes and values of one application, by parameter name (`v.N`, `v["ε"]`)."""
    __getattr__ = dict.__getitem__


# ---- prelude/core.lemma: catalog §1.6, docs/semantics.md

ref("toReal")(lambda v: float(v.x))
ref("sigmoidR")(lambda v: float(1.0 / (1.0 + np.exp(-v.x))))
ref("relu")(lambda v: np.where(v.x > 0, v.x, 0.0))
ref("relu6")(lambda v: np.minimum(np.maximum(v.x, 0.0), 6.0))
ref("sigmoid")(lambda v: 1.0 / (1.0 + np.exp(-v.x)))
ref("swish")(lambda v: v.x / (1.0 + np.exp(-v.x)))


@ref("swBackB")
def _swback(v):
    # d/dx [x / (1 + e^{−x})] = (1 + e^{−x} + x e^{−x}) / (1 + e^{−x})²
    e = np.exp(-v.x)
    return v.dy * (1.0 + e + v.x * e) / (1.0 + e) ** 2


ref("reluMaskB")(lambda v: np.where(v.pre > 0, v.dy, 0.0))
ref("relu6MaskB")(lambda v: np.where((v.pre > 0) & (v.pre < 6), v.dy, 0.0))
ref("addV", "addVB")(lambda v: v.a + v.b)
ref("subB")(lambda v: v.a - v.b)
ref("scaleB")(lambda v: v.e * v.s)
ref("shiftB")(lambda v: v.e + v.s)
ref("divConstB")(lambda v: ldiv(v.e, v.s))
ref("mulB")(lambda v: v.a * v.b)

# ---- prelude/batch.lemma: catalog §1.3, §1.4

ref("batchSlice")(lambda v: rows(v.X, v.N)[v.n])
ref("batchMap")(lambda v: per_example(v.N, lambda x: apply_map(v.f, x), v.X))
ref("batchMapAux")(lambda v: per_example(v.N, lambda s, x: apply_map(v.f, s, x), v.aux, v.X))
ref("shard")(lambda v: rows(v.X, v.R * v.N)[v.r * v.N:(v.r + 1) * v.N].reshape(-1))
ref("allReduceMean")(lambda v: sum(v.g) / v.R)


def _same_size(sz):
    sz["b"] = sz["a"]


ref("castIdx", tie=_same_size)(lambda v: np.array(v.e))
ref("reassocB", "unassocB")(lambda v: np.array(v.v))
ref("rowB", "unrowB")(lambda v: np.array(v.v))

# ---- prelude/bn.lemma: catalog §1.7–§1.10

ref("bnMean")(lambda v: stats(v.x, v.N, v.C, v.S)[0][v.c])
ref("bnMeanSq")(lambda v: float((v.x.reshape(v.N, v.C, v.S)[:, v.c, :] ** 2).mean()))
ref("bnVar")(lambda v: stats(v.x, v.N, v.C, v.S)[1][v.c])


@ref("bnXhat")
def _xhat(v):
    mu, var = stats(v.x, v.N, v.C, v.S)
    return ldiv(v.x.reshape(v.N, v.C, v.S)[v.n, v.c, v.s] - mu[v.c], lsqrt(var[v.c] + v["ε"]))


ref("bnBatch")(lambda v: bn_fwd(v.x, v.N, v.C, v.S, v["ε"], v["γ"], v["β"]))
ref("bnBatchTensor4", "bnBatchLA")(
    lambda v: bn_fwd(v.x, v.N, v.oc, v.h * v.w, v["ε"], v["γ"], v["β"]))
ref("bnBatchGradInput")(lambda v: bn_back(v.x, v.dy, v.N, v.C, v.S, v["ε"], v["γ"]))
ref("bnBatchTensor4GradInput", "bnInB")(
    lambda v: bn_back(v.x, v.dy, v.N, v.oc, v.h * v.w, v["ε"], v["γ"]))
ref("bnGradInput")(lambda v: bn_back(v.x, v.dy, 1, 1, v.n, v["ε"], np.array([v["γ"]])))


@ref("bnGammaGradB")
def _dgamma(v):
    mu, var = stats(v.v, v.N, v.C, v.S)
    xh = xhat_at(v.v, v.N, v.C, v.S, v["ε"], mu, var)
    return (v.dy.reshape(v.N, v.C, v.S) * xh).sum(axis=(0, 2))


ref("bnBetaGradB")(lambda v: v.dy.reshape(v.N, v.C, v.S).sum(axis=(0, 2)))
ref("bnBatchMeanB")(lambda v: stats(v.x, v.N, v.C, v.S)[0])
ref("bnBatchMeanSqB")(lambda v: (v.x.reshape(v.N, v.C, v.S) ** 2).mean(axis=(0, 2)))


@ref("bnBatchVarAtB")
def _var_at(v):
    # the replica's mean squared deviation about the handed-in μ (Chan's σ²_r + (μ_r − μ)²)
    d = v.x.reshape(v.N, v.C, v.S) - v["μ"][None, :, None]
    return (d ** 2).mean(axis=(0, 2))


ref("bnPackB")(lambda v: np.concatenate([v.a, v.b]))
ref("bnStatsMeanB")(lambda v: v.st[:v.C])
ref("bnStatsVarB")(lambda v: v.st[v.C:])


def _global(fam):
    """The replicas' operands laid end to end: the global batch (equal shards, in order)."""
    return np.concatenate([np.asarray(x, dtype=float) for x in fam])


@ref("syncStats")
def _sync_stats(v):
    mu, var = stats(_global(v.x), v.R * v.N, v.C, v.S)
    return np.concatenate([mu, var])


@ref("syncStatsMeanSq")
def _sync_stats_msq(v):
    X = _global(v.x).reshape(v.R * v.N, v.C, v.S)
    mu = X.mean(axis=(0, 2))
    return np.concatenate([mu, (X ** 2).mean(axis=(0, 2)) - mu ** 2])


@ref("bnSyncF")
def _sync_f(v):
    mu, var = v.st[:v.C], v.st[v.C:]
    xh = xhat_at(v.x, v.N, v.C, v.S, v["ε"], mu, var)
    return (v["γ"][None, :, None] * xh + v["β"][None, :, None]).reshape(-1)


@ref("bnSyncXhat")
def _sync_xhat(v):
    return xhat_at(v.x, v.N, v.C, v.S, v["ε"], v.st[:v.C], v.st[v.C:])[v.n, v.c, v.s]


@ref("bnSyncDyStatsB")
def _dy_stats(v):
    mu, var = v.st[:v.C], v.st[v.C:]
    xh = xhat_at(v.x, v.N, v.C, v.S, v["ε"], mu, var)
    gdy = v["γ"][None, :, None] * v.dy.reshape(v.N, v.C, v.S)
    return np.concatenate([mu, var, gdy.mean(axis=(0, 2)), (xh * gdy).mean(axis=(0, 2))])


@ref("bnSyncBack")
def _sync_back(v):
    C = v.C
    mu, var, mdy, mdyx = (v.S4[k * C:(k + 1) * C] for k in range(4))
    xh = xhat_at(v.x, v.N, C, v.S, v["ε"], mu, var)
    gdy = v["γ"][None, :, None] * v.dy.reshape(v.N, C, v.S)
    s = ldiv(1.0, lsqrt(var + v["ε"]))[None, :, None]
    return (s * (gdy - mdy[None, :, None] - xh * mdyx[None, :, None])).reshape(-1)


@ref("bnSyncGammaGradB")
def _sync_dgamma(v):
    xh = xhat_at(v.x, v.N, v.C, v.S, v["ε"], v.st[:v.C], v.st[v.C:])
    return (v.dy.reshape(v.N, v.C, v.S) * xh).sum(axis=(0, 2))


# ---- prelude/conv.lemma: catalog §1.11–§1.13

ref("dense")(lambda v: dense(v.W, v.b, v.x, v.a, v.c))
ref("gap")(lambda v: gap(v.x, v.c, v.h, v.w))
ref("gapIn")(lambda v: np.repeat(v.dy / (v.h * v.w), v.h * v.w))
ref("seBlock")(lambda v: se_block(v.x, v.Wa, v.ba, v.Wb, v.bb, v.c, v.h, v.w, v.r))
ref("rowDenseBackFlat")(lambda v: (rows(v.dy, v.N) @ v.W.reshape(v.a, v.c).T).reshape(-1))
ref("denseWeightGradB")(lambda v: (rows(v.x, v.N).T @ rows(v.dy, v.N)).reshape(-1))
ref("denseBiasGradB")(lambda v: rows(v.dy, v.N).sum(axis=0))


def _wgrad_node(kind: ConvKind):
    """A weight-gradient node: the per-example weight VJP summed over the batch (no 1/N)."""
    def fn(v):
        cin, cout = (v.c, v.c) if kind.depthwise else (v.ic, v.oc)
        sz = (cin, cout, v.h, v.w, v.kH, v.kW)
        return sum(kind.vjp_w(x, d, *sz) for x, d in zip(rows(v.x, v.N), rows(v.dy, v.N)))
    return fn


ref("convWeightGradB")(_wgrad_node(CONV))
ref("convStridedWeightGradB")(_wgrad_node(CONV_S))
ref("convStridedXlaWeightGradB")(_wgrad_node(CONV_X))
ref("depthwiseWeightGradB")(_wgrad_node(DW))
ref("depthwiseStridedWeightGradB")(_wgrad_node(DW_S))
ref("depthwiseStridedXlaWeightGradB")(_wgrad_node(DW_X))

# ---- prelude/loss.lemma: catalog §1.14

ref("softmaxRow")(lambda v: softmax(v.z))


@ref("smoothedLossCotGraph")
def _loss_cot(v):
    K, a = v.K, v["α"]
    p = per_example(v.N, softmax, v.z)
    return ldiv(p - v.t + a * v.t - ldiv(a, K), v.B)


@ref("bceLossCotGraph")
def _bce_cot(v):
    # d/dz of the mean binary cross-entropy with logits over D entries: (σ(z) − t) / D
    return ldiv(sig(v.z) - v.t, v.D)


# ---- kit/defs.lemma: catalog §1.10, §1.12, §1.16

@ref("bnSyncSiteLA")
def _site(v):
    # BN of replica r's operand at the statistics of ALL replicas' operands (the global batch)
    C, S = v.oc, v.h * v.w
    mu, var = stats(_global(v.x), v.R * v.N, C, S)
    xh = xhat_at(v.x[v.r], v.N, C, S, v["ε"], mu, var)
    return (v["γ"][None, :, None] * xh + v["β"][None, :, None]).reshape(-1)


@ref("bnSyncInB")
def _sync_in(v):
    # replica r's block of the global three-term BN input gradient (the replicas laid end to end)
    g = bn_back(_global(v.xs), _global(v.dys), v.R * v.N, v.oc, v.h * v.w, v["ε"], v["γ"])
    return shard(g, v.R, v.N, v.r)


def _in_link(kind: ConvKind):
    """A batched input-VJP link: the transposed per-example op, example by example."""
    def fn(v):
        cin, cout = (v.c, v.c) if kind.depthwise else (v.ic, v.oc)
        sz = (cin, cout, v.h, v.w, v.kH, v.kW)
        return per_example(v.N, lambda d: kind.vjp_x(v.W, d, *sz), v.dy)
    return fn


ref("cInB")(_in_link(CONV))
ref("cStridedInB")(_in_link(CONV_S))
ref("cStridedXlaInB")(_in_link(CONV_X))
ref("dInB")(_in_link(DW))
ref("dStridedInB")(_in_link(DW_S))
ref("dStridedXlaInB")(_in_link(DW_X))
ref("gapInB")(lambda v: per_example(v.N, lambda d: np.repeat(d / (v.h * v.w), v.h * v.w), v.dy))
ref("mpInB")(lambda v: per_example(v.N, lambda x, d: max_pool_back(x, d, v.c, v.h, v.w),
                                   v.x, v.dy))
ref("shardI")(lambda v: np.concatenate([rows(v.X, v.R * v.N)[n * v.R + v.r]
                                        for n in range(v.N)]))


def _scaled_cots(v, data):
    """Half of the draws satisfy the scaled-shard hypothesis `cots r = shard(R • COT, r)`, so
    that a tie is exercised both where it holds and where it does not."""
    if data.draw(st.booleans(), label="scaled cotangents"):
        v["cots"] = [v.R * shard(v.COT, v.R, v.N, r) for r in range(v.R)]


def _tie(kind: ConvKind):
    def fn(v):
        cin, cout = (v.c, v.c) if kind.depthwise else (v.ic, v.oc)
        sz = (cin, cout, v.h, v.w, v.kH, v.kW)

        def node(X, D, n):
            return sum(kind.vjp_w(x, d, *sz) for x, d in zip(rows(X, n), rows(D, n)))
        lhs = sum(node(shard(v.X, v.R, v.N, r), v.cots[r], v.N) for r in range(v.R)) / v.R
        return close(lhs, node(v.X, v.COT, v.R * v.N))
    return fn


ref("ConvWSync", prepare=_scaled_cots)(_tie(CONV))
ref("ConvStridedWSync", prepare=_scaled_cots)(_tie(CONV_S))
ref("ConvStridedXlaWSync", prepare=_scaled_cots)(_tie(CONV_X))
ref("DepthwiseWSync", prepare=_scaled_cots)(_tie(DW))
ref("DepthwiseStridedWSync", prepare=_scaled_cots)(_tie(DW_S))
ref("DepthwiseStridedXlaWSync", prepare=_scaled_cots)(_tie(DW_X))


@ref("BnSync", prepare=_scaled_cots)
def _bn_sync(v):
    R, N, C, S, eps = v.R, v.N, v.oc, v.h * v.w, v["ε"]
    mu, var = stats(v.V, R * N, C, S)  # the all-reduced statistics are the global ones
    lg = sum((v.cots[r].reshape(N, C, S) * xhat_at(shard(v.V, R, N, r), N, C, S, eps, mu, var))
             .sum(axis=(0, 2)) for r in range(R)) / R
    rg = (v.COT.reshape(R * N, C, S) * xhat_at(v.V, R * N, C, S, eps, mu, var)).sum(axis=(0, 2))
    lb = sum(c.reshape(N, C, S).sum(axis=(0, 2)) for c in v.cots) / R
    rb = v.COT.reshape(R * N, C, S).sum(axis=(0, 2))
    return close(lg, rg) and close(lb, rb)


@ref("DenseSync", prepare=_scaled_cots)
def _dense_sync(v):
    R, N = v.R, v.N
    lw = sum(rows(shard(v.A, R, N, r), N).T @ rows(v.cots[r], N) for r in range(R)) / R
    rw = rows(v.A, R * N).T @ rows(v.COT, R * N)
    lb = sum(rows(c, N).sum(axis=0) for c in v.cots) / R
    return close(lw, rw) and close(lb, rows(v.COT, R * N).sum(axis=0))


# ---- kit/negative.lemma: catalog §4

ref("dpToyBatch")(lambda v: np.array([0.0, 2.0]))  # the global batch {0, 2} of R = 2, N = 1
ref("sliceMean")(lambda v: float(np.mean(v.xs)))
ref("bnToyGrad")(lambda v: np.array([np.mean(v.xs) ** 2]))

# ---- nets/ops.lemma: batched per-example ops at the network index, the SE backward pieces

ref("zeroV")(lambda v: np.zeros(v.n))


def _fwd_op(kind: ConvKind):
    def fn(v):
        cin, cout = (v.c, v.c) if kind.depthwise else (v.ic, v.oc)
        return per_example(v.N, lambda x: kind.fwd(x, v.W, v.b, cin, cout, v.h, v.w, v.k, v.k),
                           v.x)
    return fn


ref("convB")(_fwd_op(CONV))
ref("convStridedB")(_fwd_op(CONV_S))
ref("convStridedXlaB")(_fwd_op(CONV_X))
ref("dwB")(_fwd_op(DW))
ref("dwStridedB")(_fwd_op(DW_S))
ref("dwStridedXlaB")(_fwd_op(DW_X))
ref("maxPoolB")(lambda v: per_example(v.N, lambda x: max_pool(x, v.c, v.h, v.w), v.x))
ref("gapB")(lambda v: per_example(v.N, lambda x: gap(x, v.c, v.h, v.w), v.x))
ref("denseB")(lambda v: per_example(v.N, lambda x: dense(v.W, v.b, x, v.a, v.K), v.x))
ref("seB")(lambda v: per_example(
    v.N, lambda x: se_block(x, v.Wa, v.ba, v.Wb, v.bb, v.c, v.h, v.w, v.q), v.x))
ref("seMid")(lambda v: swish(dense(v.Wa, v.ba, gap(v.x, v.c, v.h, v.w), v.c, v.q)))
ref("seMidB")(lambda v: per_example(
    v.N, lambda x: swish(dense(v.Wa, v.ba, gap(x, v.c, v.h, v.w), v.c, v.q)), v.x))
ref("gateCotB")(lambda v: (v.x.reshape(v.N, v.c, v.h * v.w) * v.dy.reshape(v.N, v.c, v.h * v.w))
                .sum(axis=2).reshape(-1))
ref("gateMulB")(lambda v: (v.dy.reshape(v.N, v.c, v.h * v.w)
                           * v.g.reshape(v.N, v.c)[:, :, None]).reshape(-1))


@ref("sigBackB")
def _sig_back(v):
    e = np.exp(-v.pre)  # σ'(x) = e^{−x} / (1 + e^{−x})²
    return v.dy * e / (1.0 + e) ** 2


# ============================================================================ exemptions

# Definitions NOT compared here, each with the test that covers it instead.  Empty: every
# definition in scope has a reference above.  An entry is `name: "tests/file.py::test_name —
# reason"`; the named test must exist (checked below).
EXEMPT: dict[str, str] = {}


# ============================================================================ drawing values

GRID = np.array([-7.0, -6.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 5.5, 6.0, 6.5, 7.0])
EDGES = np.array([0.0, 6.0])
KINDS = ["normal", "grid", "edges"]  # drawn per parameter
POSITIVE = {"ε"}  # BatchNorm's ε > 0 (the library's theorems assume it where it matters)


def _size(term: T.Term, sizes: dict[str, int]) -> int:
    """A size expression (`N * (c * (h * w))`, `2 * h`) at concrete sizes."""
    if isinstance(term, T.Var):
        return sizes[term.name]
    if isinstance(term, T.Num):
        return int(term.value)
    if isinstance(term, T.BinOp) and term.op in ("*", "+"):
        a, b = _size(term.lhs, sizes), _size(term.rhs, sizes)
        return a * b if term.op == "*" else a + b
    raise AssertionError(f"not a size: {term!r}")


def _head(term: T.Term) -> str | None:
    if isinstance(term, T.Var):
        return term.name
    if isinstance(term, T.App) and isinstance(term.fn, T.Var):
        return term.fn.name
    return None


def _vec_width(term: T.Term, sizes) -> int | None:
    return _size(term.args[0], sizes) if _head(term) == "Vec" else None


def _draw_array(rng, n: int, kind: str) -> np.ndarray:
    if kind == "grid":  # exact values on the masks' and clamps' thresholds (0, 6) and near them
        return rng.choice(GRID, n)
    if kind == "edges":  # the thresholds alone
        return rng.choice(EDGES, n)
    return rng.standard_normal(n) * 3.0


def _draw(d, sizes, rng, kind: str, a: Assignment, v: V) -> None:
    """A value for parameter `d` of the type its declaration states."""
    ty, name = d.ty_term, d.name
    if _head(ty) in ("ℝ", "Real"):
        x = float(rng.uniform(0.05, 2.0)) if name in POSITIVE else float(_draw_array(rng, 1, kind)[0])
        a.reals[name] = v[name] = x
    elif _head(ty) == "Vec":
        a.tensors[name] = v[name] = _draw_array(rng, _vec_width(ty, sizes), kind)
    elif _head(ty) == "Fin":
        a.indices[name] = v[name] = int(rng.integers(0, _size(ty.args[0], sizes)))
    elif isinstance(ty, T.Arrow) and _head(ty.dom) == "Fin":  # a replica family
        R, n = _size(ty.dom.args[0], sizes), _vec_width(ty.cod, sizes)
        a.families[name] = v[name] = [_draw_array(rng, n, kind) for _ in range(R)]
    elif isinstance(ty, T.Arrow):  # a per-example map `Vec a → Vec b` or `Vec s → Vec a → Vec b`
        widths, t = [], ty
        while isinstance(t, T.Arrow):
            widths.append(_vec_width(t.dom, sizes))
            t = t.cod
        m, out = sum(widths), _vec_width(t, sizes)
        a.maps[name] = v[name] = RandomMap(rng.standard_normal((out, m)),
                                           rng.standard_normal((out, m)),
                                           rng.standard_normal(out), tuple(widths))
    else:
        raise AssertionError(f"{name}: cannot draw a value of type {ty!r}")


def _application(d) -> T.Term:
    params = [p for p in d.params if p.kind != "hyp"]
    if not params:
        return T.Var(d.name)
    return T.App(T.Var(d.name), tuple(T.Var(p.name) for p in params))


def _compare(name, got, want, v):
    if isinstance(want, (bool, np.bool_)):
        assert got is bool(want), f"{name}: evaluator {got}, numpy {want} at {dict(v)}"
        return
    want = np.asarray(want, dtype=float)
    got_arr = np.asarray(got, dtype=float)
    assert got_arr.shape == want.shape, f"{name}: shape {got_arr.shape} vs numpy {want.shape}"
    np.testing.assert_allclose(got_arr, want, rtol=1e-9, atol=1e-10,
                               err_msg=f"{name} disagrees with numpy at {dict(v)}")


# ============================================================================ the tests

def test_every_definition_has_a_reference():
    """A new `def` needs a numpy reference here (or an exemption naming the test that covers
    it); a reference or exemption for a name that is no longer a `def` is stale."""
    missing = [n for n in DEFS if n not in REFS and n not in EXEMPT]
    assert not missing, f"definitions with no numpy reference in {Path(__file__).name}: {missing}"
    stale = sorted((set(REFS) | set(EXEMPT)) - set(DEFS))
    assert not stale, f"references to names that are not definitions: {stale}"
    both = sorted(set(REFS) & set(EXEMPT))
    assert not both, f"both referenced and exempt: {both}"


def test_exemptions_name_existing_tests():
    for name, why in EXEMPT.items():
        m = re.match(r"(tests/[\w/]+\.py)::(\w+) — .+", why)
        assert m, f"exemption of {name} must read `tests/file.py::test_name — reason`"
        src = (ROOT / m.group(1)).read_text(encoding="utf-8")
        funcs = {n.name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef)}
        assert m.group(2) in funcs, f"exemption of {name}: no test {m.group(2)} in {m.group(1)}"


COVERED = [n for n in DEFS if n in REFS]


@pytest.mark.parametrize("name", COVERED)
@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_definition_agrees_with_numpy(name, data):
    d, env, _ = DEFS[name]
    case = REFS[name]
    sizes = {p.name: data.draw(st.integers(1, 3), label=p.name)
             for p in d.params if p.kind == "size"}
    if case.tie:
        case.tie(sizes)
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    a = Assignment(sizes=dict(sizes))
    v = V(sizes)
    for p in d.params:
        if p.kind == "value":
            _draw(p, sizes, rng, data.draw(st.sampled_from(KINDS), label=f"data of {p.name}"),
                  a, v)
    if case.prepare:
        case.prepare(v, data)
        a.families.update({k: x for k, x in v.items() if k in a.families})
    got = evaluate(_application(d), env, a, "float")
    _compare(name, got, case.fn(v), v)


# ---- spot checks of the references themselves at hand-computed values (so that a wrong
# reference cannot agree with a wrong definition by accident)

def test_references_at_hand_values():
    assert list(REFS["reluMaskB"].fn(V(pre=np.array([-1.0, 0.0, 2.0]), dy=np.ones(3)))) \
        == [0.0, 0.0, 1.0]
    assert list(REFS["relu6MaskB"].fn(V(pre=np.array([0.0, 3.0, 6.0, 7.0]), dy=np.ones(4)))) \
        == [0.0, 1.0, 0.0, 0.0]
    assert list(REFS["relu6"].fn(V(x=np.array([-1.0, 3.0, 7.0])))) == [0.0, 3.0, 6.0]
    # shard: R = 2, N = 2, a = 1 on [0, 1, 2, 3]: replica 1 owns [2, 3]; interleaved it owns [1, 3]
    X = np.arange(4.0)
    assert list(REFS["shard"].fn(V(X=X, R=2, N=2, r=1))) == [2.0, 3.0]
    assert list(REFS["shardI"].fn(V(X=X, R=2, N=2, r=1))) == [1.0, 3.0]
    # catalog §6.1: global BN of [0, 2] (γ = 1, β = 0, ε = 1) is [−1/√2, 1/√2]
    y = bn_fwd(np.array([0.0, 2.0]), 2, 1, 1, 1.0, np.ones(1), np.zeros(1))
    np.testing.assert_allclose(y, [-2 ** -0.5, 2 ** -0.5])
    # catalog §6.7: the global three-term gradient at X = [0, 2], DY = [1, 0], ε = 0 is [0, 0]
    np.testing.assert_allclose(bn_back(np.array([0.0, 2.0]), np.array([1.0, 0.0]), 2, 1, 1,
                                       0.0, np.ones(1)), [0.0, 0.0], atol=1e-15)
    # a 3×3 same conv of a one-hot input with a one-hot kernel tap moves the pixel
    x = np.zeros((1, 3, 3))
    x[0, 1, 1] = 1.0
    W = np.zeros((1, 1, 3, 3))
    W[0, 0, 0, 0] = 1.0  # y[y0, x0] = x[y0 − 1, x0 − 1]
    y = conv_same(x, W, np.zeros(1))
    assert y[0, 2, 2] == 1.0 and y.sum() == 1.0
    # max pool at 2 × 2 (h = w = 1): the window clamps to rows/cols {0, 0, 1}: the max of all
    assert max_pool(np.array([1.0, 4.0, 2.0, 3.0]), 1, 1, 1)[0] == 4.0
    assert list(max_pool_back(np.array([1.0, 4.0, 2.0, 3.0]), np.array([5.0]), 1, 1, 1)) \
        == [0.0, 5.0, 0.0, 0.0]
    # catalog §4: the toy gradient of the global batch {0, 2} is 1
    assert REFS["bnToyGrad"].fn(V(xs=REFS["dpToyBatch"].fn(V())))[0] == 1.0
    # the smoothed cotangent at K = 2, z = [0, 0], t = (1, 0), α = 0, B = 1 (catalog §6.4)
    np.testing.assert_allclose(REFS["smoothedLossCotGraph"].fn(
        V({"N": 1, "K": 2, "α": 0.0, "B": 1.0, "z": np.zeros(2), "t": np.array([1.0, 0.0])})),
        [-0.5, 0.5])


def test_conv_reference_vjps_are_adjoint():
    """The references' input-VJP and weight gradient are the transposes of the forward:
    `⟨f(x), dy⟩ = ⟨x, vjp_x(dy)⟩ = ⟨W, vjp_w(dy)⟩` (b = 0)."""
    rng = np.random.default_rng(7)
    for kind in (CONV, CONV_S, CONV_X, DW, DW_S, DW_X):
        cin, h, w, k = 2, 2, 3, 3
        cout = cin if kind.depthwise else 3
        s = kind.stride
        x = rng.standard_normal(cin * s * s * h * w)
        W = rng.standard_normal((cin if kind.depthwise else cout * cin) * k * k)
        dy = rng.standard_normal(cout * h * w)
        y = kind.fwd(x, W, np.zeros(cout), cin, cout, h, w, k, k)
        sz = (cin, cout, h, w, k, k)
        assert np.isclose(y @ dy, x @ kind.vjp_x(W, dy, *sz))
        assert np.isclose(y @ dy, W @ kind.vjp_w(x, dy, *sz))


# ============================================================================ false variants

# For every definition in scope: the must-fail files (tests/mustfail/) that state a plausible bug
# in or around it — a mutated body, a wrong property, or a wrong data-parallel use.
# `tests/test_kit.py::test_mustfail` checks that each of them is refuted.
MUTATIONS: dict[str, list[str]] = {
    # prelude/core.lemma
    "toReal": ["def_toReal_truncated_division"],
    "sigmoidR": ["def_sigmoidR_sign_slip"],
    "relu": ["seed03_relu_dropped", "s6_08_interleaved_mixed_relu"],
    "relu6": ["seed08_relu6_without_clamp"],
    "sigmoid": ["seed07_swish_vs_sigmoid"],
    "swish": ["seed07_swish_vs_sigmoid"],
    "swBackB": ["def_swBackB_sigmoid_only"],
    "reluMaskB": ["s6_10_reluMask_homog_pre", "def_reluMaskB_non_strict"],
    "relu6MaskB": ["s6_11c_relu6_mask_one_sided", "seed12_relu6Mask_homog_pre",
                   "def_relu6MaskB_closed_interval"],
    "addV": ["seed06_addV_doubled_skip"],
    "addVB": ["seed04_addVB_mixed_operand_cut", "seed05_addVB_comm_as_difference"],
    "subB": ["s6_09_subB_swapped", "s6_09b_loss_subB_swapped"],
    "scaleB": ["def_scaleB_on_softmax"],
    "shiftB": ["s6_11d_label_shift_alpha"],
    "divConstB": ["seed23_replicaLossCot_global_divisor", "def_divConstB_rescaled_without_hR"],
    "mulB": ["def_mulB_jointly_homogeneous"],
    # prelude/batch.lemma
    "batchSlice": ["def_batchSlice_strided"],
    "batchMap": ["seed02_batchOp_shard_other_replica", "seed02b_batchOp_homog_arbitrary_map"],
    "batchMapAux": ["s6_11g_maxpool_argmax_not_per_example"],
    "shard": ["seed01_batchShard_castIdx_other_replica", "s6_03_ragged_shards"],
    "allReduceMean": ["s6_05_sum_allreduce", "side_03_collective_R_zero"],
    "castIdx": ["seed09_castIdx_shard_other_replica"],
    "reassocB": ["seed15_reassocB_other_replica", "seed15b_bnchw_is_not_a_relabelling"],
    "unassocB": ["def_unassocB_swapped_spatial_axes"],
    "rowB": ["seed22_rowB_other_replica"],
    "unrowB": ["def_unrowB_transposed"],
    # prelude/bn.lemma
    "bnMean": ["def_bnMean_batch_only_divisor"],
    "bnMeanSq": ["def_bnMeanSq_square_of_mean"],
    "bnVar": ["s6_02b_naive_var_mean", "s6_11b_unbiased_variance"],
    "bnXhat": ["s6_11a_eps_outside_root"],
    "bnBatch": ["s6_10c_bnBatch_homog", "s6_11a_eps_outside_root"],
    "bnBatchTensor4": ["s6_02_naive_var_site", "s6_10c_bnBatch_homog"],
    "bnBatchLA": ["s6_01_perreplica_bn_site"],
    "bnBatchGradInput": ["def_bnBatchGradInput_two_terms"],
    "bnBatchTensor4GradInput": ["s6_07_local_dy_stats"],
    "bnGradInput": ["s6_10b_bnGradInput_homog_x", "seed13_bnGradInput_shift_dy"],
    "bnInB": ["seed16_bnSyncInB_perReplica"],
    "bnGammaGradB": ["s6_06_gamma_own_xhat"],
    "bnBetaGradB": ["seed21b_bnSync_scaled_by_N"],
    "bnBatchMeanB": ["seed10_site_stats_from_replica0"],
    "bnBatchMeanSqB": ["def_syncStatsMeanSq_no_mu_sq"],
    "bnBatchVarAtB": ["s6_02_naive_var_site"],
    "bnPackB": ["def_bnPackB_interleaved"],
    "bnStatsMeanB": ["def_bnStats_halves_swapped"],
    "bnStatsVarB": ["def_bnStats_halves_swapped"],
    "syncStats": ["s6_02_naive_var_site", "s6_11b_unbiased_variance"],
    "syncStatsMeanSq": ["def_syncStatsMeanSq_no_mu_sq"],
    "bnSyncF": ["seed10_site_stats_from_replica0", "s6_08c_interleaved_mixed_site"],
    "bnSyncXhat": ["def_bnSyncXhat_variance_not_std"],
    "bnSyncDyStatsB": ["s6_07_local_dy_stats", "def_bnSyncDyStatsB_sums"],
    "bnSyncBack": ["s6_07_local_dy_stats"],
    "bnSyncGammaGradB": ["def_bnSyncGammaGradB_mean"],
    # prelude/conv.lemma
    "dense": ["seed24b_dense_forward_homog"],
    "gap": ["def_gap_height_only"],
    "gapIn": ["def_gapIn_no_division"],
    "seBlock": ["def_seBlock_excite_not_applied", "def_seBlock_swish_dropped"],
    "rowDenseBackFlat": ["seed24_rowDenseBack_affine", "seed25_rowDenseBack_mixed_cut"],
    "denseWeightGradB": ["s6_05b_p4_missing_inv_R", "seed18_denseWeight_no_collective"],
    "denseBiasGradB": ["s6_04_unscaled_cot_dense_bias", "seed19_denseBias_wrong_divisor"],
    "convWeightGradB": ["seed21_convWSync_unscaled"],
    "convStridedWeightGradB": ["seed17_convStrided_p4_missing_inv_R"],
    "convStridedXlaWeightGradB": ["seed29_convStridedXla_p4_kind_swapped"],
    "depthwiseWeightGradB": ["seed26_depthwise_p4_missing_inv_R"],
    "depthwiseStridedWeightGradB": ["seed27_depthwiseStrided_p4_kind_swapped"],
    "depthwiseStridedXlaWeightGradB": ["seed28_depthwiseStridedXla_p4_mixed_cut",
                                       "seed21d_depthwiseStridedXlaWSync_unscaled"],
    # prelude/loss.lemma
    "softmaxRow": ["def_softmaxRow_over_the_batch"],
    "smoothedLossCotGraph": ["s6_04b_replicaLossCot_no_R", "s6_11d_label_shift_alpha"],
    "bceLossCotGraph": ["def_bceLossCot_global_divisor", "def_bceLossCot_examples_only"],
    # kit/defs.lemma
    "bnSyncSiteLA": ["def_bnSyncSiteLA_per_replica"],
    "bnSyncInB": ["seed16_bnSyncInB_perReplica", "def_bnSyncInB_args_swapped"],
    "cInB": ["def_cInB_forward_conv"],
    "cStridedInB": ["def_cStridedInB_kind_swapped"],
    "cStridedXlaInB": ["def_cStridedInB_kind_swapped"],
    "dInB": ["def_dInB_forward_depthwise"],
    "dStridedInB": ["def_dStridedInB_scaled_missing_R"],
    "dStridedXlaInB": ["def_dStridedXlaInB_symmetric_global", "s6_11f_strided_depthwise_sym_vs_xla"],
    "gapInB": ["def_gapInB_batch_divisor"],
    "mpInB": ["def_mpInB_other_replica_input", "s6_11g_maxpool_argmax_not_per_example"],
    "shardI": ["s6_08_interleaved_mixed_relu", "s6_08b_interleaved_mixed_p4"],
    "ConvWSync": ["def_ConvWSync_unscaled"],
    "ConvStridedWSync": ["def_ConvStridedWSync_scaled_by_N"],
    "ConvStridedXlaWSync": ["def_ConvStridedXlaWSync_mixed_cut"],
    "DepthwiseWSync": ["def_DepthwiseWSync_unscaled"],
    "DepthwiseStridedWSync": ["def_DepthwiseStridedWSync_scaled_by_RN"],
    "DepthwiseStridedXlaWSync": ["seed21d_depthwiseStridedXlaWSync_unscaled"],
    "BnSync": ["def_BnSync_unscaled"],
    "DenseSync": ["def_DenseSync_mixed_cut"],
    # kit/negative.lemma
    "dpToyBatch": ["s4_toy_dp_grad_equal"],
    "sliceMean": ["s4_toy_dp_grad_equal"],
    "bnToyGrad": ["s4_toy_dp_grad_equal"],
    # nets/ops.lemma
    "zeroV": ["def_convB_bias_ignored"],
    "convB": ["def_convB_bias_ignored"],
    "convStridedB": ["s6_11e_strided_conv_sym_vs_xla", "def_convStridedB_kind_swapped_shard"],
    "convStridedXlaB": ["def_convStridedB_kind_swapped_shard"],
    "dwB": ["def_dwB_homog"],
    "dwStridedB": ["def_dwStridedB_kind_swapped"],
    "dwStridedXlaB": ["def_dwStridedB_kind_swapped"],
    "maxPoolB": ["def_maxPoolB_homog"],
    "gapB": ["def_gapB_batch_mean"],
    "denseB": ["def_denseB_other_replica"],
    "seB": ["def_seB_global_squeeze"],
    "seMid": ["def_seMid_sigmoid_for_swish"],
    "seMidB": ["def_seMid_sigmoid_for_swish"],
    "gateCotB": ["def_gateCotB_mean"],
    "gateMulB": ["def_gateMulB_gate_of_example0"],
    "sigBackB": ["def_sigBackB_swish_derivative"],
}


def _expect(path: Path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[0]


def test_every_definition_has_a_false_variant():
    missing = [n for n in DEFS if n not in MUTATIONS]
    assert not missing, f"definitions with no must-fail file in MUTATIONS: {missing}"
    stale = sorted(set(MUTATIONS) - set(DEFS))
    assert not stale, f"MUTATIONS names non-definitions: {stale}"
    for name, files in MUTATIONS.items():
        for stem in files:
            p = MUSTFAIL / f"{stem}.lemma"
            assert p.is_file(), f"{name}: no must-fail file {p.name}"
            assert _expect(p) == "-- expect: refuted", f"{p.name} must be `-- expect: refuted`"


def test_new_false_variants_mention_their_definition():
    """Each `def_*` must-fail file names the definition it mutates in its header."""
    for name, files in MUTATIONS.items():
        for stem in files:
            if stem.startswith("def_"):
                head = "\n".join((MUSTFAIL / f"{stem}.lemma").read_text(encoding="utf-8")
                                 .splitlines()[:6])
                assert f"`{name}`" in head, f"{stem}.lemma's header does not name `{name}`"


def test_copied_definitions_are_the_librarys():
    """The must-fail corpus cannot import `lemmas/`, so its files copy the kit's definitions they
    use (`shardI`, `bnSyncInB`, the ties, …).  A copy must stay the library's definition: the
    same parameters and the same elaborated body; a mutation gets a name of its own."""
    lib = Library(MUSTFAIL)
    checked = 0
    for p in sorted(MUSTFAIL.glob("*.lemma")):
        if not _expect(p).startswith("-- expect: refuted") and \
                not _expect(p).startswith("-- expect: unknown"):
            continue  # an input-error file
        for d in lib.load(p).own:
            if d.kind != "def" or d.name not in DEFS:
                continue
            mine = DEFS[d.name][0]
            sig = [(q.name, q.kind, q.implicit, q.ty_term) for q in d.params]
            want = [(q.name, q.kind, q.implicit, q.ty_term) for q in mine.params]
            assert sig == want, f"{p.name}: `{d.name}` has other parameters than the library's"
            assert d.body == mine.body, f"{p.name}: `{d.name}` is not the library's definition"
            checked += 1
    assert checked >= 20
