"""Negative results are stated as Lean states a counterexample: `theorem t : ∃ (x : ℝ) …, a ≠ b`.

A theorem's binders are universal, as in Lean.  Until the tenth session a `≠` between reals or
vectors under binders meant "the sides differ for SOME values" and a witness proved it, so
`theorem t (x : ℝ) : x ^ 2 ≠ x := by witness (x := 2)` was proved though Lean's reading (for every
x) is false at x = 0.  Now such a theorem is refuted where its sides are equal (else `unknown`),
the `∃` form is proved by a witness, and the kernel refuses a `witness` step for a goal that is
neither an `∃` nor closed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shardproof.check import Checker, Options
from shardproof.kernel import Rejected, replay
from shardproof.library import Library
from shardproof.prove import kernel_goal


def _verdicts(tmp_path: Path, text: str, replay_on: bool = True) -> dict:
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text(text, encoding="utf-8")
    return {v.name: v for v in
            Checker(Options(search_seconds=1.0, replay=replay_on)).check_file(case)}


# Each is false in Lean's reading (for every value of the binders), and each was proved before
# (with the `by witness (…)` an `∃` now takes: here an input error); the last is true (its
# sides never agree) and not proved here.
FORALL_NE = """\
theorem sq_ne_self (x : ℝ) : x ^ 2 ≠ x
theorem nat_sq (n : Nat) : n ^ 2 ≠ 4
theorem nat_sum (n : Nat) : (∑ (i : Fin n), 1) ≠ 0
theorem funs (n : Nat) : (fun (k : Fin 2) => n ^ 2) ≠ (fun (k : Fin 2) => 4)
theorem searched (R : Nat) (hR : 0 < R) (x : ℝ) : R * x ≠ x
theorem perReplica (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (X : Vec ((R * N) * (C * S)))
    (r : Fin R) :
    (fun (n : Fin N) (c : Fin C) (s : Fin S) =>
        (shard R N (C * S) X r)[n, c, s] - bnMean N C S (shard R N (C * S) X r) c)
      ≠ shard R N (C * S)
          (fun (m : Fin (R * N)) (c : Fin C) (s : Fin S) => X[m, c, s] - bnMean (R * N) C S X c) r
theorem true_one (x : ℝ) : x + 1 ≠ x
"""

EXISTS_NE = """\
theorem sq_ne_self : ∃ (x : ℝ), x ^ 2 ≠ x := by witness (x := 2)
theorem nat_sq : ∃ (n : Nat), n ^ 2 ≠ 4 := by witness (n := 0)
theorem nat_sum : ∃ (n : Nat), (∑ (i : Fin n), 1) ≠ 0 := by witness (n := 1)
theorem funs : ∃ (n : Nat), (fun (k : Fin 2) => n ^ 2) ≠ (fun (k : Fin 2) => 4) := by
  witness (n := 0)
theorem searched : ∃ (R : Nat) (hR : 0 < R) (x : ℝ), R * x ≠ x
theorem conjuncts : ∃ (R : Nat) (x : ℝ), 1 < R ∧ x ≠ 0 ∧ R * x ≠ x := by witness (R := 2) (x := 1)
theorem nested : ∃ (R : Nat), ∃ (hR : 0 < R) (x : ℝ), R * x ≠ x := by witness (R := 2) (x := 1)
theorem perReplica : ∃ (R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0)
    (X : Vec ((R * N) * (C * S))) (r : Fin R),
    (fun (n : Fin N) (c : Fin C) (s : Fin S) =>
        (shard R N (C * S) X r)[n, c, s] - bnMean N C S (shard R N (C * S) X r) c)
      ≠ shard R N (C * S)
          (fun (m : Fin (R * N)) (c : Fin C) (s : Fin S) => X[m, c, s] - bnMean (R * N) C S X c) r
    := by witness (R := 2) (N := 1) (C := 1) (S := 1) (X := ![0, 2]) (r := 0)
theorem mean_ne_first : ∃ (R : Nat) (hR : 0 < R) (g : Vec R),
    1 / R * (∑ (r : Fin R), g r) ≠ g 0 := by witness (R := 2) (g := ![0, 2])
theorem tied_len : ∃ (n : Nat) (h : n = 2) (v : Vec n), v ≠ ![1, 2] := by
  witness (n := 2) (v := ![0, 0])
theorem literal : ∃ (v : Vec 2), v ≠ ![1, 2] := by witness (v := ![0, 0])
"""


@pytest.mark.parametrize("replay_on", [True, False])
def test_a_real_disequation_under_binders_is_read_for_every_value(tmp_path, replay_on) -> None:
    from fractions import Fraction
    vs = _verdicts(tmp_path, FORALL_NE, replay_on)
    assert len(vs) == 7
    assert vs.pop("true_one").verdict == "unknown"
    for v in vs.values():        # a counterexample: the two sides are equal there
        assert v.verdict == "refuted", (v.name, v.reason)
        assert "the two sides are equal, so the `≠` fails" in v.reason
        cx = v.counterexample
        assert cx["message"].startswith("the two sides are equal")    # (the text output's too)
        exact = [[Fraction(str(x)) for x in (s if isinstance(s, list) else [s])]
                 for s in (cx["lhs"], cx["rhs"])]
        assert exact[0] == exact[1], v.name
    assert _verdicts(tmp_path, "theorem t (x : ℝ) : x + 1 ≠ x\n")["t"].reason.startswith(
        "Lean reads a `≠` under the theorem's binders for EVERY value")
    x = Fraction(vs["sq_ne_self"].counterexample["assignment"]["reals"]["x"])
    assert x ** 2 == x


@pytest.mark.parametrize("replay_on", [True, False])
def test_the_same_statements_as_counterexamples_are_proved(tmp_path, replay_on) -> None:
    vs = _verdicts(tmp_path, EXISTS_NE, replay_on)
    assert {n: v.verdict for n, v in vs.items()} == dict.fromkeys(vs, "proved")
    assert len(vs) == 11      # (the last three: typed through a hypothesis, a tie, a literal —
    # the kernel's typing of the sides refused them until the fifty-second review)
    if replay_on:
        assert all(v.replayed and "kernel:witness" in v.kernel for v in vs.values())


def test_false_counterexamples_are_not_proved(tmp_path) -> None:
    """`∃` claims with no witness: the sides agree everywhere, or only where a hypothesis (a
    binder or a conjunct) fails; and true ones given a witness at which the sides agree."""
    vs = _verdicts(tmp_path, """\
theorem commute : ∃ (x y : ℝ), x * y ≠ y * x
theorem relu_twice : ∃ (n : Nat) (v : Vec n), relu n (relu n v) ≠ relu n v := by
  witness (n := 2) (v := ![1, -1])
theorem conj_breaks : ∃ (x : ℝ), x = 1 ∧ x * x ≠ x := by witness (x := 2)
theorem binder_breaks : ∃ (x : ℝ) (h : x = 1), x * x ≠ x := by witness (x := 2)
theorem one_replica : ∃ (R : Nat) (hR : R = 1) (X : Vec (R * 1)) (r : Fin R),
    shard R 1 1 X r ≠ (fun (i : Fin 1) => X (r * 1 + i)) := by witness (R := 1) (X := ![3]) (r := 0)
theorem mean_ne_first : ∃ (R : Nat) (hR : 0 < R) (g : Vec R),
    1 / R * (∑ (r : Fin R), g r) ≠ g 0 := by witness (R := 2) (g := ![1, 1])
theorem tied_len : ∃ (n : Nat) (h : n = 2) (v : Vec n), v ≠ ![1, 2] := by
  witness (n := 2) (v := ![1, 2])
""")
    assert {n: v.verdict for n, v in vs.items()} == dict.fromkeys(vs, "unknown")
    assert len(vs) == 7


def test_a_witness_that_leaves_an_index_no_value_says_so(tmp_path) -> None:
    """Seventy-second review: at `R := 0` the `∃`'s `r : Fin R` has no value, and the reason
    said "the two sides are equal at the given values"."""
    vs = _verdicts(tmp_path, "theorem u4 : ∃ (R : Nat) (r : Fin R) (v : ℝ), 1 / R * (R * v) ≠ v "
                             ":= by witness (R := 0)\n")
    assert vs["u4"].verdict == "unknown"
    assert vs["u4"].reason == "witness: `r` has no value: `Fin R` is empty at these sizes"


def _goal(tmp_path: Path, text: str, name: str):
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "k.lemma"
    case.write_text(text, encoding="utf-8")
    lf = Library(tmp_path).load(case)
    return kernel_goal(lf.env.get(name), lf.env, frozenset())


def _witness(reals: dict) -> dict:
    parts = {k: {} for k in ("sizes", "indices", "tensors", "families", "maps")}
    return {"rule": "witness", "assignment": {**parts, "reals": reals}}


def test_the_kernel_witnesses_only_an_exists_or_a_closed_disequation(tmp_path) -> None:
    text = ("theorem fa (x : ℝ) : x ^ 2 ≠ x\n"
            "theorem ex : ∃ (x : ℝ), x ^ 2 ≠ x\n"
            "theorem closed : (2 : ℝ) ^ 2 ≠ 2\n")
    with pytest.raises(Rejected, match="shows `∃ …, a ≠ b` or a closed"):
        replay(_goal(tmp_path, text, "fa"), [_witness({"x": "2"})])
    assert "kernel:witness" in replay(_goal(tmp_path, text, "ex"), [_witness({"x": "2"})])
    assert "kernel:witness" in replay(_goal(tmp_path, text, "closed"), [_witness({})])
    with pytest.raises(Rejected, match="equal at the witness"):
        replay(_goal(tmp_path, text, "ex"), [_witness({"x": "1"})])


def test_an_exists_prints_back_as_written(tmp_path, capsys) -> None:
    from shardproof import cli
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "e.lemma").write_text(
        "theorem e : ∃ (R : Nat) (hR : 0 < R) (x : ℝ), x ≠ 0 ∧ R * x ≠ x := by\n"
        "  witness (R := 2) (x := 1)\n", encoding="utf-8")
    assert cli.main(["explain", "e", str(tmp_path / "e.lemma")]) == 0
    out = capsys.readouterr().out
    assert "∃ (R : Nat) (hR : 0 < R) (x : ℝ), x ≠ 0 ∧ R * x ≠ x" in out
    assert "witness: True" not in out        # (the section's heading says it; review 52)


def test_the_kernel_closes_an_exists_by_a_witness_only(tmp_path) -> None:
    """Forty-seventh review, by hand-built traces: `norm` read an `∃`'s binders as universal
    and its hypotheses as assumptions, so `unfold` or `rw` with its own hypothesis then `norm`
    closed false `∃` statements as size facts (no n has 0 < n and n < 0; a `Fin 0` binder
    leaves no values at all).  The kernel takes no step but `witness` for an `∃`."""
    text = ("def k (n : Nat) : ℝ := n\n"
            "theorem t : ∃ (n : Nat) (hn : 0 < n) (h : n < 0), k n ≠ 0\n"
            "theorem u : ∃ (n : Nat) (hn : 0 < n) (x : ℝ) (hx : x = n) (hy : x + 1 = 0), x ≠ 0\n"
            "theorem v : ∃ (n : Nat) (hn : 0 < n) (x : ℝ) (hx : x = n) (i : Fin 0), x ≠ 0\n")
    rw_hx = {"rule": "rw", "lemma": "hx", "paths": [[0]], "inst": {}, "how": []}
    for name, trace in (("t", [{"rule": "unfold", "names": ["k"]}, {"rule": "norm"}]),
                        ("u", [rw_hx, {"rule": "norm"}]), ("v", [rw_hx, {"rule": "norm"}]),
                        ("v", [rw_hx, {"rule": "defeq"}]), ("t", [{"rule": "norm"}])):
        with pytest.raises(Rejected, match="shown by a witness, and by no other step"):
            replay(_goal(tmp_path, text, name), trace)


def test_a_refuted_family_disequation_prints_the_same_twice(tmp_path, capsys) -> None:
    """Forty-seventh review: a counterexample between replica families printed the Python
    object's address (`<…_Family object at 0x…>`), so two runs differed."""
    from shardproof import cli
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "f.lemma").write_text(
        "theorem w4 (R n : Nat) (hR : R = 2) (hn : n = 1) (e : Fin R → Vec n) :\n"
        "    e ≠ (fun (r : Fin R) => (fun (i : Fin n) => if r = 0 then e r i else e r i * 1))\n",
        encoding="utf-8")
    outs = []
    for _ in range(2):
        assert cli.main(["check", "--no-cache", "--no-times", str(tmp_path / "f.lemma")]) == 1
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "object at" not in outs[0] and "refuted" in outs[0]


@pytest.mark.parametrize("text, col, phrase", [
    ("theorem a (x : ℝ) : x ^ 2 ≠ x := by witness (x := 2)\n", 37,
     "this theorem's binders are universal"),
    ("theorem b : ∃ (x : ℝ), x ^ 2 ≠ x := by norm\n", 40, "`norm` does not prove a `≠`"),
    ("theorem c : ∃ (x : ℝ), x ^ 2 ≠ x := by witness (x := 2); witness (x := 3)\n", 58,
     "one `witness` step gives the values"),
    ("theorem d (x : ℝ) (h : x = 1) : x ≠ 0 := by rw [h]\n", 45, "`rw` does not prove a `≠`"),
    # fifty-second review: a value Lean would not elaborate at its variable's type (the
    # decimal was taken as the natural 1; the others were `unknown`)
    ("theorem e : ∃ (n : Nat), (n : ℝ) ≠ 0 := by witness (n := 1.0)\n", 58, "a natural numeral"),
    ("theorem f : ∃ (n : Nat), (n : ℝ) ≠ 0 := by witness (n := -1)\n", 58, "a natural numeral"),
    ("theorem g : ∃ (v : Vec 3) (i : Fin 3), v i ≠ 0 := by witness (v := ![1, 1, 1]) (i := 1.5)\n",
     86, "a natural numeral"),
    ("theorem h : ∃ (x : ℝ), x ≠ 0 := by witness (x := y)\n", 50, "unknown name `y`"),
    # eighty-first review: a fraction was `unknown` ("cannot use"), the docs say input error
    ("theorem i : ∃ (n : Nat), (n : ℝ) ≠ 0 := by witness (n := 1/2)\n", 58, "a natural numeral"),
    ("theorem j : ∃ (n : Nat), (n : ℝ) ≠ 0 := by witness (n := -4/2)\n", 58, "a natural numeral"),
])
def test_a_negative_result_takes_one_witness_step_as_an_exists(tmp_path, capsys, text, col,
                                                               phrase) -> None:
    """Forty-seventh review's note: other tactics on a `≠` between reals were ignored (the
    search ran anyway), a second `witness` was ignored, and a witness for a theorem whose
    binders are universal was ignored while the statement read as refuted."""
    from shardproof import cli
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "n.lemma").write_text(text, encoding="utf-8")
    assert cli.main(["check", "--no-cache", str(tmp_path / "n.lemma")]) == 2
    err = capsys.readouterr().err
    assert f"n.lemma:1:{col}: error: " in err and phrase in err and "Traceback" not in err


def test_a_witness_the_kernel_cannot_compare_is_named_with_the_fix(tmp_path) -> None:
    """Fifty-seventh review: per-replica BatchNorm as an `∃` with no witness was `unknown` with
    "the two sides at the witness are not numbers" — the search's witness (ε = 3: a √3 on one
    side) was not shown, nor what to do.  The reason names it and says how to give one."""
    vs = _verdicts(tmp_path, "theorem t : ∃ (x : ℝ) (h : 1 < x), sqrt x ≠ 1\n")
    v = vs["t"]
    assert v.verdict == "unknown"      # (the search's first witness is x = 5/2)
    assert "the kernel rejects the witness the search found (x = " in v.reason
    assert "give one with `by witness (…)`" in v.reason
    assert _verdicts(tmp_path, "theorem t : ∃ (x : ℝ) (h : 1 < x), sqrt x ≠ 1 := by "
                               "witness (x := 4)\n")["t"].verdict == "proved"


@pytest.mark.parametrize("replay_on", [True, False])
def test_a_witness_may_give_a_real_as_a_fraction(tmp_path, replay_on) -> None:
    """Eighty-first review: `(x := 1/2)` for a real was `unknown` ("cannot use"), where `0.5`
    was taken; a fraction of numerals is the number it names (`-1/2` is `(-1) / 2`), in a vector
    literal too; `1/0` is 0, as in Lean (the eighty-second review).  False twins: values at
    which the two sides agree are not witnesses."""
    vs = _verdicts(tmp_path, """
theorem half : ∃ (R : Nat) (x : ℝ), R * x ≠ x := by witness (R := 2) (x := 1/2)
theorem neg_half : ∃ (x : ℝ), x * 2 ≠ 1 := by witness (x := -1/2)
theorem vec : ∃ (v : Vec 2), v 0 + v 1 ≠ 1 := by witness (v := ![1/2, 1/3])
theorem half_eq : ∃ (x : ℝ), x * 2 ≠ 1 := by witness (x := 1/2)
theorem vec_eq : ∃ (v : Vec 2), v 0 + v 1 ≠ 1 := by witness (v := ![1/2, 1/2])
theorem over_zero : ∃ (x : ℝ), x + 1 ≠ 0 := by witness (x := 1/0)
theorem over_zero_eq : ∃ (x : ℝ), x ≠ 0 := by witness (x := 1/0)
theorem nested : ∃ (x : ℝ), x * 5 ≠ 1 := by witness (x := (1/2)/-3)
""", replay_on)
    assert {n: v.verdict for n, v in vs.items()} == {
        "half": "proved", "neg_half": "proved", "vec": "proved", "half_eq": "unknown",
        "vec_eq": "unknown", "over_zero": "proved", "over_zero_eq": "unknown",
        "nested": "proved"}
