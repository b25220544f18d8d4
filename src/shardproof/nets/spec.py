"""The network description language: layers, block templates, block instances, networks.

A network is described ONCE, here, as data; :mod:`shardproof.nets.render` turns the description
into `.lemma` text (the single-device forward, the replica sync-BN forward, the backward chains,
the ties and their proofs) and :mod:`shardproof.parity` runs the same description numerically.

Three levels:

* a **layer** acts on one activation: a conv (three kinds), a depthwise conv (three kinds), a
  BatchNorm site, a pointwise activation, squeeze-excite, the 3×3/s2 max pool, global average
  pooling, a dense layer, and the two relabels `[N, c] ↔ [N, c, 1, 1]` of MobileNetV4's head;
* a **template** is a block at VARIABLE shapes: its sizes are binder names (`c`, `h`, `w`, `k`,
  …), its layers are a main path, an optional skip path (identity or a projection) joined by a
  residual add, and layers after the add.  Every template is rendered once into definitions and
  lemmas stated for all sizes;
* a **block** is a template at concrete sizes (channel widths, kernel, spatial size) with a
  parameter prefix; a **network** is its list of blocks, input channels and resolution.

Spatial sizes inside a template are *levels*: level `L` is the extent `2^L · h` (`h` and `w` are
the block's OUTPUT extents); a stride-2 layer goes from level `L` to `L − 1`.  After global
average pooling the activation is flat (`Vec (N * c)`); MobileNetV4's head relabels it to the
1 × 1 image `Vec (N * (c * 1 * 1))` and back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --------------------------------------------------------------------------- layers

CONV_KINDS = ("conv", "strided", "xla")          # stride 1; stride 2 symmetric; stride 2 XLA-SAME
ACTS = ("relu", "relu6", "swish")


@dataclass(frozen=True)
class Conv:
    """A conv `cin → cout` with a square `k × k` kernel; bias is the shared zero."""

    kind: str      # "conv" | "strided" | "xla"
    k: str         # kernel-size binder (or a numeral)
    cout: str      # output-channel binder
    W: str         # parameter name

    def __post_init__(self) -> None:
        if self.kind not in CONV_KINDS:
            raise ValueError(f"unknown conv kind {self.kind!r}; known: {sorted(CONV_KINDS)}")


@dataclass(frozen=True)
class DW:
    """A depthwise conv with a square `k × k` kernel; bias is the shared zero."""

    kind: str
    k: str
    W: str

    def __post_init__(self) -> None:
        if self.kind not in CONV_KINDS:
            raise ValueError(f"unknown conv kind {self.kind!r}; known: {sorted(CONV_KINDS)}")


@dataclass(frozen=True)
class BN:
    """A BatchNorm site: batch statistics on one device, `syncStats` across replicas."""

    g: str
    bt: str


@dataclass(frozen=True)
class Act:
    fn: str

    def __post_init__(self) -> None:
        if self.fn not in ACTS:
            raise ValueError(f"unknown activation {self.fn!r}; known: {sorted(ACTS)}")


@dataclass(frozen=True)
class SE:
    """Squeeze-excite with reduced width `q`: GAP → dense → swish → dense → sigmoid → gate."""

    q: str
    Wa: str
    ba: str
    Wb: str
    bb: str


@dataclass(frozen=True)
class MaxPool:
    """3×3 / stride-2 max pool."""


@dataclass(frozen=True)
class GAP:
    """Global average pool `[c, h, w] → [c]`."""


@dataclass(frozen=True)
class ToPixel:
    """Relabel `[N, c] → [N, c, 1, 1]` (castIdx)."""


@dataclass(frozen=True)
class FromPixel:
    """Relabel `[N, c, 1, 1] → [N, c]` (castIdx)."""


@dataclass(frozen=True)
class Dense:
    cout: str
    W: str
    b: str


Layer = Conv | DW | BN | Act | SE | MaxPool | GAP | ToPixel | FromPixel | Dense


def layer_params(layer: Layer) -> list[str]:
    """The parameter names of a layer, in the render's order."""
    if isinstance(layer, (Conv, DW)):
        return [layer.W]
    if isinstance(layer, BN):
        return [layer.g, layer.bt]
    if isinstance(layer, SE):
        return [layer.Wa, layer.ba, layer.Wb, layer.bb]
    if isinstance(layer, Dense):
        return [layer.W, layer.b]
    return []


# --------------------------------------------------------------------------- templates

@dataclass(frozen=True)
class Template:
    """A block at variable shapes.

    ``sizes`` are the size binders besides the batch (channel widths, kernels, the OUTPUT spatial
    extents ``h`` and ``w`` when the block has a spatial output).  ``level_in`` is the input's
    spatial level.  ``skip`` is ``None`` (no residual), ``()`` (identity) or a projection path;
    the replica graph adds ``merge(body, skip)`` (the render's order) and the single-device
    forward ``merge(skip, body)`` when ``global_skip_first`` (ResNet's ``residualProj``).
    """

    name: str
    doc: str
    sizes: tuple[str, ...]
    cin: str
    level_in: int
    body: tuple[Layer, ...]
    skip: tuple[Layer, ...] | None = None
    merge: str = "addVB"
    global_skip_first: bool = False
    post: tuple[Layer, ...] = ()

    def layers(self) -> list[Layer]:
        out = list(self.body)
        if self.skip:
            out += list(self.skip)
        return out + list(self.post)

    def params(self) -> list[str]:
        out: list[str] = []
        for layer in self.layers():
            out += layer_params(layer)
        return out

    def bn_count(self) -> int:
        return sum(isinstance(l, BN) for l in self.layers())


# --------------------------------------------------------------------------- blocks and nets

@dataclass(frozen=True)
class Block:
    """A template instance: concrete values for its channel and kernel binders, a prefix."""

    template: Template
    prefix: str
    sizes: dict = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        need = {s for s in self.template.sizes if s not in ("h", "w", "K")}
        missing, extra = sorted(need - set(self.sizes)), sorted(set(self.sizes) - need)
        if missing or extra:
            raise ValueError(f"block {self.prefix!r} ({self.template.name}): "
                             + (f"give the sizes {missing}" if missing else "")
                             + ("; " if missing and extra else "")
                             + (f"the template has no sizes {extra}" if extra else ""))
        for layer in self.template.layers():
            # the op keeps the odd positions, XLA-SAME's phase for an odd k ≥ 3 only: for k = 1
            # XLA-SAME keeps the even ones (the "strided" kind); even k is not modelled
            k = getattr(layer, "k", None) if getattr(layer, "kind", None) == "xla" else None
            kv = int(k) if k is not None and k.isdigit() else self.sizes.get(k)
            if k is not None and (kv is None or int(kv) < 3 or int(kv) % 2 == 0):
                raise ValueError(f"block {self.prefix!r} ({self.template.name}): the \"xla\" "
                                 f"conv {layer.W} has k = {kv}; XLA-SAME at stride 2 is modelled "
                                 "for an odd k ≥ 3 (for k = 1 it keeps the even positions: the "
                                 "\"strided\" kind)")

    def size(self, name: str) -> int:
        return int(self.sizes[name])


@dataclass
class Net:
    """A network: its blocks in forward order, input channels and the input resolution."""

    key: str                 # module key, e.g. "resnet34"
    title: str
    short: str               # prefix of generated names, e.g. "r34"
    fwd_name: str            # single-device forward (Lean name)
    sync_name: str           # replica forward graph (Lean name)
    t2_name: str             # forward-tie theorem (Lean name)
    tied_name: str           # step-tie predicate
    t3_name: str             # step-tie capstone
    cin: int
    base: str                # smallest spatial extent: "7" (224 input), or a binder "q"
    input_level: int         # the input extent is 2^input_level · base (5: 224 = 32 · 7)
    blocks: list[Block]
    census: int              # the repo's parameter count (nets.md)
    bn_sites: int            # the repo's BN-site count (nets.md)
    notes: list[str] = field(default_factory=list)
    bce: bool = False        # also the binary cross-entropy corollary (catalog §3: ResNet-50)

    @property
    def symbolic(self) -> bool:
        """Is the resolution a binder (ResNet-50's `q`: input `32·q`)?"""
        return not self.base.isdigit()

    @property
    def resolution_text(self) -> str:
        f = 2 ** self.input_level
        return str(f * int(self.base)) if not self.symbolic else f"{f}{self.base}"

    def params(self) -> list[tuple[str, Block, str]]:
        """(accessor name, block, template parameter) for every parameter, in forward order."""
        out = []
        for b in self.blocks:
            for p in b.template.params():
                out.append((f"{self.short}_{b.prefix}_{p}", b, p))
        return out

    def bn_count(self) -> int:
        return sum(b.template.bn_count() for b in self.blocks)
