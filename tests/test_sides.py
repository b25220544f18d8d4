"""`shardproof.sides`: a theorem's two sides at given values, and the code `explain` prints with
it — a red-team review pasted a counterexample's "as Python:" block and learned nothing: it
assigned the inputs and computed neither side.  Now the block ends with `sp.sides(…)`, which
evaluates both sides with the checker's own evaluator, and prints them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import shardproof as sp
from shardproof import cli
from shardproof.check import check_text, counterexample_lines
from shardproof.library import Library
from shardproof.semantics import find_counterexample

LEMMAS = """\
theorem syncbn (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (ε : ℝ)
    (γ β : Vec C) (x : Fin R → Vec (N * (C * S))) (X : Vec ((R * N) * (C * S)))
    (hx : ∀ r, x r = shard R N (C * S) X r) (r : Fin R) :
    bnSyncF N C S ε γ β (x r) (syncStats R N C S x)
      = shard R N (C * S) (bnBatch (R * N) C S ε γ β X) r := by norm

theorem mapShard {R N a b : Nat} (f : Vec a → Vec b) (e : Fin R → Vec (N * a))
    (X : Vec ((R * N) * a)) (he : ∀ r, e r = shard R N a X r) (r : Fin R) :
    batchMap N f (e r) = shard R N b (batchMap (R * N) f X) r := by norm

/-- DDP without SyncBatchNorm: each replica normalises with its own statistics. -/
theorem ddp_bn (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (ε : ℝ) (hε : 0 < ε)
    (γ β : Vec C) (X : Vec ((R * N) * (C * S))) (r : Fin R) :
    bnBatch N C S ε γ β (shard R N (C * S) X r)
      = shard R N (C * S) (bnBatch (R * N) C S ε γ β X) r := by norm

theorem wrong_divisor (R N : Nat) (hR : 0 < R) (g : Vec (R * N)) :
    1 / R * (∑ (r : Fin R), (∑ (n : Fin N), g (r * N + n)) / (R * N))
      = (∑ (m : Fin (R * N)), g m) / (R * N) := by norm

theorem scaled (R N : Nat) (x : Fin R → Vec N) (X : Vec (R * N))
    (hx : ∀ r, x r = shard R N 1 X r) (ℓ : ℝ) (r : Fin R) :
    x r = ℓ • shard R N 1 X r := by norm

theorem mapHomog {a b : Nat} (f : Vec a → Vec b) (s : ℝ) (v : Vec a) :
    f (s • v) = s • f v := by norm

theorem ne_one (a : ℝ) : a ≠ 1

theorem thirds (x y : ℝ) (hx : x = y / 3) : 3 * x ≠ y

theorem exp_off (x y : ℝ) (hx : x = exp y) : exp y - x = 1 := by norm

theorem euler_named (E x : ℝ) (hE : E = 1 / 3) (hx : x = exp 1) : 3 * E * x = x + 1 := by norm
"""
REFUTED = ["ddp_bn", "wrong_divisor", "scaled", "mapHomog", "ne_one"]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("sides")
    (d / ".lemmaroot").write_text("")
    (d / "t.lemma").write_text(LEMMAS, encoding="utf-8")
    return d


def _cx(root: Path, name: str):
    lf = Library(root).load(root / "t.lemma")
    cx = find_counterexample(lf.env.get(name), lf.env, budget_seconds=2.0,
                             witness=False)       # (`a ≠ 1` is refuted where the sides agree)
    assert cx is not None, name
    return cx


def _entries(v) -> list[str]:
    return [str(x) for x in np.asarray(v, dtype=object).reshape(-1)]


def test_the_sides_of_a_true_theorem_are_equal_at_random_values(root) -> None:
    rng = np.random.default_rng(7)
    for R, N, C, S in ((2, 2, 1, 1), (3, 2, 2, 3)):
        for data in ("halves", "normal"):
            draw = (lambda n: rng.integers(-6, 7, n) / 2) if data == "halves" else \
                rng.standard_normal
            X = draw(R * N * C * S)
            x = [X[q * N * C * S:(q + 1) * N * C * S] for q in range(R)]
            lhs, rhs = sp.sides(root / "t.lemma", "syncbn", R=R, N=N, C=C, S=S, ε=0.5,
                                γ=draw(C), β=list(draw(C)), x=x, X=X, r=R - 1)
            assert lhs.dtype == object and len(lhs) == N * C * S      # exact, as it fits
            assert _entries(lhs) == _entries(rhs)
    M = rng.standard_normal((3, 2))
    lhs, rhs = sp.sides(root / "t.lemma", "mapShard", R=2, N=2, a=2, b=3, r=1,
                        f=lambda v: np.tanh(M @ v), e=[[1, 2, 3, 4], [5, 6, 7, 8]],
                        X=np.arange(1.0, 9.0))
    assert lhs.dtype == np.float64        # a map given as a Python function: in floats
    np.testing.assert_allclose(lhs, np.tanh(M @ np.array([[5, 7], [6, 8]])).T.reshape(-1))
    np.testing.assert_allclose(lhs, rhs)


def test_the_sides_fall_back_to_floats_past_exact_arithmetic(root) -> None:
    n = 12_000                           # more entries than a counterexample is re-checked with
    g = np.random.default_rng(1).standard_normal(2 * n)
    lhs, rhs = sp.sides(str(root / "t.lemma"), "wrong_divisor", R=2, N=n, g=g)
    assert isinstance(lhs, float) and lhs == pytest.approx(g.sum() / (4 * n))
    assert rhs == pytest.approx(g.sum() / (2 * n))


@pytest.mark.parametrize("name", REFUTED)
def test_the_sides_at_a_counterexample_are_its_lhs_and_rhs(root, name) -> None:
    cx = _cx(root, name)
    a = cx.assignment
    values = {**a.sizes, **a.indices, **a.reals, **a.tensors, **a.families, **a.maps}
    lhs, rhs = sp.sides(str(root / "t.lemma"), name, **values)
    assert _entries(lhs) == _entries(cx.lhs_value) and _entries(rhs) == _entries(cx.rhs_value)
    assert (_entries(lhs) == _entries(rhs)) == (name == "ne_one")


def _explain(root: Path, name: str) -> str:
    src = str(Path(sp.__file__).resolve().parents[1])
    r = subprocess.run([sys.executable, "-m", "shardproof.cli", "explain", name, "--no-cache",
                        "t.lemma"], cwd=root, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": src})
    assert r.returncode == 1, r.stderr
    return r.stdout


def _python_block(out: str) -> str:
    """The code under `explain`'s "as Python:", unindented."""
    lines = out.splitlines()
    at = next(k for k, ln in enumerate(lines) if ln.strip() == "as Python:")
    indent = len(lines[at + 1]) - len(lines[at + 1].lstrip())
    block = []
    for ln in lines[at + 1:]:
        if len(ln) - len(ln.lstrip()) < indent:
            break
        block.append(ln[indent:])
    return "\n".join(block)


@pytest.mark.parametrize("name", ["ddp_bn", "scaled", "mapHomog", "thirds", "exp_off",
                                  "euler_named"])
def test_the_code_explain_prints_reproduces_the_failure(root, name) -> None:
    """Pasted and run from the same directory, the code prints two different sides: the
    counterexample's (exactly, except through a map, which is a Python function there).  A
    value no float holds (`y / 3`, `exp y`) is written exactly (`sympy.Rational(5, 6)`), or
    the replayed point moved (the seventy-third review), in names a binder cannot shadow (a
    binder `E` beside Euler's number); a refuted `≠` prints equal sides."""
    out = _explain(root, name)
    code = _python_block(out)
    assert f"sp.sides('t.lemma', '{name}', " in code
    src = str(Path(sp.__file__).resolve().parents[1])
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       timeout=300, env={**os.environ, "PYTHONPATH": src})
    assert r.returncode == 0, r.stderr
    got = dict(re.findall(r"^(lhs|rhs) = (.*)$", r.stdout, flags=re.M))
    assert set(got) == {"lhs", "rhs"} and (got["lhs"] != got["rhs"]) == (name != "thirds"), \
        r.stdout
    if name != "mapHomog":
        for side in ("lhs", "rhs"):
            shown = re.search(rf"^ +{side} = (.*)$", out, flags=re.M).group(1)
            # (sympy prints Euler's number `E`; the counterexample's text says `exp(1)`)
            shown = shown.split("  (≈")[0]              # (the six digits that follow)
            assert got[side] == shown.replace(",", "").replace("exp(1)", "E"), \
                (side, out, r.stdout)


def test_the_code_names_a_renamed_binder_by_its_own_name(root) -> None:
    """`ℓ` is `l` in Python (a keyword `ℓ=` would arrive as `l`): the call passes it as
    `**{'ℓ': l}`; a keyword as Python reads it names the binder too."""
    code = _python_block(_explain(root, "scaled"))
    assert re.search(r"^l = \S+  # `ℓ`$", code, flags=re.M) and "**{'ℓ': l})" in code
    a = _cx(root, "scaled").assignment
    lhs, _ = sp.sides(root / "t.lemma", "scaled", **a.sizes, **a.indices, l=a.reals["ℓ"],
                      X=a.tensors["X"], x=a.families["x"])
    assert _entries(lhs) == _entries(_cx(root, "scaled").lhs_value)


def test_json_carries_the_same_code(root, capsys, monkeypatch) -> None:
    monkeypatch.chdir(root)
    assert cli.main(["check", "--format", "json", "--no-cache", "t.lemma"]) == 1
    import json
    recs = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    code = recs["wrong_divisor"]["counterexample"]["python"]
    assert code.endswith("lhs, rhs = sp.sides('t.lemma', 'wrong_divisor', R=R, N=N, g=g)\n"
                         "print('lhs =', lhs)\nprint('rhs =', rhs)  # they differ")
    assert recs["ne_one"]["counterexample"]["python"].endswith(
        "# they are equal, so the `≠` fails")


def test_a_notebook_theorem_has_no_path_and_the_code_says_so(tmp_path) -> None:
    """`check_text` has no file to name: a placeholder, and a comment, not a wrong path."""
    (v,) = check_text("theorem inv_mul_R (R : Nat) (v : ℝ) : 1 / R * (R * v) = v := by norm\n",
                      root=str(tmp_path))
    assert v.verdict == "refuted"
    html = v._repr_html_()
    assert "# replace `...` with the path of the `.lemma` file that declares `inv_mul_R` (not " \
           "known here)" in html and "sp.sides(..., &#x27;inv_mul_R&#x27;, R=R, v=v)" in html
    code = "\n".join(counterexample_lines(v.counterexample, python=True)[-9:])
    assert "sp.sides(..., ..., R=R, v=v)" in code
    with pytest.raises(TypeError, match="the path of the `.lemma` file"):
        sp.sides(..., "inv_mul_R", R=0, v=3)


@pytest.mark.parametrize("values, message", [
    (dict(R=2, N=2), r"no value for `g` \(Vec \(R \* N\)\): `wrong_divisor` needs it"),
    (dict(R=2, g=[1, 2, 3, 4]), r"no value for `N` \(Nat\)"),
    (dict(R=2, N=2, g=[1, 2, 3]),
     r"`g` is a `Vec \(R \* N\)`: give a 1-D array \(or a list\) of 4 numbers at these sizes, "
     r"not 3"),
    (dict(R=2, N=2, g=np.zeros((2, 2))), r"`g` .* not an array of shape \(2, 2\)"),
    (dict(R=2, N=2, g=["a", 1, 2, 3]), r"`g` .*: its entry 0 is str 'a'"),
    (dict(R=2.0, N=2, g=[1, 2, 3, 4]), r"`R` is a size \(`Nat`\): give a natural number"),
    # seventieth review: a NaN or an infinity raised numpy's and Python's own errors
    (dict(R=2, N=2, g=[1, float("nan"), 3, 4]), r"`g` .*: its entry 1 is float nan"),
    (dict(R=2, N=2, g=np.array([1, 2, np.inf, 4])), r"`g` .*: its entry 2 is float64 .*inf"),
    (dict(R=2, N=2, g=[1, 2, 3, 4], G=1), r"`G` is not a binder of `wrong_divisor` \(its "
                                          r"binders: R, N, g\)"),
])
def test_a_value_that_is_missing_or_does_not_fit_is_named(root, values, message) -> None:
    with pytest.raises(ValueError, match=message):
        sp.sides(root / "t.lemma", "wrong_divisor", **values)


def test_an_index_or_a_family_that_does_not_fit_is_named(root) -> None:
    base = dict(R=2, N=2, l=1, X=[1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"`r` is an index of `Fin R` \(from 0 to 1 at these "
                                         r"sizes\), not 2"):
        sp.sides(root / "t.lemma", "scaled", r=2, x=[[1, 2], [3, 4]], **base)
    with pytest.raises(ValueError, match=r"`x` is a `Fin R → Vec N`: give a list of 2 members"):
        sp.sides(root / "t.lemma", "scaled", r=0, x=[[1, 2]], **base)
    with pytest.raises(ValueError, match=r"`x`\[1\] is a `Vec N`: .* of 2 numbers at these "
                                         r"sizes, not 1"):
        sp.sides(root / "t.lemma", "scaled", r=0, x=[[1, 2], [3]], **base)
    with pytest.raises(sp.ShardproofError, match="no theorem named `scaledd` in .*; did you "
                                                 "mean `scaled`"):
        sp.sides(root / "t.lemma", "scaledd", r=0)


def test_a_real_that_is_not_finite_or_a_directory_is_named(root) -> None:
    """Seventieth review: `c=float("nan")` gave "cannot convert NaN to integer ratio", `inf`
    an `OverflowError`, and a directory for the file an `IsADirectoryError`."""
    (root / "c.lemma").write_text("theorem t1 (n : Nat) (x : Vec n) (c : ℝ) : c • x = x := "
                                  "by norm\n")
    for c in (float("nan"), float("inf"), -np.inf):
        with pytest.raises(ValueError, match=r"`c` is a real \(`ℝ`\): give a number, not"):
            sp.sides(root / "c.lemma", "t1", n=2, x=[1, 2], c=c)
    with pytest.raises(sp.ShardproofError, match="is a directory: give the `.lemma` file"):
        sp.sides(root, "t1")


def test_sides_is_part_of_the_api() -> None:
    assert "sides" in sp.__all__ and callable(sp.sides)


def test_a_python_map_of_the_wrong_kind_is_named(root) -> None:
    """Eighty-third review: a map given to `sides` that returned a string, took another number
    of vectors, or recursed too deeply raised numpy's or Python's own error (or "the statement
    is nested too deeply"); each is a ValueError naming the map now."""
    import shardproof as sp
    base = dict(R=2, N=1, a=2, b=1, e=[[1, 2], [3, 4]], X=[1, 2, 3, 4], r=1)
    f = str(root / "t.lemma")

    def deep(v):
        raise RecursionError("deep")
    for fn, want in ((lambda v: "ab", "the map `f` returned str 'ab'"),
                     (lambda v, u: v, "called with 1 vector"),
                     (lambda: 1, "called with 1 vector"),
                     (deep, "the map `f` raised RecursionError")):
        with pytest.raises(ValueError, match=want):
            sp.sides(f, "mapShard", **base, f=fn)
    assert sp.sides(f, "mapShard", **base, f=lambda v: np.array([v.sum()]))[0].shape == (1,)
