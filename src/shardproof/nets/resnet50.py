"""ResNet-50 v1.5: ResNet-34's stem and head, [3, 4, 6, 3] bottlenecks, the stride on the 3×3.

From `shared/seed/nets.md` §3: identity bottlenecks `relu(addVB(BN₃(conv₃ 1×1(relu(BN₂(conv₂
k×k(relu(BN₁(conv₁ 1×1 x))))))), x))`; the stride-1 projection bottleneck `s1b0` adds a 1×1
projection with BN; the strided projection bottlenecks `s2b0`, `s3b0`, `s4b0` run conv₁ and BN₁
at the input grid 2h (BN₁'s statistics over `N·2h·2w`), put the stride on the 3×3 (symmetric)
and on the 1×1 projection.  The replica graph adds ``addVB(body, projection)`` (the render's
order), the single-device forward ``projection + body`` (``residualProj``):
``addVB_shard_comm_nets`` bridges them.  53 BN sites, 161 parameters.

The resolution is the binder ``q`` (input ``32·q``; ``q = 7`` is 224, ``q = 5`` is 160), as in
the Lean original: every theorem holds at every resolution.
"""

from __future__ import annotations

from .resnet34 import HEAD, RELU, STEM
from .spec import BN, Block, Conv, Net, Template

PROJ = Template(
    name="r50Proj",
    doc="ResNet-50 stride-1 projection bottleneck: 1×1, k×k, 1×1 convs with BN (relu between), "
        "1×1 projection with BN, `addVB(body, projection)` (single device: "
        "`projection + body`), relu.",
    sizes=("ic", "mid", "oc", "k", "h", "w"), cin="ic", level_in=0,
    body=(Conv("conv", "1", "mid", "W1"), BN("g1", "bt1"), RELU,
          Conv("conv", "k", "mid", "W2"), BN("g2", "bt2"), RELU,
          Conv("conv", "1", "oc", "W3"), BN("g3", "bt3")),
    skip=(Conv("conv", "1", "oc", "Wp"), BN("gp", "btp")),
    global_skip_first=True, post=(RELU,))

ID = Template(
    name="r50Id",
    doc="ResNet-50 identity bottleneck: 1×1, k×k, 1×1 convs with BN (relu between), identity "
        "skip `addVB(body, x)`, relu.",
    sizes=("c", "mid", "k", "h", "w"), cin="c", level_in=0,
    body=(Conv("conv", "1", "mid", "W1"), BN("g1", "bt1"), RELU,
          Conv("conv", "k", "mid", "W2"), BN("g2", "bt2"), RELU,
          Conv("conv", "1", "c", "W3"), BN("g3", "bt3")),
    skip=(), post=(RELU,))

DOWN = Template(
    name="r50Down",
    doc="ResNet-50 v1.5 strided projection bottleneck: 1×1 conv and BN at the input grid 2h, "
        "k×k/s2 symmetric conv, 1×1 conv, 1×1/s2 projection with BN, `addVB(body, projection)` "
        "(single device: `projection + body`), relu.",
    sizes=("ic", "mid", "oc", "k", "h", "w"), cin="ic", level_in=1,
    body=(Conv("conv", "1", "mid", "W1"), BN("g1", "bt1"), RELU,
          Conv("strided", "k", "mid", "W2"), BN("g2", "bt2"), RELU,
          Conv("conv", "1", "oc", "W3"), BN("g3", "bt3")),
    skip=(Conv("strided", "1", "oc", "Wp"), BN("gp", "btp")),
    global_skip_first=True, post=(RELU,))

TEMPLATES = [PROJ, ID, DOWN]


def _blocks() -> list[Block]:
    out = [Block(STEM, "stem", {"ic": 3, "oc": 64, "k": 7})]
    stages = [(64, 256, 3), (128, 512, 4), (256, 1024, 6), (512, 2048, 3)]
    prev = 64
    for s, (mid, oc, n) in enumerate(stages, start=1):
        if s == 1:
            out.append(Block(PROJ, "s1b0", {"ic": prev, "mid": mid, "oc": oc, "k": 3}))
        else:
            out.append(Block(DOWN, f"s{s}b0", {"ic": prev, "mid": mid, "oc": oc, "k": 3}))
        for b in range(1, n):
            out.append(Block(ID, f"s{s}b{b}", {"c": oc, "mid": mid, "k": 3}))
        prev = oc
    out.append(Block(HEAD, "head", {"c": 2048}))
    return out


NET = Net(
    key="resnet50", title="ResNet-50", short="r50",
    fwd_name="resnet50ForwardBFull", sync_name="resnet50FwdGraphSyncFull",
    t2_name="resnet50FwdGraphSyncFull_shard", tied_name="r50NetSyncTiedB",
    t3_name="r50_net_syncTiedB",
    cin=3, base="q", input_level=5, blocks=_blocks(), census=161, bn_sites=53, bce=True,
    notes=[("v1.5 bottlenecks [3, 4, 6, 3], widths (mid/out) 64/256, 128/512, 256/1024, 512/2048 "
           "at 8q, 4q, 2q, q; `s1b0` a stride-1 projection, `s2b0`–`s4b0` strided projections"),
           "resolution binder `q` with `0 < q` (input `32·q`): 224 at q = 7, 160 at q = 5",
           ("projection add: replica `addVB(body, projection)`, single device "
           "`projection + body` (`residualProj`)")])
