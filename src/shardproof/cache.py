"""Incremental checking: verdicts cached by a hash of everything they depend on.

The key of a theorem is a SHA-256 of: the engine version, the theorem's own text (statement,
binders, hypotheses, proof), and the text of every declaration it depends on, transitively —
definitions it unfolds, opaque ops, lemmas it cites (through *their* keys) — plus the check
options that change verdicts.  Editing an imported definition therefore changes the key of
every dependant: a stale `proved` cannot be served.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import __version__
from . import terms as T
from .errors import ShardproofError
from .pretty import pretty
from .types import GlobalDecl, GlobalEnv

CACHE_DIR = ".shardproof-cache"
CACHE_FORMAT = 3                 # 2: declarations enter a key as hashes of their text;
                                 # 3: each record holds its key


def _decl_text(g: GlobalDecl) -> str:
    d = g.decl
    return _decl_digest(d) if d is not None else g.name


@lru_cache(maxsize=1 << 14)
def _decl_digest(d: T.Decl) -> str:
    """A hash of a declaration's printed text.  A theorem's key covers every declaration of its
    dependency closure, and neighbouring theorems share most of theirs: each text is printed and
    hashed once, not once per theorem (equal declarations print equally; spans are not part of
    either)."""
    return hashlib.sha256(pretty(d).encode()).hexdigest()


def _referenced(g: GlobalDecl) -> frozenset[str]:
    return _referenced_by(g.decl) if g.decl is not None else frozenset()


@lru_cache(maxsize=1 << 14)
def _referenced_by(d: T.Decl) -> frozenset[str]:
    """The names a declaration mentions: in its binders' types, statement, body or result
    type, and the lemmas its proof cites."""
    names: set[str] = set()
    for b in getattr(d, "binders", ()):
        if b.ty is not None:
            names |= T.free_names(b.ty)
    for part in ("stmt", "body", "ret"):
        t = getattr(d, part, None)
        if isinstance(t, T.Term):
            names |= T.free_names(t)
    proof = getattr(d, "proof", None)
    if proof is not None:
        for step in proof.steps:
            names |= {n.name for n in step.names}
    return frozenset(names)


_ENGINE_HASH: str | None = None


def engine_fingerprint() -> str:
    """A hash of the checker's own source (engine, kernel, semantics, prelude) and of the
    versions of Python and of the libraries a verdict rests on (sympy behind the range check,
    numpy and lark): any edit or upgrade re-checks (the fifty-third review's note)."""
    global _ENGINE_HASH
    if _ENGINE_HASH is None:
        from importlib.metadata import PackageNotFoundError, version
        base = Path(__file__).resolve().parent
        h = hashlib.sha256()
        h.update(sys.version.encode())
        for dist in ("lark", "numpy", "sympy"):
            try:
                h.update(f"{dist}=={version(dist)}".encode())
            except PackageNotFoundError:             # (not installed as a distribution)
                h.update(f"{dist}: no version".encode())
        files = sorted(list(base.glob("*.py")) + list(base.glob("rewrite/*.py"))
                       + list(base.glob("kernel/*.py"))
                       + list(base.glob("prelude/*.lemma")) + [base / "grammar.lark"])
        for f in files:
            h.update(f.name.encode())
            h.update(f.read_bytes())
        _ENGINE_HASH = h.hexdigest()
    return _ENGINE_HASH


def theorem_key(g: GlobalDecl, env: GlobalEnv, options_fingerprint: str,
                memo: dict[str, str] | None = None) -> str:
    """A hash of the theorem and its whole dependency closure."""
    memo = memo if memo is not None else {}
    closure: list[str] = []
    seen: set[str] = set()
    todo = [g.name]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        d = env.get(n)
        if d is None:
            continue
        closure.append(n)
        todo.extend(sorted(_referenced(d)))
    h = hashlib.sha256()
    h.update(f"shardproof {__version__} cache {CACHE_FORMAT} {engine_fingerprint()}\n"
             f"{options_fingerprint}\n".encode())
    for n in sorted(closure):
        d = env.get(n)
        assert d is not None
        h.update(f"{d.kind} {n}\n{_decl_text(d)}\n".encode())
    return h.hexdigest()


class VerdictCache:
    """A JSON file of verdicts, ``<directory>/verdicts.json`` (default ``.shardproof-cache``).

    The cache only saves time, so a file that cannot be used — unreadable, not JSON, another
    format, or the wrong shape — is ignored without a word, as if it were empty, and rewritten on
    the next save; a single malformed record is a miss (see ``Checker.check_theorem``).  A
    directory that cannot hold the file is an input error, reported before any checking.
    """

    def __init__(self, directory: Path | str) -> None:
        self.dir = Path(directory)
        self.file = self.dir / "verdicts.json"
        self.data: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        self.dirty = False
        if self.dir.exists() and not self.dir.is_dir():
            raise ShardproofError(f"the cache directory {self.dir} exists and is not a "
                                  "directory (choose another --cache-dir, or --no-cache)")
        if self.file.is_file():
            try:
                loaded = json.loads(self.file.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):      # (`[` × 100,000: too deep)
                loaded = {}
            verdicts = loaded.get("verdicts") if isinstance(loaded, dict) else None
            if isinstance(verdicts, dict) and loaded.get("format") == CACHE_FORMAT:
                self.data = verdicts

    def get(self, key: str) -> dict[str, Any] | None:
        """The record stored under ``key``, if it says it is that key's (the seventy-sixth
        review: two versions of a theorem, true and false, kept under their keys, swapped by
        hand, served the false one as `proved`; a miss now)."""
        rec = self.data.get(key)
        if not isinstance(rec, dict) or rec.get("key") != key:
            return None
        return {k: v for k, v in rec.items() if k != "key"}

    def put(self, key: str, record: dict[str, Any]) -> None:
        record = {**record, "key": key}
        self.data[key] = record
        self.new[key] = record
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        tmp = self.file.with_suffix(f".tmp{os.getpid()}")
        try:
            # A directory of its own gets a `.gitignore` of everything, so `git add -A` never
            # commits it (as pytest's and ruff's caches do); one that holds other files — the
            # lemma directory itself, `--cache-dir .` — gets none (the fifty-third review: that
            # `*` hid every new lemma file from git).
            own = not self.dir.exists() or not any(self.dir.iterdir())
            self.dir.mkdir(parents=True, exist_ok=True)
            ignore = self.dir / ".gitignore"
            if own and not ignore.exists():
                ignore.write_text("# written by shardproof: the verdict cache is not source\n*\n",
                                  encoding="utf-8")
            # (not sort_keys: a record's dicts keep their order, which the output prints in)
            tmp.write_text(json.dumps({"format": CACHE_FORMAT, "verdicts": self.data}),
                           encoding="utf-8")
            os.replace(tmp, self.file)
        except OSError as exc:  # a read-only or missing place: an input error, not a crash
            raise ShardproofError(f"cannot write the cache {self.file}: "
                                  f"{exc.strerror or exc}") from None
        self.dirty = False
