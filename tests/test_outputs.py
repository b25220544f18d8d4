"""The fifty-fourth review (the outputs: JUnit, the HTML report, file names in logs, the notebook
display, exit statuses) — each a row that failed before its fix."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from shardproof import cli

GOOD = "theorem q : (1 : ℝ) = 1 := by norm\n"
WITNESS = "/-- A witness. -/\ntheorem w : ∃ (x : ℝ), x ^ 2 ≠ x := by witness (x := 2)\n"


def _root(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".lemmaroot").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _cli(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    kw = kw or {"capture_output": True}
    return subprocess.run([sys.executable, "-m", "shardproof.cli", *args], cwd=cwd, env=env,
                          text=True, timeout=120, **kw)


def test_an_output_that_cannot_be_written_is_exit_2_not_an_internal_error(tmp_path) -> None:
    """A full disk on stdout was `internal error: OSError` (exit 3); a closed stdout an
    `AttributeError` on `None.flush` (exit 3)."""
    _root(tmp_path, {"good.lemma": GOOD})
    with open("/dev/full", "w") as full:
        r = _cli("check", "--no-cache", "good.lemma", cwd=tmp_path, stdout=full,
                 stderr=subprocess.PIPE)
    assert r.returncode == 2 and "cannot write the output" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-c", "import sys; sys.stdout.close(); sys.stdout = None;"
                        "from shardproof import cli; sys.exit(cli.main(['check', '--no-cache',"
                        " 'good.lemma']))"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 2 and "standard output is closed" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_junit_carries_an_input_error_no_file_carries(tmp_path, capsys) -> None:
    """A missing path or an empty directory gave `tests="0" errors="0"`: an empty, green
    report for a run that exits 2."""
    _root(tmp_path, {"good.lemma": GOOD})
    (tmp_path / "empty").mkdir()
    for args in (["good.lemma", "missing.lemma"], ["empty"]):
        xml = tmp_path / "r.xml"
        assert cli.main(["check", "--no-cache", "--no-times", "--junit", str(xml),
                         *[str(tmp_path / a) for a in args]]) == 2
        root = ET.parse(xml).getroot()
        assert root.get("errors") == "1" and root.get("tests") == "1", ET.tostring(root)
        assert root.find("testsuite/testcase/error") is not None
    capsys.readouterr()
    assert cli.main(["check", "--junit", "", str(tmp_path / "good.lemma")]) == 2
    assert "--junit: expected a file name" in capsys.readouterr().err


def test_a_file_name_cannot_forge_a_workflow_command(tmp_path) -> None:
    """A file named `::warning …` printed `::warning …:1:26: error: …` at column 0, which GitHub
    reads as an annotation; a newline in a name started a line `::stop-commands::…`."""
    forged = "::warning title=forged::x.lemma"
    split = "a\n::stop-commands::p.lemma"
    _root(tmp_path, {forged: "theorem t (x : ℝ) : x = + := by norm\n",
                     split: "theorem u (x : ℝ) : x + 1 = x\n"})
    r = _cli("check", "--no-cache", "--no-times", ".", cwd=tmp_path)
    text = r.stdout + r.stderr
    assert not any(ln.startswith("::") for ln in text.splitlines()), text
    assert "./::warning title=forged::x.lemma:1:25: error:" in text
    assert "a\\n::stop-commands::p.lemma:1" in text


def test_the_report_names_what_a_proof_rests_on_and_keeps_its_ids_apart(tmp_path) -> None:
    """The page showed the engine's rules, not what the replayed proof rests on (`shardproof
    axioms`); a theorem named `contents` shared its id with the Contents heading."""
    from shardproof.report import build_report
    _root(tmp_path, {"a.lemma": "theorem contents (x : ℝ) : x + 0 = x := by norm\n",
                     "axioms.allow": "kernel:beta — β\n"})
    build_report([str(tmp_path / "a.lemma")], str(tmp_path / "site"))
    page = (tmp_path / "site" / "a.lemma.html").read_text(encoding="utf-8")
    assert page.count('id="contents"') == 1
    assert "kernel rests on (transitively)" in page
    assert "<code>oracle:ring</code> <b>NOT IN axioms.allow</b>" in page


def test_the_notebook_shows_a_witness_as_one(tmp_path) -> None:
    """A proved `∃` was shown under "counterexample:" with its values as `None`."""
    from shardproof.check import check_text
    (v,) = check_text(WITNESS, root=str(_root(tmp_path, {})))
    html = v._repr_html_()
    assert v.verdict == "proved" and "<p>witness:</p>" in html and "x = 2" in html
    assert "None" not in html


def test_the_caret_stays_under_the_spot_past_an_escaped_control_character(tmp_path,
                                                                            capsys) -> None:
    """Fifty-sixth review: the line is printed with `\\x07` for a bell, four characters for one,
    and the caret was padded by the raw column: three columns left of `y`."""
    _root(tmp_path, {"a.lemma": "theorem ff (x : ℝ) /- \x07 -/ : x = y := by norm\n"})
    assert cli.main(["check", "--no-cache", str(tmp_path / "a.lemma")]) == 2
    err = capsys.readouterr().err.splitlines()
    line, caret = next((a, b) for a, b in zip(err, err[1:]) if "\\x07" in a)
    assert line[caret.index("^")] == "y", (line, caret)


def test_a_notebook_shows_an_input_error_as_the_command_line_does(tmp_path) -> None:
    """Fifty-seventh review: in a notebook, `check_text`'s error showed as its one-line `str`
    (no source line, no caret, no hint).  IPython shows an exception by `_render_traceback_`
    when it has one: the error as the command line prints it."""
    import pytest

    from shardproof.check import check_text
    from shardproof.errors import ShardproofError
    with pytest.raises(ShardproofError) as info:
        check_text("theorem t (n : Nat) (x : Vec n) : rleu n x = x\n", root=str(tmp_path))
    shown = info.value._render_traceback_()
    assert shown[1].endswith("error: unknown name `rleu` (in `t`)")
    assert shown[2] == "  theorem t (n : Nat) (x : Vec n) : rleu n x = x"
    assert shown[3] == "  " + " " * 34 + "^^^^" and shown[4] == "  hint: did you mean `relu`?"


def test_normal_form_points_into_the_expression_given() -> None:
    """Fifty-seventh review: `sp.normal_form('x + y', x='ℝ')` reported column 28 of a hidden
    wrapper theorem `_nf` and showed the wrapper; it points into the expression as given."""
    import pytest

    import shardproof as sp
    from shardproof.errors import ShardproofError
    with pytest.raises(ShardproofError) as info:
        sp.normal_form("x + y", x="ℝ")
    shown = info.value._render_traceback_()
    assert shown[1] == "<expression>:1:5: error: unknown name `y`"
    assert shown[2:4] == ["  x + y", "      ^"]


def test_a_reader_that_leaves_early_is_exit_141_not_a_verdict(tmp_path) -> None:
    """`shardproof check … | head` exited 1, the status of "something is refuted or unknown",
    although every theorem was proved: the run was cut short, so there is no verdict. It is
    now 141, the shell's status for a process ended by SIGPIPE, and nothing is printed."""
    _root(tmp_path, {"good.lemma": GOOD})
    read_end, write_end = os.pipe()
    os.close(read_end)                  # the reader has left (deterministically: before any write)
    try:
        r = _cli("check", "--no-cache", "good.lemma", cwd=tmp_path, stdout=write_end,
                 stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert r.returncode == cli.EXIT_BROKEN_PIPE == 141, r.stderr
    assert r.stderr == "", r.stderr


def test_junit_names_an_error_in_an_imported_file_by_the_import(tmp_path, capsys) -> None:
    """An input error in a file the checked file imports was a testcase of the checked file's
    suite named after the *imported* file's theorem (`a2` under `b.lemma`), with no place. It
    is now `(importing a.lemma)`, with `file` and `line` where the error is."""
    _root(tmp_path, {"a.lemma": "theorem a1 : (1 : ℝ) = 1 := by norm\n"
                                "theorem a2 : (1 : ℝ) = := by norm\n",
                     "b.lemma": "import a\ntheorem b1 : (1 : ℝ) = 1 := by norm\n"})
    xml = tmp_path / "r.xml"
    assert cli.main(["check", "--no-cache", "--no-times", "--junit", str(xml),
                     str(tmp_path / "b.lemma"), str(tmp_path / "a.lemma")]) == 2
    cases = {c.get("classname").rsplit("/", 1)[-1]: c
             for c in ET.parse(xml).getroot().iter("testcase")}
    assert sorted(cases) == ["a.lemma", "b.lemma"] and cases["a.lemma"].get("name") == "a2"
    name = cases["b.lemma"].get("name")
    assert name.startswith("(importing ") and name.endswith("/a.lemma)"), name
    for case in cases.values():
        assert case.get("file").endswith("/a.lemma") and case.get("line") == "2"
    capsys.readouterr()


def test_an_irrational_side_of_a_counterexample_is_also_shown_in_digits(tmp_path, capsys) -> None:
    """Sixtieth review: a net's counterexample printed a side as a 400-character radical
    (`-479*sqrt(19743)/39486` is the short one); each irrational value now also reads in six
    digits, in the text (`(≈ 1.41421)`, a vector's line `lhs ≈ […]`) and in the JSON
    (`lhs_approx`); a rational one is left as it is."""
    _root(tmp_path, {"c.lemma": "theorem q1 (x : ℝ) (h : x = 2) : sqrt x = 1 := by norm\n"
                     "theorem q2 (v : Vec 2) (h : v 0 = 3) : (fun (i : Fin 2) => sqrt (v i)) = v"
                     " := by norm\ntheorem q3 (x : ℝ) : x + 1 = x := by norm\n"})
    assert cli.main(["check", "--no-cache", "--no-times", str(tmp_path / "c.lemma")]) == 1
    out = capsys.readouterr().out
    assert "lhs = sqrt(2)  (≈ 1.41421)\n" in out and "lhs ≈ [1.73205, 0]\n" in out, out
    assert out.count("≈") == 2, out
    cex = _json_counterexamples(str(tmp_path / "c.lemma"), capsys)
    assert cex["q1"]["lhs_approx"] == "1.41421" and "rhs_approx" not in cex["q1"]
    assert cex["q2"]["lhs_approx"] == ["1.73205", None] and "lhs_approx" not in cex["q3"]


def _json_counterexamples(path: str, capsys) -> dict:
    """`check --format json` on a file that refutes something: each theorem's counterexample."""
    import json
    assert cli.main(["check", "--no-cache", "--no-times", "--format", "json", path]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return {r["name"]: r["counterexample"] for r in rows if "name" in r}


def test_digits_of_family_sides_and_of_huge_values(tmp_path, capsys) -> None:
    """Sixty-first review: a refuted equation between replica families was an internal error
    (exit 3) once sides got digits, and `exp(1000)` read `(≈ inf)`."""
    _root(tmp_path, {"c.lemma": "theorem m2 (R : Nat) (x : Fin R → Vec 2) : "
                     "(fun (r : Fin R) => x r + x r) = x := by norm\n"
                     "theorem o1 (x : ℝ) (h : x = 1000) : exp x = 0 := by norm\n"})
    assert cli.main(["check", "--no-cache", "--no-times", str(tmp_path / "c.lemma")]) == 1
    out = capsys.readouterr().out
    assert "refuted  m2" in out and "lhs = exp(1000)  (≈ 1.97007e+434)" in out, out


def test_a_sum_that_is_a_factor_or_a_power_is_parenthesised_in_a_residual(tmp_path) -> None:
    """Sixty-eighth review: `(Σ_i x[i])^2` and `Σ_i x[i]^2` both printed `Σ_{#1.0<n} x[#1.0]^2`,
    so `(Σ x)^2 = Σ x^2` had the residual `Σ… x[#1.0]^2 - Σ… x[#1.0]^2`, which reads as zero; a
    sum times a factor (`Σ_i x[i]·y`) read as the sum of `x[i]·y`.  A Σ's body is the product
    after it: a sum raised to a power or multiplied by another factor is parenthesised."""
    from shardproof.check import Options, check_paths
    _root(tmp_path, {"r.lemma": (
        "theorem r1 (n : Nat) (x : Vec n) : (∑ (i : Fin n) (j : Fin n), x i * x j) = 0 := by norm\n"
        "theorem r2 (n : Nat) (x : Vec n) : (∑ (i : Fin n), x i ^ 2) = 0 := by norm\n"
        "theorem r3 (n : Nat) (x : Vec n) : (∑ (i : Fin n), x i) ^ 2 = (∑ (i : Fin n), x i ^ 2)"
        " := by norm\n"
        "theorem r4 (n m : Nat) (x : Vec n) (z : Vec m) : (∑ (i : Fin n), x i) * (∑ (j : Fin m),"
        " z j) = 0 := by norm\n"
        "theorem r5 (n : Nat) (x : Vec n) (y : ℝ) (h : y ≠ 0) : y / (∑ (i : Fin n), x i) = 0"
        " := by norm\n"
        "theorem r6 (n : Nat) (x : Vec n) (y : ℝ) : 2 * (∑ (i : Fin n), x i) + y = 0 := by norm\n"
        "theorem r7 (n : Nat) (x : Vec n) (y : ℝ) : (∑ (i : Fin n), x i) * y = 0 := by norm\n")})
    vs = {v.name: v.residual for v in check_paths([tmp_path / "r.lemma"],
                                                  Options(search_seconds=0)).verdicts}
    assert vs == {"r1": "(Σ_{#1.0<n} x[#1.0])^2", "r2": "Σ_{#1.0<n} x[#1.0]^2",
                  "r3": "(Σ_{#1.0<n} x[#1.0])^2 - Σ_{#1.0<n} x[#1.0]^2",
                  "r4": "(Σ_{#1.0<m} z[#1.0])·(Σ_{#1.0<n} x[#1.0])",
                  "r5": "y·1/(Σ_{#1.0<n} x[#1.0])", "r6": "y + 2·Σ_{#1.0<n} x[#1.0]",
                  "r7": "y·(Σ_{#1.0<n} x[#1.0])"}, vs


def test_a_search_stopped_by_an_evaluation_says_so(tmp_path) -> None:
    """Sixty-eighth review: one float evaluation past the work budget (a ∑ over Fin 1500 ×
    Fin 1500) ended the search, and the `unknown` reason said only that the normal forms differ;
    a candidate whose exact re-check could not be evaluated (√ of a 2,000-bit number) was
    dropped without a word.  Each now reaches the reason, with the first size and why."""
    from shardproof.check import Options, check_paths
    _root(tmp_path, {"s.lemma": (
        "theorem big (x : Vec 1500) : (∑ (i : Fin 1500) (j : Fin 1500), x i * x j) = 0 := by norm\n"
        "theorem at_n (n : Nat) (x : Vec (800 * n)) :\n"
        "    (∑ (i : Fin (800 * n)) (j : Fin (800 * n)), x i * x j) = 0 := by norm\n"
        "theorem root (x : ℝ) (h : x = 3 / 2) : sqrt (x ^ 800) = 0 := by norm\n")})
    vs = {v.name: v for v in check_paths([tmp_path / "s.lemma"],
                                         Options(search_seconds=0.25)).verdicts}
    assert all(v.verdict == "unknown" for v in vs.values()), vs
    stop = "the search stopped: its work budget (0.25 nominal seconds, `--search-seconds`) ran " \
           "out during an evaluation{}"
    assert vs["big"].reason.endswith("; " + stop.format("")), vs["big"].reason
    assert stop.format(" at n = 1") in vs["at_n"].reason, vs["at_n"].reason
    assert vs["root"].reason.endswith(
        "; a candidate counterexample was found in floating point, but its exact re-check could "
        "not be evaluated: a square root of more than 2,000 bits is not evaluated exactly"), \
        vs["root"].reason


def test_a_long_exact_side_reads_in_digits_and_eulers_number_as_exp_1(tmp_path, capsys) -> None:
    """Sixty-eighth review: a net's refuted block printed "the statement fails …: at index 1:
    lhs = <2,700 characters>, rhs = <2,700 characters>" (a line of 5,494), and its `lhs =` line
    the whole vector of such entries; and an exact `exp(1)` printed as sympy's `E`
    (`28/(1 + E)**2`), which reads as a variable.  A long exact side now reads as its digits in
    the summary (`lhs ≈ 2.10639`), an entry past 200 characters is cut in the text (whole in
    the JSON), and Euler's number is `exp(1)` in the text and the JSON (sympy's exact `E` as
    Python)."""
    terms = " + ".join(f"sqrt (x + {k}) / (1 + exp (sqrt (x + {k})))" for k in range(1, 13))
    _root(tmp_path, {"e.lemma": (
        "theorem e1 (x : ℝ) (h : x = 1) : 28 / (1 + exp x) ^ 2 = 0 := by norm\n"
        f"theorem e2 (x : ℝ) (h : x = 1) : {terms} = 1 := by norm\n"
        f"theorem e3 (x : ℝ) (v : Vec 2) (h : x = 1) (hv : v 0 = 1) :\n"
        f"    (fun (i : Fin 2) => {terms} + v i) = v := by norm\n"
        "theorem e4 (x : ℝ) (h : x = exp 1) : x = 0 := by norm\n")})
    path = str(tmp_path / "e.lemma")
    assert cli.main(["check", "--no-cache", "--no-times", path]) == 1
    out = capsys.readouterr().out
    assert "the statement fails: lhs = 28/(1 + exp(1))**2, rhs = 0\n" in out, out
    assert "lhs = 28/(1 + exp(1))**2  (≈ 2.02523)\n" in out and "E" not in out, out
    assert "the statement fails: lhs ≈ 2.10639, rhs = 1\n" in out, out
    assert "the statement fails: at index 0: lhs ≈ 3.10639, rhs = 1\n" in out, out
    assert "reals: x = exp(1)\n" in out and "lhs ≈ [3.10639, 2.10639]\n" in out, out
    assert max(map(len, out.splitlines())) < 700, max(map(len, out.splitlines()))
    cex = _json_counterexamples(path, capsys)
    assert cex["e1"]["lhs"] == "28/(1 + exp(1))**2" and cex["e4"]["assignment"]["reals"] == \
        {"x": "exp(1)"} and "\nx = sympy.E\n" in cex["e4"]["python"] and \
        "\nimport sympy\n" in cex["e4"]["python"], cex
    whole = cex["e2"]["lhs"]                       # the exact value stays whole in the JSON
    assert len(whole) > 300 and "…" not in whole and whole.startswith("sqrt(13)/(1 + exp("), whole
    assert cex["e2"]["message"] == "the statement fails: lhs ≈ 2.10639, rhs = 1", cex["e2"]
    assert len(cex["e3"]["lhs"]) == 2 and all(len(x) > 300 for x in cex["e3"]["lhs"])
    from shardproof.report import build_report       # the HTML report: the same cut and digits
    build_report([path], str(tmp_path / "site"))
    page = (tmp_path / "site" / "e.lemma.html").read_text(encoding="utf-8")
    assert "lhs ≈ [3.10639, 2.10639]" in page and "lhs_approx" not in page, page
    assert "--format json has them all" in page and whole not in page


def test_a_summary_line_whose_six_digits_agree_shows_the_difference(tmp_path, capsys) -> None:
    """Seventy-third review: `lhs ≈ 3.63603e+238, rhs ≈ 3.63603e+238` read as no failure at
    all; where the six digits agree the line adds the difference."""
    # (`1 < x`: the counterexample's shrinking would take x to 0, where the digits differ)
    _root(tmp_path, {"s.lemma": "theorem s1 (x : ℝ) (hx : 1 < x) : sqrt (x ^ 1000 + 3) = "
                                "x ^ 500 + 1 := by norm\n"})
    assert cli.main(["check", "--no-cache", "--no-times", str(tmp_path / "s.lemma")]) == 1
    out = capsys.readouterr().out
    assert re.search(r"the statement fails: lhs ≈ (\S+), rhs ≈ \1 \(lhs − rhs ≈ -1\.00000\)",
                     out), out


def test_latex_of_a_comparison_escapes_what_a_browser_or_tex_would_read() -> None:
    """Eighty-third review: the LaTeX of a term kept a raw `<` before a letter (`i<n`), which a
    browser rendering the math as HTML reads as a tag (MathJax warns); `&` is TeX's alignment
    tab.  They are `\\lt`, `\\gt` and `\\&` now."""
    import shardproof as sp
    latex = sp.parse_expr("if i < n then x else (if n > i then y else 0)")._repr_latex_()
    assert "<" not in latex and ">" not in latex and r"\lt" in latex and r"\gt" in latex
