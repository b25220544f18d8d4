"""Every rule and procedure the engine uses, as data: name, math, side condition, where.

A proof's record lists the names it used (our ``#print axioms``); ``docs/rules.md`` is generated
from this table (``python -m shardproof.rewrite.rules > docs/rules.md``); every entry of kind
``rule`` has a property test against the numeric semantics in ``tests/test_rules.py``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str        # "rule" (a rewrite), "procedure" (code with a stated contract), "oracle"
    math: str
    side: str        # side condition ("" when none)
    where: str       # module.function that applies it


RULES: tuple[Rule, ...] = (
    # ---- unfolding and hypotheses
    Rule("unfold", "rule", "f a₁ … aₙ = body[params := a₁ … aₙ] for `def f params := body`", "",
         "normalize.Normaliser.call_global"),
    Rule("hyp", "rule", "e r = RHS(r) for a hypothesis (h : ∀ r, e r = RHS r), used left to right",
         "the hypothesis is in the theorem's context and RHS does not mention e",
         "prove.theorem_env"),
    Rule("access_decompose", "rule",
         "(fun (i : Fin A) (j : Fin B) => body) p = body[i := q, j := d] when p = q·B + d",
         "0 ≤ d < B shown by range analysis over the index variables' bounds",
         "normalize.Normaliser.decompose"),
    Rule("linear_jacobian", "rule",
         "op(…, dy)[k] = Σ_{j < |dy|} J_op(…)[k, j] · dy[j] for an op marked @[linear dy]",
         "the op is linear in dy (its numeric implementation is tested for it)",
         "normalize.OpT.at"),
    Rule("div_as_inverse", "rule", "a / b = a · b⁻¹ (Lean: b⁻¹ = 0 when b = 0)", "",
         "normalize.Normaliser.real"),
    Rule("inv_monomial", "rule",
         "(c · Π aᵢ^eᵢ)⁻¹ = c⁻¹ · Π (aᵢ⁻¹)^eᵢ, with aᵢ⁻¹ a negative exponent when aᵢ ≠ 0 is "
         "known, Rec(a)⁻¹ = a and InvP(p)⁻¹ = p, and the atom Rec(aᵢ) otherwise",
         "c ≠ 0 (a nonzero rational)", "nf.inverse"),
    Rule("inv_content", "rule",
         "(g · q)⁻¹ = g⁻¹ · q⁻¹ for g the monomial common to every term of a polynomial with "
         "≥ 2 terms (indicators aside); g⁻¹ by inv_monomial, q⁻¹ by inv_opaque",
         "", "nf.inverse"),
    Rule("inv_opaque", "rule", "p⁻¹ = (1/lead) · InvP(p / lead) for a polynomial with ≥ 2 terms",
         "", "nf.inverse"),
    Rule("ite_indicator", "rule", "if c then a else b = b + [c] · (a − b)", "",
         "normalize.Normaliser.real"),
    Rule("index_compare_const", "rule",
         "a comparison of two index expressions whose difference is a constant is decided", "",
         "normalize.Normaliser.cond"),
    Rule("sum_unroll", "rule",
         "Σ_{i<n} f(i) = f(0) + … + f(n−1) for a numeral n from 2 to 4 (first binder first)", "",
         "normalize.Normaliser.real"),
    # ---- sums (applied by mk_sum in this order)
    Rule("sum_unit_range", "rule", "Σ_{i<1} f(i) = f(0)", "", "nf.mk_sum"),
    Rule("sum_empty_range", "rule", "Σ_{i<0} f(i) = 0", "", "nf.mk_sum"),
    Rule("sum_split_add", "rule", "Σ_i (f(i) + g(i)) = Σ_i f(i) + Σ_i g(i)", "", "nf.mk_sum"),
    Rule("sum_pull_const", "rule", "Σ_i c · f(i) = c · Σ_i f(i) for a rational c", "",
         "nf.mk_sum"),
    Rule("sum_absorb", "rule",
         "Σ_i (Σ_j g(i, j))^k · f(i) = Σ_{i, j₁…j_k} g(i, j₁)⋯g(i, j_k) · f(i)",
         "k > 0 and the inner sum depends on i", "nf._sum_mono"),
    Rule("sum_pull_out", "rule", "Σ_i c · f(i) = c · Σ_i f(i) when c does not depend on i", "",
         "nf._sum_mono"),
    Rule("sum_const", "rule", "Σ_{i<K} c = K · c when nothing depends on i", "", "nf._sum_mono"),
    Rule("sum_components", "rule",
         "Σ_{i,j} f(i) · g(j) = (Σ_i f(i)) · (Σ_j g(j)) when no factor links i and j", "",
         "nf._sum_mono"),
    Rule("sum_merge", "rule",
         "Σ_{u<U} Σ_{v<V} f(u·V + v) = Σ_{w<U·V} f(w)",
         "after v := w − u·V the body no longer mentions u ((u, v) ↦ u·V + v is a bijection "
         "[0,U)×[0,V) → [0,U·V))", "nf._merge_and_close"),
    Rule("sum_alpha_ties", "procedure",
         "binders with equal signatures are ordered by trying their permutations (≤ 720) and "
         "keeping the least key", "", "nf.canonical_sum"),
    Rule("sum_canonical_names", "procedure",
         "binders are named #h.k (h = nesting height, k = position by signature); renaming bound "
         "variables does not change a sum", "", "nf.canonical_sum"),
    Rule("case_split_index", "rule",
         "P(i) for all i < k (k a small numeral) follows from P(0), …, P(k − 1)",
         "the split variable is a free index leaf with a constant range ≤ 16",
         "prove.Prover.compare_at"),
    Rule("rw", "procedure",
         "rewrite with a cited lemma or hypothesis lhs = rhs (a proved proposition P as "
         "P = True): match lhs, instantiate, replace every occurrence whose free names mean "
         "the same", "the lemma is proved (and replayed); its hypotheses are discharged by a "
         "goal hypothesis, by definitional equality, by size polynomials or by nonzero sizes; "
         "every index of the instance is in range", "tactics.rewrite_once"),
    Rule("defeq", "procedure",
         "close the goal when each equation's sides are equal up to α, β, δ and size "
         "polynomials (after `unfold`/`rw`, without normalising)", "fuel-bounded; no binder "
         "named like a global", "tactics.close_by_defeq"),
    Rule("size_fact", "procedure",
         "a ≠ 0 for a monomial of sizes each known nonzero; a ≤ b when b − a has nonnegative "
         "coefficients once every nonzero size n is written 1 + t", "nonzero sizes come from "
         "hypotheses 0 < n, n ≠ 0, (product) ≠ 0", "prove.Prover.size_fact"),
    Rule("compare_normal_forms", "procedure",
         "two terms are equal when their normal forms are identical", "", "prove.Prover.compare"),
    Rule("exact_witness", "procedure",
         "`∃ …, lhs ≠ rhs` (or a closed lhs ≠ rhs) holds when an assignment of the `∃`'s "
         "binders makes the two sides differ in exact arithmetic "
         "(a by-witness giving every binder a numeral goes to the replay kernel alone; any "
         "other is found or completed by the evaluator and re-checked by the kernel, "
         "kernel:witness)", "", "prove._decide_ne"),
    # ---- oracles
    Rule("oracle:ring", "oracle",
         "commutative-ring arithmetic of polynomials over atoms with Fraction coefficients; "
         "a^p · a^(−q) = a^(p−q) only for sizes/scalars known nonzero; [c]² = [c] for indicators",
         "nonzero facts come from hypotheses (0 < R, N * (h * w) ≠ 0, B ≠ 0)", "nf.Poly"),
    Rule("oracle:index-ring", "oracle",
         "integer polynomial arithmetic of sizes and indices (canonical sorted terms)", "",
         "ipoly.IPoly"),
    Rule("oracle:exact-evaluation", "oracle",
         "the numeric semantics evaluated in exact arithmetic (rationals, sympy radicals): "
         "re-checks a counterexample before `refuted`, proposes a witness (which the kernel "
         "re-checks), and alone shows a `≠` only with --no-replay", "", "semantics"),
)

BY_NAME = {r.name: r for r in RULES}


def render_markdown() -> str:
    lines = ["# Rule catalog", "",
             "Generated from `src/shardproof/rewrite/rules.py` "
             "(`python -m shardproof.rewrite.rules > docs/rules.md`). Every `rule` has a property "
             "test against the numeric semantics (`tests/test_rules.py`); `procedure`s are code "
             "with the stated contract; `oracle`s are trusted arithmetic.", "",
             "| name | kind | math | side condition | applied in |", "|---|---|---|---|---|"]
    for r in RULES:
        lines.append(f"| `{r.name}` | {r.kind} | {r.math} | {r.side or '—'} | `{r.where}` |")
    lines.append("")
    lines.append("Definitions unfolded by `unfold` appear in traces as `def:NAME`; opaque "
                 "per-example ops used as atoms appear as `opaque:NAME` (their meaning is the "
                 "numeric implementation in `shardproof.numeric_ops`).")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(render_markdown(), end="")
