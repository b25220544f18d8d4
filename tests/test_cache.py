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


def test_every_edit_of_a_declaration_changes_the_keys_that_depend_on_it(tmp_path):
    """The key hashes each declaration's text once per process (a memo keyed by the parsed
    declaration): editing a proof, a hypothesis, a definition's body or binder, in one process,
    still gives new keys — and an unedited file the same ones."""
    from shardproof.cache import theorem_key
    from shardproof.library import Library

    base_thm = "import defs\n\ntheorem t (n : Nat) (hn : 0 < n) (x : Vec n) : dbl n x = 2 • x := by norm\n"
    variants = {
        "same": (DEFS_TRUE, base_thm),
        "proof": (DEFS_TRUE, base_thm.replace("by norm", "by unfold [dbl]; norm")),
        "hypothesis": (DEFS_TRUE, base_thm.replace("(hn : 0 < n)", "(hn : n ≠ 0)")),
        "body": (DEFS_FALSE, base_thm),
        "binder": (DEFS_TRUE.replace("(x : Vec n) : Vec n", "(x : Vec (n * 1)) : Vec n"),
                   base_thm),
    }
    keys = {}
    for k, (defs, thm) in list(variants.items()) + [("again", variants["same"])]:
        root = tmp_path / k
        root.mkdir()
        (root / ".lemmaroot").write_text("")
        (root / "defs.lemma").write_text(defs)
        (root / "thm.lemma").write_text(thm)
        lf = Library(root).load(root / "thm.lemma")
        g = next(g for g in lf.own if g.name == "t")
        keys[k] = theorem_key(g, lf.env, "opts")
    assert keys["again"] == keys["same"]
    assert len({keys[k] for k in variants}) == len(variants), keys


# ---- a cache that cannot be used: ignored, or an input error — never a crash

def _check(root: Path, *extra: str) -> int:
    return cli.main(["check", "--no-times", "--search-seconds", "0.5", *extra, str(root)])


def test_a_corrupt_cache_file_is_ignored_and_rewritten(tmp_path, capsys):
    """The cache only saves time: a file of the wrong shape is read as empty, a malformed
    record is a miss (re-checked, then overwritten), without a message."""
    import json

    (tmp_path / "lemmas").mkdir()
    root = _root(tmp_path / "lemmas", DEFS_TRUE)
    cache = tmp_path / "cache"
    assert _check(root, "--cache-dir", str(cache)) == 0
    expected = capsys.readouterr().out
    (key,) = json.loads((cache / "verdicts.json").read_text())["verdicts"]
    good = json.loads((cache / "verdicts.json").read_text())["verdicts"][key]
    corrupt = [
        [1, 2],
        {"format": 2, "verdicts": []},
        {"format": 2, "verdicts": {key: "junk"}},
        {"format": 2, "verdicts": {key: {"bogus": 1}}},
        {"format": 2, "verdicts": {key: {"name": "x"}}},
        {"format": 2, "verdicts": {key: {**good, "name": "another"}}},
        {"format": 2, "verdicts": {key: {**good, "verdict": "maybe"}}},
        {"format": 2, "verdicts": {key: {**good, "lemmas": [["not", "a", "name"]]}}},
        {"format": 2, "verdicts": {key: {**good, "trace": ["not a step"]}}},
        {"format": 2, "verdicts": {key: {**good, "seconds": float("-inf")}}},   # crashed
        {"format": 2, "verdicts": {key: {**good, "seconds": float("nan")}}},
        {"format": 2, "verdicts": {key: {**good, "seconds": 10 ** 400}}},   # crashed the output
    ]
    for data in corrupt:
        (cache / "verdicts.json").write_text(json.dumps(data))
        assert _check(root, "--cache-dir", str(cache)) == 0, data
        out, err = capsys.readouterr()
        assert out == expected and err == "", data
        saved = json.loads((cache / "verdicts.json").read_text())["verdicts"][key]
        assert {**saved, "seconds": 0} == {**good, "seconds": 0}, data    # rewritten
    (cache / "verdicts.json").write_text("[" * 100_000 + "]" * 100_000)   # too deep for json
    assert _check(root, "--cache-dir", str(cache)) == 0
    assert capsys.readouterr() == (expected, "")


def test_a_cache_or_report_directory_that_is_a_file_is_an_input_error(tmp_path, capsys):
    (tmp_path / "lemmas").mkdir()
    root = _root(tmp_path / "lemmas", DEFS_TRUE)
    taken = tmp_path / "taken"
    taken.write_text("not a directory")
    for args, phrase in [
        (["check", "--cache-dir", str(taken)], f"the cache directory {taken} exists and is not"),
        (["check", "--cache-dir", str(taken / "sub")],            # found only when saving
         f"cannot write the cache {taken / 'sub' / 'verdicts.json'}"),
        (["report", "--no-cache", "-o", str(taken)],
         f"the report directory {taken} exists and is not"),
        (["report", "--no-cache", "-o", str(taken / "sub")],
         f"cannot write the report to {taken / 'sub'}"),
    ]:
        assert cli.main([*args, "--search-seconds", "0.5", str(root)]) == 2, args
        _out, err = capsys.readouterr()
        assert f"shardproof: error: {phrase}" in err, err
        assert "internal error" not in err and "Traceback" not in err
    assert taken.read_text() == "not a directory"


def test_the_ci_recipe_caches_the_directory_it_restores(tmp_path, monkeypatch, capsys):
    """docs/ci.md: the `--cache-dir` of the check step must write into the `path:` that the
    `actions/cache` step saves and restores (`--cache-dir DIR` writes `DIR/verdicts.json`)."""
    import re
    import shlex

    doc = (Path(__file__).resolve().parent.parent / "docs" / "ci.md").read_text()
    saved = re.search(r"uses: actions/cache@\S+\n\s+with:\n\s+path: (\S+)", doc).group(1)
    run = re.search(r"run: (shardproof check .*--cache-dir.*)", doc).group(1)
    args = shlex.split(run)
    cache_dir = args[args.index("--cache-dir") + 1]
    (tmp_path / "lemmas").mkdir()
    _root(tmp_path / "lemmas", DEFS_TRUE)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--search-seconds", "0.5", "--cache-dir", cache_dir,
                     "lemmas/"]) == 0
    capsys.readouterr()
    assert (tmp_path / saved / "verdicts.json").is_file()


def test_a_cached_counterexample_prints_as_a_fresh_one(tmp_path, capsys):
    """Sixteenth review: the cache saved records with sorted keys, so a warm run printed a
    counterexample's parts (sizes, reals, tensors, indices) in another order than a cold one."""
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "r.lemma").write_text(
        "theorem bad (R : Nat) (x : ℝ) (g : Vec R) (r : Fin R) : g r + x = g r := by norm\n")
    outs = []
    for _ in range(3):
        assert cli.main(["check", "--no-times", "--no-color", "--cache-dir",
                         str(tmp_path / "c"), str(tmp_path / "r.lemma")]) == 1
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == outs[2] and "refuted" in outs[0]


def test_a_cached_counterexample_of_another_shape_is_a_miss(tmp_path, capsys):
    """Twenty-third review: a hand-edited counterexample (a message that is a list, a size that
    is text) crashed `report` and `check`; it is a miss, re-checked and rewritten."""
    import json
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "r.lemma").write_text(
        "theorem bad (R : Nat) (x : ℝ) (g : Vec R) (r : Fin R) : g r + x = g r := by norm\n")
    args = ["check", "--no-times", "--no-color", "--cache-dir", str(tmp_path / "c"),
            str(tmp_path / "r.lemma")]
    assert cli.main(args) == 1
    expected = capsys.readouterr().out
    data = json.loads((tmp_path / "c" / "verdicts.json").read_text())
    (key,) = data["verdicts"]
    good = data["verdicts"][key]
    cex = good["counterexample"]
    for bad in ({**cex, "message": ["a"]}, {**cex, "python": 5}, {**cex, "index": "0"},
                {**cex, "lhs": {"a": 1}}, {**cex, "assignment": []},
                {**cex, "assignment": {**cex["assignment"], "sizes": {"R": "two"}}},
                {**cex, "assignment": {**cex["assignment"], "tensors": {"g": 5}}},
                # sixty-first review: the six digits of an irrational side, of another shape
                {**cex, "lhs": 5, "lhs_approx": ["1", "2"]}, {**cex, "lhs_approx": [1, None]},
                {**cex, "rhs_approx": 7}):
        data["verdicts"][key] = {**good, "counterexample": bad}
        (tmp_path / "c" / "verdicts.json").write_text(json.dumps(data))
        assert cli.main(args) == 1, bad
        assert capsys.readouterr().out == expected, bad
        assert cli.main(["report", "--cache-dir", str(tmp_path / "c"), "-o",
                         str(tmp_path / "html"), str(tmp_path / "r.lemma")]) == 1, bad
        capsys.readouterr()


def test_the_cache_directory_ignores_itself_for_git(tmp_path):
    """Twenty-fifth review: the pre-commit hook's default cache left `.shardproof-cache/` for
    `git add -A` to commit, though docs/ci.md says never to commit it."""
    (tmp_path / "lemmas").mkdir()
    root = _root(tmp_path / "lemmas", DEFS_TRUE)
    cache = tmp_path / "cache"
    assert _check(root, "--cache-dir", str(cache)) == 0
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_shared_cache_directory_gets_no_gitignore_and_an_empty_one_is_refused(tmp_path,
                                                                               capsys):
    """Fifty-third review: `--cache-dir ""` (an unset variable in CI) meant the current
    directory, and the cache wrote a `.gitignore` of `*` beside the lemma files, so `git add -A`
    silently left every new lemma file out.  An empty name is a usage error (exit 2), and a
    directory that already holds other files gets no `.gitignore`."""
    root = _root(tmp_path, DEFS_TRUE)
    assert _check(root, "--cache-dir", "") == 2
    assert "--cache-dir: expected a directory, got an empty name" in capsys.readouterr().err
    assert _check(root, "--cache-dir", str(root)) == 0
    assert (root / "verdicts.json").exists() and not (root / ".gitignore").exists()
    (tmp_path / "empty").mkdir()
    assert _check(root, "--cache-dir", str(tmp_path / "empty")) == 0
    assert (tmp_path / "empty" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_parallel_worker_keeps_its_checker_from_file_to_file(tmp_path):
    """Fifty-third review: each file of `-j N` got a fresh checker, which re-checked its whole
    import closure (the library took five times as long with `-j 2`).  A worker keeps one per
    options, as the serial run does, and gives the same verdicts."""
    root = _root(tmp_path, DEFS_TRUE)
    opts = Options(cache_dir=None, search_seconds=0.5)
    cli._WORKER_CHECKER = None
    first, err, _ = cli._check_in_worker(str(root / "defs.lemma"), opts)
    ck = cli._WORKER_CHECKER
    second, err2, _ = cli._check_in_worker(str(root / "thm.lemma"), opts)
    assert err is None and err2 is None and cli._WORKER_CHECKER is ck
    assert [v.verdict for v, _ in second] == ["proved"]
    cli._check_in_worker(str(root / "thm.lemma"), Options(cache_dir=None, search_seconds=1.0))
    assert cli._WORKER_CHECKER is not ck                 # (other options: another checker)
    cli._WORKER_CHECKER = None


def test_a_record_under_another_key_or_not_replayed_is_a_miss(tmp_path):
    """Seventy-sixth review: the cache keeps a record for each version of a theorem; after the
    true version was edited to a false one, swapping the two records by hand served the false
    one as `proved` (exit 0, "replayed: yes" and the other version's trace), and a `proved`
    record without `replayed` was served under replay.  A record now carries its key, and a
    `proved` under replay must say it was replayed: each is a miss, checked afresh."""
    import json
    (tmp_path / "lemmas").mkdir()
    root = _root(tmp_path / "lemmas", DEFS_TRUE)
    cache = tmp_path / "cache"
    assert _verdicts(root, cache)["dbl_eq"] == ("proved", False)
    (root / "defs.lemma").write_text(DEFS_FALSE)
    assert _verdicts(root, cache)["dbl_eq"] == ("refuted", False)
    f = cache / "verdicts.json"
    data = json.loads(f.read_text())
    (k1, r1), (k2, r2) = data["verdicts"].items()
    data["verdicts"] = {k1: r2, k2: r1}                     # the two versions swapped
    f.write_text(json.dumps(data))
    assert _verdicts(root, cache)["dbl_eq"] == ("refuted", False)
    (root / "defs.lemma").write_text(DEFS_TRUE)
    assert _verdicts(root, cache)["dbl_eq"] == ("proved", False)
    data = json.loads(f.read_text())
    for rec in data["verdicts"].values():
        if rec["verdict"] == "proved":
            rec.pop("replayed", None)
    f.write_text(json.dumps(data))
    assert _verdicts(root, cache)["dbl_eq"] == ("proved", False)
    assert _verdicts(root, cache)["dbl_eq"] == ("proved", True)
