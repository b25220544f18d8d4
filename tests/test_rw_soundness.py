"""`rw` must not instantiate an index beyond the range its rule was stated for."""

from pathlib import Path

from shardproof.check import Options, check_text

CASES = {
    # a hypothesis about the first replica only cannot rewrite replica r
    "partial_hyp": ("theorem k1 (R n : Nat) (hR : 0 < R) (e : Fin R → Vec n) (X : Vec n) "
                    "(he : ∀ (r : Fin 1), e r = X) (r : Fin R) : e r = X := by rw [he]", False),
    "full_hyp": ("theorem k2 (R n : Nat) (hR : 0 < R) (e : Fin R → Vec n) (X : Vec n) "
                 "(he : ∀ (r : Fin R), e r = X) (r : Fin R) : e r = X := by rw [he]", True),
    # a lemma stated for indices below 1 cannot rewrite an index below R
    "partial_lemma": ("theorem l0 (R n : Nat) (e : Fin (R + 1) → Vec n) (X : Vec n) "
                      "(he : ∀ (q : Fin (R + 1)), e q = X) (r : Fin 1) : e r = X := by rw [he]\n"
                      "theorem l1 (R n : Nat) (e : Fin (R + 1) → Vec n) (X : Vec n) "
                      "(he : ∀ (q : Fin (R + 1)), e q = X) (r : Fin (R + 1)) : e r = X "
                      ":= by rw [l0]", False),
}


def test_rw_respects_index_ranges(tmp_path: Path):
    (tmp_path / ".lemmaroot").write_text("")
    for name, (text, want) in CASES.items():
        vs = check_text(text + "\n", root=str(tmp_path), options=Options(search_seconds=0.3))
        last = vs[-1]
        assert (last.verdict == "proved") == want, (name, last.verdict, last.reason)


# --------------------------------------------------------------------------- untyped first
# With replay on, the engine first takes each `rw`'s first match without testing its instance's
# types (the kernel tests them when it replays); where that proof does not replay, or the
# engine stops or fails, the typed attempt decides, as it always did.

LIFT = """\
def g (n : Nat) (a : ℝ) (v : Vec n) : Vec n := fun (i : Fin n) => a * v i
theorem lift (R n : Nat) (a : ℝ) (xr Y : Fin R → Vec n) (hx : ∀ (r : Fin R), xr r = Y r)
    (r : Fin R) : g n a (xr r) = g n a (Y r) := by rw [hx]
"""


def _spy(monkeypatch, refuse_untyped: bool = False, raise_untyped: bool = False):
    from shardproof import prove
    calls: list[str] = []
    untyped_traces: list = []          # (the traces themselves: an id may be reused)
    attempt, replay = prove.attempt, prove.replay_in_kernel

    def spy_attempt(*a, untyped=False, **k):
        calls.append("untyped" if untyped else "typed")
        if untyped and raise_untyped:
            raise AttributeError("an ill-typed instance reached code that assumes types")
        at = attempt(*a, untyped=untyped, **k)
        if untyped:
            untyped_traces.append(at.ktrace)
        return at

    def spy_replay(g, genv, ktrace, checker):
        calls.append("replay")
        if refuse_untyped and any(ktrace is t for t in untyped_traces):
            return "refused for the test", []
        return replay(g, genv, ktrace, checker)
    monkeypatch.setattr(prove, "attempt", spy_attempt)
    monkeypatch.setattr(prove, "replay_in_kernel", spy_replay)
    return calls


def _lift(tmp_path: Path, replay: bool = True):
    (tmp_path / ".lemmaroot").write_text("")
    vs = check_text(LIFT, root=str(tmp_path), options=Options(search_seconds=0.0, replay=replay))
    return {v.name: v for v in vs}["lift"]


def test_a_replayed_untyped_proof_is_the_proof(tmp_path: Path, monkeypatch) -> None:
    calls = _spy(monkeypatch)
    v = _lift(tmp_path)
    assert v.verdict == "proved" and v.replayed, v.reason
    assert calls == ["untyped", "replay"], calls


def test_an_untyped_proof_the_kernel_refuses_gives_way_to_the_typed_attempt(
        tmp_path: Path, monkeypatch) -> None:
    calls = _spy(monkeypatch, refuse_untyped=True)
    v = _lift(tmp_path)
    assert v.verdict == "proved" and v.replayed, v.reason
    assert calls == ["untyped", "replay", "typed", "replay"], calls


def test_an_untyped_attempt_that_fails_gives_way_to_the_typed_attempt(
        tmp_path: Path, monkeypatch) -> None:
    calls = _spy(monkeypatch, raise_untyped=True)
    v = _lift(tmp_path)
    assert v.verdict == "proved" and v.replayed, v.reason
    assert calls == ["untyped", "typed", "replay"], calls


def test_without_replay_every_rw_instance_is_typed(tmp_path: Path, monkeypatch) -> None:
    calls = _spy(monkeypatch)
    v = _lift(tmp_path, replay=False)
    assert v.verdict == "proved" and not v.replayed, v.reason
    assert calls == ["typed"], calls
