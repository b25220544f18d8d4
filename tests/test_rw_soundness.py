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
