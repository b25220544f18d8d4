"""MobileNetV2: XLA-SAME stem and strided depthwises, inverted residuals, relu6.

From `shared/seed/nets.md` §5: stem 3×3/s2 XLA-SAME conv 3→32, BN, relu6; b1 (t = 1) depthwise,
BN, relu6, 1×1 project, BN; expand-only blocks b11 and b17 (no skip); residual blocks
`addVB(body, x)`; strided blocks b2, b4, b7, b14 expand at 2h and put the stride on an XLA-SAME
depthwise; head 1×1 320→1280, BN, relu6, GAP, dense.  No activation after a projection.
52 BN sites, 158 parameters.
"""

from __future__ import annotations

from .efficientnet_b0 import HEAD as _B0HEAD
from .spec import BN, DW, GAP, Act, Block, Conv, Dense, Net, Template

R6 = Act("relu6")

STEM = Template(
    name="mnv2Stem",
    doc="MobileNetV2 stem: k×k/s2 XLA-SAME conv, BN, relu6.",
    sizes=("ic", "oc", "k", "h", "w"), cin="ic", level_in=1,
    body=(Conv("xla", "k", "oc", "W"), BN("g", "bt"), R6))

NOEXP = Template(
    name="mnv2NoExp",
    doc="MobileNetV2 t = 1 block: k×k depthwise, BN, relu6, 1×1 project, BN (no skip).",
    sizes=("c", "oc", "k", "h", "w"), cin="c", level_in=0,
    body=(DW("conv", "k", "dW"), BN("dg", "dbt"), R6, Conv("conv", "1", "oc", "pW"),
          BN("pg", "pbt")))


def _ir(name: str, doc: str, ic: str, oc: str, dw_kind: str, level_in: int, skip: bool
        ) -> Template:
    sizes = ("c", "mid", "k", "h", "w") if ic == oc else ("ic", "mid", "oc", "k", "h", "w")
    return Template(
        name=name, doc=doc, sizes=sizes, cin=ic, level_in=level_in,
        body=(Conv("conv", "1", "mid", "eW"), BN("eg", "ebt"), R6,
              DW(dw_kind, "k", "dW"), BN("dg", "dbt"), R6,
              Conv("conv", "1", oc, "pW"), BN("pg", "pbt")),
        skip=() if skip else None)


RESID = _ir("mnv2Resid", "MobileNetV2 residual block: 1×1 expand, BN, relu6, k×k depthwise, BN, "
            "relu6, 1×1 project, BN, `addVB(body, x)`.", "c", "c", "conv", 0, True)
EXPONLY = _ir("mnv2ExpOnly", "MobileNetV2 expand-only block (stride 1, no skip).",
              "ic", "oc", "conv", 0, False)
STRIDED = _ir("mnv2Strided", "MobileNetV2 strided block: expand and its BN at the input grid "
              "2h, k×k/s2 XLA-SAME depthwise, no skip.", "ic", "oc", "xla", 1, False)

HEAD = Template(
    name="mnv2Head",
    doc="MobileNetV2 head: 1×1 conv, BN, relu6, GAP, dense to `K` classes.",
    sizes=_B0HEAD.sizes, cin="ic", level_in=0,
    body=(Conv("conv", "1", "mid", "W"), BN("g", "bt"), R6, GAP(), Dense("K", "Wd", "bd")))

TEMPLATES = [STEM, NOEXP, RESID, EXPONLY, STRIDED, HEAD]

# (kind, in C, mid, out C) for blocks 2–17; nets.md §5's table (every depthwise 3×3)
_ROWS = [
    ("strided", 16, 96, 24), ("resid", 24, 144, 24),
    ("strided", 24, 144, 32), ("resid", 32, 192, 32), ("resid", 32, 192, 32),
    ("strided", 32, 192, 64), ("resid", 64, 384, 64), ("resid", 64, 384, 64),
    ("resid", 64, 384, 64),
    ("exp", 64, 384, 96), ("resid", 96, 576, 96), ("resid", 96, 576, 96),
    ("strided", 96, 576, 160), ("resid", 160, 960, 160), ("resid", 160, 960, 160),
    ("exp", 160, 960, 320),
]


def _blocks() -> list[Block]:
    out = [Block(STEM, "stem", {"ic": 3, "oc": 32, "k": 3}),
           Block(NOEXP, "b1", {"c": 32, "oc": 16, "k": 3})]
    for i, (kind, ic, mid, oc) in enumerate(_ROWS, start=2):
        if kind == "resid":
            out.append(Block(RESID, f"b{i}", {"c": ic, "mid": mid, "k": 3}))
        else:
            t = STRIDED if kind == "strided" else EXPONLY
            out.append(Block(t, f"b{i}", {"ic": ic, "mid": mid, "oc": oc, "k": 3}))
    out.append(Block(HEAD, "head", {"ic": 320, "mid": 1280}))
    return out


NET = Net(
    key="mobilenetv2", title="MobileNetV2", short="mnv2",
    fwd_name="mobilenetv2ForwardBFull", sync_name="mobilenetv2FwdGraphSyncFull",
    t2_name="mobilenetv2FwdGraphSyncFull_shard", tied_name="mnv2NetSyncTiedB",
    t3_name="mnv2_net_syncTiedB",
    cin=3, base="7", input_level=5, blocks=_blocks(), census=158, bn_sites=52,
    notes=["XLA-SAME at all five stride-2 sites (stem + the depthwises of b2, b4, b7, b14)",
           ("relu6 everywhere, no activation after a projection; residual adds "
           "`addVB(body, x)`; b11 and b17 expand without a skip")])
