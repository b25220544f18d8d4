"""The fast parser agrees with Lark: the same terms, the same spans, the same verdict on the input.

`syntax.parse_module` runs Lark's LALR tables and contextual lexer in its own loop (no parse tree)
and parses again with Lark itself (`_parse_with_lark`, the reference) only when that loop rejects
the text.  Spans are outside term equality, so the comparisons here walk every field, spans
included.  The inputs: the hand-written `.lemma` files, one network's generated ones, expressions
at the nesting limit, and damaged copies of the kit (which both parsers must accept or reject
alike).  That every error message is unchanged follows: errors are reported by Lark's own parse.
"""

from __future__ import annotations

import random
import re
from dataclasses import fields, is_dataclass
from importlib import resources
from pathlib import Path

import pytest

from shardproof import syntax
from shardproof.errors import ParseError

ROOT = Path(__file__).resolve().parent.parent
FAST = syntax._fast_parser()


def _files() -> list[tuple[str, str]]:
    # The hand-written files, and one network's generated ones (the others are alike, and large).
    paths = sorted([*ROOT.glob("lemmas/kit/**/*.lemma"), *ROOT.glob("tests/mustfail/*.lemma"),
                    *(ROOT / "lemmas" / "nets" / f for f in ("ops.lemma", "resnet34.lemma",
                                                             "blocks/r34Id.lemma"))])
    out = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in paths]
    prelude = resources.files("shardproof").joinpath("prelude")
    out += [(f"<prelude>/{f.name}", f.read_text(encoding="utf-8"))
            for f in sorted(prelude.iterdir(), key=lambda f: f.name) if f.name.endswith(".lemma")]
    return out


def _dump(x):
    """Every field of a term, spans and other compare=False fields included."""
    if is_dataclass(x):
        return (type(x).__name__, *((f.name, _dump(getattr(x, f.name))) for f in fields(x)))
    if isinstance(x, tuple):
        return tuple(_dump(y) for y in x)
    return x


def _agree(text: str, path: str = "t.lemma") -> bool:
    """Both parsers give the same module (spans included), or both reject the text; accepted?"""
    try:
        expected = _dump(syntax._parse_with_lark(text, path, text.splitlines()))
    except ParseError as err:
        if "nested too deeply" in err.message:  # it parses, but is deeper than the limit
            assert FAST.parse(text, path)[1] > syntax.MAX_NESTING
        else:
            with pytest.raises((syntax._Reject, ParseError)):
                FAST.parse(text, path)
        return False
    module, depth = FAST.parse(text, path)
    assert _dump(module) == expected
    assert depth <= syntax.MAX_NESTING
    return True


def test_fast_parser_is_available():
    # If Lark's internals change, parsing still works (through Lark alone) but 3-4× slower.
    assert FAST is not None


@pytest.mark.parametrize("path,text", _files(), ids=lambda v: v if "\n" not in v else "")
def test_files(path, text):
    _agree(text, path)


EXPRESSIONS = [
    "x", "((x))", "(((x + y)) * (z))", "f (g x) (h (k y))", "x[i, j][k] ^ -2 • y",
    "fun i : Fin n => ∑ (j : Fin m) (k : Fin 2), if i < j ∧ j ≤ k then 1 else 0",
    "λ x y ↦ x → y /\\ z", "x · y / z - w + -q", "![1, 2.5, x]", "![]", "∀ r, e r = f (R := 2)",
    "x = y", "a -> b -> c", "- - x", "(x : ℝ)",
] + ["- " * k + "x" for k in range(94, 100)] + ["g (" * k + "x" + ")" * k for k in (30, 49, 50)]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_expressions(expr):
    # The `- - … x` chains cross MAX_NESTING: the fast parser measures depth as Lark's tree does.
    _agree(f"/-- d -/\ndef e (x : ℝ) {{n : Nat}} : ℝ := {expr}\n")


SNIPPETS = ["(", ")", "[", "]", "{", "}", ":", ":=", ",", "=>", "→", "∀", "∑", "fun", "if", "then",
            "else", "=", "≠", "+", "-", "*", "/", "^", "•", "∧", "![", "@[linear dy]", "theorem",
            "def", "opaque", "import", "by", "rw [", "/--", "/-", "-/", "/-!", "--", "\n", " ", "x",
            "0.5", "(R := 2)", "\t", "((((", "))))"]


def _damaged(rng: random.Random, texts: list[str]) -> str:
    text = rng.choice(texts)
    starts = [m.start() for m in re.finditer(r"^(/--|theorem|def|opaque|@\[)", text,
                                             re.MULTILINE)]
    a = rng.choice(starts or [0])
    text = text[a:a + rng.randrange(200, 4000)]
    for _ in range(rng.randrange(3)):
        i = rng.randrange(len(text) + 1)
        op = rng.randrange(3)
        if op == 0:
            text = text[:i] + rng.choice(SNIPPETS) + text[i:]
        elif op == 1:
            text = text[:i] + text[i + rng.randrange(1, 20):]
        else:
            text = text[:i] + text[i:i + 30] + text[i:]
    return text


def test_damaged_input_accepted_or_rejected_alike():
    texts = [t for p, t in _files() if p.startswith(("lemmas/kit", "<prelude>"))]
    rng = random.Random(20240601)
    accepted = sum(_agree(_damaged(rng, texts)) for _ in range(200))
    assert 25 < accepted < 175  # both kinds of input were tried
