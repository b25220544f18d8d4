"""PyTorch (float64) as a real-world oracle for the evaluator's meaning of the prelude.

BatchNorm forward and its autograd backward (spatial size 1 too), dense, global average pooling,
the label-smoothed cross-entropy cotangent, sigmoid, swish (SiLU), relu6 and relu with their
backward masks, and the squeeze-excite block, each against the definition the evaluator reads
from the prelude; the activations and the squeeze-excite block, forward and backward, also
against the parity harness's interpreter (`shardproof.parity`).

CI sets SHARDPROOF_REQUIRE_ORACLE=1 so that a missing torch fails loudly there;
developers without torch skip this file.
"""

import os, pytest  # noqa: E401

torch = pytest.importorskip("torch") if not os.environ.get("SHARDPROOF_REQUIRE_ORACLE") else __import__("torch")  # noqa: E501

import numpy as np  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from shardproof.library import prelude_env  # noqa: E402
from shardproof.semantics import Assignment, evaluate  # noqa: E402

ENV = prelude_env()


def ev(name, **kw):
    a = Assignment()
    for k, v in kw.items():
        if isinstance(v, int):
            a.sizes[k] = v
        elif isinstance(v, np.ndarray):
            a.tensors[k] = v
        else:
            a.reals[k] = v
    return evaluate(ENV.get(name).body, ENV, a)


def t64(a, *shape, grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64).reshape(*shape), dtype=torch.float64,
                        requires_grad=grad)


def flat(t):
    return t.detach().numpy().reshape(-1)


# (4, 3, 1, 1): spatial size 1, as in the squeeze-excite and head layers of a 32 × 32 run
@pytest.mark.parametrize("N,C,H,W,eps", [(2, 3, 2, 2, 1e-5), (4, 2, 3, 1, 0.1), (1, 1, 2, 3, 0.5),
                                         (4, 3, 1, 1, 1e-5), (2, 2, 1, 1, 1e-3)])
def test_batch_norm_forward_and_backward(N, C, H, W, eps):
    rng = np.random.default_rng(N * 100 + C * 10 + H)
    S = H * W
    x, dy = rng.standard_normal(N * C * S), rng.standard_normal(N * C * S)
    g, b = rng.standard_normal(C), rng.standard_normal(C)
    xt, gt, bt = t64(x, N, C, H, W, grad=True), t64(g, C, grad=True), t64(b, C, grad=True)
    y = F.batch_norm(xt, None, None, weight=gt, bias=bt, training=True, eps=eps)
    y.backward(t64(dy, N, C, H, W))
    np.testing.assert_allclose(ev("bnBatch", N=N, C=C, S=S, ε=eps, γ=g, β=b, x=x), flat(y),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ev("bnBatchGradInput", N=N, C=C, S=S, ε=eps, γ=g, x=x, dy=dy),
                               flat(xt.grad), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ev("bnGammaGradB", N=N, C=C, S=S, ε=eps, v=x, dy=dy),
                               flat(gt.grad), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ev("bnBetaGradB", N=N, C=C, S=S, dy=dy), flat(bt.grad),
                               rtol=1e-12, atol=1e-12)


def test_dense_is_linear():
    a, c = 4, 3
    rng = np.random.default_rng(1)
    W, b, x = rng.standard_normal(a * c), rng.standard_normal(c), rng.standard_normal(a)
    # dense reads W as Mat a c (W[i, j] at i * c + j); torch's weight is [out, in].
    want = F.linear(t64(x, a), t64(W, a, c).T, t64(b, c))
    np.testing.assert_allclose(ev("dense", a=a, c=c, W=W, b=b, x=x), flat(want), rtol=1e-12)


def test_gap_is_adaptive_avg_pool():
    c, h, w = 3, 2, 5
    x = np.random.default_rng(2).standard_normal(c * h * w)
    want = F.adaptive_avg_pool2d(t64(x, 1, c, h, w), 1)
    np.testing.assert_allclose(ev("gap", c=c, h=h, w=w, x=x), flat(want), rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.3])
def test_smoothed_loss_cotangent_is_the_cross_entropy_gradient(alpha):
    N, K, B = 3, 5, 4.0
    rng = np.random.default_rng(3)
    z = rng.standard_normal(N * K)
    t = rng.random((N, K))
    t = (t / t.sum(axis=1, keepdims=True)).reshape(-1)  # soft targets, Σ_k t = 1
    zt = t64(z, N, K, grad=True)
    # torch smooths probability targets as (1 − α) t + α / K, the prelude's reading.
    loss = F.cross_entropy(zt, t64(t, N, K), label_smoothing=alpha, reduction="sum")
    loss.backward()
    got = ev("smoothedLossCotGraph", N=N, K=K, α=alpha, B=B, z=z, t=t)
    np.testing.assert_allclose(got, flat(zt.grad) / B, rtol=1e-10, atol=1e-12)


# points at and around the kinks (0 and 6) and both tails of the sigmoid
ACT_X = np.array([-40.0, -6.0, -1.0, -1e-9, 0.0, 1e-9, 0.5, 3.0, 6.0 - 1e-9, 6.0, 6.5, 40.0])


@pytest.mark.parametrize("name,back,fn", [
    ("sigmoid", None, torch.sigmoid), ("swish", "swBackB", F.silu),
    ("relu6", "relu6MaskB", F.relu6), ("relu", "reluMaskB", torch.relu)])
def test_activations_and_their_backward(name, back, fn):
    n = ACT_X.size
    dy = np.random.default_rng(4).standard_normal(n)
    xt = t64(ACT_X, n, grad=True)
    y = fn(xt)
    (gx,) = torch.autograd.grad(y, xt, t64(dy, n))
    np.testing.assert_allclose(ev(name, n=n, x=ACT_X), flat(y), rtol=1e-14, atol=1e-15)
    if back is not None:
        pre = "x" if back == "swBackB" else "pre"
        np.testing.assert_allclose(ev(back, n=n, dy=dy, **{pre: ACT_X}), flat(gx),
                                   rtol=1e-13, atol=1e-15)


def _se_case(seed=5, N=3, c=4, r=2, h=2, w=3):
    rng = np.random.default_rng(seed)
    params = {"Wa": rng.standard_normal((c, r)), "ba": rng.standard_normal(r),
              "Wb": rng.standard_normal((r, c)), "bb": rng.standard_normal(c)}
    return params, rng.standard_normal((N, c, h, w)), rng.standard_normal((N, c, h, w))


def _se_torch(params, x, dy):
    """`x ⊙ σ(dense Wb bb (silu (dense Wa ba (mean_hw x))))`: its value and autograd
    gradients."""
    T = {k: t64(v, *v.shape, grad=True) for k, v in params.items()}
    xt = t64(x, *x.shape, grad=True)
    a = F.silu(xt.mean(dim=(2, 3)) @ T["Wa"] + T["ba"])
    y = xt * torch.sigmoid(a @ T["Wb"] + T["bb"])[:, :, None, None]
    gs = torch.autograd.grad(y, [xt, *T.values()], t64(dy, *dy.shape))
    return y.detach().numpy(), gs[0].numpy(), dict(zip(T, (g.numpy() for g in gs[1:])))


def test_squeeze_excite_block_against_the_prelude():
    params, x, dy = _se_case(N=1)
    c, r, h, w = x.shape[1], params["Wa"].shape[1], x.shape[2], x.shape[3]
    y, _, _ = _se_torch(params, x, dy)
    got = ev("seBlock", c=c, h=h, w=w, r=r, Wa=params["Wa"].ravel(), ba=params["ba"],
             Wb=params["Wb"].ravel(), bb=params["bb"], x=x.ravel())
    np.testing.assert_allclose(got, y.ravel(), rtol=1e-12, atol=1e-14)


def test_squeeze_excite_and_activations_of_the_parity_interpreter():
    from shardproof import parity as P
    from shardproof.nets.spec import SE, Act
    params, x, dy = _se_case()
    prog = P.Program({("b", k): v for k, v in params.items()}, 1e-5, sync=True)
    layer, grads = SE("q", "Wa", "ba", "Wb", "bb"), {}
    y, gx, gp = _se_torch(params, x, dy)
    np.testing.assert_allclose(prog.fwd1("b", layer, x, {}, [], [x], 0), y, rtol=1e-12)
    np.testing.assert_allclose(prog.bwd1("b", layer, x, dy, grads, 0), gx, rtol=1e-12,
                               atol=1e-14)
    for k, g in gp.items():
        np.testing.assert_allclose(grads[("b", k)][0], g, rtol=1e-12, atol=1e-14)
    xa, da = ACT_X[None, :, None, None], np.ones_like(ACT_X)[None, :, None, None]
    for fn, tf in [("swish", F.silu), ("relu6", F.relu6), ("relu", torch.relu)]:
        xt = t64(xa, *xa.shape, grad=True)
        yt = tf(xt)
        (gt,) = torch.autograd.grad(yt, xt, t64(da, *da.shape))
        np.testing.assert_allclose(prog.fwd1("b", Act(fn), xa, {}, [], [xa], 0),
                                   yt.detach().numpy(), rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(prog.bwd1("b", Act(fn), xa, da, {}, 0), gt.numpy(),
                                   rtol=1e-13, atol=1e-15)
