"""All generated files, as {path: text}: one file per block template
(`nets/blocks/<Template>.lemma`), two per net (`nets/<net>.lemma` with T2, `nets/<net>_step.lemma`
with T3), and two must-fail files per net for `tests/`: per-replica BatchNorm (T2) and the loss
divided by the global batch (T3)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from . import NETS, templates
from .render import (
    GEN_NOTE,
    NetRenderer,
    TemplateInfo,
    net_templates,
    render_blocks,
    render_negative,
    render_negative_step,
)
from .spec import Net


def _render_templates() -> tuple[dict[str, str], dict[str, TemplateInfo]]:
    return render_blocks(templates())


def render_all() -> dict[str, str]:
    """Every generated file under the lemma root."""
    out, infos = _render_templates()
    for key, net in NETS.items():
        nr = NetRenderer(net, infos)
        out[f"nets/{key}.lemma"] = nr.render_fwd() + "\n"
        out[f"nets/{key}_step.lemma"] = nr.render_step() + "\n"
    return out


_NOTE_LINE = re.compile(r"^GENERATED FILE — do not edit\..*$", re.M)


def refuse_other_blocks(root: Path, files: dict[str, str]) -> dict[str, str]:
    """Before writing ``files`` ({path under root: text}) into a lemma root that may hold other
    nets: a block file ``nets/blocks/T.lemma`` already there with another body is another
    template of the name ``T`` (another net's, or an earlier version of this description), and
    the nets importing it would silently be proved about this one.  A ValueError naming the
    files; nothing is overwritten (the user renames the template or deletes the file).  Returns
    ``files`` without the block files already there with the same body (their generated notes
    may differ: `render --out` and `render_net` write different ones), which stay as they are."""
    def body(text: str) -> str:
        return _NOTE_LINE.sub("", text, count=1)
    clash, same = [], set()
    for rel, text in files.items():
        p = root / rel
        if rel.startswith("nets/blocks/") and p.exists():
            old = p.read_text(encoding="utf-8")
            if body(old) != body(text):
                clash.append(p)
            elif old != text:
                same.add(rel)
    if clash:
        raise ValueError(
            f"{', '.join(map(str, clash))}: a block named "
            f"{', '.join(repr(p.stem) for p in clash)} already exists there with another body "
            "(another net's template of that name, or an earlier version of this one); it is "
            "not overwritten, since the nets that import it would then be proved about this "
            "body: rename the template, or delete the file if no net there uses the old body")
    return {rel: text for rel, text in files.items() if rel not in same}


def render_negatives() -> dict[str, str]:
    """The must-fail files, {path under tests/: text}: per net, the forward tie with per-replica
    BatchNorm (`<net>_perreplica.lemma`) and the step tie with every replica's loss divided by
    the global batch (`<net>_unscaled_step.lemma`)."""
    _, infos = _render_templates()
    out = {}
    for key, net in NETS.items():
        out[f"nets_negative/{key}_perreplica.lemma"] = render_negative(net, infos) + "\n"
        out[f"nets_negative/{key}_unscaled_step.lemma"] = render_negative_step(net, infos) + "\n"
    return out


def render_net(net: Net, root: str | Path, *, negatives: bool = False) -> list[Path]:
    """Write one net of your own into the lemma root ``root``, beside the kit: its block
    templates (``nets/blocks/<T>.lemma``), its forward tie (``nets/<key>.lemma``) and its step
    tie (``nets/<key>_step.lemma``); with ``negatives``, also the two must-fail files (plain DDP
    without SyncBatchNorm, and the loss divided by the global batch) under ``negative/``, which
    ``shardproof check ROOT/nets`` leaves out.  Returns the paths written (a file already
    holding the same text is not rewritten).  A block file already there with another body
    (another net's template of the same name, or an earlier version of this one) is not
    overwritten: a ValueError names it, and nothing is written.

    ``root`` must be a lemma root (``.lemmaroot``) holding the kit (``kit/``) and the network
    ops (``nets/ops.lemma``) the files import: copy them from the repository's ``lemmas/``.
    A ``census`` or ``bn_sites`` of 0 takes the rendered counts; any other value must match
    them.  Raises ``ValueError`` when the blocks do not fit together, when a template is
    ill-formed or two different templates share a name (naming the net, the block and the
    template), and for a key or template name that is no plain identifier."""
    root = Path(root)
    # the key and the template names become file names under the root and words of a comment:
    # plain identifiers only (a key `../x` wrote outside the root: the seventieth review)
    names = [net.key] + [b.template.name for b in net.blocks]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
    if bad or net.key == "ops":
        raise ValueError(f"the net's key and its templates' names must be plain identifiers, "
                         f"and the key not `ops` (the network ops' file): {(bad or ['ops'])[0]!r}")
    if not net.blocks:
        raise ValueError(f"the net {net.key!r} has no blocks")
    missing = [p for p in (".lemmaroot", "kit", "nets/ops.lemma") if not (root / p).exists()]
    if missing:
        raise ValueError(f"{root} has no {', no '.join(missing)}: copy the repository's "
                         "lemmas/.lemmaroot, lemmas/kit and lemmas/nets/ops.lemma there first")
    counts = {"census": len(net.params()), "bn_sites": net.bn_count()}
    for name, n in counts.items():
        if getattr(net, name) not in (0, n):
            raise ValueError(f"the net {net.key!r} says {name}={getattr(net, name)}, but its "
                             f"blocks have {n}")
    net = replace(net, **counts)
    files, infos = render_blocks(net_templates([net]))
    nr = NetRenderer(net, infos)
    files[f"nets/{net.key}.lemma"] = nr.render_fwd() + "\n"
    files[f"nets/{net.key}_step.lemma"] = nr.render_step() + "\n"
    if negatives:
        files[f"negative/{net.key}_perreplica.lemma"] = render_negative(net, infos) + "\n"
        files[f"negative/{net.key}_unscaled_step.lemma"] = \
            render_negative_step(net, infos) + "\n"
    note = (f"GENERATED FILE — do not edit.  Written by `shardproof.nets.render_net` from the "
            f"description of `{net.key}` (see `docs/networks.md`, Adding a network); render it "
            "again after changing the description.")
    # a block file is shared by every net of the root that uses the template: it names no net,
    # so that a second net using the same template finds the same text
    block_note = ("GENERATED FILE — do not edit.  Written by `shardproof.nets.render_net` from "
                  "a net's description (see `docs/networks.md`, Adding a network); every net "
                  "rendered into this lemma root that uses a template of this name imports it, "
                  "and `render_net` does not overwrite it with another body.")
    files = {rel: text.replace(GEN_NOTE, block_note if rel.startswith("nets/blocks/") else note)
             .replace("the repository's census", "its census") for rel, text in files.items()}
    files = refuse_other_blocks(root, files)
    written = []
    for rel, text in files.items():
        p = root / rel
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
            written.append(p)
    return written
