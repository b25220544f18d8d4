"""Network descriptions of the five data-parallel nets and their renderer.

``NETS`` maps a key (``resnet34`` …) to its :class:`~shardproof.nets.spec.Net`; ``templates()``
lists the block templates in render order.  ``python -m shardproof.nets render`` writes the
`.lemma` files under ``lemmas/nets/``; ``render_net(net, root)`` writes a net of your own into
a lemma root; see ``docs/networks.md``.
"""

from __future__ import annotations

from . import efficientnet_b0, mobilenetv2, mobilenetv4, resnet34, resnet50
from .spec import Net, Template

NETS: dict[str, Net] = {m.NET.key: m.NET for m in
                        (resnet34, resnet50, efficientnet_b0, mobilenetv2, mobilenetv4)}


def templates() -> list[Template]:
    """The block templates of all the nets, each once, in render order; a ValueError when two
    different templates share a name or a template is ill-formed (naming the net and block)."""
    from .render import net_templates        # (lazily: `render` is the heavy module)
    return net_templates(list(NETS.values()))


def __getattr__(name: str):
    if name == "render_net":            # (lazily: `files` imports this module)
        from .files import render_net
        return render_net
    raise AttributeError(name)


__all__ = ["NETS", "Net", "Template", "templates", "render_net"]
