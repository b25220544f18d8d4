"""PyTorch (float64) as a real-world oracle for the opaque ops of shardproof.numeric_ops.

CI sets SHARDPROOF_REQUIRE_ORACLE=1 so that a missing torch fails loudly there;
developers without torch skip this file.
"""

import os, pytest  # noqa: E401

torch = pytest.importorskip("torch") if not os.environ.get("SHARDPROOF_REQUIRE_ORACLE") else __import__("torch")  # noqa: E501

import numpy as np  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from shardproof.numeric_ops import OPS, apply  # noqa: E402

IC, OC, C = 2, 3, 3
H, W_ = 3, 4
# 7 × 7: the ResNet stems' strided conv (its padding, 3, is wider than these inputs)
KERNELS = [(1, 1), (3, 3), (5, 5), (7, 7), (3, 1), (2, 2)]


def kid(k):
    return f"k{k[0]}x{k[1]}"


def t64(a, *shape, grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64).reshape(*shape), dtype=torch.float64,
                        requires_grad=grad)


def np_flat(t):
    return t.detach().numpy().reshape(-1)


def torch_forward(variant, depthwise, W, b, x, kH, kW):
    """The torch computation matching <conv|depthwise><variant>, on torch tensors in NCHW."""
    groups = x.shape[1] if depthwise else 1
    pH, pW = (kH - 1) // 2, (kW - 1) // 2
    if variant == "":
        # stride-1 "same": left/top = (k-1)//2, the rest right/bottom
        xp = F.pad(x, (pW, kW - 1 - pW, pH, kH - 1 - pH))
        return F.conv2d(xp, W, b, stride=1, groups=groups)
    if variant == "Strided":
        # torchvision style: symmetric padding (k-1)//2, stride 2
        return F.conv2d(x, W, b, stride=2, padding=(pH, pW), groups=groups)
    if variant == "StridedXla":
        # explicit asymmetric pad (lo, hi) per axis, then stride 2 VALID
        return F.conv2d(F.pad(x, odd_phase_pad(kW) + odd_phase_pad(kH)), W, b, stride=2,
                        groups=groups)
    raise AssertionError(variant)


def odd_phase_pad(k):
    """(lo, hi) pad whose stride-2 VALID correlation keeps the odd phase of the "same" one.

    lo = (k-1)//2 - 1 (negative = crop), hi = k-2-lo.  For odd k this is ((k-2)//2, k//2):
    (0, 1) for k=3, which is XLA/TF padding='SAME'; for k=1 it is the crop (-1, 0).
    """
    lo = (k - 1) // 2 - 1
    hi = k - 2 - lo
    if k % 2 == 1:
        assert (lo, hi) == ((k - 2) // 2, k // 2)
    return (lo, hi)


def setup(base, variant, k, seed):
    kH, kW = k
    rng = np.random.default_rng(seed)
    s = 1 if variant == "" else 2
    depthwise = base == "depthwise"
    cin, cout = (C, C) if depthwise else (IC, OC)
    sizes = (C, H, W_, kH, kW) if depthwise else (IC, OC, H, W_, kH, kW)
    Wshape = (C, 1, kH, kW) if depthwise else (OC, IC, kH, kW)
    W = rng.standard_normal(int(np.prod(Wshape)))
    b = rng.standard_normal(cout)
    x = rng.standard_normal(cin * s * H * s * W_)
    dy = rng.standard_normal(cout * H * W_)
    return sizes, Wshape, (cin, s * H, s * W_), W, b, x, dy, depthwise


VARIANTS = ["", "Strided", "StridedXla"]


@pytest.mark.parametrize("k", KERNELS, ids=kid)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v or "plain")
@pytest.mark.parametrize("base", ["conv", "depthwise"])
def test_forward_and_vjps_against_torch(base, variant, k):
    sizes, Wshape, xshape, W, b, x, dy, depthwise = setup(base, variant, k, seed=len(base) + k[0])
    Wt = t64(W, *Wshape, grad=True)
    bt = t64(b, -1)
    xt = t64(x, 1, *xshape, grad=True)
    y = torch_forward(variant, depthwise, Wt, bt, xt, *k)
    assert tuple(y.shape) == (1, Wshape[0], H, W_)
    name = base + variant
    np.testing.assert_allclose(apply(name, sizes, [W, b, x]), np_flat(y), rtol=1e-12, atol=1e-12)

    gx, gW = torch.autograd.grad(y, (xt, Wt), t64(dy, *y.shape))
    np.testing.assert_allclose(apply(name + "In", sizes, [W, dy]), np_flat(gx),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(apply(name + "WGrad", sizes, [x, dy]), np_flat(gW),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("hw", [(1, 1), (2, 3), (8, 8)])
def test_resnet_stem_conv_at_output_sizes_against_torch(hw):
    """The stems' 7 × 7 stride-2 conv (torchvision's padding 3), three input channels, from an
    output of one pixel (all but the centre taps in the padding) to a 16 × 16 input."""
    h, w = hw
    ic, oc, k = 3, 4, 7
    rng = np.random.default_rng(h * 10 + w)
    W, b = rng.standard_normal(oc * ic * k * k), rng.standard_normal(oc)
    x, dy = rng.standard_normal(ic * 2 * h * 2 * w), rng.standard_normal(oc * h * w)
    Wt, xt = t64(W, oc, ic, k, k, grad=True), t64(x, 1, ic, 2 * h, 2 * w, grad=True)
    y = F.conv2d(xt, Wt, t64(b, -1), stride=2, padding=(k - 1) // 2)
    assert tuple(y.shape) == (1, oc, h, w)
    sizes = (ic, oc, h, w, k, k)
    np.testing.assert_allclose(apply("convStrided", sizes, [W, b, x]), np_flat(y),
                               rtol=1e-12, atol=1e-12)
    gx, gW = torch.autograd.grad(y, (xt, Wt), t64(dy, *y.shape))
    np.testing.assert_allclose(apply("convStridedIn", sizes, [W, dy]), np_flat(gx),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(apply("convStridedWGrad", sizes, [x, dy]), np_flat(gW),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 5, 7])
def test_torch_same_padding_and_symmetric_stride2_agree(k):
    """Cross-check the hand-written pads above with torch's own padding='same' / padding=p."""
    sizes, Wshape, xshape, W, b, x, dy, _ = setup("conv", "", (k, k), seed=k)
    y = F.conv2d(t64(x, 1, *xshape), t64(W, *Wshape), t64(b, -1), padding="same")
    np.testing.assert_allclose(apply("conv", sizes, [W, b, x]), np_flat(y), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("hw", [(1, 1), (2, 3), (4, 4)])
def test_max_pool_forward_and_backward_against_torch(hw):
    h, w = hw
    rng = np.random.default_rng(h * 7 + w)
    n = C * 4 * h * w
    x = rng.permutation(n).astype(np.float64) - n / 2  # distinct values: no ties
    dy = rng.standard_normal(C * h * w)
    xt = t64(x, 1, C, 2 * h, 2 * w, grad=True)
    y = F.max_pool2d(xt, kernel_size=3, stride=2, padding=1)
    assert tuple(y.shape) == (1, C, h, w)
    np.testing.assert_array_equal(apply("maxPool3s2", (C, h, w), [x]), np_flat(y))
    (gx,) = torch.autograd.grad(y, xt, t64(dy, *y.shape))
    np.testing.assert_allclose(apply("maxPool3s2Back", (C, h, w), [x, dy]), np_flat(gx),
                               rtol=1e-14, atol=1e-14)


def test_all_ops_covered():
    covered = {b + v + s for b in ("conv", "depthwise") for v in VARIANTS for s in ("", "In", "WGrad")}
    covered |= {"maxPool3s2", "maxPool3s2Back"}
    assert covered == set(OPS)


def test_max_pool_backward_tie_breaking_matches_torch_cpu():
    """Not a documented torch guarantee, but torch's CPU kernel (scan from the clamped window start,
    strict '>') picks the same argmax on ties as maxPool3s2Back's first-max-wins rule."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=C * 36).astype(np.float64)  # many ties
    dy = rng.standard_normal(C * 9)
    xt = t64(x, 1, C, 6, 6, grad=True)
    y = F.max_pool2d(xt, kernel_size=3, stride=2, padding=1)
    (gx,) = torch.autograd.grad(y, xt, t64(dy, *y.shape))
    np.testing.assert_array_equal(apply("maxPool3s2Back", (C, 3, 3), [x, dy]), np_flat(gx))
