"""Evaluate a normal form (:mod:`.nf`) at concrete data.

The normal form is the engine's claim about what a term means; this module gives that claim a
number so that it can be checked against the reference semantics (:mod:`shardproof.semantics`)
and against brute force in the rule property tests.  It reads nothing but the normal form and the
concrete data in an :class:`NFEnv`, and it follows the same conventions as the reference
semantics (Lean's): ``x / 0 = 0`` (so ``x⁻¹ = 0`` at 0, and a negative power of 0 is 0),
``sqrt x = 0`` for ``x < 0``.

Atoms:

* ``Size`` / ``Scalar``: looked up in ``sizes`` / ``scalars`` (a ``Size`` whose name is an index
  variable in scope — an index used as a real — reads the index value);
* ``Acc(name, (i₁, …, i_k))``: ``tensors[name][i₁]`` when ``k = 1``; otherwise a family member
  ``families[name][i₁]…[i_k]`` (a family of reals ``Fin R → ℝ`` is read with ``k = 1`` from
  ``families`` when ``name`` is not a tensor);
* ``Fn``: ``sqrt`` (0 for negatives), ``exp``, or a Python callable from ``functions``;
* ``Pos`` / ``EqZ``: the indicators ``[d > 0]`` and ``[d = 0]``;
* ``SumA``: iterates its binders' ranges (bounds are integer polynomials of the sizes);
* ``InvP`` / ``Rec``: reciprocals with ``1 / 0 = 0``;
* ``Op``: the opaque op through :func:`shardproof.numeric_ops.apply` (``LamNF`` arguments are
  materialised as flat arrays: each binder ranges over its bound, the flat position is the mixed
  radix of the binders in order), or a callable from ``functions`` for an uninterpreted map
  (called with the materialised arguments, sizes not passed); the result is read at ``out``;
* ``Jac(name, sizes, args, out, inp)``: entry ``(out, inp)`` of
  :func:`shardproof.numeric_ops.linear_matrix` at the op's non-linear arguments.

Exact mode (the default) computes with :class:`fractions.Fraction`; a value that is not rational
(``sqrt`` of a non-square, ``exp`` of a nonzero number) falls back to a float, and everything
computed from it is then a float.  Values of atoms are cached by the values of their free
variables, and op results and Jacobian matrices by their materialised arguments, so evaluating a
normal form at every output index of a small instance stays cheap.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .ipoly import IPoly
from .nf import Acc, Atom, EqZ, Fn, InvP, Jac, LamNF, Op, Poly, Pos, Rec, Scalar, Size, SumA

Number = Any  # Fraction | float | int

__all__ = [
    "FreeIndex",
    "NFEnv",
    "NFEvalError",
    "NFEvaluator",
    "SideNF",
    "bind_index",
    "env_from_assignment",
    "eval_ipoly",
    "eval_poly",
    "statement_normal_forms",
    "to_number",
]


class NFEvalError(Exception):
    """The normal form cannot be evaluated here (a missing value, an index out of range, …)."""


@dataclass
class NFEnv:
    """Concrete data for the free names of a normal form.

    ``families[name]`` is indexable once per family level (``families[name][r][i]``);
    ``indices`` holds the values of free index variables (including the leaf variables
    ``name.k`` the prover introduces for an index of a product type, see :func:`bind_index`);
    ``functions`` maps the name of an uninterpreted ``Op`` or ``Fn`` to a Python callable.
    """

    sizes: dict[str, int] = field(default_factory=dict)
    scalars: dict[str, Number] = field(default_factory=dict)
    tensors: dict[str, Any] = field(default_factory=dict)
    families: dict[str, Any] = field(default_factory=dict)
    indices: dict[str, int] = field(default_factory=dict)
    functions: dict[str, Callable[..., Any]] = field(default_factory=dict)
    exact: bool = True


# --------------------------------------------------------------------------- numbers

def to_number(x: Any, exact: bool = True) -> Number:
    """A Python number for ``x`` (numpy scalars, sympy rationals, ints, floats, Fractions)."""
    if isinstance(x, Fraction):
        return x if exact else float(x)
    if isinstance(x, (bool, np.bool_)):
        return Fraction(int(x)) if exact else float(x)
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x)) if exact else float(x)
    if isinstance(x, (float, np.floating)):
        return Fraction(float(x)) if exact else float(x)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return to_number(x[()], exact)
    # sympy numbers (and anything else with a rational reading)
    p, q = getattr(x, "p", None), getattr(x, "q", None)
    if isinstance(p, int) and isinstance(q, int):
        return Fraction(p, q) if exact else p / q
    try:
        return float(x)
    except TypeError as exc:  # pragma: no cover - defensive
        raise NFEvalError(f"not a number: {x!r}") from exc


def _inv(x: Number) -> Number:
    return x * 0 if x == 0 else 1 / x


def _power(x: Number, e: int) -> Number:
    if e >= 0:
        return x ** e
    if x == 0:
        return x * 0   # Lean: 0⁻¹ = 0, so 0^(-k) = 0
    return (1 / x) ** (-e)


def _sqrt(x: Number) -> Number:
    if x <= 0:
        return x * 0
    if isinstance(x, Fraction):
        n, d = x.numerator, x.denominator
        rn, rd = math.isqrt(n), math.isqrt(d)
        if rn * rn == n and rd * rd == d:
            return Fraction(rn, rd)
    return math.sqrt(x)


def _exp(x: Number) -> Number:
    if x == 0:
        return x * 0 + 1
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def eval_ipoly(p: IPoly, vals: dict[str, int]) -> int:
    """The integer value of an index/size polynomial."""
    total = 0
    for m, c in p.terms:
        term = c
        for v, e in m:
            try:
                term *= vals[v] ** e
            except KeyError:
                raise NFEvalError(f"no value for the index/size variable `{v}` "
                                  f"(in {p})") from None
        total += term
    return total


def bind_index(env: NFEnv, name: str, leaves: list[IPoly], value: int) -> None:
    """Bind a free index of a product type the way the prover names it.

    The prover (``prove.free_index``) writes an index ``name : Fin (a₁ * … * a_k)`` as the mixed
    radix ``name.0 · … + name.(k−1)`` over the leaves, with no variable for a leaf that is the
    constant 1; a single leaf is the variable ``name`` itself.
    """
    vals = dict(env.sizes)
    if len(leaves) == 1:
        env.indices[name] = value
        return
    radices = [eval_ipoly(b, vals) for b in leaves]
    digits = []
    rest = value
    for r in reversed(radices):
        digits.append(rest % r if r else 0)
        rest = rest // r if r else 0
    digits.reverse()
    for k, (b, d) in enumerate(zip(leaves, digits)):
        if not (b.is_const() and b.const_value() == 1):
            env.indices[f"{name}.{k}"] = d


def env_from_assignment(a: Any, exact: bool = True) -> NFEnv:
    """An :class:`NFEnv` with the data of a ``semantics.Assignment`` (read by attribute)."""
    env = NFEnv(exact=exact)
    env.sizes = {k: int(v) for k, v in a.sizes.items()}
    env.scalars = {k: to_number(v, exact) for k, v in a.reals.items()}
    env.tensors = {k: np.asarray(v) for k, v in a.tensors.items()}
    env.families = {k: [np.asarray(x) for x in v] for k, v in a.families.items()}
    env.indices = {k: int(v) for k, v in a.indices.items()}
    for k, m in getattr(a, "maps", {}).items():
        env.functions[k] = m
    return env


# --------------------------------------------------------------------------- the evaluator

class NFEvaluator:
    """Evaluates normal forms under one :class:`NFEnv`, caching atoms, ops and matrices.

    Reuse one evaluator for many normal forms over the same data (both sides of an equation, at
    every output index): the caches are keyed by the values of each atom's free variables, so
    they stay valid when free indices are rebound with :meth:`set_index`.
    """

    def __init__(self, env: NFEnv) -> None:
        self.env = env
        self.exact = env.exact
        self.vals: dict[str, int] = {**{k: int(v) for k, v in env.sizes.items()},
                                     **{k: int(v) for k, v in env.indices.items()}}
        self.scalars = {k: to_number(v, self.exact) for k, v in env.scalars.items()}
        self._tensors: dict[str, list[Number]] = {}
        self._fam: dict[tuple[str, tuple[int, ...]], list[Number]] = {}
        self._atom_cache: dict[tuple, Number] = {}
        self._fv_order: dict[Atom, tuple[str, ...]] = {}
        self._op_cache: dict[tuple, Any] = {}
        self._jac_cache: dict[tuple, Any] = {}
        self._lam_cache: dict[tuple, Any] = {}

    # ---- public
    def set_index(self, name: str, value: int) -> None:
        self.vals[name] = int(value)

    def poly(self, p: Poly) -> Number:
        zero: Number = Fraction(0) if self.exact else 0.0
        total = zero
        for m, c in p.terms:
            total = total + self._coef(c) * self.mono(m)
        return total

    def mono(self, m: Iterable[tuple[Atom, int]]) -> Number:
        out: Number = Fraction(1) if self.exact else 1.0
        for a, e in m:
            v = self.atom(a)
            out = out * (v if e == 1 else _power(v, e))
            if out == 0:
                return out
        return out

    def atom(self, a: Atom) -> Number:
        order = self._fv_order.get(a)
        if order is None:
            order = tuple(sorted(a.fv))
            self._fv_order[a] = order
        try:
            key = (a, tuple(self.vals[v] for v in order))
        except KeyError as exc:
            raise NFEvalError(f"no value for the variable `{exc.args[0]}` of {a!r}") from None
        hit = self._atom_cache.get(key)
        if hit is None:
            hit = self._atom(a)
            self._atom_cache[key] = hit
        return hit

    # ---- helpers
    def _coef(self, c: Fraction) -> Number:
        return c if self.exact else float(c)

    def _num(self, x: Any) -> Number:
        return to_number(x, self.exact)

    def _tensor(self, name: str) -> list[Number]:
        t = self._tensors.get(name)
        if t is None:
            arr = self.env.tensors[name]
            t = [self._num(x) for x in np.asarray(arr).reshape(-1)]
            self._tensors[name] = t
        return t

    def _family(self, name: str, path: tuple[int, ...]) -> Any:
        key = (name, path)
        hit = self._fam.get(key)
        if hit is not None:
            return hit
        cur: Any = self.env.families[name]
        for k, i in enumerate(path):
            n = len(cur)
            if not 0 <= i < n:
                raise NFEvalError(f"family `{name}` read at replica {i} (level {k}) of {n}")
            cur = cur[i]
        arr = np.asarray(cur)
        out = self._num(arr) if arr.ndim == 0 else [self._num(x) for x in arr.reshape(-1)]
        self._fam[key] = out
        return out

    def _atom(self, a: Atom) -> Number:
        if isinstance(a, Size):
            if a.name in self.vals:
                return self._num(self.vals[a.name])
            raise NFEvalError(f"no value for the size `{a.name}`")
        if isinstance(a, Scalar):
            if a.name not in self.scalars:
                raise NFEvalError(f"no value for the scalar `{a.name}`")
            return self.scalars[a.name]
        if isinstance(a, Acc):
            return self._acc(a)
        if isinstance(a, SumA):
            return self._sum(a)
        if isinstance(a, Fn):
            args = [self.poly(x) for x in a.args]
            if a.name == "sqrt" and len(args) == 1:
                return _sqrt(args[0])
            if a.name == "exp" and len(args) == 1:
                return _exp(args[0])
            f = self.env.functions.get(a.name)
            if f is None:
                raise NFEvalError(f"no meaning for the scalar function `{a.name}`")
            return self._num(f(*args))
        if isinstance(a, Pos):
            d = self.poly(a.d)
            return self._num(1 if d > 0 else 0)
        if isinstance(a, EqZ):
            d = self.poly(a.d)
            return self._num(1 if d == 0 else 0)
        if isinstance(a, InvP):
            return _inv(self.poly(a.p))
        if isinstance(a, Rec):
            return _inv(self.atom(a.a))
        if isinstance(a, Op):
            return self._op(a)
        if isinstance(a, Jac):
            return self._jac(a)
        raise NFEvalError(f"unknown atom {a!r}")  # pragma: no cover

    def _acc(self, a: Acc) -> Number:
        idx = [eval_ipoly(p, self.vals) for p in a.idx]
        if len(idx) == 1 and a.name in self.env.tensors:
            t = self._tensor(a.name)
            i = idx[0]
            if not 0 <= i < len(t):
                raise NFEvalError(f"`{a.name}` (length {len(t)}) read at {i} = {a.idx[0]}")
            return t[i]
        if a.name in self.env.families:
            fam = self._family(a.name, tuple(idx[:-1]))
            if isinstance(fam, list):
                i = idx[-1]
                if not 0 <= i < len(fam):
                    raise NFEvalError(f"`{a.name}{list(idx[:-1])}` (length {len(fam)}) read "
                                      f"at {i}")
                return fam[i]
            return self._family(a.name, tuple(idx))  # a family of reals
        raise NFEvalError(f"no value for the tensor or family `{a.name}`")

    def _sum(self, a: SumA) -> Number:
        names = [b for b, _ in a.binders]
        ranges = [eval_ipoly(bd, self.vals) for _, bd in a.binders]
        total: Number = Fraction(0) if self.exact else 0.0
        if any(r <= 0 for r in ranges):
            return total
        saved = {b: self.vals[b] for b in names if b in self.vals}
        try:
            for point in itertools.product(*(range(r) for r in ranges)):
                for b, v in zip(names, point):
                    self.vals[b] = v
                total = total + self.mono(a.body)
        finally:
            for b in names:
                if b in saved:
                    self.vals[b] = saved[b]
                else:
                    self.vals.pop(b, None)
        return total

    # ---- opaque ops
    def _lam(self, lam: LamNF) -> np.ndarray:
        fvs = tuple(sorted(lam.fv))
        key = (lam.key, tuple(self.vals.get(v) for v in fvs))
        hit = self._lam_cache.get(key)
        if hit is not None:
            return hit
        names = [b for b, _ in lam.binders]
        ranges = [eval_ipoly(bd, self.vals) for _, bd in lam.binders]
        saved = {b: self.vals[b] for b in names if b in self.vals}
        out: list[Number] = []
        try:
            for point in itertools.product(*(range(r) for r in ranges)):
                for b, v in zip(names, point):
                    self.vals[b] = v
                out.append(self.poly(lam.body))
        finally:
            for b in names:
                if b in saved:
                    self.vals[b] = saved[b]
                else:
                    self.vals.pop(b, None)
        arr = self._array(out)
        self._lam_cache[key] = arr
        return arr

    def _array(self, xs: list[Number]) -> np.ndarray:
        if self.exact:
            arr = np.empty(len(xs), dtype=object)
            arr[:] = xs
            return arr
        return np.asarray(xs, dtype=np.float64)

    def _arg(self, x: Any) -> Any:
        if isinstance(x, LamNF):
            return self._lam(x)
        return self.poly(x)

    @staticmethod
    def _arg_key(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            return (v.dtype.str, tuple(v.tolist()))
        return v

    def _op(self, a: Op) -> Number:
        sizes = tuple(eval_ipoly(s, self.vals) for s in a.sizes)
        args = [self._arg(x) for x in a.args]
        key = (a.name, sizes, tuple(self._arg_key(v) for v in args))
        res = self._op_cache.get(key)
        if res is None:
            from .. import numeric_ops
            if a.name in self.env.functions:
                res = np.asarray(self.env.functions[a.name](*args))
            elif a.name in numeric_ops.OPS:
                res = numeric_ops.apply(a.name, sizes, args)
            else:
                raise NFEvalError(f"no meaning for the op `{a.name}` (not in numeric_ops.OPS "
                                  "and no callable in NFEnv.functions)")
            res = np.asarray(res).reshape(-1)
            self._op_cache[key] = res
        i = eval_ipoly(a.out, self.vals)
        if not 0 <= i < len(res):
            raise NFEvalError(f"`{a.name}` (output length {len(res)}) read at {i}")
        return self._num(res[i])

    def _jac(self, a: Jac) -> Number:
        from .. import numeric_ops
        sizes = tuple(eval_ipoly(s, self.vals) for s in a.sizes)
        args = [self._arg(x) for x in a.args]
        key = (a.name, sizes, tuple(self._arg_key(v) for v in args))
        M = self._jac_cache.get(key)
        if M is None:
            if a.name not in numeric_ops.OPS:
                raise NFEvalError(f"no matrix for the linear op `{a.name}`")
            M = numeric_ops.linear_matrix(a.name, sizes, args)
            self._jac_cache[key] = M
        i, j = eval_ipoly(a.out, self.vals), eval_ipoly(a.inp, self.vals)
        if not (0 <= i < M.shape[0] and 0 <= j < M.shape[1]):
            raise NFEvalError(f"Jacobian of `{a.name}` {M.shape} read at ({i}, {j})")
        return self._num(M[i, j])


def eval_poly(p: Poly, env: NFEnv) -> Number:
    """The value of normal form ``p`` at the data of ``env`` (Fraction in exact mode if possible)."""
    return NFEvaluator(env).poly(p)


# --------------------------------------------------------------------------- theorem sides

@dataclass
class FreeIndex:
    """A free index the prover introduced: ``name`` (its leaves ``name.k``) ranging over
    ``size`` (a size term); ``source`` is the statement's name for it (a `∀`-bound index), or
    None for an output index / replica of an equation between vectors or families."""

    name: str
    size: Any
    leaves: list[IPoly]
    source: str | None = None


@dataclass
class SideNF:
    """The two sides of one equation of a statement, with their normal forms.

    The normal forms depend on ``indices`` in order: ``replica`` (an equation between families:
    both sides are applied to it) and ``output`` (an equation between vectors: both sides are
    read at it), plus the `∀`-bound indices of the statement.
    """

    lhs: Any
    rhs: Any
    ty: Any
    nf_lhs: Poly
    nf_rhs: Poly
    indices: list[FreeIndex]
    replica: FreeIndex | None = None
    output: FreeIndex | None = None
    fixed: dict[str, int] = field(default_factory=dict)

    def bind(self, env: NFEnv, positions: dict[str, int]) -> bool:
        """Bind the free indices in ``env``: ``positions`` by source name, ``"@out"`` for the
        output index, ``"@rep"`` for the replica.  False when the positions fall outside this
        side's case (a case split fixed a leaf of the output index to another value)."""
        for fi in self.indices:
            if fi.source is not None:
                key = fi.source
            else:
                key = "@out" if fi is self.output else "@rep"
            bind_index(env, fi.name, fi.leaves, positions[key])
        return all(env.indices.get(v) == k for v, k in self.fixed.items())


def statement_normal_forms(g: Any, genv: Any, fuel: int = 200_000, unroll: bool = False
                           ) -> tuple[list[SideNF], Any]:
    """Normalise every equation of theorem ``g`` the way ``prove.Prover`` does (``by norm``).

    Returns the sides and the :class:`~.nf.NFContext` (rules used, bounds).  Where the prover
    splits cases on a small leaf of the output index (rule `case_split_index`), there is one
    :class:`SideNF` per case, with the leaf's value in ``fixed``.  Raises
    ``NotImplementedError`` for statements outside equations of reals, vectors and replica
    families under `∧` and `∀ (i : Fin n)`, and the engine's own exceptions (``EngineGap``)
    where the normaliser gives up.  ``unroll``: as the prover's second attempt, which writes a
    `∑` over `Fin 2` … `Fin 4` out term by term.
    """
    from .. import terms as T
    from ..prove import Prover, free_index, theorem_env
    from ..types import FinT, FunT, RealT, VecT
    from .normalize import CaseSplit, size_leaves

    pr = Prover(g, genv, fuel)
    nz = pr.nz
    nz.unroll = unroll                 # (the prover's second attempt: `∑` over `Fin 2` … `Fin 4`)
    env = theorem_env(g, nz)
    out: list[SideNF] = []

    def mk_index(name: str, size: Any, env_: dict, source: str | None) -> tuple[IPoly, FreeIndex]:
        leaves = [nz.nat(s, env_) for s in size_leaves(size)]
        p = free_index(name, size, nz, env_)
        return p, FreeIndex(name, size, leaves, source)

    def at_both(t: Any, ty: Any, ta: Any, tb: Any, p: IPoly, indices: list[FreeIndex],
                ri: FreeIndex | None, fi: FreeIndex, fixed: dict[str, int]) -> None:
        try:
            a, b = ta.at(p), tb.at(p)
        except CaseSplit as cs:  # as prove.Prover.compare_at
            if cs.var not in p.vars() or len(fixed) > 3:
                raise
            pr.ctx.use("case_split_index", f"{cs.var} ∈ {{0, …, {cs.bound - 1}}}")
            for k in range(cs.bound):
                at_both(t, ty, ta, tb, p.subst({cs.var: IPoly.const(k)}), indices, ri, fi,
                        {**fixed, cs.var: k})
            return
        out.append(SideNF(t.lhs, t.rhs, ty, a, b, indices, replica=ri, output=fi,
                          fixed=dict(fixed)))

    def walk(t: Any, env_: dict, bound: list[FreeIndex], path: tuple[int, ...] = ()) -> None:
        if isinstance(t, T.And):
            walk(t.lhs, env_, bound, path + (0,))
            walk(t.rhs, env_, bound, path + (1,))
            return
        if isinstance(t, T.Forall):
            env2 = dict(env_)
            b2 = list(bound)
            for b in t.binders:
                if not (isinstance(b.ty, T.App) and b.ty.fn == T.Var("Fin")):
                    raise NotImplementedError(f"∀ over `{b.name}` that is not an index")
                pr.counter += 1
                p, fi = mk_index(f"{b.name}@{pr.counter}", b.ty.args[0], env2, b.name)
                env2[b.name] = p
                b2.append(fi)
            walk(t.body, env2, b2, path + (0,))
            return
        if isinstance(t, T.Cmp) and t.op == "=":
            ty = g.prop_types.get(path)
            if isinstance(ty, RealT) or ty is None:
                out.append(SideNF(t.lhs, t.rhs, ty, nz.real(t.lhs, env_), nz.real(t.rhs, env_),
                                  list(bound)))
                return
            if isinstance(ty, VecT):
                pr.counter += 1
                p, fi = mk_index(f"@i{pr.counter}", ty.size, env_, None)
                at_both(t, ty, nz.tensor(t.lhs, env_), nz.tensor(t.rhs, env_), p,
                        list(bound) + [fi], None, fi, {})
                return
            if isinstance(ty, FunT) and isinstance(ty.dom, FinT) and \
                    isinstance(ty.cod, (VecT, RealT)):
                fa = nz.value(t.lhs, env_, None)
                fb = nz.value(t.rhs, env_, None)
                pr.counter += 1
                r, ri = mk_index(f"@r{pr.counter}", ty.dom.size, env_, None)
                va, vb = fa(r), fb(r)
                if isinstance(ty.cod, RealT):
                    out.append(SideNF(t.lhs, t.rhs, ty, va, vb, list(bound) + [ri], replica=ri))
                    return
                pr.counter += 1
                p, fi = mk_index(f"@i{pr.counter}", ty.cod.size, env_, None)
                at_both(t, ty, va, vb, p, list(bound) + [ri, fi], ri, fi, {})
                return
        raise NotImplementedError(f"statement part {type(t).__name__} "
                                  f"{getattr(t, 'op', '')}")

    top: list[FreeIndex] = []
    for name, ty in g.binders:
        if isinstance(ty, FinT):
            top.append(FreeIndex(name, ty.size, [nz.nat(s, env) for s in size_leaves(ty.size)],
                                 name))
    assert g.stmt is not None
    walk(g.stmt, env, top)
    return out, pr.ctx
