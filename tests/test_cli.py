"""The command line's contract: output formats, exit statuses, determinism, CI integrations.

Most tests replace the engine (`shardproof.prove.decide`) by a stub whose verdict is read off the
theorem's name (`ok_…` proved, `bad_…` refuted, `unk_…` unknown, `boom` crashes), so that what is
tested is the command line and not the engine; one test runs the real engine end to end.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from shardproof import __version__, cli
from shardproof import prove as prove_mod
from shardproof.check import Verdict

FILES = {
    "a.lemma": """\
/-! # A -/

import lib.b

/-- Proved, citing a lemma two imports away. -/
theorem ok_a (s : ℝ) : s = s := by norm [ok_c]

/-- Refuted. -/
theorem bad_a (s : ℝ) : s + 1 = s

/-- Unknown. -/
theorem unk_a (s : ℝ) : s * s = s
""",
    "lib/b.lemma": """\
import lib.c

/-- Proved. -/
theorem ok_b (s : ℝ) : s = s := by norm [ok_c]
""",
    "lib/c.lemma": """\
/-- Proved. -/
theorem ok_c (s : ℝ) : s = s
""",
}


def _stub_decide(g, genv, checker, options) -> Verdict:
    cited = [n.name for step in g.proof.steps for n in step.names]
    missing = [n for n in cited if n not in checker.verdicts]
    if missing:
        return Verdict(g.name, g.path, 0, "unknown", 0.0, reason=f"not checked yet: {missing}")
    if g.name == "boom":
        raise RuntimeError("kaboom")
    if g.name.startswith("ok_"):
        return Verdict(g.name, g.path, 0, "proved", 0.0, rules=[f"rule_{g.name}", "unfold"],
                       lemmas=cited, oracles=["oracle:ring"], replayed=True,
                       kernel=[f"kernel:rule_{g.name}", "oracle:index-ring"] +
                       [f"lemma:{c}" for c in cited],
                       trace=[{"rule": "unfold", "at": "", "detail": "relu"},
                              {"rule": "hyp", "at": "he", "detail": "e r := shard R N n X r\n"
                                                                    "second line"}])
    if g.name.startswith("bad_"):
        cex = {"assignment": {"sizes": {"R": 2}, "reals": {"s": "5/2"}, "tensors": {}},
               "lhs": "7/2", "rhs": "5/2", "index": None,
               "message": "the statement fails: lhs = 7/2, rhs = 5/2", "witness": False,
               "python": "import numpy as np\ns = 5/2"}
        return Verdict(g.name, g.path, 0, "refuted", 0.0, counterexample=cex)
    return Verdict(g.name, g.path, 0, "unknown", 0.0, reason="the normal forms differ",
                   residual="s·s - s")


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    (tmp_path / ".lemmaroot").write_text("")
    for name, text in FILES.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(prove_mod, "decide", _stub_decide)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_prints_a_line_per_theorem_and_a_summary(root, capsys) -> None:
    code, out, err = run(capsys, "check", "--no-times", "a.lemma")
    assert code == 1 and err == ""
    assert out == """\
proved   ok_a   (0 ms)
refuted  bad_a  (0 ms)
    at a.lemma:9
    counterexample:
      the statement fails: lhs = 7/2, rhs = 5/2
      sizes: R = 2
      reals: s = 5/2
      lhs = 7/2
      rhs = 5/2
unknown  unk_a  (0 ms)
    at a.lemma:12
    reason: the normal forms differ
    residual: s·s - s
1 proved, 1 refuted, 1 unknown in 0.00 s
"""


def test_imports_are_checked_first_so_any_imported_lemma_can_be_cited(root, capsys) -> None:
    """`ok_a` cites `ok_c`, imported through `lib/b`: its verdict exists when `ok_a` is checked."""
    code, out, _ = run(capsys, "check", "a.lemma", "--no-times", "lib")  # options may interleave
    assert code == 1
    assert "proved   ok_a" in out and "not checked yet" not in out
    assert out.splitlines()[-1] == "3 proved, 1 refuted, 1 unknown in 0.00 s"


def test_exit_zero_when_everything_is_proved(root, capsys) -> None:
    code, out, _ = run(capsys, "check", "lib")
    assert code == 0
    assert out.splitlines()[-1].startswith("2 proved, 0 refuted, 0 unknown in ")


def test_json_is_one_object_per_theorem_and_nothing_else(root, capsys) -> None:
    code, out, err = run(capsys, "check", "--format", "json", "--no-times", "a.lemma")
    assert code == 1 and err == ""
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["name"] for r in recs] == ["ok_a", "bad_a", "unk_a"]
    assert [r["verdict"] for r in recs] == ["proved", "refuted", "unknown"]
    for r in recs:
        assert {"name", "file", "line", "verdict", "seconds", "rules"} <= set(r)
        assert r["file"] == "a.lemma" and r["seconds"] == 0
    assert recs[0]["rules"] == ["rule_ok_a", "unfold"] and recs[0]["lemmas"] == ["ok_c"]
    assert recs[1]["counterexample"]["assignment"]["reals"] == {"s": "5/2"}
    assert recs[2]["reason"] == "the normal forms differ"


def test_no_times_output_is_byte_identical(root, capsys) -> None:
    first = run(capsys, "check", "--no-times", "-v", ".")
    second = run(capsys, "check", "--no-times", "-v", ".")
    assert first == second
    json1 = run(capsys, "check", "--no-times", "--format", "json", ".")
    json2 = run(capsys, "check", "--no-times", "--format", "json", ".")
    assert json1 == json2


def test_quiet_prints_failures_and_the_summary(root, capsys) -> None:
    code, out, _ = run(capsys, "check", "-q", "--no-times", "a.lemma")
    assert code == 1
    assert "ok_a" not in out
    assert "refuted  bad_a" in out and "unknown  unk_a" in out
    assert out.splitlines()[-1] == "1 proved, 1 refuted, 1 unknown in 0.00 s"


def test_verbose_prints_the_rules(root, capsys) -> None:
    _, out, _ = run(capsys, "check", "-v", "--no-times", "a.lemma")
    lines = out.splitlines()
    assert lines[0] == "proved   ok_a   (0 ms)"
    assert lines[1] == "    rules: rule_ok_a, unfold"
    assert lines[2] == "    lemmas: ok_c"


def test_junit_report(root, capsys) -> None:
    (root / "broken.lemma").write_text("theorem broken (s : ℝ) : s + = s\n", encoding="utf-8")
    code, _, err = run(capsys, "check", "--junit", "report.xml", "--no-times", ".")
    assert code == 2 and "broken.lemma:1:30: error:" in err
    tree = ET.parse(root / "report.xml")
    suites = {s.get("name"): s for s in tree.getroot().iter("testsuite")}
    assert set(suites) == {"a.lemma", "broken.lemma", "lib/b.lemma", "lib/c.lemma"}
    cases = {c.get("name"): c for c in tree.getroot().iter("testcase")}
    assert cases["ok_a"].get("classname") == "a.lemma" and cases["ok_a"].find("failure") is None
    failure = cases["bad_a"].find("failure")
    assert failure is not None and failure.get("type") == "refuted"
    assert "lhs = 7/2" in failure.get("message", "") and "reals: s = 5/2" in failure.text
    assert cases["unk_a"].find("failure").get("type") == "unknown"
    error = cases["broken"].find("error")
    assert error is not None and error.get("type") == "parse"
    top = tree.getroot()
    assert (top.get("tests"), top.get("failures"), top.get("errors")) == ("6", "2", "1")


def test_github_annotations(root, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = run(capsys, "check", "--no-times", "a.lemma")
    notes = [ln for ln in out.splitlines() if ln.startswith("::error ")]
    assert len(notes) == 2
    assert notes[0].startswith("::error file=a.lemma,line=9,col=1,title=shardproof%3A bad_a "
                               "refuted::counterexample:%0A  the statement fails")
    assert notes[1].startswith("::error file=a.lemma,line=12,col=1,")
    _, out, err = run(capsys, "check", "--format", "json", "a.lemma")
    assert all(line.startswith("{") for line in out.splitlines())
    assert err.count("::error ") == 2


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal(root, capsys, monkeypatch) -> None:
    _, out, _ = run(capsys, "check", "lib")
    assert "\033[" not in out
    tty = _Tty()
    monkeypatch.setattr("sys.stdout", tty)
    cli.main(["check", "lib"])
    assert "\033[32mproved\033[0m" in tty.getvalue()
    for extra, env in ((["--no-color"], None), ([], "1")):
        tty = _Tty()
        monkeypatch.setattr("sys.stdout", tty)
        if env:
            monkeypatch.setenv("NO_COLOR", env)
        cli.main(["check", *extra, "lib"])
        assert "\033[" not in tty.getvalue()


def test_explain(root, capsys) -> None:
    code, out, _ = run(capsys, "explain", "ok_a", "--no-times", ".")
    assert code == 0
    assert out.startswith("theorem ok_a  (a.lemma:6)\n\n  /-- Proved, citing a lemma two "
                          "imports away. -/\n  theorem ok_a (s : ℝ) :\n      s = s := by norm "
                          "[ok_c]\n")
    assert "verdict:  proved  (0 ms)" in out
    assert "rules:    rule_ok_a, unfold" in out
    assert "oracles:  oracle:ring" in out
    assert "lemmas:   ok_c" in out
    assert "trace:    2 steps\n  1. unfold  relu\n  2. hyp     at he: e r := shard R N n X r\n" \
           "             second line\n" in out


def test_explain_a_refuted_theorem_shows_the_counterexample(root, capsys) -> None:
    code, out, _ = run(capsys, "explain", "bad_a", "--no-times", ".")
    assert code == 1
    assert "verdict:  refuted  (0 ms)\n  counterexample:\n    the statement fails" in out
    assert "    as Python:\n      import numpy as np\n      s = 5/2\n" in out


def test_explain_unknown_name(root, capsys) -> None:
    code, out, err = run(capsys, "explain", "ok_A", ".")
    assert code == 2 and out == ""
    assert "no theorem named `ok_A` in .; did you mean " in err and "`ok_a`" in err


def test_explain_a_theorem_of_a_file_that_does_not_load(tmp_path, capsys, monkeypatch) -> None:
    """Seventy-third review: the file's input error, then "no theorem named `ex1`", though it
    declares `ex1`: a file that does not load is named as the reason."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "w.lemma").write_text("theorem ex1 (x : ℝ) : x = x := by norm\n"
                                      "theorem ex3 (x : ℝ) : x = (x := by norm\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "explain", "ex1", "w.lemma")
    assert code == 2 and out == ""
    assert "w.lemma:2:" in err and "no theorem named `ex1` in the files that load; w.lemma " \
        "did not (the error above)" in err, err


def test_axioms_follow_lemmas_transitively(root, capsys) -> None:
    code, out, _ = run(capsys, "axioms", "ok_a", ".")
    assert code == 0
    assert out == """\
theorem ok_a: proved  (a.lemma:6)
lemmas (1, transitively):
  ok_c  (proved)
rests on (3 kernel rules and oracles, transitively; no axioms.allow at the lemma root):
  kernel:rule_ok_a
  kernel:rule_ok_c
  oracle:index-ring
"""
    code, out, _ = run(capsys, "axioms", "ok_b", "lib")
    assert "ok_c  (proved)" in out and "kernel:rule_ok_b" in out and "kernel:rule_ok_c" in out


def test_axioms_flag_what_the_allowlist_lacks(root, capsys) -> None:
    (root / "axioms.allow").write_text("# test\nkernel:rule_ok_a — fine\n"
                                       "oracle:index-ring — fine\n", encoding="utf-8")
    code, out, _ = run(capsys, "axioms", "ok_a", ".")
    assert code == 1
    assert "  kernel:rule_ok_c   NOT IN axioms.allow\n" in out
    assert "  kernel:rule_ok_a\n" in out


def test_internal_errors_exit_3_without_a_traceback(root, capsys) -> None:
    (root / "z.lemma").write_text("theorem boom (s : ℝ) : s = s\n", encoding="utf-8")
    code, _, err = run(capsys, "check", "z.lemma")
    assert code == 3
    assert "internal error: RuntimeError: kaboom" in err and "Traceback" not in err
    code, _, err = run(capsys, "check", "--debug", "z.lemma")
    assert code == 3 and "Traceback" in err


def test_version_help_and_usage(capsys) -> None:
    assert run(capsys, "--version") == (0, f"shardproof {__version__}\n", "")
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "examples:" in out and "shardproof explain" in out
    code, out, _ = run(capsys, "check", "--help")
    assert code == 0 and "--no-times" in out and "--junit" in out
    code, _, err = run(capsys)
    assert code == 2 and "usage:" in err
    code, _, err = run(capsys, "check", "--format", "xml", "x")
    assert code == 2 and "invalid choice" in err


def test_end_to_end_with_the_engine(tmp_path, monkeypatch, capsys) -> None:
    """The real engine: a proved and a refuted theorem, through the JSON output."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "e.lemma").write_text(
        "/-- `(1/R)·(R·v) = v`. -/\n"
        "theorem inv_mul_R (R : Nat) (hR : 0 < R) (v : ℝ) : 1 / R * (R * v) = v := by norm\n\n"
        "/-- Forgot that `R` may be 0. -/\n"
        "theorem inv_mul_R_bad (R : Nat) (v : ℝ) : 1 / R * (R * v) = v := by norm\n",
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "--format", "json", "--search-seconds", "1", "e.lemma")
    assert code == 1, err
    recs = {r["name"]: r for r in map(json.loads, out.splitlines())}
    assert recs["inv_mul_R"]["verdict"] == "proved"
    assert recs["inv_mul_R_bad"]["verdict"] == "refuted"
    assert recs["inv_mul_R_bad"]["counterexample"]["assignment"]["sizes"]["R"] == 0


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_proof_stopped_by_a_refuted_lemma_names_it(tmp_path, monkeypatch, capsys,
                                                      jobs) -> None:
    """A chain of proofs that cite unproved theorems, across files, ends in the refuted one
    (as a whole net with per-replica BatchNorm ends in its first refuted block)."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text("theorem bad (x : ℝ) : x + 1 = x := by norm\n")
    (tmp_path / "b.lemma").write_text("import a\ntheorem mid (x : ℝ) : x + 0 = x := by rw [bad]\n")
    (tmp_path / "c.lemma").write_text("import b\ntheorem top (x : ℝ) : x * 1 = x := by rw [mid]\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "--format", "json", "--search-seconds", "1", "-j", jobs,
                         ".")
    assert code == 1, err
    recs = {r["name"]: r for r in map(json.loads, out.splitlines())}
    assert recs["bad"]["verdict"] == "refuted"
    for name in ("mid", "top"):
        assert recs[name]["verdict"] == "unknown"
        assert recs[name]["reason"].endswith("it rests on `bad`, which is refuted")


def test_a_proof_stopped_by_an_unknown_lemma_names_it_and_why(tmp_path, monkeypatch,
                                                             capsys) -> None:
    """Sixty-eighth review: a chain that ends in an `unknown` (a block whose `0 < R` was
    dropped) said only "cannot cite `mid`: it is not proved"; it now names the root and its
    reason, across files, as a refuted root is named."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text(
        "theorem base (R : Nat) (v : ℝ) : 1 / R * (R * v) = v := by norm\n")
    (tmp_path / "b.lemma").write_text(
        "import a\ntheorem mid (R : Nat) (v : ℝ) : 1 / R * (R * v) + 0 = v := by rw [base]\n")
    (tmp_path / "c.lemma").write_text(
        "import b\ntheorem top (R : Nat) (v : ℝ) : 1 / R * (R * v) * 1 = v := by rw [mid]\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "--format", "json", "--search-seconds", "0", ".")
    recs = {r["name"]: r for r in map(json.loads, out.splitlines())}
    assert recs["base"]["verdict"] == "unknown"
    for name in ("mid", "top"):
        assert recs[name]["verdict"] == "unknown"
        assert "it rests on `base`, which is unknown: the normal forms differ" in \
            recs[name]["reason"] and "(hR : 0 < R)" in recs[name]["reason"], recs[name]


def test_explain_and_axioms_refuse_to_guess_between_theorems_of_one_name(tmp_path, capsys,
                                                                          monkeypatch) -> None:
    """Files that do not import each other may share a theorem name; `explain`/`axioms` took
    the first file's (twelfth review: a proved `L` shown while another `L` was refuted)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text("theorem L (x : ℝ) : x + 0 = x := by norm\n")
    (tmp_path / "b.lemma").write_text("theorem L (x : ℝ) : x * 0 = x := by norm\n")
    for cmd in ("explain", "axioms"):
        assert cli.main([cmd, "L", ".", "--no-cache"]) == 2
        err = capsys.readouterr().err
        assert "2 theorems are named `L`" in err and "a.lemma:1" in err and "b.lemma:1" in err
    assert cli.main(["explain", "L", "b.lemma", "--no-cache"]) == 1     # refuted
    assert "refuted" in capsys.readouterr().out


def test_sixteenth_review_cli_inputs(tmp_path, capsys, monkeypatch) -> None:
    """Option values the search cannot take are usage errors (they were internal errors); a
    directory without `.lemma` files is an input error (a mistyped CI path passed as
    "0 proved"); `axioms` exits 2 when another file given has an input error, and 1 when the
    proof was not replayed (nothing was checked against the allowlist); an op of the user's
    own marked `@[linear x]` is listed by `axioms` as its own claim, outside the allowlist."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text("theorem a (x : ℝ) : x + 1 = x := by norm\n")
    for bad in (["--seed", "-1"], ["--search-seconds", "nan"], ["--search-seconds", "inf"],
                ["--search-seconds", "1e308"], ["-j", "0"], ["-j", "x"]):
        code, _, err = run(capsys, "check", *bad, "a.lemma")
        assert code == 2 and "usage:" in err and "internal error" not in err, (bad, err)
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "check", "--no-cache", "empty")
    assert code == 2 and "no `.lemma` files in the directory empty" in err
    (tmp_path / "op.lemma").write_text(
        "@[linear x] opaque sq (n : Nat) (x : Vec n) : Vec n\n"
        "theorem lin (x y : Vec 1) : sq 1 (fun (i : Fin 1) => x i + y i) = "
        "fun (i : Fin 1) => sq 1 x i + sq 1 y i := by norm\n")
    (tmp_path / "axioms.allow").write_text(
        (Path(__file__).resolve().parents[1] / "lemmas" / "axioms.allow").read_text())
    code, out, _ = run(capsys, "axioms", "lin", "op.lemma", "--no-cache")
    assert code == 1 and "  linear:sq   NOT IN axioms.allow" in out
    code, out, _ = run(capsys, "axioms", "lin", "op.lemma", "--no-cache", "--no-replay")
    assert code == 1 and "not replayed" in out
    (tmp_path / "broken.lemma").write_bytes(b"theorem b (x : \xff) : x = x\n")
    code, _, err = run(capsys, "axioms", "lin", "broken.lemma", "op.lemma", "--no-cache")
    assert code == 2 and "broken.lemma:1" in err


def test_input_errors_print_alike_with_jobs_and_put_the_caret_under_the_spot(tmp_path,
                                                                             monkeypatch,
                                                                             capsys) -> None:
    """Twenty-third review: with `-j 2` an input error lost its source line and caret (the
    parent never read the file); on a line with tabs the caret stood left of the spot."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "a.lemma").write_text("def c : ℝ := 1\ntheorem t (x : ℝ) : x * c = y := by norm\n")
    (tmp_path / "tab.lemma").write_text("theorem t (x : ℝ) :\n\tx = \ty := by norm\n")
    (tmp_path / "wide.lemma").write_text("/-- 数据 -/ theorem w (x : ℝ) : x = y := by norm\n")
    monkeypatch.chdir(tmp_path)
    outs = []
    for jobs in ("1", "2"):
        code, out, err = run(capsys, "check", "--no-times", "--no-color", "-j", jobs, ".")
        assert code == 2
        outs.append(err)
    assert outs[0] == outs[1]
    assert "  theorem t (x : ℝ) : x * c = y := by norm\n" + " " * 30 + "^\n" in outs[0]
    assert "  \tx = \ty := by norm\n  \t    \t^\n" in outs[0]
    line = "/-- 数据 -/ theorem w (x : ℝ) : x = y := by norm"
    assert f"  {line}\n  " + " " * (line.index("y") + 2) + "^\n" in outs[0]   # 数据: 4 columns
