"""PyTorch (float64) as a real-world oracle for the evaluator's meaning of the prelude.

BatchNorm forward and its autograd backward, dense, global average pooling and the label-smoothed
cross-entropy cotangent, each against the definition the evaluator reads from the prelude.

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


@pytest.mark.parametrize("N,C,H,W,eps", [(2, 3, 2, 2, 1e-5), (4, 2, 3, 1, 0.1), (1, 1, 2, 3, 0.5)])
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
