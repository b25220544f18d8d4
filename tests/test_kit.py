"""The sync-BN kit (`lemmas/`) and its must-fail corpus (`tests/mustfail/`).

(a) every theorem of `lemmas/` gets the checker's verdict `proved` (`check.check_paths`, which
    proves citations first) — an equation by the engine's normal forms, a `≠` between reals or
    vectors by an exact witness, which this test evaluates again (as it does the witness a
    `by witness (…)` hint records);
(b) every file of `tests/mustfail/` is NOT proved, and gets the verdict its header states: a
    counterexample that this test re-evaluates (`-- expect: refuted`), none (`-- expect: unknown`),
    or an input error at the stated line and column (`-- expect: error at L:C`);
(c) every proved equation of `lemmas/` holds numerically at random sizes (replica and batch sizes
    2 and 3) and random data;
(d) every line of the user's seed is the docstring of the theorem with its Lean name.

The numeric parts use `shardproof.semantics` (part of the package: a broken import fails them).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from shardproof import semantics
from shardproof import terms as T
from shardproof.check import Options, check_paths
from shardproof.errors import ShardproofError
from shardproof.library import Library
from shardproof.prove import attempt
from shardproof.types import FinT, NatT, RealT

ROOT = Path(__file__).resolve().parents[1]
LEMMAS = ROOT / "lemmas"
MUSTFAIL = ROOT / "tests" / "mustfail"
SEED = ROOT.parent / "shared" / "seed" / "000_a57d65adec20f4ea.txt"

# The seed's lines, in order, belong to these Lean names (catalog §2).
SEED_NAMES = [
    "batchShard_castIdx", "den_batchOp_shard", "den_relu_shard", "den_addVB_shard",
    "den_addVB_shard_comm", "den_addV_shard", "den_swishF_shard", "den_relu6_shard",
    "den_castIdx_shard", "den_bnSyncSiteLA", "nhw_ne_zero", "relu6MaskB_smul",
    "bnGradInput_smul", "maxPool3s2BackFlat_smul", "reassocB_shard", "bnSyncInB_shard",
    "den_allReduceMeanF_convStridedWeightGradB_shard",
    "den_allReduceMeanF_denseWeightGradB_shard", "den_allReduceMeanF_denseBiasGradB_shard",
    "inv_mul_R", "convWSync_of_scaled", "rowB_shard", "replicaLossCot_eq",
    "rowDenseBackFlat_smul", "rowDenseBackFlat_shard",
    "den_allReduceMeanF_depthwiseWeightGradB_shard",
    "den_allReduceMeanF_depthwiseStridedWeightGradB_shard",
    "den_allReduceMeanF_depthwiseStridedXlaWeightGradB_shard",
    "den_allReduceMeanF_convStridedXlaWeightGradB_shard",
]

# Every statement the seed names, and the rest of its families (catalog §2, §2b).
REQUIRED = SEED_NAMES + [
    "unrowB_shard", "convStridedWSync_of_scaled", "convStridedXlaWSync_of_scaled",
    "bnSync_of_scaled", "denseSync_of_scaled", "depthwiseWSync_of_scaled",
    "depthwiseStridedWSync_of_scaled", "depthwiseStridedXlaWSync_of_scaled",
    "den_bnSyncF_allReduce", "den_bnSyncBack_allReduce", "den_allReduceMeanF_bnSyncGammaGradB",
    "den_allReduceMeanF_convWeightGradB_shard", "den_allReduceMeanF_bnBetaGradB_shard",
    "den_bnStatsMeanB_allReduce", "den_bnStatsVarB_allReduce", "reluMaskB_smul", "mpInB_smul",
    "mpInB_shard", "cInB_shard", "dStridedXlaInB_shard", "gapInB_shard",
    "dpMeanGrad_ne_globalBatchGrad", "dp_perReplicaBN_ne_global",
    "replicaBceLossCot_eq",            # (catalog §3: ResNet-50's BCE corollary rests on it)
]

TOPIC_FILES = ["defs", "relabel", "pointwise", "bn_site", "homog", "shard", "collectives", "ties",
               "divisor", "negative", "interleave"]



def _is_ne(g) -> bool:
    """A negative result: `≠` between reals or vectors (a `≠` between sizes is a size fact)."""
    return isinstance(g.stmt, T.Cmp) and g.stmt.op == "≠" and \
        not isinstance(g.cmp_types.get(g.stmt), NatT)


# ============================================================================ lemmas/

def _load_kit():
    lib = Library(LEMMAS)
    out = []
    for f in sorted(LEMMAS.rglob("*.lemma")):
        lf = lib.load(f)
        out.extend((f, g, lf.env) for g in lf.own if g.kind == "theorem")
    return out


KIT = _load_kit()
BY_NAME = {g.name: (f, g, env) for f, g, env in KIT}
def _net_level(f: Path) -> bool:
    """A whole-network file (`lemmas/nets/<net>.lemma`): its equations are at 224×224 and real
    widths, too large for this sweep (the parity harness checks the nets numerically, but as an
    independent numpy program, not these equations); the block templates (`nets/blocks/`) and
    `nets/ops.lemma` stay in this sweep."""
    rel = Path(f).resolve().relative_to(LEMMAS)
    return rel.parts[0] == "nets" and len(rel.parts) == 2 and rel.name != "ops.lemma"


EQUATIONS = [(f, g, env) for f, g, env in KIT if not _is_ne(g)]
NUMERIC_EQUATIONS = [(f, g, env) for f, g, env in EQUATIONS if not _net_level(f)]
NEGATIVES = [(f, g, env) for f, g, env in KIT if _is_ne(g)]


def test_the_library_has_its_shape():
    assert (LEMMAS / ".lemmaroot").is_file()
    for name in TOPIC_FILES:
        text = (LEMMAS / "kit" / f"{name}.lemma").read_text(encoding="utf-8")
        assert text.startswith("/-! # "), f"kit/{name}.lemma must open with a `/-! # Title` header"
        assert "NOT claimed" in text or "Nothing here is a claim" in text, \
            f"kit/{name}.lemma must say what it does not claim"
    names = [g.name for _, g, _ in KIT]
    assert len(names) == len(set(names)), "theorem names must be unique across lemmas/"
    missing = [n for n in REQUIRED if n not in BY_NAME]
    assert not missing, f"missing theorems: {missing}"
    assert len(NEGATIVES) >= 2


@pytest.mark.parametrize("f,g,env", KIT, ids=[g.name for _, g, _ in KIT])
def test_every_theorem_has_a_docstring(f, g, env):
    assert g.doc and g.doc.strip(), f"{g.name} ({f.name}) has no docstring"


@pytest.fixture(scope="module")
def kit_verdicts():
    """The checker's verdicts on the whole library (imports first, so that proofs can cite)."""
    report = check_paths([LEMMAS])
    assert len(report.verdicts) == len(KIT)
    return {v.name: v for v in report.verdicts}


@pytest.mark.parametrize("f,g,env", KIT, ids=[g.name for _, g, _ in KIT])
def test_every_theorem_is_proved(f, g, env, kit_verdicts):
    v = kit_verdicts[g.name]
    assert v.verdict == "proved", f"{g.name} ({f.name}): {v.verdict}: {v.reason}\n{v.residual or ''}"
    if not _is_ne(g):  # an equation is proved by normal forms, never by evaluation
        assert "exact_witness" not in v.rules, v.rules


@pytest.mark.parametrize("f,g,env", NEGATIVES, ids=[g.name for _, g, _ in NEGATIVES])
def test_negative_results_have_a_witness_that_re_evaluates(f, g, env):
    assert not attempt(g, env).proved  # a `≠` is never an equation of normal forms
    cx = semantics.find_counterexample(g, env, budget_seconds=10.0)
    assert cx is not None, f"no witness for {g.name}"
    # the witness, evaluated again: the `≠` statement holds there, exactly and in floats, and so
    # do the hypotheses
    assert semantics.evaluate(g.stmt, env, cx.assignment, "exact") is True
    assert semantics.evaluate(g.stmt, env, cx.assignment, "float") is True
    for hname, h in g.hyps:
        assert semantics.evaluate(h, env, cx.assignment, "exact") is True, hname


def _hinted_witness(g):
    """The assignment a `by witness (x := …) …` hint records, or None when it names none."""
    steps = [s for s in (g.proof.steps if g.proof else ()) if s.tactic == "witness"]
    args = {a.name: a.value for s in steps for a in s.assignments}
    if not args and g.binders:
        return None
    types = dict(g.binders)
    a = semantics.Assignment()
    for name, ty in g.binders:
        v = args[name]
        if isinstance(ty, (NatT, FinT)):
            (a.sizes if isinstance(ty, NatT) else a.indices)[name] = int(v.value)
        elif isinstance(ty, RealT):
            a.reals[name] = v.value
        else:
            a.tensors[name] = np.array([item.value for item in v.items], dtype=object)
    assert set(args) <= set(types), f"the hint names unknown binders {set(args) - set(types)}"
    return a


@pytest.mark.parametrize("f,g,env", NEGATIVES, ids=[g.name for _, g, _ in NEGATIVES])
def test_the_recorded_witness_is_one(f, g, env):
    """The witness written in the proof hint satisfies the hypotheses and separates the sides."""
    a = _hinted_witness(g)
    if a is None:
        pytest.skip(f"{g.name} records no witness")
    for hname, h in g.hyps:
        assert semantics.evaluate(h, env, a, "exact") is True, f"the hint violates {hname}"
    assert semantics.evaluate(g.stmt, env, a, "exact") is True


def _size_names(g) -> list[str]:
    return [n for n, ty in g.binders if isinstance(ty, NatT)]


@pytest.mark.parametrize("f,g,env", NUMERIC_EQUATIONS,
                         ids=[g.name for _, g, _ in NUMERIC_EQUATIONS])
def test_every_proved_equation_holds_numerically(f, g, env):
    rng = np.random.default_rng(sum(map(ord, g.name)))
    names = _size_names(g)
    checked = 0
    for trial in range(8):
        sizes = {n: int(rng.integers(2, 4)) if n in ("R", "N") else int(rng.integers(1, 3))
                 for n in names}
        a = semantics.sample_assignment(g, env, sizes, rng, "float",
                                        data=("normal", "halves", "wide")[trial % 3])
        if a is None:  # the draw violates a hypothesis: draw again
            continue
        ok = semantics.evaluate(g.stmt, env, a, "float")
        assert ok is True, f"{g.name} fails numerically at sizes {a.sizes}:\n{a.format()}"
        checked += 1
        if checked == 3:
            break
    assert checked, f"no assignment of {g.name} satisfied its hypotheses"


# A copy of the seed in the repository, so that a clone without `../shared` (CI's) checks it too.
SEED_COPY = ROOT / "tests" / "data" / "seed_docstrings.txt"


def test_seed_docstrings_are_verbatim():
    if SEED.is_file():          # the user's own file, where it is: the copy must be it
        assert SEED_COPY.read_bytes() == SEED.read_bytes(), f"{SEED_COPY} differs from {SEED}"
    lines = [ln for ln in SEED_COPY.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert len(lines) == len(SEED_NAMES) == 29
    for name, line in zip(SEED_NAMES, lines):
        assert name in BY_NAME, f"seed lemma {name} is missing"
        assert BY_NAME[name][1].doc == line.strip(), f"{name}'s docstring is not its seed line"
    docs = {g.doc for _, g, _ in KIT}
    assert all(line.strip() in docs for line in lines)


# ============================================================================ tests/mustfail/

HEADER = re.compile(r"-- expect: (refuted|unknown|error at (\d+):(\d+))\s*$")
MF_FILES = sorted(MUSTFAIL.glob("*.lemma"))


def _expect(path: Path) -> tuple[str, tuple[int, int] | None]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = HEADER.match(first)
    assert m, f"{path.name}: the first line must be `-- expect: refuted|unknown|error at L:C`"
    if m.group(2):
        return "error", (int(m.group(2)), int(m.group(3)))
    return m.group(1), None


def test_the_corpus_is_big_enough():
    assert (MUSTFAIL / ".lemmaroot").is_file()
    kinds = [_expect(p)[0] for p in MF_FILES]
    assert len(MF_FILES) >= 40
    assert kinds.count("refuted") >= 40


@pytest.mark.parametrize("path", MF_FILES, ids=[p.stem for p in MF_FILES])
def test_mustfail(path: Path):
    kind, where = _expect(path)
    lib = Library(MUSTFAIL)
    if kind == "error":
        with pytest.raises(ShardproofError) as info:
            lib.load(path)
        span = info.value.span
        assert span is not None and (span.line, span.col) == where, \
            f"{path.name}: expected an error at {where}, got {span}: {info.value}"
        return
    lf = lib.load(path)
    theorems = [g for g in lf.own if g.kind == "theorem"]
    assert theorems, f"{path.name} states no theorem"
    for g in theorems:
        at = attempt(g, lf.env)
        assert not at.proved, f"{path.name}: the engine PROVED the false statement {g.name}"
    for g in theorems:
        cx = semantics.find_counterexample(g, lf.env, budget_seconds=5.0 if kind == "refuted"
                                           else 1.5)
        if kind == "unknown":
            assert cx is None, f"{path.name} is marked unknown but has a counterexample: " \
                               f"{cx.message}"
            continue
        assert cx is not None, f"{path.name}: no counterexample found"
        # re-check: the statement is false at the counterexample, in exact and float arithmetic
        assert semantics.evaluate(g.stmt, lf.env, cx.assignment, "exact") is False, cx.message
        assert semantics.evaluate(g.stmt, lf.env, cx.assignment, "float") is False, cx.message
        # and the hypotheses the assignment was built from hold there
        for hname, h in g.hyps:
            assert semantics.evaluate(h, lf.env, cx.assignment, "exact") is True, \
                f"{path.name}: the counterexample violates hypothesis {hname}"


def test_checker_verdicts_on_the_corpus():
    """The checker's verdicts match every header (refuted / unknown)."""
    files = [p for p in MF_FILES if _expect(p)[0] != "error"]
    report = check_paths(files, Options(search_seconds=3.0))
    got = {}
    for v in report.verdicts:
        got.setdefault(Path(v.file).name, set()).add(v.verdict)
    wrong = [(p.name, got.get(p.name)) for p in files if got.get(p.name) != {_expect(p)[0]}]
    assert not wrong, wrong
