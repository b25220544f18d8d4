"""Rich display for notebooks: HTML and LaTeX for terms, normal forms, verdicts and traces.

Jupyter calls ``_repr_html_`` / ``_repr_latex_``; the classes delegate here so that the display
code lives in one place and the core modules stay free of presentation.
"""

from __future__ import annotations

import html
from typing import Any

_COLOURS = {"proved": "#1a7f37", "refuted": "#cf222e", "unknown": "#9a6700"}

_LATEX = [("∑", r"\sum "), ("•", r"\bullet "), ("→", r"\to "), ("∀", r"\forall "),
          ("≠", r"\neq "), ("≤", r"\le "), ("≥", r"\ge "), ("ℝ", r"\mathbb{R}"), ("·", r"\cdot "),
          ("ε", r"\varepsilon "), ("γ", r"\gamma "), ("β", r"\beta "), ("α", r"\alpha "),
          ("μ", r"\mu "), ("σ", r"\sigma "), ("Σ", r"\sum "), ("⁻¹", "^{-1}"), ("∧", r"\land ")]


def _latex_escape(s: str) -> str:
    s = s.replace("\\", r"\backslash ").replace("_", r"\_").replace("#", r"\#")
    s = s.replace("{", r"\{").replace("}", r"\}").replace("%", r"\%").replace("$", r"\$")
    # `<` before a letter is a tag to a browser that renders the math as HTML (MathJax then
    # warns: the eighty-third review); `&` is an alignment tab in TeX
    s = s.replace("<", r"\lt ").replace(">", r"\gt ").replace("&", r"\&")
    for u, l in _LATEX:
        s = s.replace(u, l)
    return s


def term_html(t: Any) -> str:
    from .pretty import pretty
    return f"<code>{html.escape(pretty(t))}</code>"


def term_latex(t: Any) -> str:
    from .pretty import pretty
    return f"$\\mathtt{{{_latex_escape(pretty(t))}}}$"


def poly_html(p: Any) -> str:
    return f"<code>{html.escape(repr(p))}</code>"


def poly_latex(p: Any) -> str:
    return f"$\\mathtt{{{_latex_escape(repr(p))}}}$"


def trace_html(trace: list[dict[str, Any]]) -> str:
    rows = []
    for k, step in enumerate(trace, 1):
        rule = html.escape(str(step.get("rule", "")))
        extra = step.get("lemma")
        if extra:
            rule += f" <em>{html.escape(str(extra))}</em>"
        rows.append(f"<tr><td>{k}</td><td>{rule}</td>"
                    f"<td><code>{html.escape(str(step.get('detail', '')))}</code></td></tr>")
    return ("<table><thead><tr><th>#</th><th>rule</th><th>step</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def verdict_html(v: Any) -> str:
    colour = _COLOURS.get(v.verdict, "#57606a")
    parts = [f"<div><b style='color:{colour}'>{html.escape(v.verdict)}</b> "
             f"<code>{html.escape(v.name)}</code> <small>({v.seconds * 1000:.1f} ms)</small>"]
    if v.doc:
        parts.append(f"<p>{html.escape(v.doc)}</p>")
    if v.counterexample:           # (a proved `∃`'s record is its witness)
        parts.append(f"<p>{'witness' if v.verdict == 'proved' else 'counterexample'}:</p><pre>"
                     + html.escape(_format_cex(v.counterexample, v.file, v.name)) + "</pre>")
    if v.reason:
        parts.append(f"<p>{html.escape(v.reason)}</p>")
    from .check import stopped_text
    if (stopped := stopped_text(v)) is not None:
        parts.append(f"<p>{html.escape(stopped)}</p>")
    if v.residual:
        parts.append(f"<pre>{html.escape(v.residual[:2000])}</pre>")
    if v.rules or v.lemmas:
        parts.append("<p>rules: " + ", ".join(f"<code>{html.escape(r)}</code>" for r in v.rules)
                     + ("; lemmas: " + ", ".join(f"<code>{html.escape(x)}</code>"
                                                for x in v.lemmas) if v.lemmas else "") + "</p>")
    if v.trace:
        label = "trace" if v.verdict == "proved" else "trace (before it stopped: not a proof)"
        parts.append(f"<details><summary>{label}</summary>" + trace_html(v.trace) + "</details>")
    parts.append("</div>")
    return "".join(parts)


def _format_cex(c: Any, file: str | None = None, name: str | None = None) -> str:
    """As `shardproof explain` prints it (the fifty-fourth review: a witness printed `None`).
    The code's `sp.sides` call names ``file`` only when it is a file: a theorem checked from
    a notebook's text (`check_text`) has none, and the call then says so."""
    import os

    from .check import counterexample_lines
    known = file if file is not None and os.path.isfile(file) else None
    return "\n".join(counterexample_lines(c, python=True, file=known, name=name)) \
        if isinstance(c, dict) else str(c)


def verdict_latex(v: Any) -> str:
    return f"$\\textbf{{{v.verdict}}}\\ \\mathtt{{{_latex_escape(v.name)}}}$"
