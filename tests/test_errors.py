"""Malformed input gives exit status 2 and an error that points at the right place.

Table-driven: each row is a small lemma root (file name → text or bytes), the position the error
must be reported at, and a phrase its message must contain.  Every case goes through the command
line (``cli.main``), as a user would meet it, and must show ``path:line:col: error: …``, the
source line with a caret under the column, the theorem it is inside when there is one, and never
a Python traceback.  Each must also be fast: a malformed file is never a reason to hang.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from shardproof import cli


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str | bytes]
    where: str                      # "path:line:col" of the error
    phrase: str                     # a key phrase of the message
    theorem: str | None = None      # the declaration the error names, `(in `…`)`
    check: str = "a.lemma"          # the file given to `shardproof check`
    hint: str | None = None         # a phrase of the `hint:` line
    extra: tuple[str, ...] = field(default=())  # more phrases the output must contain


H = "theorem t (n : Nat) (x : Vec n) : "
BIG = 1_000_000

CASES = [
    # ---- syntax
    Case("unclosed_paren", {"a.lemma": H + "relu n (x = x\n"},
         "a.lemma:1:48", "the `(` at 1:42 is never closed", "t"),
    Case("unclosed_bracket", {"a.lemma": "theorem t (n : Nat) (x : Vec (n * n)) (i : Fin n) : "
                                         "x[i, i = 0\n"},
         "a.lemma:1:63", "the `[` at 1:54 is never closed", "t"),
    Case("stray_character", {"a.lemma": H + "x = x $\n"},
         "a.lemma:1:41", "unexpected character '$'", "t"),
    Case("theorem_without_statement", {"a.lemma": "theorem t (n : Nat) (x : Vec n) := by norm\n"},
         "a.lemma:1:33", "missing `: statement`", "t"),
    Case("missing_colon_after_binders", {"a.lemma": "theorem t (n : Nat) (x : Vec n) x = x\n"},
         "a.lemma:1:33", "expected another binder `(x : T)` or `:`", "t"),
    Case("def_without_body", {"a.lemma": "def f (n : Nat) (x : Vec n) : Vec n\n" + H + "x = x\n"},
         "a.lemma:1:36", "expected `:=` and a body", "f"),
    Case("opaque_without_type", {"a.lemma": "opaque f (x : ℝ)\n"},
         "a.lemma:1:17", "unexpected end of file; expected another binder", "f"),
    Case("number_where_a_name_is_expected", {"a.lemma": "theorem 3 (n : Nat) : n = n\n"},
         "a.lemma:1:9", "unexpected `3`; expected a name"),
    # A missing term or tactic was "expected `![`, `(`, `-`, `Σ`, `λ`, `∀`, `∃`, `∑`, …" and
    # "expected a name" (the fifty-seventh review): they are named as such.
    Case("missing_term", {"a.lemma": H + "x = := by norm\n"},
         "a.lemma:1:39", "unexpected `:=`; expected a term (a name, a number, `(`", "t"),
    Case("missing_term_at_the_end", {"a.lemma": "def f (x : ℝ) : ℝ := x +\n"},
         "a.lemma:1:25", "unexpected end of file; expected a term (a name", "f"),
    Case("missing_tactic", {"a.lemma": H + "x = x := by\n"},
         "a.lemma:1:46", "unexpected end of file; expected a tactic: `norm`, `rw [h₁, h₂]`", "t"),
    Case("missing_tactic_after_a_semicolon", {"a.lemma": H + "x = x := by norm; 3\n"},
         "a.lemma:1:53", "unexpected `3`; expected a tactic", "t"),
    Case("unfold_without_brackets", {"a.lemma": "def f (x : ℝ) : ℝ := x\n"
                                                "theorem t (x : ℝ) : f x = x := by unfold f; norm\n"},
         "a.lemma:2:42", "`unfold` takes a list in brackets here, `unfold [f]`", "t"),
    # sixty-first review: a tactic on the next line is that message, not "`unfold [norm]`";
    # `:=by` gets the tactic message; a bare `rw` was a silent no-op
    Case("unfold_then_a_line_break", {"a.lemma": H + "x = x := by unfold\n  norm\n"},
         "a.lemma:2:3", "at the start of a line: here tactics are separated by `;`", "t"),
    Case("colon_eq_by_at_the_end", {"a.lemma": H + "x = x :=by\n"},
         "a.lemma:1:45", "unexpected end of file; expected a tactic", "t"),
    Case("bare_rw", {"a.lemma": H + "x = x := by norm; rw\n"},
         "a.lemma:1:53", "`rw` needs a list of what to rewrite with: `rw [h]`", "t"),
    # sixty-sixth review: the message listed `∑` among the expected tokens while refusing it
    Case("sum_after_an_operator", {"a.lemma": "theorem t (R : Nat) (x : Vec R) (y : ℝ) : "
                                              "y * ∑ (i : Fin R), x i = 0\n"},
         "a.lemma:1:47", "after an operator, a `∑` needs parentheses, `y * (∑ …)`", "t"),
    Case("bad_attribute", {"a.lemma": "@[foo x] opaque f (x : ℝ) : ℝ\n"},
         "a.lemma:1:3", "unknown attribute `@[foo x]`", "f"),
    Case("unterminated_comment", {"a.lemma": "/- a comment\n" + H + "x = x\n"},
         "a.lemma:1:1", "unterminated comment"),
    Case("unterminated_docstring", {"a.lemma": "/-- a docstring\n" + H + "x = x\n"},
         "a.lemma:1:1", "unterminated docstring"),
    Case("unterminated_file_doc", {"a.lemma": "/-! # Title\n" + H + "x = x\n"},
         "a.lemma:1:1", "unterminated file docstring"),
    Case("empty_file", {"a.lemma": "\n   \n"}, "a.lemma:1:1", "the file is empty"),
    Case("non_utf8_bytes", {"a.lemma": (H + "x = x -- caf\xe9\n").encode("latin-1")},
         "a.lemma:1:47", "not valid UTF-8 (byte 0xe9)"),
    Case("one_megabyte_line", {"a.lemma": H + "x" + " + x" * (BIG // 4) + " = x\n"},
         "a.lemma:1:20001", "line 1 is too long", "t"),
    # a proof's tactics and cited names are checked like the rest of the file (they were
    # `unknown` verdicts, exit 1, against the docs: eighth review)
    Case("unknown_tactic", {"a.lemma": "theorem t (x : ℝ) : x = x := by sorry\n"},
         "a.lemma:1:33", "unknown tactic `sorry`", "t"),
    Case("unknown_lemma_in_rw", {"a.lemma": "theorem t (x : ℝ) : x = x := by rw [nope]\n"},
         "a.lemma:1:37", "`nope` is neither a hypothesis of `t` nor a theorem", "t"),
    Case("later_theorem_in_rw", {"a.lemma": "theorem t (x : ℝ) : x = x := by rw [u]\n"
                                            "theorem u (x : ℝ) : x = x := by norm\n"},
         "a.lemma:1:37", "nor a theorem declared before it", "t"),
    Case("theorem_in_unfold", {"a.lemma": "theorem u (x : ℝ) : x = x := by norm\n"
                                          "theorem t (x : ℝ) : x = x := by unfold [u]\n"},
         "a.lemma:2:41", "`u` is not a definition in scope", "t"),
    # an obligation `{h : a = b}` of a partially applied definition was checked by nobody
    # (ninth review: a read out of range was then "proved" with --no-replay)
    Case("obligation_of_a_partial_application",
         {"a.lemma": "def g (a b : Nat) {h : a = b} (x : Vec a) : ℝ := ∑ (i : Fin b), x i\n"
                     "def app (f : Nat → Vec 1 → ℝ) (x : Vec 1) : ℝ := f 2 x\n"
                     "theorem t (x : Vec 1) : app (g 1) x = x 0 := by norm\n"},
         "a.lemma:3:30", "applied partially before its condition `a = b`", "t"),
    # a `≠` between reals is existential only as a whole statement (twelfth review: under ∀ it
    # was read for all values and a true one, by its own witness, was refuted)
    Case("nested_real_disequation",
         {"a.lemma": "theorem t (n : Nat) (x : ℝ) : ∀ (i : Fin n), x + 1 ≠ x + 1 := by norm\n"},
         "a.lemma:1:46", "as a whole statement", "t"),
    Case("real_disequation_in_a_conjunction",
         {"a.lemma": "theorem t (x : ℝ) : x = x ∧ x ≠ x + 1 := by norm\n"},
         "a.lemma:1:29", "as a whole statement", "t"),
    Case("real_disequation_inside_a_definition",
         {"a.lemma": "def D (n : Nat) (x : ℝ) : Prop := ∀ (i : Fin n), x + 1 ≠ x + 1\n"
                     "theorem t (n : Nat) (x : ℝ) : D n x := by witness (n := 0)\n"},
         "a.lemma:2:31", "or inside a definition", "t"),
    Case("witness_for_an_equation", {"a.lemma": "theorem t (x : ℝ) : x = x := by witness (x := 1)\n"},
         "a.lemma:1:33", "`witness` proves `∃ …, a ≠ b`", "t"),
    Case("witness_for_sizes", {"a.lemma": "theorem t (R : Nat) : R ≠ 0 := by witness (R := 1)\n"},
         "a.lemma:1:35", "`witness` proves `∃ …, a ≠ b`", "t"),
    # thirty-seventh review: a name given twice (the last value won) or one that is not a
    # variable of the theorem (the witness then ended `unknown`) was no input error
    Case("witness_twice",
         {"a.lemma": "theorem t : ∃ (x : ℝ), x ≠ 1 := by witness (x := 1) (x := 2)\n"},
         "a.lemma:1:53", "given twice", "t"),
    Case("witness_not_a_variable",
         {"a.lemma": "theorem t : ∃ (x : ℝ), x ≠ 1 := by witness (y := 2)\n"},
         "a.lemma:1:44", "not a variable of `t`", "t"),
    # tenth session: a negative result is an `∃` (Lean's counterexample); its forms are checked
    Case("exists_after_binders", {"a.lemma": "theorem e (y : ℝ) : ∃ (x : ℝ), x ≠ y\n"},
         "a.lemma:1:12", "that reads `∀ …, ∃ …`", "e"),
    Case("exists_with_an_untyped_binder", {"a.lemma": "theorem e : ∃ x, x + 1 ≠ (2 : ℝ)\n"},
         "a.lemma:1:15", "`x` needs a type", "e"),
    Case("exists_of_an_equation", {"a.lemma": "theorem e : ∃ (x : ℝ), x + 1 = 2\n"},
         "a.lemma:1:24", "it must end in a `≠` between reals or vectors", "e"),
    Case("exists_of_sizes", {"a.lemma": "theorem e : ∃ (n : Nat), n ≠ 0\n"},
         "a.lemma:1:26", "it must end in a `≠` between reals or vectors", "e"),
    Case("exists_in_a_hypothesis",
         {"a.lemma": "theorem e (h : ∃ (x : ℝ), x ≠ 0) : (1 : ℝ) = 1\n"},
         "a.lemma:1:16", "`∃` is read only as a theorem's whole statement", "e"),
    Case("exists_in_a_definition", {"a.lemma": "def f : Prop := ∃ (x : ℝ), x ≠ 0\n"},
         "a.lemma:1:17", "`∃` is read only as a theorem's whole statement", "f"),
    Case("exists_in_a_conjunction", {"a.lemma": "theorem e : (∃ (x : ℝ), x ≠ 0) ∧ 1 = 1\n"},
         "a.lemma:1:14", "`∃` is read only as a theorem's whole statement", "e"),
    Case("include_of_an_undeclared_name",
         {"a.lemma": "variable (x : ℝ) (hx : x = 0)\ninclude hxx\ntheorem t : x = x\n"},
         "a.lemma:2:9", "`hxx` is not declared by an earlier `variable`", hint="did you mean `hx`?"),
    Case("include_before_its_variable",
         {"a.lemma": "include hx\nvariable (x : ℝ) (hx : x = 0)\ntheorem t : x = x\n"},
         "a.lemma:1:9", "`hx` is not declared by an earlier `variable`"),
    # thirty-ninth review: text Lean reads in ℕ or in `Fin n`, where it means something else,
    # was proved here (`/` divides reals, a real `≠` needs one witness, indices do not wrap)
    Case("natural_division", {"a.lemma": "theorem t (n : Nat) : n / 2 * 2 = n := by norm\n"},
         "a.lemma:1:23", "Lean computes it in ℕ, where `/` rounds down", "t",
         hint="to mean the reals, say so as in Lean: `(n - 1 : ℝ)`, `(1 / R : ℝ)` (a cast), or "
              "give the arithmetic a real operand"),
    Case("natural_division_in_a_condition",
         {"a.lemma": "theorem t (x : ℝ) : (if 1 / 2 = 0 then x else 0) = 0 := by norm\n"},
         "a.lemma:1:25", "Lean computes it in ℕ, where `/` rounds down", "t"),
    Case("natural_division_in_a_hypothesis",
         {"a.lemma": "theorem t (R N : Nat) (h : R / N = 2) (x : ℝ) : x = x := by norm\n"},
         "a.lemma:1:28", "Lean computes it in ℕ, where `/` rounds down", "t"),
    Case("index_arithmetic_that_wraps_in_lean",
         {"a.lemma": "theorem t (x : ℝ) : (fun (i : Fin 1) => if i + 1 = 0 then x else 0) =\n"
                     "    (fun (i : Fin 1) => 0) := by norm\n"},
         "a.lemma:1:44", "wrap around modulo n", "t",
         hint="add a size to the comparison (`i + 1 = n`): then Lean reads it in ℕ too"),
    Case("numeral_not_below_the_index_range",
         {"a.lemma": "theorem t (x : ℝ) : (fun (i : Fin 1) => if i < 1 then x else 0) =\n"
                     "    (fun (i : Fin 1) => x) := by norm\n"},
         "a.lemma:1:48", "Lean reads the numeral `1`", "t",
         hint="write the size so that it is (`Fin (m + 2)`), or add a size to the comparison: "
              "then Lean reads it in ℕ too"),
    Case("real_disequation_beside_an_index_one_of_the_same_text",
         {"a.lemma": "theorem t (n : Nat) : (∀ (k : ℝ), k + n ≠ 0) ∧ (∀ (k : Fin 2), k + n ≠ 0) "
                     ":= by norm\n"},
         "a.lemma:1:35", "as a whole statement", "t"),
    # forty-first review: ways around the above, each proved with replay on
    Case("natural_subtraction_made_real_by_a_power",
         {"a.lemma": "theorem t (n : Nat) : n ^ 1 - 1 + 1 = n := by norm\n"},
         "a.lemma:1:23", "where `-` stops at 0", "t"),
    Case("natural_division_inside_a_sum_with_a_real_outside",
         {"a.lemma": "theorem t (n : Nat) (x : ℝ) : (∑ (i : Fin n), n / 2) * x = n * (n / 2) * x "
                     ":= by norm\n"},
         "a.lemma:1:47", "where `/` rounds down", "t"),
    Case("natural_division_of_a_vector_literal_entry",
         {"a.lemma": "theorem t (n : Nat) : ![n, n] 0 / 2 * 2 = n := by norm\n"},
         "a.lemma:1:23", "where `/` rounds down", "t"),
    Case("natural_division_in_an_applied_fun",
         {"a.lemma": "theorem t (n : Nat) : (fun (k : Fin 3) => n / 2) 0 * 2 = n := by norm\n"},
         "a.lemma:1:43", "where `/` rounds down", "t"),
    Case("sum_body_of_a_sum_after_a_comment",
         {"a.lemma": "theorem t (x : Vec 2) (c : ℝ) : (∑ (i : Fin 2), /- c -/ x i + c) = 0\n"},
         "a.lemma:1:57", "Lean (Mathlib) reads it as `(∑ …, a) + b`", "t"),
    Case("include_redeclared_by_a_theorem",
         {"a.lemma": "variable (x : ℝ) (hx : x = 0)\ninclude hx\n"
                     "theorem t (hx : x = 1) : x = 5 := by norm\n"},
         "a.lemma:3:12", "declared by this theorem and also brought in by `include hx`", "t"),
    Case("include_whose_variable_a_theorem_redeclares",
         {"a.lemma": "variable (x : ℝ) (hx : x = 0)\ninclude hx\ntheorem t (x : ℝ) : x = 5\n"},
         "a.lemma:3:12", "(its type mentions `x`)", "t"),
    # forty-third review: more ways around (a head, a `fun` leaf, the scalar of a `•` head, a
    # compound head's kind), each proved with replay on
    Case("natural_subtraction_in_a_vector_literal_under_a_cast",
         {"a.lemma": "theorem t (n : Nat) : (![n - 1, n] 0 : ℝ) + 1 = n := by norm\n"},
         "a.lemma:1:26", "where `-` stops at 0", "t"),
    Case("natural_division_in_an_applied_fun_under_a_cast",
         {"a.lemma": "theorem t (n : Nat) : ((fun (k : Fin 2) => n / 2) 0 : ℝ) * 2 = n := by norm\n"},
         "a.lemma:1:44", "where `/` rounds down", "t"),
    Case("natural_division_in_a_fun_compared_with_a_fun",
         {"a.lemma": "theorem t (n : Nat) : (fun (k : Fin 2) => n / 2 * 2) = (fun (k : Fin 2) => n) "
                     ":= by norm\n"},
         "a.lemma:1:43", "where `/` rounds down", "t"),
    # forty-fifth review: a definition whose result is a function into `Nat`, applied past its
    # parameters, was read as a vector (real): this was proved with replay on
    Case("natural_subtraction_through_a_definition_returning_a_function",
         {"a.lemma": "def sz (n : Nat) (k : Fin 3) : Nat := n\n"
                     "def G (n : Nat) : Fin 3 → Nat := sz n\n"
                     "theorem t4 (n : Nat) : G n 0 ^ 1 - 1 + 1 = G n 0 ^ 1 := by norm\n"},
         "a.lemma:3:24", "where `-` stops at 0", "t4"),
    # forty-eighth review: decimals with no real beside them are `Float` in Lean (the default
    # instance of `OfScientific`), where `0.1 + 0.2 ≤ 0.3` is false: proved here, replay on
    Case("decimals_alone_are_floats_in_lean",
         {"a.lemma": "theorem fa (x : ℝ) : (if 0.1 + 0.2 ≤ 0.3 then x else 0) = x := by norm\n"},
         "a.lemma:1:26", "Lean reads a decimal as a `Float`", "fa",
         hint="say the reals as in Lean: `(0.1 : ℝ)` (a cast), or give the arithmetic a real "
              "operand"),
    Case("an_integral_decimal_is_a_decimal",
         {"a.lemma": "theorem fb (x : ℝ) : (if 100000000000000000.0 < 100000000000000000.0 + 1 "
                     "then x else 0) = x := by norm\n"},
         "a.lemma:1:26", "Lean reads a decimal as a `Float`", "fb"),
    Case("a_closed_decimal_equation", {"a.lemma": "theorem fl1 : 0.1 + 0.2 = 0.3 := by norm\n"},
         "a.lemma:1:15", "Lean reads a decimal as a `Float`", "fl1"),
    Case("a_decimal_beside_a_natural_number",
         {"a.lemma": "theorem t (R : Nat) (h : R * 0.5 = 1) (x : ℝ) : x = x := by norm\n"},
         "a.lemma:1:26", "beside a natural number it has none", "t"),
    # fiftieth review (notation): Lean's block comments nest, so `x /- /- -/ + 1 -- -/` is `x`
    # there and was `x + 1` here; Lean applies a several-binder `fun` to its first argument,
    # where it was a flat vector read here: both proved false statements with replay on
    Case("a_block_comment_inside_a_block_comment",
         {"a.lemma": "theorem nest1 (x : ℝ) : x + 1 = x /- /- -/ + 1 -- -/\n  := by norm\n"},
         "a.lemma:1:38", "a `/-` inside a comment: Lean's block comments nest", "nest1"),
    Case("a_block_comment_inside_a_docstring",
         {"a.lemma": "/-- see /- this -/ -/\ntheorem t (x : ℝ) : x = x\n"},
         "a.lemma:1:9", "a `/-` inside a comment"),
    Case("a_several_binder_fun_applied",
         {"a.lemma": "theorem part1 (w : Vec 2) (p0 p1 : Fin 2) :\n"
                     "    (fun (p : Fin 2) (q : Fin 2) => w p) p0 = w p0 := by norm\n"},
         "a.lemma:2:5", "Lean applies it to its first argument", "part1",
         hint="index it at every binder, `(fun p q => …)[i, j]`, or name the vector with a "
              "`def`"),
    Case("a_decimal_exponent", {"a.lemma": "theorem p (x : ℝ) : x ^ 2.0 = x * x := by norm\n"},
         "a.lemma:1:25", "the exponent must be a natural-number literal", "p"),
    # forty-ninth review: a size past the type checker's expansion bound was reported as
    # `S ≠ S as polynomials`; the message names the bound
    Case("a_size_too_large_to_compare",
         {"a.lemma": "theorem t (a b c d e f g h i j : Nat) (x : Vec (" +
                     "*".join(["(a+b+c+d+e+f+g+h+i+j)"] * 6) + ")) : x = x := by norm\n"},
         "a.lemma:1:189", "too large to compare: expanded, it has more than 10,000 terms", "t"),
    Case("natural_division_in_the_scalar_of_an_applied_smul",
         {"a.lemma": "theorem t (n : Nat) (v : Vec 1) : ((n / 2 * 2) • v) 0 = (n • v) 0 := by norm\n"},
         "a.lemma:1:37", "where `/` rounds down", "t"),
    Case("natural_division_in_the_condition_of_an_applied_if",
         {"a.lemma": "theorem t (n : Nat) (v w : Vec 1) : (if n / 2 * 2 = n then v else w) 0 = v 0 "
                     ":= by norm\n"},
         "a.lemma:1:41", "where `/` rounds down", "t"),
    Case("natural_subtraction_beside_a_compound_head",
         {"a.lemma": "theorem t (n : Nat) : (n • (fun (k : Fin 1) => n)) 0 - 1 + 1 = n * n := by norm\n"},
         "a.lemma:1:23", "where `-` stops at 0", "t"),
    # forty-fourth review: an index from a `Fin`-valued definition skipped the `Fin n` check
    Case("index_arithmetic_through_a_fin_valued_definition",
         {"a.lemma": "def idx (i : Fin 2) : Fin 2 := i\n"
                     "theorem t (x : ℝ) : (if idx 1 + 1 = 0 then x else 0) = 0 := by norm\n"},
         "a.lemma:2:25", "wrap around modulo n", "t"),
    Case("numeral_past_the_range_of_a_fin_valued_definition",
         {"a.lemma": "def idx (i : Fin 2) : Fin 2 := i\n"
                     "theorem t (x : ℝ) : (if idx 1 = 3 then x else 0) = 0 := by norm\n"},
         "a.lemma:2:33", "Lean reads the numeral `3`", "t"),
    Case("index_arithmetic_in_a_prop_definition",
         {"a.lemma": "def idx (i : Fin 2) : Fin 2 := i\ndef Q (i : Fin 2) : Prop := idx i + 1 = 0\n"
                     "theorem t : Q 1 := by norm\n"},
         "a.lemma:2:29", "wrap around modulo n", "Q"),
    Case("cast_to_another_type_than_the_reals",
         {"a.lemma": "theorem t (n : Nat) : (n : Nat) = n\n"},
         "a.lemma:1:28", "is only `(e : ℝ)` here", "t"),
    Case("sum_body_of_a_sum_without_parentheses",
         {"a.lemma": "theorem t (x : Vec 2) (c : ℝ) : (∑ (i : Fin 2), x i + c) = 0\n"},
         "a.lemma:1:49", "Lean (Mathlib) reads it as `(∑ …, a) + b`", "t"),
    Case("sum_body_of_an_equation_without_parentheses",     # (fifty-seventh review)
         {"a.lemma": "theorem t (x : Vec 2) (c : ℝ) : ∑ (i : Fin 2), x i = c\n"},
         "a.lemma:1:48", "write the parentheses: `(∑ …, a) = b`", "t"),
    Case("unicode_digit", {"a.lemma": "theorem t (s : ℝ) : s + ١ = s + 1\n"},
         "a.lemma:1:25", "unexpected character '١'", "t"),      # not read as `1`
    Case("unicode_digit_in_a_decimal", {"a.lemma": "theorem t (s : ℝ) : s + 0.٥ = s\n"},
         "a.lemma:1:26", "unexpected `.`", "t"),
    Case("cr_only_line_endings",
         {"a.lemma": b"/-! h -/\r\r/-- d -/\rtheorem c3 (x : Real) :\r    x = y := by norm\r"},
         "a.lemma:1:9", "a carriage return (CR) that is not part of a CRLF line ending"),
    Case("lone_cr_inside_a_line", {"a.lemma": H + "x = x\r+ x\n"},
         "a.lemma:1:40", "a carriage return (CR)", "t"),
    Case("crlf_line_endings", {"a.lemma": ("/-! h -/\r\n" + H + "\r\n    y = x\r\n").encode()},
         "a.lemma:3:5", "unknown name `y`", "t"),
    Case("form_feed_in_a_comment_is_not_a_line_break",
         {"a.lemma": "-- a\x0c b \u2028 c\n" + H + "y = x\n"},
         "a.lemma:2:35", "unknown name `y`", "t"),
    Case("nested_too_deeply", {"a.lemma": "theorem t (s : ℝ) : " + "sqrt (" * 120 + "s"
                               + ")" * 120 + " = s\n"},
         "a.lemma:1:597", "nested too deeply", "t"),
    # ---- imports and the lemma root
    Case("import_leaves_the_root", {"a.lemma": "import ..x\n" + H + "x = x\n"},
         "a.lemma:1:8", "`..` and other relative paths are not allowed"),
    Case("import_of_a_missing_file", {"a.lemma": "import kit.nope\n" + H + "x = x\n"},
         "a.lemma:1:1", "cannot find `kit.nope`", extra=("kit/nope.lemma",)),
    Case("import_cycle", {"a.lemma": "import b\n" + H + "x = x\n",
                          "b.lemma": "import a\ndef q (s : ℝ) : ℝ := s\n"},
         "b.lemma:1:1", "import cycle: a.lemma → b.lemma → a.lemma"),
    Case("import_path_with_spaces_at_a_dot",           # (fifty-third review's note)
         {"a.lemma": "import kit . defs\n" + H + "x = x\n"},
         "a.lemma:1:11", "an import path is one dotted name"),
    Case("import_after_a_declaration",                  # (fifty-third review's note)
         {"a.lemma": H + "x = x\nimport b\n", "b.lemma": "def q (s : ℝ) : ℝ := s\n"},
         "a.lemma:2:1", "an `import` comes before the file's declarations"),
    Case("error_inside_an_imported_file", {"a.lemma": "import kit.defs\n" + H + "x = x\n",
                                           "kit/defs.lemma": "def q (s : ℝ) : ℝ := s +\n"},
         "kit/defs.lemma:1:25", "unexpected end of file", "q"),
    # ---- names and declarations
    Case("unknown_op_with_suggestion", {"a.lemma": H + "rleu n x = x\n"},
         "a.lemma:1:35", "unknown name `rleu`", "t", hint="did you mean `relu`?"),
    Case("mathlib_inverse", {"a.lemma": "theorem t (x : ℝ) : x⁻¹ = 1 / x\n"},
         "a.lemma:1:22", "Mathlib's `x⁻¹` is not read here: write `1 / x`", "t"),
    Case("qualified_name", {"a.lemma": "theorem t (x : ℝ) : Real.sqrt x = sqrt x\n"},
         "a.lemma:1:25", "qualified names (`Real.…`) are not read here", "t"),
    Case("mathlib_abs", {"a.lemma": "theorem t (x : ℝ) : abs x = x\n"},
         "a.lemma:1:21", "unknown name `abs`", "t",
         hint="write `|x|` as `relu x + relu (-x)`, or `if 0 ≤ x then x else -x`"),
    Case("def_without_a_result_type",                      # (fifty-seventh review)
         {"a.lemma": "def twice (x : ℝ) := x + x\n"},
         "a.lemma:1:19", "write `def name binders : type := body`", "twice"),
    Case("mathlib_sum_in_a_finset",                        # (fifty-seventh review)
         {"a.lemma": "theorem t (n : Nat) (x : Vec n) : (∑ i in n, x i) = 0\n"},
         "a.lemma:1:40", "Mathlib's `∑ i in s, f i`", "t"),
    Case("mathlib_sum_in_finset_range",
         {"a.lemma": "theorem t (n : Nat) (x : Vec n) : (∑ i in Finset.range n, x i) = 0\n"},
         "a.lemma:1:49", "Mathlib's `∑ i in s, f i`", "t"),
    Case("tactics_on_lines_of_their_own",                  # (fifty-seventh review)
         {"a.lemma": "theorem t (x : ℝ) (h : x = 1) : x = 1 := by\n  rw [h]\n  norm\n"},
         "a.lemma:3:3", "here tactics are separated by `;`", "t"),
    Case("proof_without_assign", {"a.lemma": "theorem t (v : ℝ) : v + 0 = v\n  by norm\n"},
         "a.lemma:2:3", "too many arguments", "t",                 # (fifty-seventh review)
         hint="a proof follows `:=`: `theorem t … : statement := by norm`"),
    Case("unknown_local_name", {"a.lemma": H + "relu n y = x\n"},
         "a.lemma:1:42", "unknown name `y`", "t"),
    Case("duplicate_theorem", {"a.lemma": H + "x = x\n" + H + "relu n x = x\n"},
         "a.lemma:2:1", "duplicate declaration `t` (first declared at a.lemma:1:1)", "t"),
    Case("duplicate_binder", {"a.lemma": "theorem t (n : Nat) (x x : Vec n) : x = x\n"},
         "a.lemma:1:24", "the binder `x` is declared twice", "t"),
    Case("redefining_a_prelude_op", {"a.lemma": "opaque sqrt (x : ℝ) : ℝ\n"},
         "a.lemma:1:1", "`sqrt` is a built-in of the prelude", "sqrt"),
    Case("linear_attribute_names_no_parameter", {"a.lemma": "@[linear q] opaque f (x : ℝ) : ℝ\n"},
         "a.lemma:1:13", "`@[linear q]` names no parameter of `f`", "f"),
    Case("named_argument_to_unknown_parameter",
         {"a.lemma": "theorem t (n : Nat) (x y : Vec n) : addV (m := n) x y = x\n"},
         "a.lemma:1:42", "`addV` has no parameter `m`", "t"),
    Case("theorem_used_as_a_term", {"a.lemma": "theorem u (s : ℝ) : s = s\n"
                                               "theorem t (s : ℝ) : u = s\n"},
         "a.lemma:2:21", "`u` is a theorem; cite it in a proof", "t"),
    # ---- types and sizes
    Case("too_many_arguments_to_a_real_def", {"a.lemma": "theorem t (s : ℝ) : sigmoidR s s = s\n"},
         "a.lemma:1:32", "`sigmoidR` takes 1 explicit argument, got 2", "t"),
    Case("too_many_arguments_to_a_vector_def", {"a.lemma": H + "relu n x x = x\n"},
         "a.lemma:1:44", "too many arguments: `relu n x` is a vector", "t"),
    Case("missing_size_argument", {"a.lemma": H + "relu x = x\n"},
         "a.lemma:1:40", "`x` is not a size", "t"),
    Case("size_mismatch", {"a.lemma": "theorem t (R N a : Nat) (X : Vec (N * a)) (r : Fin R) :\n"
                                      "    shard R N a X r = shard R N a X r\n"},
         "a.lemma:2:17", "size mismatch in argument `X` of `shard`: expected Vec (R * N * a)",
         "t"),
    Case("index_out_of_range", {"a.lemma": "theorem t (R N a : Nat) (X : Vec ((R * N) * a))\n"
                                           "    (r : Fin R) (n : Fin N) (j : Fin a) :\n"
                                           "    X[r * R + n, j] = 0\n"},
         "a.lemma:3:7", "cannot show that the index `r * R + n` is below `R * N`", "t"),
    Case("type_used_as_a_value", {"a.lemma": H + "relu n Nat = x\n"},
         "a.lemma:1:42", "the type `Nat` cannot be used as a value", "t"),
    Case("fin_index_used_as_a_real", {"a.lemma": "theorem t (n : Nat) (s : ℝ) (i : Fin n) : "
                                                 "s * i = s\n"},
         "a.lemma:1:47", "an index (Fin) cannot be used as a real number", "t"),
    Case("fin_index_equated_to_a_real", {"a.lemma": "theorem t (n : Nat) (x : Vec n) (i : Fin n) :"
                                                    " x i = i\n"},
         "a.lemma:1:53", "an index (Fin n) cannot be used as a real number", "t"),
    Case("fun_body_of_the_wrong_type", {"a.lemma": "def f (n : Nat) : Vec n := "
                                                   "fun (i : Fin n) => i\n"},
         "a.lemma:1:47", "a `fun` over indices must produce real numbers", "f"),
    Case("fun_returning_a_vector_where_a_vector_is_expected",
         {"a.lemma": "def f (n : Nat) (x : Vec n) : Vec n := fun (i : Fin n) => x\n"},
         "a.lemma:1:40", "expected Vec n, got Fin n → Vec n", "f"),
    Case("ne_between_vector_and_scalar", {"a.lemma": H + "x ≠ 0\n"},
         "a.lemma:1:39", "type mismatch in the two sides of the equation", "t"),
    Case("forall_binder_type_not_inferable", {"a.lemma": H + "∀ r, x = x\n"},
         "a.lemma:1:37", "cannot infer the type of `r`", "t", hint=None,
         extra=("write `(r : Fin n)`",)),
    Case("vector_times_vector", {"a.lemma": H + "x * x = x\n"},
         "a.lemma:1:35", "`*` between vectors is not defined", "t"),
    Case("vector_plus_scalar", {"a.lemma": H + "x + 1 = x\n"},
         "a.lemma:1:35", "cannot add a vector and a scalar", "t"),
    Case("subtraction_of_sizes", {"a.lemma": "theorem t (n m : Nat) (x : Vec (n - m)) : x = x\n"},
         "a.lemma:1:33", "sizes and indices are natural numbers: no subtraction", "t"),
    # Lean reads this body in ℕ, where `0 - 1 = 0`: refused, not read as a real
    Case("natural_subtraction_in_a_nat_fun", {"a.lemma": "def ap (g : Nat → Nat) (n : Nat) : Nat "
          ":= g n\ntheorem t (n : Nat) : ap (fun (m : Nat) => m - 1) n = n := by norm\n"},
         "a.lemma:2:44", "sizes and indices are natural numbers: no subtraction", "t"),
    # sizes are polynomials: an `if` or a `∑` is a real, and the message says so
    Case("if_as_a_nat_fun_body", {"a.lemma": "def ap (g : Nat → Nat) (n : Nat) : Nat := g n\n"
          "theorem t : ap (fun m => if m = 0 then 1 else m) 0 = 1 := by norm\n"},
         "a.lemma:2:17", "(an `if` is always a real number here: sizes are polynomials", "t"),
    Case("if_as_an_index", {"a.lemma": "theorem t (n : Nat) (x : Vec n) (hn : 0 < n) "
                                         "(i : Fin n) : x (if i = 0 then 0 else 0) = x 0\n"},
         "a.lemma:1:63", "this `if` has type ℝ (an `if` whose branches are numerals or sizes", "t"),
    Case("sum_as_a_nat_def", {"a.lemma": "def g (n : Nat) : Nat := ∑ (i : Fin n), 1\n"},
         "a.lemma:1:26", "(a `∑` is always a real number here", "g"),
    Case("vec_with_two_sizes", {"a.lemma": "theorem t (n : Nat) (x : Vec n n) : x = x\n"},
         "a.lemma:1:26", "`Vec` takes one size, got 2", "t"),
    Case("unknown_type", {"a.lemma": "theorem t (n : Nat) (x : Foo n) : x = x\n"},
         "a.lemma:1:26", "`Foo n` is not a type", "t"),
    Case("if_condition_not_a_statement",
         {"a.lemma": "theorem t (n : Nat) (x : Vec n) (i : Fin n) : "
                     "(if x i then 1 else 0) = 0\n"},
         "a.lemma:1:51", "expected a statement (Prop)", "t"),
    Case("sum_over_the_reals", {"a.lemma": "theorem t (s : ℝ) : (∑ (i : ℝ), s) = 0\n"},
         "a.lemma:1:25", "`∑` ranges over `Fin n`", "t"),
    Case("exponent_not_a_literal", {"a.lemma": "theorem t (s : ℝ) : s ^ s = s\n"},
         "a.lemma:1:25", "the exponent must be a natural-number literal", "t"),
    Case("indexing_a_scalar", {"a.lemma": "theorem t (s : ℝ) : s[0] = s\n"},
         "a.lemma:1:21", "only vectors can be indexed", "t"),
    Case("scalar_on_the_right_of_smul", {"a.lemma": "theorem t (n : Nat) (x : Vec n) (s : ℝ) : "
                                                    "x • s = x\n"},
         "a.lemma:1:43", "type mismatch in this term: expected ℝ, got Vec n", "t"),
    Case("definition_hypothesis_not_satisfied",
         {"a.lemma": "theorem t (a b : Nat) (x : Vec a) : castIdx b x = castIdx b x\n"},
         "a.lemma:1:37", "`castIdx` needs `a = b`", "t"),
    # ---- sixteenth review: input that was accepted with another meaning, or crashed
    # `h a (c := 99)` dropped `c`, and `app2` passed 2 for it: `2 • x = 2 • x` was proved
    Case("named_argument_after_a_missing_one",
         {"a.lemma": "def h (n : Nat) (x : Vec n) (c : ℝ) : Vec n := c • x\n"
                     "def app2 (n : Nat) (f : Vec n → ℝ → Vec n) (x : Vec n) : Vec n := f x 2\n"
                     "theorem t (a : Nat) (x : Vec a) : app2 a (h a (c := 99)) x = 2 • x\n"},
         "a.lemma:3:47", "`h` gets `c` but not the argument `x` before it", "t"),
    Case("named_argument_given_twice",
         {"a.lemma": "def h (n : Nat) (x : Vec n) (c : ℝ) : Vec n := c • x\n"
                     "theorem t (a : Nat) (x : Vec a) : h a x (c := 5) (c := 7) = 7 • x\n"},
         "a.lemma:2:50", "the argument `c` of `h` is given twice", "t"),
    Case("named_argument_for_a_condition",            # (was an internal error)
         {"a.lemma": "def f (n : Nat) (h : 0 < n) (x : Vec n) : Vec n := x\n"
                     "theorem t (n : Nat) (hn : 0 < n) (x : Vec n) : f n x (h := hn) = x\n"},
         "a.lemma:2:54", "`h` is a condition of `f`", "t"),
    Case("untyped_binders_of_a_size_that_does_not_split",
         {"a.lemma": "theorem t (n : Nat) (v : Vec n) : v = fun i j => 0\n"},
         "a.lemma:1:39", "Vec n does not split into 2 factors", "t"),
    Case("a_binder_named_like_a_type",
         {"a.lemma": "theorem t (Nat : ℝ) : Nat = Nat\n"},
         "a.lemma:1:12", "`Nat` names a type", "t"),
    Case("a_declaration_named_like_a_type",
         {"a.lemma": "def Fin (n : Nat) : ℝ := 0\n"},
         "a.lemma:1:1", "`Fin` names a type", "Fin"),
    Case("linear_in_a_size",
         {"a.lemma": "@[linear n] opaque f (n : Nat) (x : Vec n) : Vec n\n"},
         "a.lemma:1:13", "needs `n` and the result of `f` to be vectors", "f"),
    Case("linear_with_a_real_result",
         {"a.lemma": "@[linear x] opaque f (x : Vec 2) : ℝ\n"},
         "a.lemma:1:13", "needs `x` and the result of `f` to be vectors", "f"),
    # twenty-fifth review (the docs walk): `a = b = c` listed a dozen tokens that cannot stand
    # there (`@[`, `=>`, a file docstring)
    Case("chained_comparison", {"a.lemma": "theorem t (a b c : ℝ) : a = b = c := by norm\n"},
         "a.lemma:1:31", "comparisons do not chain; write `a = b ∧ b = c`", "t"),
    # twenty-sixth review: a hypothesis used as a value or a statement had none, and the search
    # read a global of its name declared later (`def h : Prop := 1 = 2`)
    Case("hypothesis_as_a_condition",
         {"a.lemma": "theorem w (y : ℝ) (h : 0 < 1) : (if h then y else y + 1) = y := by norm\n"
                     "def h : Prop := 1 = 2\n"},
         "a.lemma:1:37", "`h` is a hypothesis (it names a proof of a statement)", "w"),
    Case("hypothesis_as_a_statement",
         {"a.lemma": "theorem t (x : ℝ) (h : 0 < 1) : h ∧ x = x := by norm\n"},
         "a.lemma:1:33", "`h` is a hypothesis", "t"),
    Case("condition_parameter_as_a_value",
         {"a.lemma": "def Q (y : ℝ) {h : 0 < 1} : ℝ := if h then y else y + 1\n"},
         "a.lemma:1:37", "`h` is a hypothesis", "Q"),
    # twenty-third review: an op returning a size, an index or a map crashed the engine
    Case("op_with_a_size_result", {"a.lemma": "opaque g (x : ℝ) : Nat\n"},
         "a.lemma:1:20", "must be a real (`ℝ`) or a vector (`Vec n`), not `Nat`", "g"),
    Case("op_with_a_map_result", {"a.lemma": "opaque g (x : ℝ) : Fin 3 → ℝ\n"},
         "a.lemma:1:20", "must be a real (`ℝ`) or a vector (`Vec n`)", "g"),
    Case("op_with_an_index_result", {"a.lemma": "opaque g (x : ℝ) : Fin 3\n"},
         "a.lemma:1:20", "must be a real (`ℝ`) or a vector (`Vec n`)", "g"),
    # the seventy-fifth review: implicits that do not match factor by factor were printed as
    # sizes, `Vec (c * b * a)` "should" be `Vec (c * a * b)` (an equal polynomial)
    Case("implicit_not_inferred",
         {"a.lemma": "def f {c k l : Nat} (W : Vec (c * k * l)) : Vec (c * k * l) := W\n"
                     "theorem t (c a b : Nat) (W : Vec (c * a * b)) : "
                     "f (k := b) (l := a) W = f W := by norm\n"},
         "a.lemma:2:69", "cannot infer the implicit size `c` of `f` from its argument `W`: the "
         "type Vec (c * a * b) is matched against Vec (?c * b * a)", "t",
         extra=("`f (c := …)`",)),
    # the seventy-ninth review: a value of another kind is no implicit to infer
    Case("implicit_argument_of_another_kind",
         {"a.lemma": "def f {n : Nat} (v : Vec n) : ℝ := ∑ (i : Fin n), v i\n"
                     "theorem t (s : ℝ) : f s = s := by norm\n"},
         "a.lemma:2:23", "argument `v` of `f` should have type Vec n, got ℝ", "t"),
    Case("implicits_not_inferred",
         {"a.lemma": "def hh {c k l : Nat} (W : Vec (c * k * l)) : Vec c := fun (i : Fin c) => 0\n"
                     "theorem t (c a b : Nat) (W : Vec (c * (a * b))) : hh W = hh W := by norm\n"},
         "a.lemma:2:54", "cannot infer the implicit sizes `c`, `k`, `l` of `hh`", "t"),
]


def _source_line(files: dict[str, str | bytes], path: str, line: int) -> str:
    """Line ``line`` as the lexer counts lines: at `\n` only (not at a form feed or U+2028, as
    ``str.splitlines`` would), without a CRLF's `\r`, and up to a lone `\r` (which is an error)."""
    data = files[path]
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    lines = text.split("\n")
    return lines[line - 1].removesuffix("\r").split("\r")[0] if line <= len(lines) else ""


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_input(case: Case, tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / ".lemmaroot").write_text("")
    for name, content in case.files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)

    t0 = time.perf_counter()
    code = cli.main(["check", "--no-color", "--search-seconds", "0.2", case.check])
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()

    assert code == 2, (out, err)
    assert elapsed < 2.0, f"{case.id} took {elapsed:.2f} s"
    assert "Traceback" not in out + err
    lines = err.splitlines()
    head = next((k for k, ln in enumerate(lines) if ln.startswith(case.where + ": error: ")),
                None)
    assert head is not None, f"no error at {case.where}:\n{err}"
    assert case.phrase in lines[head], lines[head]
    if case.theorem is not None:
        assert lines[head].endswith(f"(in `{case.theorem}`)"), lines[head]
    for phrase in case.extra:
        assert phrase in err
    if case.hint is not None:
        assert f"  hint: {case.hint}" in lines

    # The source line, then a caret under the reported column.
    path, line, col = case.where.rsplit(":", 2)
    shown, caret = lines[head + 1], lines[head + 2]
    assert shown.startswith("  ") and re.fullmatch(r"  *\^+", caret), (shown, caret)
    source = _source_line(case.files, path, int(line))
    if shown.startswith("  …"):  # a very long line is shown as a window around the column
        assert shown[3:].rstrip("…") in source
    else:
        assert shown[2:] == source
        assert caret.index("^") - 2 == int(col) - 1, (shown, caret)


def test_every_listed_kind_is_covered() -> None:
    """The table keeps at least 30 rows, each with a distinct name."""
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


def test_input_error_annotations_for_github(tmp_path, monkeypatch, capsys) -> None:
    """With GITHUB_ACTIONS=true an input error is also a `::error file=…,line=…,col=…::` line."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text(H + "rleu n x = x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert cli.main(["check", "a.lemma"]) == 2
    out, _err = capsys.readouterr()
    assert "::error file=a.lemma,line=1,col=35,title=shardproof%3A name error::" \
           "unknown name `rleu` (in `t`)" in out


def test_missing_path_is_an_input_error(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "nowhere.lemma"]) == 2
    _out, err = capsys.readouterr()
    assert "shardproof: error: no such file or directory: nowhere.lemma" in err
    assert "Traceback" not in err


def test_debug_shows_the_traceback(tmp_path, monkeypatch, capsys) -> None:
    """Tracebacks are for shardproof's developers: only with --debug."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text(H + "rleu n x = x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--debug", "a.lemma"]) == 2
    _out, err = capsys.readouterr()
    assert "Traceback" in err and "a.lemma:1:35: error: unknown name `rleu`" in err


# ---- input the checker must neither crash on nor hang on, though it is not malformed

SIZE_EQUATIONS = """\
theorem selfsub (a : Nat) (h : a = a + 1) (x : Vec a) : x = x := by norm
theorem selfsub_false (a : Nat) (h : a = a + 1) (x : Vec a) : x = x + x := by norm
theorem refl (a : Nat) (h : a = a) (x : Vec a) : x = x := by norm
theorem cyc (a b : Nat) (h1 : a = b) (h2 : b = a) (x : Vec a) (y : Vec b) : x = y := by norm
theorem cyc_true (a b : Nat) (h1 : a = b) (h2 : b = a) (x : Vec a) : x = x := by norm
theorem twice (a b : Nat) (h1 : a = b) (h2 : a = 3) (x : Vec a) (y : Vec b) : x = y := by norm
theorem twice_index (a b : Nat) (h1 : a = b) (h2 : a = 3) (x : Vec a) : x 2 = x 2 := by norm
"""


def test_size_equations_that_mention_their_own_size(tmp_path, monkeypatch, capsys) -> None:
    """`a = a + 1`, `a = a`, or `a = b` with `b = a` are hypotheses, not substitutions (they
    used to recurse without end); `a = b` then `a = 3` ties both sizes to 3 for the type checker
    and the search alike, and a counterexample satisfies every hypothesis."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text(SIZE_EQUATIONS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = cli.main(["check", "--format", "json", "--search-seconds", "0.3", "a.lemma"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert "internal error" not in err and "Traceback" not in err
    got = {r["name"]: r for r in map(json.loads, out.splitlines())}
    verdicts = {name: r["verdict"] for name, r in got.items()}
    # No natural a has a = a + 1: the theorems are vacuous, never refuted.
    assert verdicts["selfsub"] == "proved"
    assert verdicts["selfsub_false"] != "refuted"
    assert verdicts["refl"] == verdicts["twice_index"] == "proved"
    assert verdicts["cyc_true"] != "refuted"  # (the kernel replay may not follow the cycle)
    assert verdicts["cyc"] == verdicts["twice"] == "refuted"
    sizes = got["cyc"]["counterexample"]["assignment"]["sizes"]
    assert sizes["a"] == sizes["b"]
    assert got["twice"]["counterexample"]["assignment"]["sizes"] == {"a": 3, "b": 3}


def _run_cli(args: list[str], cwd) -> subprocess.CompletedProcess[str]:
    """The command in a child process: a hang is a timeout, not a stuck test run."""
    def limit_memory() -> None:  # reading /dev/zero must fail fast, not exhaust the machine
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run([sys.executable, "-m", "shardproof", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=30, preexec_fn=limit_memory, check=False)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_special_files_are_input_errors(tmp_path) -> None:
    """A FIFO used to block the read forever and `/dev/zero` to end in a MemoryError: only
    regular files are read, and never more than the size limit."""
    os.mkfifo(tmp_path / "pipe.lemma")
    for path in ("pipe.lemma", "/dev/zero"):
        r = _run_cli(["check", "--no-cache", path], tmp_path)
        assert r.returncode == 2, (r.stdout, r.stderr)
        assert "error: not a regular file" in r.stderr and "Traceback" not in r.stderr
        assert r.stderr.startswith(os.path.relpath(tmp_path / path, tmp_path) + ":1:1: error: ")


def test_what_once_crashed_or_hung_now_ends(tmp_path, monkeypatch, capsys) -> None:
    """Ninth review: a 1,300-file import chain (RecursionError), a 5,000-digit numeral and an
    exact counterexample of 31,000 digits (Python's int/str cap), 400 nested definitions in
    the search's evaluator (RecursionError), a product squared 2³² times through definitions
    (exact arithmetic never ended), ∑ over Fin 15000 × Fin 15000 (9 GB).  Each ends: an input
    error at the `import`, or a verdict whose reason says what stopped it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "m0.lemma").write_text("theorem th0 (x : ℝ) : x = x := by norm\n")
    for i in range(1, 260):
        (tmp_path / f"m{i}.lemma").write_text(f"import m{i - 1}\n")
    assert cli.main(["check", "--no-cache", "m259.lemma"]) == 2
    _out, err = capsys.readouterr()
    assert "imports nested more than 200 files deep" in err and "Traceback" not in err
    big = "9" * 5000
    defs = "".join(f"def e{i} (x : ℝ) : ℝ := e{i - 1} x + 1\n" for i in range(1, 400))
    sq = "".join(f"def s{i} (x : ℝ) : ℝ := s{i - 1} (s{i - 1} x)\n" for i in range(1, 6))
    (tmp_path / "t.lemma").write_text(
        f"theorem big (x : ℝ) : x * {big} = x * {big} := by norm\n"
        "def d0 (x : ℝ) : ℝ := x * x\n"
        + "".join(f"def d{i} (x : ℝ) : ℝ := d{i - 1} (d{i - 1} x)\n" for i in range(1, 5))
        + "theorem w : ∃ (x : ℝ), d4 x ≠ 0 := by witness (x := 3)\n"
        "def e0 (x : ℝ) : ℝ := x + 1\n" + defs
        + "theorem c2 (x : ℝ) : e399 x = x + 401 := by norm\n"
        "def s0 (x : ℝ) : ℝ := x * x\n" + sq
        + "theorem h2 : ∃ (x : ℝ), s5 x ≠ 0 := by witness (x := 1.5)\n"
        "theorem grid (x : ℝ) : (∑ (i : Fin 15000) (j : Fin 15000), if i < j then x else 0) = x"
        " := by norm\n")
    code = cli.main(["check", "--no-cache", "--search-seconds", "1", "t.lemma"])
    out, err = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in err + out and "internal error" not in err
    verdicts = dict(line.split()[:2][::-1] for line in out.splitlines()
                    if line.split()[:1] in (["proved"], ["refuted"], ["unknown"]))
    assert verdicts["big"] == "proved" and verdicts["w"] == "proved"
    assert verdicts["h2"] == "unknown" and ("bits is not evaluated exactly" in out
                                            or "work budget ran out" in out)
    assert verdicts["grid"] == "unknown" and verdicts["c2"] != "proved"


def test_natural_definitions_and_doubled_prop_definitions_end(tmp_path, monkeypatch,
                                                              capsys) -> None:
    """Forty-first review: a `Nat`-valued definition used as a real reached the engine's ring
    arithmetic as an index polynomial (an AttributeError, exit 3); and the check that a real
    `≠` is the whole statement visited `P30`'s body 2³⁰ times (`P k := P (k-1) ∧ P (k-1)`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "t.lemma").write_text(
        "def sz (n : Nat) : Nat := n\n"
        "def szv {n : Nat} (x : Vec n) : Nat := n\n"
        "theorem c4 (n : Nat) (y : ℝ) : (if sz n = 1 then y else 0) = 0 := by norm\n"
        "theorem n_div (n : Nat) (x : Vec n) (y : ℝ) : szv x / 2 * 2 * y = szv x * y := by norm\n"
        "def P0 (x : ℝ) : Prop := x = x\n"
        + "".join(f"def P{k} (x : ℝ) : Prop := P{k - 1} x ∧ P{k - 1} x\n" for k in range(1, 31))
        + "theorem deep (x : ℝ) : P30 x := by norm\n")
    t0 = time.perf_counter()
    code = cli.main(["check", "--no-cache", "--search-seconds", "1", "t.lemma"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err + out and "internal error" not in err
    assert time.perf_counter() - t0 < 60
    verdicts = dict(line.split()[:2][::-1] for line in out.splitlines()
                    if line.split()[:1] in (["proved"], ["refuted"], ["unknown"]))
    assert verdicts["c4"] == "refuted" and verdicts["n_div"] == "proved"
    assert verdicts["deep"] in ("proved", "unknown")


def test_the_normaliser_bounds_the_terms_it_builds(tmp_path, monkeypatch) -> None:
    """Forty-second review: substitution and renaming inside sums build terms without ticking
    the step fuel, and a `* 1` added to `ConvWSync` made `mnv4Fused_syncTied` build ~10,000 a
    second for 330 s.  A normalisation may build MAX_ATOMS (the library's most is under 1,000);
    past it the theorem is `unknown` with that reason.  Here with a budget of 2."""
    from shardproof.check import Checker, Options
    from shardproof.rewrite import nf
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text("theorem t (n : Nat) (x y : Vec n) :\n"
                    "    (∑ (i : Fin n), (x i + y i) * (x i - y i)) = (∑ (i : Fin n), (x i * x i - y i * y i))"
                    " := by norm\n")
    assert Checker(Options(search_seconds=0.0)).check_file(case)[0].verdict == "proved"
    monkeypatch.setattr(nf, "MAX_ATOMS", 2)
    v = Checker(Options(search_seconds=0.0)).check_file(case)[0]
    assert v.verdict == "unknown" and "budget of 2 built terms" in v.reason


def test_the_normaliser_bounds_the_numbers_a_power_builds(tmp_path, monkeypatch) -> None:
    """Forty-sixth review: `((3 ^ 64) ^ 64) ^ 64) ^ 64` is 3^(2^24), 26.6 million bits, and the
    engine multiplied it out for over ten minutes (each power is at most 64, so MAX_POWER did
    not stop it).  A power whose numbers would pass MAX_COEFF_BITS is not expanded (and the
    work budget of the next test stops the inner powers first here); the theorem is then
    `unknown` with that reason (and the evaluator refuses such a power too)."""
    import time
    from shardproof.check import Checker, Options
    from shardproof.rewrite import nf
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text("theorem t (x : ℝ) : x * (((3 ^ 64) ^ 64) ^ 64) ^ 64 = x := by norm\n"
                    "theorem s (x : ℝ) : x * (3 ^ 64) ^ 2 = x * 3 ^ 64 * 3 ^ 64 := by norm\n")
    t0 = time.monotonic()
    vs = {v.name: v for v in Checker(Options(search_seconds=1.0)).check_file(case)}
    assert time.monotonic() - t0 < 120          # a bound (it was over ten minutes), not a speed
    assert vs["t"].verdict == "unknown" and ("pass 4,194,304 bits" in vs["t"].reason or
                                             "polynomial term operations" in vs["t"].reason)
    assert vs["s"].verdict == "proved"
    monkeypatch.setattr(nf, "MAX_COEFF_BITS", 200)
    v = Checker(Options(search_seconds=0.0)).check_file(case)[1]
    assert v.verdict == "unknown" and "pass 200 bits" in v.reason


def test_rewriting_and_polynomial_arithmetic_are_bounded(tmp_path, monkeypatch) -> None:
    """Forty-sixth review: three ways to run for minutes past every documented bound.
    (1) `rw [h, h, …]` with `h : x = x + x` doubles the goal at each step (22 steps: 275 s,
    2 GB); a goal may now grow to MAX_GOAL_NODES (the library's largest: under 2,000).
    (2) Products of sums of 316 terms, each just under MAX_PRODUCT, cost one step each (30 s);
    (3) `(x + a / b) ^ 64` with 400-digit numerals spent 10 s in `gcd` (3,000 digits: over
    200 s).  Polynomial arithmetic now spends a budget of MAX_WORK term operations, a term on
    big coefficients counting by its size (the library's most: under 800)."""
    import time
    from shardproof.check import Checker, Options
    from shardproof.rewrite import nf
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    hs = ", ".join(["h"] * 25)
    def bal(lo: int, hi: int) -> str:            # a balanced sum (nesting is bounded)
        mid = (lo + hi) // 2
        return f"v {lo}" if hi - lo == 1 else f"({bal(lo, mid)} + {bal(mid, hi)})"
    s = bal(0, 316)
    a, b = "7" * 400, "3" * 400 + "1"
    case.write_text(
        f"theorem doubling (x : ℝ) (h : x = x + x) : x = 0 := by rw [{hs}]\n"
        f"theorem doubling_norm (x : ℝ) (h : x = x + x) : x = 0 := by norm [h]\n"
        f"def s (v : Vec 316) : ℝ := {s}\n"
        f"theorem products (a0 a1 : Vec 316) : s a0 * s a1 = s a1 * s a0 := by norm\n"
        f"def a : ℝ := {a}\n"
        f"def b : ℝ := {b}\n"
        f"theorem binomial (x : ℝ) : (x + a / b) ^ 64 = (a / b + x) ^ 64 := by norm\n"
        f"theorem residual (x : ℝ) : sqrt x * ((3 ^ 64) ^ 64) ^ 4 = x := by norm\n"
        f"theorem small (x : ℝ) : (x + 1 / 3) ^ 8 = (1 / 3 + x) ^ 8 := by norm\n", encoding="utf-8")
    t0 = time.monotonic()
    vs = {v.name: v for v in Checker(Options(search_seconds=0.5)).check_file(case)}
    assert time.monotonic() - t0 < 120          # a bound (it was many minutes), not a speed
    for name in ("doubling", "doubling_norm"):
        assert vs[name].verdict == "unknown" and "grew the goal past 100,000 nodes" in \
            vs[name].reason
    for name in ("products", "binomial"):
        assert vs[name].verdict == "unknown" and "50,000 polynomial term operations" in \
            vs[name].reason
    # a residual shows a huge coefficient by its size (its decimal digits take quadratic time)
    assert "⟨an integer of 25,969 bits⟩·sqrt(x)" in vs["residual"].residual
    assert vs["small"].verdict == "proved"
    monkeypatch.setattr(nf, "MAX_WORK", 5)
    v = Checker(Options(search_seconds=0.0)).check_file(case)[-1]
    assert v.verdict == "unknown" and "budget of 5 polynomial term operations" in v.reason


def test_paths_the_file_system_cannot_take_are_input_errors(tmp_path, monkeypatch,
                                                            capsys) -> None:
    """Forty-sixth review: an import of a name too long for the file system, a symlink loop
    inside the lemma root and a too-long path on the command line were internal errors (exit 3,
    OSError / RuntimeError); each is an input error, at the `import` when there is one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".lemmaroot").write_text("")
    long = "b" * 300
    (tmp_path / "longimp.lemma").write_text(f"import {long}\ntheorem t (x : ℝ) : x = x\n")
    (tmp_path / "loopx.lemma").symlink_to("loopy.lemma")
    (tmp_path / "loopy.lemma").symlink_to("loopx.lemma")
    (tmp_path / "useloop.lemma").write_text("import loopx\ntheorem t (x : ℝ) : x = x\n")
    for f, phrase in (("longimp.lemma", "cannot resolve import"),
                      ("useloop.lemma", "cannot resolve import `loopx`")):
        assert cli.main(["check", "--no-cache", f]) == 2
        err = capsys.readouterr().err
        assert f"{f}:1:1: error: {phrase}" in err and "^" in err and "Traceback" not in err
    assert cli.main(["check", "--no-cache", "a" * 300 + ".lemma"]) == 2
    err = capsys.readouterr().err
    assert "error: cannot read the path" in err and "Traceback" not in err


def test_elaboration_of_nested_comparisons_is_not_exponential(tmp_path, monkeypatch) -> None:
    """Sixteenth review: a comparison whose Nat side meets a real side elaborates that side
    again as a real, so each comparison nested in it was elaborated twice per level: 23 nested
    `if`s took 160 s to load.  Counted in elaboration calls (not seconds): doubling the depth
    must not square the work."""
    from shardproof.library import Library
    from shardproof.types import Elaborator

    calls = [0]
    orig = Elaborator.elab

    def counting(self, t, ctx, expected=None):
        calls[0] += 1
        return orig(self, t, ctx, expected)
    monkeypatch.setattr(Elaborator, "elab", counting)

    def load(depth: int) -> int:
        t = "x"
        for _ in range(depth):
            t = f"(if k ({t}) + 0 < (0.5 : ℝ) then 0 else 1)"     # (a decimal alone is Lean's
            # `Float`: the cast keeps the real side)
        root = tmp_path / f"d{depth}"
        root.mkdir()
        (root / ".lemmaroot").write_text("")
        (root / "h.lemma").write_text(f"def k (x : ℝ) : Nat := 1\n"
                                      f"theorem t (x : ℝ) : {t} = 1 := by norm\n")
        calls[0] = 0
        Library(root).load(root / "h.lemma")
        return calls[0]
    small, large = load(8), load(16)
    assert large < 5 * small, (small, large)


def test_a_chained_comparison_after_many_parentheses_is_reported_quickly(tmp_path,
                                                                          capsys) -> None:
    """Twenty-ninth review: the check for `a = b = c` scanned the text before the spot with a
    regex once per candidate, quadratic in the `(` before it (300,000 took minutes)."""
    (tmp_path / ".lemmaroot").write_text("")
    opens = "\n".join("(" * 15_000 for _ in range(20))
    (tmp_path / "q.lemma").write_text(f"theorem t (a b c : ℝ) :\n{opens}\na = b = c\n")
    t0 = time.perf_counter()
    assert cli.main(["check", "--no-cache", str(tmp_path / "q.lemma")]) == 2
    assert time.perf_counter() - t0 < 30        # a bound (it was minutes), not a speed
    assert "comparisons do not chain" in capsys.readouterr().err


def test_the_import_depth_limit_does_not_depend_on_what_was_loaded_first(tmp_path, monkeypatch,
                                                                         capsys) -> None:
    """Twenty-third review: the 200-file limit counted the files being loaded, so `m0` of a
    260-file chain failed alone but passed after `m150` had been loaded (and `-j 2` differed
    from `-j 1`).  The depth is now the file's own longest chain of imports: the same file
    (`m59`, 201 deep) is named whatever the order; a 1,000-file chain still ends cleanly."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".lemmaroot").write_text("")
    for i in range(260):
        (tmp_path / f"m{i}.lemma").write_text(
            (f"import m{i + 1}\n" if i < 259 else "") + f"theorem t{i} (x : ℝ) : x = x := by norm\n")
    errs = []
    for args in (["m0.lemma"], ["m150.lemma", "m0.lemma"], ["-j", "2", "."], ["."]):
        assert cli.main(["check", "--no-cache", "-q", *args]) == 2, args
        out, err = capsys.readouterr()
        errs.append([ln for ln in err.splitlines() if "error" in ln])
    assert all(e == ["m59.lemma:1:1: error: imports nested more than 200 files deep"]
               for e in errs), errs
    assert "200 proved, 0 refuted, 0 unknown, 1 input error" in out
    for i in range(260, 1000):
        (tmp_path / f"m{i - 1}.lemma").write_text(f"import m{i}\n")
    (tmp_path / "m999.lemma").write_text("theorem z (x : ℝ) : x = x := by norm\n")
    assert cli.main(["check", "--no-cache", "-q", "m0.lemma"]) == 2
    _out, err = capsys.readouterr()
    assert "imports nested more than 200 files deep" in err and "Traceback" not in err


def test_decimals_beside_a_real_are_real(tmp_path, monkeypatch) -> None:
    """The other side of the forty-eighth review's row: a decimal with a real beside it, with an
    expected real (a definition's body, a parameter) or cast is real in Lean too, and an
    integral decimal prints back with its point (`2.0`)."""
    from shardproof.check import Checker, Options
    from shardproof.library import Library
    from shardproof.pretty import pretty
    (tmp_path / ".lemmaroot").write_text("")
    case = tmp_path / "case.lemma"
    case.write_text("def c : ℝ := 0.5\n"
                    "theorem a1 (x : ℝ) : x + 0.5 = 0.5 + x := by norm\n"
                    "theorem a2 : (0.1 : ℝ) + 0.2 = 0.3 := by norm\n"
                    "theorem a3 (x : ℝ) : (if 0.1 + 0.2 ≤ x then x else 0) = "
                    "(if 0.3 ≤ x then x else 0) := by norm\n"
                    "theorem a4 : c * 2.0 = 1 := by norm\n"
                    "theorem a5 : ∃ (x : ℝ), x * 0.5 ≠ x := by witness (x := 1.5)\n",
                    encoding="utf-8")
    vs = Checker(Options(search_seconds=0.0)).check_file(case)
    assert [v.verdict for v in vs] == ["proved"] * 5
    a4 = Library(tmp_path).load(case).env.get("a4")
    assert "c * 2.0 = 1" in pretty(a4.decl)


def test_forty_ninth_review_cases_end(tmp_path, monkeypatch, capsys) -> None:
    """Forty-ninth review (bounds, a second pass): (1) with every size assignment skipped for
    its data's size, the search walked 4¹² of them uncharged (170 s, 2.9 GB); (2) the kernel
    replayed a sum of 1,024 atoms with 40,000-node keys for a minute, charging neither `+` nor
    keys outside a witness; (3) an index `i⁹` with `i : Fin (s₀ + … + s₉)` ran sympy's
    expansion for a minute before its input error; (4) a `Nat`-valued definition adding two
    calls of another was read as a vector sum (exit 3)."""
    import time
    from shardproof.check import Checker, Options
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".lemmaroot").write_text("")
    sizes = " ".join(f"s{k}" for k in range(12))
    nest = "z"
    for _ in range(10):
        nest = f"g x y ({nest})"
    defs = "".join(f"def a{k} (u c : ℝ) : ℝ := a{k - 1} u c + a{k - 1} u (c + {2 ** (k - 1)})\n"
                   for k in range(1, 11))
    (tmp_path / "ok.lemma").write_text(
        f"theorem sched ({sizes} : Nat) (x : Vec 300000) :\n"
        f"    x 0 = x 1 + {' + '.join(f's{k}' for k in range(12))} := by norm\n"
        "def g (x y u : ℝ) : ℝ := 1 / (x * u + y * u)\n"
        f"def U (x y z : ℝ) : ℝ := {nest}\n"
        "def a0 (u c : ℝ) : ℝ := sqrt (u + c)\n" + defs +
        "theorem amp (x y z : ℝ) : a10 (U x y z) 0 = a10 (U x y z) 0 := by norm\n"
        "def n0 (m : Nat) : Nat := m\n"
        "def n1 (m : Nat) : Nat := n0 m + n0 m\n"
        "theorem nat1 (m : Nat) : (n1 m : ℝ) = (n1 m : ℝ) + 0 := by norm\n"
        "theorem nat2 (m : Nat) : (n1 m : ℝ) = 2 * m := by norm\n", encoding="utf-8")
    (tmp_path / "ix.lemma").write_text(
        "theorem t (s0 s1 s2 s3 s4 s5 s6 s7 s8 s9 m : Nat) (x : Vec m)\n"
        "    (i : Fin (s0+s1+s2+s3+s4+s5+s6+s7+s8+s9)) : x (i*i*i*i*i*i*i*i*i) = 0 := by norm\n")
    t0 = time.monotonic()
    vs = {v.name: v for v in Checker(Options(search_seconds=2.0)).check_file(tmp_path / "ok.lemma")}
    assert vs["sched"].verdict == "unknown" and "skips sizes" in vs["sched"].reason
    assert vs["amp"].verdict != "refuted"
    assert vs["nat1"].verdict == vs["nat2"].verdict == "proved"
    assert cli.main(["check", "--no-cache", "ix.lemma"]) == 2
    assert "cannot show that the index" in capsys.readouterr().err
    assert time.monotonic() - t0 < 120      # a bound (minutes before), not a speed


def test_the_notebook_api_refuses_what_is_not_its_input(tmp_path) -> None:
    """Eighty-third review (the notebook API): a Path, a list, bytes or None for a text reached
    the parser (AttributeError) or read a file from disk; a dict for the options, a str for
    `check_paths` (iterated by character), a directory for `check_file` (IsADirectoryError).
    Each is a TypeError or a ShardproofError at the API's edge now; a good check after them
    gives what a fresh one gives."""
    from pathlib import Path

    import shardproof as sp
    from shardproof.check import Options
    (tmp_path / ".lemmaroot").write_text("")
    good = "theorem a (x : ℝ) : x + 0 = x := by norm\n"
    (tmp_path / "a.lemma").write_text(good)
    for bad in (Path(tmp_path / "a.lemma"), [good], good.encode(), None):
        with pytest.raises(TypeError, match="the text must be a str"):
            sp.check_text(bad, root=str(tmp_path))
    with pytest.raises(TypeError, match="options must be shardproof.Options"):
        sp.check_text(good, root=str(tmp_path), options={"replay": False})
    for f in (sp.parse, sp.parse_expr, sp.normal_form):
        with pytest.raises(TypeError, match="must be a str"):
            f(None)
    with pytest.raises(sp.ShardproofError, match="a directory"):
        sp.check_file(str(tmp_path))
    assert [v.verdict for v in sp.check_paths(str(tmp_path)).verdicts] == ["proved"]
    assert [v.verdict for v in sp.check_text(good, root=str(tmp_path))] == ["proved"]
    with pytest.raises(sp.ShardproofError, match="text too large"):
        sp.check_text("-- " + "x" * (5 << 20) + "\n", root=str(tmp_path))
    # Options(cache_dir=…) is written by check_text and check_file too (it was read only)
    opts = Options(cache_dir=str(tmp_path / "cache"))
    assert not sp.check_text(good, root=str(tmp_path), options=opts)[0].cached
    assert sp.check_text(good, root=str(tmp_path), options=opts)[0].cached
    assert sp.check_file(str(tmp_path / "a.lemma"), options=opts)[0].cached


def test_normal_form_and_parse_expr_errors_point_into_the_expression() -> None:
    """Eighty-third review: `normal_form` raised the engine's internal EngineGap; errors of the
    equation it wraps the expression in, and of `parse_expr`, pointed into the wrapper (a `--`
    comment in the expression broke it); `relu` alone was an error inside the prelude; a
    keyword Python read in NFKC (`ℓ=` arrives as `l`) was an unknown name."""
    import shardproof as sp
    with pytest.raises(ValueError, match="no normal form: .*budget"):
        sp.normal_form("((x + y + z) ^ 64) ^ 64", x="ℝ", y="ℝ", z="ℝ")
    with pytest.raises(ValueError, match="no normal form: a literal vector"):
        sp.normal_form("![1, 2, 3]")
    assert str(sp.normal_form("x -- the input", x="ℝ")) == "x"
    assert str(sp.normal_form("ℓ + 1", ℓ="ℝ")) == "1 + ℓ"
    for expr, binders, want, line, col in (
            ("relu", {}, "`relu` needs its argument `n`", 1, 1),
            ("n / 2", {"n": "Nat"}, "in ℕ, where `/` rounds down", 1, 1),
            ("x +\n  +", {"x": "ℝ"}, "unexpected `\\+`", 2, 3)):
        with pytest.raises(sp.ShardproofError, match=want) as info:
            sp.normal_form(expr, **binders)
        at = info.value.span
        assert (at.path, at.line, at.col) == ("<expression>", line, col), at
    with pytest.raises(sp.ShardproofError) as info:
        sp.parse_expr("x +")
    assert (info.value.span.line, info.value.span.col) == (1, 4)
    assert info.value.source_line == "x +" and info.value.theorem is None


def test_expression_errors_are_the_expressions_own() -> None:
    """Eighty-fourth review: `normal_form` and `parse_expr` errors of an unbalanced expression
    pointed into the wrapper (`the ( at 3:5 is never closed`, a caret under the wrapper's `)`)
    or listed what a file may hold (`def`, `import`, …); a declaration after the expression was
    ignored; a name in a comment, or two names of one NFKC form, renamed a binder."""
    import shardproof as sp
    for expr, where, text in (("(x + 1", (1, 7), "the `(` at 1:1 is never closed"),
                              ("x + 1)", (1, 6), "expected an operator or the end"),
                              ("x\n+\n", (3, 1), "unexpected end of file")):
        with pytest.raises(sp.ShardproofError, match=re.escape(text)) as info:
            sp.normal_form(expr, x="ℝ")
        assert (info.value.span.line, info.value.span.col) == where, info.value.span
    with pytest.raises(sp.ShardproofError, match="one expression is expected"):
        sp.parse_expr("x\ndef y : ℝ := 1")
    assert str(sp.normal_form("l + 1 -- ℓ is a length", l="ℝ")) == "1 + l"
    with pytest.raises(sp.ShardproofError, match="unknown name `ℓ`"):
        sp.normal_form("l + ℓ", l="ℝ")


def test_parse_expr_reads_its_own_text() -> None:
    """Eighty-fifth review: the terms `parse_expr` returns carried the wrapper's line (2), and
    some errors listed a declaration's parts (`:=`, `@[`, a docstring) as what was expected;
    a binder type of two lines made `normal_form` blame the expression."""
    import shardproof as sp
    t = sp.parse_expr("x +\n  y")
    assert (t.span.line, t.span.col, t.rhs.span.line, t.rhs.span.col) == (1, 1, 2, 3)
    for text in ("x ; y", "x\n/-- doc -/", "x )"):
        with pytest.raises(sp.ShardproofError, match="expected an operator or the end"):
            sp.parse_expr(text)
    with pytest.raises(ValueError, match="the type of `x` is one line"):
        sp.normal_form("x", x="ℝ)\n")


def test_the_recursion_room_is_given_back() -> None:
    """`check.recursion_room` raises the recursion limit for a check and gives it back when the
    last open block exits, also through an exception, and a restore that would be below the
    depth of the thread then running is skipped, not raised (the eighty-fifth review)."""
    import sys

    from shardproof import check
    before = sys.getrecursionlimit()
    with pytest.raises(KeyError):
        with check.recursion_room():
            assert sys.getrecursionlimit() >= check.RECURSION_ROOM
            with check.recursion_room():
                raise KeyError("inside")
    assert sys.getrecursionlimit() == before and not check._OPEN

    def deep(d: int) -> None:            # deeper than the limit to restore, when it exits
        if d:
            return deep(d - 1)
        with check.recursion_room():
            pass
    try:
        sys.setrecursionlimit(1000)
        with check.recursion_room():
            deep(1500)                    # (its own block is inside this one: nothing to do)
        assert sys.getrecursionlimit() == 1000
    finally:
        sys.setrecursionlimit(before)
