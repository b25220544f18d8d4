"""Printing and parsing are inverse: ``parse_expr(pretty(t)) == t`` for every parseable term.

The strategies below generate only terms the parser can produce (an application's head is never
itself an application, binders are all typed or all untyped, numerals are non-negative decimals),
so a failure is a real disagreement between the printer's parentheses and the grammar's
precedences.  Spans are outside equality, so a parsed term equals the generated one.
"""

from __future__ import annotations

from dataclasses import fields
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shardproof import terms as T
from shardproof.errors import ShardproofError
from shardproof.pretty import pretty
from shardproof.syntax import parse_expr, parse_module

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Names the lexer reads as one NAME token (Greek, primes, subscripts), none of them a keyword.
NAMES = ["x", "y", "R", "N", "a", "ε", "γ", "x'", "h₁", "relu", "shard", "Vec", "Fin", "ℝ"]
ASCII_SAFE_NAMES = [n for n in NAMES if n != "ℝ"]  # `ℝ` prints as `Real` in ASCII mode
OPS = ["+", "-", "*", "/", "^", "•"]
RELS = ["=", "≠", "<", "≤", ">", "≥"]


def nums() -> st.SearchStrategy[T.Num]:
    """Naturals and decimals (`0.1` is stored exactly as 1/10); negatives are `Neg` terms."""
    return st.builds(lambda n, k: T.Num(Fraction(n, 10 ** k)),
                     st.integers(0, 10_000), st.integers(0, 4))


def terms(names: list[str]) -> st.SearchStrategy[T.Term]:
    leaves = st.one_of(st.sampled_from(names).map(T.Var), nums())

    def extend(sub: st.SearchStrategy[T.Term]) -> st.SearchStrategy[T.Term]:
        name = st.sampled_from(names)
        # An application's head is never an application: an `App` drawn as a head gives its own
        # head (never an `App` either). A `.filter` here would, after three misses, format the
        # whole recursive strategy's repr and Hypothesis warns about its size.
        head = sub.map(lambda t: t.fn if isinstance(t, T.App) else t)
        arg = st.one_of(sub, st.builds(T.NamedArg, name, sub))
        untyped = st.lists(name.map(lambda n: T.Binder(n, None)), min_size=1, max_size=3)
        typed = st.lists(st.builds(T.Binder, name, sub), min_size=1, max_size=3)
        binders = st.one_of(untyped, typed).map(tuple)
        return st.one_of(
            st.builds(T.App, head, st.lists(arg, min_size=1, max_size=3).map(tuple)),
            st.builds(T.Index, sub, st.lists(sub, min_size=1, max_size=3).map(tuple)),
            st.builds(T.BinOp, st.sampled_from(OPS), sub, sub),
            st.builds(T.Neg, sub),
            st.builds(T.Lam, binders, sub),
            st.builds(T.Sum, binders, sub),
            st.builds(T.Forall, binders, sub),
            st.builds(T.Exists, binders, sub),
            st.builds(T.Ite, sub, sub, sub),
            st.builds(T.Cmp, st.sampled_from(RELS), sub, sub),
            st.builds(T.And, sub, sub),
            st.builds(T.Arrow, sub, sub),
            st.builds(T.VecLit, st.lists(sub, max_size=3).map(tuple)),
        )

    return st.recursive(leaves, extend, max_leaves=12)


def subterms(t: T.Term):
    yield t
    for c in t.children():
        yield from subterms(c)


@SETTINGS
@given(terms(NAMES))
def test_parse_inverts_pretty(t: T.Term) -> None:
    text = pretty(t)
    back = parse_expr(text)
    assert back == t, text
    assert hash(back) == hash(t)
    assert pretty(back) == text


@SETTINGS
@given(terms(ASCII_SAFE_NAMES))
def test_ascii_spellings_parse_to_the_same_term(t: T.Term) -> None:
    text = pretty(t, ascii_only=True)
    assert not set(text) & set("∀∃→∧≠≤≥•∑↦ℝ"), text  # only names may stay non-ASCII
    assert parse_expr(text) == t, text


@SETTINGS
@given(terms(NAMES))
def test_terms_are_frozen_values(t: T.Term) -> None:
    """Every term equals a copy built from its fields, and hashes (children are tuples)."""
    for u in subterms(t):
        copy = type(u)(*(getattr(u, f.name) for f in fields(u)))
        assert copy == u and hash(copy) == hash(u)
        with pytest.raises(AttributeError):
            u.span = None  # type: ignore[misc]


def test_spans_are_outside_equality() -> None:
    a = parse_expr("relu n (x + y)")
    b = parse_expr("relu   n\n  ( x+y )")
    assert a == b and hash(a) == hash(b)
    assert a.span != b.span


def test_a_shared_binder_type_is_the_typed_form() -> None:
    """`fun i j : T => e` is `fun (i : T) (j : T) => e` (the printer writes the latter)."""
    assert parse_expr("fun i j : Fin n => x i") == parse_expr("fun (i : Fin n) (j : Fin n) => x i")
    assert parse_expr("∑ i : Fin n, x i") == parse_expr("∑ (i : Fin n), x i")


def test_decimals_are_exact() -> None:
    assert parse_expr("0.1") == T.Num(Fraction(1, 10))
    assert pretty(T.Num(Fraction(1, 8))) == "0.125"
    assert parse_expr(pretty(T.Num(Fraction(7, 100000)))) == T.Num(Fraction(7, 100000))


MAX_LIBRARY_FILE = 64_000  # generated whole-network files are larger; parsing them is slow


def _lemma_texts() -> list[tuple[str, str]]:
    """The prelude files, and the library's hand-written files under `lemmas/` (if any)."""
    out: list[tuple[str, str]] = []
    base = resources.files("shardproof").joinpath("prelude")
    for entry in sorted(base.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".lemma"):
            out.append((f"prelude/{entry.name}", entry.read_text(encoding="utf-8")))
    lemmas = ROOT / "lemmas"
    if lemmas.is_dir():
        for p in sorted(lemmas.rglob("*.lemma")):
            if p.stat().st_size <= MAX_LIBRARY_FILE:
                out.append((str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")))
    return out


def test_include_roundtrips() -> None:
    text = "variable (x : ℝ) (hx : x = 0)\n\ninclude hx\n\ntheorem t : x * 2 = 0\n"
    module = parse_module(text, "a.lemma")
    assert isinstance(module.decls[1], T.Include) and module.decls[1].names == ("hx",)
    assert parse_module(pretty(module), "a.lemma") == module


@pytest.mark.parametrize("name,text", _lemma_texts(), ids=[n for n, _ in _lemma_texts()])
def test_modules_roundtrip(name: str, text: str) -> None:
    """A whole file printed back parses to the same declarations (docstrings included)."""
    try:
        module = parse_module(text, name)
    except ShardproofError:
        if name.startswith("prelude/"):
            raise
        pytest.skip(f"{name} does not parse (work in progress elsewhere)")
    printed = pretty(module)
    again = parse_module(printed, name)
    assert again == module
    assert pretty(again) == printed
