"""The numeric reference semantics (shardproof.semantics) against independent numpy code.

The BatchNorm family is checked against straightforward numpy written here from the textbook
formulas (reshape to [N, C, S], biased variance, ε inside the root); the sharding theorems P1/P2
numerically; every false variant of catalog §6 at the catalog's own data; and the counterexample
search on true and false statements.
"""

from __future__ import annotations

import math
from fractions import Fraction
import time
from pathlib import Path

import numpy as np
import pytest

from shardproof import arith
from shardproof.library import Library, prelude_env
from shardproof.semantics import (Assignment, Counterexample, EvalError, complete_assignment,
                                  counterexample_at, evaluate, find_counterexample,
                                  sample_assignment)

ENV = prelude_env()


def load(tmp_path: Path, text: str):
    """Elaborate a `.lemma` text in a fresh lemma root; returns the loaded file."""
    (tmp_path / ".lemmaroot").write_text("")
    p = tmp_path / "t.lemma"
    p.write_text(text, encoding="utf-8")
    return Library(tmp_path).load(p)


def body(name: str):
    return ENV.get(name).body


def ev(name: str, mode: str = "float", **kw):
    """Evaluate a prelude definition's body with its parameters given by keyword."""
    a = Assignment()
    for k, v in kw.items():
        if isinstance(v, int):
            a.sizes[k] = v
        elif isinstance(v, list) and v and isinstance(v[0], np.ndarray):
            a.families[k] = v
        elif isinstance(v, np.ndarray) and v.ndim == 1:
            a.tensors[k] = v
        else:
            a.reals[k] = v
    return evaluate(body(name), ENV, a, mode)


# ----------------------------------------------------------------------------- numpy references

def ref_stats(x, N, C, S):
    x3 = x.reshape(N, C, S)
    mu = x3.mean(axis=(0, 2))
    var = ((x3 - mu[None, :, None]) ** 2).mean(axis=(0, 2))
    return mu, var


def ref_bn(x, N, C, S, eps, g, b):
    x3 = x.reshape(N, C, S)
    mu, var = ref_stats(x, N, C, S)
    y = g[None, :, None] * (x3 - mu[None, :, None]) / np.sqrt(var + eps)[None, :, None] \
        + b[None, :, None]
    return y.reshape(-1)


def ref_bn_grad_input(x, dy, N, C, S, eps, g):
    """By finite differences of L(x) = Σ dy · BN(x): independent of the three-term formula."""
    h = 1e-6
    out = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        lp = dy @ ref_bn(x + e, N, C, S, eps, g, np.zeros(C))
        lm = dy @ ref_bn(x - e, N, C, S, eps, g, np.zeros(C))
        out[i] = (lp - lm) / (2 * h)
    return out


def ref_xhat(x, N, C, S, eps):
    mu, var = ref_stats(x, N, C, S)
    return (x.reshape(N, C, S) - mu[None, :, None]) / np.sqrt(var + eps)[None, :, None]


RNG = np.random.default_rng(12345)
N_, C_, S_ = 3, 2, 4
X0 = RNG.standard_normal(N_ * C_ * S_)
DY0 = RNG.standard_normal(N_ * C_ * S_)
G0 = RNG.standard_normal(C_)
B0 = RNG.standard_normal(C_)
EPS = 0.3


# ----------------------------------------------------------------------------- BatchNorm

def test_bn_batch_forward():
    y = ev("bnBatch", N=N_, C=C_, S=S_, ε=EPS, γ=G0, β=B0, x=X0)
    np.testing.assert_allclose(y, ref_bn(X0, N_, C_, S_, EPS, G0, B0), rtol=1e-12, atol=1e-12)


def test_bn_batch_grad_input_is_the_vjp():
    got = ev("bnBatchGradInput", N=N_, C=C_, S=S_, ε=EPS, γ=G0, x=X0, dy=DY0)
    np.testing.assert_allclose(got, ref_bn_grad_input(X0, DY0, N_, C_, S_, EPS, G0),
                               rtol=1e-6, atol=1e-7)


def test_bn_gamma_beta_grads():
    dg = ev("bnGammaGradB", N=N_, C=C_, S=S_, ε=EPS, v=X0, dy=DY0)
    xh = ref_xhat(X0, N_, C_, S_, EPS)
    np.testing.assert_allclose(dg, (DY0.reshape(N_, C_, S_) * xh).sum(axis=(0, 2)), rtol=1e-12)
    db = ev("bnBetaGradB", N=N_, C=C_, S=S_, dy=DY0)
    np.testing.assert_allclose(db, DY0.reshape(N_, C_, S_).sum(axis=(0, 2)), rtol=1e-12)


def test_bn_grad_input_one_row():
    n = 5
    x, dy = RNG.standard_normal(n), RNG.standard_normal(n)
    got = ev("bnGradInput", n=n, ε=EPS, γ=1.7, x=x, dy=dy)
    want = ref_bn_grad_input(x, dy, n, 1, 1, EPS, np.array([1.7]))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------- the sync nodes

R_ = 3


def replicas(X, R, N, width):
    return [X[r * N * width:(r + 1) * N * width].copy() for r in range(R)]


def test_sync_stats_are_the_global_mean_and_variance():
    N = 2
    X = RNG.standard_normal(R_ * N * C_ * S_)
    xs = replicas(X, R_, N, C_ * S_)
    st = ev("syncStats", R=R_, N=N, C=C_, S=S_, x=xs)
    mu, var = ref_stats(X, R_ * N, C_, S_)
    np.testing.assert_allclose(st[:C_], mu, rtol=1e-12)
    np.testing.assert_allclose(st[C_:], var, rtol=1e-12)
    st1 = ev("syncStatsMeanSq", R=R_, N=N, C=C_, S=S_, x=xs)
    np.testing.assert_allclose(st1, st, rtol=1e-10, atol=1e-12)


def test_sync_forward_and_backward_nodes():
    mu, var = RNG.standard_normal(C_), RNG.random(C_) + 0.5
    st = np.concatenate([mu, var])
    x3, dy3 = X0.reshape(N_, C_, S_), DY0.reshape(N_, C_, S_)
    xh = (x3 - mu[None, :, None]) / np.sqrt(var + EPS)[None, :, None]
    y = ev("bnSyncF", N=N_, C=C_, S=S_, ε=EPS, γ=G0, β=B0, x=X0, st=st)
    np.testing.assert_allclose(y, (G0[None, :, None] * xh + B0[None, :, None]).reshape(-1),
                               rtol=1e-12)
    s4 = ev("bnSyncDyStatsB", N=N_, C=C_, S=S_, ε=EPS, γ=G0, x=X0, dy=DY0, st=st)
    gdy = G0[None, :, None] * dy3
    mdy, mdyx = gdy.mean(axis=(0, 2)), (xh * gdy).mean(axis=(0, 2))
    np.testing.assert_allclose(s4, np.concatenate([mu, var, mdy, mdyx]), rtol=1e-12)
    dx = ev("bnSyncBack", N=N_, C=C_, S=S_, ε=EPS, γ=G0, x=X0, dy=DY0, S4=s4)
    want = (gdy - mdy[None, :, None] - xh * mdyx[None, :, None]) / np.sqrt(var + EPS)[None, :, None]
    np.testing.assert_allclose(dx, want.reshape(-1), rtol=1e-12)
    dg = ev("bnSyncGammaGradB", N=N_, C=C_, S=S_, ε=EPS, x=X0, dy=DY0, st=st)
    np.testing.assert_allclose(dg, (dy3 * xh).sum(axis=(0, 2)), rtol=1e-12)


# ----------------------------------------------------------------------------- P1 / P2 numerically

P_TEXT = """
def syncBackB (R N C S : Nat) (ε : ℝ) (γ : Vec C) (xs dys : Fin R → Vec (N * (C * S))) (r : Fin R) :
    Vec (N * (C * S)) :=
  bnSyncBack N C S ε γ (xs r) (dys r)
    (allReduceMean R (fun (r' : Fin R) =>
      bnSyncDyStatsB N C S ε γ (xs r') (dys r') (syncStats R N C S xs)))

theorem p1 (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (ε : ℝ) (hε : 0 < ε) (γ β : Vec C)
    (x : Fin R → Vec (N * (C * S))) (X : Vec ((R * N) * (C * S)))
    (hx : ∀ r, x r = shard R N (C * S) X r) (r : Fin R) :
    bnSyncF N C S ε γ β (x r) (syncStats R N C S x)
      = shard R N (C * S) (bnBatch (R * N) C S ε γ β X) r := by norm

theorem p2 (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (ε : ℝ) (hε : 0 < ε) (γ : Vec C)
    (xs dys : Fin R → Vec (N * (C * S))) (X DY : Vec ((R * N) * (C * S)))
    (hx : ∀ r, xs r = shard R N (C * S) X r) (hd : ∀ r, dys r = shard R N (C * S) DY r)
    (r : Fin R) :
    syncBackB R N C S ε γ xs dys r = shard R N (C * S) (bnBatchGradInput (R * N) C S ε γ X DY) r
    := by norm

theorem p_gamma (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (ε : ℝ) (hε : 0 < ε)
    (x cots : Fin R → Vec (N * (C * S))) (X COT : Vec ((R * N) * (C * S)))
    (hx : ∀ r, x r = shard R N (C * S) X r) (hc : ∀ r, cots r = shard R N (C * S) (R • COT) r) :
    allReduceMean R (fun (r : Fin R) =>
        bnSyncGammaGradB N C S ε (x r) (cots r) (syncStats R N C S x))
      = bnGammaGradB (R * N) C S ε X COT := by norm
"""


@pytest.fixture(scope="module")
def pfile(tmp_path_factory):
    return load(tmp_path_factory.mktemp("p"), P_TEXT)


@pytest.mark.parametrize("R", [2, 3])
@pytest.mark.parametrize("N", [1, 2])
@pytest.mark.parametrize("name", ["p1", "p2", "p_gamma"])
def test_sync_bn_equals_global_bn_on_shards(pfile, name, R, N):
    g = pfile.env.get(name)
    rng = np.random.default_rng([R, N])
    for _ in range(3):
        a = sample_assignment(g, pfile.env, {"R": R, "N": N, "C": 2, "S": 3}, rng)
        assert a is not None
        for r in range(R):
            if "r" in a.indices:
                a.indices["r"] = r
            cmp = g.stmt
            lhs = evaluate(cmp.lhs, pfile.env, a)
            rhs = evaluate(cmp.rhs, pfile.env, a)
            np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-10)
            assert evaluate(g.stmt, pfile.env, a) is True


def test_p1_shards_of_the_reference(pfile):
    """The sync forward on replica r is the r-th block of the numpy BN of the global batch."""
    g = pfile.env.get("p1")
    R, N, C, S = 2, 2, 2, 3
    a = sample_assignment(g, pfile.env, {"R": R, "N": N, "C": C, "S": S}, np.random.default_rng(7))
    ref = ref_bn(a.tensors["X"], R * N, C, S, a.reals["ε"], a.tensors["γ"], a.tensors["β"])
    for r in range(R):
        a.indices["r"] = r
        np.testing.assert_allclose(evaluate(g.stmt.lhs, pfile.env, a),
                                   ref[r * N * C * S:(r + 1) * N * C * S], rtol=1e-10)


# ----------------------------------------------------------------------------- catalog §6

SIX = r"""
def centre (N : Nat) (x : Vec N) : Vec N := fun (i : Fin N) => x i - (∑ (j : Fin N), x j) / N

def naiveStats (R N C S : Nat) (x : Fin R → Vec (N * (C * S))) : Vec (2 * C) :=
  bnPackB C (allReduceMean R (fun (r : Fin R) => bnBatchMeanB N C S (x r)))
    (allReduceMean R (fun (r : Fin R) => fun (c : Fin C) => bnVar N C S (x r) c))

def unbiasedVar (M : Nat) (x : Vec M) : ℝ :=
  (∑ (i : Fin M), (x i - (∑ (j : Fin M), x j) / M) ^ 2) / (M - 1)

def relu6MaskOneSided (n : Nat) (pre dy : Vec n) : Vec n :=
  fun (i : Fin n) => if 0 < pre i then dy i else 0

def smoothedLossCotShiftSlip (N K : Nat) (α B : ℝ) (z t : Vec (N * (1 * K))) : Vec (N * (1 * K)) :=
  divConstB B (shiftB (-α) (addVB (subB (batchMap N (softmaxRow K) z) t) (scaleB α t)))

theorem six1_perReplicaBN (R N C S : Nat) (hR : 0 < R) (ε : ℝ) (γ β : Vec C)
    (x : Fin R → Vec (N * (C * S))) (X : Vec ((R * N) * (C * S)))
    (hx : ∀ r, x r = shard R N (C * S) X r) (r : Fin R) :
    bnBatch N C S ε γ β (x r) = shard R N (C * S) (bnBatch (R * N) C S ε γ β X) r := by norm

theorem six2_naiveVar (R N C S : Nat) (hR : 0 < R) (x : Fin R → Vec (N * (C * S)))
    (X : Vec ((R * N) * (C * S))) (hx : ∀ r, x r = shard R N (C * S) X r) :
    bnStatsVarB C (naiveStats R N C S x) = (fun (c : Fin C) => bnVar (R * N) C S X c) := by norm

theorem six2_meanSq_true (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0)
    (x : Fin R → Vec (N * (C * S)))
    (X : Vec ((R * N) * (C * S))) (hx : ∀ r, x r = shard R N (C * S) X r) :
    syncStatsMeanSq R N C S x = syncStats R N C S x := by norm

theorem six3_ragged (a : Vec 1) (b : Vec 3) (X : Vec 4) (ha : ∀ (i : Fin 1), a i = X i)
    (hb : ∀ (i : Fin 3), b i = X (1 + i)) :
    (bnMean 1 1 1 a 0 + bnMean 3 1 1 b 0) / 2 = bnMean 4 1 1 X 0 := by norm

theorem six4_noR (R N c : Nat) (hR : 0 < R) (cots : Fin R → Vec (N * c)) (COT : Vec ((R * N) * c))
    (hc : ∀ r, cots r = shard R N c COT r) :
    allReduceMean R (fun (r : Fin R) => denseBiasGradB N c (cots r)) = denseBiasGradB (R * N) c COT
    := by norm

theorem six4_loss (R N K : Nat) (hR : 0 < R) (α B : ℝ) (zs ts : Fin R → Vec (N * (1 * K)))
    (Z T : Vec ((R * N) * (1 * K))) (hz : ∀ r, zs r = shard R N (1 * K) Z r)
    (ht : ∀ r, ts r = shard R N (1 * K) T r) (r : Fin R) :
    smoothedLossCotGraph N K α B (zs r) (ts r)
      = shard R N (1 * K) (smoothedLossCotGraph (R * N) K α (R * B) Z T) r := by norm

theorem six4_loss_true (R N K : Nat) (hR : 0 < R) (α B : ℝ) (zs ts : Fin R → Vec (N * (1 * K)))
    (Z T : Vec ((R * N) * (1 * K))) (hz : ∀ r, zs r = shard R N (1 * K) Z r)
    (ht : ∀ r, ts r = shard R N (1 * K) T r) (r : Fin R) :
    smoothedLossCotGraph N K α B (zs r) (ts r)
      = shard R N (1 * K) (R • smoothedLossCotGraph (R * N) K α (R * B) Z T) r := by norm

theorem six5_sumNoInv (R N c : Nat) (hR : 0 < R) (cots : Fin R → Vec (N * c))
    (COT : Vec ((R * N) * c)) (hc : ∀ r, cots r = shard R N c (R • COT) r) :
    (fun (j : Fin c) => ∑ (r : Fin R), denseBiasGradB N c (cots r) j) = denseBiasGradB (R * N) c COT
    := by norm

theorem six6_gammaLocal (R N C S : Nat) (hR : 0 < R) (ε : ℝ) (x cots : Fin R → Vec (N * (C * S)))
    (X COT : Vec ((R * N) * (C * S))) (hx : ∀ r, x r = shard R N (C * S) X r)
    (hc : ∀ r, cots r = shard R N (C * S) (R • COT) r) :
    allReduceMean R (fun (r : Fin R) => bnGammaGradB N C S ε (x r) (cots r))
      = bnGammaGradB (R * N) C S ε X COT := by norm

theorem six7_localDy (R N C S : Nat) (hR : 0 < R) (ε : ℝ) (γ : Vec C)
    (x dys : Fin R → Vec (N * (C * S))) (X DY : Vec ((R * N) * (C * S)))
    (hx : ∀ r, x r = shard R N (C * S) X r) (hd : ∀ r, dys r = shard R N (C * S) DY r) (r : Fin R) :
    bnSyncBack N C S ε γ (x r) (dys r)
        (bnSyncDyStatsB N C S ε γ (x r) (dys r) (syncStats R N C S x))
      = shard R N (C * S) (bnBatchGradInput (R * N) C S ε γ X DY) r := by norm

theorem six8_interleaved (R N a : Nat) (X : Vec ((R * N) * a)) (r : Fin R) :
    shard R N a X r = (fun (n : Fin N) (j : Fin a) => X[r + n * R, j]) := by norm

theorem six9_subSwapped (R N n : Nat) (a b : Fin R → Vec (N * n)) (A B : Vec ((R * N) * n))
    (ha : ∀ r, a r = shard R N n A r) (hb : ∀ r, b r = shard R N n B r) (r : Fin R) :
    subB (a r) (b r) = shard R N n (subB B A) r := by norm

theorem six9_addSwapped_true (R N n : Nat) (a b : Fin R → Vec (N * n)) (A B : Vec ((R * N) * n))
    (ha : ∀ r, a r = shard R N n A r) (hb : ∀ r, b r = shard R N n B r) (r : Fin R) :
    addVB (a r) (b r) = shard R N n (addVB B A) r := by norm

theorem six10_maskHomogPre (n : Nat) (s : ℝ) (pre dy : Vec n) :
    reluMaskB n (s • pre) dy = s • reluMaskB n pre dy := by norm

theorem six11_epsOutside (v ε : ℝ) : 1 / (sqrt v + ε) = 1 / sqrt (v + ε) := by norm

theorem six11_unbiased (M : Nat) (x : Vec M) : unbiasedVar M x = bnVar M 1 1 x 0 := by norm

theorem six11_relu6OneSided (n : Nat) (pre dy : Vec n) :
    relu6MaskOneSided n pre dy = relu6MaskB n pre dy := by norm

theorem six11_labelShift (N K : Nat) (α B : ℝ) (z t : Vec (N * (1 * K))) :
    smoothedLossCotShiftSlip N K α B z t = smoothedLossCotGraph N K α B z t := by norm

theorem six11_xla (ic oc h w kH kW : Nat) (W : Vec (oc * ic * kH * kW)) (b : Vec oc)
    (x : Vec (ic * ((2 * h) * (2 * w)))) :
    convStrided ic oc h w kH kW W b x = convStridedXla ic oc h w kH kW W b x := by norm

theorem six12_centre (R N : Nat) (hR : 0 < R) (x : Fin R → Vec (N * 1)) (X : Vec ((R * N) * 1))
    (hx : ∀ r, x r = shard R N 1 X r) (r : Fin R) :
    centre (N * 1) (x r) = shard R N 1 (centre ((R * N) * 1) X) r := by norm

theorem inv_mul_R_noHyp (R : Nat) (v : ℝ) : 1 / R * (R * v) = v := by norm

theorem inv_mul_R (R : Nat) (hR : 0 < R) (v : ℝ) : 1 / R * (R * v) = v := by norm

theorem allReduce_const_noHyp (R n : Nat) (v : Vec n) :
    allReduceMean R (fun (r : Fin R) => v) = v := by norm

theorem den_relu_shard {R N n : Nat} (e : Fin R → Vec (N * n)) (X : Vec ((R * N) * n))
    (he : ∀ r, e r = shard R N n X r) (r : Fin R) :
    batchMap N (relu n) (e r) = shard R N n (relu ((R * N) * n) X) r := by norm

theorem perReplicaBN_ne_global : ∃ (R N C S : Nat) (ε : ℝ) (γ β : Vec C)
    (x : Fin R → Vec (N * (C * S))) (X : Vec ((R * N) * (C * S)))
    (hx : ∀ r, x r = shard R N (C * S) X r) (r : Fin R),
    bnBatch N C S ε γ β (x r) ≠ shard R N (C * S) (bnBatch (R * N) C S ε γ β X) r
"""


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    return load(tmp_path_factory.mktemp("six"), SIX)


def sides(lf, name, a, mode="exact"):
    g = lf.env.get(name)
    cmp = g.stmt
    return evaluate(cmp.lhs, lf.env, a, mode), evaluate(cmp.rhs, lf.env, a, mode)


def fl(v):
    return np.array([float(x) for x in np.asarray(v, dtype=object).reshape(-1)])


def fam(*rows):
    return [np.array(r, dtype=float) for r in rows]


def bn_assignment(**kw):
    base = dict(sizes={"R": 2, "N": 1, "C": 1, "S": 1})
    a = Assignment(**base)
    for k, v in kw.items():
        if isinstance(v, list):
            a.families[k] = v
        elif isinstance(v, np.ndarray):
            a.tensors[k] = v
        elif isinstance(v, int) and k in ("r",):
            a.indices[k] = v
        else:
            a.reals[k] = v
    return a


def test_six1_per_replica_bn(six):
    X = np.array([0.0, 2.0])
    lhs_all, rhs_all = [], []
    for r in range(2):
        a = bn_assignment(ε=1, γ=np.array([1.0]), β=np.array([0.0]), x=fam([0], [2]), X=X, r=r)
        lhs, rhs = sides(six, "six1_perReplicaBN", a)
        lhs_all += list(fl(lhs))
        rhs_all += list(fl(rhs))
        assert arith.is_exact(rhs[0])
    np.testing.assert_allclose(lhs_all, [0, 0], atol=0)
    np.testing.assert_allclose(rhs_all, [-1 / math.sqrt(2), 1 / math.sqrt(2)], rtol=1e-15)


def test_six2_naive_variance_and_mean_sq(six):
    a = bn_assignment(x=fam([0], [2]), X=np.array([0.0, 2.0]))
    lhs, rhs = sides(six, "six2_naiveVar", a)
    assert list(fl(lhs)) == [0.0] and list(fl(rhs)) == [1.0]
    assert find_counterexample(six.env.get("six2_meanSq_true"), six.env, budget_seconds=0.5) \
        is None


def test_six3_ragged_shards(six):
    a = Assignment(tensors={"a": np.array([0.0]), "b": np.array([2.0, 2, 2]),
                            "X": np.array([0.0, 2, 2, 2])})
    lhs, rhs = sides(six, "six3_ragged", a)
    assert (float(lhs), float(rhs)) == (1.0, 1.5)
    assert find_counterexample(six.env.get("six3_ragged"), six.env, budget_seconds=1) is not None


def test_six4_missing_R_factor(six):
    a = Assignment(sizes={"R": 2, "N": 1, "c": 1}, families={"cots": fam([1], [1])},
                   tensors={"COT": np.array([1.0, 1.0])})
    lhs, rhs = sides(six, "six4_noR", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([1.0], [2.0])
    z, t = np.zeros(4), np.array([1.0, 0, 1, 0])
    a = Assignment(sizes={"R": 2, "N": 1, "K": 2}, reals={"α": 0, "B": 1}, indices={"r": 0},
                   families={"zs": fam([0, 0], [0, 0]), "ts": fam([1, 0], [1, 0])},
                   tensors={"Z": z, "T": t})
    lhs, rhs = sides(six, "six4_loss", a)
    assert list(fl(lhs)) == [-0.5, 0.5] and list(fl(rhs)) == [-0.25, 0.25]
    lhs, rhs = sides(six, "six4_loss_true", a)
    assert list(fl(lhs)) == list(fl(rhs)) == [-0.5, 0.5]


def test_six5_sum_without_inverse(six):
    a = Assignment(sizes={"R": 2, "N": 1, "c": 1}, families={"cots": fam([2], [2])},
                   tensors={"COT": np.array([1.0, 1.0])})
    lhs, rhs = sides(six, "six5_sumNoInv", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([4.0], [2.0])


def test_six6_gamma_with_local_xhat(six):
    a = bn_assignment(ε=0, x=fam([0], [2]), cots=fam([0], [2]), X=np.array([0.0, 2.0]),
                      COT=np.array([0.0, 1.0]))
    lhs, rhs = sides(six, "six6_gammaLocal", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([0.0], [1.0])


def test_six7_local_dy_reductions(six):
    a = bn_assignment(ε=0, γ=np.array([1.0]), x=fam([0], [2]), dys=fam([1], [0]),
                      X=np.array([0.0, 2.0]), DY=np.array([1.0, 0.0]), r=0)
    lhs, rhs = sides(six, "six7_localDy", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([-1.0], [0.0])


def test_six8_interleaved_shard(six):
    a = Assignment(sizes={"R": 2, "N": 2, "a": 1}, tensors={"X": np.array([0.0, 1, 2, 3])},
                   indices={"r": 0})
    lhs, rhs = sides(six, "six8_interleaved", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([0.0, 1.0], [0.0, 2.0])


def test_six9_operand_order(six):
    a = Assignment(sizes={"R": 1, "N": 1, "n": 1}, families={"a": fam([1]), "b": fam([0])},
                   tensors={"A": np.array([1.0]), "B": np.array([0.0])}, indices={"r": 0})
    lhs, rhs = sides(six, "six9_subSwapped", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([1.0], [-1.0])
    assert find_counterexample(six.env.get("six9_addSwapped_true"), six.env,
                               budget_seconds=0.5) is None


def test_six10_homogeneity_in_pre(six):
    a = Assignment(sizes={"n": 1}, reals={"s": -1}, tensors={"pre": np.array([1.0]),
                                                             "dy": np.array([1.0])})
    lhs, rhs = sides(six, "six10_maskHomogPre", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([0.0], [-1.0])


def test_six11_definition_slips(six):
    lhs, rhs = sides(six, "six11_epsOutside", Assignment(reals={"v": 1, "ε": 1}))
    assert float(lhs) == 0.5 and float(rhs) == pytest.approx(1 / math.sqrt(2), rel=1e-15)
    lhs, rhs = sides(six, "six11_unbiased", Assignment(sizes={"M": 2},
                                                       tensors={"x": np.array([0.0, 2.0])}))
    assert (float(lhs), float(rhs)) == (2.0, 1.0)
    a = Assignment(sizes={"n": 1}, tensors={"pre": np.array([7.0]), "dy": np.array([1.0])})
    lhs, rhs = sides(six, "six11_relu6OneSided", a)
    assert (list(fl(lhs)), list(fl(rhs))) == ([1.0], [0.0])
    for name in ("six11_labelShift", "six11_xla"):
        cx = find_counterexample(six.env.get(name), six.env, budget_seconds=2)
        assert cx is not None, name


def test_six12_batch_coupled_op(six):
    a = Assignment(sizes={"R": 2, "N": 1}, families={"x": fam([0], [2])},
                   tensors={"X": np.array([0.0, 2.0])})
    got = []
    for r in range(2):
        a.indices["r"] = r
        lhs, rhs = sides(six, "six12_centre", a)
        got.append((float(lhs[0]), float(rhs[0])))
    assert got == [(0.0, -1.0), (0.0, 1.0)]


def test_witness_at_the_catalog_data(six):
    """`witness (R := 2) (N := 1) … (X := ![0, 2])`: the families follow from the hypotheses."""
    given = Assignment(sizes={"R": 2, "N": 1, "C": 1, "S": 1}, reals={"ε": 1},
                       tensors={"γ": np.array([1.0]), "β": np.array([0.0]),
                                "X": np.array([0.0, 2.0])}, indices={"r": 0})
    g = six.env.get("perReplicaBN_ne_global")
    a = complete_assignment(g, six.env, given)
    assert [list(fl(x)) for x in a.families["x"]] == [[0.0], [2.0]]
    cx = counterexample_at(g, six.env, a)
    assert cx is not None and cx.witness and cx.index == 0
    assert float(cx.lhs_value[0]) == 0.0
    assert float(cx.rhs_value[0]) == pytest.approx(-1 / math.sqrt(2), rel=1e-15)
    cx = counterexample_at(six.env.get("six1_perReplicaBN"), six.env, a)
    assert cx is not None and not cx.witness
    # A size hypothesis that the given sizes violate, and a missing size.
    bad = Assignment(sizes={"R": 0, "N": 1, "C": 1, "S": 1}, reals={"ε": 1},
                     tensors={"γ": np.ones(1), "β": np.zeros(1), "X": np.zeros(0)})
    assert complete_assignment(six.env.get("six1_perReplicaBN"), six.env, bad) is None
    with pytest.raises(EvalError):
        complete_assignment(g, six.env, Assignment(sizes={"R": 2}))


# ----------------------------------------------------------------------------- the search

@pytest.mark.parametrize("name", ["six1_perReplicaBN", "six2_naiveVar", "six4_noR", "six4_loss",
                                  "six5_sumNoInv", "six6_gammaLocal", "six7_localDy",
                                  "six8_interleaved", "six9_subSwapped", "six10_maskHomogPre",
                                  "six11_epsOutside", "six11_unbiased", "six11_relu6OneSided",
                                  "six12_centre"])
def test_search_refutes_false_variants(six, name):
    g = six.env.get(name)
    t0 = time.monotonic()
    cx = find_counterexample(g, six.env, budget_seconds=2.0)
    assert time.monotonic() - t0 < 3.5      # the budget bounds it (a second for a busy machine)
    assert isinstance(cx, Counterexample), name
    assert not cx.witness
    # The returned assignment really refutes the statement, exactly.
    assert evaluate(g.stmt, six.env, cx.assignment, "exact") is False
    if "R" in cx.assignment.sizes and name.startswith(("six1", "six4", "six6", "six7", "six12")):
        assert cx.assignment.sizes["R"] >= 2


def test_search_exact_recheck_with_sqrt(six, monkeypatch):
    from shardproof import shrink         # (the search's own find: shrunk, its values are rational)
    monkeypatch.setattr(shrink, "SHRINK_SHARE", 0.0)
    cx = find_counterexample(six.env.get("six1_perReplicaBN"), six.env, budget_seconds=2.0)
    assert cx is not None and cx.index is not None
    lv, rv = cx.lhs_value[cx.index], cx.rhs_value[cx.index]
    assert arith.is_exact(lv) and arith.is_exact(rv)
    assert arith.exact_sign(arith.to_exact(lv) - arith.to_exact(rv)) != 0
    assert "sqrt" in str(lv) + str(rv)  # the exact values keep their roots
    d = cx.to_dict()
    assert d["assignment"]["sizes"]["R"] >= 2 and isinstance(d["message"], str)
    text = cx.assignment.format()
    assert "np.array" in text and "R = " in text


@pytest.mark.parametrize("name", ["den_relu_shard", "inv_mul_R", "six4_loss_true",
                                  "six9_addSwapped_true", "six2_meanSq_true"])
def test_search_finds_nothing_for_true_statements(six, name):
    t0 = time.monotonic()
    assert find_counterexample(six.env.get(name), six.env, budget_seconds=0.7) is None
    assert time.monotonic() - t0 < 2.0      # the budget bounds it (a second for a busy machine)


@pytest.mark.parametrize("name", ["p1", "p2", "p_gamma"])
def test_search_finds_nothing_for_sync_bn(pfile, name):
    assert find_counterexample(pfile.env.get(name), pfile.env, budget_seconds=1.0) is None


def test_search_finds_missing_positivity_at_zero(six):
    cx = find_counterexample(six.env.get("inv_mul_R_noHyp"), six.env, budget_seconds=2.0)
    assert cx is not None and cx.assignment.sizes["R"] == 0
    assert float(cx.lhs_value) == 0 and float(cx.rhs_value) != 0
    cx = find_counterexample(six.env.get("allReduce_const_noHyp"), six.env, budget_seconds=2.0)
    assert cx is not None and cx.assignment.sizes["R"] == 0


def test_search_witness_for_ne_statement(six):
    cx = find_counterexample(six.env.get("perReplicaBN_ne_global"), six.env, budget_seconds=2.0)
    assert cx is not None and cx.witness
    assert cx.assignment.sizes["R"] >= 2


def test_search_is_deterministic(six):
    g = six.env.get("six1_perReplicaBN")
    a = find_counterexample(g, six.env, budget_seconds=2.0, seed=3)
    b = find_counterexample(g, six.env, budget_seconds=2.0, seed=3)
    assert a.assignment.to_dict() == b.assignment.to_dict()


def test_search_respects_the_budget(pfile):
    t0 = time.monotonic()
    assert find_counterexample(pfile.env.get("p2"), pfile.env, budget_seconds=0.2) is None
    assert time.monotonic() - t0 < 1.5      # a bound, not a speed: 2 cores may be busy


# ----------------------------------------------------------------------------- sampling

def test_sample_respects_hypotheses(pfile):
    g = pfile.env.get("p2")
    rng = np.random.default_rng(0)
    a = sample_assignment(g, pfile.env, {"R": 3, "N": 2, "C": 2, "S": 1}, rng)
    assert len(a.families["xs"]) == 3 and a.reals["ε"] > 0
    for r in range(3):
        np.testing.assert_array_equal(a.families["xs"][r], a.tensors["X"][r * 4:(r + 1) * 4])
    assert sample_assignment(g, pfile.env, {"R": 0, "N": 2, "C": 2, "S": 1}, rng) is None
    assert sample_assignment(g, pfile.env, {"R": 2, "N": 2, "C": 2, "S": 0}, rng) is None
    ae = sample_assignment(g, pfile.env, {"R": 2, "N": 1, "C": 1, "S": 1}, rng, "exact")
    assert arith.is_exact(ae.families["dys"][0][0])


def test_sample_ties_sizes(tmp_path):
    lf = load(tmp_path, """
theorem tie (a b : Nat) (hab : a = b) (e : Vec a) (X : Vec b) (he : ∀ (i : Fin a), e i = X i) :
    castIdx b e = X := by norm
""")
    g = lf.env.get("tie")
    a = sample_assignment(g, lf.env, {"a": 5, "b": 3}, np.random.default_rng(0))
    assert a.sizes == {"a": 3, "b": 3}
    np.testing.assert_array_equal(a.tensors["e"], a.tensors["X"])
    assert evaluate(g.stmt, lf.env, a) is True


def test_checked_hypothesis_and_map_binder(tmp_path):
    lf = load(tmp_path, """
theorem mapShard {R N a b : Nat} (f : Vec a → Vec b) (e : Fin R → Vec (N * a))
    (X : Vec ((R * N) * a)) (he : ∀ r, e r = shard R N a X r) (r : Fin R) :
    batchMap N f (e r) = shard R N b (batchMap (R * N) f X) r := by norm

theorem mapHomog {a b : Nat} (f : Vec a → Vec b) (s : ℝ) (v : Vec a) :
    f (s • v) = s • f v := by norm

theorem auxShard {R N s a b : Nat} (f : Vec s → Vec a → Vec b)
    (aux : Vec ((R * N) * s)) (X : Vec ((R * N) * a)) (r : Fin R) :
    shard R N b (batchMapAux (R * N) f aux X) r
      = batchMapAux N f (shard R N s aux r) (shard R N a X r) := by norm

theorem auxShardSwapped {R N s a b : Nat} (f : Vec s → Vec a → Vec b)
    (aux : Vec ((R * N) * s)) (X : Vec ((R * N) * a)) (r r2 : Fin R) :
    shard R N b (batchMapAux (R * N) f aux X) r
      = batchMapAux N f (shard R N s aux r2) (shard R N a X r) := by norm
""")
    import ast
    for name in ("mapShard", "auxShard"):
        assert find_counterexample(lf.env.get(name), lf.env, budget_seconds=0.5) is None
    for name in ("mapHomog", "auxShardSwapped"):
        cx = find_counterexample(lf.env.get(name), lf.env, budget_seconds=2)
        assert cx is not None and "np.array" in cx.assignment.format()
        ast.parse(cx.assignment.format())


# ----------------------------------------------------------------------------- smaller pieces

def test_lean_division_and_sqrt_conventions(tmp_path):
    lf = load(tmp_path, """
def q (x y : ℝ) : ℝ := x / y + sqrt y
""")
    for mode in ("float", "exact"):
        v = evaluate(lf.env.get("q").body, lf.env, Assignment(reals={"x": 3, "y": 0}), mode)
        assert float(v) == 0.0
        v = evaluate(lf.env.get("q").body, lf.env, Assignment(reals={"x": 3, "y": -1}), mode)
        assert float(v) == -3.0


def test_function_and_family_values():
    from fractions import Fraction

    from shardproof import terms as T
    y = evaluate(ENV.get("relu").body, ENV,
                 Assignment(sizes={"n": 3}, tensors={"x": np.array([-1.0, 0.0, 2.0])}))
    np.testing.assert_array_equal(y, [0.0, 0.0, 2.0])
    fam_val = evaluate(T.Var("e"), ENV, Assignment(families={"e": fam([1, 2], [3, 4])}))
    np.testing.assert_array_equal(fam_val(1), [3.0, 4.0])
    relu = evaluate(T.App(T.Var("relu"), (T.Num(Fraction(2)),)), ENV, Assignment())
    np.testing.assert_array_equal(relu(np.array([-1.0, 5.0])), [0.0, 5.0])


def test_assignment_serialises(six):
    import ast
    import json
    cx = find_counterexample(six.env.get("six7_localDy"), six.env, budget_seconds=2.0)
    assert cx is not None
    json.dumps(cx.to_dict())
    ast.parse(cx.assignment.format())  # valid Python, ready to paste next to numpy
    a = Assignment(reals={"s": arith.exact_sqrt(arith.to_exact(2))}, tensors={"v": np.ones(2)})
    assert a.to_dict()["reals"]["s"] == "sqrt(2)"
    ast.parse(a.format())


def test_opaque_ops_per_example_match_numeric_ops():
    from shardproof.numeric_ops import apply
    N, ic, oc, h, w, k = 2, 2, 3, 2, 2, 3
    rng = np.random.default_rng(1)
    W, b = rng.standard_normal(oc * ic * k * k), rng.standard_normal(oc)
    x, dy = rng.standard_normal(N * ic * 4 * h * w), rng.standard_normal(N * oc * h * w)
    got = ev("convStridedWeightGradB", N=N, ic=ic, oc=oc, h=h, w=w, kH=k, kW=k, b=b, x=x, W=W,
             dy=dy)
    want = sum(apply("convStridedWGrad", (ic, oc, h, w, k, k),
                     [x[n * ic * 16:(n + 1) * ic * 16], dy[n * oc * 4:(n + 1) * oc * 4]])
               for n in range(N))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_dense_gap_and_se_block():
    a, c = 3, 2
    W, bb, x = RNG.standard_normal(a * c), RNG.standard_normal(c), RNG.standard_normal(a)
    np.testing.assert_allclose(ev("dense", a=a, c=c, W=W, b=bb, x=x),
                               x @ W.reshape(a, c) + bb, rtol=1e-12)
    ch, h, w = 2, 2, 3
    xs = RNG.standard_normal(ch * h * w)
    np.testing.assert_allclose(ev("gap", c=ch, h=h, w=w, x=xs),
                               xs.reshape(ch, h * w).mean(axis=1), rtol=1e-12)


def test_smoothed_ce_cotangent_is_the_gradient():
    N, K, alpha, B = 3, 4, 0.1, 5.0
    z = RNG.standard_normal(N * K)
    t = RNG.random((N, K))
    t /= t.sum(axis=1, keepdims=True)  # Σ_k t = 1 per row
    t = t.reshape(-1)
    cot = ev("smoothedLossCotGraph", N=N, K=K, α=alpha, B=B, z=z, t=t)

    def loss(zz):
        zr, tr = zz.reshape(N, K), t.reshape(N, K)
        q = (1 - alpha) * tr + alpha / K
        logp = zr - np.log(np.exp(zr).sum(axis=1, keepdims=True))
        return -(q * logp).sum() / B

    h = 1e-6
    grad = np.array([(loss(z + h * e) - loss(z - h * e)) / (2 * h) for e in np.eye(N * K)])
    np.testing.assert_allclose(cot, grad, rtol=1e-6, atol=1e-8)


def test_exact_mode_on_bn_matches_float():
    x = np.array([0.0, 0.5, 2.0, -1.5, 1.0, 3.0])
    g, b = np.array([1.5, -0.5]), np.array([0.5, 0.0])
    ef = ev("bnBatch", N=3, C=2, S=1, ε=0.5, γ=g, β=b, x=x)
    ee = ev("bnBatch", "exact", N=3, C=2, S=1, ε=0.5, γ=g, β=b, x=x)
    assert all(arith.is_exact(v) for v in ee)
    np.testing.assert_allclose(fl(ee), ef, rtol=1e-14)


def test_unknown_names_raise_eval_error():
    from shardproof import terms as T
    with pytest.raises(EvalError):
        evaluate(T.Var("nope"), ENV, Assignment())


def test_vectorised_evaluation_is_fast():
    """A BN backward at a realistic size: the per-element work must stay in numpy."""
    N, C, S = 8, 16, 64
    x, dy = RNG.standard_normal(N * C * S), RNG.standard_normal(N * C * S)
    t0 = time.monotonic()
    got = ev("bnBatchGradInput", N=N, C=C, S=S, ε=EPS, γ=np.ones(C), x=x, dy=dy)
    assert time.monotonic() - t0 < 3.0
    assert got.shape == (N * C * S,) and np.isfinite(got).all()


def test_an_empty_replica_family_keeps_its_members_shape(tmp_path):
    """At `R = 0` a family has no member, but reading `x r j` under an empty sum still needs the
    members' length: the evaluator lost it (a `(0, 0)` array), so the search gave up on `R = 0`
    and this false statement (without `0 < R`) came out unknown.  Found by the mechanical kit
    variants (`tests/test_kit_variants.py`)."""
    lf = load(tmp_path, """
theorem mean_const (R N : Nat) (v : Vec N) (x : Fin R → Vec N) (hx : ∀ r, x r = v)
    (j : Fin N) : allReduceMean R x j = v j := by norm
theorem mean_const_pos (R N : Nat) (hR : 0 < R) (v : Vec N) (x : Fin R → Vec N)
    (hx : ∀ r, x r = v) (j : Fin N) : allReduceMean R x j = v j := by norm
""")
    g = lf.env.get("mean_const")
    a = sample_assignment(g, lf.env, {"R": 0, "N": 2}, np.random.default_rng(0), "exact")
    assert a.families["x"] == [] and a.member_shapes["x"] == (2,)
    assert evaluate(g.stmt, lf.env, a, "exact") is (bool(np.all(a.tensors["v"] == 0)))
    cx = find_counterexample(g, lf.env, budget_seconds=3.0)
    assert cx is not None and cx.assignment.sizes["R"] == 0
    assert find_counterexample(lf.env.get("mean_const_pos"), lf.env, budget_seconds=0.5) is None


LATE = """
theorem late (a b c d e f g : Nat) (x : ℝ) (hx : 0 < x) :
    (if 2 < a ∧ 2 < b ∧ 2 < c ∧ 2 < d ∧ 2 < e ∧ 2 < f ∧ 2 < g then x else 0) = 0 := by norm
"""


def test_the_search_budget_is_work_not_time(tmp_path, monkeypatch):
    """The budget was wall-clock time, so a counterexample found late in the schedule (here
    after thousands of draws) was `refuted` on an idle machine and `unknown` on a busy one
    (eighth review).  It is now evaluation work: a clock 100× slower changes nothing, and the
    clock is only a safety net that says when it stopped the search."""
    from shardproof import semantics
    g = load(tmp_path, LATE).env.get("late")
    env = load(tmp_path, LATE).env
    cx = find_counterexample(g, env, budget_seconds=2.0)
    assert cx is not None
    ticks = iter(range(10**9))
    monkeypatch.setattr(semantics.time, "monotonic", lambda: next(ticks) * 0.05)
    monkeypatch.setattr(semantics, "CLOCK_SAFETY", 1e9)
    again = find_counterexample(g, env, budget_seconds=2.0)
    assert again is not None and again.assignment.to_dict() == cx.assignment.to_dict()
    monkeypatch.setattr(semantics, "CLOCK_SAFETY", 0.0)      # the safety net, and its note
    notes: list[str] = []
    assert find_counterexample(g, env, budget_seconds=2.0, notes=notes) is None
    assert notes == [semantics.CLOCK_NOTE]


def test_exact_arithmetic_refuses_what_would_not_end(tmp_path):
    """exp of exp of … and huge powers ran for minutes (or crashed with OverflowError) in exact
    mode; a numeral past float range crashed float mode; `Vec 1000000000` was allocated before
    its size was looked at (eighth review).  Each now ends: refused with a reason, or ±inf."""
    from shardproof import semantics
    with pytest.raises(EvalError, match="exp of a value above"):
        semantics._e_exp(arith.to_exact(10**5))
    with pytest.raises(EvalError, match="bits"):
        semantics._e_pow(arith.to_exact(2.5), 10**20)
    assert semantics._e_pow(arith.to_exact(2.5), 3) == arith.to_exact(15.625)
    ev_ = semantics._Ev(prelude_env(), "float")               # an index axis of 10⁹: 8 GB
    with pytest.raises(EvalError, match="entries is not evaluated"):
        ev_.push_axis(10**9)
    with pytest.raises(EvalError, match="square root"):    # sympy factors it: minutes
        semantics._e_sqrt(arith.to_exact(Fraction(5, 2)) ** 16384 + arith.to_exact(2))
    assert semantics._FLOAT.num(Fraction(10**400)) == np.inf
    lf = load(tmp_path, """
theorem bigvec (v : Vec 1000000000) : v = v + v := by norm
theorem tower (x : ℝ) : exp (exp (exp (exp (exp x)))) / exp (exp (exp (exp (exp x)))) = 2 := by norm
theorem huge (x : ℝ) : 10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000 * x = 0 := by norm
""")
    notes: list[str] = []
    assert find_counterexample(lf.env.get("bigvec"), lf.env, notes=notes) is None
    assert "(the first skipped: 1,000,000,000)" in notes[0]
    cx = find_counterexample(lf.env.get("tower"), lf.env, budget_seconds=1.0)
    assert cx is None or cx.assignment.reals["x"] < 0     # refused where exp⁵ x is astronomical
    assert find_counterexample(lf.env.get("huge"), lf.env, budget_seconds=1.0) is not None


def test_exact_evaluation_is_bounded_by_its_work(tmp_path: Path) -> None:
    """Sixteenth review: the exact re-check of `∑ i j, sqrt (x + v i + v j)` over
    Fin 1000 × Fin 1000 formed 10⁶ sympy square roots, counted as 10⁶ units of work (a float
    entry's count): 76 s of a 2 s budget.  An exact array has at most EXACT_CELLS entries, an
    exact entry counts EXACT_ENTRY_WORK, an irrational one IRRATIONAL_WORK more; and a random
    map's matrices count as data (`Vec 10000 → Vec 10000` drew 3·10⁸ entries, 2.4 GB)."""
    import sympy

    from shardproof import semantics as S
    with pytest.raises(EvalError, match="in exact arithmetic"):
        S._fits((1000, 1), (1, 1000), exact=True)
    S._fits((1000, 1), (1, 1000))                    # a float array of 10⁶ entries is fine
    exact = np.empty(3, dtype=object)
    exact[:] = [sympy.Rational(1, 3), sympy.sqrt(2), sympy.Integer(4)]
    assert S._work(exact) == 2 * S.EXACT_ENTRY_WORK + S._entry_work(exact[1], {}) and \
        S._entry_work(exact[1], {}) >= S.IRRATIONAL_WORK
    assert S._work(np.zeros(3)) == 3
    lf = load(tmp_path, "theorem m (f : Vec 300 → Vec 300) (x : Vec 1) : x = x + x := by norm\n")
    g = lf.own[0]
    assert S._entries_to_draw(g, S._plan(g), {}) == 1 + 2 * 300 * 300 + 300


def test_an_exact_op_is_charged_before_it_runs(tmp_path: Path, monkeypatch) -> None:
    """Seventeenth review: an exact 60 × 60 conv with a 60 × 60 kernel (13 M sympy products)
    ran 82 s under a 0.5 s budget: the op was charged its output's entries, after it ran.  It
    is now charged its products first, and the search stops before running it."""
    from shardproof import numeric_ops
    from shardproof import semantics as S
    lf = load(tmp_path, "theorem slow (W : Vec (1 * 1 * 60 * 60)) (b : Vec 1) "
                        "(x : Vec (1 * (60 * 60))) : conv 1 1 60 60 60 60 W b x = "
                        "conv 1 1 60 60 60 60 W b (x + x) := by norm\n")
    real_apply = numeric_ops.apply
    exact_runs = []

    def apply(name, sizes, args):
        if any(getattr(a, "dtype", None) == object for a in args):
            exact_runs.append(name)
        return real_apply(name, sizes, args)
    monkeypatch.setattr(numeric_ops, "apply", apply)
    notes: list[str] = []
    assert S.find_counterexample(lf.own[0], lf.env, budget_seconds=0.5, notes=notes) is None
    assert exact_runs == []


def test_the_search_tries_the_breakpoints(tmp_path: Path) -> None:
    """Seventeenth review: statements false only where relu6 or a mask turns were `unknown`
    (three draws in all for a statement without sizes; `6` drawn rarely).  The search now gives
    a statement without sizes 16 rounds of draws, and ends with data at the breakpoints."""
    lf = load(tmp_path, """
theorem mask_ge (x d : ℝ) : (if 0 ≤ x then d else 0) = (if 0 < x then d else 0) := by norm
theorem sign_partition (x : ℝ) : (if 0 < x then 1 else 0) + (if x < 0 then 1 else 0) = 1 := by norm
theorem relu6_le (n : Nat) (pre dy : Vec n) :
    relu6MaskB n pre dy = (fun (i : Fin n) => if 0 < pre i ∧ pre i ≤ 6 then dy i else 0) := by norm
""")
    for g in lf.own:
        cx = find_counterexample(g, lf.env, budget_seconds=2.0)
        assert cx is not None, g.name
        assert evaluate(g.stmt, lf.env, cx.assignment, "exact") is False


def test_a_size_too_large_for_the_search_is_skipped_not_the_end(tmp_path: Path) -> None:
    """Eighteenth review: sizes are not tried in data order (N = 2 before N = 1), and the
    search stopped at the first size whose data was too large to evaluate (or to re-check
    exactly), although N = 1 fitted.  It now skips that size."""
    lf = load(tmp_path, "theorem t (N : Nat) (x : Vec (N * 8000)) : relu (N * 8000) x = x := "
                        "by norm\n")
    cx = find_counterexample(lf.own[0], lf.env, budget_seconds=2.0)
    assert cx is not None and cx.assignment.sizes["N"] == 1


def test_exact_work_grows_with_the_size_of_the_numbers(tmp_path: Path) -> None:
    """Eighteenth review: the exact re-check charged a flat amount per entry, so 2^(2^18)-bit
    rationals (a gcd per addition: 0.8 s each) and √ nested 14 deep (a tree of 2^14 nodes that
    evalf and printing walk) ran 50-200 s of a 0.5 s budget; a given witness had no budget at
    all.  And a real defined by a hypothesis (`h : x = y + 1`) always failed to build (numpy 2
    made its 0-d value 1-d), so no search or witness worked with one."""
    import sympy

    from shardproof import semantics as S
    small, big = sympy.Rational(3, 7), sympy.Integer(2) ** 100_000
    assert S._entry_work(small, {}) == S.EXACT_ENTRY_WORK
    assert S._entry_work(big, {}) > 2_000_000
    e = sympy.Integer(2)
    for _ in range(14):
        e = sympy.sqrt(e) + sympy.sqrt(e + 1)
    with pytest.raises(EvalError, match="nodes is not evaluated"):
        S._entry_work(e, {})
    lf = load(tmp_path, """
def f (x : ℝ) : ℝ := sqrt x + sqrt (x + 1)
theorem deep (y : ℝ) : f (f (f (f (f (f (f (f (f (f (f (f (f (f y))))))))))))) = 0 := by norm
theorem t2 (x y : ℝ) (h : x = y + 1) : x - y = 2 := by norm
""")
    notes: list[str] = []
    assert find_counterexample(lf.env.get("deep"), lf.env, budget_seconds=0.5,
                               notes=notes) is None
    cx = find_counterexample(lf.env.get("t2"), lf.env, budget_seconds=1.0)
    assert cx is not None and evaluate(lf.env.get("t2").stmt, lf.env, cx.assignment,
                                       "exact") is False
    a = Assignment(reals={"y": 1.0})                 # a witness's evaluation has a budget
    with S.exact_budget(0.01), pytest.raises(EvalError, match="work budget ran out"):
        evaluate(lf.env.get("deep").stmt, lf.env, a, "exact")


def test_the_python_of_a_counterexample_binds_every_variable_once(tmp_path) -> None:
    """Twenty-eighth review: the paste-into-numpy snippet bound `ℓ` and `l` to one Python name
    (Python reads identifiers in NFKC), renamed `x'` onto a real `x_1`, wrote `v_x₁ = …` (a
    syntax error) and let a real named `np` shadow numpy."""
    from shardproof.check import Options, check_paths
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "n.lemma").write_text(
        "theorem nm1 (ℓ l : ℝ) (h : ℓ = l + 1) : ℓ * ℓ = l * l + 1 := by norm\n"
        "theorem nm2 (x' x_1 : ℝ) (h : x' = x_1 + 1) : x' * x' = x_1 * x_1 + 1 := by norm\n"
        "theorem nm3 (x₁ : ℝ) : x₁ * x₁ = x₁ := by norm\n"
        "theorem nm4 (np lambda : ℝ) (v : Vec 2) : np * lambda = np + v 0 := by norm\n")
    for v in check_paths([tmp_path], Options(search_seconds=2.0)).verdicts:
        assert v.verdict == "refuted", v
        code = v.counterexample["python"]
        ns: dict = {}
        exec(code, ns)                      # runs, numpy intact
        assert ns["np"].__name__ == "numpy", code
        reals = v.counterexample["assignment"]["reals"]
        values = sorted(float(ns[k]) for k in ns if k not in ("np", "math", "__builtins__")
                        and not isinstance(ns[k], type(ns["np"])) and not hasattr(ns[k], "shape"))
        assert values == sorted(float(Fraction(str(x))) for x in reals.values()), code


def test_exp_of_a_large_irrational_is_not_evaluated_exactly(tmp_path) -> None:
    """Sixty-second review: the exact re-check of a per-replica EfficientNet block's candidate
    built exp of a nested irrational (swish of swish), and sympy's own arithmetic on it (signs
    and real parts by evalf, inside `/`) ran for minutes past the search's budget, uncharged.
    exp of an irrational of more than EXP_NODES nodes is refused (the search then moves on);
    a small one still gives a counterexample."""
    from shardproof.check import Options, check_paths
    from shardproof.semantics import EXP_NODES
    nested = "x"
    for _ in range(20):
        nested = f"sqrt (x + {nested})"
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "e.lemma").write_text(
        "theorem small (x : ℝ) (h : x = 3) : exp (exp (sqrt x)) = 0 := by norm\n"
        f"theorem large (x : ℝ) (h : x = 3) : exp ({nested}) = 0 := by norm\n", encoding="utf-8")
    verdicts = {v.name: v.verdict for v in check_paths([tmp_path], Options()).verdicts}
    assert verdicts == {"small": "refuted", "large": "unknown"} and EXP_NODES == 64
