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
