"""ResNet-34 (the template net): stem, [3, 4, 6, 3] basic blocks, GAP → dense.

From `shared/seed/nets.md` §2: 7×7/s2 symmetric stem conv 3→64, BN, relu, 3×3/s2 max pool;
identity basic blocks `relu(addVB(BN₂(conv₂(relu(BN₁(conv₁ x)))), x))`; downsample blocks with a
3×3/s2 symmetric conv on the body and a 1×1/s2 symmetric projection with its own BN; GAP, then a
dense head.  36 BN sites, 110 parameters.

The downsample add: the replica graph adds ``addVB(body, projection)`` (the newest render,
``downFwdB``) and the single-device forward adds ``projection + body`` (``residualProj``, the
typed graph's order); ``addVB_shard_comm_nets`` bridges the two (nets.md §2 flags the order as
unconfirmed; the two denote the same function).
"""

from __future__ import annotations

from .spec import BN, GAP, Act, Block, Conv, Dense, MaxPool, Net, Template

RELU = Act("relu")

STEM = Template(
    name="resStem",
    doc="ResNet stem: k×k/s2 symmetric conv, BN, relu, 3×3/s2 max pool.",
    sizes=("ic", "oc", "k", "h", "w"), cin="ic", level_in=2,
    body=(Conv("strided", "k", "oc", "W"), BN("g", "bt"), RELU, MaxPool()))

BASIC_ID = Template(
    name="r34Id",
    doc="ResNet basic identity block: two k×k convs with BN, relu between, identity skip "
        "`addVB(body, x)`, relu.",
    sizes=("c", "k", "h", "w"), cin="c", level_in=0,
    body=(Conv("conv", "k", "c", "W1"), BN("g1", "bt1"), RELU,
          Conv("conv", "k", "c", "W2"), BN("g2", "bt2")),
    skip=(), post=(RELU,))

BASIC_DOWN = Template(
    name="r34Down",
    doc="ResNet basic downsample block: k×k/s2 then k×k convs with BN on the body, 1×1/s2 "
        "projection with BN on the skip, `addVB(body, projection)` (single device: "
        "`projection + body`), relu.",
    sizes=("ic", "oc", "k", "h", "w"), cin="ic", level_in=1,
    body=(Conv("strided", "k", "oc", "W1"), BN("g1", "bt1"), RELU,
          Conv("conv", "k", "oc", "W2"), BN("g2", "bt2")),
    skip=(Conv("strided", "1", "oc", "Wp"), BN("gp", "btp")),
    global_skip_first=True, post=(RELU,))

HEAD = Template(
    name="resHead",
    doc="ResNet head: global average pool, dense to `K` classes.",
    sizes=("c", "K", "h", "w"), cin="c", level_in=0,
    body=(GAP(), Dense("K", "Wd", "bd")))

TEMPLATES = [STEM, BASIC_ID, BASIC_DOWN, HEAD]


def _blocks() -> list[Block]:
    out = [Block(STEM, "stem", {"ic": 3, "oc": 64, "k": 7})]
    widths = [64, 128, 256, 512]
    depths = [3, 4, 6, 3]
    names = {1: "s1b", 2: "s2b", 3: "s3b", 4: "s4b"}
    prev = 64
    for s, (c, n) in enumerate(zip(widths, depths), start=1):
        if s == 1:
            ids = n
        else:
            out.append(Block(BASIC_DOWN, f"d{s}", {"ic": prev, "oc": c, "k": 3}))
            ids = n - 1
        for b in range(ids):
            out.append(Block(BASIC_ID, f"{names[s]}{b}", {"c": c, "k": 3}))
        prev = c
    out.append(Block(HEAD, "head", {"c": 512}))
    return out


NET = Net(
    key="resnet34", title="ResNet-34", short="r34",
    fwd_name="resnet34ForwardBFull", sync_name="resnet34FwdGraphSyncFull",
    t2_name="resnet34FwdGraphSyncFull_shard", tied_name="r34NetSyncTiedB",
    t3_name="r34_net_syncTiedB",
    cin=3, base="7", input_level=5, blocks=_blocks(), census=110, bn_sites=36,
    notes=[("stages [3, 4, 6, 3] at widths 64/128/256/512 (56, 28, 14, 7); downsample blocks d2, "
           "d3, d4 open stages 2–4"),
           ("downsample add: replica `addVB(body, projection)`, single device "
           "`projection + body` (nets.md §2: the stored typed graph and the newest render "
           "disagree on the order; the two denote the same function)")])
