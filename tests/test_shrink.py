"""A refutation shows the smallest sizes and the plainest data that still refute
(`shardproof.shrink`): the classic DDP bugs read like the Lean original's toy batch, every
shrunk counterexample is still one (recomputed here with numpy, independently of the
evaluator), hypotheses bound the shrinking, and it is deterministic and bounded."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from shardproof import shrink
from shardproof.check import Options, check_text

LEMMAS = Path(__file__).resolve().parents[1] / "lemmas"

DDP_NO_SYNC = """
import kit.defs

theorem ddp_noSync (R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ) (hε : 0 < ε)
      (γ β : Vec oc) (X : Vec ((R * N) * (oc * (h * w)))) (r : Fin R) :
    bnBatchTensor4 N oc h w ε γ β (shard R N (oc * (h * w)) X r)
      = shard R N (oc * (h * w)) (bnBatchTensor4 (R * N) oc h w ε γ β X) r := by norm
"""


def _num(x: object) -> Fraction:
    return Fraction(str(x))


def _exact(d: dict) -> dict:
    """An assignment's values as Fractions (the JSON writes exact numbers as strings)."""
    return {k: [_num(x) for x in v] if isinstance(v, list) else _num(v) for k, v in d.items()}


def _cex(text: str, name: str, root: Path | None = None, **opts: object) -> dict:
    vs = {v.name: v for v in check_text(text, root=str(root or LEMMAS),
                                        options=Options(**opts))}
    v = vs[name]
    assert v.verdict == "refuted", (v.verdict, v.reason)
    return v.counterexample


def _bn_rows(x: np.ndarray, n: int, eps: float, g: float, b: float) -> np.ndarray:
    """BatchNorm of one channel over ``n`` examples of one cell, in numpy."""
    mu = x.mean()
    return g * (x - mu) / np.sqrt(((x - mu) ** 2).mean() + eps) + b


def test_ddp_without_sync_bn_shrinks_to_the_toy_batch() -> None:
    """The search first refutes at R = N = 2 with drawn halves; the shrunk counterexample is
    the Lean original's toy batch: two replicas of one example, X = [0, 1], γ = 1, β = 0,
    ε = 1.  Recomputed here: replica 0's own BatchNorm of [0] is β = 0; the global one's
    first entry is −1/√5."""
    cex = _cex(DDP_NO_SYNC, "ddp_noSync")
    a = cex["assignment"]
    assert a["sizes"] == {"R": 2, "N": 1, "oc": 1, "h": 1, "w": 1}, a
    assert _exact(a["reals"]) == {"ε": 1} and a["indices"] == {"r": 0}, a
    assert _exact(a["tensors"]) == {"γ": [1], "β": [0], "X": [0, 1]}, a
    X = np.array([0.0, 1.0])
    own = _bn_rows(X[:1], 1, 1.0, 1.0, 0.0)
    glob = _bn_rows(X, 2, 1.0, 1.0, 0.0)[:1]
    assert own[0] == 0 and abs(glob[0] + 1 / np.sqrt(5)) < 1e-12 and own[0] != glob[0]
    assert [_num(x) for x in cex["lhs"]] == [0], cex["lhs"]
    assert abs(float(cex["rhs_approx"][0]) - glob[0]) < 1e-6, cex


def test_a_summed_gradient_is_shown_on_one_replica() -> None:
    """Summing instead of averaging fails even on one replica: R shrinks to 1 (never to 0),
    N stays 2 (at N = 1 the sum is the mean) and X = [0, 1]: sum 1 against mean 1/2."""
    text = """
def mean (N : Nat) (xs : Vec N) : ℝ := (∑ (n : Fin N), xs n) / N

theorem grad_summed (R N : Nat) (hR : 0 < R) (hN : 0 < N) (X : Vec ((R * N) * 1)) :
    allReduceMean R (fun (r : Fin R) => (fun (i : Fin 1) => ∑ (n : Fin (N * 1)), shard R N 1 X r n))
      = (fun (i : Fin 1) => mean ((R * N) * 1) X) := by norm
"""
    cex = _cex(text, "grad_summed")
    a = cex["assignment"]
    assert a["sizes"] == {"R": 1, "N": 2} and _exact(a["tensors"]) == {"X": [0, 1]}, a
    X = np.array([0.0, 1.0])
    assert X.sum() == 1 and X.mean() == 0.5
    assert [_num(x) for x in cex["lhs"]] == [1] and [_num(x) for x in cex["rhs"]] == \
        [Fraction(1, 2)], cex


def test_hypotheses_bound_the_shrinking(tmp_path: Path) -> None:
    """A size hypothesis keeps N at 3; a positivity hypothesis keeps ε at 1 (not 0); one the
    plan does not read as positivity (`1 < δ`) keeps δ at 2; a vector is made plain entry by
    entry (all zero would make the statement hold)."""
    (tmp_path / ".lemmaroot").write_text("")
    text = """
theorem sum_zero (N : Nat) (hN : 3 ≤ N) (x : Vec N) : (∑ (i : Fin N), x i) = 0 := by norm
theorem eps_two (ε : ℝ) (hε : 0 < ε) : ε = 2 := by norm
theorem delta_three (δ : ℝ) (hδ : 1 < δ) : δ = 3 := by norm
"""
    vs = {v.name: v for v in check_text(text, root=str(tmp_path), options=Options())}
    assert all(v.verdict == "refuted" for v in vs.values()), vs
    a = vs["sum_zero"].counterexample["assignment"]
    assert a["sizes"] == {"N": 3} and _exact(a["tensors"]) == {"x": [0, 0, 1]}, a
    assert _exact(vs["eps_two"].counterexample["assignment"]["reals"]) == {"ε": 1}
    assert _exact(vs["delta_three"].counterexample["assignment"]["reals"]) == {"δ": 2}


def test_shrinking_only_narrows_what_the_search_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its share of the budget the shrinker returns the search's own counterexample:
    larger sizes and drawn data.  With it, no size grows and the data has no more entries —
    and the verdict is the same."""
    monkeypatch.setattr(shrink, "SHRINK_SHARE", 0.0)
    raw = _cex(DDP_NO_SYNC, "ddp_noSync")["assignment"]
    monkeypatch.undo()
    small = _cex(DDP_NO_SYNC, "ddp_noSync")["assignment"]
    assert raw["sizes"]["N"] == 2 and _exact(raw["tensors"])["X"] != [0, 1], raw   # (as found)
    assert all(small["sizes"][k] <= v for k, v in raw["sizes"].items())
    assert all(small["sizes"][k] > 0 for k in small["sizes"])
    assert sum(map(len, small["tensors"].values())) < sum(map(len, raw["tensors"].values()))


def test_shrinking_is_deterministic_and_follows_the_seed() -> None:
    one = _cex(DDP_NO_SYNC, "ddp_noSync")
    two = _cex(DDP_NO_SYNC, "ddp_noSync")
    assert one == two
    other = _cex(DDP_NO_SYNC, "ddp_noSync", seed=5)
    assert other["assignment"]["sizes"]["N"] == 1        # (another seed, the same small sizes)


@pytest.mark.parametrize("cut", [1, 2, 5, 9, 14, 20])
def test_a_spent_share_keeps_a_confirmed_counterexample(
        monkeypatch: pytest.MonkeyPatch, cut: int) -> None:
    """A share that runs out part-way (at the ``cut``-th float evaluation: during the sizes or
    the data) still yields a counterexample confirmed in exact arithmetic — what the phase
    reached, confirmed, or the last confirmed one — recomputed here in numpy."""
    calls = {"n": 0}
    real = shrink._Shrinker._spend

    def counted(self, run):
        calls["n"] += 1
        if calls["n"] > cut:
            raise shrink._Spent
        return real(self, run)
    monkeypatch.setattr(shrink._Shrinker, "_spend", counted)
    cex = _cex(DDP_NO_SYNC, "ddp_noSync")
    assert calls["n"] == cut + 1
    a = cex["assignment"]
    R, N = a["sizes"]["R"], a["sizes"]["N"]
    assert a["sizes"]["oc"] == a["sizes"]["h"] == a["sizes"]["w"] == 1, a
    X = np.array([float(x) for x in _exact(a["tensors"])["X"]])
    assert X.size == R * N
    eps = float(_num(a["reals"]["ε"]))
    g, b = (float(_exact(a["tensors"])[k][0]) for k in ("γ", "β"))
    r = a["indices"]["r"]
    own = _bn_rows(X[r * N:(r + 1) * N], N, eps, g, b)
    glob = _bn_rows(X, R * N, eps, g, b)[r * N:(r + 1) * N]
    assert not np.allclose(own, glob), (own, glob)


def test_no_step_rests_on_a_division_by_zero() -> None:
    """Review 92: without `0 < ε`, BatchNorm of one example at ε = 0 is 0/0, which Lean reads as
    0 — a counterexample an engineer would dismiss, to a bug that is there at every ε > 0.  The
    shrinking takes no step whose evaluation divides by 0 (or takes the root of a negative)
    unless the search's own counterexample did: ε stays at 1 (and N at 1, since ε ≠ 0)."""
    text = DDP_NO_SYNC.replace(" (hε : 0 < ε)", "")
    a = _cex(text, "ddp_noSync")["assignment"]
    assert _exact(a["reals"]) == {"ε": 1} and a["sizes"]["N"] == 1, a
    # where the bug IS a division by zero, the shrunk counterexample may keep it: R = 0
    text = "theorem inv_mul_R (R : Nat) (v : ℝ) : 1 / R * (R * v) = v := by norm\n"
    cex = _cex(text, "inv_mul_R", root=_bare_root())
    assert cex["assignment"]["sizes"] == {"R": 0} and _exact(cex["assignment"]["reals"]) == \
        {"v": 1}, cex


def _bare_root() -> Path:
    import tempfile
    root = Path(tempfile.mkdtemp(prefix="shrink-root-"))
    (root / ".lemmaroot").write_text("")
    return root


def test_a_witness_the_kernel_refuses_shrunk_is_taken_as_found() -> None:
    """Review 92: `∃ x, √(x·x + 11/4) ≠ 0` was proved by the searched witness x = 5/2 (√9 = 3,
    which the kernel compares exactly); shrunk to x = 0 the kernel refuses √(11/4), and the
    verdict became `unknown`.  The witness as the search found it is replayed then."""
    text = "theorem b1 : ∃ (x : ℝ), sqrt (x * x + 11 / 4) ≠ 0 := by witness\n"
    v = check_text(text, root=str(_bare_root()), options=Options())[0]
    assert v.verdict == "proved" and v.replayed is True, (v.verdict, v.reason)
    x = _num(v.counterexample["assignment"]["reals"]["x"])
    q = x * x + Fraction(11, 4)                     # a rational square: √q is rational
    assert x != 0 and all(math.isqrt(n) ** 2 == n for n in (q.numerator, q.denominator)), x


class _LateClock:
    @staticmethod
    def monotonic() -> float:
        return float("inf")


def test_a_shrinking_cut_by_the_clock_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 92: the shrinking stopped on the search's wall-clock safety net without a word,
    and the (then machine-dependent) counterexample was cached.  It is the search's own,
    confirmed, and the reason carries the clock note (which keeps it out of the cache)."""
    from shardproof.semantics import CLOCK_NOTE
    monkeypatch.setattr(shrink, "time", _LateClock)
    vs = check_text(DDP_NO_SYNC, root=str(LEMMAS), options=Options())
    v = {x.name: x for x in vs}["ddp_noSync"]
    assert v.verdict == "refuted" and CLOCK_NOTE in v.reason, v.reason
    assert v.counterexample["assignment"]["sizes"]["N"] == 2       # (not shrunk)
    from shardproof.check import _clock_stopped
    assert _clock_stopped(v)


def test_at_most_two_exact_confirmations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shrinking's exact work is bounded: two confirmations (after the sizes, after the
    data), each within twice the work of the search's own."""
    seen = []
    real = shrink._Shrinker._exact

    def spy(self, base):
        seen.append(self.exact_allowance)
        return real(self, base)
    monkeypatch.setattr(shrink._Shrinker, "_exact", spy)
    _cex(DDP_NO_SYNC, "ddp_noSync")
    assert 1 <= len(seen) <= shrink.EXACT_CONFIRMATIONS == 2, seen


def test_a_witness_shrinking_cut_by_the_clock_is_said_and_not_cached(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ninety-third review: a searched `∃` witness whose shrinking the clock cut was `proved`
    with no word and cached, so a slow machine's witness (x = 5/2) was served where a fresh
    run shows x = 0.  The verdict now carries the clock note and is checked afresh."""
    from shardproof.check import check_paths
    from shardproof.semantics import CLOCK_NOTE
    root = _bare_root()
    (root / "w.lemma").write_text("theorem wx : ∃ (x y : ℝ), x * y ≠ y + 1\n")
    cache = str(tmp_path / "cache")
    monkeypatch.setattr(shrink, "time", _LateClock)
    slow = check_paths([root], Options(cache_dir=cache)).verdicts[0]
    assert slow.verdict == "proved" and slow.replayed and CLOCK_NOTE in (slow.reason or "")
    monkeypatch.undo()
    fast = check_paths([root], Options(cache_dir=cache)).verdicts[0]
    assert fast.verdict == "proved" and not fast.cached and not fast.reason, fast
    assert _exact(fast.counterexample["assignment"]["reals"]) == {"x": 0, "y": 0}


def test_no_step_rests_on_a_division_by_an_exact_zero() -> None:
    """Ninety-third review: √2·√2 − 2 is 4.4e-16 in float but 0 exactly, so shrinking y to 2
    gave `x / 0 = 0` a role the float check never saw (lhs 0 against rhs 1).  The phase's exact
    confirmation counts it too: the counterexample keeps y = 3 (lhs 1 against rhs 3)."""
    text = ("theorem dg (y : ℝ) (hy : 0 < y) (x : ℝ) : (x / (sqrt y * sqrt y - 2)) * (y - 2) "
            "= x + (y - 1) * (y - 2) := by norm\n")
    a = _cex(text, "dg", root=_bare_root())["assignment"]
    y, x = (_num(a["reals"][k]) for k in ("y", "x"))
    assert y * y != 4 and y > 0, a                  # √y·√y − 2 ≠ 0: no division by zero
    lhs = (x / (y - 2)) * (y - 2)
    assert lhs == x != x + (y - 1) * (y - 2), a


def test_one_division_by_zero_is_no_licence_for_another() -> None:
    """Ninety-third review: a search's own counterexample that divides by 0 anywhere (here
    `1 / (x − x)`, which every assignment does) let the shrinking divide by 0 where it matters
    too: `x·y / y` at y = 0 is 0 only by Lean's convention.  A step may divide by 0 as often as
    the search's own counterexample did, not more: y stays 1.  Where the bug needs it (z = 1 in
    `(z − 1) / (z − 1)`) the search's own counterexample already does, and so does the shrunk."""
    root = _bare_root()
    text = ("theorem t (x y : ℝ) : 1 / (x - x) + x * y / y = x + 1 := by norm\n"
            "theorem u (x z : ℝ) : 1 / (x - x) + (z - 1) / (z - 1) = 1 := by norm\n")
    vs = {v.name: v for v in check_text(text, root=str(root), options=Options())}
    t = _exact(vs["t"].counterexample["assignment"]["reals"])
    assert t["y"] != 0 and t == {"x": 0, "y": 1}, t
    assert t["x"] * t["y"] / t["y"] != t["x"] + 1          # fails without any 0/0
    u = _exact(vs["u"].counterexample["assignment"]["reals"])
    assert u["z"] == 1, u


def test_a_smaller_size_keeps_the_data_that_fails() -> None:
    """Review 92: `relu6 n x = relu n x` fails only where an entry is past 6, which a fresh draw
    at a smaller size seldom gives: the counterexample kept n = 2, x = [0, 13/2].  A smaller size
    tries the current data cut to it first (its first entries, then its last): n = 1."""
    text = "theorem r6 (n : Nat) (x : Vec n) : relu6 n x = relu n x := by norm\n"
    a = _cex(text, "r6", root=_bare_root())["assignment"]
    assert a["sizes"] == {"n": 1}, a
    (x,) = _exact(a["tensors"])["x"]
    assert x > 6 and min(max(x, 0), 6) != max(x, 0), a          # relu6 x ≠ relu x


def test_a_conjunction_names_its_failing_part() -> None:
    """A counterexample to `A ∧ B` names the part that fails at the values shown (shrinking
    may make another part fail than the one the search first found: the summary names the
    one that fails at the reported point, as `sides` and the printed Python compute it)."""
    text = """
theorem conj_second (n : Nat) (x : Vec n) :
    (fun (i : Fin n) => 2 * x i) = (fun (i : Fin n) => x i + x i) ∧ relu6 n x = relu n x := by norm
theorem conj_nested (n : Nat) (x : Vec n) (a : ℝ) :
    a + a = 2 * a ∧ (a * a = a * a ∧ relu6 n x = relu n x) := by norm
"""
    for name in ("conj_second", "conj_nested"):
        msg = _cex(text, name)["message"]
        assert "in the part `relu6 n x = relu n x`: at index 0:" in msg, msg
        assert msg.count("in the part") == 1, msg
