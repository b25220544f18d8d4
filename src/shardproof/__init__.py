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

import sys as _sys

# Numerals of a lemma file may have thousands of digits, and exact counterexamples print
# rationals such as 3^65536: Python's 4300-digit cap on int ↔ str turned both into tracebacks.
# The sizes involved are bounded elsewhere (file and line limits, POWER_BITS in the semantics).
if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .check import Options, Verdict


def parse(text: str, path: str = "<input>.lemma"):
    """Parse a whole `.lemma` text into a Module (no type checking)."""
    from .syntax import parse_module
    return parse_module(text, path)


def parse_expr(text: str):
    """Parse one expression (a term) — for building terms interactively."""
    from .syntax import parse_expr as _pe
    return _pe(text)


def check_text(text: str, *, root: str | None = None, options: "Options | None" = None
               ) -> "list[Verdict]":
    """Check the theorems of a `.lemma` text; imports resolve under ``root`` (default: cwd)."""
    from .check import check_text as _ct
    return _ct(text, options=options, root=root)


def check_file(path: str, options: "Options | None" = None) -> "list[Verdict]":
    """Check one `.lemma` file (its imports are checked first)."""
    from pathlib import Path

    from .check import Checker
    return Checker(options).check_file(Path(path))


def check_paths(paths: list[str], options: "Options | None" = None):
    """Check files and directories recursively; returns a Report with ``.verdicts``."""
    from .check import check_paths as _cp
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
    """
    from .library import LoadedFile, elaborate_module, prelude_env
    from .prove import Prover
    from .rewrite.normalize import TVal
    from .syntax import parse_module

    from .errors import ShardproofError, Span
    bs = " ".join(f"({k} : {v})" for k, v in binders.items())
    head = f"theorem _nf {bs} : ("
    text = f"{head}{expr}) = ({expr})\n"
    env = prelude_env().copy()
    try:
        lf = LoadedFile("<normal_form>", parse_module(text, "<normal_form>"), env)
        elaborate_module(lf, None)
    except ShardproofError as exc:    # point into `expr` as given, not into the wrapper
        at = exc.span
        if at is not None and at.line == at.end_line == 1 and expr.count("\n") == 0:
            second = len(head) + len(expr) + 5          # (`) = (` before the second copy)
            shift = second if at.col - 1 >= second else len(head)
            if 0 <= at.col - 1 - shift <= len(expr):
                exc.span = Span("<expression>", 1, at.col - shift,
                                1, max(at.end_col - shift, at.col - shift + 1))
                exc.source_line, exc.theorem = expr, None
        raise
    g = lf.own[-1]
    pr = Prover(g, lf.env, 200_000)
    from .prove import theorem_env
    tenv = theorem_env(g, pr.nz)
    stmt = g.stmt
    ty = g.prop_types.get(())
    from .types import VecT
    if isinstance(ty, VecT):
        v = pr.nz.tensor(stmt.lhs, tenv)  # type: ignore[union-attr]
        assert isinstance(v, TVal)
        return v.at(pr.output_index(ty.size, tenv))
    return pr.nz.real(stmt.lhs, tenv)  # type: ignore[union-attr]


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
