"""Damaged and random `.lemma` text never crashes the loader, and never makes it hang.

Loading a file (parse, imports, elaboration) may only fail with a
:class:`~shardproof.errors.ShardproofError`, which the CLI renders and turns into exit status 2;
anything else would be a traceback in front of a user.  The inputs are the prelude and the
kit's files under ``lemmas/kit`` with random deletions, insertions, duplications and byte flips,
and random declarations assembled from plausible pieces.  Every load must finish within 2 s; the
examples are bounded (no deadline, the duration is measured here) so the test is never skipped
for being slow.
"""

from __future__ import annotations

import itertools
import shutil
import time
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shardproof.errors import ShardproofError
from shardproof.library import Library, prelude_env

ROOT = Path(__file__).resolve().parent.parent
LIMIT_SECONDS = 2.0
WINDOW_CHARS = 8000  # large library files are fuzzed a window at a time (plus their imports)
FUZZ = settings(max_examples=150, deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Pieces a mutation may insert: tokens of the language and their usual neighbours.
SNIPPETS = ["(", ")", "[", "]", "{", "}", ":", ":=", ",", "=>", "→", "->", "∀", "∑", "fun",
            "if", "then", "else", "=", "≠", "<", "≤", "+", "-", "*", "/", "^", "•", "∧", "![",
            "@[linear dy]", "theorem", "def", "opaque", "import", "variable", "by", "norm",
            "rw [", "/--", "/-", "-/", "/-!", "--", "\n", " ", "x", "Vec", "Fin", "Nat", "ℝ",
            "relu", "shard", "0", "2", "0.5", "(R := 2)", "import kit.defs\n", "import ..\n",
            "import nowhere\n", "\u00e9", "\t", "\r\n", "((((((((", "))))))))"]


# The hand-written kit; the generated whole-network files are too large to load per example.
KIT = ROOT / "lemmas" / "kit"


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory) -> tuple[Library, Path]:
    """A copy of `lemmas/kit` in a lemma root, each file preloaded once (imports are then free)."""
    root = tmp_path_factory.mktemp("fuzz") / "root"
    root.mkdir()
    if KIT.is_dir():
        shutil.copytree(KIT, root / "kit")
    (root / ".lemmaroot").write_text("")
    prelude_env()
    lib = Library(root)
    for p in sorted(root.rglob("*.lemma")):
        try:
            lib.load(p)
        except ShardproofError:
            pass  # work in progress elsewhere: its damaged copies are still fair inputs
    (root / "fuzz").mkdir()
    return lib, root


def _seed_texts() -> list[str]:
    texts = []
    base = resources.files("shardproof").joinpath("prelude")
    for entry in sorted(base.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".lemma"):
            texts.append(entry.read_text(encoding="utf-8"))
    if KIT.is_dir():
        texts.extend(p.read_text(encoding="utf-8") for p in sorted(KIT.rglob("*.lemma")))
    return texts


SEEDS = _seed_texts()
_counter = itertools.count()


def _window(text: str, start: float) -> str:
    """A large file's import lines followed by about WINDOW_CHARS of its text from ``start``."""
    if len(text) <= WINDOW_CHARS:
        return text
    lines = text.splitlines(keepends=True)
    head = [ln for ln in lines if ln.startswith("import ")]
    first = int(start * len(lines))
    body: list[str] = []
    size = 0
    for ln in lines[first:]:
        if size + len(ln) > WINDOW_CHARS:
            break
        body.append(ln)
        size += len(ln)
    return "".join(head + body)


@st.composite
def mutated(draw) -> bytes:
    text = _window(draw(st.sampled_from(SEEDS)), draw(st.floats(0, 1)))
    data = bytearray(text.encode("utf-8"))
    for _ in range(draw(st.integers(1, 6))):
        n = len(data)
        kind = draw(st.sampled_from(["delete", "insert", "flip", "duplicate", "truncate"]))
        at = draw(st.integers(0, n))
        if kind == "delete" and n:
            del data[at: at + draw(st.integers(1, 40))]
        elif kind == "insert":
            piece = draw(st.one_of(st.sampled_from(SNIPPETS).map(str.encode),
                                   st.binary(min_size=1, max_size=8)))
            data[at:at] = piece
        elif kind == "flip" and n:
            i = min(at, n - 1)
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "duplicate" and n:
            data[at:at] = data[at: at + draw(st.integers(1, 200))]
        elif kind == "truncate":
            del data[at:]
    return bytes(data)


# ---- declarations assembled from plausible pieces (mostly well-formed syntax, random meaning)

BASE_BINDERS = "(n R N a : Nat) (x y : Vec n) (s t : ℝ) (i : Fin n) (X : Vec ((R * N) * a)) " \
    "(r : Fin R) (e : Fin R → Vec (N * a))"
EXTRA_BINDERS = ["{m : Nat}", "(hR : 0 < R)", "(hn : n ≠ 0)", "(he : ∀ r, e r = shard R N a X r)",
                 "(f : Vec n → Vec n)", "(z : Vec (n * n))", "(w : Vec m)", "(k : Fin 2)"]
ATOMS = ["x", "y", "s", "t", "X", "e r", "n", "R", "0", "1", "0.5", "relu n x", "x i",
         "shard R N a X r", "f x", "z[i, i]", "allReduceMean R e", "sqrt s", "i", "N * a"]


def _exprs() -> st.SearchStrategy[str]:
    def extend(sub: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        two = st.tuples(sub, sub)
        return st.one_of(
            two.map(lambda p: f"{p[0]} + {p[1]}"), two.map(lambda p: f"({p[0]}) * {p[1]}"),
            two.map(lambda p: f"{p[0]} - ({p[1]})"), two.map(lambda p: f"{p[0]} / {p[1]}"),
            two.map(lambda p: f"{p[0]} • ({p[1]})"), sub.map(lambda a: f"-{a}"),
            sub.map(lambda a: f"relu n ({a})"), sub.map(lambda a: f"fun (j : Fin n) => {a}"),
            sub.map(lambda a: f"fun j => {a}"), sub.map(lambda a: f"∑ (j : Fin n), {a}"),
            two.map(lambda p: f"if {p[0]} < {p[1]} then {p[0]} else {p[1]}"),
            two.map(lambda p: f"({p[0]})[{p[1]}]"), two.map(lambda p: f"addV ({p[0]}) ({p[1]})"),
            sub.map(lambda a: f"({a}) ^ 2"), sub.map(lambda a: f"![{a}, 1]"),
        )

    return st.recursive(st.sampled_from(ATOMS), extend, max_leaves=8)


EXPRS = _exprs()  # built once: rebuilding a recursive strategy on every draw is very slow


@st.composite
def assembled(draw) -> bytes:
    decls = []
    for k in range(draw(st.integers(1, 3))):
        extra = draw(st.lists(st.sampled_from(EXTRA_BINDERS), max_size=3, unique=True))
        base = draw(st.sampled_from([BASE_BINDERS, BASE_BINDERS, ""]))
        binders = " ".join([base] + extra)
        lhs, rhs = draw(EXPRS), draw(EXPRS)
        rel = draw(st.sampled_from(["=", "≠", "<", "="]))
        kind = draw(st.sampled_from(["theorem", "def", "opaque", "theorem"]))
        if kind == "theorem":
            proof = draw(st.sampled_from(["", " := by norm", " := by rw [he]; norm",
                                          " := by norm [t0]", " := by witness (R := 2)"]))
            decls.append(f"/-- case {k} -/\ntheorem t{k} {binders} : {lhs} {rel} {rhs}{proof}")
        elif kind == "def":
            ty = draw(st.sampled_from(["ℝ", "Vec n", "Vec (N * a)", "Prop", "Nat"]))
            decls.append(f"def d{k} {binders} : {ty} := {lhs}")
        else:
            decls.append(f"@[linear x] opaque o{k} {binders} : Vec n")
    header = draw(st.sampled_from(["", "import kit.defs\n", "variable (n : Nat) (x : Vec n)\n"]))
    return (header + "\n\n".join(decls) + "\n").encode("utf-8")


def _load(lib: Library, root: Path, data: bytes) -> None:
    path = root / "fuzz" / f"case_{next(_counter)}.lemma"
    path.write_bytes(data)
    t0 = time.perf_counter()
    try:
        lib.load(path)
    except ShardproofError as exc:
        rendered = exc.render(lib.sources)  # the CLI's rendering must not fail either
        assert rendered.startswith(str(exc.span) if exc.span else "<input>")
    elapsed = time.perf_counter() - t0
    assert elapsed < LIMIT_SECONDS, f"loading took {elapsed:.2f} s:\n{data[:2000]!r}"


@FUZZ
@given(data=mutated())
def test_damaged_library_files_only_raise_input_errors(fuzz_root, data: bytes) -> None:
    lib, root = fuzz_root
    _load(lib, root, data)


@FUZZ
@given(data=assembled())
def test_random_declarations_only_raise_input_errors(fuzz_root, data: bytes) -> None:
    lib, root = fuzz_root
    _load(lib, root, data)
