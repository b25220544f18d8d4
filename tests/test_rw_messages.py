"""The messages of a failed `rw` (the sixty-eighth review): which rewrite failed, numbered as the
trace `explain` prints it; where a refuted theorem's script stopped; and what is wrong with a
hypothesis of a cited lemma that the goal does not give.  Messages only: verdicts are unchanged.
"""

from __future__ import annotations

from pathlib import Path

from shardproof.check import Options, check_paths

LEMMAS = """\
def f (x : ℝ) : ℝ := x + 1
theorem two_mul (x : ℝ) : x + x = 2 * x := by norm
theorem add_zero_r (x : ℝ) : x + 0 = x := by norm
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    (root / ".lemmaroot").write_text("")
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def _verdicts(root: Path, **kw) -> dict:
    return {v.name: v for v in check_paths([root], Options(**kw)).verdicts}


def test_a_failed_rewrite_is_numbered_as_in_the_trace(tmp_path: Path) -> None:
    """`rw [two_mul, add_zero_r, two_mul]` whose third rewrite fails was "step 1 (`rw
    [two_mul]`)" (the tactic's number), while the trace printed below numbers step 1 as the
    `two_mul` that worked.  Now the failing rewrite has the number it would have in the trace,
    and the label says which use of the name, in which tactic."""
    root = _write(tmp_path, {"t.lemma": LEMMAS + (
        "theorem a (x y : ℝ) : (x + x) + (y + 0) = 2 * x + y + 0 := "
        "by rw [two_mul, add_zero_r, two_mul]\n"
        "theorem b (x : ℝ) : f (x + x) = 2 * x + 1 := by unfold [f]; rw [two_mul, add_zero_r]\n"
        "theorem c (x : ℝ) : f (x + 0) = x + 1 := by norm; unfold [f]; rw [two_mul]\n"
        "theorem d (x : ℝ) : x + x = 2 * x := by rw [add_zero_r]\n")})
    vs = _verdicts(root, search_seconds=0)
    assert {k: vs[k].verdict for k in "abcd"} == dict.fromkeys("abcd", "unknown")
    assert vs["a"].reason.startswith(
        "step 3 (`rw [two_mul]`, the 2nd use of it in tactic 1 "
        "`rw [two_mul, add_zero_r, two_mul]`): "), vs["a"].reason
    assert [s.get("lemma") for s in vs["a"].trace] == ["two_mul", "add_zero_r"]
    assert vs["b"].reason.startswith(
        "step 3 (`rw [add_zero_r]`, tactic 2 `rw [two_mul, add_zero_r]`): "), vs["b"].reason
    assert [s["rule"] for s in vs["b"].trace] == ["unfold", "rw"]
    assert vs["c"].reason.startswith("step 2 (`rw [two_mul]`, tactic 3): "), vs["c"].reason
    assert vs["d"].reason.startswith("step 1 (`rw [add_zero_r]`): "), vs["d"].reason


def test_a_long_tactic_is_clipped_in_the_label(tmp_path: Path) -> None:
    """A net block's `rw [a, b, …]` of many names is shown clipped; the label still says which
    use of the name failed."""
    names = ", ".join(["two_mul"] * 20)
    root = _write(tmp_path, {"t.lemma": LEMMAS + (
        f"theorem a (x : ℝ) : (x + x) + x = 3 * x := by rw [{names}]\n")})
    reason = _verdicts(root, search_seconds=0)["a"].reason
    assert reason.startswith("step 2 (`rw [two_mul]`, the 2nd use of it in tactic 1 `rw [two_mul, "
                             ), reason
    label = reason.split("`):")[0]
    assert label.endswith(", …]") and len(label) < 200, reason


def test_a_refuted_theorem_says_where_its_proof_stopped(tmp_path: Path, capsys) -> None:
    """A false statement whose script broke was `refuted` with no word of the script: `explain`
    said "trace: 0 steps".  The refuted verdict keeps where it stopped (the `unknown` verdict's
    reason) and the steps before; a theorem whose script did not break (`by norm`, or a `rw`
    that worked before a `norm` that failed) has no such note."""
    import json

    from shardproof import cli
    root = _write(tmp_path, {"t.lemma": LEMMAS + (
        "theorem a (x y : ℝ) : (x + x) + (y + 0) = 2 * x + y + 1 := "
        "by rw [two_mul, add_zero_r, two_mul]\n"
        "theorem b (x : ℝ) : x + x = 3 * x := by norm\n"
        "theorem c (x : ℝ) : (x + x) + 1 = 3 * x := by rw [two_mul]; norm\n")})
    unknown = _verdicts(root, search_seconds=0)["a"]
    vs = _verdicts(root, search_seconds=2.0)
    assert {k: vs[k].verdict for k in "abc"} == dict.fromkeys("abc", "refuted")
    assert unknown.reason.startswith("step 3 (`rw [two_mul]`")
    assert vs["a"].stopped == unknown.reason
    assert [s.get("lemma") for s in vs["a"].trace] == ["two_mul", "add_zero_r"]
    assert vs["a"].to_json()["stopped"] == unknown.reason
    assert vs["b"].stopped is None and vs["c"].stopped is None
    assert "stopped" not in vs["b"].to_json() and not vs["b"].trace
    note = f"the proof stopped at {unknown.reason}"
    assert cli.main(["check", "--no-cache", "--no-times", str(root)]) == 1
    out = capsys.readouterr().out
    assert out.count("the proof stopped at") == 1 and note in out, out
    assert cli.main(["explain", "--no-cache", "--no-times", "a", str(root)]) == 1
    out = capsys.readouterr().out
    assert note in out and "trace:    2 steps (the engine's, before it stopped" in out, out
    assert cli.main(["check", "--no-cache", "--format", "json", str(root)]) == 1
    recs = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert recs["a"]["stopped"] == unknown.reason and "stopped" not in recs["c"]
    from shardproof.display import verdict_html
    from shardproof.report import _why
    assert "the proof stopped at step 3" in _why(vs["a"]) and "stopped" not in _why(vs["c"])
    assert "the proof stopped at step 3" in verdict_html(vs["a"])
    cache = tmp_path / "cache"          # (a cached verdict keeps it)
    for _ in range(2):
        again = _verdicts(root, cache_dir=str(cache))["a"]
    assert again.cached and again.stopped == unknown.reason


def test_the_note_of_where_a_proof_stopped_is_clipped(tmp_path: Path) -> None:
    """A term quoted in the note is cut at 160 characters, deterministically."""
    from shardproof.prove import _clip_terms
    long = " + ".join(f"x{i}" for i in range(100))
    text = f"step 1 (`rw [a]`): it matches `{long}`, but its hypothesis `h : 0 < R` fails"
    clipped = _clip_terms(text)
    assert clipped == f"step 1 (`rw [a]`): it matches `{long[:160]} …`, but its hypothesis " \
        "`h : 0 < R` fails"


HYP_LEMMAS = """\
def fam (R : Nat) (x : Fin R → Vec 2) (r : Fin R) : Vec 2 := x r + x r
def fam2 (R : Nat) (x : Fin R → Vec 2) (y : Vec 2) (r : Fin R) : Vec 2 := x r + x r
def sh (R : Nat) (y : Vec 2) (c : ℝ) (r : Fin R) : Vec 2 := c • y
theorem fam_tie (R : Nat) (x : Fin R → Vec 2) (y : Vec 2) (hx : ∀ r, x r = y) (r : Fin R) :
    fam R x r = 2 • y := by unfold [fam]; rw [hx]; norm
theorem fam_tie2 (R : Nat) (x : Fin R → Vec 2) (y : Vec 2) (hx : ∀ r, x r = 2 • y) (r : Fin R) :
    fam R x r = 4 • y := by unfold [fam]; rw [hx]; norm
theorem fam_sh (R : Nat) (x : Fin R → Vec 2) (y : Vec 2) (hx : ∀ r, x r = sh R y 1 r)
    (r : Fin R) : fam2 R x y r = 2 • y := by unfold [fam2, sh]; rw [hx]; norm
"""


def test_a_hypothesis_that_does_not_follow_says_what_is_wrong(tmp_path: Path) -> None:
    """A cited lemma's hypothesis the goal gives with its sides swapped, as an equality of
    functions, or with another term inside was "does not follow … (is one missing?)", its text
    cut at 120 characters.  Now the message says which goal hypothesis and what to write, or
    where the two differ (a variable of the lemma the goal was to give is `?y`); for a
    hypothesis no goal hypothesis resembles, where its two sides differ, in full up to 300
    characters.  Only the message: the verdicts are as before (`unknown`, and the true twins
    `proved`)."""
    head = "(R : Nat) (z : Fin R → Vec 2) (y : Vec 2) ({}) (r : Fin R) : fam R z r = {} := " \
        "by rw [{}]"
    big = "yAVectorWithAVeryLongNameIndeedSoThatTheHypothesisIsLongerThanBefore"
    cases = {
        "swapped": head.format("hz : ∀ r, y = z r", "2 • y", "fam_tie"),
        "funeq": head.format("hz : z = fun (q : Fin R) => y", "2 • y", "fam_tie"),
        "funeq_swapped": head.format("hz : (fun (q : Fin R) => y) = z", "2 • y", "fam_tie"),
        "other": head.format("hz : ∀ r, z r = y", "4 • y", "fam_tie2"),
        "good": head.format("hz : ∀ r, z r = y", "2 • y", "fam_tie"),
        "sides": "(R : Nat) (y : Vec 2) (r : Fin R) : fam2 R (fun (q : Fin R) => sh R y 2 q) y r "
                 "= 2 • y := by rw [fam_sh]",
        "sides_long": f"(R : Nat) ({big} : Vec 2) (r : Fin R) : fam2 R (fun (q : Fin R) => "
                      f"sh R {big} 2 q) {big} r = 2 • {big} := by rw [fam_sh]",
        "good_sides": "(R : Nat) (y : Vec 2) (r : Fin R) : fam2 R (fun (q : Fin R) => sh R y 1 q) "
                      "y r = 2 • y := by rw [fam_sh]",
    }
    root = _write(tmp_path, {"t.lemma": HYP_LEMMAS + "".join(
        f"theorem {k} {v}\n" for k, v in cases.items())})
    vs = _verdicts(root, search_seconds=0)
    assert {k: v.verdict for k, v in vs.items()} == {
        **dict.fromkeys(["fam_tie", "fam_tie2", "fam_sh", "good", "good_sides"], "proved"),
        **dict.fromkeys(["swapped", "funeq", "funeq_swapped", "other", "sides", "sides_long"],
                        "unknown")}
    miss = "its hypothesis `hx : ∀ (r : Fin R), z r = y` does not follow from the goal's " \
        "hypotheses: the goal's `hz` "
    assert vs["swapped"].reason.endswith(
        miss + "states it with the sides swapped; write `∀ (r : Fin R), z r = y`"), \
        vs["swapped"].reason
    assert vs["funeq"].reason.endswith(
        miss + "states it as an equality of functions; state it pointwise: "
        "`∀ (r : Fin R), z r = y`"), vs["funeq"].reason
    assert vs["funeq_swapped"].reason.endswith(
        miss + "states it as an equality of functions, with the sides swapped; state it "
        "pointwise: `∀ (r : Fin R), z r = y`"), vs["funeq_swapped"].reason
    assert vs["other"].reason.endswith(
        "its hypothesis `hx : ∀ (r : Fin R), z r = 2 • y` does not follow from the goal's "
        "hypotheses: the goal's `hz` has `y` where it needs `2 • ?y`"), vs["other"].reason
    assert vs["sides"].reason.endswith(
        "its hypothesis `hx : ∀ (r : Fin R), sh R y 2 r = sh R y 1 r` does not follow from "
        "the goal's hypotheses (is one missing? its two sides first differ at `2` against `1`)"), \
        vs["sides"].reason
    assert f"`hx : ∀ (r : Fin R), sh R {big} 2 r = sh R {big} 1 r` does not follow" \
        in vs["sides_long"].reason, vs["sides_long"].reason


def test_a_failed_rewrite_names_a_well_typed_match_first(tmp_path: Path) -> None:
    """Eightieth review: a pattern `xr r` (a family at an index) also matches `g n 2 (e r)` with
    `xr := g n 2` and `r := e r`, a vector for an index; that outer match came first and its
    miss was shown ("hypothesis `hx : ∀ r, g n 2 r = …` does not follow"), hiding the inner,
    well-typed one's (the goal's `he` reads replica 0).  The well-typed miss is shown now."""
    root = _write(tmp_path, {"t.lemma": """\
def g (n : Nat) (a : ℝ) (v : Vec n) : Vec n := fun (i : Fin n) => a * v i
theorem lift (R n : Nat) (a : ℝ) (xr Y : Fin R → Vec n) (hx : ∀ (r : Fin R), xr r = Y r)
    (r : Fin R) : g n a (xr r) = g n a (Y r) := by rw [hx]
theorem use (R n : Nat) (hR : 0 < R) (e Y : Fin R → Vec n) (he : ∀ (r : Fin R), e r = Y 0)
    (r : Fin R) :
    g n 1 (g n 2 (e r)) = g n 1 (g n 2 (Y r)) := by rw [lift, lift]
"""})
    vs = _verdicts(root, search_seconds=0)
    assert vs["lift"].verdict == "proved" and vs["use"].verdict == "unknown"
    reason = vs["use"].reason
    assert "it matches `g n 2 (e r)`" in reason and "g n 2 r" not in reason, reason


def test_a_family_reading_one_replica_is_named(tmp_path: Path) -> None:
    """Eighty-ninth review: a replica family that ignores its own index (`fun q => … X r`,
    every replica reading replica `r`) passed where a lemma needs `∀ r', xr r' = shard … r'`
    was blamed on a goal hypothesis of the same name, which was right.  The miss now says the
    instance's side does not depend on its own index but on the goal's `r`.  The statement is
    false (refuted with the search on); the same call with the family's own index is proved."""
    root = _write(tmp_path, {"t.lemma": """\
def avg (R n : Nat) (f : Fin R → Vec n) : Vec n := fun (i : Fin n) => (1 / R) * (∑ (q : Fin R), f q i)
theorem avg_shard (R N n : Nat) (xr : Fin R → Vec (N * n)) (X : Vec ((R * N) * n))
    (hx : ∀ (r : Fin R), xr r = shard R N n X r) :
    avg R (N * n) xr = avg R (N * n) (fun (q : Fin R) => shard R N n X q) := by norm
theorem use (R N n : Nat) (X : Vec ((R * N) * n)) (r : Fin R) :
    avg R (N * n) (fun (q : Fin R) => shard R N n X r)
      = fun (i : Fin (N * n)) => (1 / R) * (∑ (q : Fin R), shard R N n X q i) := by rw [avg_shard]
theorem use_ok (R N n : Nat) (X : Vec ((R * N) * n)) :
    avg R (N * n) (fun (q : Fin R) => shard R N n X q)
      = avg R (N * n) (fun (q : Fin R) => shard R N n X q) := by rw [avg_shard]
"""})
    vs = _verdicts(root, search_seconds=0)
    assert vs["use_ok"].verdict == "proved" and vs["use"].verdict == "unknown"
    assert "its left side does not depend on `r'` but on the goal's `r`" in vs["use"].reason, \
        vs["use"].reason
    assert _verdicts(root, search_seconds=2)["use"].verdict == "refuted"


def test_where_the_sides_differ_after_a_script_is_named(tmp_path: Path) -> None:
    """Eighty-ninth review: a block with two weight fields swapped on the replica side ran its
    whole script and then `norm` gave up on its budget, naming no place.  Once a script's steps
    have all run and the equation is not decided, the reason names where its two sides first
    differ, unfolding a definition met against something else (`twice n b` here, down to
    `b`).  A bare `norm` (no steps) keeps its reason as it was."""
    root = _write(tmp_path, {"t.lemma": """\
def dbl (n : Nat) (v : Vec n) : Vec n := 2 • v
def twice (n : Nat) (v : Vec n) : Vec n := dbl n v
theorem d1 (n : Nat) (a b : Vec n) : dbl n a = dbl n b := by unfold [dbl]; norm
theorem d2 (n : Nat) (a b : Vec n) : dbl n a = twice n b := by unfold [dbl]; norm
theorem d3 (n : Nat) (a b : Vec n) : dbl n a = twice n b := by norm
theorem d4 (n : Nat) (a : Vec n) : dbl n a = twice n a := by unfold [dbl]; norm
def S (n : Nat) (x : Vec n) : ℝ := ∑ (j : Fin n), x j
theorem d5 (n : Nat) (x : Fin n → Vec n) (j : Fin n) :
    S n (x j) = ∑ (k : Fin n), 2 * x j k := by unfold [S]; norm
"""})
    vs = _verdicts(root, search_seconds=0)
    assert {k: v.verdict for k, v in vs.items()} == {
        "d1": "unknown", "d2": "unknown", "d3": "unknown", "d4": "proved", "d5": "unknown"}
    for name in ("d1", "d2"):
        assert "after the script's steps the two sides first differ at `a` against `b`" in \
            vs[name].reason, vs[name].reason
    assert "first differ" not in vs["d3"].reason, vs["d3"].reason
    # Ninetieth review: inside binder forms the right side printed under the left side's binder
    # names, and the engine's renamed-apart `j~1` (here `S`'s `j` against the theorem's `j`):
    # the walk stops at binder forms, and a place with an engine's name is not shown.
    assert "~" not in vs["d5"].reason and "first differ" not in vs["d5"].reason, \
        vs["d5"].reason


def test_a_long_matched_term_is_cut_with_an_ellipsis(tmp_path: Path) -> None:
    """Review 91: "it matches `vsNetSyncTied … (smoothedLossCotGraph (R * N) K α (R`, but …"
    — the term cut at 80 characters without a mark, an unbalanced parenthesis.  Cut now as
    every other quoted term is, with ` …`."""
    xs = " ".join(f"x{i}" for i in range(30))
    total = " + ".join(f"x{i}" for i in range(30))
    root = _write(tmp_path, {"t.lemma": (
        "theorem pos_id (R : Nat) (hR : 0 < R) (x : ℝ) : R * x / R = x := by norm\n"
        f"theorem use (R : Nat) ({xs} : ℝ) : R * ({total}) / R = {total} := by rw [pos_id]\n")})
    reason = _verdicts(root, search_seconds=0.0)["use"].reason
    quoted = reason.split("it matches `", 1)[1].split("`", 1)[0]
    assert quoted.endswith(" …") and len(quoted) == 82, reason
