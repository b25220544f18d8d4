"""The reference numeric meaning of elaborated terms, and the counterexample search built on it.

The rewrite engine proves equalities symbolically; this module is the ground truth those proofs are
about.  Every construct of the language gets a value at concrete sizes, in one of two modes:

* ``"float"``: numpy float64, fast, used to search for counterexamples and to test rewrite
  rules;
* ``"exact"``: numpy object arrays of exact sympy numbers (rationals, `sqrt`, `exp` of them),
  used to confirm a counterexample so that a refutation never rests on rounding.

Why vectorised: a `fun` or `∑` over indices is the inner loop of every BatchNorm statistic, and a
Python loop per element would make even the smallest statements slow.  So each bound index
variable owns one numpy axis (allocated in binding order, nested scopes deeper), a scalar is an
array that broadcasts over the axes of the variables in scope, a vector carries one extra
trailing axis (a replica family two), `∑` sums its axis away and `fun` broadcasts its body over
its axes and flattens them C-order (`X[i, j] = X (i * b + j)`).  Reading a vector at an index
array is numpy fancy indexing.  Opaque per-example ops are the one place that loops: once per
example over the broadcast axes.

Lean's conventions hold throughout: `x / 0 = 0`, `sqrt x = 0` for `x < 0`.  Nothing here raises
on arithmetic; :class:`EvalError` means a term has no numeric meaning (an unknown opaque op, a
value the assignment does not give, a binder type we cannot sample).
"""

from __future__ import annotations

import inspect
import itertools
import keyword
import math
import re
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Iterator

import numpy as np

from . import arith, numeric_ops
from . import terms as T
from .pretty import clip, pretty
from .types import (FinT, FunT, GlobalDecl, GlobalEnv, NatT, RealT, Ty, VecT, binder_facts,
                    is_negative_statement, nonzero_names, ty_to_term)

__all__ = [
    "Assignment",
    "Counterexample",
    "complete_assignment",
    "counterexample_at",
    "EvalError",
    "RandomMap",
    "evaluate",
    "find_counterexample",
    "sample_assignment",
    "theorem_sides",
    "RTOL",
    "ATOL",
]

RTOL = 1e-9
ATOL = 1e-9


class EvalError(Exception):
    """A term has no numeric meaning here (unknown op, missing value, unsupported binder type)."""


# =========================================================================== assignments


@dataclass
class RandomMap:
    """A stand-in for an arbitrary per-example map `Vec a → Vec b`: `v ↦ M v + c + (P v)²`.

    A statement quantified over every map must hold for this one; the square term makes it
    nonlinear (so homogeneity claims about arbitrary maps fail) and everything stays exact.
    A curried map `Vec s → Vec a → Vec b` (``widths = (s, a)``) reads its arguments joined.
    """

    M: np.ndarray  # (b, Σ widths)
    P: np.ndarray  # (b, Σ widths)
    c: np.ndarray  # (b,)
    widths: tuple[int, ...] = ()

    def __call__(self, *vs: np.ndarray) -> np.ndarray:
        v = np.concatenate([np.asarray(x) for x in vs])
        return self.M @ v + self.c + (self.P @ v) ** 2


@dataclass
class Assignment:
    """Concrete values for the free names of a statement.

    ``families`` hold replica families (one array per replica, the array of replica r at
    position r); ``indices`` the `Fin`-typed binders; ``maps`` arbitrary per-example maps.
    Numbers may be floats (float mode) or exact (ints, Fractions, sympy numbers); the evaluator
    reads them in whichever mode it runs.
    """

    sizes: dict[str, int] = field(default_factory=dict)
    reals: dict[str, Any] = field(default_factory=dict)
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    families: dict[str, list[np.ndarray]] = field(default_factory=dict)
    indices: dict[str, int] = field(default_factory=dict)
    maps: dict[str, RandomMap] = field(default_factory=dict)
    # the shape of one member of each family: an empty family (R = 0) still has one
    member_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def copy(self) -> "Assignment":
        return Assignment(dict(self.sizes), dict(self.reals), dict(self.tensors),
                          {k: list(v) for k, v in self.families.items()}, dict(self.indices),
                          dict(self.maps), dict(self.member_shapes))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: floats stay numbers, exact values become strings (`"sqrt(2)/2"`)."""
        return {
            "sizes": {k: int(v) for k, v in self.sizes.items()},
            "reals": {k: _json_num(v) for k, v in self.reals.items()},
            "tensors": {k: [_json_num(x) for x in np.asarray(v).reshape(-1)]
                        for k, v in self.tensors.items()},
            "families": {k: [[_json_num(x) for x in np.asarray(a).reshape(-1)] for a in v]
                         for k, v in self.families.items()},
            "indices": {k: int(v) for k, v in self.indices.items()},
            "maps": {k: {"M": [[_json_num(x) for x in row] for row in np.asarray(m.M)],
                         "P": [[_json_num(x) for x in row] for row in np.asarray(m.P)],
                         "c": [_json_num(x) for x in np.asarray(m.c)],
                         "widths": list(m.widths)}
                     for k, m in self.maps.items()},
        }

    def format(self) -> str:
        """Python source a user can paste next to numpy to reproduce the assignment."""
        py = _py_names([k for part in FORMAT_ORDER for k in getattr(self, part)])

        def note(k: str, extra: str = "") -> str:    # (a renamed variable says which one)
            said = ([] if py[k] == k else [f"`{k}`"]) + ([extra] if extra else [])
            return f"  # {'; '.join(said)}" if said else ""
        lines = ["import math", "import numpy as np"]
        for k, v in self.sizes.items():
            lines.append(f"{py[k]} = {int(v)}{note(k)}")
        for k, v in self.indices.items():
            lines.append(f"{py[k]} = {int(v)}{note(k)}")
        for k, v in self.reals.items():
            lines.append(f"{py[k]} = {_py_num(v)}{note(k)}")
        for k, v in self.tensors.items():
            lines.append(f"{py[k]} = {_py_array(v)}{note(k)}")
        for k, fam in self.families.items():
            items = ", ".join(_py_array(a) for a in fam)
            lines.append(f"{py[k]} = [{items}]{note(k, f'{k}[r] is replica r’s value')}")
        for k, m in self.maps.items():
            args = ", ".join(f"v{i}" for i in range(max(len(m.widths), 1)))
            lines.append(f"{py[k]} = lambda {args}, M={_py_matrix(m.M)}, "
                         f"P={_py_matrix(m.P)}, c={_py_array(m.c)}: "
                         f"(lambda v: M @ v + c + (P @ v) ** 2)(np.concatenate([{args}]))"
                         f"{note(k)}")
        if "sympy." in "\n".join(lines[2:]):        # (exact numbers: sympy's forms)
            lines.insert(2, "import sympy")
        return "\n".join(lines)


# The order in which `Assignment.format` writes the parts of an assignment (and numbers clashing
# names): `python_names` must read a counterexample's assignment in the same order.
FORMAT_ORDER = ("sizes", "indices", "reals", "tensors", "families", "maps")


def python_names(assignment: dict[str, Any]) -> dict[str, str]:
    """The Python variable that `Assignment.format` binds each value to, for an assignment as
    `Assignment.to_dict` gives it (a counterexample's, possibly read back from the cache)."""
    parts = assignment if isinstance(assignment, dict) else {}
    return _py_names([k for part in FORMAT_ORDER for k in parts.get(part) or {}])


def _py_names(names: list[str]) -> dict[str, str]:
    """A distinct Python identifier for each `.lemma` name: as Python reads it (NFKC: `x₁` is
    `x1`, `ℓ` is `l`), a prime `x'` as `x_`, never a keyword, `np`, `math`, `sympy`, `sp` (the
    code that computes the two sides imports shardproof as `sp`) or the lambdas' `v0…`, and a
    clash (`ℓ` and `l`, `x'` and `x_`) numbered."""
    taken = {"np", "math", "sympy", "sp"}
    out: dict[str, str] = {}
    for n in names:
        base = "".join(c if (c.isalnum() or c == "_") else "_"
                       for c in unicodedata.normalize("NFKC", n))
        if not base.isidentifier() or keyword.iskeyword(base) or re.fullmatch(r"v\d+", base):
            base = "v_" + base
        cand, k = base, 1
        while unicodedata.normalize("NFKC", cand) in taken:
            cand, k = f"{base}_{k}", k + 1
        taken.add(unicodedata.normalize("NFKC", cand))
        out[n] = cand
    return out


def _json_num(x: Any) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    return arith.exact_str(x) if arith.is_exact(x) else str(x)


def _py_num(x: Any) -> str:
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    return arith.exact_pystr(x)


def _py_dtype(arr: np.ndarray) -> str:
    """`float` where every entry is held exactly by a float, else `object` (sympy's exact
    numbers: a float array would move the replayed point)."""
    return "float" if all(arith.exact_in_float(x) for x in arr.reshape(-1)) else "object"


def _py_array(a: Any) -> str:
    arr = np.asarray(a)
    if arr.ndim == 0:
        return _py_num(arr.item())
    return "np.array([" + ", ".join(_py_num(x) for x in arr.reshape(-1)) + \
        f"], dtype={_py_dtype(arr)})"


def _py_matrix(m: Any) -> str:
    arr = np.asarray(m)
    rows = ", ".join("[" + ", ".join(_py_num(x) for x in row) + "]" for row in arr)
    return f"np.array([{rows}], dtype={_py_dtype(arr)}).reshape({arr.shape[0]}, {arr.shape[1]})"


# =========================================================================== numeric backends


# Lean's totality conventions met by an evaluation, float or exact — a division by 0
# (`x / 0 = 0`), a square root of a negative (0) — counted, so that shrinking a counterexample
# never trades a failure that holds at every value for one that rests on them (`shrink.py`:
# BatchNorm of one example at ε = 0 is 0/0; `x / (√2·√2 − 2)` divides by 0 only exactly).
DEGENERATE = [0]


class _FloatBackend:
    """float64 arithmetic with Lean's total division and square root."""

    exact = False
    dtype = np.float64

    def real(self, arr: Any) -> np.ndarray:
        a = np.asarray(arr)
        return a.astype(np.float64)

    def num(self, v: Fraction) -> np.ndarray:
        try:
            return np.asarray(float(v))
        except OverflowError:                # a numeral past float range: ±inf, as numpy would
            return np.asarray(np.inf if v > 0 else -np.inf)

    def div(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.zeros(np.broadcast_shapes(a.shape, b.shape))
        nonzero = b != 0
        if not np.all(nonzero):
            DEGENERATE[0] += 1
        np.divide(a, b, out=out, where=nonzero)
        return out

    def sqrt(self, a: np.ndarray) -> np.ndarray:
        if np.any(a < 0):
            DEGENERATE[0] += 1
        return np.sqrt(np.maximum(a, 0.0))

    def exp(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(a)

    def power(self, a: np.ndarray, k: int) -> np.ndarray:
        # past 2⁶² every float power is what it is at 2⁶² or 2⁶² + 1 (inf, 0 or ±1, by parity);
        # a larger int does not convert to a float (10³⁰⁹ crashed numpy)
        k = min(k, 2 ** 62 + k % 2)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.power(a, k)

    def cmp(self, op: str, a: np.ndarray, b: np.ndarray, tol: bool) -> np.ndarray:
        if op in ("=", "≠"):
            eq = np.isclose(a, b, rtol=RTOL, atol=ATOL) if tol else (a == b)
            return eq if op == "=" else ~eq
        return _ORDER[op](a, b)


def _sign(e: Any) -> int:
    if not getattr(e, "is_Rational", True):      # charged BEFORE its digits are computed
        _charge(SIGN_WORK)
    try:
        return arith.exact_sign(e)            # (a zero test is charged: ZERO_TEST_CHARGE)
    except arith.UndecidedSign as exc:
        raise EvalError(f"{exc}: evaluated exactly, the value is too close to 0") from None


def _e_div(x: Any, y: Any) -> Any:
    ex, ey = arith.to_exact(x), arith.to_exact(y)
    if _bits(ex) + _bits(ey) > POWER_BITS:
        raise EvalError(f"a quotient with more than {POWER_BITS:,} bits is not evaluated exactly")
    if _sign(ey) == 0:
        DEGENERATE[0] += 1
        return arith.to_exact(0)
    return ex / ey


def _e_sqrt(x: Any) -> Any:
    e = arith.to_exact(x)
    bits = _bits(e) if e.is_Rational else \
        sum(_bits(n) for n in e.atoms(arith.sympy.Rational))   # √((x²⁴⁰⁰⁰ + 1)·√2): minutes
    if bits > SQRT_BITS:                        # sympy factors the radicand: 38k bits, minutes
        raise EvalError(f"a square root of more than {SQRT_BITS:,} bits is not evaluated exactly")
    _charge(bits ** 2 // 25)             # before it runs: 1,000 bits took 9 ms (40k units)
    sign = _sign(e)
    if sign <= 0:
        DEGENERATE[0] += sign < 0
        return arith.to_exact(0)
    return arith.exact_sqrt(e)


def _e_exp(x: Any) -> Any:
    e = arith.to_exact(x)
    if not e.is_Rational and _tree_size(e, {}) > EXP_NODES:
        # sympy's arithmetic on exp of a large irrational (swish of swish through a net's
        # blocks) asks its assumptions for real parts and signs by evalf at every step:
        # minutes, uncharged (the sixty-second review)
        raise EvalError(f"exp of an irrational of more than {EXP_NODES} nodes is not "
                        "evaluated exactly")
    if _sign(e - EXP_LIMIT) > 0:                 # exp of exp of …: sympy's digits never end
        raise EvalError(f"exp of a value above {EXP_LIMIT} is not evaluated exactly")
    if _sign(e + EXP_LIMIT) < 0:                 # exp(−10³⁰⁰⁰⁰): its digits took minutes
        raise EvalError(f"exp of a value below -{EXP_LIMIT} is not evaluated exactly")
    return arith.exact_exp(e)


def _e_pow(x: Any, k: int) -> Any:
    e = arith.to_exact(x)
    if _bits(e) * k > POWER_BITS:                   # (5/2) ^ 10²⁰, or ((x ^ 64) ^ 64) ^ 64 …
        raise EvalError(f"a power with more than {POWER_BITS:,} bits is not evaluated exactly")
    return e ** k


def _e_mul(x: Any, y: Any) -> Any:
    a, b = arith.to_exact(x), arith.to_exact(y)
    if _bits(a) + _bits(b) > POWER_BITS:         # x ↦ x·x, 256 times through definitions
        raise EvalError(f"a product with more than {POWER_BITS:,} bits is not evaluated exactly")
    return a * b


def _bits(e: Any) -> int:
    return e.p.bit_length() + e.q.bit_length() if e.is_Rational else 64


# Bounds on exact arithmetic, so that an evaluation ends: exp of a large argument and a large
# power are refused (the search then moves on, and says nothing about that data).
EXP_LIMIT = 10_000
EXP_NODES = 64             # an irrational exp argument's tree (the sixty-second review's: 300+)
POWER_BITS = 1 << 22
SQRT_BITS = 2_000


def _e_cmp(op: str) -> Callable[[Any, Any], bool]:
    def f(x: Any, y: Any) -> bool:
        s = _sign(arith.to_exact(x) - arith.to_exact(y))
        return {"=": s == 0, "≠": s != 0, "<": s < 0, "≤": s <= 0, ">": s > 0, "≥": s >= 0}[op]
    return f


_U_DIV = np.frompyfunc(_e_div, 2, 1)
_U_SQRT = np.frompyfunc(_e_sqrt, 1, 1)
_U_EXP = np.frompyfunc(_e_exp, 1, 1)
_U_POW = np.frompyfunc(_e_pow, 2, 1)
_U_MUL = np.frompyfunc(_e_mul, 2, 1)
_U_EXACT = np.frompyfunc(arith.to_exact, 1, 1)
_U_CMP = {op: np.frompyfunc(_e_cmp(op), 2, 1) for op in ("=", "≠", "<", "≤", ">", "≥")}


def _obj(x: Any) -> np.ndarray:
    """An object array (0-d for a single number) without numpy reading the number as a float."""
    if isinstance(x, np.ndarray):
        return x if x.dtype == object else x.astype(object)
    out = np.empty((), dtype=object)
    out[()] = x
    return out


class _ExactBackend:
    """Exact sympy numbers in object arrays; equality is decided at 60 digits for irrationals."""

    exact = True
    dtype = object

    def real(self, arr: Any) -> np.ndarray:
        a = arr if isinstance(arr, np.ndarray) else _obj(arr)
        return _obj(_U_EXACT(a))

    def num(self, v: Fraction) -> np.ndarray:
        return _obj(arith.exact(v))

    def div(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _obj(_U_DIV(a, b))

    def sqrt(self, a: np.ndarray) -> np.ndarray:
        return _obj(_U_SQRT(a))

    def exp(self, a: np.ndarray) -> np.ndarray:
        return _obj(_U_EXP(a))

    def power(self, a: np.ndarray, k: int) -> np.ndarray:
        return _obj(_U_POW(a, k))

    def cmp(self, op: str, a: np.ndarray, b: np.ndarray, tol: bool) -> np.ndarray:
        return np.asarray(_U_CMP[op](a, b), dtype=bool)


MAX_INDEX_AXES = 30     # one numpy axis per index variable in scope, plus two for data
_ORDER = {"<": np.less, "≤": np.less_equal, ">": np.greater, "≥": np.greater_equal}
_FLOAT = _FloatBackend()
_EXACT = _ExactBackend()


# =========================================================================== values


class Val:
    """An array value: ``depth`` leading axes are index-variable axes, the rest is data.

    ``kind`` is ``nat`` (sizes and index arithmetic, int arrays), ``real`` or ``bool`` (props).
    Trailing data axes: 0 for a scalar, 1 for a vector, 2 for a family of vectors.
    """

    __slots__ = ("arr", "depth", "kind")

    def __init__(self, arr: np.ndarray, depth: int, kind: str) -> None:
        if not isinstance(arr, np.ndarray):  # numpy hands back scalars from 0-d arithmetic
            arr = np.asarray(arr) if isinstance(arr, (np.generic, int, float, bool)) \
                else _obj(arr)
        self.arr = arr
        self.depth = depth
        self.kind = kind

    @property
    def trailing(self) -> int:
        return self.arr.ndim - self.depth


class _Fn:
    """A function value: a partial application, a closure, or a sampled map."""

    def apply(self, ev: "_Ev", arg: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


class _Partial(_Fn):
    def __init__(self, g: GlobalDecl, args: tuple) -> None:
        self.g = g
        self.args = args

    def apply(self, ev: "_Ev", arg: Any) -> Any:
        return ev.call_global(self.g, list(self.args) + [arg])


class _Closure(_Fn):
    def __init__(self, binders: tuple[T.Binder, ...], body: T.Term, loc: dict) -> None:
        self.binders = binders
        self.body = body
        self.loc = loc

    def apply(self, ev: "_Ev", arg: Any) -> Any:
        loc = dict(self.loc)
        loc[self.binders[0].name] = arg
        if len(self.binders) > 1:
            return _Closure(self.binders[1:], self.body, loc)
        return ev.ev(self.body, loc)


class _MapFn(_Fn):
    def __init__(self, m: RandomMap, got: tuple[Val, ...] = ()) -> None:
        self.m = m
        self.got = got

    def apply(self, ev: "_Ev", arg: Any) -> Any:
        if not isinstance(arg, Val) or arg.trailing != 1:
            raise EvalError("a per-example map is applied to a vector")
        got = self.got + (arg,)
        if len(got) < max(len(self.m.widths), 1):
            return _MapFn(self.m, got)
        D = max(v.depth for v in got)
        parts = [_pad(ev.real(v), v.depth, D) for v in got]
        grid = np.broadcast_shapes(*(p.shape[:D] for p in parts))
        v = np.concatenate([np.broadcast_to(p, grid + p.shape[D:]) for p in parts], axis=-1)
        M, P, c = (ev.be.real(np.asarray(x)) for x in (self.m.M, self.m.P, self.m.c))
        if v.shape[-1] != M.shape[1]:
            raise EvalError(f"map of width {M.shape[1]} applied to a vector of length "
                            f"{v.shape[-1]}")
        q = v @ P.T
        return Val(v @ M.T + c + q * q, D, "real")


def _pad(arr: np.ndarray, depth: int, D: int) -> np.ndarray:
    """Insert singleton index axes so that an array of ``depth`` index axes has ``D``."""
    if depth == D:
        return arr
    return arr.reshape(arr.shape[:depth] + (1,) * (D - depth) + arr.shape[depth:])


def _trim(v: Val) -> Val:
    """Drop trailing singleton index axes (a value that does not depend on inner variables)."""
    d = v.depth
    shape = v.arr.shape
    while d > 0 and shape[d - 1] == 1:
        d -= 1
    if d == v.depth:
        return v
    return Val(v.arr.reshape(shape[:d] + shape[v.depth:]), d, v.kind)


def _is_fin(ty: T.Term | None) -> bool:
    return isinstance(ty, T.App) and isinstance(ty.fn, T.Var) and ty.fn.name == "Fin"


def _key(a: Any) -> tuple:
    if isinstance(a, Val) and a.kind == "nat" and a.depth == 0 and a.arr.ndim == 0:
        return ("n", int(a.arr))
    return ("i", id(a))


# =========================================================================== the evaluator


# The evaluation work done so far in this process (COST_PER_NODE for each term evaluated, plus
# one per entry it computes).  The counterexample search's budget is counted in this work, not
# in seconds, so that its verdict does not depend on the machine or its load.
WORK = [0]
COST_PER_NODE = 16
WORK_LIMIT = [float("inf")]      # set by the search while it runs


def _charge(units: int) -> None:
    """Count evaluation work; past the search's limit, end the evaluation (one can be long)."""
    WORK[0] += units
    if WORK[0] > WORK_LIMIT[0]:
        raise EvalError(BUDGET_RAN_OUT)


BUDGET_RAN_OUT = "the work budget ran out during an evaluation"


def _work(arr: np.ndarray) -> int:
    """The work of computing ``arr``: one unit per float entry; exact entries by their size."""
    if arr.dtype != object:
        return arr.size
    memo: dict[int, tuple[Any, int]] = {}
    return sum(map(lambda x: _entry_work(x, memo), arr.flat))


def _entry_work(x: Any, memo: dict) -> int:
    """A rational's arithmetic grows with the square of its bits (a gcd: 10⁶ bits took 0.8 s
    per addition); an irrational's with the size of its expression as a TREE, which is what
    evalf and printing walk (√x + √(x + 1) nested 14 times shares its parts: 2¹⁴ nodes)."""
    if getattr(x, "is_Rational", False):
        return EXACT_ENTRY_WORK + (x.p.bit_length() + x.q.bit_length()) ** 2 // 4096
    if getattr(x, "is_Rational", True):      # not a sympy number
        return EXACT_ENTRY_WORK
    nodes = _tree_size(x, memo)
    if nodes > TREE_NODES:
        raise EvalError(f"an exact value with more than {TREE_NODES:,} nodes is not evaluated")
    return IRRATIONAL_WORK + NODE_WORK * nodes


def _tree_size(e: Any, memo: dict) -> int:
    """Nodes of a sympy expression counted as a tree (up to a little past TREE_NODES),
    computed over its shared parts once."""
    hit = memo.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    n = 1
    for a in getattr(e, "args", ()):
        n += _tree_size(a, memo)
        if n > TREE_NODES:
            break
    memo[id(e)] = (e, n)
    return n


@contextmanager
def exact_budget(seconds: float) -> Iterator[None]:
    """A work budget for an exact evaluation outside the search (a given witness): it ends,
    with an EvalError, past ``seconds`` nominal seconds of work."""
    saved = WORK_LIMIT[0]
    WORK_LIMIT[0] = min(saved, WORK[0] + int(seconds * WORK_PER_SECOND))
    try:
        yield
    finally:
        WORK_LIMIT[0] = saved


class _OwnNamesHidden:
    """The file's globals with a theorem's own names (binders, hypotheses) hidden: a name of
    the theorem that an assignment leaves without a value, or a hypothesis used as a value,
    must never be read as a global of that name declared later in the file (a witness
    `(y := 0)` took a later `def i : Nat := 5` for the theorem's `i : Fin 2`, and "proved" a
    `≠` that has no witness).  The kernel hides them the same way (`kernel._Scoped`)."""

    def __init__(self, env: GlobalEnv, g: GlobalDecl) -> None:
        self.env = env
        self.hidden = {n for n, _ in g.binders} | {h for h, _ in g.hyps}

    def get(self, name: str) -> Any:
        return None if name in self.hidden else self.env.get(name)


def _theorem_ev(g: GlobalDecl, env: GlobalEnv, mode: str) -> "_Ev":
    """An evaluator for theorem ``g``'s statement and hypotheses: the theorem's own names hidden
    from the globals, and only the statement's leading `∀`s reading their binders over reals,
    sizes or vectors from the assignment (where the search put their values)."""
    ev = _Ev(_OwnNamesHidden(env, g), mode)   # type: ignore[arg-type]
    ev.open_foralls = _leading_foralls(g.stmt)
    return ev


def _leading_foralls(t: Any) -> frozenset[int]:
    """The `∀` nodes that ``t`` starts with, by identity."""
    opened = set()
    while isinstance(t, T.Forall):
        opened.add(id(t))
        t = t.body
    return frozenset(opened)


class _Ev:
    """One evaluation context: the global environment, the mode, the live index axes, a cache.

    Definition applications are cached on their arguments' identities (sizes by value); the
    cache keeps the arguments alive, so an identity is never reused within one evaluator.
    """

    def __init__(self, env: GlobalEnv, mode: str) -> None:
        if mode not in ("float", "exact"):
            raise ValueError(f"mode must be 'float' or 'exact', got {mode!r}")
        self.env = env
        # the `∀` nodes whose binders over reals, sizes or vectors take their values from the
        # assignment: the statement's own leading `∀`s (see :func:`_theorem_ev`), no other
        self.open_foralls: frozenset[int] = frozenset()
        self.mode = mode
        self.be = _EXACT if mode == "exact" else _FLOAT
        self.axes: list[int] = []
        self.tol = True
        self.cache: dict[tuple, tuple] = {}

    # ---- axes
    @property
    def depth(self) -> int:
        return len(self.axes)

    def push_axis(self, n: int) -> Val:
        k = self.depth
        if k >= MAX_INDEX_AXES:              # numpy's arrays have at most 32 axes (and data)
            raise EvalError(f"more than {MAX_INDEX_AXES} nested index variables (`∑`, `fun`, "
                            "`∀` over `Fin`) are not evaluated")
        _fits((n,), exact=self.be.exact)     # the index itself (∑ over Fin 10⁹: 8 GB for it)
        self.axes.append(n)
        return Val(np.arange(n, dtype=np.int64).reshape((1,) * k + (n,)), k + 1, "nat")

    def pop_axes(self, k: int) -> None:
        del self.axes[len(self.axes) - k:]

    def size_of(self, ty: T.Term, loc: dict) -> int:
        if not _is_fin(ty):
            raise EvalError(f"expected a `Fin n` binder, got `{pretty(ty)}`")
        v = self.ev(ty.args[0], loc)  # type: ignore[union-attr]
        if not isinstance(v, Val) or v.kind != "nat" or v.arr.ndim != 0:
            raise EvalError(f"the bound of `{pretty(ty)}` is not a size")
        return int(v.arr)

    # ---- conversions
    def real(self, v: Val) -> np.ndarray:
        if v.kind == "bool":
            raise EvalError("a proposition is used as a number")
        if v.kind == "nat" or (self.be.exact and v.arr.dtype != object) or \
                (not self.be.exact and v.arr.dtype != np.float64):
            return self.be.real(v.arr)
        return v.arr

    def _align(self, a: Val, b: Val, arrs: tuple[np.ndarray, np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray, int]:
        D = max(a.depth, b.depth)
        x = _pad(arrs[0], a.depth, D)
        y = _pad(arrs[1], b.depth, D)
        tx, ty = x.ndim - D, y.ndim - D
        if tx < ty:
            x = x.reshape(x.shape + (1,) * (ty - tx))
        elif ty < tx:
            y = y.reshape(y.shape + (1,) * (tx - ty))
        _fits(x.shape, y.shape, exact=self.be.exact)
        return x, y, D

    # ---- dispatch
    def ev(self, t: T.Term, loc: dict) -> Any:
        m = getattr(self, "_ev_" + type(t).__name__, None)
        if m is None:
            raise EvalError(f"`{pretty(t)}` has no numeric meaning")
        v = m(t, loc)
        _charge(COST_PER_NODE + (_work(v.arr) if isinstance(v, Val) else 0))
        return v

    def prop(self, t: T.Term, loc: dict) -> Val:
        v = self.ev(t, loc)
        if not isinstance(v, Val) or v.kind != "bool":
            raise EvalError(f"`{pretty(t)}` is not a proposition")
        return v

    def _ev_Var(self, t: T.Var, loc: dict) -> Any:
        if t.name in loc:
            return loc[t.name]
        g = self.env.get(t.name)
        if g is not None and g.kind in ("def", "opaque"):
            return self.call_global(g, [])
        raise EvalError(f"no value for `{t.name}`")

    def _ev_Num(self, t: T.Num, loc: dict) -> Val:
        if t.value.denominator == 1 and 0 <= t.value < _NAT_LIMIT:
            return Val(np.asarray(int(t.value), dtype=np.int64), 0, "nat")
        return Val(self.be.num(t.value), 0, "real")

    def _ev_App(self, t: T.App, loc: dict) -> Any:
        fn = t.fn
        if isinstance(fn, T.Var) and fn.name not in loc:
            g = self.env.get(fn.name)
            if g is not None and g.kind in ("def", "opaque"):
                return self.call_global(g, [self.ev(a, loc) for a in t.args])
        f = self.ev(fn, loc)
        for a in t.args:
            f = self.apply(f, self.ev(a, loc))
        return f

    def apply(self, f: Any, arg: Any) -> Any:
        if isinstance(f, _Fn):
            return f.apply(self, arg)
        if isinstance(f, Val) and f.trailing >= 1:
            if not isinstance(arg, Val) or arg.kind != "nat":
                raise EvalError("a vector or family is read at a non-index argument")
            return self.index(f, arg)
        raise EvalError("too many arguments: a number cannot be applied")

    def index(self, v: Val, ix: Val) -> Val:
        n = v.arr.shape[v.depth]
        at = ix.arr
        if at.size and (int(at.min()) < 0 or int(at.max()) >= n):
            raise EvalError(f"index out of range: {int(at.max())} for length {n}")
        if v.depth == 0:
            return Val(v.arr[at], ix.depth, v.kind)
        D = max(v.depth, ix.depth)
        A = _pad(v.arr, v.depth, D)
        at = _pad(at, ix.depth, D)
        grid: list[Any] = []
        for j in range(D):
            s = A.shape[j]
            grid.append(0 if s == 1 else
                        np.arange(s).reshape((1,) * j + (s,) + (1,) * (D - j - 1)))
        return Val(A[tuple(grid) + (at,)], D, v.kind)

    # ---- globals
    def call_global(self, g: GlobalDecl, args: list) -> Any:
        params = [p for p in g.params if p.kind != "hyp"]
        if len(args) < len(params):
            return _Partial(g, tuple(args))
        v = self.invoke(g, params, args[:len(params)])
        for a in args[len(params):]:
            v = self.apply(v, a)
        return v

    def invoke(self, g: GlobalDecl, params: list, args: list) -> Any:
        key = (g.name, self.tol, tuple(_key(a) for a in args))
        hit = self.cache.get(key)
        if hit is not None:
            return hit[0]
        if g.kind == "def":
            if g.body is None:
                raise EvalError(f"`{g.name}` has no body")
            res = self.ev(g.body, {p.name: a for p, a in zip(params, args)})
        else:
            res = self.opaque(g, params, args)
        if isinstance(res, Val):
            res = _trim(res)
        self.cache[key] = (res, args)
        return res

    def opaque(self, g: GlobalDecl, params: list, args: list) -> Val:
        if g.name in ("sqrt", "exp"):
            (a,) = args
            if not isinstance(a, Val) or a.trailing != 0:
                raise EvalError(f"`{g.name}` takes a real number")
            f = self.be.sqrt if g.name == "sqrt" else self.be.exp
            return Val(f(self.real(a)), a.depth, "real")
        spec = numeric_ops.OPS.get(g.name)
        if spec is None:
            raise EvalError(f"the opaque `{g.name}` has no numeric implementation")
        # The prelude declares every op with its sizes, then its tensors, in numeric_ops' order.
        size_args = [a for p, a in zip(params, args) if p.kind == "size"]
        tensor_args = [a for p, a in zip(params, args) if p.kind != "size"]
        if len(size_args) != len(spec.size_params) or \
                len(tensor_args) != len(spec.tensor_params):
            raise EvalError(f"`{g.name}` is declared with a signature numeric_ops does not have")
        sizes = tuple(int(a.arr) for a in size_args)
        for a in tensor_args:
            if not isinstance(a, Val) or a.trailing != 1:
                raise EvalError(f"`{g.name}` takes flat vectors")
        D = max((a.depth for a in tensor_args), default=0)
        arrs = [_pad(self.real(a), a.depth, D) for a in tensor_args]
        grid = np.broadcast_shapes(*(x.shape[:D] for x in arrs)) if arrs else ()
        out_n = spec.out_size(sizes)
        if min(sizes, default=1) < 1:
            if out_n == 0:
                return Val(np.zeros(grid + (0,), dtype=self.be.dtype), D, "real")
            raise EvalError(f"`{g.name}` at a zero size {sizes} has no implementation")
        if self.be.exact:   # the op's own products, charged BEFORE it runs: at most one per
            # output entry and entry of its largest input (a conv's oc·h·w × ic·kH·kW is below
            # that); an exact 60 × 60 conv with a 60 × 60 kernel took 82 s of a 0.5 s budget
            products = math.prod(grid) * out_n * max((x.shape[-1] for x in arrs), default=1)
            irrational = any(not getattr(v, "is_Rational", True) for x in arrs for v in x.flat)
            _charge(products * (IRRATIONAL_WORK if irrational else EXACT_ENTRY_WORK))
        full = [np.broadcast_to(x, grid + x.shape[D:]) for x in arrs]
        out = np.empty(grid + (out_n,), dtype=self.be.dtype)
        for pos in np.ndindex(*grid):
            try:
                res = numeric_ops.apply(g.name, sizes, [x[pos] for x in full])
            except ValueError as exc:
                raise EvalError(f"`{g.name}`: {exc}") from None
            out[pos] = res
        if self.be.exact:
            out = self.be.real(out)
        return Val(out, D, "real")

    # ---- arithmetic
    def _ev_BinOp(self, t: T.BinOp, loc: dict) -> Val:
        if t.op == "^":
            b = self.ev(t.lhs, loc)
            if not isinstance(t.rhs, T.Num):
                raise EvalError("the exponent must be a numeral")
            k = int(t.rhs.value)
            if b.kind == "nat":
                if k > 64:      # 0 and 1 stay themselves; any other base is past 2⁶² (and k
                    if np.any(np.asarray(b.arr) > 1):        # past int64 broke numpy's power)
                        raise EvalError("a natural number is too large to evaluate here "
                                        "(past 2^62)")
                    k = 64
                return Val(_nat_checked(b.arr ** k, b.arr.astype(float) ** k), b.depth, "nat")
            return Val(self.be.power(self.real(b), k), b.depth, "real")
        a = self.ev(t.lhs, loc)
        b = self.ev(t.rhs, loc)
        if not isinstance(a, Val) or not isinstance(b, Val):
            raise EvalError(f"`{t.op}` between functions")
        return self.binop(t.op, a, b)

    def binop(self, op: str, a: Val, b: Val) -> Val:
        if op in ("+", "*") and a.kind == "nat" and b.kind == "nat":
            x, y, D = self._align(a, b, (a.arr, b.arr))
            xf, yf = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
            return Val(_nat_checked(x + y, xf + yf) if op == "+" else _nat_checked(x * y, xf * yf),
                       D, "nat")
        x, y, D = self._align(a, b, (self.real(a), self.real(b)))
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op in ("*", "•"):
            r = _U_MUL(x, y) if self.be.exact else x * y
        elif op == "/":
            r = self.be.div(x, y)
        else:
            raise EvalError(f"unknown operator `{op}`")
        return Val(r, D, "real")

    def _ev_Neg(self, t: T.Neg, loc: dict) -> Val:
        a = self.ev(t.arg, loc)
        return Val(-self.real(a), a.depth, "real")

    def _ev_VecLit(self, t: T.VecLit, loc: dict) -> Val:
        items = [self.ev(i, loc) for i in t.items]
        if not items:
            return Val(np.zeros((0,), dtype=self.be.dtype), 0, "real")
        D = max(v.depth for v in items)
        arrs = [_pad(self.real(v), v.depth, D) for v in items]
        shape = np.broadcast_shapes(*(x.shape for x in arrs))
        return Val(np.stack([np.broadcast_to(x, shape) for x in arrs], axis=-1), D, "real")

    # ---- binders
    def _bind_fins(self, binders: tuple[T.Binder, ...], loc: dict) -> tuple[dict, list[int]]:
        loc2 = dict(loc)
        sizes: list[int] = []
        try:
            for b in binders:
                n = self.size_of(b.ty, loc2)  # type: ignore[arg-type]
                loc2[b.name] = self.push_axis(n)
                sizes.append(n)
        except EvalError:
            self.pop_axes(len(sizes))
            raise
        return loc2, sizes

    def _ev_Lam(self, t: T.Lam, loc: dict) -> Any:
        if not all(_is_fin(b.ty) for b in t.binders):
            return _Closure(t.binders, t.body, loc)
        D = self.depth
        loc2, sizes = self._bind_fins(t.binders, loc)
        try:
            body = self.ev(t.body, loc2)
        finally:
            self.pop_axes(len(t.binders))
        if isinstance(body, _Fn):
            return _Closure(t.binders, t.body, loc)
        if body.kind == "bool":
            raise EvalError("a `fun` cannot produce propositions")
        k = len(sizes)
        arr = _pad(self.real(body), body.depth, D + k)
        target = arr.shape[:D] + tuple(sizes) + arr.shape[D + k:]
        arr = np.broadcast_to(arr, target)
        if arr.ndim == D + k:  # a real body: the flat vector, row-major
            return Val(arr.reshape(arr.shape[:D] + (int(np.prod(sizes, dtype=np.int64)),)),
                       D, "real")
        return Val(np.ascontiguousarray(arr), D, "real")  # a family: one axis per binder

    def _ev_Sum(self, t: T.Sum, loc: dict) -> Val:
        D = self.depth
        loc2, sizes = self._bind_fins(t.binders, loc)
        try:
            body = self.ev(t.body, loc2)
        finally:
            self.pop_axes(len(t.binders))
        if not isinstance(body, Val):
            raise EvalError("`∑` of a function")
        k = len(sizes)
        arr = _pad(self.real(body), body.depth, D + k)
        for j in reversed(range(k)):
            ax = D + j
            if arr.shape[ax] == sizes[j]:
                arr = arr.sum(axis=ax)
            else:  # the body does not depend on this index: n copies of it
                arr = arr.take(0, axis=ax) * sizes[j]
            if not isinstance(arr, np.ndarray):
                arr = _obj(arr) if self.be.exact else np.asarray(arr)
        return Val(arr, D, "real")

    def _ev_Forall(self, t: T.Forall, loc: dict) -> Val:
        fins = tuple(b for b in t.binders if _is_fin(b.ty))
        for b in t.binders:     # (a value in scope under that name may be another variable's:
            # a hypothesis's `∀ (y : ℝ), y = 0` once read the theorem's later `y`)
            if not _is_fin(b.ty) and (b.name not in loc or id(t) not in self.open_foralls):
                raise EvalError(f"`∀ {b.name} : {pretty(b.ty) if b.ty else '?'}` needs a value "
                                "for it in the assignment")
        D = self.depth
        loc2, sizes = self._bind_fins(fins, loc)
        try:
            body = self.prop(t.body, loc2)
        finally:
            self.pop_axes(len(fins))
        k = len(sizes)
        arr = _pad(body.arr, body.depth, D + k)
        arr = np.broadcast_to(arr, arr.shape[:D] + tuple(sizes))
        return Val(arr.all(axis=tuple(range(D, D + k))) if k else arr, D, "bool")

    # ---- props
    def _ev_Cmp(self, t: T.Cmp, loc: dict) -> Val:
        a = self.ev(t.lhs, loc)
        b = self.ev(t.rhs, loc)
        if not isinstance(a, Val) or not isinstance(b, Val):
            raise EvalError("cannot compare functions")
        return self.compare(t.op, a, b)

    def compare(self, op: str, a: Val, b: Val) -> Val:
        if a.kind == "nat" and b.kind == "nat":
            x, y, D = self._align(a, b, (a.arr, b.arr))
            r = {"=": np.equal, "≠": np.not_equal}.get(op, _ORDER.get(op))
            if r is None:
                raise EvalError(f"unknown relation `{op}`")
            return Val(np.asarray(r(x, y)), D, "bool")
        x, y, D = self._align(a, b, (self.real(a), self.real(b)))
        extra = tuple(range(D, max(x.ndim, y.ndim)))
        if op in ("=", "≠"):
            eq = self.be.cmp("=", x, y, self.tol)
            eq = np.broadcast_to(eq, np.broadcast_shapes(x.shape, y.shape))
            if extra:
                eq = eq.all(axis=extra)
            return Val(np.asarray(eq if op == "=" else ~eq), D, "bool")
        if extra:
            raise EvalError(f"`{op}` compares numbers, not vectors")
        return Val(np.asarray(self.be.cmp(op, x, y, self.tol)), D, "bool")

    def _ev_And(self, t: T.And, loc: dict) -> Val:
        a = self.prop(t.lhs, loc)
        b = self.prop(t.rhs, loc)
        x, y, D = self._align(a, b, (a.arr, b.arr))
        return Val(x & y, D, "bool")

    def _ev_Ite(self, t: T.Ite, loc: dict) -> Val:
        saved = self.tol
        self.tol = False  # a branch condition is the program's own exact test
        try:
            c = self.prop(t.cond, loc)
        finally:
            self.tol = saved
        a = self.ev(t.then, loc)
        b = self.ev(t.els, loc)
        if not isinstance(a, Val) or not isinstance(b, Val):
            raise EvalError("`if` between functions")
        if a.kind == "nat" and b.kind == "nat":
            x, y, D = self._align(a, b, (a.arr, b.arr))
            kind = "nat"
        else:
            x, y, D = self._align(a, b, (self.real(a), self.real(b)))
            kind = "real"
        D2 = max(D, c.depth)
        x, y = _pad(x, D, D2), _pad(y, D, D2)
        cond = _pad(c.arr, c.depth, D2)
        cond = cond.reshape(cond.shape + (1,) * (x.ndim - D2))
        _fits(cond.shape, x.shape, y.shape, exact=self.be.exact)
        return Val(np.where(cond, x, y), D2, kind)

    # ---- assignment and export
    def bind(self, a: Assignment) -> dict:
        loc: dict[str, Any] = {}
        if any(not 0 <= int(v) < _NAT_LIMIT for v in [*a.sizes.values(), *a.indices.values()]):
            raise EvalError("a size or index is too large to evaluate here (past 2^62)")
        for k, v in a.sizes.items():
            loc[k] = Val(np.asarray(int(v), dtype=np.int64), 0, "nat")
        for k, v in a.indices.items():
            loc[k] = Val(np.asarray(int(v), dtype=np.int64), 0, "nat")
        for k, v in a.reals.items():
            loc[k] = Val(self.be.real(_as_array(v)), 0, "real")
        for k, v in a.tensors.items():
            arr = self.be.real(_as_array(v))
            if arr.ndim != 1:
                raise EvalError(f"tensor `{k}` must be flat (1-D), got shape {arr.shape}")
            loc[k] = Val(arr, 0, "real")
        for k, fam in a.families.items():
            if len(fam) == 0:                     # R = 0: no member, but members' shape
                arr = np.zeros((0, *a.member_shapes.get(k, (0,))), dtype=self.be.dtype)
            else:
                arr = self.be.real(np.stack([_as_array(x) for x in fam]))
            loc[k] = Val(arr, 0, "real")
        for k, m in a.maps.items():
            loc[k] = _MapFn(m)
        return loc

    def export(self, v: Any) -> Any:
        if isinstance(v, _Fn):
            return _Callable(self, v)
        v = _trim(v)
        if v.depth:
            raise EvalError("the value still depends on bound index variables")
        if v.kind == "bool":
            return bool(v.arr)
        if v.kind == "nat":
            return int(v.arr) if v.arr.ndim == 0 else v.arr.copy()
        arr = v.arr
        if self.be.exact:
            arr = self.be.real(arr)
            if arr.ndim == 0:
                return arr[()]
        else:
            arr = np.asarray(arr, dtype=np.float64)
            if arr.ndim == 0:
                return float(arr)
        if arr.ndim == 1:
            return arr.copy()
        return _Family(self, Val(arr, 0, "real"))


def _as_array(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (int, float, np.integer, np.floating)):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtype=object) if any(not isinstance(e, (int, float)) for e in x) \
            else np.asarray(x)
    return _obj(x)  # Fraction, sympy number


class _Callable:
    """A function or family value handed back to Python: call it with arrays or ints."""

    def __init__(self, ev: _Ev, fn: _Fn) -> None:
        self._ev = ev
        self._fn = fn

    def __call__(self, *args: Any) -> Any:
        f: Any = self._fn
        for a in args:
            f = self._ev.apply(f, _to_val(self._ev, a))
        return self._ev.export(f)

    def __str__(self) -> str:       # (printed in a verdict: never an object's address)
        return "(a function)"

    __repr__ = __str__


class _Family:
    """A tabulated family (`Fin R → Vec n`): ``fam(r)`` is replica r's vector."""

    def __init__(self, ev: _Ev, v: Val) -> None:
        self._ev = ev
        self._v = v

    def __call__(self, *idx: int) -> Any:
        f: Any = self._v
        for i in idx:
            f = self._ev.apply(f, _to_val(self._ev, i))
        return self._ev.export(f)

    def __len__(self) -> int:
        return self._v.arr.shape[0]

    # Printed in a verdict as its members in order (the forty-seventh review: the object's
    # address was printed, so two runs of one check differed).
    def __str__(self) -> str:
        return "[" + "; ".join(_show(self(r)) for r in range(len(self))) + "]"

    __repr__ = __str__


def _to_val(ev: _Ev, a: Any) -> Any:
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        return Val(np.asarray(int(a), dtype=np.int64), 0, "nat")
    if isinstance(a, _Callable):
        return a._fn
    return Val(ev.be.real(_as_array(a)), 0, "real")


def evaluate(term: T.Term, env: GlobalEnv, assignment: Assignment, mode: str = "float") -> Any:
    """The value of an elaborated term under an assignment of its free names.

    Returns a float (exact mode: a sympy number), a 1-D array (float64 or object), a bool for a
    proposition (float mode compares with ``np.isclose(rtol=1e-9, atol=1e-9)``), or a callable
    for a function or family value.  The term's own leading `∀`s over reals, sizes or vectors
    read their binders from the assignment (a statement's, as the search assigns them); any
    other such `∀` cannot be evaluated.
    """
    ev = _Ev(env, mode)
    ev.open_foralls = _leading_foralls(term)
    with np.errstate(all="ignore"):  # exp may overflow to inf: a value, not an error
        return ev.export(ev.ev(term, ev.bind(assignment)))


# =========================================================================== sampling


@dataclass
class _Def:
    """A hypothesis `∀ r, f r = rhs` (or `x = rhs`) used to construct ``target``."""

    hyp: str
    target: str
    binders: tuple[T.Binder, ...]
    rhs: T.Term
    prop: T.Term


@dataclass
class _Plan:
    sizes: list[str]
    tied: dict[str, T.Term]
    free_sizes: list[str]
    defs: list[_Def]
    checks: list[tuple[str, T.Term]]
    size_hyps: list[tuple[str, T.Term]]
    positive: set[str]
    nonneg: set[str]
    extra: list[tuple[str, T.Term]]   # non-Fin ∀-binders of the statement: (name, type term)


def _definition(prop: T.Term, types: dict[str, Ty]) -> tuple[str, tuple, T.Term] | None:
    binders: tuple[T.Binder, ...] = ()
    body = prop
    if isinstance(prop, T.Forall):
        if not all(_is_fin(b.ty) for b in prop.binders):
            return None
        binders = prop.binders
        body = prop.body
    if not (isinstance(body, T.Cmp) and body.op == "="):
        return None
    names = tuple(b.name for b in binders)
    if len(set(names)) != len(names):
        return None
    for lhs, rhs in ((body.lhs, body.rhs), (body.rhs, body.lhs)):
        target = None
        if binders:
            if isinstance(lhs, T.App) and isinstance(lhs.fn, T.Var) and \
                    tuple(lhs.args) == tuple(T.Var(n) for n in names):
                target = lhs.fn.name
                ty = types.get(target)
                depth_ok = ty is not None
                for b in binders:
                    if isinstance(ty, FunT) and isinstance(ty.dom, FinT):
                        # the hypothesis defines the family only if it covers its whole domain
                        if not _same_fin(b.ty, ty.dom.size):
                            depth_ok = False
                            break
                        ty = ty.cod
                    elif isinstance(ty, VecT) and len(names) == 1 and _same_fin(b.ty, ty.size):
                        ty = RealT()                    # (all of the vector, as for families)
                    else:
                        depth_ok = False
                        break
                if not depth_ok or not isinstance(ty, (VecT, RealT)):
                    target = None
        elif isinstance(lhs, T.Var) and isinstance(types.get(lhs.name), (VecT, RealT)):
            target = lhs.name
        if target is not None and target not in T.free_names(rhs, frozenset(names)):
            return target, binders, rhs
    return None


def _same_fin(bty: T.Term | None, size: T.Term) -> bool:
    if not (isinstance(bty, T.App) and bty.fn == T.Var("Fin")):
        return False
    try:
        return arith.sizes_equal(bty.args[0], size)
    except arith.NotASize:
        return False


def _positivity(prop: T.Term, types: dict[str, Ty]) -> tuple[str, str] | None:
    """`0 < x` / `x > 0` (→ positive) or `0 ≤ x` / `x ≥ 0` (→ nonneg) for a real binder x."""
    if not isinstance(prop, T.Cmp):
        return None
    zero = T.Num(Fraction(0))
    for op, a, b in ((prop.op, prop.lhs, prop.rhs),
                     ({"<": ">", ">": "<", "≤": "≥", "≥": "≤"}.get(prop.op, ""), prop.rhs,
                      prop.lhs)):
        if a == zero and isinstance(b, T.Var) and isinstance(types.get(b.name), RealT):
            if op == "<":
                return b.name, "positive"
            if op == "≤":
                return b.name, "nonneg"
    return None


def _plan(g: GlobalDecl) -> _Plan:
    if g.kind != "theorem" or g.stmt is None:
        raise EvalError(f"`{g.name}` is not a theorem")
    types = dict(g.binders)
    sizes = [n for n, ty in g.binders if isinstance(ty, NatT)]
    tied = {k: v for k, v in g.size_subst}
    free_sizes = [n for n in sizes if n not in tied]
    size_set = set(sizes)
    candidates: list[_Def] = []
    others: list[tuple[str, T.Term]] = []
    size_hyps: list[tuple[str, T.Term]] = []
    positive: set[str] = set()
    nonneg: set[str] = set()
    for hname, prop in g.hyps:
        if T.free_names(prop) <= size_set:
            size_hyps.append((hname, prop))
            continue
        d = _definition(prop, types)
        if d is not None:
            candidates.append(_Def(hname, d[0], d[1], d[2], prop))
            continue
        p = _positivity(prop, types)
        if p is not None:
            (positive if p[1] == "positive" else nonneg).add(p[0])
        others.append((hname, prop))
    # Order the definitions so that each right side only reads what is already known.
    binder_names = set(types)
    targets = {c.target for c in candidates}
    known = binder_names - targets
    defs: list[_Def] = []
    pending = list(candidates)
    progress = True
    while pending and progress:
        progress = False
        for c in list(pending):
            if c.target in {d.target for d in defs}:
                continue
            need = T.free_names(c.rhs, frozenset(b.name for b in c.binders)) & binder_names
            if need <= known:
                defs.append(c)
                known.add(c.target)
                pending.remove(c)
                progress = True
    others.extend((c.hyp, c.prop) for c in pending)  # a second definition, or a cycle: check
    extra: list[tuple[str, T.Term]] = []
    s = g.stmt
    while isinstance(s, T.Forall):
        for b in s.binders:
            if not _is_fin(b.ty) and b.ty is not None and b.name not in types:
                extra.append((b.name, b.ty))
        s = s.body
    return _Plan(sizes, tied, free_sizes, defs, others, size_hyps, positive, nonneg, extra)


def _draw(rng: np.random.Generator, n: int, data: str) -> np.ndarray:
    if data == "normal":
        return rng.standard_normal(n)
    if data == "integers":
        return rng.integers(-3, 4, n).astype(np.float64)
    if data == "wide":  # reaches thresholds such as relu6's 6
        return rng.integers(-16, 17, n) / 2.0
    if data == "breakpoints":  # where relu, relu6 and the masks turn
        return rng.choice(np.array([0.0, 6.0, -6.0, 1.0, -1.0, 0.5, 3.0]), n)
    return rng.integers(-6, 7, n) / 2.0  # halves in [-3, 3]: exact in binary


def _resolve_sizes(plan: _Plan, sizes: dict[str, int], default: int | None = 2
                   ) -> dict[str, int]:
    missing = [n for n in plan.free_sizes if n not in sizes]
    if missing and default is None:
        raise EvalError("no value for the size" + ("s " if len(missing) > 1 else " ")
                        + ", ".join(f"`{n}`" for n in missing))
    vals = {n: int(sizes.get(n, default or 0)) for n in plan.free_sizes}
    pending = dict(plan.tied)
    while pending:
        progress = False
        for n, term in list(pending.items()):
            try:
                vals[n] = arith.size_value(term, vals)
            except KeyError:
                continue
            del pending[n]
            progress = True
        if not progress:
            for n in pending:  # a size tied to something unknown: take the given value
                vals[n] = int(sizes.get(n, 2))
            break
    return vals


def _size_of_ty(ty: Ty, sizes: dict[str, int]) -> int:
    return arith.size_value(ty.size, sizes)  # type: ignore[attr-defined]


def _map_widths(ty: Ty) -> tuple[list[VecT], VecT] | None:
    """`Vec a → Vec b` or a curried `Vec s → Vec a → Vec b`: the argument types and the result."""
    args: list[VecT] = []
    while isinstance(ty, FunT) and isinstance(ty.dom, VecT):
        args.append(ty.dom)
        ty = ty.cod
    return (args, ty) if args and isinstance(ty, VecT) else None


def _draw_base(g: GlobalDecl, env: GlobalEnv, plan: _Plan, sizes: dict[str, int],
               rng: np.random.Generator, data: str) -> Assignment | None:
    a = Assignment(sizes=_resolve_sizes(plan, sizes))
    if plan.size_hyps:
        ev = _theorem_ev(g, env, "float")
        loc = ev.bind(a)
        for _, h in plan.size_hyps:
            _checkable(h)
            if not bool(ev.prop(h, loc).arr):
                return None
    defined = {d.target for d in plan.defs}
    sz = a.sizes
    for name, ty in g.binders:
        if isinstance(ty, NatT) or name in defined:
            continue
        if isinstance(ty, FinT):
            n = _size_of_ty(ty, sz)
            if n <= 0:
                return None  # no index exists: the statement is vacuous here
            # (any index in range will do: numpy draws below 2⁶³ only)
            a.indices[name] = int(rng.integers(0, min(n, int(_NAT_LIMIT))))
        elif isinstance(ty, RealT):
            x = float(_draw(rng, 1, data)[0])
            if name in plan.positive:
                x = abs(x) + (0.5 if data != "normal" else 0.1)
            elif name in plan.nonneg:
                x = abs(x)
            a.reals[name] = x
        elif isinstance(ty, VecT):
            a.tensors[name] = _draw(rng, _size_of_ty(ty, sz), data)
        elif isinstance(ty, FunT) and isinstance(ty.dom, FinT) and \
                isinstance(ty.cod, (VecT, RealT)):
            R = _size_of_ty(ty.dom, sz)
            if isinstance(ty.cod, VecT):
                n = _size_of_ty(ty.cod, sz)
                a.families[name] = [_draw(rng, n, data) for _ in range(R)]
                a.member_shapes[name] = (n,)
            else:
                a.families[name] = [np.asarray(float(_draw(rng, 1, data)[0])) for _ in range(R)]
                a.member_shapes[name] = ()
        elif (shape := _map_widths(ty)) is not None:
            widths, out = shape
            ws = tuple(_size_of_ty(w, sz) for w in widths)
            m, n = sum(ws), _size_of_ty(out, sz)
            a.maps[name] = RandomMap(_draw(rng, n * m, data).reshape(n, m),
                                     _draw(rng, n * m, data).reshape(n, m), _draw(rng, n, data),
                                     ws)
        else:
            raise EvalError(f"cannot sample a value of type {ty} for `{name}`")
    for name, ty_term in plan.extra:
        if _is_fin(ty_term):
            continue
        if isinstance(ty_term, T.Var) and ty_term.name in ("ℝ", "Real"):
            a.reals[name] = float(_draw(rng, 1, data)[0])
        elif isinstance(ty_term, T.App) and isinstance(ty_term.fn, T.Var) and \
                ty_term.fn.name == "Vec":
            a.tensors[name] = _draw(rng, arith.size_value(ty_term.args[0], sz), data)
        else:
            raise EvalError(f"cannot sample `∀ {name} : {pretty(ty_term)}`")
    return a


def _complete(g: GlobalDecl, env: GlobalEnv, plan: _Plan, base: Assignment, mode: str
              ) -> Assignment | None:
    """Construct the defined families and vectors from their hypotheses, then check the rest."""
    a = _exactify(base) if mode == "exact" else base.copy()
    ev = _theorem_ev(g, env, mode)
    if plan.size_hyps:      # in this mode: a draw's float check is no proof (2·10⁻¹⁰ ≈ 0)
        loc = ev.bind(a)
        for _, h in plan.size_hyps:
            _checkable(h)
            if not bool(np.all(ev.prop(h, loc).arr)):
                return None
    types = dict(g.binders)
    for d in plan.defs:
        loc = ev.bind(a)
        D = ev.depth
        loc2, sizes = ev._bind_fins(d.binders, loc)
        try:
            v = ev.ev(d.rhs, loc2)
        finally:
            ev.pop_axes(len(d.binders))
        if not isinstance(v, Val):
            raise EvalError(f"hypothesis `{d.hyp}` does not define a value")
        k = len(sizes)
        arr = _pad(ev.real(v), v.depth, D + k)
        arr = np.array(np.broadcast_to(arr, tuple(sizes) + arr.shape[k:]))   # (0-d stays 0-d:
        # numpy 2's ascontiguousarray made it 1-d, and a real defined by `h : x = y + 1` failed)
        ty = types[d.target]
        if isinstance(ty, FunT):
            a.families[d.target] = [arr[i] for i in range(arr.shape[0])]
            a.member_shapes[d.target] = arr.shape[1:]
        elif isinstance(ty, VecT):
            if arr.ndim != 1:
                raise EvalError(f"hypothesis `{d.hyp}` gives `{d.target}` the wrong shape")
            a.tensors[d.target] = arr
        else:
            if arr.ndim != 0:
                raise EvalError(f"hypothesis `{d.hyp}` gives `{d.target}` the wrong shape")
            a.reals[d.target] = arr[()]
    if plan.checks:
        loc = ev.bind(a)
        for _, h in plan.checks:
            _checkable(h)
            v = ev.prop(h, loc)
            if not bool(np.all(v.arr)):
                return None
    return a


def _exactify(a: Assignment) -> Assignment:
    """The same assignment with every number exact (a float as the number it holds)."""
    def ex(x: Any) -> np.ndarray:
        return _EXACT.real(_as_array(x))
    out = a.copy()
    out.reals = {k: ex(v)[()] for k, v in a.reals.items()}
    out.tensors = {k: ex(v) for k, v in a.tensors.items()}
    out.families = {k: [ex(x) for x in v] for k, v in a.families.items()}
    out.maps = {k: RandomMap(ex(m.M), ex(m.P), ex(m.c), m.widths) for k, m in a.maps.items()}
    return out


def complete_assignment(g: GlobalDecl, env: GlobalEnv, assignment: Assignment,
                        mode: str = "exact") -> Assignment | None:
    """Fill in what theorem ``g``'s hypotheses define, and check the others.

    For a `witness` proof step: the user gives the sizes and the free data (`X := ![0, 2]`); the
    families pinned down by `∀ r, x r = shard R N a X r` follow, and sizes tied by `a = b` take
    b's value.  None when a hypothesis fails at the given values; :class:`EvalError` when a value
    the statement needs is missing.
    """
    plan = _plan(g)
    a = assignment.copy()
    given = dict(a.sizes)
    for n, term in plan.tied.items():    # `N = R` with N given and R not: R takes N's value
        if n in given and isinstance(term, T.Var) and term.name in plan.free_sizes:
            given.setdefault(term.name, given[n])
    a.sizes = {**given, **_resolve_sizes(plan, given, default=None)}
    for n, v in assignment.sizes.items():
        if a.sizes[n] != v:      # a given size the ties make something else: never overridden
            raise WitnessConflict(f"`{n}` := {v}, but the hypotheses tie it to {a.sizes[n]}")
    out = _complete(g, env, plan, a, mode)          # (which checks the size hypotheses too)
    for d in plan.defs if out is not None else ():  # a given value a hypothesis defines: kept
        for part in ("reals", "tensors", "families"):
            given_v = getattr(assignment, part).get(d.target)
            if given_v is not None and not _same_values(given_v, getattr(out, part)[d.target]):
                raise WitnessConflict(f"`{d.target}` is given a value, but hypothesis `{d.hyp}` "
                                      "makes it another")
    return out


def _same_values(x: Any, y: Any) -> bool:
    """Equal exact values: numbers, vectors, or replica families (lists of vectors)."""
    if isinstance(x, list) or isinstance(y, list):
        return isinstance(x, list) and isinstance(y, list) and len(x) == len(y) and \
            all(_same_values(p, q) for p, q in zip(x, y))
    p, q = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    return p.shape == q.shape and all(bool(u == v) for u, v in zip(p.ravel(), q.ravel()))


class WitnessConflict(Exception):
    """A given witness value that the theorem's hypotheses contradict."""


def _checkable(h: T.Term) -> None:
    """A hypothesis with a `∀` over anything but `Fin` cannot be checked at sample values: it
    must hold for every value, and the evaluator would read the bound name's sample (or another
    variable's of the same name), judging it true where it is not."""
    if _quantifies_beyond_indices(h):
        raise EvalError("a hypothesis quantifies over a variable that is not an index "
                        "(`∀` over reals or vectors): it cannot be checked at sample values")


@lru_cache(maxsize=4096)          # asked once per draw of the search, for the same hypotheses
def _quantifies_beyond_indices(h: T.Term) -> bool:
    todo = [h]
    while todo:
        u = todo.pop()
        if isinstance(u, T.Forall) and not all(_is_fin(b.ty) for b in u.binders):
            return True
        todo.extend(c for c in u.children() if not isinstance(c, T.Binder))
    return False


def counterexample_at(g: GlobalDecl, env: GlobalEnv, assignment: Assignment,
                      mode: str = "exact", fixed: frozenset[str] = frozenset()
                      ) -> Counterexample | None:
    """Does this (complete) assignment refute theorem ``g``?  For a `≠` statement: witness it?

    The theorem's free indices (`r : Fin R`) not mentioned by a hypothesis are tried at every
    value (except those in ``fixed``: a witness's given indices are kept as written); the first
    instance found is reported, as :func:`find_counterexample` does.
    """
    try:
        with np.errstate(all="ignore"):
            return _locate(g, env, assignment, mode, is_negative_statement(g), fixed)
    except RecursionError:
        raise EvalError("the statement is nested too deeply to evaluate") from None
    except MemoryError:
        raise EvalError("the statement's arrays do not fit in memory") from None


def sample_assignment(g: GlobalDecl, env: GlobalEnv, sizes: dict[str, int],
                      rng: np.random.Generator, mode: str = "float", *,
                      data: str | None = None) -> Assignment | None:
    """Random data for every binder of theorem ``g`` that satisfies its hypotheses.

    Families and vectors that a hypothesis `∀ r, f r = rhs` (or `x = rhs`) pins down are
    computed from it, so such hypotheses hold by construction; a size tied by `a = b` takes b's
    value; hypotheses on sizes only are checked (None when the given sizes violate one); any
    other hypothesis is checked after sampling (None when it fails).  ``data`` is ``"halves"``
    (k/2 in [-3, 3], the default in exact mode), ``"integers"`` ([-3, 3]) or ``"normal"`` (the
    default in float mode) or ``"wide"`` (k/2 in [-8, 8]).
    """
    plan = _plan(g)
    data = data or ("halves" if mode == "exact" else "normal")
    base = _draw_base(g, env, plan, sizes, rng, data)
    if base is None:
        return None
    return _complete(g, env, plan, base, mode)


# =========================================================================== counterexamples


@dataclass
class Counterexample:
    """An assignment on which a statement's two sides differ, confirmed in exact arithmetic.

    For a `≠` statement it is a witness that they differ.  ``lhs_value``/``rhs_value`` are the
    two sides of the (first) failing equation, exactly; ``index`` is the first position where
    they differ (None for numbers); ``binding`` the values of `∀`-bound indices of the instance.
    """

    assignment: Assignment
    lhs_value: Any
    rhs_value: Any
    index: int | None
    message: str
    binding: dict[str, int] = field(default_factory=dict)
    witness: bool = False
    # what the search found before shrinking (`shrink.py`), when shrinking changed it: a
    # witness the kernel refuses shrunk (√(11/4)) may be accepted as found (√9)
    unshrunk: "Counterexample | None" = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        def val(v: Any) -> Any:
            if isinstance(v, np.ndarray):
                return [_json_num(x) for x in v.reshape(-1)]
            return _json_num(v) if v is not None else None
        out = {"assignment": self.assignment.to_dict(), "lhs": val(self.lhs_value),
               "rhs": val(self.rhs_value), "index": self.index, "message": self.message,
               "binding": dict(self.binding), "witness": self.witness,
               "python": self.assignment.format()}
        for side, v in (("lhs", self.lhs_value), ("rhs", self.rhs_value)):
            approx = _approx(v)
            if approx is not None:      # `-479*sqrt(19743)/39486` reads as ≈ -1.71 too
                out[f"{side}_approx"] = approx
        return out


def _approx(v: Any) -> Any:
    """Six digits of each irrational entry of an exact value (None for a rational one); None
    when nothing in it is irrational."""
    def one(x: Any) -> str | None:
        if x is None or isinstance(x, (bool, int, float, Fraction, np.bool_, np.integer,
                                        np.floating)):
            return None
        try:
            e = arith.to_exact(x)
        except TypeError:           # not a number (a replica family's sides): no digits
            return None
        return None if e.is_Rational else str(e.evalf(6))    # (`exp(1000)` is no float)
    if isinstance(v, np.ndarray):
        out = [one(x) for x in v.reshape(-1)]
        return out if any(a is not None for a in out) else None
    return one(v)


def _show(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return "[" + ", ".join(_show(x) for x in v.reshape(-1)) + "]"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return arith.exact_str(v) if arith.is_exact(v) else str(v)


# An exact side longer than this reads in the summary line ("the statement fails …: lhs = …")
# as its six digits, `lhs ≈ 2.98462` (a net's was 2,700 characters, its line 5,494: the
# sixty-eighth review); the exact value is the counterexample's `lhs`/`rhs`.
SUMMARY_CHARS = 80


def _brief(v: Any, digits: int = 6) -> str:
    if isinstance(v, np.ndarray):
        return "[" + ", ".join(_brief(x, digits) for x in v.reshape(-1)) + "]"
    s = _show(v)
    if len(s) > SUMMARY_CHARS and arith.is_exact(v):
        return f"≈ {str(arith.to_exact(v).evalf(digits))}"
    return s


def _side(name: str, v: Any, digits: int = 6) -> str:
    b = _brief(v, digits)
    return f"{name} {b}" if b.startswith("≈ ") else f"{name} = {b}"


def _sides_text(lhs: Any, rhs: Any) -> str:
    """`lhs ≈ …, rhs = …` for the summary line; where the six digits of the two agree, their
    difference too, so that the line shows one (the seventy-third review: `lhs ≈ 3.63603e+238,
    rhs ≈ 3.63603e+238`)."""
    a, b = _side("lhs", lhs), _side("rhs", rhs)
    if a[4:] != b[4:] or not (arith.is_exact(lhs) and arith.is_exact(rhs)):
        return f"{a}, {b}"
    try:
        diff = (arith.to_exact(lhs) - arith.to_exact(rhs)).evalf(6, maxn=2000)
    except Exception:                 # (sympy's own evaluation: the line is a courtesy)
        return f"{a}, {b}"
    return f"{a}, {b} (lhs − rhs ≈ {diff})"


@dataclass
class _Detail:
    lhs: Any = None
    rhs: Any = None
    index: int | None = None
    text: str = ""
    binding: dict[str, int] = field(default_factory=dict)


def _first(mask: np.ndarray) -> tuple[int, ...] | None:
    hits = np.argwhere(mask)
    return tuple(int(x) for x in hits[0]) if len(hits) else None


def _judge(prop: T.Term, ev: _Ev, loc: dict, want: bool) -> _Detail:
    """Explain an instance where ``prop`` evaluates to ``want``: the sides and where they differ."""
    if isinstance(prop, T.Forall):
        fins = tuple(b for b in prop.binders if _is_fin(b.ty))
        # as in `_ev_Forall`: a binder over values is read from the assignment only at the
        # statement's leading `∀`s (never a value of another scope, even when only explaining)
        if any(not _is_fin(b.ty) and (b.name not in loc or id(prop) not in ev.open_foralls)
               for b in prop.binders):
            raise EvalError("a `∀` over values the assignment does not give")
        D = ev.depth
        loc2, sizes = ev._bind_fins(fins, loc)
        try:
            body = ev.prop(prop.body, loc2)
        finally:
            ev.pop_axes(len(fins))
        arr = np.broadcast_to(_pad(body.arr, body.depth, D + len(fins)), tuple(sizes))
        pos = _first(arr == want)
        if pos is None:
            return _Detail(text=pretty(prop))
        loc3 = dict(loc)
        for b, p in zip(fins, pos):
            loc3[b.name] = Val(np.asarray(p, dtype=np.int64), 0, "nat")
        d = _judge(prop.body, ev, loc3, want)
        d.binding = {**{b.name: p for b, p in zip(fins, pos)}, **d.binding}
        return d
    if isinstance(prop, T.And):
        if want:  # both parts hold: show the first
            return _judge(prop.lhs, ev, loc, True)
        for part in (prop.lhs, prop.rhs):
            if not bool(np.all(ev.prop(part, loc).arr)):
                d = _judge(part, ev, loc, False)
                if not isinstance(part, T.And):   # (a nested `∧` names its own failing part)
                    d.text = f"in the part `{clip(pretty(part), 120)}`: {d.text}"
                return d
        return _Detail(text=pretty(prop))
    if isinstance(prop, T.App) and isinstance(prop.fn, T.Var) and prop.fn.name not in loc:
        g = ev.env.get(prop.fn.name)
        if g is not None and g.kind == "def" and g.body is not None:
            params = [p for p in g.params if p.kind != "hyp"]
            if len(prop.args) == len(params):
                args = [ev.ev(x, loc) for x in prop.args]
                return _judge(g.body, ev, {p.name: x for p, x in zip(params, args)}, want)
    if isinstance(prop, T.Cmp):
        a, b = ev.ev(prop.lhs, loc), ev.ev(prop.rhs, loc)
        lhs, rhs = ev.export(a), ev.export(b)
        index = None
        if isinstance(a, Val) and isinstance(b, Val) and a.kind != "bool":
            diff = ~ev.compare("=", _as_elementwise(a), _as_elementwise(b)).arr
            if np.ndim(lhs) == 1 or np.ndim(rhs) == 1:
                flat = np.broadcast_to(diff, np.broadcast_shapes(np.shape(lhs), np.shape(rhs)))
                pos = _first(flat)
                index = pos[0] if pos else None
        if index is not None:
            lv = lhs[index] if np.ndim(lhs) == 1 else lhs
            rv = rhs[index] if np.ndim(rhs) == 1 else rhs
            text = f"at index {index}: {_sides_text(lv, rv)}"
        else:
            text = f"{_sides_text(lhs, rhs)}"
        return _Detail(lhs, rhs, index, text)
    return _Detail(text=pretty(prop))


def _as_elementwise(v: Val) -> Val:
    """A vector value seen as numbers along a new index axis (to compare element by element)."""
    if v.trailing == 0:
        return v
    return Val(v.arr, v.arr.ndim, v.kind)


def _index_binders(g: GlobalDecl) -> list[tuple[str, FinT]]:
    used = set()
    for _, h in g.hyps:
        used |= T.free_names(h)
    return [(n, ty) for n, ty in g.binders if isinstance(ty, FinT) and n not in used]


def _locate(g: GlobalDecl, env: GlobalEnv, a: Assignment, mode: str, witness: bool,
            fixed: frozenset[str] = frozenset()) -> Counterexample | None:
    """Evaluate the statement over every value of the theorem's free indices at once (those in
    ``fixed`` keep their value in ``a``)."""
    ev = _theorem_ev(g, env, mode)
    loc = ev.bind(a)
    idx = [(n, ty) for n, ty in _index_binders(g) if n not in fixed]
    sizes = [_size_of_ty(ty, a.sizes) for _, ty in idx]
    if any(n <= 0 for n in sizes):
        return None
    for (name, _), n in zip(idx, sizes):
        loc[name] = ev.push_axis(n)
    try:
        v = ev.prop(g.stmt, loc)  # type: ignore[arg-type]
    finally:
        ev.pop_axes(len(idx))
    arr = np.broadcast_to(_pad(v.arr, v.depth, len(idx)), tuple(sizes))
    pos = _first(arr if witness else ~arr)
    if pos is None:
        return None
    a2 = a.copy()
    for (name, _), p in zip(idx, pos):
        a2.indices[name] = p
    ev2 = _theorem_ev(g, env, mode)
    d = _judge(g.stmt, ev2, ev2.bind(a2), witness)  # type: ignore[arg-type]
    where = ", ".join(f"{k}={v}" for k, v in {**a2.sizes, **a2.indices}.items())
    if d.binding:       # a `∀`-bound index may share a size's name (`k : Fin oc`, kernel size k)
        at = ", ".join(f"{k}={v}" for k, v in d.binding.items())
        where = f"{where}; at {at}" if where else f"at {at}"
    head = "the two sides differ" if witness else \
        EQUAL_SIDES if isinstance(g.stmt, T.Cmp) and g.stmt.op == "≠" else "the statement fails"
    msg = f"{head} ({where}): {d.text}" if where else f"{head}: {d.text}"
    return Counterexample(a2, d.lhs, d.rhs, d.index, msg, d.binding, witness)


# =========================================================================== given values
# `shardproof.sides`: a theorem's two sides at values given from Python (a counterexample's,
# pasted from `explain`, or a user's own), evaluated here, so that the code `explain` prints
# reproduces the failure instead of only assigning its inputs.

SIDES_EXACT_SECONDS = 10.0     # exact work (nominal seconds) before `theorem_sides` uses floats


def theorem_sides(g: GlobalDecl, env: GlobalEnv, values: dict[str, Any]) -> tuple[Any, Any]:
    """The two sides of theorem ``g``'s statement at the given values of its binders.

    ``values`` gives the binders by name (every one the statement reads, :func:`_needed`):
    sizes and indices as ints, reals as numbers (int, float, Fraction, sympy), vectors as 1-D
    array-likes of the type's length, replica families as sequences of those (of numbers for
    `Fin R → ℝ`), a per-example map as a :class:`RandomMap` or a Python function of the map's
    vectors.  The hypotheses are not checked.  The sides are those of the comparison a
    counterexample reports: the first that fails (under `∀`, at its first failing index; under
    `∧`, the first failing part), else the first.  They are exact (sympy numbers, object
    arrays) when the data fits in exact arithmetic, as for a counterexample's re-check (a float
    is read as the number it holds: `0.5` is 1/2, `0.1` is not 1/10); floats when it does not,
    when its exact evaluation takes more than SIDES_EXACT_SECONDS of work, or when a map is a
    Python function.
    ValueError names a binder whose value is missing or does not fit its type, or says why the
    statement cannot be evaluated.
    """
    a, functions = _given_assignment(g, values)
    if not functions and _elements(a) <= EXACT_ELEMENTS:
        try:
            with exact_budget(SIDES_EXACT_SECONDS):
                return _sides(g, env, a, functions, "exact")
        except EvalError:
            pass            # too large or too slow exactly: in floats (which report any error)
    try:
        return _sides(g, env, a, functions, "float")
    except EvalError as exc:
        raise ValueError(f"`{g.name}` cannot be evaluated at these values: {exc}") from None


def _sides(g: GlobalDecl, env: GlobalEnv, a: Assignment, functions: dict[str, "_PyMapFn"],
           mode: str) -> tuple[Any, Any]:
    """The sides of the comparison that :func:`_judge` explains, as :func:`_locate` finds a
    counterexample's, at an assignment whose indices are all given."""
    ev = _theorem_ev(g, env, mode)
    try:
        with np.errstate(all="ignore"):     # exp may overflow to inf: a value, not an error
            loc = {**ev.bind(a), **functions}
            holds = bool(np.all(ev.prop(g.stmt, loc).arr))  # type: ignore[arg-type]
            d = _judge(g.stmt, ev, loc, holds)  # type: ignore[arg-type]
    except RecursionError:
        raise EvalError("the statement is nested too deeply to evaluate") from None
    except MemoryError:
        raise EvalError("the statement's arrays do not fit in memory") from None
    if d.lhs is None and d.rhs is None:
        raise EvalError(f"no comparison of two sides to show here: {d.text}")
    return d.lhs, d.rhs


class _PyMapFn(_Fn):
    """A per-example map given as a Python function (by a user of `shardproof.sides`): called
    once per example, in floating point, with its vectors as separate arguments (as the code a
    counterexample prints defines a map)."""

    def __init__(self, name: str, fn: Callable[..., Any], arity: int, out_n: int,
                 got: tuple[Val, ...] = ()) -> None:
        self.name, self.fn, self.arity, self.out_n, self.got = name, fn, arity, out_n, got

    def apply(self, ev: "_Ev", arg: Any) -> Any:
        if not isinstance(arg, Val) or arg.trailing != 1:
            raise EvalError("a per-example map is applied to a vector")
        got = self.got + (arg,)
        if len(got) < self.arity:
            return _PyMapFn(self.name, self.fn, self.arity, self.out_n, got)
        D = max(v.depth for v in got)
        parts = [_pad(ev.real(v), v.depth, D) for v in got]
        grid = np.broadcast_shapes(*(p.shape[:D] for p in parts))
        full = [np.broadcast_to(p, grid + p.shape[D:]) for p in parts]
        out = np.empty(grid + (self.out_n,), dtype=np.float64)
        for pos in np.ndindex(*grid):
            try:
                res = self.fn(*(np.asarray(p[pos], dtype=np.float64) for p in full))
            except RecursionError:          # (it read "the statement is nested too deeply")
                raise EvalError(f"the map `{self.name}` raised RecursionError") from None
            try:
                res = np.asarray(res, dtype=np.float64)
            except (TypeError, ValueError):
                raise EvalError(f"the map `{self.name}` returned {_given(res)}, not a vector "
                                f"of {self.out_n} numbers") from None
            if res.shape != (self.out_n,):
                raise EvalError(f"the map `{self.name}` returned an array of shape "
                                f"{res.shape}, not a vector of {self.out_n} entries")
            out[pos] = res
        return Val(ev.be.real(out), D, "real")


def _given_assignment(g: GlobalDecl, values: dict[str, Any]
                      ) -> tuple[Assignment, dict[str, _PyMapFn]]:
    """The values given for theorem ``g``'s binders (and its statement's leading `∀`s over
    reals and vectors), each checked against its type; maps given as Python functions apart."""
    binders: list[tuple[str, Ty]] = list(g.binders)
    for name, ty_term in _plan(g).extra:
        if isinstance(ty_term, T.Var) and ty_term.name in ("ℝ", "Real"):
            binders.append((name, RealT()))
        elif isinstance(ty_term, T.App) and isinstance(ty_term.fn, T.Var) and \
                ty_term.fn.name == "Vec":
            binders.append((name, VecT(ty_term.args[0])))
        else:
            raise ValueError(f"`∀ {name} : {pretty(ty_term)}` cannot be given a value here")
    given = _given_names(g.name, binders, values)
    needed = _needed(g, binders, {*given, *(n for n, _ in binders[len(g.binders):])})
    missing = [f"`{n}` ({ty})" for n, ty in binders if n in needed and n not in given]
    if missing:
        raise ValueError(f"no value for {', '.join(missing)}: `{g.name}` needs "
                         f"{'it' if len(missing) == 1 else 'them'}")
    a = Assignment()
    functions: dict[str, _PyMapFn] = {}
    for name, ty in binders:            # sizes first: the other values' lengths need them
        if isinstance(ty, NatT) and name in given:
            a.sizes[name] = _given_nat(f"`{name}` is a size (`Nat`)", given[name])
    for name, ty in binders:
        if isinstance(ty, NatT) or name not in given:
            continue
        x = given[name]
        if isinstance(ty, FinT):
            n = _given_size(name, ty, a.sizes)
            i = _given_nat(f"`{name}` is an index of `{ty}`", x)
            if i >= n:
                where = f"from 0 to {n - 1} at these sizes" if n else "none at these sizes"
                raise ValueError(f"`{name}` is an index of `{ty}` ({where}), not {i}")
            a.indices[name] = i
        elif isinstance(ty, RealT):
            a.reals[name] = _given_real(f"`{name}` is a real (`ℝ`)", x)
        elif isinstance(ty, VecT):
            a.tensors[name] = _given_vector(f"`{name}`", ty, _given_size(name, ty, a.sizes), x)
        elif isinstance(ty, FunT) and isinstance(ty.dom, FinT) and \
                isinstance(ty.cod, (VecT, RealT)):
            R = _given_size(name, ty.dom, a.sizes)
            if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__len__") or len(x) != R:
                raise ValueError(f"`{name}` is a `{ty}`: give a list of {R} members (one per "
                                 f"value of `{ty.dom}` at these sizes), not {_given(x)}")
            if isinstance(ty.cod, VecT):
                n = _given_size(name, ty.cod, a.sizes)
                a.families[name] = [_given_vector(f"`{name}`[{r}]", ty.cod, n, x[r])
                                    for r in range(R)]
                a.member_shapes[name] = (n,)
            else:
                a.families[name] = [_as_array(_given_real(f"`{name}`[{r}] is a real (`ℝ`)",
                                                          x[r])) for r in range(R)]
                a.member_shapes[name] = ()
        elif (shape := _map_widths(ty)) is not None:
            widths, out = shape
            ws = tuple(_given_size(name, w, a.sizes) for w in widths)
            out_n = _given_size(name, out, a.sizes)
            if isinstance(x, RandomMap):
                shapes = (np.shape(x.M), np.shape(x.P), np.shape(x.c))
                if shapes != ((out_n, sum(ws)), (out_n, sum(ws)), (out_n,)):
                    raise ValueError(f"`{name}` is a `{ty}`: its RandomMap needs M and P of "
                                     f"shape ({out_n}, {sum(ws)}) and c of ({out_n},) at "
                                     f"these sizes, not {shapes}")
                a.maps[name] = RandomMap(x.M, x.P, x.c, ws)
            elif callable(x):
                try:                        # (a wrong arity was the function's own TypeError)
                    inspect.signature(x).bind(*[None] * len(ws))
                except TypeError:
                    raise ValueError(f"`{name}` is a `{ty}`: its function is called with "
                                     f"{len(ws)} vector{'s' if len(ws) > 1 else ''} (one per "
                                     "`Vec` it takes), which the one given does not accept"
                                     ) from None
                except ValueError:          # (no signature to read: a builtin)
                    pass
                functions[name] = _PyMapFn(name, x, len(ws), out_n)
            else:
                raise ValueError(f"`{name}` is a `{ty}`: give a Python function (or a "
                                 f"RandomMap), not {_given(x)}")
        else:
            raise ValueError(f"`{name} : {ty}` cannot be given a value here")
    return a, functions


def _needed(g: GlobalDecl, binders: list[tuple[str, Ty]], given: set[str]) -> set[str]:
    """The binders whose values the statement reads, or a given value's type does (`Vec n`
    needs `n`), transitively.  Only these must be given: a binder nothing reads (one that only
    a hypothesis mentions, which is not checked; a witness's unused `∃ y`) cannot change the
    two sides."""
    types = dict(binders)
    todo = [n for n in {*T.free_names(g.stmt), *given} if n in types]  # type: ignore[arg-type]
    needed: set[str] = set()
    while todo:
        n = todo.pop()
        if n not in needed:
            needed.add(n)
            todo.extend(m for m in T.free_names(ty_to_term(types[n])) if m in types)
    return needed


def _given_names(theorem: str, binders: list[tuple[str, Ty]], values: dict[str, Any]
                 ) -> dict[str, Any]:
    """Each binder's value, by its name; a keyword as Python read it (NFKC: `ℓ=…` arrives as
    `l`) names the one binder it stands for.  Nothing but the binders may be given."""
    names = [n for n, _ in binders]
    given = {k: v for k, v in values.items() if k in names}
    for k, v in values.items():
        if k in given:
            continue
        same = [n for n in names if n not in given and
                unicodedata.normalize("NFKC", n) == unicodedata.normalize("NFKC", k)]
        if len(same) != 1:
            raise ValueError(f"`{k}` is not a binder of `{theorem}` (its binders: "
                             f"{', '.join(names) or 'none'})")
        given[same[0]] = v
    return given


def _given_size(name: str, ty: Ty, sizes: dict[str, int]) -> int:
    try:
        return _size_of_ty(ty, sizes)
    except (KeyError, arith.NotASize):
        raise ValueError(f"the length of `{name}` ({ty}) cannot be computed from the sizes "
                         "given") from None


def _given_nat(what: str, x: Any) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < 0:
        raise ValueError(f"{what}: give a natural number (an int), not {_given(x)}")
    return int(x)


def _is_number(x: Any) -> bool:
    """A finite real number (a NaN or an infinity is none: the seventieth review got raw
    `cannot convert NaN to integer ratio` and `OverflowError` naming no binder)."""
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (float, np.floating)):
        return bool(np.isfinite(x))
    if isinstance(x, (int, Fraction, np.integer)):
        return True
    return arith.is_exact(x) and bool(getattr(x, "is_number", False)) and x.is_real is True


def _given_real(what: str, x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if not _is_number(x):
        raise ValueError(f"{what}: give a number, not {_given(x)}")
    return x


def _given_vector(what: str, ty: Ty, n: int, x: Any) -> np.ndarray:
    """A vector of ``n`` numbers: a numeric numpy array as it is, anything else (a list of
    ints, Fractions, sympy numbers) as an object array, which the exact backend reads
    exactly."""
    need = f"{what} is a `{ty}`: give a 1-D array (or a list) of {n} numbers"
    if isinstance(x, np.ndarray):
        arr = x
    elif isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        raise ValueError(f"{need}, not {_given(x)}")
    else:
        items = list(x)
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
    if arr.ndim != 1:
        raise ValueError(f"{need}, not an array of shape {arr.shape}")
    if len(arr) != n:
        raise ValueError(f"{need} at these sizes, not {len(arr)}")
    if arr.dtype.kind not in "iufO":
        raise ValueError(f"{need}, not an array of {arr.dtype}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        k = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{need}: its entry {k} is {_given(arr[k])}")
    if arr.dtype == object:
        for k, e in enumerate(arr):
            if not _is_number(e):
                raise ValueError(f"{need}: its entry {k} is {_given(e)}")
    return arr


def _given(x: Any) -> str:
    """A value given to `sides` as an error message names it (its type, and its start)."""
    text = repr(x)
    return f"{type(x).__name__} {text if len(text) <= 40 else text[:37] + '…'}"


# How a refuted `≠`'s counterexample begins (the code it prints then says the sides are equal).
EQUAL_SIDES = "the two sides are equal, so the `≠` fails"


def _replica_sizes(g: GlobalDecl) -> set[str]:
    out = {"R", "N"}
    for _, ty in g.binders:
        if isinstance(ty, FunT) and isinstance(ty.dom, FinT) and isinstance(ty.dom.size, T.Var):
            out.add(ty.dom.size.name)
    return out


def _by_sum(vals: list[tuple[int, ...]]) -> Iterator[tuple[int, ...]]:
    """Every combination of the allowed values, lazily, in order of increasing sum.

    Lazy because a whole-network theorem has dozens of sizes: the full product would never fit,
    and only its smallest members are ever tried.
    """
    n = len(vals)
    smin = [0] * (n + 1)
    smax = [0] * (n + 1)
    for i in reversed(range(n)):
        smin[i] = smin[i + 1] + min(vals[i])
        smax[i] = smax[i + 1] + max(vals[i])

    def rec(i: int, rem: int) -> Iterator[tuple[int, ...]]:
        if i == n:
            if rem == 0:
                yield ()
            return
        for v in sorted(vals[i]):
            r = rem - v
            if smin[i + 1] <= r <= smax[i + 1]:
                for rest in rec(i + 1, r):
                    yield (v,) + rest

    for total in range(smin[0], smax[0] + 1):
        yield from rec(0, total)


def _size_schedule(g: GlobalDecl, plan: _Plan) -> Iterator[dict[str, int]]:
    """Size assignments, smallest first: replica and batch sizes ≥ 2 first, then 1, then 0.

    Zero is tried only for sizes no positivity hypothesis covers (a missing `0 < R` must be
    found: Lean's `1 / 0 = 0` makes `1 / R * (R * v) = v` false at R = 0).
    """
    names = plan.free_sizes
    if not names:           # one assignment only: several rounds of draws (a review's
        for _ in range(SIZE_FREE_ROUNDS):       # `[0 ≤ x] = [0 < x]` had three in all)
            yield {}
        return
    nonzero = nonzero_names([h for _, h in g.hyps] + binder_facts(g))
    rn = _replica_sizes(g)
    seen: set[tuple[int, ...]] = set()

    def fresh(combos: Iterator[tuple[int, ...]] | list[tuple[int, ...]]
              ) -> Iterator[dict[str, int]]:
        for c in combos:
            if c not in seen:
                seen.add(c)
                yield dict(zip(names, c))

    vals_a = [(2, 3) if n in rn else (1, 2, 3) for n in names]
    base = tuple(min(v) for v in vals_a)
    low = sum(base)
    yield from fresh(itertools.takewhile(lambda c: sum(c) <= low + 2, _by_sum(vals_a)))
    zeros = []
    for i, n in enumerate(names):
        if n not in nonzero:
            zeros.append(base[:i] + (0,) + base[i + 1:])
    yield from fresh(zeros)
    rn_pos = [i for i, n in enumerate(names) if n in rn]
    ones = []
    for k in range(1, len(rn_pos) + 1):
        for sub in itertools.combinations(rn_pos, k):
            ones.append(tuple(1 if i in sub else v for i, v in enumerate(base)))
    yield from fresh(ones)
    yield from fresh(_by_sum(vals_a))
    yield from fresh(_by_sum([(1, 2, 3)] * len(names)))
    yield from fresh(_by_sum([(0, 1, 2, 3) if n not in nonzero else (1, 2, 3) for n in names]))


_DRAWS = ("halves", "integers", "wide")
SIZE_FREE_ROUNDS = 16       # rounds of draws for a statement without sizes (the first as ever)
BREAKPOINT_SIZES = 8        # the first size assignments drawn again at the breakpoints


def _rounds(g: GlobalDecl, plan: _Plan) -> Iterator[tuple[int, dict[str, int], tuple[str, ...]]]:
    """The search's rounds: each size assignment with the usual draws; then, when nothing was
    found, the first few again with data at the breakpoints of relu, relu6 and the masks
    (`[0 < p ∧ p ≤ 6]` against `[0 < p ∧ p < 6]` differs at p = 6 only)."""
    first = []
    for ci, sizes in enumerate(_size_schedule(g, plan)):
        if ci < BREAKPOINT_SIZES:
            first.append((ci, sizes))
        yield ci, sizes, _DRAWS
    for ci, sizes in first:
        yield ci, sizes, ("breakpoints",) * 4


def find_counterexample(g: GlobalDecl, env: GlobalEnv, *, budget_seconds: float = 2.0,
                        seed: int = 0, witness: bool | None = None,
                        notes: list[str] | None = None) -> Counterexample | None:
    """Search for an assignment refuting theorem ``g`` (for a `≠` statement: a witness).

    Deterministic: sizes in a fixed order (smallest first), a few data draws per size from
    seeded generators, and a budget of evaluation WORK (``budget_seconds`` × WORK_PER_SECOND,
    about that many seconds on the reference machine), so the same input gets the same answer
    on any machine under any load.  Candidates are found in float mode and returned only once
    the exact evaluation of the same data agrees, so rounding never produces a refutation.
    None when nothing was found within the budget or the data is too large to evaluate
    (``notes`` then says so).  The clock is only a safety net (CLOCK_SAFETY × the budget, read
    between evaluations); when it stops the search, ``notes`` says so — that answer may differ
    on a faster machine.
    """
    span = int(budget_seconds * WORK_PER_SECOND)
    budget = (WORK[0] + span, time.monotonic() + CLOCK_SAFETY * budget_seconds, span)
    plan = _plan(g)
    if witness is None:
        witness = is_negative_statement(g)
    WORK_LIMIT[0] = budget[0]
    try:
        with np.errstate(all="ignore"):  # exp may overflow to inf: a value, not an error
            return _search(g, env, plan, witness, budget, seed, notes)
    except RecursionError:
        _note(notes, "no counterexample search: the statement is nested too deeply to evaluate")
        return None
    except MemoryError:
        _note(notes, "no counterexample search: its arrays do not fit in memory")
        return None
    finally:
        WORK_LIMIT[0] = float("inf")


# The search's budget: evaluation work per nominal second (measured on the reference 2-core
# machine: bench/ and docs/semantics.md), and the wall-clock safety net, a multiple of it.
WORK_PER_SECOND = 4_000_000
CLOCK_SAFETY = 10.0
CLOCK_NOTE = "the search stopped at its wall-clock safety limit (this answer may differ on " \
             "a faster machine)"


def _spent(budget: tuple[int, float, int], notes: list[str] | None) -> bool:
    """Is the search's budget spent?  (Work first; the clock only as a safety net.)"""
    if WORK[0] >= budget[0]:
        return True
    if time.monotonic() >= budget[1]:
        _note(notes, CLOCK_NOTE)
        return True
    return False





_NAT_LIMIT = 2.0 ** 62


def _nat_checked(r: np.ndarray, approx: np.ndarray) -> np.ndarray:
    """A natural-number result computed in int64, refused when it may have wrapped around (its
    float64 twin is past 2⁶²): `(-2) ^ 64 ≠ 2 ^ 64` once "held" at 2⁶⁴ ≡ 0."""
    if np.any(np.abs(approx) >= _NAT_LIMIT):
        raise EvalError("a natural number is too large to evaluate here (past 2^62)")
    return r


# Bounds on what the search evaluates, so that it ends (the clock is read only between
# evaluations, and one evaluation of a whole network at its real widths ran out of memory):
# data with more entries than FLOAT_ELEMENTS is not evaluated at all, and a float candidate is
# re-checked in exact arithmetic (Python objects per entry, growing with every layer) only up
# to EXACT_ELEMENTS entries.  Past either, the search skips that size and says why (`notes`).
FLOAT_ELEMENTS = 200_000
EXACT_ELEMENTS = 10_000          # = EXACT_CELLS: data past it could not be evaluated exactly
ARRAY_CELLS = 32_000_000         # one array the evaluator would form (∑ over Fin 15000 × Fin 15000)
# In exact arithmetic every entry is a sympy number: a small rational's operation takes about
# 4 µs, an irrational's (√, exp, sums of them) more, growing with its expression.  One
# exact array has at most EXACT_CELLS entries (the test suite's largest has 64); an exact entry
# counts EXACT_ENTRY_WORK units of work plus (bits)²/4096 for a rational, IRRATIONAL_WORK plus
# NODE_WORK per node of its expression tree for an irrational (`_entry_work`; a √ of a rational
# takes 0.5 ms), and an irrational whose expression has more than TREE_NODES nodes as a tree is
# refused (nested √ share their parts, and evalf and printing walk the tree), so that the
# work budget bounds
# the time of an exact re-check too (a ∑ over Fin 1000 × Fin 1000 of √ took 76 s of a 2 s
# budget when each entry counted 1; 2^(2^18)-bit powers and √ nested 14 deep, over 50 s).
EXACT_CELLS = 10_000
EXACT_ENTRY_WORK = 16
IRRATIONAL_WORK = 2_000
SIGN_WORK = 300                 # an irrational's sign from its digits: about 0.07 ms
ZERO_TEST_WORK = 4_000_000      # one nominal second: sympy's `equals(0)` within arith's bounds
SKIP_WORK = 40                  # a size assignment skipped for its data's size (~10 µs)
NODE_WORK = 1
TREE_NODES = 1_024       # an exact value's expression, as a tree (the nets' largest: 574)


def _fits(*shapes: tuple[int, ...], exact: bool = False) -> None:
    """Refuse to form an array past ARRAY_CELLS entries (index axes broadcast against data),
    or past EXACT_CELLS in exact arithmetic."""
    try:
        n = math.prod(np.broadcast_shapes(*shapes))
    except ValueError:                  # a dimension numpy cannot even describe (Fin 10²⁰)
        n = math.inf
    limit = EXACT_CELLS if exact else ARRAY_CELLS
    if n > limit:
        raise EvalError(f"an array of {n:,} entries is not evaluated"
                        f"{' in exact arithmetic' if exact else ''} (up to {limit:,})")


def _note(notes: list[str] | None, text: str) -> None:
    if notes is not None:
        notes.append(text)


def _entries_to_draw(g: GlobalDecl, plan: _Plan, sizes: dict[str, int]) -> int:
    """How many data entries ``g``'s binders take at these sizes, counted before any is drawn
    (`Vec 1000000000` would otherwise be allocated first: 8 GB); 0 when it cannot be told."""
    try:
        sz, n = _resolve_sizes(plan, sizes), 0
        for _, ty in g.binders:
            if isinstance(ty, VecT):
                n += _size_of_ty(ty, sz)
            elif isinstance(ty, FunT) and isinstance(ty.dom, FinT):
                n += _size_of_ty(ty.dom, sz) * (_size_of_ty(ty.cod, sz)
                                                if isinstance(ty.cod, VecT) else 1)
            elif (shape := _map_widths(ty)) is not None:   # a random map: two n × m matrices
                widths, out = shape
                m, k = sum(_size_of_ty(w, sz) for w in widths), _size_of_ty(out, sz)
                n += 2 * k * m + k
        return n
    except (EvalError, KeyError, arith.NotASize):
        return 0


def _elements(a: Assignment) -> int:
    return sum(int(np.size(v)) for v in a.tensors.values()) + \
        sum(int(np.size(x)) for fam in a.families.values() for x in fam) + \
        sum(int(np.size(f.M) + np.size(f.P) + np.size(f.c)) for f in a.maps.values())


def _search(g: GlobalDecl, env: GlobalEnv, plan: _Plan, witness: bool,
            budget: tuple[int, float, int], seed: int, notes: list[str] | None = None
            ) -> Counterexample | None:
    said: set[str] = set()

    def once(bound: str, text: str) -> None:     # each bound that skipped a size is said once
        if bound not in said:
            said.add(bound)
            _note(notes, text)

    def skip(entries: int) -> None:      # sizes are not tried in data order (N = 2 before 1)
        once("float", f"the search skips sizes whose data has more than {FLOAT_ELEMENTS:,} "
                      f"entries (the first skipped: {entries:,})")

    def failed(sizes: dict[str, int], e: EvalError, exact: bool) -> None:
        # An evaluation that fails ends this size's draws (a float one) or drops a candidate
        # (an exact one): said once each, with the first size and why (the sixty-eighth review:
        # the search stopped on the work budget and the verdict said nothing of it).
        at = ", ".join(f"{k} = {v}" for k, v in sizes.items())
        why = str(e) if len(str(e)) <= 200 else str(e)[:199] + "…"
        if exact:
            what = "witness" if witness else "counterexample"
            once("exact-eval", f"a candidate {what} was found in floating point"
                               f"{f' at {at}' if at else ''}, but its exact re-check could not "
                               f"be evaluated: {why}")
        elif str(e) == BUDGET_RAN_OUT:
            secs = budget[2] / WORK_PER_SECOND
            # (the budget is the search's, in all: the seventy-fifth review read "one
            # evaluation … exceeded" of an empty one that merely came last)
            once("budget", f"the search stopped: its work budget ({secs:g} nominal "
                           f"second{'' if secs == 1 else 's'}, `--search-seconds`) ran out "
                           f"during an evaluation{f' at {at}' if at else ''}")
        elif at:
            once("float-eval", f"the search skipped sizes it could not evaluate (the first: "
                               f"{at}: {why})")
        else:
            once("float-eval", f"the search could not evaluate the statement: {why}")
    for ci, sizes, kinds in _rounds(g, plan):
        entries = _entries_to_draw(g, plan, sizes)
        if entries > FLOAT_ELEMENTS:
            skip(entries)
            WORK[0] += SKIP_WORK        # (uncharged, 4¹² skipped sizes took 170 s and 2.9 GB:
            if _spent(budget, notes):   # the forty-ninth review)
                return None
            continue
        for di, data in enumerate(kinds):
            if _spent(budget, notes):
                return None
            rng = np.random.default_rng([seed, ci, di if data != "breakpoints" else 7 + di])
            try:
                base = _draw_base(g, env, plan, sizes, rng, data)
                if base is None:
                    break
                if _elements(base) > FLOAT_ELEMENTS:
                    skip(_elements(base))
                    break
                af = _complete(g, env, plan, base, "float")
                if af is None:
                    continue
                hit = _locate(g, env, af, "float", witness)
            except EvalError as e:
                failed(sizes, e, exact=False)
                break
            if hit is None:
                continue
            if time.monotonic() >= budget[1]:     # a candidate is re-checked whatever its work
                _note(notes, CLOCK_NOTE)
                return None
            if _elements(base) > EXACT_ELEMENTS:      # (a smaller size may come later)
                once("exact", f"a candidate counterexample was found in floating point, but its "
                              f"data has {_elements(base):,} entries, too many to re-check in "
                              f"exact arithmetic (up to {EXACT_ELEMENTS:,})")
                break
            # A candidate found late in the budget still gets its exact re-check: up to one
            # more budget's work (then the search ends at the next `_spent`).
            WORK_LIMIT[0] = max(budget[0], WORK[0] + budget[2])
            confirm_from, degenerate_from = WORK[0], DEGENERATE[0]
            try:
                ae = _complete(g, env, plan, base, "exact")
                if ae is None:
                    continue
                cx = _locate(g, env, ae, "exact", witness)
            except EvalError as e:
                failed(sizes, e, exact=True)
                continue
            finally:
                WORK_LIMIT[0] = budget[0]
            if cx is not None:      # the smallest sizes and plainest data that still refute
                from .shrink import shrink
                return shrink(g, env, plan, witness, seed, budget, base, cx,
                              WORK[0] - confirm_from, notes, DEGENERATE[0] - degenerate_from)
    return None


# A zero test anywhere in an evaluation (max-pool's exact comparisons in numeric_ops too) is
# charged before sympy runs it.
arith.ZERO_TEST_CHARGE[0] = lambda: _charge(ZERO_TEST_WORK)
