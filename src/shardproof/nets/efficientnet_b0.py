"""EfficientNet-B0: XLA-SAME stem, MBConv1, fifteen MBConv6 with squeeze-excite, swish, head.

From `shared/seed/nets.md` §4.  Activation swish throughout; SE (GAP → dense c→r → swish →
dense r→c → sigmoid → gate) with r = ⌈block input channels / 4⌉; residual MBConv6 blocks add
``addV(body, x)`` (descriptor-less ``addV``, body first); the strided MBConv6 blocks b2, b4, b6,
b12 run the 1×1 expand and its BN at the input grid 2h and put the stride on a SYMMETRIC
depthwise (the proof files and the padding log agree; nets.md §4 and catalog §7.2 flag a
docstring that says XLA); b9 and b16 widen without a skip.  49 BN sites, 213 parameters at
``convBias := false`` (conv biases are the shared zero; the SE dense biases are tied).
Classes generic (`K`; the stored files pin 10).
"""

from __future__ import annotations

from .spec import BN, DW, GAP, SE, Act, Block, Conv, Dense, Net, Template

SW = Act("swish")

STEM = Template(
    name="b0Stem",
    doc="EfficientNet-B0 stem: k×k/s2 XLA-SAME conv, BN, swish.",
    sizes=("ic", "oc", "k", "h", "w"), cin="ic", level_in=1,
    body=(Conv("xla", "k", "oc", "W"), BN("g", "bt"), SW))

MB1 = Template(
    name="b0Mb1",
    doc="EfficientNet-B0 MBConv1 (no expand, no skip): k×k depthwise, BN, swish, SE, 1×1 "
        "project, BN.",
    sizes=("c", "oc", "q", "k", "h", "w"), cin="c", level_in=0,
    body=(DW("conv", "k", "dW"), BN("dg", "dbt"), SW, SE("q", "zWa", "zba", "zWb", "zbb"),
          Conv("conv", "1", "oc", "pW"), BN("pg", "pbt")))


def _mb6(name: str, doc: str, ic: str, oc: str, dw_kind: str, level_in: int, skip: bool
         ) -> Template:
    sizes = ("c", "mid", "q", "k", "h", "w") if ic == oc else \
        ("ic", "mid", "oc", "q", "k", "h", "w")
    return Template(
        name=name, doc=doc, sizes=sizes, cin=ic, level_in=level_in,
        body=(Conv("conv", "1", "mid", "eW"), BN("eg", "ebt"), SW,
              DW(dw_kind, "k", "dW"), BN("dg", "dbt"), SW,
              SE("q", "zWa", "zba", "zWb", "zbb"),
              Conv("conv", "1", oc, "pW"), BN("pg", "pbt")),
        skip=() if skip else None, merge="addV")


RESID = _mb6("b0MbResid", "EfficientNet-B0 residual MBConv6: 1×1 expand, BN, swish, k×k "
             "depthwise, BN, swish, SE, 1×1 project, BN, `addV(body, x)`.",
             "c", "c", "conv", 0, True)
WIDE = _mb6("b0MbWide", "EfficientNet-B0 widening MBConv6 (stride 1, no skip).",
            "ic", "oc", "conv", 0, False)
STRIDED = _mb6("b0MbStrided", "EfficientNet-B0 strided MBConv6: expand and its BN at the input "
               "grid 2h, k×k/s2 symmetric depthwise, no skip.", "ic", "oc", "strided", 1, False)

HEAD = Template(
    name="b0Head",
    doc="EfficientNet-B0 / MobileNet head: 1×1 conv, BN, activation, GAP, dense to `K` classes.",
    sizes=("ic", "mid", "K", "h", "w"), cin="ic", level_in=0,
    body=(Conv("conv", "1", "mid", "W"), BN("g", "bt"), SW, GAP(), Dense("K", "Wd", "bd")))

TEMPLATES = [STEM, MB1, RESID, WIDE, STRIDED, HEAD]

# (kind, k, in C, mid, out C, SE r) in forward order; nets.md §4's table
_ROWS = [
    ("strided", 3, 16, 96, 24, 4), ("resid", 3, 24, 144, 24, 6),
    ("strided", 5, 24, 144, 40, 6), ("resid", 5, 40, 240, 40, 10),
    ("strided", 3, 40, 240, 80, 10), ("resid", 3, 80, 480, 80, 20), ("resid", 3, 80, 480, 80, 20),
    ("wide", 5, 80, 480, 112, 20), ("resid", 5, 112, 672, 112, 28),
    ("resid", 5, 112, 672, 112, 28),
    ("strided", 5, 112, 672, 192, 28), ("resid", 5, 192, 1152, 192, 48),
    ("resid", 5, 192, 1152, 192, 48), ("resid", 5, 192, 1152, 192, 48),
    ("wide", 3, 192, 1152, 320, 48),
]


def _blocks() -> list[Block]:
    out = [Block(STEM, "stem", {"ic": 3, "oc": 32, "k": 3}),
           Block(MB1, "b1", {"c": 32, "oc": 16, "q": 8, "k": 3})]
    for i, (kind, k, ic, mid, oc, r) in enumerate(_ROWS, start=2):
        if kind == "resid":
            out.append(Block(RESID, f"b{i}", {"c": ic, "mid": mid, "q": r, "k": k}))
        else:
            t = STRIDED if kind == "strided" else WIDE
            out.append(Block(t, f"b{i}", {"ic": ic, "mid": mid, "oc": oc, "q": r, "k": k}))
    out.append(Block(HEAD, "head", {"ic": 320, "mid": 1280}))
    return out


NET = Net(
    key="efficientnet_b0", title="EfficientNet-B0", short="b0",
    fwd_name="efficientnetForwardBFull", sync_name="efficientnetFwdGraphSyncFull",
    t2_name="efficientnetFwdGraphSyncFull_shard", tied_name="enetNetSyncTiedG",
    t3_name="efficientnet_net_syncTiedG",
    cin=3, base="7", input_level=5, blocks=_blocks(), census=213, bn_sites=49,
    notes=["stem XLA-SAME (odd phase); the four strided depthwises (b2, b4, b6, b12) symmetric",
           "residual adds `addV(body, x)`; b9 and b16 widen without a skip",
           ("SE widths r = ⌈input channels / 4⌉; conv biases are the shared zero (213 at "
           "`convBias := false`), the SE dense biases are tied")])
