"""The examples in `docs/language.md` are real: every ```lean block parses and type-checks.

Documentation that shows syntax the parser rejects teaches the wrong language; this keeps the
page and the grammar in step.  Each block is a whole file: it is parsed, printed back and
re-parsed (the printer must agree with the page too), and loaded in a lemma root where the
`kit.defs` it may import exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shardproof.library import Library
from shardproof.pretty import pretty
from shardproof.syntax import parse_module

DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
_BLOCK = re.compile(r"^```lean\n(.*?)^```", re.MULTILINE | re.DOTALL)


def lean_blocks() -> list[tuple[int, str]]:
    """(line number, text) of every ```lean block of the page."""
    text = DOC.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


BLOCKS = lean_blocks()


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("line,text", BLOCKS, ids=[f"line{n}" for n, _ in BLOCKS])
def test_lean_block_parses_and_type_checks(line: int, text: str, tmp_path) -> None:
    where = f"docs/language.md:{line}"
    module = parse_module(text, where)
    assert parse_module(pretty(module), where) == module
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "defs.lemma").write_text(
        "/-- A stand-in for the library's `kit/defs.lemma`. -/\n"
        "def kitStub (x : ℝ) : ℝ := x\n", encoding="utf-8")
    path = tmp_path / "example.lemma"
    path.write_text(text, encoding="utf-8")
    loaded = Library(tmp_path).load(path)
    assert loaded.own, "a block should declare something"


@pytest.mark.parametrize("line,text", BLOCKS, ids=[f"line{n}" for n, _ in BLOCKS])
def test_lean_block_theorems_are_proved(line: int, text: str) -> None:
    """And every theorem of a block is proved, with the library's real `kit.defs` (the page
    shows no failing example in a ```lean block: those are written as text)."""
    from shardproof.check import Options, check_text
    lemmas = DOC.parent.parent / "lemmas"
    verdicts = check_text(text, "_language_md_example.lemma", Options(search_seconds=1.0),
                          root=lemmas)
    assert all(v.verdict == "proved" for v in verdicts), \
        [(v.name, v.verdict, v.reason) for v in verdicts if v.verdict != "proved"]
