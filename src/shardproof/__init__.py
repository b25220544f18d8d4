"""shardproof: prove that a data-parallel (sync-BN) training step is the global-batch step.

Notebook use::

    import shardproof as sp
    [v] = sp.check_text('''
    theorem inv_mul_R (R : Nat) (hR : 0 < R) (v : ℝ) : 1 / R * (R * v) = v := by norm
    ''')
    v            # renders as HTML: verdict, rules, trace
    sp.normal_form("fun (i : Fin n) => x i + x i", n="Nat", x="Vec n")
"""

from __future__ import annotations

__version__ = "0.1.0"

import os as _os
import sys as _sys

# Numerals of a lemma file may have thousands of digits, and exact counterexamples print
# rationals such as 3^65536: Python's 4300-digit cap on int ↔ str turned both into tracebacks.
# The sizes involved are bounded elsewhere (file and line limits, POWER_BITS in the semantics).
if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .check import Options, Verdict


def _want_text(what: str, value: Any) -> None:
    """A TypeError at the API's edge for a value that is not text (the eighty-third review: a
    Path, a list, bytes or None reached the parser as AttributeErrors, or read a file)."""
    if not isinstance(value, str):
        hint = "; to check a file, use check_file" if isinstance(value, _os.PathLike) else \
            "; decode bytes first (`.decode('utf-8')`)" if isinstance(value, bytes) else ""
        raise TypeError(f"{what} must be a str, not {type(value).__name__}{hint}")


def _want_options(options: Any) -> None:
    from .check import Options
    if options is not None and not isinstance(options, Options):
        raise TypeError(f"options must be shardproof.Options(…) or None, not "
                        f"{type(options).__name__} (e.g. Options(replay=False))")


def _want_path(what: str, value: Any) -> None:
    if not isinstance(value, (str, _os.PathLike)):
        raise TypeError(f"{what} must be a path (a str or a pathlib.Path), not "
                        f"{type(value).__name__}")


def parse(text: str, path: str = "<input>.lemma"):
    """Parse a whole `.lemma` text into a Module (no type checking)."""
    from .syntax import parse_module
    _want_text("the text", text)
    return parse_module(text, path)


def parse_expr(text: str):
    """Parse one expression (a term) — for building terms interactively."""
    from .syntax import parse_expr as _pe
    _want_text("the expression", text)
    return _pe(text)


def check_text(text: str, *, root: str | None = None, options: "Options | None" = None
               ) -> "list[Verdict]":
    """Check the theorems of a `.lemma` text; imports resolve under ``root`` (default: cwd)."""
    from .check import check_text as _ct
    _want_text("the text", text)
    _want_options(options)
    if root is not None:
        _want_path("root", root)
    return _ct(text, options=options, root=root)


def check_file(path: str, options: "Options | None" = None) -> "list[Verdict]":
    """Check one `.lemma` file (its imports are checked first)."""
    from pathlib import Path

    from .check import Checker
    _want_path("path", path)
    _want_options(options)
    ck = Checker(options)
    out = ck.check_file(Path(path))
    ck.save_cache()             # (Options.cache_dir was read, never written: review 83)
    return out


def check_paths(paths: "list[str] | str", options: "Options | None" = None):
    """Check files and directories recursively (one path, or a list of them); returns a Report
    with ``.verdicts``."""
    from .check import check_paths as _cp
    if isinstance(paths, (str, _os.PathLike)):      # (a str was iterated character by character)
        paths = [paths]
    for p in paths:
        _want_path("each path", p)
    _want_options(options)
    return _cp(paths, options)


def sides(file: str, theorem: str, /, **values: Any) -> tuple[Any, Any]:
    """The two sides of a theorem at given values, by shardproof's own evaluator — to replay a
    counterexample (`shardproof explain` prints this call) or to try values of your own.

    ``sp.sides("t.lemma", "bad", R=2, N=2, X=[1, 0, -3/2, 2], r=0)`` gives the binders by
    name (every one the statement reads): sizes and indices as ints, reals as numbers, vectors
    as 1-D arrays or lists of the type's length, replica families as lists of those, maps as
    Python functions.  The hypotheses are not checked.  The sides are exact (sympy numbers,
    object arrays) when the data fits exact arithmetic, as a counterexample's are; else
    floats.  A missing or ill-fitting value is a ValueError naming the binder.
    """
    from .check import sides as _sides
    return _sides(file, theorem, values)


def normal_form(expr: str, **binders: str) -> Any:
    """The normal form of an expression, given its free names' types as strings.

    ``sp.normal_form("∑ (i : Fin n), x i + 0", n="Nat", x="Vec n")``

    A text that does not parse or type-check is a ShardproofError pointing into ``expr`` (or
    into the binder types); an expression the engine has no normal form for is a ValueError
    saying why.
    """
    import re
    import unicodedata

    from .library import LoadedFile, elaborate_module, prelude_env
    from .prove import Prover
    from .rewrite.nf import FuelExhausted
    from .rewrite.normalize import EngineGap, TVal
    from .syntax import parse_module

    from .errors import ShardproofError, Span
    _want_text("the expression", expr)
    for k, v in binders.items():
        _want_text(f"the type of `{k}`", v)
        if "\n" in v or "\r" in v:     # (the wrapper's lines are the expression's: review 85)
            raise ValueError(f"the type of `{k}` is one line, not {v!r}")
    from .syntax import parse_expr as _pe
    _pe(expr, "<expression>")      # (its own errors point into it, before any wrapper's)
    # Python reads a keyword in NFKC (`ℓ=` arrives as `l`): the expression's spelling names it,
    # when it is the only name of the expression (comments dropped) that reads so
    code = re.sub(r"--[^\n]*", " ", re.sub(r"/-.*?-/", " ", expr, flags=re.S))
    names = set(re.findall(r"[^\W\d][\w'₀-₉]*", code))
    for name in sorted(names):
        plain = unicodedata.normalize("NFKC", name)
        if plain != name and plain in binders and name not in binders and plain not in names \
                and sum(unicodedata.normalize("NFKC", n) == plain for n in names) == 1:
            binders[name] = binders.pop(plain)
    bs = " ".join(f"({k} : {v})" for k, v in binders.items())
    head = f"theorem _nf {bs} : ("
    # each copy of `expr` on lines of its own: a `--` comment in it ends at its line
    k = expr.count("\n") + 1
    text = f"{head}\n{expr}\n) = (\n{expr}\n)\n"
    env = prelude_env().copy()
    try:
        lf = LoadedFile("<normal_form>", parse_module(text, "<normal_form>"), env)
        elaborate_module(lf, None)
    except ShardproofError as exc:    # point into `expr` as given, not into the wrapper
        at = exc.span
        shift = next((d for lo, d in ((2, 1), (k + 3, k + 2))
                      if at is not None and lo <= at.line <= at.end_line < lo + k), None)
        if shift is not None:
            exc.span = Span("<expression>", at.line - shift, at.col, at.end_line - shift,
                            at.end_col)
            exc.source_line, exc.theorem = expr.split("\n")[at.line - shift - 1], None
        elif at is not None and at.line == 1 and at.end_line > k:    # (the equation the
            last = expr.split("\n")[-1]                                 # wrapper makes: all
            exc.span = Span("<expression>", 1, 1, k, len(last) + 1)    # of `expr`)
            exc.source_line, exc.theorem = expr.split("\n")[0], None
        elif at is not None and at.line == 1:       # (in a binder's type: show that line)
            exc.source_line, exc.theorem = head, None
        raise
    g = lf.own[-1]
    pr = Prover(g, lf.env, 200_000)
    from .prove import theorem_env
    try:
        tenv = theorem_env(g, pr.nz)
        stmt = g.stmt
        ty = g.prop_types.get(())
        from .types import VecT
        if isinstance(ty, VecT):
            v = pr.nz.tensor(stmt.lhs, tenv)  # type: ignore[union-attr]
            assert isinstance(v, TVal)
            return v.at(pr.output_index(ty.size, tenv))
        return pr.nz.real(stmt.lhs, tenv)  # type: ignore[union-attr]
    except (EngineGap, FuelExhausted) as exc:     # (the eighty-third review: they escaped)
        raise ValueError(f"no normal form: {exc}") from None
    except RecursionError:
        raise ValueError("no normal form: the expression is nested too deeply") from None


def __getattr__(name: str) -> Any:
    # Lazy re-exports keep `import shardproof` cheap.
    if name in ("Verdict", "Options", "Report", "Checker"):
        from . import check
        return getattr(check, name)
    if name in ("ShardproofError",):
        from . import errors
        return getattr(errors, name)
    raise AttributeError(name)


__all__ = ["parse", "parse_expr", "check_text", "check_file", "check_paths", "normal_form",
           "sides", "Verdict", "Options", "ShardproofError", "__version__"]
