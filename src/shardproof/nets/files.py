"""All generated files, as {path: text}: one file per block template
(`nets/blocks/<Template>.lemma`), two per net (`nets/<net>.lemma` with T2, `nets/<net>_step.lemma`
with T3), and the must-fail per-replica-BatchNorm files for `tests/`."""

from __future__ import annotations

from . import NETS, templates
from .render import NetRenderer, TemplateInfo, render_blocks, render_negative


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
    """The per-replica-BatchNorm (must-fail) files, {path under tests/: text}."""
    _, infos = _render_templates()
    return {f"nets_negative/{key}_perreplica.lemma": render_negative(net, infos) + "\n"
            for key, net in NETS.items()}
