"""The one error hierarchy of shardproof.

Every error that a user can cause (bad syntax, an unknown name, a size mismatch, an import outside
the lemma root) is a :class:`ShardproofError` carrying a source position.  The CLI is the only
place that catches them; it prints ``path:line:col: error: message``, the source line and a caret,
and exits with status 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from unicodedata import east_asian_width


@dataclass(frozen=True, slots=True)
class Span:
    """A source position: 1-based line and column of the start (and end) of a piece of text."""

    path: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{shown_path(self.path)}:{self.line}:{self.col}"


def shown_path(path: str) -> str:
    """A file name as printed: control characters escaped (a newline in a name must not start
    a line of its own, an escape sequence must not reach the terminal), and a name that begins
    with `:` prefixed with `./` — a CI log reads a line that starts with `::` as a workflow
    command (the fifty-fourth review forged a GitHub annotation with a file name)."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)
    return "./" + text if text.startswith(":") else text


def shown_line(text: str) -> str:
    """A source line as printed under an error: control characters but tabs escaped."""
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in text)


class ShardproofError(Exception):
    """An error in the user's input, with the place it was found.

    ``kind`` is one of ``parse``, ``name``, ``type``, ``import``, ``input``; ``theorem`` names the
    declaration the error is inside, when there is one.
    """

    kind = "input"

    def __init__(self, message: str, span: Span | None = None, *, theorem: str | None = None,
                 source_line: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.theorem = theorem
        self.source_line = source_line
        self.hint = hint

    def __str__(self) -> str:
        """``path:line:col: message`` (what a notebook shows; the CLI prints :meth:`render`)."""
        return f"{self.span}: {self.message}" if self.span else self.message

    def with_context(self, *, span: Span | None = None, theorem: str | None = None
                     ) -> "ShardproofError":
        """Fill in a position or a theorem name that the raiser did not know."""
        if self.span is None and span is not None:
            self.span = span
        if self.theorem is None and theorem is not None:
            self.theorem = theorem
        return self

    def _render_traceback_(self) -> list[str]:
        """How IPython and Jupyter show the error, when they find this method: as the command
        line prints it — the source line, a caret under the spot, the hint — rather than a
        Python traceback ending in the one-line message (the fifty-seventh review)."""
        return [f"{type(self).__name__}:", *self.render().splitlines()]

    def render(self, source_lines: dict[str, list[str]] | None = None) -> str:
        """``path:line:col: error: message``, the source line and a caret under the spot."""
        where = str(self.span) if self.span else "<input>"
        head = f"{where}: error: {shown_line(self.message)}"
        if self.theorem:
            head += f" (in `{self.theorem}`)"
        lines = [head]
        text = self.source_line
        if text is None and self.span and source_lines and self.span.path in source_lines:
            src = source_lines[self.span.path]
            if 1 <= self.span.line <= len(src):
                text = src[self.span.line - 1]
        if text is not None and self.span is not None:
            raw, col, width = text.rstrip("\n"), max(self.span.col, 1), 1
            if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                width = self.span.end_col - self.span.col
            # escaped (a control character shows as `\x07`), the column and width follow
            before, spot = shown_line(raw[:col - 1]), shown_line(raw[col - 1:col - 1 + width])
            shown = before + spot + shown_line(raw[col - 1 + width:])
            col, width = len(before) + 1, max(len(spot), 1)
            if len(shown) > 200:  # a 1 MB line: show a window around the spot
                start = max(col - 80, 0)
                shown = ("…" if start else "") + shown[start:start + 160] + "…"
                col = col - start + (1 if start else 0)
            lines.append("  " + shown)
            width = min(width, max(len(shown) - col + 1, 1))
            # under the spot as a terminal shows the line: its tabs kept, a wide character
            # (CJK, most emoji) two columns
            pad = "".join("\t" if c == "\t" else "  " if east_asian_width(c) in "WF" else " "
                          for c in shown[:col - 1])
            lines.append("  " + pad + "^" * max(width, 1))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class ParseError(ShardproofError):
    kind = "parse"


class NameError_(ShardproofError):
    kind = "name"


class TypeError_(ShardproofError):
    kind = "type"


class ImportError_(ShardproofError):
    kind = "import"
