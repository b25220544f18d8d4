"""The incremental cache: warm runs reuse verdicts; any edit in the dependency closure re-checks."""

from pathlib import Path

from shardproof import cli
from shardproof.check import Options, check_paths

DEFS_TRUE = """def dbl (n : Nat) (x : Vec n) : Vec n := fun (i : Fin n) => x i + x i
"""
DEFS_FALSE = """def dbl (n : Nat) (x : Vec n) : Vec n := fun (i : Fin n) => x i + x i + x i
"""
THM = """import defs

theorem dbl_eq (n : Nat) (x : Vec n) : dbl n x = (2 : ℝ) • x
"""


def _root(tmp_path: Path, defs: str) -> Path:
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "defs.lemma").write_text(defs)
    (tmp_path / "thm.lemma").write_text(THM.replace("(2 : ℝ) • x", "2 • x"))
    return tmp_path


def _verdicts(root: Path, cache: Path) -> dict[str, tuple[str, bool]]:
    r = check_paths([root], Options(cache_dir=str(cache), search_seconds=0.5))
    return {v.name: (v.verdict, v.cached) for v in r.verdicts}


def test_warm_run_reuses_verdicts(tmp_path):
    (tmp_path / "lemmas").mkdir()
    root = _root(tmp_path / "lemmas", DEFS_TRUE)
    cache = tmp_path / "cache"
    assert _verdicts(root, cache) == {"dbl_eq": ("proved", False)}
    assert _verdicts(root, cache) == {"dbl_eq": ("proved", True)}


def test_editing_an_imported_definition_invalidates_the_dependant(tmp_path):
    (tmp_path / "lemmas").mkdir()
    root = _root(tmp_path / "lemmas", DEFS_TRUE)
    cache = tmp_path / "cache"
    assert _verdicts(root, cache)["dbl_eq"] == ("proved", False)
    (root / "defs.lemma").write_text(DEFS_FALSE)           # the theorem is now false
    assert _verdicts(root, cache)["dbl_eq"] == ("refuted", False)   # never a stale `proved`
    (root / "defs.lemma").write_text(DEFS_TRUE)
    assert _verdicts(root, cache)["dbl_eq"] == ("proved", True)     # the old entry is valid again


def test_cli_cache_and_parallel_output_are_identical(tmp_path, capsys):
    lemmas = Path(__file__).resolve().parent.parent / "lemmas" / "kit"
    files = [str(lemmas / n) for n in ("pointwise.lemma", "divisor.lemma", "relabel.lemma")]
    outs = []
    for extra in (["--no-cache"], ["-j", "2", "--no-cache"],
                  ["--cache-dir", str(tmp_path / "c")], ["--cache-dir", str(tmp_path / "c")]):
        code = cli.main(["check", "--no-times", *extra, *files])
        assert code == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == outs[2] == outs[3]
