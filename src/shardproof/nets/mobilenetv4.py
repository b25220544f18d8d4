"""MobileNetV4-Conv-M (timm ``mobilenetv4_conv_medium``): stem, fused stage, 21 UIB rows, head.

From `shared/seed/nets.md` §6 (the newer files): relu throughout; stem 3×3/s2 symmetric 3→32;
fused stage 3×3/s2 32→128, BN, relu, 1×1 →48, BN; UIB rows — ExtraDW (pre-DW k, BN; 1×1
expand, BN, relu; post-DW k, BN, relu; 1×1 project, BN), ConvNeXt-like (no post-DW), FFN (no
DWs); rows 1, 3 and 11 are strided (pre-DW and expand at the input grid 2h, the POST-DW carries
the stride, symmetric, no skip); the other 18 rows add `addVB(body, x)`.  The head (timm order)
is 1×1 256→960 at 7×7, BN, relu, GAP, the relabel `[N, 960] → [N, 960, 1, 1]`, 1×1 960→1280 at
1 × 1 with BN over the batch alone, relu, the relabel back, dense.  77 BN sites, 233 parameters.
"""

from __future__ import annotations

from .spec import BN, DW, GAP, Act, Block, Conv, Dense, FromPixel, Net, Template, ToPixel

RELU = Act("relu")

STEM = Template(
    name="mnv4Stem",
    doc="MobileNetV4 stem: k×k/s2 symmetric conv, BN, relu.",
    sizes=("ic", "oc", "k", "h", "w"), cin="ic", level_in=1,
    body=(Conv("strided", "k", "oc", "W"), BN("g", "bt"), RELU))

FUSED = Template(
    name="mnv4Fused",
    doc="MobileNetV4 fused stage (timm EdgeResidual): k×k/s2 symmetric conv, BN, relu, 1×1 "
        "project, BN (no skip).",
    sizes=("ic", "mid", "oc", "k", "h", "w"), cin="ic", level_in=1,
    body=(Conv("strided", "k", "mid", "cW"), BN("cg", "cbt"), RELU,
          Conv("conv", "1", "oc", "pW"), BN("pg", "pbt")))

STRIDED = Template(
    name="mnv4ExtraDWStrided",
    doc="MobileNetV4 strided ExtraDW row: pre-DW and BN, 1×1 expand, BN, relu (all at the input "
        "grid 2h), post-DW k×k/s2 symmetric, BN, relu, 1×1 project, BN (no skip).",
    sizes=("ic", "mid", "oc", "kq", "kd", "h", "w"), cin="ic", level_in=1,
    body=(DW("conv", "kq", "qW"), BN("qg", "qbt"),
          Conv("conv", "1", "mid", "eW"), BN("eg", "ebt"), RELU,
          DW("strided", "kd", "dW"), BN("dg", "dbt"), RELU,
          Conv("conv", "1", "oc", "pW"), BN("pg", "pbt")))

EXTRADW = Template(
    name="mnv4ExtraDW",
    doc="MobileNetV4 ExtraDW row: pre-DW, BN; 1×1 expand, BN, relu; post-DW, BN, relu; 1×1 "
        "project, BN; `addVB(body, x)`.",
    sizes=("c", "mid", "kq", "kd", "h", "w"), cin="c", level_in=0,
    body=(DW("conv", "kq", "qW"), BN("qg", "qbt"),
          Conv("conv", "1", "mid", "eW"), BN("eg", "ebt"), RELU,
          DW("conv", "kd", "dW"), BN("dg", "dbt"), RELU,
          Conv("conv", "1", "c", "pW"), BN("pg", "pbt")),
    skip=())

CONVNEXT = Template(
    name="mnv4ConvNeXt",
    doc="MobileNetV4 ConvNeXt-like row: pre-DW, BN; 1×1 expand, BN, relu; 1×1 project, BN; "
        "`addVB(body, x)`.",
    sizes=("c", "mid", "kq", "h", "w"), cin="c", level_in=0,
    body=(DW("conv", "kq", "qW"), BN("qg", "qbt"),
          Conv("conv", "1", "mid", "eW"), BN("eg", "ebt"), RELU,
          Conv("conv", "1", "c", "pW"), BN("pg", "pbt")),
    skip=())

FFN = Template(
    name="mnv4Ffn",
    doc="MobileNetV4 FFN row: 1×1 expand, BN, relu; 1×1 project, BN; `addVB(body, x)`.",
    sizes=("c", "mid", "h", "w"), cin="c", level_in=0,
    body=(Conv("conv", "1", "mid", "eW"), BN("eg", "ebt"), RELU,
          Conv("conv", "1", "c", "pW"), BN("pg", "pbt")),
    skip=())

HEAD = Template(
    name="mnv4Head",
    doc="MobileNetV4 head (timm order): 1×1 conv, BN, relu, GAP, relabel `[N, c] → [N, c, 1, 1]`, "
        "1×1 conv at 1 × 1, BN over the batch alone, relu, relabel back, dense to `K` classes.",
    sizes=("ic", "m1", "m2", "K", "h", "w"), cin="ic", level_in=0,
    body=(Conv("conv", "1", "m1", "h1W"), BN("h1g", "h1bt"), RELU, GAP(), ToPixel(),
          Conv("conv", "1", "m2", "hW"), BN("hg", "hbt"), RELU, FromPixel(),
          Dense("K", "Wd", "bd")))

TEMPLATES = [STEM, FUSED, STRIDED, EXTRADW, CONVNEXT, FFN, HEAD]

# nets.md §6: (row, family, preDW k, postDW k, stride, in C, out C, expand)
_ROWS = [
    (1, "extradw", 3, 5, 2, 48, 80, 4), (2, "extradw", 3, 3, 1, 80, 80, 2),
    (3, "extradw", 3, 5, 2, 80, 160, 6), (4, "extradw", 3, 3, 1, 160, 160, 4),
    (5, "extradw", 3, 3, 1, 160, 160, 4), (6, "extradw", 3, 5, 1, 160, 160, 4),
    (7, "extradw", 3, 3, 1, 160, 160, 4), (8, "convnext", 3, 0, 1, 160, 160, 4),
    (9, "ffn", 0, 0, 1, 160, 160, 2), (10, "convnext", 3, 0, 1, 160, 160, 4),
    (11, "extradw", 5, 5, 2, 160, 256, 6), (12, "extradw", 5, 5, 1, 256, 256, 4),
    (13, "extradw", 3, 5, 1, 256, 256, 4), (14, "extradw", 3, 5, 1, 256, 256, 4),
    (15, "ffn", 0, 0, 1, 256, 256, 4), (16, "convnext", 3, 0, 1, 256, 256, 4),
    (17, "extradw", 3, 5, 1, 256, 256, 2), (18, "extradw", 5, 5, 1, 256, 256, 4),
    (19, "ffn", 0, 0, 1, 256, 256, 4), (20, "ffn", 0, 0, 1, 256, 256, 4),
    (21, "convnext", 5, 0, 1, 256, 256, 2),
]


def _blocks() -> list[Block]:
    out = [Block(STEM, "stem", {"ic": 3, "oc": 32, "k": 3}),
           Block(FUSED, "f0", {"ic": 32, "mid": 128, "oc": 48, "k": 3})]
    for row, fam, kq, kd, stride, ic, oc, e in _ROWS:
        mid = ic * e
        p = f"u{row}"
        if stride == 2:
            out.append(Block(STRIDED, p, {"ic": ic, "mid": mid, "oc": oc, "kq": kq, "kd": kd}))
        elif fam == "extradw":
            out.append(Block(EXTRADW, p, {"c": ic, "mid": mid, "kq": kq, "kd": kd}))
        elif fam == "convnext":
            out.append(Block(CONVNEXT, p, {"c": ic, "mid": mid, "kq": kq}))
        else:
            out.append(Block(FFN, p, {"c": ic, "mid": mid}))
    out.append(Block(HEAD, "head", {"ic": 256, "m1": 960, "m2": 1280}))
    return out


NET = Net(
    key="mobilenetv4", title="MobileNetV4-Conv-M", short="mnv4",
    fwd_name="mobilenetv4ForwardBFull", sync_name="mnv4FwdGraphSyncFull",
    t2_name="mnv4FwdGraphSyncFull_shard", tied_name="mnv4NetSyncTiedB",
    t3_name="mnv4_net_syncTiedB",
    cin=3, base="7", input_level=5, blocks=_blocks(), census=233, bn_sites=77,
    notes=[("21 UIB rows: 13 ExtraDW (rows 1, 3, 11 strided: the post-DW carries the stride, "
           "symmetric), 4 ConvNeXt-like, 4 FFN; expand widths `in C × expand`"),
           ("stem and fused stage symmetric stride 2, relu (the newer files; nets.md §6 flags an "
           "older step-tie prose with swish and pre-strided rows)"),
           ("head: GAP before `conv_head`, relabels `[N, c] ↔ [N, c, 1, 1]` by `castIdx`, the "
           "second head BN at 1 × 1 (statistics over the batch alone)")])
