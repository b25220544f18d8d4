"""The memoised term and polynomial primitives agree with their plain definitions.

`terms.py` keeps a term's hash and free names in the term, and gives every class an unrolled
`children`; `rewrite/ipoly.py` builds canonical polynomials without re-normalising.  Both are in
the kernel's trusted base (docs/trust.md), so each is checked here against the obvious
implementation it replaced.
"""

from __future__ import annotations

import dataclasses
import pickle
import random
from fractions import Fraction
from pathlib import Path

from shardproof import terms as T
from shardproof.rewrite.ipoly import IPoly
from shardproof.syntax import parse_module

ROOT = Path(__file__).resolve().parents[1]


def _reference_free(t: T.Term, bound: frozenset[str] = frozenset()) -> set[str]:
    out: set[str] = set()

    def go(u: T.Term, b: frozenset[str]) -> None:
        if isinstance(u, T.Var):
            if u.name not in b:
                out.add(u.name)
        elif isinstance(u, (T.Lam, T.Sum, T.Forall, T.Exists)):
            inner = set(b)
            for bd in u.binders:
                if bd.ty is not None:
                    go(bd.ty, frozenset(inner))
                inner.add(bd.name)
            go(u.body, frozenset(inner))
        elif isinstance(u, T.NamedArg):
            go(u.value, b)
        else:
            for c in T.Term.children(u):
                go(c, b)

    go(t, bound)
    return out


def _reference_hash(t: T.Term) -> int:
    return hash(tuple(getattr(t, f.name) for f in dataclasses.fields(t)
                      if (f.compare if f.hash is None else f.hash)))


def _all_terms():
    files = sorted((ROOT / "lemmas").rglob("*.lemma"))[:12]
    files += sorted((ROOT / "src" / "shardproof" / "prelude").glob("*.lemma"))
    for f in files:
        stack: list[T.Term] = [parse_module(f.read_text(encoding="utf-8"), str(f))]
        while stack:
            t = stack.pop()
            yield t
            stack.extend(T.Term.children(t))


def test_terms_children_hash_free_names_match_the_plain_definitions():
    rng = random.Random(0)
    n = 0
    for t in _all_terms():
        n += 1
        kids = t.children()
        assert kids == T.Term.children(t) and all(a is b for a, b in zip(kids, T.Term.children(t)))
        assert hash(t) == _reference_hash(t) == hash(t)
        ref = _reference_free(t)
        got = T.free_names(t)
        assert got == ref and list(got) == list(ref)   # same names, same insertion order
        bound = frozenset(rng.sample(sorted(ref), len(ref) // 2))
        assert T.free_names(t, bound) == _reference_free(t, bound)
        got.add("mutated")                             # a fresh set every call
        assert "mutated" not in T.free_names(t) or "mutated" in ref
    assert n > 1000


def test_memo_is_not_state():
    t = T.Lam((T.Binder("i", T.App(T.Var("Fin"), (T.Var("n"),))),),
              T.BinOp("+", T.Var("i"), T.Var("k")), vec=True)
    h, fv = hash(t), T.free_names(t)
    u = pickle.loads(pickle.dumps(t))
    assert u == t and hash(u) == h and T.free_names(u) == fv == {"Fin", "n", "k"}
    assert not hasattr(u, "_h") or u._h == h
    assert t == T.Lam(t.binders, t.body, vec=False)     # `vec` stays outside equality
    assert hash(t) == hash(T.Lam(t.binders, t.body, vec=False))
    # deep terms: hashing and free names recurse no deeper than before
    x: T.Term = T.Var("a")
    for _ in range(400):
        x = T.BinOp("+", x, T.Num(Fraction(1)))
    assert hash(x) == _reference_hash(x) and T.free_names(x) == {"a"}


def _ref_poly(terms) -> dict:
    d: dict = {}
    for m, c in terms:
        mm = tuple(sorted(m))
        d[mm] = d.get(mm, 0) + c
    return {m: c for m, c in d.items() if c}


def _ref_mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            e: dict = dict(m1)
            for v, k in m2:
                e[v] = e.get(v, 0) + k
            m = tuple(sorted(e.items()))
            out[m] = out.get(m, 0) + c1 * c2
    return {m: c for m, c in out.items() if c}


def _canon(d: dict) -> tuple:
    return tuple(sorted(d.items()))


def test_ipoly_arithmetic_matches_a_dictionary_reference():
    rng = random.Random(1)
    names = ["a", "b", "c", "d"]

    def rnd():
        out = []
        for _ in range(rng.randint(0, 4)):
            vs = rng.sample(names, rng.randint(0, 3))
            out.append((tuple(sorted((v, rng.randint(1, 3)) for v in vs)), rng.randint(-3, 3)))
        return out

    for _ in range(3000):
        ta, tb = rnd(), rnd()
        a, b, ra, rb = IPoly(ta), IPoly(tb), _ref_poly(ta), _ref_poly(tb)
        assert a.terms == _canon(ra)
        s = dict(ra)
        for m, c in rb.items():
            s[m] = s.get(m, 0) + c
        assert (a + b).terms == _canon({m: c for m, c in s.items() if c})
        assert (a * b).terms == _canon(_ref_mul(ra, rb))
        assert (-a).terms == _canon({m: -c for m, c in ra.items()})
        assert (a - b).terms == (a + (-b)).terms
        assert hash(a + b) == hash(IPoly((a + b).terms)) and a + b == IPoly((a + b).terms)
        assert str(a * b) == str(IPoly((a * b).terms))
        # substitution: expand each mapped variable's power by the reference product
        mp = {v: rnd() for v in rng.sample(names, rng.randint(0, 3))}
        ref: dict = {}
        for m, c in ra.items():
            cur = {(): c}
            rest = []
            for v, e in m:
                if v in mp:
                    for _ in range(e):
                        cur = _ref_mul(cur, _ref_poly(mp[v]))
                else:
                    rest.append((v, e))
            cur = _ref_mul(cur, {tuple(rest): 1})
            for mm, cc in cur.items():
                ref[mm] = ref.get(mm, 0) + cc
        got = a.subst({v: IPoly(t) for v, t in mp.items()})
        assert got.terms == _canon({m: c for m, c in ref.items() if c})


# --------------------------------------------------------------------------- rw search pruning

def _kit_theorems():
    from shardproof.library import Library
    lib = Library(ROOT / "lemmas")
    out = []
    for name in ("kit/shard.lemma", "kit/ties.lemma", "nets/blocks/r34Id.lemma"):
        lf = lib.load(ROOT / "lemmas" / name)
        out += [(g, lf.env) for g in lf.own if g.kind == "theorem" and g.stmt is not None]
    return out


def test_rw_search_pruning_meets_the_same_matches_in_the_same_order() -> None:
    """`rewrite_once` walks only subterms where the rule's head is free: on real goals (each
    theorem's statement and its one-step unfoldings) against every rule of the same files, the
    pruned walk meets exactly the matching positions of the full walk, in order."""
    from shardproof.rewrite import tactics as tac
    thms = _kit_theorems()
    rules = [tac.rule_of_theorem(g) for g, _ in thms]
    compared = hits = 0
    for g, env in thms:
        goals = [g.stmt]
        defs = sorted(n for n in T.free_names(g.stmt)
                      if getattr(env.get(n), "kind", None) == "def")
        goals += [tac.unfold_defs(g.stmt, {d}, env) for d in defs[:3]]
        for goal in goals:
            for rule in rules:
                head = rule.lhs.fn if isinstance(rule.lhs, T.App) else rule.lhs
                need = head.name if isinstance(head, T.Var) and head.name not in rule.vars \
                    else None

                def hits_of(walk):
                    return [p for u, _, _, p in walk
                            if tac.match(rule.lhs, u, rule.vars, {}, env, rule.size_vars)]
                full = hits_of(tac._subterms(goal))
                assert hits_of(tac._subterms(goal, need=need)) == full, (g.name, rule.name)
                compared += 1
                hits += len(full)
    assert compared > 1000 and hits > 20


def test_replace_like_pruning_replaces_the_same_positions() -> None:
    """`replace_like` skips subterms without a name free at the rewritten position: it finds
    the same positions as a walk over every subterm with the same scope test."""
    from shardproof.rewrite import tactics as tac
    checked = 0
    for g, env in _kit_theorems():
        for u, bound, _, path in tac._subterms(g.stmt):
            if not isinstance(u, T.App):
                continue
            marker = T.Var("⋆")
            _, paths = tac.replace_like(g.stmt, list(path), marker)
            # every position holding an equal subterm with the same bound names above is found
            # unless a name of it is bound differently there (then it means something else)
            same = [p for w, b2, _, p in tac._subterms(g.stmt)
                    if w == u and b2 & T.free_names(u) == bound & T.free_names(u)]
            assert list(path) in paths and set(map(tuple, paths)) <= set(same), g.name
            if not (T.free_names(u) & bound):
                assert sorted(map(tuple, paths)) == sorted(same), g.name
            checked += 1
    assert checked > 100


def test_checking_leaves_nothing_frozen_and_respects_a_callers_freeze(tmp_path) -> None:
    """`fewer_full_collections` freezes the libraries already checked (full passes skip them)
    and unfreezes all at the outermost exit; a caller's own frozen objects are left alone (it
    then freezes nothing).  Verdicts do not depend on it."""
    import gc

    from shardproof.check import Checker, Options
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text("theorem t (x : ℝ) : x + 0 = x := by norm\n")
    (tmp_path / "b.lemma").write_text("import a\ntheorem u (x : ℝ) : x * 1 = x := by norm\n")
    assert gc.get_freeze_count() == 0
    vs = Checker(Options(search_seconds=0.0)).check_file(tmp_path / "b.lemma")
    assert [v.verdict for v in vs] == ["proved"] and gc.get_freeze_count() == 0
    keep = [object() for _ in range(3)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        vs = Checker(Options(search_seconds=0.0)).check_file(tmp_path / "b.lemma")
        assert [v.verdict for v in vs] == ["proved"] and gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
    del keep
