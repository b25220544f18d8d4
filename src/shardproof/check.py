"""Verdicts: run each theorem through the engine, then the counterexample search.

Three verdicts only.  ``proved``: the engine derived identical normal forms (and, unless
disabled, the kernel replayed the trace).  ``refuted``: a concrete assignment on which the two
sides differ, re-checked in exact arithmetic.  ``unknown``: neither, with the reason (the residual
difference of the normal forms, a missing side condition, fuel running out).  A statement
``∃ …, lhs ≠ rhs`` (or a closed ``lhs ≠ rhs``) is proved by an exact witness, else ``unknown``
(it is never refuted: that would need a proof that the sides are equal everywhere);
``lhs ≠ rhs`` under a theorem's binders (Lean's reading: for every value) is refuted at values
where the two sides are equal.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ShardproofError
from .library import Library, LoadedFile, find_root
from .types import GlobalDecl


@dataclass
class Verdict:
    """The record of one theorem's check (the CLI, JSON, JUnit and notebooks all read this)."""

    name: str
    file: str
    line: int
    verdict: str                      # "proved" | "refuted" | "unknown"
    seconds: float
    rules: list[str] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)
    oracles: list[str] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None
    reason: str | None = None
    residual: str | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    doc: str | None = None
    replayed: bool | None = None
    kernel: list[str] = field(default_factory=list)   # what the replayed proof rests on
    stopped: str | None = None        # refuted, its script broke first: where (`unknown`'s reason)
    cached: bool = field(default=False, compare=False)

    def _repr_html_(self) -> str:
        from .display import verdict_html
        return verdict_html(self)

    def _repr_latex_(self) -> str:
        from .display import verdict_latex
        return verdict_latex(self)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name, "file": self.file, "line": self.line, "verdict": self.verdict,
            "seconds": round(self.seconds, 6), "rules": self.rules, "lemmas": self.lemmas,
            "oracles": self.oracles,
        }
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample
            if isinstance(self.counterexample.get("python"), str):   # with its `sp.sides` call
                known = self.file if os.path.isfile(self.file) else None  # (not `check_text`'s)
                out["counterexample"] = {**self.counterexample, "python": counterexample_python(
                    self.counterexample, known, self.name)}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.residual is not None:
            out["residual"] = self.residual
        if self.replayed is not None:
            out["replayed"] = self.replayed
        if self.kernel:
            out["kernel"] = self.kernel
        if self.stopped is not None:
            out["stopped"] = self.stopped
        return out


MAX_SEARCH_SECONDS = 86_400.0      # a day: the search's work count stays a plain integer


@dataclass
class Options:
    search_seconds: float = 2.0       # counterexample search budget per theorem
    replay: bool = True               # replay every proof in the kernel
    fuel: int = 200_000               # engine step budget per theorem
    seed: int = 0
    cache_dir: str | None = None      # a directory for the incremental cache (None: no cache)

    def __post_init__(self) -> None:
        if not 0.0 <= self.search_seconds <= MAX_SEARCH_SECONDS:       # (also false for nan)
            raise ValueError(f"search_seconds must be from 0 to {MAX_SEARCH_SECONDS:g}, "
                             f"not {self.search_seconds}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a natural number, not {self.seed!r}")
        if isinstance(self.fuel, bool) or not isinstance(self.fuel, int) or self.fuel < 0:
            raise ValueError(f"fuel must be a natural number, not {self.fuel!r}")

    def fingerprint(self) -> str:
        """The options that can change a verdict (part of every cache key)."""
        return f"search={self.search_seconds} replay={self.replay} fuel={self.fuel} " \
               f"seed={self.seed}"


@dataclass
class Report:
    verdicts: list[Verdict]
    files: list[str]

    @property
    def ok(self) -> bool:
        return all(v.verdict == "proved" for v in self.verdicts)


def lemma_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories recursively into their `.lemma` files, sorted (deterministic order)."""
    try:        # (a name too long for the file system, a symlink loop: the forty-sixth review)
        return _lemma_files(paths)
    except (OSError, RuntimeError) as exc:
        raise ShardproofError(f"cannot read the path {getattr(exc, 'filename', None) or ''}: "
                              f"{getattr(exc, 'strerror', None) or exc}") from None


def _lemma_files(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*.lemma") if q.is_file())
            if not found:     # (a mistyped CI path must not pass as "0 proved")
                raise ShardproofError(f"no `.lemma` files in the directory {p}")
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise ShardproofError(f"no such file or directory: {p}")
    seen: set[Path] = set()
    uniq = []
    for q in out:
        r = q.resolve()
        if r not in seen:
            seen.add(r)
            uniq.append(q)
    return uniq


class Checker:
    """Checks theorems file by file, remembering verdicts so that proofs can cite lemmas."""

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        self.libraries: dict[Path, Library] = {}
        self.verdicts: dict[str, Verdict] = {}   # by theorem name, across files
        self._decl_of: dict[str, GlobalDecl] = {}  # the declaration each verdict is for
        self.ktraces: dict[str, list] = {}        # the kernel traces of replayed proofs
        self.cache = None
        if self.options.cache_dir is not None:
            from .cache import VerdictCache
            self.cache = VerdictCache(self.options.cache_dir)

    def library_for(self, path: Path | str) -> Library:
        root = find_root(Path(path))
        if root not in self.libraries:
            self.libraries[root] = Library(root)
        return self.libraries[root]

    def load(self, path: Path | str) -> LoadedFile:
        return self.library_for(path).load(path)

    def check_file(self, path: Path | str) -> list[Verdict]:
        """Check every theorem of a file (and first those of the files it imports)."""
        with recursion_room(), fewer_full_collections():
            return self._check_file(Path(path))

    def _check_file(self, path: Path) -> list[Verdict]:
        lf = self.load(path)
        # Every imported file, directly or not, is checked first so its lemmas can be cited.
        lib = self.library_for(path)
        for dep in import_closure(lib, lf):
            dep_lf = lib.files[dep]
            for g in dep_lf.own:
                if g.kind == "theorem" and self.verdict_of(g) is None:
                    self.check_theorem(g, dep_lf)
        out = []
        for g in lf.own:
            if g.kind == "theorem":
                out.append(self.verdict_of(g) or self.check_theorem(g, lf))
        return out

    def verdict_of(self, g: GlobalDecl | None) -> Verdict | None:
        """The verdict of this very declaration.  Files that do not import each other may
        declare theorems of the same name, and one file read under two lemma roots is two
        declarations (its imports may resolve differently): a verdict is reused (or cited)
        only for the declaration it was given for."""
        v = self.verdicts.get(g.name) if g is not None else None
        return v if v is not None and self._decl_of.get(g.name) is g else None

    def check_theorem(self, g: GlobalDecl, lf: LoadedFile) -> Verdict:
        from .prove import decide  # the engine, imported lazily (keeps parsing cheap)

        key = None
        if self.cache is not None:
            from dataclasses import asdict

            from .cache import theorem_key
            key = theorem_key(g, lf.env, self.options.fingerprint())
            v = _verdict_from_record(self.cache.get(key), g.name)
            if v is not None and v.verdict == "proved" and self.options.replay and \
                    v.replayed is not True:       # (a record not written by a replayed proof)
                v = None
            if v is not None and self._cited_still_proved(v, lf):
                v.cached = True
                v.file = lf.path
                v.line = g.span.line if g.span else 0
                self.verdicts[g.name] = v
                self._decl_of[g.name] = g
                return v
        t0 = time.perf_counter()
        v = decide(g, lf.env, self, self.options)
        v.seconds = time.perf_counter() - t0
        v.file = lf.path
        v.line = g.span.line if g.span else 0
        v.doc = g.doc
        self.verdicts[g.name] = v
        self._decl_of[g.name] = g
        if self.cache is not None and key is not None and not _clock_stopped(v):
            rec = asdict(v)
            rec.pop("cached", None)
            self.cache.put(key, rec)
        return v

    def _cited_still_proved(self, cached: Verdict, lf: LoadedFile) -> bool:
        return all((v := self.verdict_of(lf.env.get(n))) is not None and v.verdict == "proved"
                   for n in cached.lemmas)

    def save_cache(self) -> None:
        if self.cache is not None:
            self.cache.save()


# The JSON types of a cached record's fields (None: the field may be null).
_RECORD_FIELDS: dict[str, tuple[type, ...]] = {
    "name": (str,), "file": (str,), "line": (int,), "verdict": (str,), "seconds": (int, float),
    "rules": (list,), "lemmas": (list,), "oracles": (list,), "kernel": (list,), "trace": (list,),
    "counterexample": (dict, type(None)), "reason": (str, type(None)),
    "residual": (str, type(None)), "doc": (str, type(None)), "replayed": (bool, type(None)),
    "stopped": (str, type(None)),
}


_SCALAR = (int, float, str, type(None))           # a JSON number, an exact value's text


def _counterexample_ok(cex: Any) -> bool:
    """The shape of a counterexample as `check_theorem` writes it (what the CLI, JUnit and
    the report read): a hand-edited one of another shape is a miss, not a crash."""
    def table(d: Any, ok: Any) -> bool:
        return isinstance(d, dict) and all(isinstance(k, str) and ok(v) for k, v in d.items())

    def scalars(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(x, _SCALAR) for x in v)
    def approx(side: str) -> bool:     # six digits of an irrational side: as `lhs` is shaped
        v, of = cex.get(f"{side}_approx"), cex.get(side)
        opt = lambda x: isinstance(x, (str, type(None)))
        return opt(v) and not isinstance(of, list) or isinstance(v, list) and \
            isinstance(of, list) and len(v) == len(of) and all(map(opt, v))
    a = cex.get("assignment", {}) if isinstance(cex, dict) else None
    nat = lambda v: isinstance(v, int) and not isinstance(v, bool)
    return isinstance(a, dict) and approx("lhs") and approx("rhs") and \
        all(isinstance(cex.get(k), (str, type(None))) for k in ("message", "python")) and \
        (cex.get("index") is None or nat(cex.get("index"))) and \
        all(isinstance(cex.get(k), _SCALAR) or scalars(cex.get(k)) for k in ("lhs", "rhs")) and \
        table(cex.get("binding", {}), lambda v: isinstance(v, _SCALAR)) and \
        table(a.get("sizes", {}), nat) and table(a.get("indices", {}), nat) and \
        table(a.get("reals", {}), lambda v: isinstance(v, _SCALAR)) and \
        table(a.get("tensors", {}), scalars) and \
        table(a.get("families", {}), lambda v: isinstance(v, list) and all(map(scalars, v))) \
        and table(a.get("maps", {}), lambda v: isinstance(v, dict))


def _verdict_from_record(rec: Any, name: str) -> Verdict | None:
    """A cached record as a Verdict, or None (a miss) when it is not one that `check_theorem`
    wrote for theorem ``name``: the cache file may be truncated, hand-edited or corrupt."""
    if not isinstance(rec, dict) or rec.get("name") != name \
            or rec.get("verdict") not in ("proved", "refuted", "unknown"):
        return None
    for k, types in _RECORD_FIELDS.items():
        if k in rec and not isinstance(rec[k], types):
            return None
    if not 0 <= rec.get("seconds", 0) < 1e9:       # (-Infinity, NaN, 10⁴⁰⁰ that no float is)
        return None
    if rec.get("counterexample") is not None and not _counterexample_ok(rec["counterexample"]):
        return None
    if not all(isinstance(x, str) for k in ("rules", "lemmas", "oracles", "kernel")
               for x in rec.get(k, ())) or \
            not all(isinstance(step, dict) for step in rec.get("trace", ())):
        return None
    try:
        return Verdict(**rec)
    except TypeError:  # a missing or an unknown field
        return None


def _clock_stopped(v: Verdict) -> bool:
    """Did the search's wall-clock safety net cut this verdict short (then it is not cached)?
    Only a search can be cut short — a `proved` `∃` by a searched witness too, whose shrinking
    the clock may cut (the ninety-third review); an engine's proof has no reason at all."""
    if not v.reason:
        return False
    from .semantics import CLOCK_NOTE
    return CLOCK_NOTE in v.reason


_CALM = [0, 0]         # a fewer_full_collections() block is open; it froze (see there)
RECURSION_ROOM = 2990  # the calls a check has above its caller's depth, at least
_ROOM_LOCK = threading.Lock()
_OPEN: set[object] = set()           # recursion_room() blocks open, in any thread
_ROOM = {"saved": 0}                 # the limit from before the first of them


def _recursion_depth() -> int:
    """CPython's own count of the calls on this thread's stack, which the recursion limit is
    checked against: C-level entries that show no Python frame count too (`python -m`'s
    runpy, a `-j` worker forked inside a generator, an ipykernel's event loop: the
    eighty-fifth review), so the frames `f_back` shows were a few short, by route.  CPython
    says it when refused a limit below it (nothing is set then); else the frames are counted."""
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(1)
    except RecursionError as exc:
        found = re.search(r"recursion depth (\d+)", str(exc))
        if found:
            return int(found[1])
    else:                                         # (no caller is that shallow: put it back)
        sys.setrecursionlimit(limit)
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


@contextmanager
def recursion_room() -> Iterator[None]:
    """Give the check inside the block at least RECURSION_ROOM calls of recursion above its
    caller.

    The engine and the kernel recurse on terms, and a term nested past Python's recursion limit
    is `unknown` ("nested too deeply").  That limit is the process's: 1000 in the CLI, 3000 in a
    Jupyter kernel, and it counts the caller's calls — so a chain of 145 definitions was
    `proved` in a notebook and `unknown` from the CLI (the eighty-third review).  The limit is
    only ever raised here, to the caller's depth (as CPython counts it) plus RECURSION_ROOM,
    never lowered (lowering the process's limit starved other threads: the eighty-fourth
    review), and the limit from before the first open block is restored when the last one, of
    any thread, exits — unless a thread is deeper than it by then (the eighty-fifth review:
    restoring raised there), which then keeps the raised one.  A caller whose own limit is
    higher still gives more room.
    """
    token = object()          # (one set operation opens or closes a block: a Ctrl-C between
    try:                      # two steps of a count once left it open for good: review 85)
        with _ROOM_LOCK:
            if not _OPEN:
                _ROOM["saved"] = sys.getrecursionlimit()
            _OPEN.add(token)
            want = _recursion_depth() + RECURSION_ROOM
            if want > sys.getrecursionlimit():
                sys.setrecursionlimit(want)
        yield
    finally:
        with _ROOM_LOCK:
            _OPEN.discard(token)
            if not _OPEN:
                try:
                    sys.setrecursionlimit(_ROOM["saved"])
                except RecursionError:
                    pass


@contextmanager
def fewer_full_collections(oldest: int = 100) -> Iterator[None]:
    """Run the cycle collector's full pass (the oldest generation) less often inside the block.

    Checking builds a large heap that lives on (parsed and elaborated files, verdicts, traces)
    and makes little cyclic garbage, so the full passes, which walk the whole heap, were about a
    fifth of the time of the network lemmas.  Young generations are collected as before; the
    thresholds are restored when the outermost block exits.  Memory only: no result depends on
    when the collector runs.

    Every block entered, nested ones too (a file's imports), also freezes what exists: the
    libraries already checked then sit in the collector's permanent generation, which no pass
    walks (a full pass over the kit, the ops and the templates took 0.2 s inside one net's
    check; `shardproof check lemmas/` runs about a tenth faster).  Reference counting still
    frees them; only cyclic garbage waits for the outermost block's exit, which unfreezes all
    (not when the caller had frozen objects of its own: then nothing is frozen here).
    """
    if _CALM[0]:
        if _CALM[1]:
            gc.freeze()
        yield
        return
    _CALM[0], _CALM[1] = 1, gc.get_freeze_count() == 0
    if _CALM[1]:
        gc.freeze()
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], max(before[2], oldest))
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if _CALM[1]:
            gc.unfreeze()
        _CALM[0], _CALM[1] = 0, 0


def import_closure(lib: Library, lf: LoadedFile) -> list[str]:
    """Every file ``lf`` imports, directly or not, dependencies first (no duplicates)."""
    order: list[str] = []
    seen: set[str] = set()
    stack: list[tuple[str, bool]] = [(imp, False) for imp in reversed(lf.imports)]
    while stack:
        key, expanded = stack.pop()
        if expanded:
            order.append(key)
            continue
        if key in seen:
            continue
        seen.add(key)
        stack.append((key, True))
        dep = lib.files.get(key)
        if dep is not None:
            stack.extend((imp, False) for imp in reversed(dep.imports) if imp not in seen)
    return order


def check_paths(paths: Iterable[str | Path], options: Options | None = None) -> Report:
    """Check every theorem in the given files/directories (recursively)."""
    files = lemma_files(paths)
    ck = Checker(options)
    verdicts: list[Verdict] = []
    for f in files:
        verdicts.extend(ck.check_file(f))
    ck.save_cache()
    return Report(verdicts, [str(f) for f in files])


def check_text(text: str, path: str = "<notebook>.lemma", options: Options | None = None,
               root: str | Path | None = None) -> list[Verdict]:
    """Check theorems given as text (the notebook API); imports resolve under ``root``, and
    the theorems of the imported files are checked first, so the text may cite them."""
    with recursion_room():
        return _check_text(text, path, options, root)


def _check_text(text: str, path: str, options: Options | None, root: str | Path | None
                ) -> list[Verdict]:
    ck = Checker(options)
    lib = Library(Path(root) if root is not None else Path.cwd())
    ck.libraries[lib.root] = lib
    try:
        lf = lib.load(Path(lib.root) / path, text=text)
    except ShardproofError as exc:     # the error carries its line, for the notebook's caret
        src = lib.sources.get(exc.span.path) if exc.span is not None else None
        if exc.source_line is None and src and 1 <= exc.span.line <= len(src):
            exc.source_line = src[exc.span.line - 1]
        raise
    with fewer_full_collections():
        for dep in import_closure(lib, lf):
            for g in lib.files[dep].own:
                if g.kind == "theorem" and ck.verdict_of(g) is None:
                    ck.check_theorem(g, lib.files[dep])
        out = [ck.check_theorem(g, lf) for g in lf.own if g.kind == "theorem"]
    ck.save_cache()             # (Options.cache_dir was read, never written: review 83)
    return out


def sides(path: str | os.PathLike[str], theorem: str, values: dict[str, Any]
          ) -> tuple[Any, Any]:
    """Theorem ``theorem`` of the file ``path`` (its imports resolved as `check_file` resolves
    them), its two sides evaluated at ``values`` (:func:`semantics.theorem_sides`): what the
    code a counterexample prints calls to show that the sides differ.  Nothing is proved."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"the path of the `.lemma` file that declares `{theorem}`, not "
                        f"{path!r}")
    from .semantics import theorem_sides
    if Path(path).is_dir():          # (an `IsADirectoryError` otherwise: the seventieth review)
        raise ShardproofError(f"{path} is a directory: give the `.lemma` file that declares "
                              f"`{theorem}`")
    lf = Checker().load(Path(path))
    theorems = [g for g in lf.own if g.kind == "theorem"]
    g = next((g for g in theorems if g.name == theorem), None)
    if g is None:
        import difflib
        close = difflib.get_close_matches(str(theorem), [t.name for t in theorems], n=3)
        raise ShardproofError(f"no theorem named `{theorem}` in {lf.path}"
                              + ("; did you mean " + ", ".join(f"`{c}`" for c in close) + "?"
                                 if close else ""))
    return theorem_sides(g, lf.env, values)


def read_allowlist(root: str | Path) -> dict[str, str] | None:
    """The lemma root's ``axioms.allow``: kernel rule or oracle name → its justification."""
    f = Path(root) / "axioms.allow"
    if not f.is_file():
        return None
    out: dict[str, str] = {}
    for line in f.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, why = line.partition(" — ")
            out[name.strip()] = why.strip()
    return out


def rests_on(verdicts: dict[str, Verdict], name: str) -> tuple[set[str], dict[str, str]]:
    """What a theorem rests on, transitively: kernel rules and oracles, and the lemmas (with
    their verdicts) its proof and theirs cite."""
    base: set[str] = set()
    lemmas: dict[str, str] = {}
    todo = [verdicts[name]]
    while todo:
        cur = todo.pop()
        base.update(k for k in cur.kernel if not k.startswith(("def:", "lemma:")))
        for dep_name in cur.lemmas:
            if dep_name not in lemmas:
                dep = verdicts.get(dep_name)
                lemmas[dep_name] = dep.verdict if dep is not None else "not checked"
                if dep is not None:
                    todo.append(dep)
    return base, lemmas


__all__ = [
    "Checker",
    "Options",
    "Report",
    "Verdict",
    "check_paths",
    "check_text",
    "import_closure",
    "lemma_files",
    "read_allowlist",
    "rests_on",
    "sides",
]


# --------------------------------------------------------------------------- printing
# (a counterexample or a witness as text: the command line and the notebook display share it)

def stopped_text(v: Verdict) -> str | None:
    """A refuted theorem's note of where its proof script broke (None when it did not)."""
    if not v.stopped or v.verdict != "refuted":
        return None
    return ("the proof stopped at " if v.stopped.startswith("step ") else "the proof stopped: ") \
        + v.stopped


def cex_value(v: Any) -> str:
    """A counterexample value as Python/numpy can read it back (`[1, -3/2]`, `{'r': 0}`)."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(cex_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {cex_value(x)}" for k, x in v.items()) + "}"
    return str(v)


# An exact entry of a side longer than this is cut in the text (a net's side was 2,700
# characters an entry: the sixty-eighth review); `--format json` has it whole, `≈` its digits.
CEX_SIDE_CHARS = 200


def side_value(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(side_value(x) for x in v) + "]"
    s = cex_value(v)
    if len(s) <= CEX_SIDE_CHARS or s.startswith("["):    # (a replica family's members: as is)
        return s
    return f"{s[:CEX_SIDE_CHARS // 2]}… ⟨{len(s):,} characters: --format json has them all⟩"


CEX_SHOWN_ELSEWHERE = {"message", "assignment", "lhs", "rhs", "index", "python",
                       "witness", "lhs_approx", "rhs_approx"}   # (the section heading says
                                                               # it is a witness)


def counterexample_lines(cex: dict[str, Any], python: bool = False, *,
                         file: str | None = None, name: str | None = None) -> list[str]:
    """A counterexample, one group per line: the message, the assignment, the two sides.

    With ``python``, also the assignment as code to paste into Python/numpy (``explain``), and
    the `sp.sides` call that computes the two sides there (:func:`counterexample_python`:
    ``file`` declares theorem ``name``).
    """
    lines: list[str] = []
    if cex.get("message"):
        lines.append(str(cex["message"]))
    assignment = cex.get("assignment")
    if isinstance(assignment, dict):
        for group, values in assignment.items():
            if isinstance(values, dict) and values:
                lines.append(f"{group}: " + ", ".join(f"{k} = {cex_value(x)}"
                                                      for k, x in values.items()))
            elif values and not isinstance(values, dict):
                lines.append(f"{group}: {cex_value(values)}")
    for side in ("lhs", "rhs"):
        if side in cex and cex[side] is not None:
            lines.append(f"{side} = {side_value(cex[side])}")
            approx = cex.get(f"{side}_approx")
            if isinstance(approx, list):      # an irrational entry also in six digits
                lines.append(f"{side} ≈ [" + ", ".join(a if a is not None else side_value(x)
                                                       for a, x in zip(approx, cex[side])) + "]")
            elif approx is not None:
                lines[-1] += f"  (≈ {approx})"
    if cex.get("index") is not None:
        lines.append(f"first difference at flat index {cex['index']}")
    for k, x in cex.items():
        if k not in CEX_SHOWN_ELSEWHERE and x not in (None, False, {}, [], ""):
            shown = cex_value(x).splitlines() or [""]
            lines.append(f"{k}: {shown[0]}")
            lines.extend("  " + ln for ln in shown[1:])
    if python and isinstance(cex.get("python"), str) and cex["python"].strip():
        lines.append("as Python:")
        lines.extend("  " + ln for ln in counterexample_python(cex, file, name).splitlines())
    return lines


# The `sp.sides(…)` call wraps at this width: indented under `explain`'s "as Python:", it stays
# within 100 columns.
SIDES_CALL_WIDTH = 92


def counterexample_python(cex: dict[str, Any], file: str | None = None,
                          name: str | None = None) -> str:
    """A counterexample's code: its assignment (``cex["python"]``), then the two sides computed
    at it by `shardproof.sides` and printed — so that the pasted code shows the failure, not
    only its inputs.  ``file`` is the path of the `.lemma` file that declares theorem ``name``,
    as the user gave it (the code then runs from the same directory); when either is unknown
    (a notebook's `check_text`), the call has `...` in its place and a comment says what goes
    there.  Without two sides to show (a record of another shape) the assignment alone."""
    code = str(cex.get("python") or "")
    if not isinstance(cex.get("assignment"), dict) or \
            cex.get("lhs") is None and cex.get("rhs") is None:
        return code
    from .semantics import EQUAL_SIDES, python_names
    py = python_names(cex["assignment"])
    args = [repr(file) if file is not None else "...",
            repr(name) if name is not None else "..."]
    args += [f"{k}={v}" for k, v in py.items() if k == v]
    renamed = [f"{k!r}: {v}" for k, v in py.items() if k != v]    # (`ℓ`, `x'`: not keywords)
    if renamed:
        args.append("**{" + ", ".join(renamed) + "}")
    lines = ["import shardproof as sp"]
    if file is None and name is None:
        lines.append("# replace the two `...` with the path of the `.lemma` file and the "
                     "theorem's name (not known here)")
    elif file is None:
        lines.append(f"# replace `...` with the path of the `.lemma` file that declares `{name}` "
                     "(not known here)")
    elif name is None:
        lines.append("# replace `...` with the theorem's name (not known here)")
    head = "lhs, rhs = sp.sides("
    call, on_line = head, 0
    for k, arg in enumerate(args):
        piece = arg + (", " if k < len(args) - 1 else ")")
        if on_line and len(call) + len(piece.rstrip()) > SIDES_CALL_WIDTH:
            lines.append(call.rstrip())
            call, on_line = " " * len(head), 0
        call, on_line = call + piece, on_line + 1
    lines.append(call)
    if str(cex.get("message", "")).startswith(EQUAL_SIDES):
        note = "they are equal, so the `≠` fails"
    elif cex.get("index") is not None:       # (where the two vectors' entries differ)
        note = f"they differ at flat index {cex['index']}"
    elif cex_value(cex.get("lhs")) == cex_value(cex.get("rhs")):   # (a `<` failing)
        note = "they are equal"
    else:
        note = "they differ"
    lines += ["print('lhs =', lhs)", f"print('rhs =', rhs)  # {note}"]
    return code + "\n" + "\n".join(lines)
