"""A micro-suite of identities the engine MUST prove and statements it must NOT prove.

Each entry is one `.lemma` theorem (prelude vocabulary only), written into its own file under a
temporary lemma root and run through ``prove.attempt`` (the engine, no counterexample search).
The must-fail entries are false: where the statement is false at some sizes ≥ 1 (``refute``),
the counterexample search of ``shardproof.semantics`` must also find an exact counterexample, so
that "not proved" is "refuted", not merely "unknown".  Must-prove entries are additionally
evaluated numerically at one random instance (R, N ≥ 2) so a wrong corpus cannot hide here.

Other test files import :data:`PROVE`, :data:`FAIL` and :func:`load_corpus`.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pytest

from shardproof.errors import ShardproofError
from shardproof.library import Library
from shardproof.prove import attempt

HAS_SEMANTICS = importlib.util.find_spec("shardproof.semantics") is not None
needs_semantics = pytest.mark.skipif(not HAS_SEMANTICS, reason="shardproof.semantics (the "
                                     "numeric evaluator) is not available yet")

SHARD_I = """def shardI (R N a : Nat) (X : Vec ((R * N) * a)) (r : Fin R) : Vec (N * a) :=
  fun (n : Fin N) (j : Fin a) => X[r + n * R, j]
"""
NAIVE = """def syncStatsNaive (R N C S : Nat) (x : Fin R → Vec (N * (C * S))) : Vec (2 * C) :=
  bnPackB C (allReduceMean R (fun (r : Fin R) => bnBatchMeanB N C S (x r)))
    (allReduceMean R (fun (r : Fin R) => fun (c : Fin C) => bnVar N C S (x r) c))
"""
BN_BINDERS = """(R N oc h w : Nat) (hR : 0 < R) (hm : N * (h * w) ≠ 0) (ε : ℝ) (γ β : Vec oc)
    (x : Fin R → Vec (N * (oc * (h * w)))) (X : Vec ((R * N) * (oc * (h * w))))
    (hx : ∀ r, x r = shard R N (oc * (h * w)) X r) (r : Fin R)"""
STAT_BINDERS = """(R N C S : Nat) (hR : 0 < R) (hm : N * S ≠ 0) (x : Fin R → Vec (N * (C * S)))
    (X : Vec ((R * N) * (C * S))) (hx : ∀ r, x r = shard R N (C * S) X r)"""
TWO_FAMILIES = """(R N n : Nat) (a b : Fin R → Vec (N * n)) (A B : Vec ((R * N) * n))
    (ha : ∀ r, a r = shard R N n A r) (hb : ∀ r, b r = shard R N n B r) (r : Fin R)"""
VAR_MU = "((∑ (k : Fin M), x k) / M)"

# ------------------------------------------------------------------ identities that MUST be proved
PROVE: dict[str, str] = {
    "alpha_sum": "theorem alpha_sum (N : Nat) (X : Vec N) :"
                 " (∑ (i : Fin N), X i) = (∑ (j : Fin N), X j)",
    "fubini": "theorem fubini (A B : Nat) (X : Vec (A * B)) :"
              " (∑ (i : Fin A) (j : Fin B), X[i, j]) = (∑ (j : Fin B) (i : Fin A), X[i, j])",
    "fubini_nested": "theorem fubini_nested (A B : Nat) (X : Vec A) (Y : Vec B) :"
                     " (∑ (i : Fin A), (∑ (j : Fin B), X i * Y j))"
                     " = (∑ (j : Fin B), Y j) * (∑ (i : Fin A), X i)",
    # (a binder may not shadow `i` in a statement; unfolding `sumOf` puts its own `i` under
    #  the theorem's `i`, the capture the engine must avoid)
    "capture": "def sumOf (N : Nat) (Y : Vec N) : ℝ := ∑ (i : Fin N), Y i\n"
               "theorem capture (N : Nat) (X Y : Vec N) (i : Fin N) :"
               " X i * sumOf N Y = (∑ (j : Fin N), X i * Y j)",
    "merge3": "theorem merge3 (R N a : Nat) (X : Vec (R * N * a)) :"
              " (∑ (r : Fin R) (n : Fin N) (j : Fin a), X ((r * N + n) * a + j))"
              " = (∑ (m : Fin (R * N * a)), X m)",
    "merge3_nested": "theorem merge3_nested (R N a : Nat) (X : Vec (R * N * a)) :"
                     " (∑ (r : Fin R), (∑ (n : Fin N), (∑ (j : Fin a), X[r * N + n, j])))"
                     " = (∑ (m : Fin (R * N * a)), X m)",
    "merge_comm": "theorem merge_comm (R N : Nat) (X : Vec (R * N)) :"
                  " (∑ (r : Fin R) (n : Fin N), X (n + N * r)) = (∑ (m : Fin (R * N)), X m)",
    "merge_offset": "theorem merge_offset (R N : Nat) (X : Vec (R * N + 1)) :"
                    " (∑ (r : Fin R) (n : Fin N), X (r * N + n + 1))"
                    " = (∑ (m : Fin (R * N)), X (m + 1))",
    "merge_fubini_mixed": "theorem merge_fubini_mixed (R N : Nat) (X : Vec (R * N)) (Y : Vec N) :"
                          " (∑ (r : Fin R) (n : Fin N), X (r * N + n) * Y n)"
                          " = (∑ (n : Fin N) (r : Fin R), Y n * X (n + N * r))",
    "variance": "theorem variance (M : Nat) (hM : 0 < M) (x : Vec M) :"
                f" 1 / M * (∑ (i : Fin M), (x i - {VAR_MU}) ^ 2)"
                f" = 1 / M * (∑ (i : Fin M), x i ^ 2) - {VAR_MU} ^ 2",
    "sqrt_congr": "theorem sqrt_congr (N : Nat) (X : Vec N) :"
                  " sqrt (∑ (i : Fin N), X i * X i) = sqrt (∑ (j : Fin N), X j ^ 2)",
    "square_sum": "theorem square_sum (N : Nat) (X : Vec N) :"
                  " (∑ (i : Fin N), X i) ^ 2 = (∑ (a : Fin N) (b : Fin N), X a * X b)",
    "sum_split": "theorem sum_split (N : Nat) (X Y : Vec N) :"
                 " (∑ (i : Fin N), (X i + Y i)) = (∑ (i : Fin N), X i) + (∑ (j : Fin N), Y j)",
    "sum_const": "theorem sum_const (N : Nat) (v : ℝ) : (∑ (i : Fin N), v) = N * v",
    "sum_pull": "theorem sum_pull (N : Nat) (v : ℝ) (X : Vec N) :"
                " (∑ (i : Fin N), v * X i) = v * (∑ (i : Fin N), X i)",
    "sum_unit": "theorem sum_unit (X : Vec 1) : (∑ (i : Fin 1), X i) = X 0",
    "inv_mul_R": "theorem inv_mul_R (R : Nat) (hR : 0 < R) (v : ℝ) : 1 / R * (R * v) = v",
    "chan_var": f"theorem chan_var {STAT_BINDERS} (c : Fin C) :"
                " allReduceMean R (fun (r : Fin R) => bnBatchVarAtB N C S (x r)"
                " (allReduceMean R (fun (r' : Fin R) => bnBatchMeanB N C S (x r')))) c"
                " = bnVar (R * N) C S X c",
    "mean_of_means": f"theorem mean_of_means {STAT_BINDERS} :"
                     " allReduceMean R (fun (r : Fin R) => bnBatchMeanB N C S (x r))"
                     " = bnBatchMeanB (R * N) C S X",
    "syncStatsMeanSq_var": f"theorem syncStatsMeanSq_var {STAT_BINDERS} (c : Fin C) :"
                           " syncStatsMeanSq R N C S x (1 * C + c) = bnVar (R * N) C S X c",
    "bnSyncF_meanSq_shard": f"theorem bnSyncF_meanSq_shard {BN_BINDERS} :"
                            " bnSyncF N oc (h * w) ε γ β (x r) (syncStatsMeanSq R N oc (h * w) x)"
                            " = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r",
    "bnSyncF_shard": f"theorem bnSyncF_shard {BN_BINDERS} :"
                     " bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)"
                     " = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r",
    "relu_shard": "theorem relu_shard (R N n : Nat) (e : Fin R → Vec (N * n)) (X : Vec ((R * N) * n))"
                  " (he : ∀ r, e r = shard R N n X r) (r : Fin R) :"
                  " batchMap N (relu n) (e r) = shard R N n (relu ((R * N) * n) X) r",
    "interleaved_consistent": SHARD_I +
        "theorem interleaved_consistent (R N n : Nat) (e : Fin R → Vec (N * n))"
        " (X : Vec ((R * N) * n)) (he : ∀ r, e r = shardI R N n X r) (r : Fin R) :"
        " batchMap N (relu n) (e r) = shardI R N n (relu ((R * N) * n) X) r",
    "interleaved_wgrad": SHARD_I +
        "theorem interleaved_wgrad (R N a c : Nat) (hR : 0 < R) (X : Vec ((R * N) * a))"
        " (DY : Vec ((R * N) * c)) : allReduceMean R (fun (r : Fin R) =>"
        " denseWeightGradB N a c (shardI R N a X r) (shardI R N c DY r))"
        " = (1 / R : ℝ) • denseWeightGradB (R * N) a c X DY",
    "add_shard": f"theorem add_shard {TWO_FAMILIES} : addVB (a r) (b r) = shard R N n (B + A) r",
    "sub_shard": f"theorem sub_shard {TWO_FAMILIES} : subB (a r) (b r) = shard R N n (A - B) r",
    "divconst_scale": "theorem divconst_scale (n : Nat) (α B : ℝ) (x : Vec n) :"
                      " divConstB B (scaleB α x) = scaleB (α / B) x",
    "dense_back_shard": "theorem dense_back_shard (R N a c : Nat) (W : Vec (a * c))"
                        " (DY : Vec ((R * N) * c)) (r : Fin R) :"
                        " rowDenseBackFlat N a c W (shard R N c DY r)"
                        " = shard R N a (rowDenseBackFlat (R * N) a c W DY) r",
    "dense_wgrad_sync": "theorem dense_wgrad_sync (R N a c : Nat) (hR : 0 < R) (X : Vec ((R * N) * a))"
                        " (DY : Vec ((R * N) * c)) : allReduceMean R (fun (r : Fin R) =>"
                        " denseWeightGradB N a c (shard R N a X r) (shard R N c DY r))"
                        " = (1 / R : ℝ) • denseWeightGradB (R * N) a c X DY",
    "gap_smul": "theorem gap_smul (c h w : Nat) (s : ℝ) (x : Vec (c * (h * w))) :"
                " gap c h w (s • x) = s • gap c h w x",
    "convIn_smul": "theorem convIn_smul (ic oc h w kH kW : Nat) (W : Vec (oc * ic * kH * kW)) (s : ℝ)"
                   " (dy : Vec (oc * (h * w))) :"
                   " convIn ic oc h w kH kW W (s • dy) = s • convIn ic oc h w kH kW W dy",
    "convIn_add": "theorem convIn_add (ic oc h w kH kW : Nat) (W : Vec (oc * ic * kH * kW))"
                  " (a b : Vec (oc * (h * w))) : convIn ic oc h w kH kW W (a + b)"
                  " = convIn ic oc h w kH kW W a + convIn ic oc h w kH kW W b",
    "maxpool_back_smul": "theorem maxpool_back_smul (c h w : Nat) (x : Vec (c * ((2 * h) * (2 * w))))"
                         " (s : ℝ) (dy : Vec (c * (h * w))) :"
                         " maxPool3s2Back c h w x (s • dy) = s • maxPool3s2Back c h w x dy",
    "conv_shard": "theorem conv_shard (R N ic oc h w kH kW : Nat) (W : Vec (oc * ic * kH * kW))"
                  " (b : Vec oc) (X : Vec ((R * N) * (ic * (h * w)))) (r : Fin R) :"
                  " batchMap N (conv ic oc h w kH kW W b) (shard R N (ic * (h * w)) X r)"
                  " = shard R N (oc * (h * w)) (batchMap (R * N) (conv ic oc h w kH kW W b) X) r",
    "dw_wgrad_sync": "theorem dw_wgrad_sync (R N c h w kH kW : Nat) (hR : 0 < R) (b : Vec c)"
                     " (W : Vec (c * kH * kW)) (X : Vec ((R * N) * (c * (h * w))))"
                     " (DY : Vec ((R * N) * (c * (h * w)))) : allReduceMean R (fun (r : Fin R) =>"
                     " depthwiseWeightGradB N c h w kH kW b (shard R N (c * (h * w)) X r) W"
                     " (shard R N (c * (h * w)) DY r))"
                     " = (1 / R : ℝ) • depthwiseWeightGradB (R * N) c h w kH kW b X W DY",
    "relu6_mask_homog": "theorem relu6_mask_homog (n : Nat) (pre : Vec n) (s : ℝ) (dy : Vec n) :"
                        " relu6MaskB n pre (s • dy) = s • relu6MaskB n pre dy",
    "relu_mask_idem": "theorem relu_mask_idem (n : Nat) (pre dy : Vec n) :"
                      " reluMaskB n pre (reluMaskB n pre dy) = reluMaskB n pre dy",
    "swish_shard": "theorem swish_shard (R N n : Nat) (X : Vec ((R * N) * n)) (r : Fin R) :"
                   " batchMap N (swish n) (shard R N n X r) = shard R N n (swish ((R * N) * n) X) r",
    "reassoc_roundtrip": "theorem reassoc_roundtrip (N oc h w : Nat) (v : Vec (N * (oc * h * w))) :"
                         " unassocB N oc h w (reassocB N oc h w v) = v",
    "row_roundtrip": "theorem row_roundtrip (N K : Nat) (v : Vec (N * K)) :"
                     " unrowB N K (rowB N K v) = v",
}

# -------------------------------------------------------- statements that must NOT be proved
# name -> (text, refute): refute = the statement is false at some sizes ≥ 1, so the search must
# find an exact counterexample (False: false only at a size 0, or not searchable).
FAIL: dict[str, tuple[str, bool]] = {
    "f_merge_RR": ("theorem f_merge_RR (R N : Nat) (X : Vec (R * R * N)) :"
                   " (∑ (r : Fin R) (n : Fin N), X (r * R + n)) = (∑ (m : Fin (R * N)), X m)", True),
    "f_merge_plus": ("theorem f_merge_plus (R N : Nat) (X : Vec (R * N + R + N)) :"
                     " (∑ (r : Fin R) (n : Fin N), X (r + n)) = (∑ (m : Fin (R * N)), X m)", True),
    "f_merge_Y": ("theorem f_merge_Y (R N : Nat) (X : Vec (R * N)) (Y : Vec (R * N + N)) :"
                  " (∑ (r : Fin R) (n : Fin N), X (r * N + n) * Y n)"
                  " = (∑ (m : Fin (R * N)), X m * Y m)", True),
    "f_shift": ("theorem f_shift (N : Nat) (X : Vec (N + 1)) :"
                " (∑ (p : Fin N), X (p + 1)) = (∑ (p : Fin N), X p)", True),
    "f_shard_offby1": ("theorem f_shard_offby1 (R N : Nat) (X : Vec (R * N + 1)) :"
                       " (∑ (r : Fin R) (n : Fin N), X (r * N + n + 1))"
                       " = (∑ (m : Fin (R * N)), X m)", True),
    "f_var_divisor": ("theorem f_var_divisor (M : Nat) (hM : 0 < M) (x : Vec M) :"
                      f" (∑ (i : Fin M), (x i - {VAR_MU}) ^ 2) / (M - 1)"
                      f" = 1 / M * (∑ (i : Fin M), x i ^ 2) - {VAR_MU} ^ 2", True),
    "f_var_sign": ("theorem f_var_sign (M : Nat) (hM : 0 < M) (x : Vec M) :"
                   f" 1 / M * (∑ (i : Fin M), (x i - {VAR_MU}) ^ 2)"
                   f" = 1 / M * (∑ (i : Fin M), x i ^ 2) + {VAR_MU} ^ 2", True),
    "f_missing_inv_R": (f"theorem f_missing_inv_R {STAT_BINDERS} (c : Fin C) :"
                        " (∑ (r : Fin R), bnBatchMeanB N C S (x r) c) = bnBatchMeanB (R * N) C S X c",
                        True),
    "f_mean_wrong_div": (f"theorem f_mean_wrong_div {STAT_BINDERS} (c : Fin C) :"
                         " allReduceMean R (fun (r : Fin R) => bnBatchMeanB N C S (x r)) c"
                         " = (∑ (n : Fin (R * N)) (s : Fin S), X[n, c, s]) / (N * S)", True),
    "f_inv_noR": ("theorem f_inv_noR (R : Nat) (v : ℝ) : 1 / R * (R * v) = v", False),
    "f_inv_wrong_hyp": ("theorem f_inv_wrong_hyp (R N : Nat) (hN : 0 < N) (v : ℝ) :"
                        " 1 / R * (R * v) = v", False),
    "f_sqrt_sq": ("theorem f_sqrt_sq (a : ℝ) : sqrt a ^ 2 = a", True),
    "f_perreplica": (f"theorem f_perreplica {BN_BINDERS} : bnBatch N oc (h * w) ε γ β (x r)"
                     " = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r", True),
    "f_naive_var": (NAIVE + f"theorem f_naive_var {BN_BINDERS} :"
                    " bnSyncF N oc (h * w) ε γ β (x r) (syncStatsNaive R N oc (h * w) x)"
                    " = shard R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r", True),
    "f_bn_interleaved": (SHARD_I + f"theorem f_bn_interleaved {BN_BINDERS} :"
                         " bnSyncF N oc (h * w) ε γ β (x r) (syncStats R N oc (h * w) x)"
                         " = shardI R N (oc * (h * w)) (bnBatch (R * N) oc (h * w) ε γ β X) r",
                         True),
    "f_sub_swapped": (f"theorem f_sub_swapped {TWO_FAMILIES} :"
                      " subB (a r) (b r) = shard R N n (B - A) r", True),
    "f_relu_mask_pre": ("theorem f_relu_mask_pre (n : Nat) (pre : Vec n) (s : ℝ) (dy : Vec n) :"
                        " reluMaskB n (s • pre) dy = s • reluMaskB n pre dy", True),
    "f_relu_homog": ("theorem f_relu_homog (n : Nat) (s : ℝ) (x : Vec n) :"
                     " relu n (s • x) = s • relu n x", True),
    "f_cot_noR": ("theorem f_cot_noR (R N K : Nat) (hR : 0 < R) (α B : ℝ) (Z : Vec ((R * N) * K))"
                  " (TT : Vec ((R * N) * (1 * K))) (r : Fin R) :"
                  " unrowB N K (smoothedLossCotGraph N K α B (rowB N K (shard R N K Z r))"
                  " (shard R N (1 * K) TT r)) = shard R N K (unrowB (R * N) K"
                  " (smoothedLossCotGraph (R * N) K α (R * B) (rowB (R * N) K Z) TT)) r", True),
    "f_interleaved": (SHARD_I + "theorem f_interleaved (R N n : Nat) (e : Fin R → Vec (N * n))"
                      " (X : Vec ((R * N) * n)) (he : ∀ r, e r = shard R N n X r) (r : Fin R) :"
                      " batchMap N (relu n) (e r) = shardI R N n (relu ((R * N) * n) X) r", True),
    "f_capture": ("def sumOf (N : Nat) (Y : Vec N) : ℝ := ∑ (i : Fin N), Y i\n"
                  "def dotOf (N : Nat) (X Y : Vec N) : ℝ := ∑ (i : Fin N), X i * Y i\n"
                  "theorem f_capture (N : Nat) (X Y : Vec N) (i : Fin N) :"
                  " X i * sumOf N Y = dotOf N X Y", True),
    "f_transpose": ("theorem f_transpose (A : Nat) (X : Vec (A * A)) (Y : Vec A) :"
                    " (∑ (i : Fin A) (j : Fin A), X[i, j] * Y i)"
                    " = (∑ (i : Fin A) (j : Fin A), X[j, i] * Y i)", True),
    "f_square_sum": ("theorem f_square_sum (N : Nat) (X : Vec N) :"
                     " (∑ (i : Fin N), X i) ^ 2 = (∑ (i : Fin N), X i ^ 2)", True),
    "f_sqrt_sum": ("theorem f_sqrt_sum (N : Nat) (X : Vec N) :"
                   " sqrt (∑ (i : Fin N), X i ^ 2) = (∑ (i : Fin N), sqrt (X i ^ 2))", True),
    "f_conv_linear": ("theorem f_conv_linear (ic oc h w kH kW : Nat) (W : Vec (oc * ic * kH * kW))"
                      " (b : Vec oc) (s : ℝ) (x : Vec (ic * (h * w))) :"
                      " conv ic oc h w kH kW W b (s • x) = s • conv ic oc h w kH kW W b x", True),
    "f_maxpool_back_x": ("theorem f_maxpool_back_x (c h w : Nat) (x : Vec (c * ((2 * h) * (2 * w))))"
                         " (s : ℝ) (dy : Vec (c * (h * w))) :"
                         " maxPool3s2Back c h w (s • x) dy = s • maxPool3s2Back c h w x dy", True),
}


def load_corpus(root: Path, texts: dict[str, str]) -> dict[str, tuple]:
    """Write each text to ``root/<name>.lemma``; return ``{name: (GlobalDecl, GlobalEnv)}``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".lemmaroot").write_text("")
    lib = Library(root)
    out = {}
    for name, text in texts.items():
        p = root / f"{name}.lemma"
        p.write_text(text + "\n", encoding="utf-8")
        lf = lib.load(p)
        out[name] = (next(g for g in lf.own if g.kind == "theorem" and g.name == name), lf.env)
    return out


@pytest.fixture(scope="module")
def corpus() -> dict[str, tuple]:
    with tempfile.TemporaryDirectory(prefix="shardproof-micro-") as d:
        texts = dict(PROVE)
        texts.update({k: v[0] for k, v in FAIL.items()})
        yield load_corpus(Path(d), texts)


def test_corpus_size() -> None:
    assert len(PROVE) >= 30 and len(FAIL) >= 20
    assert not set(PROVE) & set(FAIL)


@pytest.mark.parametrize("name", sorted(PROVE))
def test_must_prove(corpus, name: str) -> None:
    g, env = corpus[name]
    at = attempt(g, env)
    assert at.proved, f"{name}: {at.reason}\n{at.residual}"


@pytest.mark.parametrize("name", sorted(FAIL))
def test_must_not_prove(corpus, name: str) -> None:
    g, env = corpus[name]
    at = attempt(g, env)
    assert not at.proved, f"{name} is false but the engine proved it"


@needs_semantics
@pytest.mark.parametrize("name", sorted(n for n, (_, refute) in FAIL.items() if refute))
def test_false_ones_are_refuted(corpus, name: str) -> None:
    from shardproof import semantics

    g, env = corpus[name]
    cx = semantics.find_counterexample(g, env, budget_seconds=10.0)
    assert cx is not None, f"{name}: no counterexample found"
    assert cx.message


@needs_semantics
@pytest.mark.parametrize("name", sorted(n for n, (_, refute) in FAIL.items() if not refute))
def test_missing_side_condition_refuted_at_zero(corpus, name: str) -> None:
    """`1 / R * (R * v) = v` without `0 < R` holds for R ≥ 1 and fails at R = 0 (1/0 = 0)."""
    from shardproof import semantics

    g, env = corpus[name]
    cx = semantics.find_counterexample(g, env, budget_seconds=10.0)
    assert cx is not None and cx.assignment.sizes.get("R") == 0, name


@needs_semantics
@pytest.mark.parametrize("name", sorted(PROVE))
def test_proved_ones_hold_numerically(corpus, name: str) -> None:
    """The corpus itself is right: each must-prove statement holds at a random instance."""
    from shardproof import semantics
    from shardproof.types import NatT

    g, env = corpus[name]
    sizes = {n: 2 for n, ty in g.binders if isinstance(ty, NatT)}
    rng = np.random.default_rng(7)
    a = semantics.sample_assignment(g, env, sizes, rng, "float")
    assert a is not None
    assert semantics.evaluate(g.stmt, env, a, "float") is True


# ------------------------------------------------------------- known engine bugs (reported)
# False statements the engine PROVES today.  While it does, each test ends in pytest.xfail with
# the diagnosis; once the engine is fixed the same test asserts "not proved" (and "refuted" where
# the counterexample search can see the failure).
KNOWN_UNSOUND: dict[str, tuple[str, str]] = {
    "bug_forall_nat_capture": (
        "theorem bug_forall_nat_capture (N : Nat) (hN : 0 < N) : ∀ (N : Nat), 1 ≤ N",
        "prove.Prover.prop: a ∀-bound Nat is IPoly.var(its own name), so it inherits the "
        "outer N's `0 < N` (false at the inner N = 0)"),
    "bug_forall_nat_capture_inv": (
        "theorem bug_forall_nat_capture_inv (N : Nat) (hN : 0 < N) :"
        " ∀ (N : Nat), 1 / N * (N * 1) = 1",
        "same capture: 1/N·N cancels for the inner N"),
    "bug_hyp_smaller_domain": (
        "theorem bug_hyp_smaller_domain (R n : Nat) (hR : 0 < R) (e : Fin R → Vec n) (X : Vec n)"
        " (he : ∀ (r : Fin 1), e r = X) (r : Fin R) : e r = X",
        "prove.theorem_env/_orient: a hypothesis over Fin 1 defines the whole family Fin R"),
    "bug_hyp_smaller_domain2": (
        "theorem bug_hyp_smaller_domain2 (R n : Nat) (e : Fin (R + 1) → Vec n) (X : Vec n)"
        " (he : ∀ (r : Fin R), e r = X) (r : Fin (R + 1)) : e r = X",
        "same: e R is unconstrained"),
    "bug_defeq_binder_range": (
        "theorem bug_defeq_binder_range (X : Vec 3) :"
        " (∑ (i : Fin 2), X i) = (∑ (i : Fin 3), X i) := by unfold [shard]",
        "tactics.defeq/_parts compare binder names and bodies, not binder types (ranges)"),
    "bug_beta_flat_index": (
        "def pk (X : Vec 2) : Vec (2 * 2) := fun (i : Fin 2) (j : Fin 2) => X j\n"
        "theorem bug_beta_flat_index (X : Vec 2) : pk X 0 = pk X 1 := by unfold [pk]",
        "tactics.beta curries `(fun i j => b) p` instead of reading the flat index p"),
    "bug_rw_binder_range": (
        "def sumAll (N : Nat) (X : Vec N) : ℝ := ∑ (i : Fin N), X i\n"
        "theorem lem_sumAll (N : Nat) (X : Vec N) : (∑ (i : Fin N), X i) * N = N * sumAll N X\n"
        "theorem bug_rw_binder_range (Y : Vec 5) :"
        " (∑ (i : Fin 2), Y i) * 5 = 5 * sumAll 5 Y := by rw [lem_sumAll]",
        "tactics.match ignores binder types: the lemma about Σ_{i<N} rewrites Σ_{i<2}"),
}


@pytest.mark.parametrize("name", sorted(KNOWN_UNSOUND))
def test_known_unsound(name: str, tmp_path: Path) -> None:
    text, why = KNOWN_UNSOUND[name]
    if "∀ (N : Nat)" in text:
        # A binder that shadows an enclosing one is now an input error, which closes this case
        # for good (docs/language.md, "Binder names").
        with pytest.raises(ShardproofError, match="already bound"):
            load_corpus(tmp_path, {name: text})
        return
    corpus = load_corpus(tmp_path, {name: text})
    g, env = corpus[name]
    cited = {d.name: d for d in env.decls.values() if d.kind == "theorem" and d.name != name}
    for d in cited.values():  # lemmas the statement cites must be proved first
        assert attempt(d, env).proved
    at = attempt(g, env, proved=lambda n: cited.get(n))
    if at.proved:
        pytest.xfail(f"ENGINE SOUNDNESS BUG (reported): {name}: {why}")
    assert not at.proved
    if HAS_SEMANTICS and "∀ (N : Nat)" not in text and "(r : Fin 1)" not in text and \
            "(r : Fin R), e r" not in text:
        from shardproof import semantics
        assert semantics.find_counterexample(g, env, budget_seconds=10.0) is not None


def test_lambda_read_at_two_indices_does_not_crash(tmp_path: Path) -> None:
    """`(fun (k : Fin 2) (j : Fin C) => X j)[1, c]`: the engine must answer, not raise."""
    text = ("theorem lam_idx (C : Nat) (X : Vec C) (c : Fin C) :"
            " (fun (k : Fin 2) (j : Fin C) => X j)[1, c] = X c")
    g, env = load_corpus(tmp_path, {"lam_idx": text})["lam_idx"]
    try:
        at = attempt(g, env)
    except TypeError as exc:
        pytest.xfail(f"ENGINE BUG (reported): attempt raises {exc!r}")
    assert at.proved or at.reason
