"""A static, offline HTML report of a lemma library: one page per file and a dependency graph.

``build_report(["lemmas/"], "site/")`` checks every theorem (as ``shardproof check`` does: each
file after its whole import closure) and writes

* ``index.html`` — the files, the verdict counts, the theorems that are not proved, and the
  *lemma dependency graph*: a node per theorem, coloured by verdict, and a node of another shape
  per definition of the lemma root that a statement mentions; an edge from a theorem to every
  lemma its proof cites (``Verdict.lemmas``) and to every such definition.  Every node links to
  the declaration's anchor on its file page.
* ``<module>.lemma.html`` per file (``kit.shard.lemma.html`` for ``kit/shard.lemma``) — the
  ``/-! … -/`` header, then every declaration in source order; a theorem shows its verdict, its
  statement (pretty-printed), its docstring, the counterexample or the reason when it is not
  proved, the rules, oracles and lemmas it used, what it rests on transitively through the
  lemmas it cites (our ``#print axioms``), the theorems that cite it, and its trace.

The site needs nothing but the files themselves: no network, no CDN; the CSS, the small script
and the SVG graph are inline.  The graph is laid out here, deterministically: a band per file
(files in import order, dependencies first), inside a band a row group per dependency depth
(definitions, then theorems citing nothing, then theorems citing those, …), nodes in source
order.  The output is byte-identical for the same input: no timestamps, no durations, no
absolute paths, everything sorted.  The files given are completed by their imports, so every
link resolves.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote

from . import __version__
from . import terms as T
from .check import Checker, Options, Report, Verdict, lemma_files, side_value, stopped_text
from .errors import ShardproofError
from .library import LoadedFile
from .pretty import pretty, proof_suffix
from .types import GlobalDecl

__all__ = ["build_report", "build_report_and_verdicts"]

GENERATOR = "shardproof report"
VERDICTS = ("proved", "refuted", "unknown")
_MAX_CELL = 4000        # characters of one trace cell / residual shown before eliding
_WRAP = 100             # columns of a pretty-printed theorem head


# --------------------------------------------------------------------------- the model

@dataclass
class _File:
    """One `.lemma` file of the report."""

    key: str                    # resolved absolute path (the Library's key); never printed
    root: Path
    rel: str                    # path under the lemma root, POSIX style: "kit/shard.lemma"
    lf: LoadedFile
    requested: bool
    module: str = ""            # "kit.shard"
    page: str = ""              # "kit.shard.lemma.html"
    imports: list[str] = field(default_factory=list)   # keys


@dataclass
class _Node:
    """A node of the dependency graph: a theorem, or a definition a statement mentions."""

    name: str
    kind: str                   # "theorem" | "def"
    file: _File
    line: int
    verdict: str | None         # a theorem's verdict; None for a definition
    deps: list[str] = field(default_factory=list)   # cited lemmas (theorems)
    defs: list[str] = field(default_factory=list)   # mentioned definitions
    depth: int = 0
    ident: str = ""
    x: float = 0.0
    y: float = 0.0


@dataclass
class _Site:
    files: list[_File]
    verdicts: dict[str, Verdict]
    decls: dict[str, tuple[GlobalDecl, _File]]      # every own declaration, by name
    nodes: dict[str, _Node]
    cited_by: dict[str, list[str]]
    lib_name: str


# --------------------------------------------------------------------------- entry points

def build_report(paths: list[str], out_dir: str, options: Options | None = None) -> Path:
    """Check ``paths`` (files or directories) and write the static site into ``out_dir``.

    Returns the path of ``index.html``.  Raises :class:`~shardproof.errors.ShardproofError` on
    bad input (a missing path, a parse or type error), like the checker.
    """
    index, _report = build_report_and_verdicts(paths, out_dir, options)
    return index


def build_report_and_verdicts(paths: Iterable[str | Path], out_dir: str | Path,
                              options: Options | None = None, checker: Checker | None = None
                              ) -> tuple[Path, Report]:
    """:func:`build_report`, also returning the verdicts (a :class:`~shardproof.check.Report`
    over every file of the site, imports included) so a caller can choose an exit status.
    ``checker``: the one to check with (the CLI's, which then has the sources an input error
    is shown with); by default a new one with ``options``."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():  # said before checking, not after
        raise ShardproofError(f"the report directory {out} exists and is not a directory")
    site = _collect([str(p) for p in paths], checker or Checker(options))
    pages: dict[str, str] = {"index.html": _index_page(site)}
    for f in site.files:
        pages[f.page] = _file_page(site, f)
    try:
        out.mkdir(parents=True, exist_ok=True)
        _remove_stale(out, set(pages))
        for name in sorted(pages):
            (out / name).write_text(pages[name], encoding="utf-8", newline="\n",
                                    errors="backslashreplace")   # (a file name not UTF-8)
    except OSError as exc:  # read-only, a file in the way: an input error, not a crash
        raise ShardproofError(f"cannot write the report to {exc.filename or out}: "
                              f"{exc.strerror or exc}") from None
    verdicts = [site.verdicts[g.name] for f in site.files for g in f.lf.own
                if g.kind == "theorem" and g.name in site.verdicts]
    return out / "index.html", Report(verdicts, [f.rel for f in site.files])


def _remove_stale(out: Path, keep: set[str]) -> None:
    """Delete pages an earlier report wrote that this one does not (never other files)."""
    marker = f'<meta name="generator" content="{GENERATOR}'
    for p in sorted(out.glob("*.html")):
        if p.name in keep:
            continue
        try:
            head = p.read_text(encoding="utf-8", errors="replace")[:2000]
        except OSError:  # pragma: no cover - unreadable: not ours to touch
            continue
        if marker in head:
            p.unlink()


# --------------------------------------------------------------------------- checking

def _collect(paths: list[str], ck: Checker) -> _Site:
    requested = lemma_files(paths)
    req_keys: set[str] = set()
    for p in requested:
        lf = ck.load(p)
        req_keys.add(str(p.resolve()))
        for dep in _import_closure(ck, lf):
            ck.check_file(Path(dep))
        ck.check_file(p)
    ck.save_cache()

    files: dict[str, _File] = {}
    for root in sorted(ck.libraries, key=str):
        lib = ck.libraries[root]
        for key in sorted(lib.files):
            lf = lib.files[key]
            rel = Path(key).relative_to(lib.root).as_posix()
            files[key] = _File(key, lib.root, rel, lf, key in req_keys, imports=list(lf.imports))
    # Imports of imported files were loaded (and checked) through the closure above.
    _name_pages(list(files.values()))
    ordered = _topological(files)

    decls: dict[str, tuple[GlobalDecl, _File]] = {}
    by_display: dict[str, _File] = {}
    for f in ordered:
        by_display[f.lf.path] = f
        for g in f.lf.own:
            first = decls.setdefault(g.name, (g, f))
            if first[0] is not g:     # pages, graph and verdicts are by name: one per name
                raise ShardproofError(
                    f"a report names each declaration once, but `{g.name}` is declared at "
                    f"{_where(first[0], first[1])} and at {_where(g, f)}: rename one, or report "
                    "the files separately", g.span)
    # The checker keeps verdicts by name; each is this site's declaration's (unique above).
    verdicts = {n: v for n, (g, _f) in decls.items()
                if (v := ck.verdict_of(g)) is not None}
    nodes = _graph_nodes(ordered, verdicts, by_display)
    cited_by: dict[str, list[str]] = {}
    for n in nodes.values():
        for d in n.deps:
            cited_by.setdefault(d, []).append(n.name)
    for k in cited_by:
        cited_by[k] = sorted(set(cited_by[k]))
    roots = sorted({f.root.name for f in ordered})
    return _Site(ordered, verdicts, decls, nodes, cited_by, ", ".join(roots) or "lemmas")


def _where(g: GlobalDecl, f: _File) -> str:
    return f"{f.lf.path}:{g.span.line}" if g.span is not None else f.lf.path


def _import_closure(ck: Checker, lf: LoadedFile) -> list[str]:
    """Every file ``lf`` imports, directly or not, dependencies first."""
    lib = ck.library_for(Path(lf.path))
    order: list[str] = []
    seen: set[str] = set()

    def visit(key: str) -> None:
        if key in seen:
            return
        seen.add(key)
        dep = lib.files.get(key)
        if dep is not None:
            for imp in dep.imports:
                visit(imp)
        order.append(key)

    for imp in lf.imports:
        visit(imp)
    return order


def _name_pages(files: list[_File]) -> None:
    """`kit/shard.lemma` → module `kit.shard`, page `kit.shard.lemma.html`; the root's name is
    prefixed only when two lemma roots hold the same module path."""
    mods: dict[str, list[_File]] = {}
    for f in files:
        mod = f.rel[: -len(".lemma")] if f.rel.endswith(".lemma") else f.rel
        f.module = mod.replace("/", ".")
        mods.setdefault(f.module, []).append(f)
    for same in mods.values():
        if len(same) > 1:
            for f in same:
                f.module = f"{f.root.name}:{f.module}"
    taken: set[str] = set()
    for f in files:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", f.module.replace(":", "__"))
        page, k = f"{safe}.lemma.html", 1
        while page in taken:              # `a b` and `a+b` are both `a_b`: number the next
            k += 1
            page = f"{safe}~{k}.lemma.html"
        taken.add(page)
        f.page = page


def _topological(files: dict[str, _File]) -> list[_File]:
    """Files with their imports first; ties by (lemma root, path)."""
    order: list[_File] = []
    seen: set[str] = set()

    def visit(key: str) -> None:
        if key in seen or key not in files:
            return
        seen.add(key)
        for imp in sorted(files[key].imports, key=lambda k: _sort_key(files, k)):
            visit(imp)
        order.append(files[key])

    for key in sorted(files, key=lambda k: _sort_key(files, k)):
        visit(key)
    return order


def _sort_key(files: dict[str, _File], key: str) -> tuple[str, str]:
    f = files.get(key)
    return (str(f.root), f.rel) if f is not None else ("", key)


# --------------------------------------------------------------------------- the graph

def _mentioned(g: GlobalDecl) -> set[str]:
    """Names a theorem's statement (binder types and hypotheses included) mentions."""
    d = g.decl
    if d is None:
        return set()
    names: set[str] = set()
    bound: set[str] = set()
    for b in getattr(d, "binders", ()):
        if b.ty is not None:
            names |= T.free_names(b.ty, frozenset(bound))
        bound.add(b.name)
    stmt = getattr(d, "stmt", None)
    if stmt is not None:
        names |= T.free_names(stmt, frozenset(bound))
    return names


def _graph_nodes(files: list[_File], verdicts: dict[str, Verdict],
                 by_display: dict[str, _File]) -> dict[str, _Node]:
    nodes: dict[str, _Node] = {}
    for f in files:
        for g in f.lf.own:
            if g.kind != "theorem" or g.name in nodes:
                continue
            v = verdicts.get(g.name)
            nodes[g.name] = _Node(g.name, "theorem", f, g.span.line if g.span else 0,
                                  v.verdict if v is not None else None)
    # Definitions of the lemma root mentioned by a statement.
    for f in files:
        for g in f.lf.own:
            if g.kind != "theorem" or nodes[g.name].file is not f:
                continue
            node = nodes[g.name]
            defs = []
            for name in sorted(_mentioned(g)):
                d = f.lf.env.get(name)
                if d is None or d.kind not in ("def", "opaque") or d.path.startswith("<"):
                    continue
                owner = by_display.get(d.path)
                if owner is None:
                    continue
                if name not in nodes:
                    nodes[name] = _Node(name, "def", owner, d.span.line if d.span else 0, None)
                if nodes[name].kind == "def":
                    defs.append(name)
            node.defs = defs
            v = verdicts.get(g.name)
            node.deps = sorted({x for x in (v.lemmas if v is not None else [])
                                if x in nodes and nodes[x].kind == "theorem" and x != g.name})
    # A cited lemma declared later in the same file (not possible today) is still a node.
    for n in nodes.values():
        n.deps = [d for d in n.deps if d in nodes]
    _depths(nodes)
    for k, name in enumerate(sorted(nodes)):
        nodes[name].ident = f"n{k}"
    return nodes


def _depths(nodes: dict[str, _Node]) -> None:
    """Definitions at 0; a theorem at 1 + the deepest lemma it cites (1 when it cites none).
    Iterative: a chain of citations may be longer than Python's recursion limit."""
    memo: dict[str, int] = {}
    for start in sorted(nodes):
        stack, on_stack = [start], {start}
        while stack:
            name = stack[-1]
            n = nodes[name]
            nxt = None if name in memo or n.kind == "def" else \
                next((d for d in n.deps if d not in memo and d not in on_stack), None)
            if nxt is not None:                   # (a dep on the stack would be a cycle)
                stack.append(nxt)
                on_stack.add(nxt)
                continue
            if name not in memo:
                memo[name] = 0 if n.kind == "def" else \
                    1 + max((memo[d] for d in n.deps if d in memo), default=0)
            on_stack.discard(stack.pop())
    for name, node in nodes.items():
        node.depth = memo[name]


# layout constants (pixels)
_NODE_W, _NODE_H, _GAP_X, _ROW_H, _COLS = 268, 22, 12, 30, 4
_MARGIN, _BAND_HEAD, _BAND_PAD, _BAND_GAP, _LEVEL_GAP, _LEGEND_H = 16, 26, 8, 12, 6, 44
_CHAR_W = 6.6           # 11px monospace


def _layout(site: _Site) -> tuple[float, float, list[tuple[_File, float, float]]]:
    """Place every node; returns (width, height, bands as (file, y, height))."""
    width = 2 * _MARGIN + _COLS * _NODE_W + (_COLS - 1) * _GAP_X
    y = _MARGIN + _LEGEND_H
    bands: list[tuple[_File, float, float]] = []
    for f in site.files:
        members = [n for n in site.nodes.values() if n.file is f]
        if not members:
            continue
        top = y
        y += _BAND_HEAD
        levels = sorted({n.depth for n in members})
        for lv in levels:
            row = sorted((n for n in members if n.depth == lv), key=lambda n: (n.line, n.name))
            for k, n in enumerate(row):
                col, r = k % _COLS, k // _COLS
                n.x = _MARGIN + col * (_NODE_W + _GAP_X)
                n.y = y + r * _ROW_H
            y += ((len(row) + _COLS - 1) // _COLS) * _ROW_H + _LEVEL_GAP
        y += _BAND_PAD - _LEVEL_GAP
        bands.append((f, top, y - top))
        y += _BAND_GAP
    return width, y + _MARGIN - _BAND_GAP, bands


def _fmt(x: float) -> str:
    s = f"{x:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _short(name: str) -> str:
    limit = int((_NODE_W - 16) / _CHAR_W)
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _graph_svg(site: _Site) -> str:
    width, height, bands = _layout(site)
    e = html.escape
    out = [f'<svg id="depgraph" xmlns="http://www.w3.org/2000/svg" width="{_fmt(width)}" '
           f'height="{_fmt(height)}" viewBox="0 0 {_fmt(width)} {_fmt(height)}" role="img" '
           f'aria-label="lemma dependency graph">',
           '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" '
           'class="arrowhead"/></marker></defs>']
    # legend
    lx, ly = _MARGIN, _MARGIN
    items = [("proved", "theorem"), ("refuted", "theorem"), ("unknown", "theorem"),
             ("unchecked", "theorem"), ("def", "def")]
    for k, (cls, kind) in enumerate(items):
        x = lx + k * 150
        label = {"def": "definition", "unchecked": "not checked"}.get(cls, cls)
        out.append(f'<g class="legend {cls}">' + _shape(kind, x, ly, 26, 16) +
                   f'<text x="{_fmt(x + 34)}" y="{_fmt(ly + 12)}">{label}</text></g>')
    out.append(f'<g class="legend"><line x1="{_fmt(lx + 750)}" y1="{_fmt(ly + 8)}" '
               f'x2="{_fmt(lx + 790)}" y2="{_fmt(ly + 8)}" class="edge cites" '
               f'marker-end="url(#arrow)"/><text x="{_fmt(lx + 798)}" y="{_fmt(ly + 12)}">'
               f'cites</text><line x1="{_fmt(lx + 850)}" y1="{_fmt(ly + 8)}" '
               f'x2="{_fmt(lx + 890)}" y2="{_fmt(ly + 8)}" class="edge mentions" '
               f'marker-end="url(#arrow)"/><text x="{_fmt(lx + 898)}" y="{_fmt(ly + 12)}">'
               f'mentions</text></g>')
    # bands
    for f, top, h in bands:
        out.append(f'<g class="band"><rect x="{_fmt(_MARGIN / 2)}" y="{_fmt(top)}" '
                   f'width="{_fmt(width - _MARGIN)}" height="{_fmt(h)}" rx="6"/>'
                   f'<a href="{e(f.page)}"><text x="{_fmt(_MARGIN)}" y="{_fmt(top + 17)}">'
                   f'{e(f.module)}</text></a></g>')
    # edges (under the nodes)
    out.append('<g class="edges">')
    incoming: dict[str, list[str]] = {}
    for name in sorted(site.nodes):
        for t in site.nodes[name].deps + site.nodes[name].defs:
            incoming.setdefault(t, []).append(name)
    for name in sorted(site.nodes):
        n = site.nodes[name]
        outgoing = [("cites", t) for t in n.deps] + [("mentions", t) for t in n.defs]
        for k, (kind, t) in enumerate(outgoing):
            m = site.nodes[t]
            ins = incoming[t]
            shift_src = _spread(k, len(outgoing))
            shift_dst = _spread(ins.index(name), len(ins))
            out.append(f'<path class="edge {kind}" data-from="{n.ident}" '
                       f'data-to="{m.ident}" d="{_edge_path(n, m, shift_src, shift_dst)}" '
                       f'marker-end="url(#arrow)"/>')
    out.append("</g>")
    # nodes
    out.append('<g class="nodes">')
    for name in sorted(site.nodes, key=lambda k: (site.nodes[k].y, site.nodes[k].x, k)):
        n = site.nodes[name]
        cls = "def" if n.kind == "def" else (n.verdict or "unchecked")
        tip = f"{n.name} — {'definition' if n.kind == 'def' else cls} — {n.file.rel}:{n.line}"
        out.append(f'<a href="{e(n.file.page)}#{_frag(n.name)}" class="node {n.kind} {cls}" '
                   f'id="{n.ident}" data-name="{e(n.name)}"><title>{e(tip)}</title>'
                   + _shape(n.kind, n.x, n.y, _NODE_W, _NODE_H) +
                   f'<text x="{_fmt(n.x + 10)}" y="{_fmt(n.y + 15)}">{e(_short(n.name))}</text>'
                   '</a>')
    out.append("</g></svg>")
    return "\n".join(out)


def _shape(kind: str, x: float, y: float, w: float, h: float) -> str:
    if kind == "def":   # a hexagon: definitions
        c = h / 2
        pts = [(x + c, y), (x + w - c, y), (x + w, y + c), (x + w - c, y + h), (x + c, y + h),
               (x, y + c)]
        return '<polygon points="' + " ".join(f"{_fmt(a)},{_fmt(b)}" for a, b in pts) + '"/>'
    return (f'<rect x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(w)}" height="{_fmt(h)}" '
            f'rx="{_fmt(h / 2)}"/>')


def _frac(n: _Node) -> float:
    """Where a node's column sits, 0 (leftmost) … 1 (rightmost)."""
    span = (_COLS - 1) * (_NODE_W + _GAP_X)
    return min(1.0, max(0.0, (n.x - _MARGIN) / span)) if span else 0.5


def _spread(k: int, n: int) -> float:
    """The offset of the k-th of n edge ends at one node (pixels, centred, bounded)."""
    step = min(8.0, 60.0 / max(n, 1))
    return (k - (n - 1) / 2) * step


def _edge_path(a: _Node, b: _Node, shift_src: float = 0.0, shift_dst: float = 0.0) -> str:
    """From the citing node's top to the cited node's bottom (or side, on the same row)."""
    if abs(a.y - b.y) < 1:
        left = b.x < a.x
        sx = a.x if left else a.x + _NODE_W
        tx = b.x + _NODE_W if left else b.x
        sy = ty = a.y + _NODE_H / 2
        bend = -18
        return (f"M{_fmt(sx)},{_fmt(sy)} C{_fmt(sx)},{_fmt(sy + bend)} {_fmt(tx)},"
                f"{_fmt(ty + bend)} {_fmt(tx)},{_fmt(ty)}")
    # Fan the ends out across the node's width (by where the other end sits) so that many
    # edges into one node stay apart.
    sx, sy = a.x + _NODE_W * (0.2 + 0.6 * _frac(b)) + shift_src, a.y
    tx, ty = b.x + _NODE_W * (0.2 + 0.6 * _frac(a)) + shift_dst, b.y + _NODE_H
    if b.y > a.y:   # cited node below (does not happen with imports first): bottom to top
        sy, ty = a.y + _NODE_H, b.y
    dy = max(16.0, abs(sy - ty) / 2)
    c1 = sy - dy if ty < sy else sy + dy
    c2 = ty + dy if ty < sy else ty - dy
    return (f"M{_fmt(sx)},{_fmt(sy)} C{_fmt(sx)},{_fmt(c1)} {_fmt(tx)},{_fmt(c2)} "
            f"{_fmt(tx)},{_fmt(ty)}")


# --------------------------------------------------------------------------- HTML pieces

_CSS = """
:root{--proved:#1a7f37;--proved-bg:#dafbe1;--refuted:#cf222e;--refuted-bg:#ffebe9;
--unknown:#9a6700;--unknown-bg:#fff8c5;--def:#0969da;--def-bg:#ddf4ff;--muted:#57606a;
--line:#d0d7de;--code-bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;
color:#1f2328;background:#fff}
header.top{background:#24292f;color:#fff;padding:10px 24px;display:flex;gap:18px;
align-items:baseline;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none;font-weight:600}
header.top .crumb{color:#d0d7de;font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:24px;margin:12px 0 8px}
h2{font-size:19px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:16px;margin:0 0 6px}
a{color:#0969da}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;
font-size:12.5px}
code{background:var(--code-bg);padding:1px 4px;border-radius:4px}
pre{background:var(--code-bg);border:1px solid var(--line);border-radius:6px;padding:10px 12px;
white-space:pre-wrap;word-break:break-word;margin:6px 0}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;
border:1px solid;white-space:nowrap}
.badge.proved{color:var(--proved);background:var(--proved-bg)}
.badge.refuted{color:var(--refuted);background:var(--refuted-bg)}
.badge.unknown{color:var(--unknown);background:var(--unknown-bg)}
.badge.unchecked{color:var(--muted);background:#f6f8fa}
.badge.def{color:var(--def);background:var(--def-bg)}
.summary{display:flex;gap:12px;flex-wrap:wrap;margin:10px 0 4px}
.summary .card{border:1px solid var(--line);border-radius:8px;padding:8px 16px;min-width:110px}
.summary .num{font-size:24px;font-weight:700;display:block}
.summary .proved .num{color:var(--proved)}.summary .refuted .num{color:var(--refuted)}
.summary .unknown .num{color:var(--unknown)}
table{border-collapse:collapse;margin:6px 0;width:100%}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.n{text-align:right;font-variant-numeric:tabular-nums}
table.trace td{font-size:12.5px}
table.trace td.detail{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-word}
section.decl{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:14px 0}
section.decl.refuted{border-left:5px solid var(--refuted)}
section.decl.unknown{border-left:5px solid var(--unknown)}
section.decl.proved{border-left:5px solid var(--proved)}
section.decl.def{border-left:5px solid var(--def)}
section.decl:target{box-shadow:0 0 0 3px #54aeff66}
.head{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.head .where{color:var(--muted);font-size:12px;margin-left:auto}
.doc{margin:6px 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.why{border-radius:6px;padding:6px 10px;margin:8px 0}
.why.refuted{background:var(--refuted-bg)}.why.unknown{background:var(--unknown-bg)}
.why.proved{background:var(--proved-bg)}
details{margin:6px 0}summary{cursor:pointer;color:var(--muted)}
.header-doc{border-left:3px solid var(--line);padding:0 14px;margin:8px 0 16px}
ul.toc{columns:2;padding-left:18px}
.graph-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:8px;margin-top:8px}
#depgraph{display:block;max-width:none}
#depgraph text{font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;
fill:#1f2328}
#depgraph .band rect{fill:#f6f8fa;stroke:var(--line)}
#depgraph .band text{font-weight:700;fill:var(--muted)}
#depgraph .node rect,#depgraph .node polygon,#depgraph .legend rect,#depgraph .legend polygon
{stroke-width:1.5}
#depgraph .proved rect{fill:var(--proved-bg);stroke:var(--proved)}
#depgraph .refuted rect{fill:var(--refuted-bg);stroke:var(--refuted)}
#depgraph .unknown rect{fill:var(--unknown-bg);stroke:var(--unknown)}
#depgraph .unchecked rect{fill:#fff;stroke:var(--muted);stroke-dasharray:3 2}
#depgraph .def polygon{fill:var(--def-bg);stroke:var(--def)}
#depgraph .edge{fill:none;stroke:#8c959f;stroke-width:1;opacity:.55}
#depgraph .edge.mentions{stroke-dasharray:4 3;stroke:#54aeff}
#depgraph .arrowhead{fill:#8c959f}
#depgraph .edge.hl{stroke:#0969da;opacity:1;stroke-width:2}
#depgraph .node:hover rect,#depgraph .node:hover polygon,#depgraph .node.hl rect,
#depgraph .node.hl polygon{stroke-width:3}
footer{color:var(--muted);font-size:12px;margin-top:32px}
"""

_INDEX_JS = """
(function () {
  var svg = document.getElementById('depgraph');
  if (!svg) { return; }
  var nodes = svg.querySelectorAll('.node');
  var edges = svg.querySelectorAll('.edge[data-from]');
  var box = svg.getBBox();
  if (nodes.length > 0 && box.width > 0 && box.height > 0) {
    svg.setAttribute('data-rendered', String(nodes.length));
    svg.setAttribute('data-edges', String(edges.length));
    document.body.setAttribute('data-rendered', String(nodes.length));
  }
  function mark(id, on) {
    edges.forEach(function (e) {
      if (e.getAttribute('data-from') === id || e.getAttribute('data-to') === id) {
        e.classList.toggle('hl', on);
        var other = e.getAttribute('data-from') === id ? e.getAttribute('data-to')
                                                       : e.getAttribute('data-from');
        var o = document.getElementById(other);
        if (o) { o.classList.toggle('hl', on); }
      }
    });
  }
  nodes.forEach(function (n) {
    n.addEventListener('mouseenter', function () { mark(n.id, true); });
    n.addEventListener('mouseleave', function () { mark(n.id, false); });
  });
})();
"""


def _frag(name: str) -> str:
    return quote(name, safe="")


def _page(title: str, crumb: str, body: str, script: str = "") -> str:
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f'<meta name="generator" content="{GENERATOR} {e(__version__)}">',
             f"<title>{e(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
             '<header class="top"><a href="index.html">shardproof report</a>'
             f'<span class="crumb">{crumb}</span></header>', "<main>", body,
             f'<footer>Generated by shardproof {e(__version__)}. Static and offline: no '
             f'network access is needed to read it.</footer>', "</main>"]
    if script:
        parts.append(f"<script>{script}</script>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _badge(verdict: str | None) -> str:
    v = verdict or "unchecked"
    label = "not checked" if v == "unchecked" else v
    return f'<span class="badge {v}">{html.escape(label)}</span>'


def _inline(text: str) -> str:
    """Escape, then `code` and **bold** (the markdown our docstrings and headers use)."""
    out = []
    for k, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if k % 2 == 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            s = html.escape(part)
            s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
            out.append(s)
    return "".join(out)


def _markdown(text: str) -> str:
    """A small, safe markdown subset: `#` headings, paragraphs, `*`/`-` lists, inline code."""
    blocks: list[str] = []
    para: list[str] = []
    items: list[list[str]] = []

    def flush() -> None:
        if para:
            blocks.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
        if items:
            blocks.append("<ul>" + "".join(f"<li>{_inline(' '.join(i))}</li>" for i in items)
                          + "</ul>")
            items.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            flush()
            continue
        m = re.match(r"^(#{1,4})\s+(.*)$", line)
        if m:
            flush()
            level = min(len(m.group(1)) + 1, 4)
            blocks.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
            continue
        m = re.match(r"^[*-]\s+(.*)$", line)
        if m:
            if para:
                blocks.append("<p>" + _inline(" ".join(para)) + "</p>")
                para.clear()
            items.append([m.group(1)])
            continue
        if items and raw[:1].isspace():
            items[-1].append(line)
            continue
        if items:
            flush()
        para.append(line)
    flush()
    return "\n".join(blocks)


def _header_title(f: _File) -> tuple[str | None, str]:
    """The `# Title` line of a file header (if any) and the rest of the header."""
    header = f.lf.module.header or ""
    lines = header.strip().splitlines()
    if lines and lines[0].lstrip().startswith("#"):
        return lines[0].lstrip("# ").strip(), "\n".join(lines[1:])
    return None, header


def _counts(verdicts: Iterable[str | None]) -> dict[str, int]:
    c = {v: 0 for v in VERDICTS}
    for v in verdicts:
        if v in c:
            c[v] += 1
    return c


# --------------------------------------------------------------------------- the index

def _index_page(site: _Site) -> str:
    e = html.escape
    theorems = [(g, f) for f in site.files for g in f.lf.own if g.kind == "theorem"]
    counts = _counts(site.verdicts[g.name].verdict if g.name in site.verdicts else None
                     for g, _ in theorems)
    n_defs = sum(1 for n in site.nodes.values() if n.kind == "def")
    n_edges = sum(len(n.deps) + len(n.defs) for n in site.nodes.values())
    body = [f"<h1>Lemma library <code>{e(site.lib_name)}</code></h1>",
            '<div class="summary">']
    for v in VERDICTS:
        body.append(f'<div class="card {v}"><span class="num">{counts[v]}</span>{v}</div>')
    body.append(f'<div class="card"><span class="num">{len(theorems)}</span>theorems</div>'
                f'<div class="card"><span class="num">{len(site.files)}</span>files</div>')
    body.append("</div>")
    body.append(f'<p id="verdict-summary">{counts["proved"]} proved, {counts["refuted"]} '
                f'refuted, {counts["unknown"]} unknown — {_n(len(theorems), "theorem")} in '
                f'{_n(len(site.files), "file")}. Jump to: <a href="#not-proved">not proved</a>'
                ' · <a href="#graph">dependency graph</a> · <a href="#files">files</a></p>')

    failing = [(g, f) for g, f in theorems
               if g.name in site.verdicts and site.verdicts[g.name].verdict != "proved"]
    body.append('<h2 id="not-proved">Not proved</h2>')
    if failing:
        body.append("<table><thead><tr><th>verdict</th><th>theorem</th><th>file</th><th>why"
                    "</th></tr></thead><tbody>")
        for g, f in sorted(failing, key=lambda p: (VERDICTS.index(
                site.verdicts[p[0].name].verdict), p[1].rel, p[0].name)):
            bad = site.verdicts[g.name]
            why = bad.reason or (bad.counterexample or {}).get("message") or ""
            body.append(f'<tr><td>{_badge(bad.verdict)}</td><td><a href="{e(f.page)}#'
                        f'{_frag(g.name)}" class="mono">{e(g.name)}</a></td>'
                        f'<td class="mono">{e(f.rel)}:{bad.line}</td>'
                        f'<td>{e(_clip(why, 300))}</td></tr>')
        body.append("</tbody></table>")
    else:
        body.append("<p>Every theorem is proved.</p>")

    body.append('<h2 id="graph">Lemma dependency graph</h2>')
    body.append(f"<p>{_n(len(site.nodes) - n_defs, 'theorem')} and "
                f"{_n(n_defs, 'definition')}, {_n(n_edges, 'edge')}. A solid arrow goes "
                "from a theorem to a lemma its proof cites; a dashed arrow to a definition of "
                "the library its statement mentions (hexagons). One band per file, imports "
                "first; inside a band, definitions first, then theorems by how deep their "
                "chain of cited lemmas is. Hover over a node to highlight its edges; click it "
                "to open the declaration.</p>")
    body.append('<div class="graph-wrap">' + _graph_svg(site) + "</div>")
    body.append('<h2 id="files">Files</h2><table class="files"><thead><tr><th>file</th>'
                '<th>title</th><th>theorems</th><th>proved</th><th>refuted</th>'
                '<th>unknown</th></tr></thead><tbody>')
    for f in site.files:
        own = [g for g in f.lf.own if g.kind == "theorem"]
        c = _counts(site.verdicts[g.name].verdict if g.name in site.verdicts else None
                    for g in own)
        title, _ = _header_title(f)
        note = "" if f.requested else ' <small>(imported)</small>'
        body.append(f'<tr><td><a href="{e(f.page)}" class="mono">{e(f.rel)}</a>{note}</td>'
                    f'<td>{_inline(title or "")}</td><td class="n">{len(own)}</td>'
                    f'<td class="n">{c["proved"]}</td><td class="n">{c["refuted"]}</td>'
                    f'<td class="n">{c["unknown"]}</td></tr>')
    body.append("</tbody></table>")

    return _page(f"shardproof report — {site.lib_name}", "index", "\n".join(body), _INDEX_JS)


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


# --------------------------------------------------------------------------- a file page

def _file_page(site: _Site, f: _File) -> str:
    e = html.escape
    title, rest = _header_title(f)
    own_thms = [g for g in f.lf.own if g.kind == "theorem"]
    c = _counts(site.verdicts[g.name].verdict if g.name in site.verdicts else None
                for g in own_thms)
    body = [f'<h1>{_inline(title) if title else e(f.module)}</h1>',
            f'<p class="mono">{e(f.rel)}{"" if f.requested else " (imported)"}'
            f' — {len(own_thms)} theorems: {c["proved"]} proved, {c["refuted"]} refuted, '
            f'{c["unknown"]} unknown</p>']
    if f.imports:
        links = []
        for key in sorted(f.imports):
            dep = next((x for x in site.files if x.key == key), None)
            if dep is not None:
                links.append(f'<a href="{e(dep.page)}" class="mono">{e(dep.module)}</a>')
        body.append("<p>imports: " + ", ".join(links) + "</p>")
    if rest.strip():
        body.append('<div class="header-doc">' + _markdown(rest) + "</div>")
    if f.lf.own:
        body.append('<h2 id="-contents">Contents</h2><ul class="toc">')
        for g in f.lf.own:
            v = site.verdicts.get(g.name)
            badge = _badge(v.verdict if v else None) if g.kind == "theorem" else \
                f'<span class="badge def">{e(g.kind)}</span>'
            body.append(f'<li>{badge} <a href="#{_frag(g.name)}" class="mono">{e(g.name)}'
                        f'</a></li>')
        body.append("</ul>")
        body.append('<h2 id="-declarations">Declarations</h2>')
    for g in f.lf.own:
        body.append(_decl_section(site, f, g))
    return _page(f"{f.module} — shardproof report", e(f.rel), "\n".join(body))


def _decl_section(site: _Site, f: _File, g: GlobalDecl) -> str:
    e = html.escape
    line = g.span.line if g.span else 0
    where = f'<span class="where mono">{e(f.rel)}:{line}</span>'
    src = _decl_source(g)
    if g.kind != "theorem":
        used = sorted(n.name for n in site.nodes.values() if g.name in n.defs)
        parts = [f'<section class="decl def" id="{e(g.name)}">',
                 f'<div class="head"><span class="badge def">{e(g.kind)}</span>'
                 f'<h3 class="mono">{e(g.name)}</h3>{where}</div>']
        if g.doc:
            parts.append(f'<div class="doc">{_markdown(g.doc)}</div>')
        parts.append(f"<pre>{e(src)}</pre>")
        if used:
            parts.append("<p>mentioned by: " + ", ".join(_link(site, n) for n in used) + "</p>")
        parts.append("</section>")
        return "\n".join(parts)

    v = site.verdicts.get(g.name)
    verdict = v.verdict if v is not None else "unchecked"
    parts = [f'<section class="decl theorem {verdict}" id="{e(g.name)}">',
             f'<div class="head">{_badge(verdict)}<h3 class="mono">{e(g.name)}</h3>{where}</div>']
    if g.doc:
        parts.append(f'<div class="doc">{_markdown(g.doc)}</div>')
    parts.append(f'<pre class="statement">{e(src)}</pre>')
    if v is None:
        parts.append("<p>Not checked.</p></section>")
        return "\n".join(parts)
    parts.append(_why(v))
    node = site.nodes.get(g.name)
    facts = [("rules", _names(v.rules)), ("oracles", _names(v.oracles)),
             ("lemmas", ", ".join(_link(site, x) for x in sorted(v.lemmas)) or "—")]
    if v.verdict != "proved":   # the engine's partial record says little: show what exists
        facts = [(k, val) for k, val in facts if val != "—"]
    if node is not None and node.defs:
        facts.append(("definitions", ", ".join(_link(site, x) for x in node.defs)))
    lemmas, rules, oracles = _axioms(site, v)
    if v.lemmas:
        facts.append(("rests on (transitively)",
                      ", ".join(f"{_link(site, x)} {_badge(st)}" for x, st in lemmas)))
        facts.append(("all rules", _names(rules)))
        facts.append(("all oracles", _names(oracles)))
    if v.verdict == "proved" and v.replayed:    # as `shardproof axioms NAME` lists it
        facts.append(("kernel rests on (transitively)", _kernel_base(site, g.name, f.root)))
    cited = site.cited_by.get(g.name, [])
    if cited or v.verdict == "proved":
        facts.append(("cited by", ", ".join(_link(site, x) for x in cited) or "—"))
    if v.replayed is not None:
        facts.append(("replayed", "yes" if v.replayed else "no"))
    if facts:
        parts.append('<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{val}</dd>"
                                                   for k, val in facts) + "</dl>")
    if v.trace:
        not_proof = " (the engine's, before it stopped: not a proof)" \
            if v.verdict != "proved" else ""
        parts.append(f"<details><summary>trace: {len(v.trace)} step"
                     f"{'s' if len(v.trace) != 1 else ''}{not_proof}</summary>"
                     f"{_trace_table(v.trace)}"
                     "</details>")
    elif v.verdict == "proved":
        parts.append('<p class="mono" style="color:var(--muted)">trace: no steps</p>')
    parts.append("</section>")
    return "\n".join(parts)


def _names(xs: Iterable[str]) -> str:
    xs = sorted(set(xs))
    return ", ".join(f"<code>{html.escape(x)}</code>" for x in xs) or "—"


def _link(site: _Site, name: str) -> str:
    e = html.escape
    hit = site.decls.get(name)
    if hit is None:
        return f"<code>{e(name)}</code>"
    _g, f = hit
    return f'<a href="{e(f.page)}#{_frag(name)}" class="mono">{e(name)}</a>'


def _kernel_base(site: _Site, name: str, root: Path) -> str:
    """What the replayed proof rests on, transitively — the kernel's rules and oracles, as
    `shardproof axioms` lists them — each marked when the lemma root's `axioms.allow` does not
    list it (the fifty-fourth review: the page showed only the engine's rules)."""
    from .check import read_allowlist, rests_on
    base, _ = rests_on(site.verdicts, name)
    allow = read_allowlist(root)
    return ", ".join(f"<code>{html.escape(b)}</code>" + (
        " <b>NOT IN axioms.allow</b>" if allow is not None and b not in allow else "")
        for b in sorted(base)) or "—"


def _axioms(site: _Site, v: Verdict) -> tuple[list[tuple[str, str]], set[str], set[str]]:
    """Lemmas (with their verdicts), rules and oracles a theorem rests on, transitively."""
    rules: set[str] = set(v.rules)
    oracles: set[str] = set(v.oracles)
    lemmas: dict[str, str] = {}
    todo = list(v.lemmas)
    while todo:
        name = todo.pop()
        if name in lemmas:
            continue
        dep = site.verdicts.get(name)
        lemmas[name] = dep.verdict if dep is not None else "unchecked"
        if dep is not None:
            rules.update(dep.rules)
            oracles.update(dep.oracles)
            todo.extend(dep.lemmas)
    return sorted(lemmas.items()), rules, oracles


def _why(v: Verdict) -> str:
    e = html.escape
    if v.verdict == "refuted":
        stopped = f"<p>{e(text)}</p>" if (text := stopped_text(v)) is not None else ""
        if v.counterexample:
            return (f'<div class="why refuted"><b>counterexample</b> (checked in exact '
                    f'arithmetic){_cex_html(v.counterexample)}{stopped}</div>')
        return f'<div class="why refuted"><b>refuted:</b> {e(v.reason or "")}{stopped}</div>'
    if v.verdict == "unknown":
        out = f'<div class="why unknown"><b>reason:</b> {e(v.reason or "not proved")}'
        if v.residual:
            out += f"<pre>{e(_clip(str(v.residual), _MAX_CELL))}</pre>"
        return out + "</div>"
    if v.counterexample:    # a `≠` statement: the witness is the proof
        return (f'<div class="why proved"><b>witness</b> (the two sides differ, in exact '
                f'arithmetic){_cex_html(v.counterexample)}</div>')
    return ""


def _value(x: Any) -> str:
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_value(y) for y in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {_value(y)}" for k, y in sorted(x.items(), key=str)) + "}"
    return str(x)


_CEX_ORDER = ["sizes", "indices", "reals", "tensors", "families", "maps"]


def _cex_html(c: dict[str, Any]) -> str:
    e = html.escape
    rows: list[str] = []
    if c.get("message"):
        rows.append(f"<p>{e(str(c['message']))}</p>")
    lines: list[str] = []
    a = c.get("assignment")
    if isinstance(a, dict):
        for group in sorted(a, key=lambda g: (_CEX_ORDER.index(g) if g in _CEX_ORDER
                                              else len(_CEX_ORDER), str(g))):
            vals = a[group]
            if isinstance(vals, dict):
                for k in sorted(vals, key=str):
                    lines.append(f"{k} = {_value(vals[k])}")
            elif vals:
                lines.append(f"{group} = {_value(vals)}")
    for side in ("lhs", "rhs"):
        if c.get(side) is not None:      # (a long exact entry cut, as in the text: its six
            lines.append(f"{side} = {side_value(c[side])}")         # digits follow)
            approx = c.get(f"{side}_approx")
            if isinstance(approx, list) and isinstance(c[side], list):
                lines.append(f"{side} ≈ [" + ", ".join(
                    a if a is not None else side_value(x) for a, x in zip(approx, c[side]))
                    + "]")
            elif approx is not None:
                lines.append(f"{side} ≈ {approx}")
    if c.get("index") is not None:
        lines.append(f"# first difference at flat index {c['index']}")
    for k in sorted(c, key=str):
        if k in ("message", "assignment", "lhs", "rhs", "index", "witness", "python",
                 "lhs_approx", "rhs_approx"):
            continue                  # (`python` restates the assignment above as code)
        x = c[k]
        if x in (None, False, {}, [], ""):
            continue
        lines.append(f"# {k}: {_value(x)}")
    if lines:
        rows.append(f"<pre>{e(chr(10).join(lines))}</pre>")
    return "".join(rows)


def _trace_table(trace: list[dict[str, Any]]) -> str:
    e = html.escape
    rows = ['<table class="trace"><thead><tr><th>#</th><th>rule</th><th>lemma / hyp</th>'
            '<th>at</th><th>step</th><th>more</th></tr></thead><tbody>']
    for k, step in enumerate(trace, 1):
        rule = str(step.get("rule", ""))
        lemma = step.get("lemma") or step.get("hyp") or ""
        at = str(step.get("at", "") or "")
        detail = str(step.get("detail", "") or "")
        more = {key: val for key, val in step.items()
                if key not in ("rule", "lemma", "hyp", "at", "detail")
                and val not in (None, "", [], {})}
        more_s = json.dumps(more, ensure_ascii=False, sort_keys=True, default=str) if more else ""
        rows.append(f'<tr><td class="n">{k}</td><td class="mono">{e(rule)}</td>'
                    f'<td class="mono">{e(str(lemma))}</td>'
                    f'<td class="detail">{e(_clip(at, _MAX_CELL))}</td>'
                    f'<td class="detail">{e(_clip(detail, _MAX_CELL))}</td>'
                    f'<td class="detail">{e(_clip(more_s, _MAX_CELL))}</td></tr>')
    rows.append("</tbody></table>")
    return "".join(rows)


# --------------------------------------------------------------------------- source text

def _decl_source(g: GlobalDecl) -> str:
    """A declaration pretty-printed, binders of one type grouped (`(R N : Nat)`), wrapped."""
    d = g.decl
    if d is None:
        return g.name
    if isinstance(d, T.Theorem):
        head = _wrap_head(f"theorem {d.name}", _binder_groups(d.binders))
        stmt = d.stmt
        if isinstance(stmt, T.Exists):       # `∃ (R N : Nat) …,` wrapped as the binders are
            head += " :\n" + _wrap_head("    ∃", _binder_groups(stmt.binders)) + ","
            return f"{head}\n    {pretty(stmt.body)}{proof_suffix(d)}"
        return f"{head} :\n    {pretty(stmt)}{proof_suffix(d)}"
    if isinstance(d, T.Def):
        head = _wrap_head(f"def {d.name}", _binder_groups(d.binders))
        return f"{head} : {pretty(d.ret)} :=\n  {pretty(d.body)}"
    if isinstance(d, T.Opaque):
        attr = f"@[linear {d.linear_in}] " if d.linear_in else ""
        head = _wrap_head(f"{attr}opaque {d.name}", _binder_groups(d.binders))
        return f"{head} : {pretty(d.ret)}"
    return pretty(d)


def _binder_groups(bs: tuple[T.Binder, ...]) -> list[str]:
    groups: list[tuple[list[str], T.Term | None, bool]] = []
    for b in bs:
        if groups and groups[-1][1] == b.ty and groups[-1][2] == b.implicit and b.ty is not None \
                and not _is_prop(b.ty):
            groups[-1][0].append(b.name)
        else:
            groups.append(([b.name], b.ty, b.implicit))
    out = []
    for names, ty, implicit in groups:
        if ty is None:
            out.append(" ".join(names))
            continue
        lo, hi = ("{", "}") if implicit else ("(", ")")
        out.append(f"{lo}{' '.join(names)} : {pretty(ty)}{hi}")
    return out


def _is_prop(t: T.Term) -> bool:
    return isinstance(t, (T.Cmp, T.And, T.Forall))


def _wrap_head(first: str, parts: list[str]) -> str:
    lines = [first]
    for p in parts:
        if len(lines[-1]) + 1 + len(p) > _WRAP and lines[-1].strip():
            lines.append("    " + p)
        else:
            lines[-1] += " " + p
    return "\n".join(lines)
