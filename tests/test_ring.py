"""The ring/field oracle (`shardproof.ring`, named `oracle:ring` in the kernel's axioms).

The kernel trusts it to decide identities of rational polynomials over atoms, so every
operation is checked as a homomorphism into exact rational arithmetic: evaluate the atoms at
random rationals (an inverse atom at the inverse of its argument's value, 0 at 0, as in Lean),
and the value of a sum, product or inverse must be the sum, product or inverse of the values.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from shardproof.rewrite.ipoly import IPoly
from shardproof.ring import IDEMPOTENT, RPoly, index_vars, map_indices, mono_mul

ATOMS = [("x", "a", ()), ("x", "b", ()), ("x", "c", (IPoly.var("i"),)), ("pos", "p")]
INVERTIBLE = {ATOMS[0]}                          # `a` is known nonzero


def invertible(atom: tuple) -> bool:
    return atom in INVERTIBLE


def inv(x: Fraction) -> Fraction:
    return Fraction(0) if x == 0 else 1 / x


def value(p: RPoly, env: dict) -> Fraction:
    """The value of ``p`` with the atoms at ``env``'s values (inverse atoms evaluated)."""
    total = Fraction(0)
    for m, c in p.d.items():
        term = Fraction(c)
        for atom, e in m:
            term *= atom_value(atom, env) ** e
        total += term
    return total


def atom_value(atom: tuple, env: dict) -> Fraction:
    if atom[0] == "inv":
        return inv(atom_value(atom[1], env))
    if atom[0] == "invp":
        return inv(value(RPoly(dict(atom[1][1])), env))
    return env[atom]


monomials = st.lists(st.tuples(st.sampled_from(ATOMS), st.integers(1, 2)), max_size=3)
polys = st.lists(st.tuples(monomials, st.fractions(max_denominator=5).filter(lambda f: abs(f) < 9)),
                 max_size=4).map(
    lambda ts: sum((RPoly({(): c}) * prod_atoms(m) for m, c in ts), RPoly()))
values = st.fixed_dictionaries({a: st.fractions(max_denominator=4).filter(lambda f: abs(f) < 5)
                                for a in ATOMS}).map(
    lambda env: {**env, ATOMS[3]: Fraction(env[ATOMS[3]] > 0)})   # an indicator is 0 or 1


def prod_atoms(m: list) -> RPoly:
    out = RPoly.const(1)
    for a, e in m:
        out = out * RPoly.atom(a, e)
    return out


@settings(max_examples=300, deadline=None)
@given(polys, polys, polys, values)
def test_ring_operations_are_homomorphic(p: RPoly, q: RPoly, r: RPoly, env: dict) -> None:
    if env[ATOMS[0]] == 0:
        env = {**env, ATOMS[0]: Fraction(1)}      # the invertible atom is nonzero, as asserted
    vp, vq = value(p, env), value(q, env)
    assert value(p + q, env) == vp + vq
    assert value(p - q, env) == vp - vq
    assert value(p * q, env) == vp * vq
    assert value(p.scale(Fraction(3, 2)), env) == Fraction(3, 2) * vp
    assert value(p.inverse(invertible), env) == inv(vp)
    # twice: (a⁻¹)⁻¹ = a, the common monomial taken out of a sum's inverse and put back
    assert value(p.inverse(invertible).inverse(invertible), env) == vp
    assert value((p * q).inverse(invertible), env) == inv(vp) * inv(vq)
    assert (p * (q + r)).d == (p * q + p * r).d                   # identical normal forms
    assert (p * q).d == (q * p).d and ((p * q) * r).d == (p * (q * r)).d


def test_identities_the_kernel_relies_on() -> None:
    a, b = RPoly.atom(ATOMS[0]), RPoly.atom(ATOMS[1])
    assert (a * a.inverse(invertible)).d == RPoly.const(1).d     # a ≠ 0 is known
    assert (b * b.inverse(invertible)).d != RPoly.const(1).d     # b may be 0: b·b⁻¹ stays
    assert RPoly().inverse(invertible).d == {}                   # 0⁻¹ = 0
    assert b.inverse(invertible).inverse(invertible).d == b.d     # (b⁻¹)⁻¹ = b, also at 0
    ab = (a * b + b * b).inverse(invertible)                      # b·(a + b): b⁻¹ taken out
    assert ab.d == (b.inverse(invertible) * (a + b).inverse(invertible)).d
    ind = RPoly.atom(ATOMS[3])
    assert ATOMS[3][0] in IDEMPOTENT and (ind * ind).d == ind.d   # [c]² = [c]
    assert mono_mul(((ATOMS[1], 1),), ((ATOMS[0], 2),)) == mono_mul(((ATOMS[0], 2),),
                                                                    ((ATOMS[1], 1),))


def test_index_maps_reach_inside_atoms() -> None:
    p = RPoly.atom(ATOMS[2]) + RPoly.atom(ATOMS[0])
    key = p.key()
    assert index_vars(key, {}) == frozenset({"i"})
    renamed = map_indices(key, lambda q: q.rename({"i": "j"}))
    assert index_vars(renamed, {}) == frozenset({"j"})
    shifted = map_indices(key, lambda q: q.subst({"i": IPoly.var("k") + IPoly.const(1)}))
    assert index_vars(shifted, {}) == frozenset({"k"})
