"""All generated files, as {path: text}: one file per block template
(`nets/blocks/<Template>.lemma`), two per net (`nets/<net>.lemma` with T2, `nets/<net>_step.lemma`
with T3), and two must-fail files per net for `tests/`: per-replica BatchNorm (T2) and the loss
divided by the global batch (T3)."""

from __future__ import annotations

from . import NETS, templates
from .render import (
    NetRenderer,
    TemplateInfo,
    render_blocks,
    render_negative,
    render_negative_step,
)


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
