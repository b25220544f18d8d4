"""The replay kernel (:mod:`shardproof.kernel`): small, import-clean, and it rejects bad traces.

* every theorem in ``lemmas/`` replays (the library check runs with replay on) and its
  corrupted traces — a step dropped, an instance changed, the cited rule swapped, a side
  condition altered, the position moved, the closing rule swapped — are all rejected;
* a false statement is never closed by the kernel's own normal form or by definitional
  equality: every refuted or unknown theorem of the must-fail corpus and of the micro-suite;
* focused cases for each check the kernel makes (ranges, binding of replaced occurrences,
  citing an unaccepted lemma, an `oracle` step (none is accepted), trailing steps;
  corrupted witnesses);
* the kernel imports only the standard library, the term module and the arithmetic gateway,
  and stays under its size budget.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import re
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shardproof import terms as T
from shardproof.check import Checker, Options, lemma_files
from shardproof.kernel import Goal, Rejected, replay
from shardproof.prove import kernel_goal
from shardproof.rewrite.tactics import replace_like

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "src" / "shardproof" / "kernel"
LOC_BUDGET = 600          # the budget (lines that are not blank, comments or docstrings)
LOC_CEILING = 1028        # what it is today: the budget is MISSED (docs/trust.md); lower only


# --------------------------------------------------------------------------- the library

@pytest.fixture(scope="module")
def library() -> Checker:
    ck = Checker(Options(search_seconds=0.5))
    for f in lemma_files([ROOT / "lemmas"]):
        ck.check_file(f)
    return ck


def _theorems(ck: Checker):
    for lib in ck.libraries.values():
        for lf in lib.files.values():
            for g in lf.own:
                if g.kind == "theorem" and g.name in ck.ktraces:
                    yield g, lf.env


def test_every_library_theorem_replays(library: Checker) -> None:
    bad = [v.name for v in library.verdicts.values() if v.verdict != "proved" or not v.replayed]
    assert not bad
    assert len(library.ktraces) >= 560


def test_every_theorem_rests_only_on_the_allowlist(library: Checker) -> None:
    from shardproof.check import read_allowlist, rests_on
    from shardproof.kernel import RULES
    allow = read_allowlist(ROOT / "lemmas")
    assert allow is not None and {n for n in allow if not n.startswith("linear:")} == \
        set(RULES), "lemmas/axioms.allow and kernel.RULES name different rules"
    # `linear:NAME`: exactly the prelude's `@[linear dy]` ops, each one's own claim
    prelude = ROOT / "src" / "shardproof" / "prelude"
    linear = {m for f in prelude.glob("*.lemma")
              for m in re.findall(r"@\[linear \w+\] opaque (\w+)", f.read_text())}
    assert {n[len("linear:"):] for n in allow if n.startswith("linear:")} == linear
    assert all(allow.values()), "every allowlist line carries a justification"
    outside = {}
    for name, v in library.verdicts.items():
        base, lemmas = rests_on(library.verdicts, name)
        assert all(st == "proved" for st in lemmas.values())
        if base - set(allow):
            outside[name] = sorted(base - set(allow))
    assert not outside


def _mutations(trace: list[dict], hyps: list[str], other_lemma: str):
    """Corruptions of a trace, each named; every one must be rejected.

    Each class is applied to the first `rw` step (a corruption there must be caught whatever
    follows), and the closing step is dropped.  Not generated, because the result can be a
    valid proof: dropping an `unfold` (the kernel unfolds definitions itself), or dropping a
    step of a proof that closes by `norm` (the kernel's normal form may not need it).
    """
    closing = len(trace) - 1
    yield "drop the closing step", trace[:closing]
    rws = [i for i, st in enumerate(trace) if st["rule"] == "rw"]
    if not rws:
        return
    i = rws[0]
    st = trace[i]
    if trace[closing]["rule"] == "defeq":
        yield f"drop step {i + 1}", trace[:i] + trace[i + 1:]
    k = sorted(st["inst"])[0]
    m = copy.deepcopy(trace)
    m[i]["inst"][k] = T.Var("mutant")
    yield f"instance {k} of step {i + 1}", m
    if len(st["inst"]) > 1:                       # two instance values swapped (when they differ)
        k2 = sorted(st["inst"])[1]
        if st["inst"][k] != st["inst"][k2]:
            m = copy.deepcopy(trace)
            m[i]["inst"][k], m[i]["inst"][k2] = st["inst"][k2], st["inst"][k]
            yield f"instances {k}, {k2} of step {i + 1} swapped", m
    m = copy.deepcopy(trace)
    m[i]["lemma"] = other_lemma if st["lemma"] != other_lemma else hyps[0]
    yield f"rule of step {i + 1}", m
    for j, how in enumerate(st["how"]):
        m = copy.deepcopy(trace)
        m[i]["how"][j] = {"defeq": "nonzero", "nonzero": "defeq"}.get(how, "defeq")
        yield f"discharge {j + 1} of step {i + 1}", m
        others = [h for h in hyps if h != how[4:]]
        if how.startswith("hyp:") and others:
            m = copy.deepcopy(trace)
            m[i]["how"][j] = "hyp:" + others[0]
            yield f"discharging hypothesis {j + 1} of step {i + 1}", m
    m = copy.deepcopy(trace)
    m[i]["paths"] = [list(p) + [0] for p in st["paths"]]
    yield f"position of step {i + 1}", m


def test_corrupted_traces_are_rejected(library: Checker) -> None:
    accepted = frozenset(n for n, v in library.verdicts.items() if v.replayed)
    total = 0
    survivors = []
    for g, genv in _theorems(library):
        trace = library.ktraces[g.name]
        if trace and trace[0]["rule"] == "witness":
            continue                              # (mutated witnesses: test_witness_*)
        hyps = [h for h, _ in g.hyps] or ["no_such_hypothesis"]
        other = "den_relu_shard" if g.name != "den_relu_shard" else "den_relu6_shard"
        for what, m in _mutations(trace, hyps, other):
            total += 1
            try:
                replay(kernel_goal(g, genv, accepted), m)
            except (Rejected, RecursionError):
                continue
            survivors.append(f"{g.name}: {what}")
    assert total > 1500
    assert not survivors, survivors[:20]


# --------------------------------------------------------------------------- false statements

def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _false_theorems():
    """(label, GlobalDecl, env) for each theorem the checker does NOT prove."""
    from shardproof.check import check_text
    out = []
    ck = Checker(Options(search_seconds=0.3, replay=False))
    for f in sorted((ROOT / "tests" / "mustfail").glob("*.lemma")):
        try:
            lf = ck.load(f)
        except Exception:  # the input-error files
            continue
        for g in lf.own:
            if g.kind == "theorem":
                v = ck.check_theorem(g, lf)
                if v.verdict != "proved":
                    out.append((f"{f.name}:{g.name}", g, lf.env))
    micro = _load(ROOT / "tests" / "test_micro.py", "_micro_k")
    for key, (text, *_rest) in micro.FAIL.items():
        ck2 = Checker(Options(search_seconds=0.3, replay=False))
        from shardproof.library import Library
        lib = Library(ROOT / "lemmas")
        ck2.libraries[lib.root] = lib
        try:
            lf = lib.load(lib.root / f"_micro_{key}.lemma", text=text)
        except Exception:
            continue
        for g in lf.own:
            if g.kind == "theorem" and ck2.check_theorem(g, lf).verdict != "proved":
                out.append((f"micro:{key}:{g.name}", g, lf.env))
    del check_text
    return out


def test_false_statements_are_never_closed() -> None:
    cases = _false_theorems()
    assert len(cases) > 100
    wrongly = []
    for label, g, genv in cases:
        for close in ({"rule": "norm"}, {"rule": "norm", "unroll": True}, {"rule": "defeq"}):
            try:
                replay(kernel_goal(g, genv, frozenset()), [close])
            except (Rejected, RecursionError):
                continue
            wrongly.append(f"{label} by {close}")
    assert not wrongly


# --------------------------------------------------------------------------- focused checks

def _goal(text: str, name: str) -> tuple[Goal, object]:
    from shardproof.library import Library
    lib = Library(ROOT / "lemmas")
    lf = lib.load(lib.root / "_kernel_case.lemma", text=text)
    g = next(d for d in lf.own if d.name == name)
    return kernel_goal(g, lf.env, frozenset(d.name for d in lf.own if d.kind == "theorem")), g


HEAD = "import kit.defs\n"


def _goal_env(text: str):
    """The globals a `_goal` text is elaborated in (for the numeric semantics)."""
    from shardproof.library import Library
    lib = Library(ROOT / "lemmas")
    return lib.load(lib.root / "_kernel_case.lemma", text=text).env


def test_index_out_of_range_is_rejected() -> None:
    text = HEAD + """
theorem bad (e : Fin 2 → Vec 2) (X : Vec 2) (h : ∀ (r : Fin 1), e r = X) (r : Fin 2) :
    e r = X := by norm
"""
    goal, _ = _goal(text, "bad")
    step = {"rule": "rw", "lemma": "h", "paths": [[0]], "inst": {"r": T.Var("r")}, "how": []}
    with pytest.raises(Rejected, match="range"):
        replay(goal, [step, {"rule": "defeq"}])
    goal, _ = _goal(text, "bad")               # nor is `h` a definition of `e` on all of Fin 2
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])


def test_a_size_that_depends_on_a_bound_index_is_not_normalised() -> None:
    """Fifty-ninth review: a `rw` instance may put a bound index where a `Nat` variable is used
    as a size (`n := i` under `∑ (i : Fin 3)`, giving `∑ (j : Fin i), …`, which the language
    cannot write); the kernel's normal form then dropped the outer index as unused and read
    `Σᵢ D i x` as `3·…` where it is `2·x 0 + x 1`.  No false `proved` came of it (the fresh
    name made the two sides differ), but `norm` now refuses such a size.  (The statement here is
    true, and was accepted before: `D i x - D i x` cancels however it is read.)"""
    text = HEAD + """
def D (n : Nat) (x : Vec 3) : ℝ := ∑ (j : Fin n), (if j = 0 then x 0 else x 1)
theorem addD (n : Nat) (x : Vec 3) (c : ℝ) : c = c + D n x - D n x := by norm
theorem t (x : Vec 3) : (∑ (i : Fin 3), x 0) = 3 * x 0 := by norm
"""
    goal, _ = _goal(text, "t")
    step = {"rule": "rw", "lemma": "addD", "paths": [[0, 0]],
            "inst": {"n": T.Var("i"), "x": T.Var("x"), "c": T.App(T.Var("x"), (_n(0),))},
            "how": []}
    with pytest.raises(Rejected, match="a size that depends on a bound index"):
        replay(goal, [step, {"rule": "norm"}])


def test_occurrences_under_a_different_binder_are_not_replaced() -> None:
    x, i = T.Var("x"), T.Var("i")
    fin = lambda n: T.App(T.Var("Fin"), (T.Num(Fraction(n)),))
    inner = T.App(x, (i,))
    stmt = T.And(T.Cmp("=", inner, T.Num(Fraction(0))),
                 T.Forall((T.Binder("i", fin(5)),), T.Cmp("=", inner, T.Num(Fraction(0)))))
    new, paths = replace_like(stmt, [0, 0], T.Var("y"))
    assert new.lhs.lhs == T.Var("y") and paths == [[0, 0]]
    assert new.rhs.body.lhs == inner            # the `i` there is another variable


def test_a_rule_is_not_applied_where_its_own_names_are_bound() -> None:
    """`rw [h]` with `h : x = y` must not rewrite the bound `x` of `∑ (x : Fin x), v x`: there
    `x` is the summation index, not the theorem's `x` (found by red-teaming: the engine emitted
    exactly this step and the kernel accepted it, proving a false statement).  The type checker
    now refuses such shadowing, so the goal is built by renaming the binder after elaboration."""
    text = HEAD + """
theorem shadow (x y : Nat) (h : x = y) (v : Vec (y + 1)) :
    (∑ (z : Fin x), v z) = x * v y := by rw [h]; norm
"""
    goal, _ = _goal(text, "shadow")
    s = goal.stmt.lhs
    b = s.binders[0]
    goal.stmt = T.Cmp("=", T.Sum((T.Binder("x", b.ty),), T.App(T.Var("v"), (T.Var("x"),))),
                      goal.stmt.rhs)
    step = {"rule": "rw", "lemma": "h", "paths": [[0, 0, 1]], "inst": {}, "how": []}
    with pytest.raises(Rejected, match="bound"):
        replay(goal, [step, {"rule": "norm"}])


def test_a_nested_forall_repeating_a_name_is_not_a_definition() -> None:
    """`∀ r, ∀ r, e r r = c r` constrains the diagonal only: the kernel's normal form must not
    take it as `e := fun r r => c r` (found by red-teaming; the type checker now refuses the
    repeated name, so the hypothesis is renamed after elaboration)."""
    text = HEAD + """
theorem diag (c : Vec 2) (e : Fin 2 → Fin 2 → ℝ)
    (h : ∀ (r : Fin 2), ∀ (q : Fin 2), e r q = c q) : e 0 1 = c 1 := by norm
"""
    goal, _ = _goal(text, "diag")
    assert "kernel:nf-hypothesis" in replay(goal, [{"rule": "norm"}])   # the honest one holds
    goal, _ = _goal(text, "diag")
    h = goal.hyps["h"]
    r = h.binders[0]
    inner = h.body
    body = T.Cmp("=", T.App(T.Var("e"), (T.Var("r"), T.Var("r"))),
                 T.App(T.Var("c"), (T.Var("r"),)))
    goal.hyps["h"] = T.Forall(h.binders, T.Forall((T.Binder("r", r.ty),), body,
                                                  span=inner.span))
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])


def test_a_size_fact_inside_a_prop_definition_is_about_its_arguments() -> None:
    """`def Pos (n : Nat) : Prop := 0 < n`; `Pos M` does not follow from `0 < n` for another
    `n` (found by red-teaming: the kernel checked the body's `0 < n` by name)."""
    text = HEAD + """
def Pos (n : Nat) : Prop := 0 < n

theorem bad (n M : Nat) (hn : 0 < n) : Pos M := by norm

theorem good (n M : Nat) (hM : 0 < M) : Pos M := by norm
"""
    goal, _ = _goal(text, "bad")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "good")
    assert "kernel:size-fact" in replay(goal, [{"rule": "norm"}])


def test_every_fin_variable_of_a_rule_needs_an_instance_in_range() -> None:
    """`h : ∀ (r : Fin R), 0 < x` says nothing at R = 0: citing it needs an `r` shown in range
    even though `r` is in neither side (found by red-teaming: the kernel range-checked only
    the variables the instance happened to bind)."""
    text = HEAD + """
theorem cond_true (R : Nat) (x : ℝ) (h : ∀ (r : Fin R), 0 < x) :
    (if 0 < x then 1 else 0) = 1 := by norm

theorem cond_true_two (x : ℝ) (h : ∀ (r : Fin 2), 0 < x) :
    (if 0 < x then 1 else 0) = 1 := by norm
"""
    step = {"rule": "rw", "lemma": "h", "inst": {}, "paths": [[0, 0]], "how": []}
    goal, _ = _goal(text, "cond_true")
    with pytest.raises(Rejected, match="unbound"):
        replay(goal, [step, {"rule": "norm"}])
    goal, _ = _goal(text, "cond_true")
    with pytest.raises(Rejected, match="range"):
        replay(goal, [{**step, "inst": {"r": T.Num(Fraction(0))}}, {"rule": "norm"}])
    goal, _ = _goal(text, "cond_true_two")
    assert "kernel:rw" in replay(goal, [{**step, "inst": {"r": T.Num(Fraction(0))}},
                                        {"rule": "norm"}])


def test_an_instance_must_have_its_variables_type() -> None:
    """A cited rule's variable ranges over its type: `x : Vec n` at n := 2 is not instantiated by
    a `Vec 3`, a Nat `n` not by a real (found by red-teaming: with η at n := 2, `y = z` for
    `Vec 3` followed from agreement on two entries)."""
    text = HEAD + """
theorem eta (n : Nat) (x : Vec n) : x = fun (i : Fin n) => x i := by norm

theorem bad3 (y z : Vec 3) (h : ∀ (i : Fin 2), y i = z i) : y = z := by norm

theorem ok3 (y z : Vec 3) (h : ∀ (i : Fin 3), y i = z i) : y = z := by norm
"""
    two, three = T.Num(Fraction(2)), T.Num(Fraction(3))
    trace = lambda n: [  # noqa: E731
        {"rule": "rw", "lemma": "eta", "paths": [[0]], "inst": {"n": n, "x": T.Var("y")},
         "how": []},
        {"rule": "rw", "lemma": "eta", "paths": [[1]], "inst": {"n": n, "x": T.Var("z")},
         "how": []},
        {"rule": "rw", "lemma": "h", "paths": [[0, 0]], "inst": {"i": T.Var("i")}, "how": []},
        {"rule": "defeq"}]
    goal, _ = _goal(text, "bad3")
    goal.accepted = frozenset({"eta"})
    with pytest.raises(Rejected, match="type"):
        replay(goal, trace(two))
    goal, _ = _goal(text, "ok3")
    goal.accepted = frozenset({"eta"})
    assert "lemma:eta" in replay(goal, trace(three))
    # ... nor through a definition applied to an argument of the wrong type, which unfolds to
    # the goal's `Vec 3` (found by red-teaming the kernel's typer: arguments were unchecked)
    text2 = text + "\ndef pad (n : Nat) (v : Vec n) : Vec n := v\n"
    pad = lambda v: T.App(T.Var("pad"), (two, T.Var(v)))  # noqa: E731
    goal, _ = _goal(text2, "bad3")
    goal.accepted = frozenset({"eta"})
    bad = trace(two)
    bad[0]["inst"]["x"], bad[1]["inst"]["x"] = pad("y"), pad("z")
    with pytest.raises(Rejected, match="type"):
        replay(goal, bad)


def _w(**parts: dict) -> dict:
    """A witness step: the assignment's parts as the engine writes them."""
    empty = {k: {} for k in ("sizes", "reals", "tensors", "families", "indices", "maps")}
    return {"rule": "witness", "assignment": {**empty, **parts}}


def test_the_witness_closes_only_a_disequation() -> None:
    text = HEAD + "\ntheorem bad (x : ℝ) : x = x + 1 := by norm\n"
    goal, _ = _goal(text, "bad")
    with pytest.raises(Rejected, match="≠"):
        replay(goal, [_w(reals={"x": "0"})])


@pytest.mark.parametrize("name", ["fac2", "op_nat", "fam_nat", "fam_idx", "fam_forall"])
def test_the_kernel_normal_form_refuses_what_it_cannot_tell_apart(name: str) -> None:
    """Found by red-teaming the kernel's `norm` alone (the engine refuses each): a vector passed
    to a map or op was keyed without its index split, so `x` and `fun i j => x i` (split 2 × 3)
    got one key; a family of sizes or indices ignored its argument (`g 0 = g 1`)."""
    text = HEAD + """
opaque myop (n : Nat) (v : Vec n) : Vec 1

theorem fac2 (f : Vec 6 → Vec 1) (x : Vec 6) :
    f x 0 = 0 * (2 * 3) + f (fun (i : Fin 2) (j : Fin 3) => x i) 0 := by norm

theorem op_nat (x : Vec 6) : myop 6 x = myop (2 * 3) (fun (i : Fin 2) (j : Fin 3) => x i) := by
  norm

theorem fam_nat (g : Fin 2 → Nat) : g 0 = g 1 := by norm

theorem fam_idx (g : Fin 2 → Fin 3) (x : Vec 3) : x (g 0) = x (g 1) := by norm

theorem fam_forall (x : ℝ) : ∀ (g : Fin 2 → Nat), g 0 * x = g 1 * x := by norm
"""
    goal, _ = _goal(text, name)
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])


def test_sixth_review_traces_are_rejected() -> None:
    """Hand-built traces the kernel accepted for false statements (sixth review): a rule
    variable used only in its hypotheses left uninstantiated (read as the goal's real `n`); a
    vector `fun` rewritten into a map `fun` and compared on one side's range only; an instance
    binder named like a global, which `unfold` then unfolded."""
    V, N = T.Var, lambda n: T.Num(Fraction(n))
    fin = lambda n: T.App(V("Fin"), (N(n),))  # noqa: E731
    text = HEAD + """
def zc : Nat := 0

theorem L (x : ℝ) (n : Nat) (h : x = n) (hn : n ≠ 0) : 0 < x := by norm

theorem bad1 (x n : ℝ) (h : x = n) (hn : n ≠ 0) : (if 0 < x then 1 else 0) = 1 := by norm

theorem L23 (g : Fin 2 → Fin 3 → ℝ) : g = g := by norm

theorem L32 (g : Fin 3 → Fin 2 → ℝ) : g = g := by norm

theorem bad2 (w : Vec 3) :
    (fun (i : Fin 2) (j : Fin 3) => w j) = (fun (i : Fin 3) (j : Fin 2) => w j) := by norm

theorem refl (s : ℝ) : s = s := by norm

theorem bad3 (v : Vec 3) : (∑ (j : Fin 3), v j) = 3 * v 0 := by norm
"""
    goal, _ = _goal(text, "bad1")
    goal.accepted = frozenset({"L"})
    for inst in ({"x": V("x")}, {"x": V("x"), "n": V("n")}):
        step = {"rule": "rw", "lemma": "L", "paths": [[0, 0]], "inst": inst,
                "how": ["hyp:h", "hyp:hn"]}
        goal, _ = _goal(text, "bad1")
        goal.accepted = frozenset({"L"})
        with pytest.raises(Rejected):
            replay(goal, [step, {"rule": "norm"}])
    lam = lambda a, b: T.Lam((T.Binder("i", fin(a)), T.Binder("j", fin(b))),  # noqa: E731
                             T.App(V("w"), (V("j"),)), vec=False)
    goal, _ = _goal(text, "bad2")
    goal.accepted = frozenset({"L23", "L32"})
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "rw", "lemma": "L23", "paths": [[0]], "inst": {"g": lam(2, 3)},
                       "how": []},
                      {"rule": "rw", "lemma": "L32", "paths": [[1]], "inst": {"g": lam(3, 2)},
                       "how": []}, {"rule": "norm"}])
    goal, _ = _goal(text, "bad3")
    goal.accepted = frozenset({"refl"})
    inst = T.Sum((T.Binder("zc", goal.stmt.lhs.binders[0].ty),), T.App(V("v"), (V("zc"),)))
    with pytest.raises(Rejected, match="rebinds"):
        replay(goal, [{"rule": "rw", "lemma": "refl", "paths": [[0]], "inst": {"s": inst},
                       "how": []}, {"rule": "unfold", "names": ["zc"]}, {"rule": "norm"}])


def test_unfolding_leaves_a_binder_of_the_same_name_alone() -> None:
    """A binder that entered the goal from a definition's body (or a lemma's right side) may
    carry the name of a global declared later; `unfold` took it for the global (found by
    red-teaming: `∑ (zc : Fin 3), v zc` became `3 * v 0`)."""
    text = HEAD + """
def s3 (v : Vec 3) : ℝ := ∑ (zc : Fin 3), v zc

theorem L (v : Vec 3) : (∑ (zc : Fin 3), v zc) = (∑ (zc : Fin 3), v zc) := by norm

def zc : Nat := 0

theorem bad2 (v : Vec 3) : s3 v = 3 * v 0 := by norm

theorem bad (v : Vec 3) : (∑ (j : Fin 3), v j) = 3 * v 0 := by norm
"""
    goal, _ = _goal(text, "bad2")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "unfold", "names": ["s3"]}, {"rule": "unfold", "names": ["zc"]},
                      {"rule": "norm"}])
    goal, _ = _goal(text, "bad")
    goal.accepted = frozenset({"L"})
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "rw", "lemma": "L", "paths": [[0]], "inst": {"v": T.Var("v")},
                       "how": []}, {"rule": "unfold", "names": ["zc"]}, {"rule": "norm"}])


def test_a_real_known_nonzero_is_not_a_positive_size() -> None:
    """`ε ≠ 0` for a real ε does not give `0 < ε` (ε may be negative): only Nat sizes count for
    a size fact, in a closing step and in a `nonzero` discharge (found by red-teaming)."""
    text = HEAD + """
theorem pos (ε : ℝ) (h : ε ≠ 0) : 0 < ε := by norm

theorem halfOf (ε : ℝ) (hε : 0 < ε) (x : ℝ) : x = x := by norm

theorem uses (ε : ℝ) (h : ε ≠ 0) (x : ℝ) : x = x := by rw [halfOf]; norm

theorem size_ok (R : Nat) (h : R ≠ 0) : 0 < R := by norm
"""
    goal, _ = _goal(text, "pos")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "uses")
    step = {"rule": "rw", "lemma": "halfOf", "paths": [[0]],
            "inst": {"ε": T.Var("ε"), "x": T.Var("x")}, "how": ["nonzero"]}
    with pytest.raises(Rejected, match="nonzero"):
        replay(goal, [step, {"rule": "defeq"}])
    goal, _ = _goal(text, "size_ok")
    assert "kernel:size-fact" in replay(goal, [{"rule": "norm"}])


def test_unaccepted_lemma_and_unlisted_oracle_are_rejected() -> None:
    text = HEAD + """
theorem l1 (n : Nat) (x : Vec n) : relu n x = relu n x := by norm

theorem l2 (n : Nat) (x : Vec n) : relu n (relu n x) = relu n (relu n x) := by norm
"""
    goal, _ = _goal(text, "l2")
    goal.accepted = frozenset()
    step = {"rule": "rw", "lemma": "l1", "paths": [[0]], "inst": {"n": T.Var("n"),
                                                              "x": T.Var("x")}, "how": []}
    with pytest.raises(Rejected, match="not been accepted"):
        replay(goal, [step, {"rule": "defeq"}])
    goal, _ = _goal(text, "l2")
    with pytest.raises(Rejected, match="unknown rule `oracle`"):     # no oracle closes a goal
        replay(goal, [{"rule": "oracle", "oracle": "oracle:exact-evaluation"}])
    goal, _ = _goal(text, "l2")
    with pytest.raises(Rejected, match="after the goal was closed"):
        replay(goal, [{"rule": "norm"}, {"rule": "norm"}])
    goal, _ = _goal(text, "l2")
    with pytest.raises(Rejected, match="ends before"):
        replay(goal, [])


def test_missing_side_condition_is_not_closed() -> None:
    text = HEAD + """
theorem needs_R (R : Nat) (s : ℝ) : R * (1 / R) * s = s := by norm

theorem has_R (R : Nat) (hR : 0 < R) (s : ℝ) : R * (1 / R) * s = s := by norm
"""
    goal, _ = _goal(text, "needs_R")           # false at R = 0 (Lean: 1 / 0 = 0)
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "has_R")
    assert "kernel:nf-inverse" in replay(goal, [{"rule": "norm"}])


# --------------------------------------------------------------------------- size and imports

def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.add((node.module or "").split(".")[0])
            elif node.level == 1:
                out.add("kernel." + (node.module or ""))
            else:
                out |= {f"shardproof.{node.module or a.name}" for a in node.names} \
                    if node.module is None else {f"shardproof.{node.module}"}
    return out


def test_kernel_imports_only_stdlib_terms_and_arith() -> None:
    allowed_pkg = {"shardproof.terms", "shardproof.arith", "kernel.", "kernel.nf"}
    for f in sorted(KERNEL.glob("*.py")):
        for imp in _imports(f):
            if imp.startswith(("shardproof.", "kernel.")):
                assert imp in allowed_pkg, f"{f.name} imports {imp}"
            else:
                assert imp in sys.stdlib_module_names or imp == "__future__", \
                    f"{f.name} imports {imp}"


def lines_of_code(path: Path) -> int:
    """Lines that are not blank, not comments and not docstrings."""
    src = path.read_text()
    doc: set[int] = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and \
                isinstance(node.body[0].value, ast.Constant) and \
                isinstance(node.body[0].value.value, str):
            doc.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return sum(1 for i, line in enumerate(src.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in doc)


def test_kernel_size_budget() -> None:
    total = sum(lines_of_code(f) for f in KERNEL.glob("*.py"))
    assert total <= LOC_CEILING, f"the kernel has {total} lines of code (budget {LOC_BUDGET})"


def test_a_proved_proposition_rewrites_to_true_only_where_it_holds(tmp_path: Path) -> None:
    text = HEAD + """
def same (n : Nat) (x : Vec n) : Prop := relu n x = relu n x

theorem same_pos (n : Nat) (hn : 0 < n) (x : Vec n) : same n x := by norm

theorem uses (n : Nat) (hn : 0 < n) (x y : Vec n) : same n x ∧ same n y := by
  rw [same_pos, same_pos]

theorem needs (n : Nat) (x : Vec n) : same n x := by rw [same_pos]

theorem untyped (n : Nat) (x : Vec n) : same n x := by unfold [same]; norm

def invSelf (x : ℝ) : Prop := x * (1 / x) = 1

theorem invSelf_of_ne (x : ℝ) (hx : x ≠ 0) : invSelf x := by norm

theorem invSelf_pair (x y : ℝ) (hx : x ≠ 0) : invSelf x ∧ invSelf y := by
  rw [invSelf_of_ne, invSelf_of_ne]
"""
    from shardproof.check import Checker, Options
    from shardproof.library import Library
    lib = Library(ROOT / "lemmas")
    lf = lib.load(lib.root / "_kernel_case.lemma", text=text)
    accepted = frozenset({"same_pos"})
    g = next(d for d in lf.own if d.name == "uses")
    inst = {"n": T.Var("n"), "x": T.Var("x")}
    step = {"rule": "rw", "lemma": "same_pos", "paths": [[0]], "inst": inst, "how": ["hyp:hn"]}
    step2 = {**step, "paths": [[1]], "inst": {"n": T.Var("n"), "x": T.Var("y")}}
    used = replay(kernel_goal(g, lf.env, accepted), [step, step2, {"rule": "defeq"}])
    assert "lemma:same_pos" in used
    with pytest.raises(Rejected, match="not an instance"):        # `same n y` is not `same n x`
        replay(kernel_goal(g, lf.env, accepted), [{**step, "paths": [[1]]}, {"rule": "defeq"}])
    g = next(d for d in lf.own if d.name == "needs")               # no `0 < n` to discharge
    for how in ("nonzero", "defeq", "hyp:hn"):
        with pytest.raises(Rejected):
            replay(kernel_goal(g, lf.env, accepted),
                   [{**step, "paths": [[]], "how": [how]}, {"rule": "defeq"}])
    case = tmp_path / "lemmas" / "case.lemma"              # and the engine agrees, end to end
    case.parent.mkdir()
    shutil.copytree(ROOT / "lemmas" / "kit", case.parent / "kit")
    case.write_text(text)
    verdicts = {v.name: v for v in Checker(Options(search_seconds=2.0)).check_file(case)}
    assert verdicts["uses"].verdict == "proved" and verdicts["uses"].replayed
    assert verdicts["needs"].verdict != "proved"
    # an equation brought in by `unfold` has no elaborated type: a clear `unknown`, no crash
    assert verdicts["untyped"].verdict == "unknown" and "not known" in verdicts["untyped"].reason
    # the false variant: the second conjunct would need `y ≠ 0`; refuted at y = 0 (1 / 0 = 0)
    assert verdicts["invSelf_of_ne"].verdict == "proved" and verdicts["invSelf_of_ne"].replayed
    assert verdicts["invSelf_pair"].verdict == "refuted"


def test_a_difference_of_sizes_is_a_real_difference(tmp_path: Path) -> None:
    """The type checker allows `R - 1` only where a real is meant (never as a size or index), so
    the kernel's normal form reads it as a real difference: `x · (R − 1) = x · R − x` holds at
    every `R`, `R = 0` included, and replays; the false variants are refuted, not proved."""
    from shardproof.check import Checker, Options
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text("""
theorem sub_true (R : Nat) (x : ℝ) : x * (R - 1) = x * R - x := by norm
theorem sub_square (R : Nat) (x : ℝ) : x * ((R - 1) * (R + 1)) = x * (R * R - 1) := by norm
theorem sub_at_zero (x : ℝ) : x * (0 - 1) = -x := by norm
theorem sub_false (R : Nat) (x : ℝ) : x * (R - 1) = x * R - 2 * x := by norm
theorem sub_truncated (R : Nat) (x : ℝ) : x * (R - 1) = x * (R - 1) * (if 0 < R then 1 else 0) :=
  by norm
""")
    v = {v.name: v for v in Checker(Options(search_seconds=2.0)).check_file(case)}
    for name in ("sub_true", "sub_square", "sub_at_zero"):
        assert v[name].verdict == "proved" and v[name].replayed, (name, v[name].reason)
    assert v["sub_false"].verdict == "refuted"
    assert v["sub_truncated"].verdict == "refuted"         # at R = 0 the left side is −x


def test_the_normal_form_reads_each_entry_once_and_its_fuel_bounds_products() -> None:
    """Eighth review: a vector read twice per level (`dbl`), twelve levels deep, made the
    kernel re-read the innermost entry 2¹² times — minutes on a statement the engine proves in
    0.1 s, and the fuel, counting evaluation steps only, never ran out.  A read is now computed
    once per index, and the fuel is charged a product's term pairs before it is formed, so a
    huge product is refused at once instead of computed."""
    text = HEAD + """
def sqv (n : Nat) (v : Vec n) : Vec n := fun (i : Fin n) => v i * v i
def dbl (n : Nat) (u : Vec n) : Vec n := fun (i : Fin n) => u i + u i
def pw (n : Nat) (a b c : ℝ) : Vec n := fun (i : Fin n) => (a + b + c) ^ 12
theorem slow (n : Nat) (a b c : ℝ) :
    dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n
    (sqv n (pw n a b c))))))))))))) = 4096 • sqv n (pw n a b c) := by norm
theorem slow_false (n : Nat) (a b c : ℝ) :
    dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n (dbl n
    (sqv n (pw n a b c))))))))))))) = 2048 • sqv n (pw n a b c) := by norm
theorem huge (a b c d e : ℝ) :
    (a + b + c + d + e) ^ 20 * (a + b + c + d + e) ^ 20 = (a + b + c + d + e) ^ 40 := by norm
"""
    goal, _ = _goal(text, "slow")
    assert "kernel:nf-sum" not in replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "slow_false")
    with pytest.raises(Rejected, match="differ"):
        replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "huge")                      # 10 626² term pairs: refused, not formed
    with pytest.raises(Rejected, match="fuel"):
        replay(goal, [{"rule": "norm"}])


def test_a_positive_size_puts_index_zero_in_range() -> None:
    """A rule `∀ (r : Fin R), x = y` whose `r` is unused says nothing at `R = 0`; a hypothesis
    `0 < R` (or `R * N ≠ 0`) of the goal shows `0` in range, and only for Nat sizes: `0 < ε`
    about a real, or `0 < R` for a range `R * N`, does not."""
    text = HEAD + """
theorem vac (R : Nat) (x y : ℝ) (h : ∀ (r : Fin R), x = y) (hR : 0 < R) : x = y := by rw [h]
theorem vac2 (R N : Nat) (x y : ℝ) (h : ∀ (r : Fin (R * N)), x = y) (hR : R * N ≠ 0) :
    x = y := by rw [h]
theorem vac_bad (R N : Nat) (x y : ℝ) (h : ∀ (r : Fin (R * N)), x = y) (hR : 0 < R) :
    x = y := by rw [h]
theorem vac_real (R : Nat) (ε x y : ℝ) (h : ∀ (r : Fin R), x = y) (hε : 0 < ε) : x = y :=
  by rw [h]
"""
    step = {"rule": "rw", "lemma": "h", "paths": [[0]], "inst": {"r": T.Num(Fraction(0))},
            "how": []}
    for name in ("vac", "vac2"):
        goal, _ = _goal(text, name)
        replay(goal, [step, {"rule": "defeq"}])
    for name in ("vac_bad", "vac_real"):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected, match="range"):
            replay(goal, [step, {"rule": "defeq"}])


def _n(k: int) -> T.Term:
    return T.Num(Fraction(k))


def test_eighth_review_traces_are_rejected() -> None:
    """Hand-built traces the kernel accepted for false statements (eighth review)."""
    # δ took a bound variable for a global declared after the definition that binds it:
    # `∀ (zr : ℝ), kr 5 = zr` closed by unfolding the bound `zr` as `def zr := 0` (end to end
    # too, `every_real_is_zero` in test_redteam); `∑ (zc : Fin 3), v zc` rewritten at a bound
    # `zc` that δ read as `def zc := 0`, so that Σ v = 3 · v 0.
    text = HEAD + """
def kr (n : Nat) : ℝ := 0
def allz : Prop := ∀ (zr : ℝ), kr 5 = zr
def zr : ℝ := 0
theorem every_real_is_zero : allz := by unfold [allz]
def s3 (v : Vec 3) : ℝ := ∑ (zc : Fin 3), v zc
def zc : Nat := 0
def k0 (n : Nat) : Nat := 0
theorem L (n : Nat) : n = n + 0 := by norm
theorem sum_bad (v : Vec 3) : s3 v = 3 * v 0 := by norm
def idv {a : Nat} (b : Nat) {h : a = b} (e : Vec a) : Vec b := e
theorem eta (n : Nat) (x : Vec n) : x = fun (i : Fin n) => x i := by norm
theorem obligation_bad (y z : Vec 3) (h : ∀ (i : Fin 2), y i = z i) : y = z := by norm
theorem sizes_ne (R : Nat) : R ≠ 0 := by norm
theorem sizes_ne2 (R : Nat) (x : Vec R) : R * 1 ≠ 0 := by norm
theorem with_sum (v : Vec 3) (a : ℝ) : a = a := by norm
theorem L2 (x y : ℝ) : x = x + 0 * y := by norm
"""
    goal, _ = _goal(text, "every_real_is_zero")
    with pytest.raises(Rejected, match="named like the global `zr`"):
        replay(goal, [{"rule": "unfold", "names": ["allz"]}, {"rule": "defeq"}])
    goal, _ = _goal(text, "sum_bad")
    with pytest.raises(Rejected, match="also a global's"):
        replay(goal, [{"rule": "unfold", "names": ["s3"]},
                      {"rule": "rw", "lemma": "L", "paths": [[0, 0, 1]],
                       "inst": {"n": T.App(T.Var("k0"), (_n(5),))}, "how": []},
                      {"rule": "norm"}])
    # a definition's obligation (`{h : a = b}`) was not checked in an instance: `idv 3 2 y`
    # passed for a `Vec 2` and δ turned it back into `y` (as `pad 2 y` did)
    goal, _ = _goal(text, "obligation_bad")
    idv = lambda v: T.App(T.Var("idv"), (_n(3), _n(2), T.Var(v)))   # noqa: E731
    with pytest.raises(Rejected, match="does not have its type"):
        replay(goal, [
            {"rule": "rw", "lemma": "eta", "paths": [[0]], "inst": {"n": _n(2), "x": idv("y")},
             "how": []},
            {"rule": "rw", "lemma": "eta", "paths": [[1]], "inst": {"n": _n(2), "x": idv("z")},
             "how": []},
            {"rule": "rw", "lemma": "h", "paths": [[0, 0]], "inst": {"i": T.Var("i")}, "how": []},
            {"rule": "defeq"}])
    # a witness shows a `≠` for some values; under a theorem's binders it states one for all
    # values (the tenth session); as an `∃` the same sizes are a true statement, and shown
    for name in ("sizes_ne", "sizes_ne2"):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected, match="an exact witness shows"):
            replay(goal, [_w(sizes={"R": 1}, tensors={"x": ["0"]})])
        goal.existential = True
        assert "kernel:witness" in replay(goal, [_w(sizes={"R": 1}, tensors={"x": ["0"]})])
        with pytest.raises(Rejected, match="equal at the witness"):
            replay(goal, [_w(sizes={"R": 0}, tensors={"x": []})])
    # an instance holding a `∑` crashed the instance typing (`Sum` has no `vec`); it is typed
    s = T.Sum((T.Binder("j", T.App(T.Var("Fin"), (_n(3),))),),
              T.App(T.Var("v"), (T.Var("j"),)))
    goal, _ = _goal(text, "with_sum")
    replay(goal, [{"rule": "rw", "lemma": "L2", "paths": [[0]],
                   "inst": {"x": T.Var("a"), "y": s}, "how": []}, {"rule": "norm"}])


def test_a_theorem_variable_is_never_a_later_global() -> None:
    """Ninth review: `theorem g1 (zr : ℝ) : kr 5 = zr` followed in its file by `def zr := 0`:
    the kernel was given the whole file's globals and δ unfolded the VARIABLE `zr` to 0, so a
    `defeq` close (or `unfold [kr, zr]`) accepted `0 = zr`.  The theorem's own names hide
    globals of the same name."""
    text = HEAD + """
def kr (a : ℝ) : ℝ := 0
theorem g1 (zr : ℝ) : kr 5 = zr := by norm
def zr : ℝ := 0
"""
    for trace in ([{"rule": "defeq"}], [{"rule": "unfold", "names": ["kr", "zr"]},
                                         {"rule": "defeq"}], [{"rule": "norm"}]):
        goal, _ = _goal(text, "g1")
        with pytest.raises(Rejected):
            replay(goal, trace)


def test_an_if_between_sizes_is_a_real_as_the_type_checker_has_it(tmp_path: Path) -> None:
    """Ninth review: `(if 0 < n then n else n) ≠ 0` is a `≠` between reals for the type checker
    (a witness shows it) but was one between sizes for the kernel (for all n): the verdict
    depended on `--no-replay`.  Both now read it as the type checker does.  (From the
    thirty-ninth review to the tenth session the second text was an input error: Lean reads it
    in ℕ, and a theorem's binders were then read existentially.  As an `∃` the two readings
    agree.)"""
    assert _verdicts_with_and_without_replay(
        tmp_path, "theorem wc : ∃ (n : Nat) (x : ℝ), (if 0 < n then n + x else n + x) ≠ x := by\n"
                  "  witness (n := 1) (x := 0)\n"
    ) == {True: "proved", False: "proved"}
    assert _verdicts_with_and_without_replay(
        tmp_path, "theorem wc : ∃ (n : Nat), (if 0 < n then n else n) ≠ 0 := by witness (n := 1)\n"
    ) == {True: "proved", False: "proved"}


def _verdicts_with_and_without_replay(tmp_path: Path, text: str) -> dict[bool, str]:
    """The verdict of the one theorem of ``text``, checked with replay on and off."""
    from shardproof.check import Checker, Options
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text(text)
    return {rep: Checker(Options(search_seconds=1.0, replay=rep)).check_file(case)[0].verdict
            for rep in (True, False)}


def test_a_given_witness_is_used_as_written(tmp_path: Path) -> None:
    """Ninth session: the evaluator, asked to complete a witness the kernel refused, tried every
    value of a given index (`(i := 0)` was proved at `i = 1`) and let a size tie override a
    given size (`(N := 3)` under `N = R`, `R := 2`, then blamed `x`'s length).  A given value is
    now kept: a wrong one ends `unknown` with and without replay, and names the conflict; a size
    tied to a given one (`N := 3` under `N = R`) is completed from it."""
    from shardproof.check import Checker, Options
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text(
        "theorem idx : ∃ (x : Vec 2) (i : Fin 2), x i ≠ 0 := by witness (x := ![0, 1]) (i := 0)\n"
        "theorem tie : ∃ (R N : Nat) (hN : N = R) (x : Vec N), (∑ (i : Fin N), x i) ≠ 0 := by\n"
        "  witness (R := 2) (N := 3) (x := ![1, 1, 1])\n"
        "theorem back : ∃ (R N : Nat) (hN : N = R) (x : Vec N), (∑ (i : Fin N), x i) ≠ 0 := by\n"
        "  witness (N := 3) (x := ![1, 0, 0])\n"
        "theorem good : ∃ (x : Vec 2) (i : Fin 2), x i ≠ 0 := by witness (x := ![0, 1]) (i := 1)\n")
    for rep in (True, False):
        vs = {v.name: v for v in Checker(Options(search_seconds=1.0, replay=rep)).check_file(case)}
        assert vs["idx"].verdict == "unknown" and "equal at the given values" in vs["idx"].reason
        assert vs["tie"].verdict == "unknown"
        assert "`N` := 3, but the hypotheses tie it to 2" in vs["tie"].reason
        assert vs["back"].verdict == vs["good"].verdict == "proved"
        assert vs["good"].counterexample["assignment"]["indices"] == {"i": 1}
        assert vs["back"].replayed is (True if rep else None)
        assert not vs["back"].oracles if rep else vs["back"].oracles == ["oracle:exact-evaluation"]


def test_include_makes_a_variable_hypothesis_one_of_every_later_theorem(tmp_path: Path) -> None:
    """A `variable` hypothesis a theorem does not name is not one of its hypotheses (Lean's
    rule: the thirty-eighth review's trap, `x ≠ 2` beside `variable (hx : x = 0)`); after
    `include hx` it is: `x ≠ 2` for every `x` is refuted at `x = 2` without it, and holds with
    it (no counterexample; the checker does not prove a `≠` between reals for every value).
    A given witness value a hypothesis defines otherwise is not replaced by the definition."""
    from shardproof.check import Checker, Options
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text("variable (x : ℝ) (hx : x = 0)\n"
                    "theorem given : ∃ (y : ℝ) (hy : y = 0), y ≠ 2 := by witness (y := 1)\n"
                    "theorem given0 : ∃ (y : ℝ) (hy : y = 0), y ≠ 2 := by witness (y := 0)\n"
                    "theorem before : x ≠ 2\n"
                    "include hx\n"
                    "theorem after : x ≠ 2\n"
                    "theorem uses : x * 5 = 0 := by rw [hx]; norm\n"
                    "def notIncluded (y : ℝ) : ℝ := y\n")
    for rep in (True, False):
        ck = Checker(Options(search_seconds=1.0, replay=rep))
        vs = {v.name: v for v in ck.check_file(case)}
        assert [vs[n].verdict for n in ("before", "after", "uses", "given", "given0")] == \
            ["refuted", "unknown", "proved", "unknown", "proved"]
        assert "`y` is given a value, but hypothesis `hy` makes it another" in vs["given"].reason
    env = ck.load(case).env
    assert [n for n, _ in env.get("after").hyps] == ["hx"] and not env.get("before").hyps
    assert [p.name for p in env.get("notIncluded").params] == ["y"]       # theorems only


def test_a_cast_makes_natural_arithmetic_real(tmp_path: Path) -> None:
    """`(e : ℝ)` is Lean's cast (the prelude's `toReal`): the arithmetic inside it is real, so
    `(n - 1 : ℝ) + 1 = n` is true (and not the input error it is without the cast, where Lean
    reads `-` in ℕ), and the engine, the kernel and the evaluator agree on every verdict."""
    from shardproof.check import Checker, Options
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text(
        "theorem a1 (R : Nat) (hR : 0 < R) (v : Vec 3) : R • ((1 / R : ℝ) • v) = v := by norm\n"
        "theorem a2 (n : Nat) : (n / 2 : ℝ) * 2 = n := by norm\n"
        "theorem a3 (n : Nat) : (n - 1 : ℝ) + 1 = n := by norm\n"
        "theorem a4 : ∃ (n : Nat), (n : ℝ) ^ 2 ≠ 4 := by witness (n := 1)\n"
        "theorem f1 (R : Nat) (v : Vec 3) : R • ((1 / R : ℝ) • v) = v := by norm\n"
        "theorem f2 (n : Nat) : (n - 2 : ℝ) = n - 1 := by norm\n"
        # forty-third review: text Lean reads in ℝ as this checker does (the first branch, the
        # first entry or the parameter's type makes it real) was refused
        "theorem p2 (n : Nat) (x : ℝ) : (if 0 < x then x else n - 1) = (if 0 < x then x else n - 1)"
        " := by norm\n"
        "theorem p3 (n : Nat) (x : ℝ) : ![x, n - 1] 1 + 1 = n := by norm\n"
        "def gv (v : Vec 1) : ℝ := v 0\n"
        "theorem p4 (n : Nat) : gv ![n / 2] * 2 = n := by norm\n"
        "def v2 (n : Nat) : Vec 2 := ![n / 2, 0]\n"
        # ... and an unused variable left out of the evaluator's witness reached the kernel
        # as a `KeyError`
        "theorem w1 : ∃ (n : Nat) (x : ℝ), (n ^ 2 : ℝ) ≠ 4 := by witness (n := 0)\n"
        # forty-fourth review: the same for an unused family; and more text Lean reads in ℝ
        # (numerals that a later branch or entry makes real, a local function's real domain,
        # a family-valued definition's entries, a negated numeral scalar: ℤ in Lean) was refused
        "theorem w2 : ∃ (n : Nat) (e : Fin 2 → Vec 1), (n : ℝ) ^ 2 ≠ 4 := by witness (n := 0)\n"
        "theorem p5 (x : ℝ) : (if 0 < x then 1 / 2 else x) = (if 0 < x then 1 / 2 else x) := by norm\n"
        "theorem p6 (x : ℝ) : ![1 / 2, x] 0 * 2 = 1 := by norm\n"
        "theorem p7 (n : Nat) (f : ℝ → ℝ) : f (n - 1) = f (n - 1) := by norm\n"
        "def fam (n : Nat) : Fin 2 → Vec 1 := fun (r : Fin 2) => ![n - 1]\n"
        "theorem p8 (v : Vec 2) : (-1) • v = (fun (i : Fin 2) => -v i) := by norm\n"
        # forty-eighth review: an argument past a definition's parameters, where its result
        # is a function of reals, is expected real (it was refused)
        "def scale (c : ℝ) : ℝ → ℝ := fun (y : ℝ) => c * y\n"
        "theorem p9 (n : Nat) : scale 2 (n - 1) = 2 * n - 2 := by norm\n"
        # ... and a natural subtraction met before the real leaf of its tree (Lean coerces
        # every leaf of `n - 1 + x`, and of a comparison's two sides, to ℝ)
        "theorem p10 (n : Nat) (x : ℝ) : n - 1 + x = x + n - 1 := by norm\n"
        "theorem p11 (n : Nat) (x : ℝ) : n - 1 = x - 1 + n - x := by norm\n"
        "theorem p12 (n : Nat) (v : Vec 2) : (n - 1 - v 0) * 2 = 2 * n - 2 * v 0 - 2 := by norm\n"
        "theorem f3 (n : Nat) (x : ℝ) : n - 2 + x = x + n - 1 := by norm\n"
        # ... a `Nat`-valued definition compared with a real (Lean casts it), and a `fun` body
        # under an expected `Nat → ℝ` (elaborated against the codomain, as in Lean)
        "def sz (n : Nat) : Nat := n + 1\n"
        "theorem p13 (n : Nat) (x : ℝ) (h : x = n + 1) : x = sz n := by rw [h]; norm\n"
        "theorem f4 (n : Nat) (x : ℝ) (h : 0 < x) : x < sz n := by norm\n"
        "def pred : Nat → ℝ := fun (m : Nat) => m - 1\n"
        "def ap (g : Nat → ℝ) (n : Nat) : ℝ := g n\n"
        "theorem p14 (n : Nat) : pred n + ap (fun (m : Nat) => m - 1) n = 2 * n - 2 := by norm\n"
        "theorem f5 (n : Nat) : ap (fun (m : Nat) => m - 2) n = n - 1 := by norm\n"
        # ... and a `fun` over naturals where `Nat → Nat` is expected (it was real-valued)
        "def apN (g : Nat → Nat) (n : Nat) : Nat := g n\n"
        "theorem p15 (n : Nat) : apN (fun (m : Nat) => m) n = n := by unfold [apN]; norm\n"
        "theorem p16 (n : Nat) (x : ℝ) : apN (fun (m : Nat) => 2 * m) n * x = (n + n) * x := "
        "by norm\n"
        "theorem f6 (n : Nat) : apN (fun (m : Nat) => m + 1) n = n := by norm\n"
        # ... and a curried `fun m => fun k => …` (the inner `fun` gets the arrow's rest; its
        # binder's type was not inferred, an input error)
        "def ap2 (f : Nat → Nat → Nat) : Nat := f 1 2\n"
        "def apR (f : Nat → Nat → ℝ) : ℝ := f 1 2\n"
        "theorem p17 : ap2 (fun m => fun k => m + k) = 3 := by unfold [ap2]; norm\n"
        "theorem p18 : apR (fun m => fun k => m - k) = -1 := by unfold [apR]; norm\n"
        "theorem f7 : ap2 (fun m => fun k => m + k) = 4 := by unfold [ap2]; norm\n"
        "theorem f8 : apR (fun m => fun k => m - k) = 0 := by unfold [apR]; norm\n"
        "def apV (f : Nat → Vec 2) : ℝ := f 1 0\n"
        "theorem p19 : apV (fun m => fun i => m) = 1 := by unfold [apV]; norm\n"
        "theorem f9 : apV (fun m => fun i => m) = 2 := by unfold [apV]; norm\n"
        # ... and a vector `fun`'s body is real (`Vec n` is `Fin n → ℝ`): Lean reads `m - 1`
        # there in ℝ (the seventieth review; it was "no subtraction")
        "def apW (f : Vec 2) : ℝ := f 0\n"
        "theorem p20 : apV (fun m => fun i => m - 2) = -1 := by unfold [apV]; norm\n"
        "theorem p21 (m : Nat) : apW (fun (i : Fin 2) => m - 1) = m - 1 := by unfold [apW]; norm\n"
        "theorem f10 : apV (fun m => fun i => m - 2) = 0 := by unfold [apV]; norm\n"
        "theorem f11 (m : Nat) : apW (fun i => m - 2) = m - 1 := by unfold [apW]; norm\n"
        # ... written with both binders in one `fun` (Lean's curried form: the seventy-second)
        "theorem p22 : apV (fun (m : Nat) (i : Fin 2) => m - 2) = -1 := by unfold [apV]; norm\n"
        "theorem f12 : apV (fun (m : Nat) (i : Fin 2) => m - 2) = 0 := by unfold [apV]; norm\n")
    for rep in (True, False):
        vs = {v.name: v.verdict for v in
              Checker(Options(search_seconds=1.0, replay=rep)).check_file(case)}
        assert vs == {"a1": "proved", "a2": "proved", "a3": "proved", "a4": "proved",
                      "f1": "refuted", "f2": "refuted", "p2": "proved", "p3": "proved",
                      "p4": "proved", "w1": "proved", "w2": "proved", "p5": "proved",
                      "p6": "proved", "p7": vs["p7"], "p8": "proved", "p9": "proved",
                      "p10": "proved", "p11": "proved", "p12": "proved", "f3": "refuted",
                      "p13": "proved", "f4": "refuted", "p14": "proved", "f5": "refuted",
                      "p15": "proved", "p16": "proved", "f6": "refuted", "p17": "proved",
                      "p18": "proved", "f7": "refuted", "f8": "refuted", "p19": "proved",
                      "f9": "refuted", "p20": "proved", "p21": "proved", "f10": "refuted",
                      "f11": "refuted", "p22": "proved", "f12": "refuted"}, (rep, vs)
        assert vs["p7"] != "refuted"


def test_keys_of_shared_values_are_bounded(tmp_path: Path) -> None:
    """Ninth review: `g x y (g x y (… z))` with `u` twice in `g` makes each op's key twice the
    last (keys are hashed and compared as trees): 20 levels took the engine 0.7 s and the
    kernel 118 s, 30 levels the engine over a minute, and no fuel counted it.  Both refuse a
    key past 50,000 nodes (the library's largest: 247 in the kernel, 569 in the engine).  (`+ 1`:
    no monomial common to the terms, which `norm` would take out of the reciprocal.)"""
    from shardproof.check import Checker, Options
    nest = "z"
    for _ in range(20):
        nest = f"g x y ({nest})"
    text = HEAD + f"""
def g (x y u : ℝ) : ℝ := 1 / (x * u + y * u * u + 1)
theorem t4 (x y z : ℝ) : {nest} = {nest} := by norm
"""
    goal, _ = _goal(text, "t4")
    with pytest.raises(Rejected, match="more than 50,000 nodes"):
        replay(goal, [{"rule": "norm"}])
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "t.lemma").write_text(text.replace(HEAD, ""))
    v = Checker(Options(search_seconds=0.0, replay=False)).check_file(tmp_path / "t.lemma")[0]
    assert v.verdict == "unknown" and "50,000 nodes" in v.reason


def test_the_inverse_of_a_reciprocal_power_is_bounded() -> None:
    """`(1/p)⁻¹ = p` expands `p ^ e` outside the normal form's fuel: `1 / (1 / (a + … + e)) ^ 64`
    took the kernel 450 s before the power was bounded (ring.MAX_POWER_WORK)."""
    for stmt in ("1 / ((1 / (a + b + c + d + e)) ^ 64) = 0",
                 "1 / (((1 / (a + b)) ^ 64) ^ 64) = 0"):
        goal, _ = _goal(HEAD + f"\ntheorem t (a b c d e : ℝ) : {stmt} := by norm\n", "t")
        with pytest.raises(Rejected, match="more than 100,000 products of terms"):
            replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(HEAD + "\ntheorem t (a b : ℝ) : 1 / ((1 / (a + b)) ^ 3) = (a + b) ^ 3 := "
                    "by norm\n", "t")
    assert "kernel:nf-inverse" in replay(goal, [{"rule": "norm"}])


def test_twelfth_review_traces_are_rejected() -> None:
    """Hand-built traces the kernel accepted for false statements (twelfth review)."""
    # the per-vector read cache (this session's) was keyed by the index polynomial, whose digit
    # names `#a1.k` are reused with another bound: a read checked in range for `Fin 3` was served
    # for `Fin 6`.  Reads are now cached per digit tuple, after the range check.
    text = HEAD + """
def rep (d : Vec 2) : Vec 6 := fun (i : Fin 2) (j : Fin 3) => d i
def two (ic h w kH kW : Nat) (W3 : Vec (3 * ic * kH * kW)) (W6 : Vec (6 * ic * kH * kW))
    (x : Vec (ic * (h * w))) (u : Vec 6) (k3 : Fin (3 * (h * w))) (k : Fin (6 * (h * w))) : ℝ :=
  conv ic 3 h w kH kW W3 (fun (m : Fin 3) => u m) x k3 + conv ic 6 h w kH kW W6 u x k
theorem cache_bad (ic h w kH kW : Nat) (W3 : Vec (3 * ic * kH * kW))
    (W6 : Vec (6 * ic * kH * kW)) (x : Vec (ic * (h * w))) (d : Vec 2) (k3 : Fin (3 * (h * w)))
    (k : Fin (6 * (h * w))) :
    two ic h w kH kW W3 W6 x (rep d) k3 k = two ic h w kH kW W3 W6 x (fun (m : Fin 6) => d 0) k3 k
  := by norm
def S (v : Vec 3) : ℝ := ∑ (R : Fin 3), v R * (if 0 < R then 1 else 0)
theorem pos_bad (R : Nat) (hR : 0 < R) (h : ∀ (n : Nat), ∀ (r : Fin n), (if 0 < n then 1 else 0) = 1)
    (v : Vec 3) : S v = ∑ (j : Fin 3), v j := by norm
def P : Prop := ∀ (k : Nat), (if k ≤ 1 then 1 else 0) = 1
theorem fin_bad (k : Fin 2) (h : ∀ (r : Fin 2), (if r ≤ 1 then 1 else 0) = 1) : P := by norm
def kr (a : ℝ) : ℝ := 0
theorem hid_bad (zr : ℝ) : kr 5 = zr := by norm
def zr : ℝ := 0
theorem L (x : ℝ) : kr x = zr := by norm
"""
    goal, _ = _goal(text, "cache_bad")
    with pytest.raises(Rejected, match="not shown in range"):
        replay(goal, [{"rule": "norm"}])
    # a binder that a definition's body brings in, named like a theorem variable, took that
    # variable's positivity (`0 < R`) or range (`k : Fin 2`) at an `rw` position
    goal, _ = _goal(text, "pos_bad")
    with pytest.raises(Rejected, match="range"):
        replay(goal, [{"rule": "unfold", "names": ["S"]},
                      {"rule": "rw", "lemma": "h", "paths": [[0, 0, 1]],
                       "inst": {"n": T.Var("R"), "r": _n(0)}, "how": []}, {"rule": "norm"}])
    goal, _ = _goal(text, "fin_bad")
    with pytest.raises(Rejected, match="range"):
        replay(goal, [{"rule": "unfold", "names": ["P"]},
                      {"rule": "rw", "lemma": "h", "paths": [[0, 0]], "inst": {"r": T.Var("k")},
                       "how": []}, {"rule": "defeq"}])
    # a cited rule's global `zr`, hidden by the theorem's variable `zr`, came in as that variable
    goal, _ = _goal(text, "hid_bad")
    with pytest.raises(Rejected, match="hides"):
        replay(goal, [{"rule": "rw", "lemma": "L", "paths": [[0]], "inst": {"x": _n(5)},
                       "how": []}, {"rule": "defeq"}])


def test_thirteenth_review_traces_are_rejected() -> None:
    """Hand-built traces the kernel accepted for false statements (thirteenth review)."""
    # `k : Fin n` in an instance, at a position under a binder `n` (from `D`'s body): k's range
    # was read with the bound n, so `k < n` "held" where n is the sum's index
    text = HEAD + """
def D (w : Vec 3) : ℝ := ∑ (n : Fin 1), w n
theorem bad (n : Nat) (k : Fin n) (h : ∀ (N : Nat), ∀ (r : Fin N), (if r < N then 1 else 0) = 1) :
    D (fun (i : Fin 3) => if k < i then 1 else 0) = 1 := by norm
def kr (a : ℝ) : ℝ := 0
theorem hid_bad (zr : ℝ) : kr 5 = zr := by norm
def zr : ℝ := 0
def kz : ℝ := zr
theorem L (x : ℝ) : kr x = kz := by norm
"""
    goal, _ = _goal(text, "bad")
    with pytest.raises(Rejected, match="type mentions a name bound"):
        replay(goal, [{"rule": "unfold", "names": ["D"]},
                      {"rule": "rw", "lemma": "h", "paths": [[0, 0]],
                       "inst": {"N": T.Var("n"), "r": T.Var("k")}, "how": []}, {"rule": "norm"}])
    # a global hidden by the theorem's variable `zr`, reached through δ of `kz`
    for tail in ([{"rule": "unfold", "names": ["kz"]}, {"rule": "defeq"}], [{"rule": "defeq"}]):
        goal, _ = _goal(text, "hid_bad")
        goal.accepted = frozenset({"L"})
        with pytest.raises(Rejected):
            replay(goal, [{"rule": "rw", "lemma": "L", "paths": [[0]], "inst": {"x": _n(5)},
                           "how": []}] + tail)


def test_sixteenth_review_traces_are_rejected() -> None:
    """Sixteenth review.  (1) The normal form cached a vector's entries per digit tuple, but an
    op's key reads its vector arguments at the reserved names `#a1.k`, whose ranges change from
    one key to the next: `u` read inside a `Fin 3` view cached `rep d #a1.0 = d 0` (checked for
    `#a1.0 < 3`) and served it again for `#a1.0 < 6`, so `norm` accepted a statement false at
    `d = [1, 5/2]`, `k = 3`.  Entries are now cached per digit tuple AND its names' ranges.
    (2) A `Prop` definition's body was evaluated where a theorem variable hides its global
    (`0 < cz` for `def cz := 0` read as the theorem's `cz`); `statement` now unfolds as δ does."""
    text = HEAD + """
def rep (d : Vec 2) : Vec 6 := fun (i : Fin 2) (j : Fin 3) => d i
def two (g3 : Vec 3 → ℝ) (g6 : Vec 6 → ℝ) (u : Vec 6) : ℝ := g3 (fun (m : Fin 3) => u m) + g6 u
theorem bad (d : Vec 2) (g3 : Vec 3 → ℝ) (g6 : Vec 6 → ℝ) :
    two g3 g6 (fun (m : Fin 6) => rep d m) = two g3 g6 (fun (m : Fin 6) => d 0) := by norm
def twoc (ic h w kH kW : Nat) (W3 : Vec (3 * ic * kH * kW)) (W6 : Vec (6 * ic * kH * kW))
    (x : Vec (ic * (h * w))) (u : Vec 6) (k3 : Fin (3 * (h * w))) (k : Fin (6 * (h * w))) : ℝ :=
  conv ic 3 h w kH kW W3 (fun (m : Fin 3) => u m) x k3 + conv ic 6 h w kH kW W6 u x k
theorem bad_conv (ic h w kH kW : Nat) (W3 : Vec (3 * ic * kH * kW))
    (W6 : Vec (6 * ic * kH * kW)) (x : Vec (ic * (h * w))) (d : Vec 2) (k3 : Fin (3 * (h * w)))
    (k : Fin (6 * (h * w))) :
    twoc ic h w kH kW W3 W6 x (fun (m : Fin 6) => rep d m) k3 k
      = twoc ic h w kH kW W3 W6 x (fun (m : Fin 6) => d 0) k3 k := by norm
def cz : Nat := 0
def P (k : Nat) : Prop := 0 < cz
theorem t (c0 k : Nat) (hc : 0 < c0) : P k := by norm
"""
    for name in ("bad", "bad_conv"):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected, match="not shown in range"):
            replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "t")                # the variable `c0` renamed after elaboration
    ren = {T.Var("c0"): T.Var("cz")}
    goal.types = {("cz" if n == "c0" else n): ty for n, ty in goal.types.items()}
    goal.hyps = {h: T.Cmp(e.op, ren.get(e.lhs, e.lhs), ren.get(e.rhs, e.rhs))
                 for h, e in goal.hyps.items()}
    with pytest.raises(Rejected, match="not an equation"):
        replay(goal, [{"rule": "norm"}])


def test_seventeenth_review_traces_are_rejected() -> None:
    """Seventeenth review, three hand-built traces for false statements the kernel accepted.
    (1) An op's key named its vector's positions `#a{depth}`: a key built for an argument at
    depth 0 and then put inside another key at depth 1 shared that key's names, so `g y` and
    `g (fun j => y i)` got one key.  Keys are now named by height.  (2) Substitution renamed a
    binder `i` to `i_1` avoiding the body's names but not a later binder's type, capturing the
    theorem's `i_1` in `Fin i_1`.  (3) The check that a cited lemma's globals are not hidden by
    the theorem's names left out the lemma's hypotheses."""
    text = HEAD + """
def mk (s : ℝ) (x : Vec 2) : Vec 2 := fun (i : Fin 2) => s * x i
theorem early (g : Vec 2 → ℝ) (h : Vec 2 → ℝ) (x y : Vec 2) :
    h (mk (g y) x) = h (fun (i : Fin 2) => g (fun (j : Fin 2) => y i) * x i) := by norm
def pair (u : Vec 2) (h : Vec 2 → ℝ) (x : Vec 2) : ℝ := u 0 + h (fun (i : Fin 2) => u 0 * x i)
theorem cached (g h : Vec 2 → ℝ) (x y : Vec 2) :
    pair (fun (m : Fin 2) => g y) h x
      = g y + h (fun (i : Fin 2) => g (fun (j : Fin 2) => y i) * x i) := by norm
def D (n : Nat) : Vec 1 → ℝ := fun (f : Vec 1) => ∑ (i : Fin 1) (j : Fin n), f i
theorem capture (i_1 : Nat) (i : ℝ) : D i_1 (fun (r : Fin 1) => i) = 0 := by unfold [D]; norm
theorem hid (zn : Nat) (x : ℝ) : zn * x = 3 * x := by norm
def zn : Nat := 3
theorem L (n : Nat) (h : n = zn) (x : ℝ) : n * x = 3 * x := by norm
"""
    for name, trace in (("early", [{"rule": "norm"}]), ("cached", [{"rule": "norm"}]),
                        ("capture", [{"rule": "unfold", "names": ["D"]}, {"rule": "norm"}])):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected):
            replay(goal, trace)
    for how in ("sizes", "defeq"):
        goal, _ = _goal(text, "hid")
        with pytest.raises(Rejected, match="hides"):
            replay(goal, [{"rule": "rw", "lemma": "L", "paths": [[0]], "how": [how],
                           "inst": {"n": T.Var("zn"), "x": T.Var("x")}}, {"rule": "defeq"}])


def test_eighteenth_review_trace_is_rejected() -> None:
    """Eighteenth review: `norm` unfolded the statement `A i` (binder `i` renamed `i_1`, a
    global's name, by substitution), then `B x`, whose body's global `i_1` it read as that bound
    index: `7 = 0` was accepted.  Renamed binders are `i~1` (no identifier) and a `Prop`
    definition is not unfolded where a global of its body is bound."""
    text = HEAD + """
def i_1 : ℝ := 7
def B (z : ℝ) : Prop := i_1 = z * 0
def A (x : ℝ) : Prop := ∀ (i : Fin 1), B x
theorem c12 (i : ℝ) : A i := by norm
def A2 (f : ℝ) : Prop := ∀ (gg : ℝ), f = gg
def gg : ℝ := 5
def D2 : ℝ := gg
theorem c1 : A2 D2 := by unfold [A2, D2]; norm
"""
    goal, _ = _goal(text, "c12")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "c1")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "unfold", "names": ["A2", "D2"]}, {"rule": "norm"}])


def test_a_partial_application_has_every_name_of_its_obligation() -> None:
    """Nineteenth review (a gap found unexploitable): `bad b`, for `def bad {a} (b) {h : a = b}`,
    passed its obligation `a = b` with `b` not yet given: the parameter's name was read as the
    theorem's `b`.  An obligation must have all its names given."""
    from shardproof.kernel import type_of
    text = HEAD + """
def bad {a : Nat} (b : Nat) {h : a = b} (e : Vec a) : ℝ := ∑ (i : Fin b), e i
theorem t (b c : Nat) (v : Vec b) : bad b v = bad b v := by norm
"""
    goal, _ = _goal(text, "t")
    assert type_of(T.App(T.Var("bad"), (T.Var("b"),)), goal, {}) is None
    assert type_of(T.App(T.Var("bad"), (T.Var("b"), T.Var("b"), T.Var("v"))), goal, {}) is not None


def test_a_power_of_sizes_is_a_real_as_the_type_checker_has_it(tmp_path: Path) -> None:
    """Twenty-first review: `n ^ 2 ≠ 0` is a `≠` between reals for the type checker (`^` acts on
    reals: a witness shows it) but was one between sizes for the kernel's witness check (for
    all n): the verdict depended on `--no-replay`, as `if` between sizes once did.  (`n ^ 2 ≠ 0`
    alone was an input error from the thirty-ninth review to the tenth session, as above; under
    a theorem's binders Lean reads it for every n, and it is refuted at n = 0.)"""
    assert _verdicts_with_and_without_replay(
        tmp_path, "theorem pw : ∃ (n : Nat) (x : ℝ), n ^ 2 + x ≠ x := by witness (n := 1) (x := 0)\n"
    ) == {True: "proved", False: "proved"}
    assert _verdicts_with_and_without_replay(
        tmp_path, "theorem pw : ∃ (n : Nat), n ^ 2 ≠ 0 := by witness (n := 1)\n"
    ) == {True: "proved", False: "proved"}
    assert _verdicts_with_and_without_replay(
        tmp_path, "theorem pw (n : Nat) : n ^ 2 ≠ 0\n"
    ) == {True: "refuted", False: "refuted"}


def test_twenty_fourth_review_traces_are_rejected() -> None:
    """A map `fun` and a vector `fun` are equal terms (`Lam.vec` is outside equality): a memo of
    instance types keyed by the term gave `y := fun (i : Fin 2) (j : Fin 3) => w j` as a MAP the
    type `x`'s vector had, and the map then curried `X w 0` and `X w 1` into one term.  Also: a
    step that is not a record, and a `Fin` without its size, are rejected (not a Python error)."""
    text = HEAD + """
def X (w : Vec 3) : Vec 6 := fun (i : Fin 2) (j : Fin 3) => w j
theorem Rid2 (x y : Vec 6) : y = y := by norm
theorem bad (w : Vec 3) : X w 0 = X w 1 := by norm
"""
    fin = lambda n: T.App(T.Var("Fin"), (_n(n),))
    lam = lambda vec: T.Lam((T.Binder("i", fin(2)), T.Binder("j", fin(3))),
                            T.App(T.Var("w"), (T.Var("j"),)), vec=vec)
    for close in ("defeq", "norm"):
        goal, _ = _goal(text, "bad")
        with pytest.raises(Rejected, match="does not have its type"):
            replay(goal, [{"rule": "unfold", "names": ["X"]},
                          {"rule": "rw", "lemma": "Rid2", "paths": [[0, 0], [1, 0]],
                           "inst": {"x": lam(True), "y": lam(False)}, "how": []},
                          {"rule": close}])
    goal, _ = _goal(text, "bad")
    with pytest.raises(Rejected, match="unknown rule"):
        replay(goal, [["rw"]])
    goal, _ = _goal(text, "bad")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "unfold", "names": ["X"]},
                      {"rule": "rw", "lemma": "Rid2", "paths": [[0, 0]],
                       "inst": {"x": T.Lam((T.Binder("i", T.App(T.Var("Fin"), ())),),
                                           T.App(T.Var("w"), (T.Var("i"),))),
                                "y": lam(True)}, "how": []}, {"rule": "defeq"}])


def test_an_unfolding_that_doubles_at_every_level_is_bounded() -> None:
    """Twenty-fourth review: `def dk x := d(k-1) x + d(k-1) x` doubles the term at each level;
    `unfold [d0, …, d18]` took 38 s in the kernel (and the engine minutes at 22 levels).  Both
    now stop past a bound of nodes built, with a reason."""
    from shardproof.prove import attempt
    depth = 18
    text = HEAD + "def d0 (x : ℝ) : ℝ := x\n" + "".join(
        f"def d{k} (x : ℝ) : ℝ := d{k - 1} x + d{k - 1} x\n" for k in range(1, depth + 1)) + \
        f"theorem t2 (y : ℝ) : d{depth} y = {2 ** depth} * y := by norm\n"
    names = [f"d{k}" for k in range(depth + 1)]
    goal, g = _goal(text, "t2")
    with pytest.raises(Rejected, match="grows past"):
        replay(goal, [{"rule": "unfold", "names": names}, {"rule": "defeq"}])
    from shardproof.library import Library
    lib = Library(ROOT / "lemmas")
    lf = lib.load(lib.root / "_kernel_case.lemma",
                  text=text.replace(":= by norm", f":= by unfold [{', '.join(names)}]; norm"))
    g = next(d for d in lf.own if d.name == "t2")
    at = attempt(g, lf.env)
    assert not at.proved and "grows past" in at.reason


def test_vector_addition_is_read_entrywise_by_the_normal_form() -> None:
    """Twenty-fourth review (fuzzing): the kernel's normal form refused vector `+` and `-`
    (`x + y = y + x` was proved by the engine, then `unknown` with replay). Entrywise now; the
    false `x - y = y - x` is still rejected."""
    text = HEAD + """
theorem vadd (n : Nat) (x y : Vec n) : x + y = y + x := by norm
theorem vsub (n : Nat) (x y : Vec n) : (x + y) - y = x := by norm
theorem vbad (n : Nat) (x y : Vec n) : x - y = y - x := by norm
"""
    for name in ("vadd", "vsub"):
        goal, _ = _goal(text, name)
        assert "kernel:nf-read" not in replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "vbad")
    with pytest.raises(Rejected, match="differ"):
        replay(goal, [{"rule": "norm"}])


def test_a_size_tie_carries_a_nonzero_fact_to_the_normal_form() -> None:
    """Twenty-fourth review (fuzzing): `(h1 : R = N) (hR : 0 < R)` defines `R := N`, and `0 < R`
    did not make `N` invertible, so `1 / R * (R * v) = v` was `unknown`.  A tie `R = N + M`
    still says nothing of `M`."""
    text = HEAD + """
theorem x6 (R N : Nat) (h1 : R = N) (hR : 0 < R) (v : ℝ) : 1 / R * (R * v) = v := by norm
theorem x7 (R N : Nat) (h : R = N) (hR : R ≠ 0) (v : ℝ) : 1 / N * (N * v) = v := by norm
theorem x8 (R N M : Nat) (h : R = N + M) (hR : 0 < R) (v : ℝ) : 1 / M * (M * v) = v := by norm
"""
    for name in ("x6", "x7"):
        goal, _ = _goal(text, name)
        assert "kernel:nf-inverse" in replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "x8")
    with pytest.raises(Rejected):
        replay(goal, [{"rule": "norm"}])


def test_vector_negation_and_chains_of_size_ties_in_the_normal_form() -> None:
    """Twenty-fifth review (the docs walk): language.md has prefix `-` act on vectors and size
    equations chain (`a = b` then `a = 3`), and the kernel refused both (unknown with replay)."""
    text = HEAD + """
theorem n1 (n : Nat) (x : Vec n) : -(-x) = x := by norm
theorem n2 (n : Nat) (x z : Vec n) : x - z = -(z - x) := by norm
theorem n3 (n : Nat) (x z : Vec n) : -x = x := by norm
theorem c1 (a b : Nat) (hab : a = b) (hb : a = 3) (x : Vec a) (z : Vec 3) : x + z = z + x := by norm
theorem c3 (a b : Nat) (hab : a = b) (hb : a = 3) (y : ℝ) : (∑ (i : Fin b), y) = 4 * y := by norm
"""
    for name in ("n1", "n2", "c1"):
        goal, _ = _goal(text, name)
        replay(goal, [{"rule": "norm"}])
    for name in ("n3", "c3"):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected):
            replay(goal, [{"rule": "norm"}])


def test_a_real_disequation_is_never_closed_as_a_size_fact() -> None:
    """Thirty-second review: `norm` closed `0.5 * R ≠ 0` as a size fact (R is nonzero), a
    "for all values" argument for a `≠` between reals, which says the sides differ for SOME
    values: false when no values satisfy the hypotheses (`R * R = 0`, a `Fin 0` binder).
    Only the witness oracle shows a `≠` between reals; `R ≠ 0` between sizes stays a fact."""
    text = HEAD + """
theorem t1 : ∃ (R : Nat) (hR : 0 < R) (hz : R * R = 0), 0.5 * (R : ℝ) ≠ 0
theorem t2 : ∃ (R : Nat) (hR : 0 < R) (i : Fin 0), 0.5 * (R : ℝ) ≠ 0
theorem t7 : ∃ (R : Nat) (hR : 0 < R) (x : ℝ) (hz : x = 0) (hx : x = 0.5 * R), x ≠ 0
theorem ok (R : Nat) (hR : 0 < R) : R ≠ 0 := by norm
"""
    for name, trace in (("t1", []), ("t2", []),
                        ("t7", [{"rule": "rw", "lemma": "hx", "paths": [[0]], "inst": {},
                                 "how": []}])):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected):
            replay(goal, trace + [{"rule": "norm"}])
    goal, _ = _goal(text, "ok")
    assert "kernel:size-fact" in replay(goal, [{"rule": "norm"}])


@pytest.mark.parametrize("R,N", [(2, 2), (3, 2), (2, 3)])
def test_what_the_new_normal_form_readings_accept_holds_numerically(R: int, N: int) -> None:
    """The seventh session's normal-form readings (vector `+`, `-`, negation entrywise; size
    ties chained; a nonzero fact carried through a tie): every theorem the kernel accepts with
    them holds at R, N ≥ 2 in exact arithmetic, with the hypotheses satisfied; their false
    variants are in tests/mustfail/ (`rt_vector_*`, `rt_tie_*`)."""
    from fractions import Fraction as F

    import numpy as np

    from shardproof.semantics import Assignment, evaluate
    text = HEAD + """
theorem v1 (R N : Nat) (x y : Vec (R * N)) : x + y = y + x := by norm
theorem v2 (R N : Nat) (x y : Vec (R * N)) : (x + y) - y = x := by norm
theorem v3 (R N : Nat) (x y : Vec (R * N)) : x - y = -(y - x) := by norm
theorem v4 (R N : Nat) (x : Vec (R * N)) : -(-x) = x := by norm
theorem t1 (R N : Nat) (h : R = N) (hR : 0 < R) (v : ℝ) : 1 / R * (R * v) = v := by norm
theorem t2 (R N : Nat) (h : R = N) (h3 : R = 3) (v : ℝ) : (∑ (i : Fin N), v) = 3 * v := by norm
"""
    rng = np.random.default_rng(R * 10 + N)
    vec = lambda: [F(int(k), 2) for k in rng.integers(-9, 10, R * N)]
    cases = {"v1": Assignment(sizes={"R": R, "N": N}, tensors={"x": vec(), "y": vec()}),
             "v2": Assignment(sizes={"R": R, "N": N}, tensors={"x": vec(), "y": vec()}),
             "v3": Assignment(sizes={"R": R, "N": N}, tensors={"x": vec(), "y": vec()}),
             "v4": Assignment(sizes={"R": R, "N": N}, tensors={"x": vec()}),
             "t1": Assignment(sizes={"R": R, "N": R}, reals={"v": F(7, 3)}),
             "t2": Assignment(sizes={"R": 3, "N": 3}, reals={"v": F(-5, 2)})}
    for name, a in cases.items():
        goal, g = _goal(text, name)
        replay(goal, [{"rule": "norm"}])                      # the kernel accepts it …
        env = _goal_env(text)
        assert all(evaluate(h, env, a, "exact") is True for _, h in g.hyps), name
        assert evaluate(g.stmt, env, a, "exact") is True, name   # … and it holds there


# --------------------------------------------------------------------------- witnesses

WITNESS_TEXT = HEAD + """
theorem w_sq : ∃ (x y : ℝ) (h : x < y), x * x ≠ y
theorem w_mean : ∃ (n : Nat) (hn : 0 < n) (v : Vec n) (i : Fin n), (∑ (k : Fin n), v k) / n ≠ v i
theorem w_sqrt : ∃ (x : ℝ), sqrt (x * x) ≠ x
theorem w_div : ∃ (x y : ℝ), x / y * y ≠ x
theorem w_relu : ∃ (n : Nat) (v : Vec n), relu n v ≠ v
theorem w_fam : ∃ (R N : Nat) (hR : 0 < R) (X : Vec ((R * N) * 1)) (xr : Fin R → Vec (N * 1))
    (hx : ∀ (r : Fin R), xr r = shard R N 1 X r) (r : Fin R),
    allReduceMean R xr ≠ xr r
theorem w_shardI : ∃ (R N : Nat) (X : Vec ((R * N) * 1)) (r : Fin R), shard R N 1 X r ≠ shardI R N 1 X r
theorem w_bn : ∃ (R N : Nat) (hR : 0 < R) (hm : N * (1 * 1) ≠ 0) (ε : ℝ) (hε : 0 < ε) (γ β : Vec 1)
    (X : Vec ((R * N) * (1 * (1 * 1)))) (r : Fin R),
    bnBatchTensor4 N 1 1 1 ε γ β (shard R N (1 * (1 * 1)) X r)
      ≠ shard R N (1 * (1 * 1)) (bnBatchTensor4 (R * N) 1 1 1 ε γ β X) r
"""

_VALUES = [Fraction(k, d) for k in range(-4, 5) for d in (1, 2, 3)]


def _witness_case(draw, name: str):
    """A random assignment of the theorem's variables (small sizes, rationals)."""
    from shardproof.semantics import Assignment
    pick = lambda: draw(st.sampled_from(_VALUES))                          # noqa: E731
    vec = lambda n: [pick() for _ in range(n)]                             # noqa: E731
    R, N = draw(st.integers(1, 3)), draw(st.integers(0, 3))
    if name == "w_sq" or name == "w_div":
        return Assignment(reals={"x": pick(), "y": pick()})
    if name == "w_sqrt":
        return Assignment(reals={"x": pick()})
    if name in ("w_mean", "w_relu"):
        return Assignment(sizes={"n": N + 1}, tensors={"v": vec(N + 1)},
                          indices={"i": draw(st.integers(0, N))})
    X = vec(R * N)
    rows = [X[r * N:(r + 1) * N] for r in range(R)]
    if draw(st.booleans()):                                    # (a hypothesis that fails)
        rows = [vec(N) for _ in range(R)]
    r = draw(st.integers(0, R - 1))
    if name == "w_fam":
        return Assignment(sizes={"R": R, "N": N}, tensors={"X": X}, families={"xr": rows},
                          indices={"r": r})
    if name == "w_shardI":
        return Assignment(sizes={"R": R, "N": N}, tensors={"X": X}, indices={"r": r})
    return Assignment(sizes={"R": R, "N": N}, reals={"ε": draw(st.sampled_from([Fraction(0), Fraction(3), Fraction(5, 4)]))},
                      tensors={"γ": vec(1), "β": vec(1), "X": X}, indices={"r": r})


def _kernel_agrees_with_the_evaluator(name: str, a) -> None:
    from shardproof.semantics import evaluate
    goal, g = _goal(WITNESS_TEXT, name)
    env = _goal_env(WITNESS_TEXT)
    hyps = all(evaluate(h, env, a, "exact") is True for _, h in g.hyps)
    lhs, rhs = (evaluate(s, env, a, "exact") for s in (g.stmt.lhs, g.stmt.rhs))
    differ = bool(np.any(np.asarray(lhs, dtype=object) != np.asarray(rhs, dtype=object)))
    try:
        replay(goal, [{"rule": "witness", "assignment": a.to_dict()}])
        accepted = True
    except Rejected:
        accepted = False
    assert not accepted or (hyps and differ), (name, a)
    if not (hyps and differ):
        assert not accepted


_WITNESS_SHAPES = ["w_sq", "w_mean", "w_sqrt", "w_div", "w_relu", "w_fam", "w_shardI", "w_bn"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.data())
def test_a_witness_the_kernel_accepts_holds_numerically(data) -> None:
    """`kernel:witness` against the numeric semantics (exact): wherever the kernel accepts an
    assignment, every hypothesis holds there and the two sides differ there, each evaluated by
    the evaluator (independent code); where the evaluator finds the sides equal or a
    hypothesis false, the kernel refuses."""
    name = data.draw(st.sampled_from(_WITNESS_SHAPES))
    _kernel_agrees_with_the_evaluator(name, _witness_case(data.draw, name))


@pytest.mark.parametrize("R,N", [(2, 2), (3, 2), (2, 3)])
def test_a_witness_at_two_or_more_replicas_and_examples_holds_numerically(R: int, N: int) -> None:
    """The same agreement with every replica family at R, N ≥ 2 (the draws above also reach
    R = 1 and N = 0); the replica shapes each get accepted witnesses and refused ones."""
    import random

    from shardproof.semantics import Assignment
    rng = random.Random(R * 10 + N)
    vec = lambda n: [rng.choice(_VALUES) for _ in range(n)]        # noqa: E731
    for name in ("w_fam", "w_shardI", "w_bn"):
        for k in range(6):
            X = vec(R * N)
            rows = [X[r * N:(r + 1) * N] for r in range(R)] if k % 3 else [vec(N) for _ in range(R)]
            parts = {"sizes": {"R": R, "N": N}, "tensors": {"X": X}, "indices": {"r": k % R}}
            if name == "w_fam":
                parts["families"] = {"xr": rows}
            if name == "w_bn":
                parts["reals"] = {"ε": Fraction(3)}
                parts["tensors"] |= {"γ": vec(1), "β": vec(1)}
            _kernel_agrees_with_the_evaluator(name, Assignment(**parts))


def test_the_kit_witnesses_replay_and_the_kernel_checks_each_part() -> None:
    """Each kit `≠` rests on `kernel:witness`, no oracle; a witness that breaks a hypothesis,
    makes the sides equal, leaves a variable out, has a float, an index out of range or a
    vector of another size is refused."""
    ck = Checker(Options(search_seconds=0.5))
    verdicts = {v.name: v for v in ck.check_file(ROOT / "lemmas" / "kit" / "negative.lemma")}
    negs = [v for v in verdicts.values() if "kernel:witness" in v.kernel]
    assert len(negs) == 6 and all(v.verdict == "proved" and v.replayed for v in negs)
    assert not any(o.startswith("oracle:exact") for v in negs for o in v.kernel)
    base = {"sizes": {"R": 2, "N": 1, "C": 1, "S": 1}, "reals": {}, "families": {},
            "tensors": {"X": ["0", "2"]}, "indices": {"c": 0}, "maps": {}}
    text = (ROOT / "lemmas" / "kit" / "negative.lemma").read_text()
    goal, _ = _goal(text, "naiveVarMean_ne_globalVar")
    assert "kernel:witness" in replay(goal, [{"rule": "witness", "assignment": base}])
    bad = [({"sizes": {"R": 0}, "tensors": {"X": []}}, "hypothesis `hR`"),
           ({"sizes": {"S": 0}, "tensors": {"X": []}}, "hypothesis `hm`"),
           ({"tensors": {"X": ["1", "1"]}}, "equal"), ({"tensors": {"X": ["0", 2.0]}}, "exact"),
           ({"indices": {"c": 1}}, "range"), ({"tensors": {"X": ["0", "2", "4"]}}, "size"),
           ({"sizes": {"N": "1"}}, "size"), ({"tensors": {"X": ["0", "1/0"]}}, "Fraction")]
    for change, why in bad:
        w = copy.deepcopy(base)
        for part, kv in change.items():
            w[part].update(kv)
        goal, _ = _goal(text, "naiveVarMean_ne_globalVar")
        with pytest.raises(Rejected, match=why):
            replay(goal, [{"rule": "witness", "assignment": w}])
    w = copy.deepcopy(base)
    del w["indices"]["c"]
    goal, _ = _goal(text, "naiveVarMean_ne_globalVar")
    with pytest.raises(Rejected, match="malformed"):
        replay(goal, [{"rule": "witness", "assignment": w}])


def test_a_witness_of_long_numbers_or_long_sums_ends() -> None:
    """At a witness, a number costs fuel by its length and one past MAX_BITS is refused; a sum
    over a numeral range is summed term by term within the fuel: each ends in seconds."""
    text = HEAD + """
def d0 (x : ℝ) : ℝ := x * x
def d1 (x : ℝ) : ℝ := d0 (d0 x)
def d2 (x : ℝ) : ℝ := d1 (d1 x)
def d3 (x : ℝ) : ℝ := d2 (d2 x)
def d4 (x : ℝ) : ℝ := d3 (d3 x)
theorem long : ∃ (x : ℝ), d4 (d4 x) ≠ 0
theorem wide : ∃ (n : Nat) (x : ℝ), (∑ (i : Fin n), x) ≠ 0
theorem many : ∃ (x : ℝ), (∑ (i : Fin 100000), d3 x / 7) ≠ 0
theorem ok : ∃ (x : ℝ), d3 x ≠ 0
"""
    w = _w
    for name, step, why in (("long", w(reals={"x": "3/2"}), "bits"),
                            ("wide", w(sizes={"n": 10 ** 9}, reals={"x": "1"}), "fuel"),
                            ("many", w(reals={"x": "3"}), "fuel")):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected, match=why):
            replay(goal, [step])
    goal, _ = _goal(text, "ok")
    assert "kernel:witness" in replay(goal, [w(reals={"x": "3"})])


def test_the_witness_refuses_universal_sizes_long_sizes_and_exponents() -> None:
    """Thirty-fifth review, by hand-built traces: (1) a `≠` between sizes under a theorem's
    binders — a statement for all sizes, which no witness shows — was accepted when the
    kernel's instance typing could not type a side: it is refused as any universal goal is
    (since the tenth session), and as an `∃` it is shown, whatever the sides' types (the
    fifty-second review: the typing refused true `∃`s); (2) sizes at a witness were never
    charged: `d4 (d3 (d2 n))` through real-typed squaring definitions ran past a gigabyte; (3)
    a witness value `"1e999999999"` was expanded by `Fraction`."""
    cases = [
        ("def fst (m : Nat) (v : Vec 1) : Nat := m\n"
         "theorem a (n : Nat) : fst n ![0] ≠ 0 := by norm\n", "a", _w(sizes={"n": 1})),
        ("def len (n : Nat) (v : Vec n) : Nat := n\n"
         "theorem a (a b : Nat) (h : a = b) (v : Vec a) : len b v ≠ 0 := by norm\n", "a",
         _w(sizes={"a": 1, "b": 1}, tensors={"v": ["0"]})),
        ("def g (a b : Nat) (h : a = b) : Nat := a\n"
         "theorem a (a b : Nat) (h : a = b) : g a b ≠ 0 := by norm\n", "a",
         _w(sizes={"a": 1, "b": 1})),
        ("def idx (R : Nat) (r : Fin R) : Nat := r\n"
         "theorem a (R S : Nat) (h : R = S) (i : Fin S) : idx R i ≠ 0 := by norm\n", "a",
         _w(sizes={"R": 2, "S": 2}, indices={"i": 1})),
    ]
    for text, name, step in cases:       # each false for all sizes: both sides 0 at some
        goal, _ = _goal(HEAD + text, name)
        with pytest.raises(Rejected, match="an exact witness shows"):
            replay(goal, [step])
        goal.existential = True          # ... and true as an `∃`, at the witness
        assert "kernel:witness" in replay(goal, [step])
    squares = "".join(f"def d{i} (x : ℝ) : ℝ := d{i - 1} (d{i - 1} x)\n" for i in range(1, 5))
    text = HEAD + "def d0 (x : ℝ) : ℝ := x * x\n" + squares + \
        "theorem e : ∃ (n : Nat), d4 (d3 (d2 n)) ≠ 0\n" \
        "theorem f : ∃ (x : ℝ), x ≠ 0\n"
    goal, _ = _goal(text, "e")
    with pytest.raises(Rejected, match="bits"):
        replay(goal, [_w(sizes={"n": 3})])
    goal, _ = _goal(text, "f")
    with pytest.raises(Rejected, match="not an exact number"):
        replay(goal, [_w(reals={"x": "1e999999999"})])
    goal, _ = _goal(text, "f")
    assert "kernel:witness" in replay(goal, [_w(reals={"x": "-7/3"})])


def test_a_witness_over_large_atoms_ends() -> None:
    """Thirty-seventh review: atoms are hashed as trees, and a sum at a witness of `sqrt` over a
    value whose key doubles with each definition (`d10 x`, ~50,000 nodes) cost ~14 ms a term
    but one unit of fuel: 100,000 terms took over 20 minutes.  An atom now costs fuel by its
    size, so the step ends (refused: out of fuel) in seconds."""
    import time
    text = HEAD + """
def d0 (y : ℝ) : ℝ := sqrt (y + 2) + sqrt (y + 3)
def d1 (y : ℝ) : ℝ := d0 (d0 y)
def d2 (y : ℝ) : ℝ := d1 (d1 y)
def d10 (y : ℝ) : ℝ := d2 (d2 (d1 y))
def S (R : Nat) (y : ℝ) : ℝ := ∑ (i : Fin R), sqrt (y + 1)
theorem slow : ∃ (R : Nat) (x : ℝ), S R (d10 x) ≠ R * sqrt (d10 x + 1) + 1
"""
    goal, _ = _goal(text, "slow")
    t0 = time.monotonic()
    with pytest.raises(Rejected, match="fuel"):
        replay(goal, [_w(sizes={"R": 100000}, reals={"x": "3"})])
    assert time.monotonic() - t0 < 60           # a bound (it was over 20 minutes), not a speed


INTRO = HEAD + """
theorem intro_fin (R N : Nat) (x : Vec R) : ∀ (r : Fin R), (R : ℝ) / R * x r = x r := by norm
theorem intro_prod (R N : Nat) : ∀ (i : Fin 3) (r : Fin (R * N)), (N : ℝ) / N = 1 := by norm
theorem intro_sum (R N : Nat) : ∀ (r : Fin (R + N)), (R : ℝ) / R = 1 := by norm
theorem intro_other (R N : Nat) (x : Vec R) : ∀ (r : Fin R), (N : ℝ) / N * x r = x r := by norm
theorem intro_conj (R : Nat) (x : Vec R) : (∀ (r : Fin R), x r = x r) ∧ (R : ℝ) / R = 1 := by norm
theorem intro_bound (R : Nat) : ∀ (M : Nat) (r : Fin M), (M : ℝ) / M = 1 := by norm
theorem intro_size_fact (R : Nat) : ∀ (r : Fin R), R ≠ 0 ∧ 1 ≤ R := by norm
theorem intro_size_fact_sum (R N : Nat) : ∀ (r : Fin (R + N)), R ≠ 0 := by norm
"""


def test_a_statements_own_forall_makes_its_ranges_nonzero() -> None:
    """Lean's `intro`: a statement `∀ (r : Fin R), …` is decided where `r` exists, so `0 < R`
    there, as for a binder `(r : Fin R)` of the theorem (session 15).  Only for the `∀`s the
    whole statement sits under: beside a conjunct (`intro_conj`, false at R = 0), over a sum of
    sizes (`R + N`), for another size, or for a size the `∀` binds itself, nothing is known."""
    for name, ok in (("intro_fin", True), ("intro_prod", True), ("intro_sum", False),
                     ("intro_other", False), ("intro_conj", False), ("intro_bound", False),
                     ("intro_size_fact", True), ("intro_size_fact_sum", False)):
        goal, _ = _goal(INTRO, name)
        if ok:
            assert {"kernel:nf-inverse", "kernel:size-fact"} & set(
                replay(goal, [{"rule": "norm"}])), name
        else:
            with pytest.raises(Rejected):
                replay(goal, [{"rule": "norm"}])


@pytest.mark.parametrize("replay_on", [True, False])
def test_a_statements_own_forall_end_to_end(tmp_path: Path, replay_on: bool) -> None:
    from shardproof.check import Options, check_paths
    (tmp_path / "kit").mkdir()
    shutil.copy(ROOT / "lemmas" / "kit" / "defs.lemma", tmp_path / "kit" / "defs.lemma")
    f = tmp_path / "intro.lemma"
    f.write_text(INTRO)
    got = {v.name: v.verdict for v in check_paths([f], Options(replay=replay_on,
                                                                 search_seconds=2.0)).verdicts}
    assert {n: got[n] for n in ("intro_fin", "intro_prod")} == {"intro_fin": "proved",
                                                               "intro_prod": "proved"}
    assert got["intro_size_fact"] == "proved"          # (the eighty-second review: the
    assert got["intro_sum"] == got["intro_other"] == got["intro_conj"] == "refuted"  # kernel
    assert got["intro_size_fact_sum"] != "proved"      # did not know it for size facts)
    assert got["intro_bound"] != "proved"


KINDS = """
def zeroV (n : Nat) : Vec n := fun (i : Fin n) => 0
theorem add_zero_real (a : ℝ) : a + 0 = a := by norm
theorem add_zero_vec (n : Nat) (v : Vec n) : v + zeroV n = v := by unfold [zeroV]; norm
theorem neg_real (x : ℝ) : -x + 0 = -x := by rw [add_zero_real]
theorem neg_vec (n : Nat) (u : Vec n) : -u + zeroV n = -u := by rw [add_zero_vec]
theorem sub_vec (n : Nat) (u w : Vec n) : (u - w) + zeroV n = u - w := by rw [add_zero_vec]
theorem ite_vec (n : Nat) (c : ℝ) (u w : Vec n) :
    (if c < 0 then u else w) + zeroV n = (if c < 0 then u else w) := by rw [add_zero_vec]
theorem ite_vec_norm (n : Nat) (c : ℝ) (u w : Vec n) :
    (if c < 0 then u else w) = (if c < 0 then u - w + w else w) := by norm
theorem ite_vec_bad (n : Nat) (c : ℝ) (u w : Vec n) :
    (if c < 0 then u else w) = (if c < 0 then w else u) := by norm
theorem wit_and : ∃ (x : ℝ) (h : 0 < x ∧ x < 2), x ≠ 1 := by witness (x := 1/2)
def Pos (x : ℝ) : Prop := 0 < x
theorem wit_def : ∃ (x : ℝ), Pos x ∧ x ≠ 1 := by witness (x := 3)
theorem wit_def_bad : ∃ (x : ℝ), Pos x ∧ x ≠ 1 := by witness (x := -3)
theorem wit_and_bad : ∃ (x : ℝ) (h : 0 < x ∧ x < 2), x ≠ 1 := by witness (x := 3)
"""


@pytest.mark.parametrize("replay_on", [True, False])
def test_kernel_typing_of_negations_vector_sums_and_ifs(tmp_path, replay_on) -> None:
    """Kernel coverage (the fifteenth session ran the whole suite under coverage.py): the
    kernel's typing of a negation, a vector sum and an `if` in a `rw` instance, its normal form
    of a vector `if`, and a witness's `∧` and `def`ined hypotheses had no test.  Each is used
    here, with a false twin (the branches swapped; a witness that breaks its hypothesis)."""
    from shardproof.check import Options, check_paths
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "k.lemma").write_text(KINDS)
    got = {v.name: v.verdict for v in check_paths([tmp_path], Options(
        search_seconds=1.0, replay=replay_on)).verdicts}
    assert got == {"add_zero_real": "proved", "add_zero_vec": "proved", "neg_real": "proved",
                   "neg_vec": "proved", "sub_vec": "proved", "ite_vec": "proved",
                   "ite_vec_norm": "proved", "ite_vec_bad": "refuted", "wit_and": "proved",
                   "wit_def": "proved", "wit_def_bad": "unknown", "wit_and_bad": "unknown"}, got


def test_kernel_refuses_ill_typed_negations_sums_and_ifs() -> None:
    """A real variable instantiated with the negation of a vector, a difference of vectors, an
    `if` between vectors, each at a place where it is the subterm (so the left side matches and
    only the instance's type refuses it; the eighty-fourth review: cited with `a + 0`, the
    match refused them first)."""
    text = HEAD + KINDS + """
theorem grow (a : ℝ) : a = a + 0 := by norm
theorem tgt (n : Nat) (c : ℝ) (u w : Vec n) :
    -u + (u - w) + (if c < 0 then u else w) = -u + (u - w) + (if c < 0 then u else w) := by norm
"""
    u, w, c = T.Var("u"), T.Var("w"), T.Var("c")
    for path, val in (([0, 0, 0], T.Neg(u)), ([0, 0, 1], T.BinOp("-", u, w)),
                      ([0, 1], T.Ite(T.Cmp("<", c, _n(0)), u, w))):
        goal, _ = _goal(text, "tgt")
        step = {"rule": "rw", "lemma": "grow", "paths": [path], "inst": {"a": val}, "how": []}
        with pytest.raises(Rejected, match="does not have its type"):
            replay(goal, [step, {"rule": "norm"}])


def test_kernel_refuses_malformed_rewrite_steps() -> None:
    """Corruptions of a `rw` step the mutation tests do not make, each refused with its reason:
    a lemma not in scope, no position, a position outside the goal, an instance that mentions
    a name out of scope (in a range, where typing does not look), a discharge too many, and a
    cited hypothesis that would mention an index bound where it is used — which, the
    eighty-fourth review showed, is all that refuses `S = 2` for `S = Σ_{i<2} [0 < i]` (it is
    1) when the theorem's own `(hi : 0 < i)` discharges `0 < R` at `R := i`."""
    text = HEAD + """
theorem add_zero_real (a : ℝ) : a + 0 = a := by norm
theorem tgt (y : ℝ) (v : Vec 2) (hv : v = ![y + 0, y]) : y + 0 = y := by rw [add_zero_real]
theorem posif (R : Nat) (hR : 0 < R) : (if 0 < R then (1 : ℝ) else 0) = 1 := by norm
def S : ℝ := ∑ (i : Fin 2), (if 0 < i then (1 : ℝ) else 0)
theorem bad (i : Nat) (hi : 0 < i) : S = 2 := by norm
"""
    y = T.Var("y")
    ok = {"rule": "rw", "lemma": "add_zero_real", "paths": [[0]], "inst": {"a": y}, "how": []}
    cases = [
        ({**ok, "lemma": "nope"}, "neither a hypothesis nor a theorem"),
        ({**ok, "paths": []}, "no position to rewrite at"),
        ({**ok, "paths": [[0, 5, 5]]}, "is not in the goal"),
        ({**ok, "inst": {"a": T.Sum((T.Binder("j", T.App(T.Var("Fin"), (T.Var("zz"),))),),
                                    _n(1))}}, "`zz`, which is not in scope"),
        ({**ok, "how": ["defeq"]}, "0 hypotheses of `add_zero_real` but 1 discharges"),
    ]
    for step, why in cases:
        goal, _ = _goal(text, "tgt")
        with pytest.raises(Rejected, match=why):
            replay(goal, [step, {"rule": "defeq"}])
    goal, _ = _goal(text, "bad")
    step = {"rule": "rw", "lemma": "posif", "paths": [[0, 0]], "inst": {"R": T.Var("i")},
            "how": ["hyp:hi"]}
    with pytest.raises(Rejected, match="would mention a bound variable"):
        replay(goal, [{"rule": "unfold", "names": ["S"]}, step, {"rule": "norm"}])


def _wit_step(**parts):
    a = {k: {} for k in ("sizes", "indices", "reals", "tensors", "families", "maps")}
    a.update(parts)
    return {"rule": "witness", "assignment": a}


def test_kernel_norm_refuses_what_it_cannot_decide() -> None:
    """Kernel coverage: refusals of `norm` no test reached, because the engine refuses these
    statements first (hand-built traces): two different sizes, an `if` on an equation between
    reals, two families."""
    text = HEAD + """
theorem sizes (R N : Nat) : R = N := by norm
theorem cond (x y : ℝ) : (if x = y then 1 else 0) = 1 := by norm
theorem fam (R : Nat) (e d : Fin R → Vec 2) : e = d := by norm
"""
    for name, why in (("sizes", "the two sizes differ"),
                      ("cond", "an equation between reals as a condition"),
                      ("fam", "normal forms")):
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected, match=why):
            replay(goal, [{"rule": "norm"}])


def test_kernel_witness_refuses_bad_assignments() -> None:
    """Kernel coverage: a witness with an index out of its range (above, below 0), a vector of
    another length, a value for a map, or sides that are equal there is refused."""
    text = HEAD + """
theorem idx : ∃ (i : Fin 3) (v : Vec 3), v i ≠ 0 := by witness (i := 1) (v := ![1, 1, 1])
theorem mp : ∃ (f : ℝ → ℝ) (x : ℝ), f x ≠ x := by witness (x := 1)
theorem sz : ∃ (v : Vec 2), v 0 ≠ 0 := by witness (v := ![1, 1])
"""
    cases = [("idx", _wit_step(indices={"i": 5}, tensors={"v": ["1", "1", "1"]}), "in its range"),
             ("idx", _wit_step(indices={"i": -1}, tensors={"v": ["1", "1", "1"]}), "in its range"),
             ("idx", _wit_step(indices={"i": 1}, tensors={"v": ["1", "1"]}), "type's size"),
             ("mp", _wit_step(reals={"x": "1"}, maps={"f": {}}), "a variable of this type"),
             ("sz", _wit_step(tensors={"v": ["0", "1"]}), "equal at the witness")]
    for name, step, why in cases:
        goal, _ = _goal(text, name)
        with pytest.raises(Rejected, match=why):
            replay(goal, [step])
    goal, _ = _goal(text, "idx")               # (and the true one is accepted)
    assert "kernel:witness" in replay(goal, [_wit_step(indices={"i": 1},
                                                  tensors={"v": ["1", "1", "1"]})])


def test_kernel_reads_a_real_argument_of_an_opaque_op_by_its_normal_form() -> None:
    """Kernel coverage: a real passed to a user's opaque op is keyed by its normal form (so
    `g n (1 + 1) x` is `g n 2 x`, and `a * b` is `b * a`); another value is another op
    application; a function passed to an op is refused (the kernel has no normal form for
    it)."""
    text = HEAD + """
opaque g (n : Nat) (a : ℝ) (x : Vec n) : Vec n
opaque h (n : Nat) (f : ℝ → ℝ) (x : Vec n) : Vec n
theorem same (n : Nat) (x : Vec n) : g n (1 + 1) x = g n 2 x := by norm
theorem sym (n : Nat) (a b : ℝ) (x : Vec n) : g n (a * b) x = g n (b * a) x := by norm
theorem other (n : Nat) (x : Vec n) : g n 1 x = g n 2 x := by norm
theorem fn (n : Nat) (x : Vec n) : h n (fun (t : ℝ) => t) x = h n (fun (t : ℝ) => t) x := by norm
"""
    for name in ("same", "sym"):
        goal, _ = _goal(text, name)
        assert "oracle:ring" in replay(goal, [{"rule": "norm"}]), name
    goal, _ = _goal(text, "other")
    with pytest.raises(Rejected, match="normal forms"):
        replay(goal, [{"rule": "norm"}])
    goal, _ = _goal(text, "fn")
    with pytest.raises(Rejected, match="a function passed to an opaque op"):
        replay(goal, [{"rule": "norm"}])


def test_a_norm_step_with_unroll_writes_numeral_sums_out() -> None:
    """Eighteenth session (review 95): `∑ (r : Fin 2), …` against its terms written out.  A
    `norm` step that says `unroll` reads a sum over a numeral range up to 4 term by term; one
    that does not keeps it a sum (so `Fin (2 * C)` written as one range still meets a double
    sum, which written out it does not); a false statement is refused either way, and a range past 4 is not written out."""
    text = """
theorem ok2 (g : Vec 2) : (∑ (r : Fin 2), (if r = 0 then g 1 else g 0)) = g 0 + g 1 := by norm
theorem bad2 (g : Vec 2) : (∑ (r : Fin 2), (if r = 0 then g 1 else g 0)) = g 0 + g 0 := by norm
theorem ok5 (g : Vec 5) : (∑ (r : Fin 5), g r) = g 0 + g 1 + g 2 + g 3 + g 4 := by norm
theorem nested (C : Nat) (X : Vec (2 * C)) :
    (∑ (r : Fin 2) (c : Fin C), X[r, c]) = ∑ (i : Fin (2 * C)), X i := by norm
"""
    def closes(name: str, unroll: bool) -> bool:
        try:
            replay(_goal(text, name)[0], [{"rule": "norm", "unroll": unroll}])
            return True
        except Rejected:
            return False
    assert closes("ok2", True) and not closes("ok2", False)
    assert not closes("bad2", True) and not closes("bad2", False)
    assert not closes("ok5", True)
    assert closes("nested", False) and not closes("nested", True)    # (why it is no default)
    goal = _goal(text, "ok2")[0]
    assert "kernel:nf-sum" in replay(goal, [{"rule": "norm", "unroll": True}])
