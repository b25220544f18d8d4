"""The static HTML report (`shardproof.report.build_report`).

A small lemma root with a proved, a refuted and an unknown theorem, and a chain of lemmas cited
with `by rw [..]` across files, is reported; the pages are checked in Python (every file written,
every link resolves to an existing file and anchor, the graph has the right nodes and edges, the
output is byte-identical from run to run and offline), then in headless Chromium
(`tests/report_browser_check.py`: the SVG graph renders; a screenshot for a person to look at).

The browser test SKIPS when Chromium is not installed, unless SHARDPROOF_REQUIRE_BROWSER is set
(to anything but ``0``/``false``/``no``), in which case it FAILS.  CI installs the browser with
``apt-get update && apt-get install -y chromium``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from shardproof.check import Options
from shardproof.report import build_report

REPO = Path(__file__).resolve().parent.parent
BROWSER_CHECK = Path(__file__).resolve().parent / "report_browser_check.py"

DEFS = """\
/-! # Demo definitions

A doubling map, used by the theorems of `demo.main`.
-/

/-- Double every entry. -/
def double (n : Nat) (x : Vec n) : Vec n := fun (i : Fin n) => x i + x i
"""

MAIN = """\
/-! # Demo theorems

What is proved: doubling commutes with cutting the batch.

* one theorem is proved by `norm`, one cites it with `rw`;
* one is refuted, one is unknown.
-/

import demo.defs

/-- Doubling commutes with cutting the batch. -/
theorem double_shard {R N n : Nat} (X : Vec ((R * N) * n)) (r : Fin R) :
    double (N * n) (shard R N n X r) = shard R N n (double ((R * N) * n) X) r := by norm

/-- The same, citing `double_shard`. -/
theorem double_shard_rw {R N n : Nat} (X : Vec ((R * N) * n)) (r : Fin R) :
    double (N * n) (shard R N n X r) = shard R N n (double ((R * N) * n) X) r := by
  rw [double_shard]

/-- Forgot the hypothesis `0 < R`: false at `R = 0`. -/
theorem inv_mul_R_bad (R : Nat) (v : ℝ) : 1 / R * (R * v) = v := by norm

/-- True, but the engine does not know that `exp` turns sums into products. -/
theorem exp_add (a b : ℝ) : exp (a + b) = exp a * exp b := by norm
"""

MORE = """\
/-! # More demo theorems -/

import demo.main

/-- Cites `double_shard_rw`, which cites `double_shard`: it rests on both. -/
theorem double_shard_again {R N n : Nat} (X : Vec ((R * N) * n)) (r : Fin R) :
    double (N * n) (shard R N n X r) = shard R N n (double ((R * N) * n) X) r := by
  rw [double_shard_rw]
"""

THEOREMS = {"double_shard": "proved", "double_shard_rw": "proved", "inv_mul_R_bad": "refuted",
            "exp_add": "unknown", "double_shard_again": "proved"}
PAGES = {"index.html", "demo.defs.lemma.html", "demo.main.lemma.html", "demo.more.lemma.html"}


def _write_root(root: Path) -> Path:
    (root / "demo").mkdir(parents=True)
    (root / ".lemmaroot").write_text("")
    (root / "demo" / "defs.lemma").write_text(DEFS, encoding="utf-8")
    (root / "demo" / "main.lemma").write_text(MAIN, encoding="utf-8")
    (root / "demo" / "more.lemma").write_text(MORE, encoding="utf-8")
    return root


OPTIONS = Options(search_seconds=2.0, seed=0)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("report")
    root = _write_root(base / "root")
    # Only `more.lemma` is asked for: its imports come along, so every link resolves.
    index = build_report([str(root / "demo" / "more.lemma")], str(base / "site"), OPTIONS)
    assert index == base / "site" / "index.html"
    return index.parent


# --------------------------------------------------------------------------- parsing helpers

class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.resources: list[str] = []
        self.nodes: list[dict[str, str]] = []
        self.edges: list[dict[str, str]] = []
        self.node_shapes: dict[str, str] = {}
        self._node: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if "href" in a and tag != "link":
            self.links.append(a["href"])
        if tag in ("link", "img", "script", "iframe", "source", "embed") and \
                ("src" in a or tag == "link"):
            self.resources.append(a.get("src") or a.get("href", ""))
        cls = a.get("class", "").split()
        if tag == "a" and "node" in cls:
            self.nodes.append(a)
            self._node = a["id"]
        elif self._node is not None and tag in ("rect", "polygon"):
            self.node_shapes[self._node] = tag
        if tag == "path" and "edge" in cls and "data-from" in a:
            self.edges.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._node = None


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _graph(site: Path) -> tuple[dict[str, dict[str, str]], set[tuple[str, str, str]]]:
    page = _parse(site / "index.html")
    by_id = {n["id"]: n for n in page.nodes}
    nodes = {n["data-name"]: n for n in page.nodes}
    edges = set()
    for e in page.edges:
        kind = "cites" if "cites" in e["class"].split() else "mentions"
        edges.add((by_id[e["data-from"]]["data-name"], by_id[e["data-to"]]["data-name"], kind))
    return nodes, edges


# --------------------------------------------------------------------------- structure

def test_every_page_is_written(site: Path) -> None:
    assert {p.name for p in site.iterdir() if p.is_file()} == PAGES


def test_every_link_resolves(site: Path) -> None:
    pages = {p.name: _parse(p) for p in site.glob("*.html")}
    checked = 0
    for name, page in sorted(pages.items()):
        for href in page.links:
            parts = urlsplit(href)
            assert not parts.scheme and not parts.netloc, f"{name}: external link {href}"
            target = parts.path or name
            assert target in pages, f"{name}: link to a missing page {href}"
            if parts.fragment:
                anchor = unquote(parts.fragment)
                assert anchor in pages[target].ids, f"{name}: {href} names no anchor"
            checked += 1
    assert checked > 30


def test_the_site_is_offline(site: Path) -> None:
    for p in site.glob("*.html"):
        page = _parse(p)
        assert page.resources == [], f"{p.name} loads {page.resources}"
        text = p.read_text(encoding="utf-8")
        # The only URL is the SVG namespace (an identifier, never fetched).
        urls = set(re.findall(r"https?://[^\s\"'<>)]+", text))
        assert urls <= {"http://www.w3.org/2000/svg"}, f"{p.name}: {urls}"
        assert "@import" not in text


def test_graph_nodes_edges_and_colours(site: Path) -> None:
    nodes, edges = _graph(site)
    assert set(nodes) == set(THEOREMS) | {"double"}
    for name, verdict in THEOREMS.items():
        assert nodes[name]["class"].split() == ["node", "theorem", verdict], name
    assert nodes["double"]["class"].split() == ["node", "def", "def"]
    shapes = _parse(site / "index.html").node_shapes
    assert shapes[nodes["double"]["id"]] == "polygon"
    assert shapes[nodes["double_shard"]["id"]] == "rect"
    assert ("double_shard_rw", "double_shard", "cites") in edges
    assert ("double_shard_again", "double_shard_rw", "cites") in edges
    assert ("double_shard", "double", "mentions") in edges
    assert not any(src in ("inv_mul_R_bad", "exp_add") for src, _, _ in edges)
    # Every node links to its declaration's anchor on its file page.
    for name, n in nodes.items():
        page, _, frag = n["href"].partition("#")
        assert unquote(frag) == name
        assert page == ("demo.defs.lemma.html" if name == "double" else
                        "demo.more.lemma.html" if name == "double_shard_again"
                        else "demo.main.lemma.html")


def test_file_page_content(site: Path) -> None:
    text = (site / "demo.main.lemma.html").read_text(encoding="utf-8")
    assert "<h1>Demo theorems</h1>" in text                       # the /-! header's title
    assert "<li>one theorem is proved by <code>norm</code>" in text   # … and its list
    assert "Doubling commutes with cutting the batch." in text     # a docstring
    assert "theorem double_shard {R N n : Nat} (X : Vec (R * N * n)) (r : Fin R) :" in text
    assert '<table class="trace">' in text
    assert "counterexample" in text and "R = 0" in text            # the refutation
    assert "the normal forms differ" in text and "exp(a + b)" in text   # the unknown
    more = (site / "demo.more.lemma.html").read_text(encoding="utf-8")
    rests = more[more.index("rests on (transitively)"):]
    rests = rests[: rests.index("</dd>")]
    assert 'href="demo.main.lemma.html#double_shard_rw"' in rests
    assert 'href="demo.main.lemma.html#double_shard"' in rests
    main_ids = _parse(site / "demo.main.lemma.html").ids
    assert set(THEOREMS) - {"double_shard_again"} <= main_ids


def test_index_summary(site: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    m = re.search(r'<p id="verdict-summary">(\d+) proved, (\d+) refuted, (\d+) unknown', text)
    assert m and m.groups() == ("3", "1", "1")
    for f in ("demo/defs.lemma", "demo/main.lemma", "demo/more.lemma"):
        assert f in text


def test_output_is_deterministic(site: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = _write_root(tmp_path / "elsewhere" / "root")
    monkeypatch.chdir(tmp_path)        # the same files elsewhere, another working directory
    again = build_report([str(root / "demo" / "more.lemma")], str(tmp_path / "s"), OPTIONS).parent
    for name in sorted(PAGES):
        a = (site / name).read_bytes()
        b = (again / name).read_bytes()
        assert a == b, name
        assert str(tmp_path).encode() not in b and b" ms)" not in b
    # …and the same input in the same place gives the same bytes.
    third = build_report([str(root / "demo" / "more.lemma")], str(tmp_path / "s2"),
                         OPTIONS).parent
    for name in sorted(PAGES):
        assert (again / name).read_bytes() == (third / name).read_bytes(), name


def test_stale_pages_are_removed_and_other_files_kept(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    stale = out / "gone.lemma.html"
    stale.write_text('<!DOCTYPE html><meta name="generator" content="shardproof report 0">')
    mine = out / "notes.html"
    mine.write_text("<p>mine</p>")
    root = _write_root(tmp_path / "root")
    build_report([str(root)], str(out), OPTIONS)
    assert not stale.exists() and mine.exists()


def test_kit_library(tmp_path: Path) -> None:
    """The real library's kit: every theorem is a node, every link resolves."""
    kit = REPO / "lemmas" / "kit"
    index = build_report([str(kit)], str(tmp_path / "kit"))
    nodes, edges = _graph(index.parent)
    names = set()
    for p in sorted(kit.glob("*.lemma")):
        names |= set(re.findall(r"^theorem\s+(\S+)", p.read_text(encoding="utf-8"), re.M))
    assert names and names <= set(nodes)
    assert any(kind == "mentions" for _, _, kind in edges)   # the kit's sync definitions
    pages = {p.name: _parse(p) for p in index.parent.glob("*.html")}
    for name, page in pages.items():
        for href in page.links:
            path, _, frag = href.partition("#")
            target = path or name
            assert target in pages, href
            assert not frag or unquote(frag) in pages[target].ids, href


# --------------------------------------------------------------------------- the browser

def _browser_required() -> bool:
    return os.environ.get("SHARDPROOF_REQUIRE_BROWSER", "").strip().lower() not in (
        "", "0", "false", "no")


def _chromium() -> str | None:
    env = os.environ.get("SHARDPROOF_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def test_graph_renders_in_headless_chromium(site: Path, tmp_path: Path) -> None:
    if _chromium() is None:
        msg = ("headless Chromium not found at /usr/bin/chromium (install it with "
               "`apt-get update && apt-get install -y chromium`, or point SHARDPROOF_CHROMIUM "
               "at a binary)")
        if _browser_required():
            pytest.fail(msg + "; SHARDPROOF_REQUIRE_BROWSER is set, so this is a failure")
        pytest.skip(msg + "; set SHARDPROOF_REQUIRE_BROWSER=1 to make this a failure")
    artifacts = Path(os.environ.get("SHARDPROOF_ARTIFACTS_DIR") or tmp_path / "artifacts")
    n_nodes = len(_parse(site / "index.html").nodes)
    res = subprocess.run([sys.executable, str(BROWSER_CHECK), str(site), "--artifacts",
                          str(artifacts), "--expect-nodes", str(n_nodes)],
                         capture_output=True, text=True, timeout=400)
    assert res.returncode == 0, res.stderr[-4000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["rendered"] == n_nodes == len(THEOREMS) + 1
    assert out["edges"] == len(_graph(site)[1])
    shot = Path(out["screenshot"])
    assert shot.is_file()
    print(f"\nreport screenshot: {shot}")


def test_sixteenth_review_report_inputs(tmp_path: Path) -> None:
    """(1) Two unrelated files may declare a theorem of one name, but the report keeps pages,
    graph and verdicts by name: a refuted `t` was shown `proved` and the run exited 0.  It is
    now an input error naming both places.  (2) A chain of 1,100 citations overflowed the
    recursion of the graph's depths.  (3) `a b.lemma` and `a+b.lemma` got one page.  (4) A
    file name that is not UTF-8 crashed the writing of the pages."""
    from shardproof.errors import ShardproofError

    same = tmp_path / "same"
    same.mkdir()
    (same / ".lemmaroot").write_text("")
    (same / "a.lemma").write_text("theorem t (x : ℝ) : x + 1 = x := by norm\n")
    (same / "b.lemma").write_text("theorem t (x : ℝ) : x + x = 2 * x := by norm\n")
    with pytest.raises(ShardproofError, match="`t` is declared at .*a.lemma:1 and at .*b.lemma:1"):
        build_report([str(same)], str(tmp_path / "o1"), OPTIONS)

    chain = tmp_path / "chain"
    chain.mkdir()
    (chain / ".lemmaroot").write_text("")
    lines = ["theorem c0 (x : ℝ) : x = x := by norm"]
    lines += [f"theorem c{k} (x : ℝ) : x = x := by rw [c{k - 1}]" for k in range(1, 1100)]
    (chain / "chain.lemma").write_text("\n".join(lines) + "\n")
    (chain / "a b.lemma").write_text("theorem p (x : ℝ) : x = x := by norm\n")
    (chain / "a+b.lemma").write_text("theorem q (x : ℝ) : x = x := by norm\n")
    if sys.platform != "darwin":                  # (macOS refuses names that are not UTF-8)
        (chain / os.fsdecode(b"\xff.lemma")).write_text("theorem u (x : ℝ) : x = x := by norm\n")
    index = build_report([str(chain)], str(tmp_path / "o2"), Options(search_seconds=0.0))
    pages = {p.name for p in index.parent.glob("*.lemma.html")}
    assert {"a_b.lemma.html", "a_b~2.lemma.html", "chain.lemma.html"} <= pages


def test_an_input_error_in_report_shows_the_source_line(tmp_path, capsys) -> None:
    """Sixty-second review: `shardproof report` printed a name or type error without the source
    line and the caret (`check` shows both): the report checked with a checker of its own, so
    the CLI had no sources to show the error with."""
    from shardproof import cli
    (tmp_path / ".lemmaroot").write_text("")
    (tmp_path / "b.lemma").write_text("theorem bad (x : ℝ) : x = rleu x\n", encoding="utf-8")
    assert cli.main(["report", "--no-cache", "-o", str(tmp_path / "site"), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error: unknown name `rleu`" in err and "  theorem bad (x : ℝ) : x = rleu x\n" in err
    assert "^^^^" in err, err
