"""Normalisation by evaluation: elaborated terms → normal forms (:mod:`.nf`).

A term is evaluated in an environment of *values*: sizes and indices are integer polynomials,
reals are normal-form polynomials, a vector is a :class:`TVal` that can be read at any
polynomial index, a function (a family ``Fin R → Vec n``, a per-example map, a partial
application) is an :class:`FVal`.  Definitions are unfolded when applied (rule `unfold`),
hypotheses ``∀ r, e r = …`` replace the family they describe (rule `hyp`), and reading a
``fun (i : Fin a) (j : Fin b) => body`` at a flat index splits the index into its digits
(`access_decompose`): ``p = i·b + j`` with ``0 ≤ j < b`` shown by range analysis, never ``div``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from .. import terms as T
from ..pretty import pretty
from ..types import GlobalDecl, GlobalEnv, NatT
from .ipoly import IPoly, ONE as IONE, ZERO as IZERO, below
from .nf import (ONE, ZERO, Acc, Fn, Jac, NFContext, Op, Poly, Scalar, bound_as_poly,
                 canonical_lam, fresh, indicator_eqz, indicator_pos, inverse, mk_sum)


SUM_UNROLL = 4     # a `∑` over `Fin 2` … `Fin 4` is written term by term (as the kernel's)


class EngineGap(Exception):
    """Something the normaliser cannot do (reported as `unknown`, never guessed)."""


class CaseSplit(EngineGap):
    """An index comparison depends on a variable with a small constant range: split on it."""

    def __init__(self, var: str, bound: int, what: str) -> None:
        super().__init__(what)
        self.var, self.bound = var, bound


# --------------------------------------------------------------------------- values

class TVal:
    """A vector value: its size and how to read it at a polynomial index."""

    size: IPoly

    def at(self, p: IPoly) -> Poly:
        raise NotImplementedError


class VarT(TVal):
    def __init__(self, name: str, fam: tuple[IPoly, ...], size: IPoly) -> None:
        self.name, self.fam, self.size = name, fam, size

    def at(self, p: IPoly) -> Poly:
        return Poly.atom(Acc(self.name, self.fam + (p,)))


class FnT(TVal):
    """A vector given by a Python function of the index (built-in vector arithmetic)."""

    def __init__(self, size: IPoly, f: Callable[[IPoly], Poly]) -> None:
        self.size, self.f = size, f

    def at(self, p: IPoly) -> Poly:
        return self.f(p)


class LamT(TVal):
    """``fun (i₁ : Fin B₁) … => body`` read by splitting the index into digits."""

    def __init__(self, nz: "Normaliser", binders: list[tuple[str, IPoly]], body: T.Term,
                 env: dict[str, Any]) -> None:
        self.nz, self.binders, self.body, self.env = nz, binders, body, env
        size = IONE
        for _, b in binders:
            size = size * b
        self.size = size
        self._cache: dict[IPoly, Poly] = {}

    def at(self, p: IPoly) -> Poly:
        hit = self._cache.get(p)
        if hit is not None:
            return hit
        digits = self.nz.decompose(p, [b for _, b in self.binders])
        env = dict(self.env)
        for (name, _), d in zip(self.binders, digits):
            env[name] = d
        out = self.nz.real(self.body, env)
        self._cache[p] = out
        return out


class OpT(TVal):
    """An opaque per-example op applied to its arguments."""

    def __init__(self, nz: "Normaliser", name: str, sizes: tuple[IPoly, ...],
                 args: list[tuple[str, Any, T.Term]], linear_in: str | None, size: IPoly) -> None:
        self.nz, self.name, self.sizes, self.args = nz, name, sizes, args
        self.linear_in, self.size = linear_in, size
        self._nf_args: tuple | None = None

    def nf_args(self) -> tuple:
        if self._nf_args is None:
            self._nf_args = tuple(self.nz.arg_nf(v, ty) for n, v, ty in self.args
                                  if n != self.linear_in)
        return self._nf_args

    def at(self, p: IPoly) -> Poly:
        ctx = self.nz.ctx
        if self.linear_in is None:
            return Poly.atom(Op(self.name, self.sizes, self.nf_args(), p))
        dy = next(v for n, v, _ in self.args if n == self.linear_in)
        dy_ty = next(ty for n, _, ty in self.args if n == self.linear_in)
        leaves = self.nz.leaf_bounds(dy_ty)
        names = [fresh() for _ in leaves]
        for n, b in zip(names, leaves):
            ctx.bounds[n] = b
        flat = IPoly.var(names[0])
        for n, b in zip(names[1:], leaves[1:]):
            flat = flat * b + IPoly.var(n)
        ctx.use("linear_jacobian", None)
        body = Poly.atom(Jac(self.name, self.sizes, self.nf_args(), p, flat)) * dy.at(flat)
        return mk_sum(list(zip(names, leaves)), body, ctx)


class FVal:
    """A function value: ``kind`` of its argument (`nat`, `real`, `tensor`, `fun`)."""

    def __init__(self, kind: str, f: Callable[[Any], Any], dom_ty: T.Term | None = None) -> None:
        self.kind, self.f, self.dom_ty = kind, f, dom_ty

    def __call__(self, x: Any) -> Any:
        return self.f(x)


def kind_of(ty: T.Term | None) -> str:
    """The value kind a declared type asks for."""
    if ty is None:
        return "real"
    if isinstance(ty, T.Var):
        return {"Nat": "nat", "ℕ": "nat", "ℝ": "real", "Real": "real", "Prop": "prop"}.get(
            ty.name, "real")
    if isinstance(ty, T.App) and isinstance(ty.fn, T.Var):
        return {"Vec": "tensor", "Fin": "nat"}.get(ty.fn.name, "real")
    if isinstance(ty, T.Arrow):
        return "fun"
    return "real"


def size_leaves(t: T.Term) -> list[T.Term]:
    """The factors of a size's product tree: ``(R * N) * (c * (h * w))`` → R, N, c, h, w."""
    if isinstance(t, T.BinOp) and t.op == "*":
        return size_leaves(t.lhs) + size_leaves(t.rhs)
    return [t]


# --------------------------------------------------------------------------- the normaliser

class Normaliser:
    def __init__(self, env: GlobalEnv, ctx: NFContext,
                 size_subst: tuple[tuple[str, T.Term], ...] = ()) -> None:
        self.genv = env
        self.ctx = ctx
        self.size_subst = dict(size_subst)
        self._closed_nat: dict[T.Term, IPoly] = {}
        self.unroll = False            # write a `∑` over `Fin 2` … `Fin 4` out (sum_unroll)?
        self.saw_numeral_sum = False   # met one (so that a second attempt may write it out)
        self.sum_digits: set[str] = set()   # the engine's names for `∑` binders (a reason)

    # ---- index arithmetic
    def nat(self, t: T.Term, env: dict[str, Any]) -> IPoly:
        if not env:
            hit = self._closed_nat.get(t)
            if hit is None:
                hit = self._closed_nat[t] = self._nat(t, env)
            return hit
        return self._nat(t, env)

    def _nat(self, t: T.Term, env: dict[str, Any]) -> IPoly:
        if isinstance(t, T.Num):
            if t.value.denominator != 1 or t.value < 0:   # (a `rw` can put `0.5 * 2` here)
                raise EngineGap(f"{t.value} where a natural number is expected")
            return IPoly.const(int(t.value))
        if isinstance(t, T.Var):
            v = env.get(t.name)
            if isinstance(v, IPoly):
                return v
            if v is None and t.name in self.size_subst:   # (a bound `a` is not the tied size)
                return self.nat(self.size_subst[t.name], env)
            g = self.genv.get(t.name) if v is None else None
            if v is None and (g is None or isinstance(g.ret_ty, NatT)):
                return IPoly.var(t.name)    # (a global Nat: any natural; a real `def c` is not one)
            raise EngineGap(f"`{t.name}` is not a natural number here")
        if isinstance(t, T.BinOp) and t.op in ("+", "*"):
            a, b = self.nat(t.lhs, env), self.nat(t.rhs, env)
            return a + b if t.op == "+" else a * b
        if isinstance(t, T.App) and isinstance(t.fn, T.Var) and \
                self.genv.get(t.fn.name) is not None:      # (cheap: often caught and retried)
            raise EngineGap(f"`{t.fn.name} …` is a natural number the normaliser does not "
                            f"unfold: write `unfold [{t.fn.name}]` before `norm`")
        raise EngineGap(f"not an index expression: {type(t).__name__}")

    def is_nat_term(self, t: T.Term, env: dict[str, Any]) -> bool:
        if isinstance(t, T.Num):
            return t.value.denominator == 1
        if isinstance(t, T.Var):
            return isinstance(env.get(t.name), IPoly)
        if isinstance(t, T.BinOp) and t.op in ("+", "*"):
            return self.is_nat_term(t.lhs, env) and self.is_nat_term(t.rhs, env)
        return False

    def no_bound_index(self, sizes: Any) -> None:
        """A size is never an index a `∑` or a `fun` binds: the sixty-fifth review reached one
        through a `Nat → ℝ` function applied to an index (`(fun (m : Nat) => ∑ (j : Fin m), 1)
        i`), and a `Size` atom of it is a constant to the sums around it (the kernel refuses
        it too).  The theorem's own index is one (the sixty-sixth: `lr r` for `r : Fin R`)."""
        bound = self.ctx.bounds.keys() - self.ctx.free_indices
        if any(isinstance(z, IPoly) and z.vars() & bound for z in sizes):
            raise EngineGap("a size that depends on a bound index (a function of a natural "
                            "number applied to an index)")

    def leaf_bounds(self, ty: T.Term, env: dict[str, Any] | None = None) -> list[IPoly]:
        """Leaf sizes of a `Vec s` / `Fin s` type, with unit leaves dropped."""
        assert isinstance(ty, T.App)
        out = [self.nat(leaf, env or {}) for leaf in size_leaves(ty.args[0])]
        self.no_bound_index(out)
        kept = [b for b in out if not (b.is_const() and b.const_value() == 1)]
        return kept or [IONE]

    def decompose(self, p: IPoly, radices: list[IPoly]) -> list[IPoly]:
        """Digits of ``p`` in the mixed radix ``radices`` (outermost first), by range analysis."""
        if len(radices) == 1:
            return [p]
        self.ctx.tick()
        digits: list[IPoly] = []
        rest = p
        for rad in reversed(radices[1:]):
            if rad.is_const() and rad.const_value() == 1:
                digits.append(IZERO)
                continue
            mono = rad.as_monomial()
            if mono is None or mono[0] <= 0:
                raise EngineGap(f"cannot split an index by the size {rad}")
            q, r = rest.divide_by_monomial(*mono)
            if not below(r, rad, self.ctx.bounds):     # (the index itself is named by the
                raise EngineGap(                       # engine: not shown, review 87)
                    f"cannot show that a digit of an index is below {rad}, reading a vector "
                    f"as {' × '.join(f'`Fin {b}`' for b in radices)}; "
                    + _LAYOUT_HINT)
            digits.append(r)
            rest = q
        digits.append(rest)
        digits.reverse()
        self.ctx.use("access_decompose")
        return digits

    # ---- reals
    def _as_real(self, v: Any) -> Poly:
        """A `Nat`-valued definition's value (an index polynomial) used as a real (it reached
        the ring arithmetic as an IPoly, and crashed it: the forty-first review)."""
        return self.size_as_real(v) if isinstance(v, IPoly) else v

    def real(self, t: T.Term, env: dict[str, Any]) -> Poly:
        self.ctx.tick()
        if isinstance(t, T.Num):
            return Poly.const(t.value)
        if isinstance(t, T.Var):
            v = self.lookup(t.name, env)
            if isinstance(v, Poly):
                return v
            if isinstance(v, IPoly):
                return self.size_as_real(v)
            if t.name in env:          # a local of another kind: never a global of its name
                raise EngineGap(f"`{t.name}` is not a real here")    # (declared later)
            return self._as_real(self.apply_global_value(t.name, [], env, "real"))
        if isinstance(t, T.BinOp):
            if t.op in ("+", "-", "*"):
                a, b = self.real(t.lhs, env), self.real(t.rhs, env)
                return a + b if t.op == "+" else (a - b if t.op == "-" else a * b)
            if t.op == "/":
                num = self.real(t.lhs, env)
                den = self.real(t.rhs, env)
                self.ctx.use("div_as_inverse")
                return num * inverse(den, self.ctx)
            if t.op == "^":
                if not (isinstance(t.rhs, T.Num) and t.rhs.value.denominator == 1
                        and t.rhs.value >= 0):                  # (a `rw` can rewrite it)
                    raise EngineGap("an exponent that is not a numeral")
                return self.real(t.lhs, env).pow(int(t.rhs.value))
        if isinstance(t, T.Neg):
            return -self.real(t.arg, env)
        if isinstance(t, T.App):
            return self._as_real(self.app(t, env, "real"))
        if isinstance(t, T.Sum):
            n = self.numeral_range(t.binders[0].ty, env)
            if n is not None:               # Σ_{i<2} f i = f 0 + f 1 (the kernel's reading too)
                self.ctx.use("sum_unroll")
                rest = T.rebind(t, t.binders[1:], t.body) if t.binders[1:] else t.body
                return sum((self.real(rest, {**env, t.binders[0].name: IPoly.const(i)})
                            for i in range(n)), ZERO)
            names, env2 = self.bind_sum(t.binders, env)
            body = self.real(t.body, env2)
            return mk_sum(names, body, self.ctx)
        if isinstance(t, T.Ite):
            c = self.cond(t.cond, env)
            a, b = self.real(t.then, env), self.real(t.els, env)
            self.ctx.use("ite_indicator")
            return b + c * (a - b)
        raise EngineGap(f"cannot evaluate {type(t).__name__} as a real number")

    def numeral_range(self, ty: T.Term | None, env: dict[str, Any]) -> int | None:
        """``n`` for a binder type ``Fin n`` with ``n`` a numeral from 2 to SUM_UNROLL, when
        unrolling (a second attempt: :func:`shardproof.prove.attempt`)."""
        if not (isinstance(ty, T.App) and ty.fn == T.Var("Fin") and len(ty.args) == 1):
            return None
        n = self.nat(ty.args[0], env)
        if not (n.is_const() and 2 <= n.const_value() <= SUM_UNROLL):
            return None
        self.saw_numeral_sum = True
        return n.const_value() if self.unroll else None

    def bind_sum(self, binders: tuple[T.Binder, ...], env: dict[str, Any]
                 ) -> tuple[list[tuple[str, IPoly]], dict[str, Any]]:
        """Fresh binders for a `∑`, each split into the leaves of its `Fin` type."""
        env2 = dict(env)
        names: list[tuple[str, IPoly]] = []
        for b in binders:
            leaves = self.leaf_bounds(b.ty, env)  # type: ignore[arg-type]
            fs = [fresh() for _ in leaves]
            self.sum_digits.update(fs)
            for f, bd in zip(fs, leaves):
                self.ctx.bounds[f] = bd
                names.append((f, bd))
            flat = IPoly.var(fs[0])
            for f, bd in zip(fs[1:], leaves[1:]):
                flat = flat * bd + IPoly.var(f)
            env2[b.name] = flat
        return names, env2

    def cond(self, t: T.Term, env: dict[str, Any]) -> Poly:
        """A condition as a 0/1-valued polynomial of indicator atoms."""
        if isinstance(t, T.And):
            return self.cond(t.lhs, env) * self.cond(t.rhs, env)
        if isinstance(t, T.Cmp):
            if self.is_nat_term(t.lhs, env) and self.is_nat_term(t.rhs, env):
                d = self.nat(t.lhs, env) - self.nat(t.rhs, env)
                if not d.is_const():
                    # (the source's names: `d` has the engine's fresh names for bound indices)
                    numeral = any(v in self.sum_digits and self.ctx.bounds[v].is_const() and
                                  self.ctx.bounds[v].const_value() > SUM_UNROLL
                                  for v in d.vars())     # (a `∑`'s binder left a sum)
                    why = (f"`{pretty(t)}` compares indices or sizes whose difference is not a "
                           "constant (" + (f"a `∑` over a numeral range is written out term by "
                                           f"term up to `Fin {SUM_UNROLL}` only" if numeral else
                                           "a sum cut at a size, as `Fin.append` and uneven "
                                           "shards need, is not built: docs/architecture.md") +
                           ")")
                    for v in sorted(d.vars()):
                        bd = self.ctx.bounds.get(v)
                        if bd is not None and bd.is_const() and 0 < bd.const_value() <= 16:
                            raise CaseSplit(v, bd.const_value(), why)
                    raise EngineGap(why)
                v = d.const_value()
                res = {"=": v == 0, "≠": v != 0, "<": v < 0, "≤": v <= 0, ">": v > 0,
                       "≥": v >= 0}[t.op]
                self.ctx.use("index_compare_const")
                return ONE if res else ZERO
            a, b = self.real(t.lhs, env), self.real(t.rhs, env)
            if t.op == "<":
                return indicator_pos(b - a)
            if t.op == ">":
                return indicator_pos(a - b)
            if t.op == "≤":
                return ONE - indicator_pos(a - b)
            if t.op == "≥":
                return ONE - indicator_pos(b - a)
            if t.op == "=":
                return indicator_eqz(a - b)
            if t.op == "≠":
                return ONE - indicator_eqz(a - b)
        raise EngineGap(f"cannot use {type(t).__name__} as a condition")

    # ---- vectors
    def tensor(self, t: T.Term, env: dict[str, Any]) -> TVal:
        self.ctx.tick()
        if isinstance(t, T.Var):
            v = self.lookup(t.name, env)
            if isinstance(v, TVal):
                return v
            if t.name in env:          # a local of another kind: never a global of its name
                raise EngineGap(f"`{t.name}` is not a vector here")
            return self.apply_global_value(t.name, [], env, "tensor")
        if isinstance(t, T.App):
            return self.app(t, env, "tensor")
        if isinstance(t, T.Lam):
            binders = []
            for b in t.binders:
                bd = self.nat(b.ty.args[0], env)  # type: ignore[union-attr]
                binders.append((b.name, bd))
            return LamT(self, binders, t.body, env)
        if isinstance(t, T.BinOp):
            if t.op in ("+", "-"):
                a, b = self._vector(t.lhs, env), self._vector(t.rhs, env)
                sign = Fraction(1 if t.op == "+" else -1)
                return FnT(a.size, lambda p: a.at(p) + b.at(p).scale(sign))
            if t.op == "•":
                s = self.real(t.lhs, env)
                v = self._vector(t.rhs, env)
                return FnT(v.size, lambda p: s * v.at(p))
        if isinstance(t, T.Neg):
            v = self._vector(t.arg, env)
            return FnT(v.size, lambda p: -v.at(p))
        if isinstance(t, T.Sum):
            names, env2 = self.bind_sum(t.binders, env)
            body = self.tensor(t.body, env2)
            if not isinstance(body, TVal):        # a sum of reals (`∑ j, v j`) is no vector
                raise EngineGap("a sum of reals where a vector is expected")
            return FnT(body.size, lambda p: mk_sum(names, body.at(p), self.ctx))
        if isinstance(t, T.Ite):
            c = self.cond(t.cond, env)
            a, b = self._vector(t.then, env), self._vector(t.els, env)
            return FnT(a.size, lambda p: b.at(p) + c * (a.at(p) - b.at(p)))
        if isinstance(t, T.VecLit):
            items = [self.real(i, env) for i in t.items]

            def lit(p: IPoly) -> Poly:
                if not p.is_const():
                    raise EngineGap("a literal vector read at a symbolic index")
                return items[p.const_value()]
            return FnT(IPoly.const(len(items)), lit)
        raise EngineGap(f"cannot evaluate {type(t).__name__} as a vector")

    def arg_nf(self, v: Any, ty: T.Term):
        """An opaque op's argument as a canonical normal form (vectors become lambdas)."""
        if isinstance(v, TVal):
            leaves = self.leaf_bounds(ty)
            names = [fresh() for _ in leaves]
            for n, b in zip(names, leaves):
                self.ctx.bounds[n] = b
            flat = IPoly.var(names[0])
            for n, b in zip(names[1:], leaves[1:]):
                flat = flat * b + IPoly.var(n)
            return canonical_lam(tuple(zip(names, leaves)), v.at(flat))
        if isinstance(v, Poly):
            return v
        if isinstance(v, IPoly):
            return self.size_as_real(v)
        raise EngineGap("a function passed to an opaque op")

    def size_as_real(self, v: IPoly) -> Poly:
        """A size as a real (over `Size` atoms, which no sum binds).  An index is never one:
        the type checker refuses it, and only a `rw` that put a real where an index was (`2`
        rewritten to `0.5 * 4` in `i < 2`) brings one here; its sum would treat it as a
        constant."""
        if v.vars() & self.ctx.bounds.keys():
            raise EngineGap("an index used as a real number (a rewrite put a real where an "
                            "index was)")
        return bound_as_poly(v)

    # ---- names and application
    def lookup(self, name: str, env: dict[str, Any]) -> Any:
        if name in env:
            v = env[name]
            if isinstance(v, _Lazy):
                v = v.force()
                env[name] = v
            return v
        return None

    def app(self, t: T.App, env: dict[str, Any], want: str) -> Any:
        head = t.fn
        if isinstance(head, T.Var) and self.lookup(head.name, env) is None and \
                self.genv.get(head.name) is not None:
            return self.apply_global_value(head.name, list(t.args), env, want)
        if isinstance(head, T.Lam) and head.vec:
            f: Any = self.tensor(head, env)
        elif isinstance(head, (T.BinOp, T.Neg, T.Sum, T.Ite, T.VecLit)):
            f = self.tensor(head, env)
        else:
            f = self.value(head, env, None)
        return self.apply_value(f, list(t.args), env)

    def value(self, t: T.Term, env: dict[str, Any], ty: T.Term | None) -> Any:
        """Evaluate ``t`` as the kind of value its declared type ``ty`` asks for."""
        kind = kind_of(ty) if ty is not None else None
        if kind == "nat":
            return self.nat(t, env)
        if kind == "real":
            return self.real(t, env)
        if kind == "tensor":
            return self.tensor(t, env)
        if isinstance(t, T.Var):
            v = self.lookup(t.name, env)
            if v is not None:
                return v
            if self.genv.get(t.name) is not None:
                return self.apply_global_value(t.name, [], env, "fun")
            return IPoly.var(t.name)
        if isinstance(t, T.App):
            return self.app(t, env, "fun")
        if isinstance(t, T.Lam):
            return self.lam_fun(t, env)
        raise EngineGap(f"cannot evaluate {type(t).__name__} as a function")

    def lam_fun(self, t: T.Lam, env: dict[str, Any]) -> Any:
        """A `fun` whose body is not a real: a family or a map, curried over its binders."""
        return self._lam_build(t, 0, env)

    def _lam_build(self, t: T.Lam, k: int, env_k: dict[str, Any]) -> Any:
        """The value of ``t`` once its first ``k`` binders are bound in ``env_k``.  (A method,
        not a recursive closure: a closure that calls itself is a reference cycle, which would
        keep the normaliser and everything it reaches alive until a full collection.)"""
        if k == len(t.binders):
            return self.any_value(t.body, env_k)
        b = t.binders[k]

        def f(x: Any) -> Any:
            e2 = dict(env_k)
            e2[b.name] = x
            return self._lam_build(t, k + 1, e2)
        return FVal(kind_of(b.ty), f, b.ty)

    def _vector(self, t: T.Term, env: dict[str, Any]) -> TVal:
        """``t`` as a vector operand of `+`, `-`, `•`, `if`; a real there (`x i + x i`, the body
        of a family's definition tried as a vector first) is no vector (the seventy-eighth
        review: an internal error)."""
        v = self.tensor(t, env)
        if not isinstance(v, TVal):
            raise EngineGap("a real where a vector is expected")
        return v

    def any_value(self, t: T.Term, env: dict[str, Any]) -> Any:
        """A value whose kind is not declared (the body of a family `fun r => …`)."""
        if isinstance(t, T.Lam):
            if t.vec is True or (t.vec is None and all(kind_of(b.ty) == "nat"
                                                       for b in t.binders)
                                 and self._real_body(t.body, env)):
                return self.tensor(t, env)
            return self.lam_fun(t, env)
        if isinstance(t, T.App) and isinstance(t.fn, T.Var) and self.lookup(t.fn.name, env) \
                is None and self.genv.get(t.fn.name) is not None:
            return self.apply_global_value(t.fn.name, list(t.args), env, "any")
        if isinstance(t, T.Var):
            v = self.lookup(t.name, env)
            if v is not None:
                return v
        if isinstance(t, T.App):
            return self.app(t, env, "any")
        if isinstance(t, (T.BinOp, T.Neg, T.Sum, T.Ite, T.VecLit)):
            try:
                return self.tensor(t, env)
            except EngineGap:
                return self.real(t, env)
        return self.real(t, env)

    def _real_body(self, body: T.Term, env: dict[str, Any]) -> bool:
        return not isinstance(body, T.Lam)

    def apply_value(self, f: Any, args: list[T.Term], env: dict[str, Any]) -> Any:
        cur = f
        for a in args:
            if isinstance(cur, TVal):
                cur = cur.at(self.nat(a, env))
            elif isinstance(cur, FVal):
                if cur.kind == "nat":
                    cur = cur(self.nat(a, env))
                elif cur.kind == "tensor":
                    cur = cur(self.tensor(a, env))
                elif cur.kind == "real":
                    cur = cur(self.real(a, env))
                else:
                    cur = cur(self.value(a, env, None))
            else:
                raise EngineGap("too many arguments")
        return cur

    def apply_global_value(self, name: str, args: list[T.Term], env: dict[str, Any],
                           want: str) -> Any:
        g = self.genv.get(name)
        if g is None:
            raise EngineGap(f"unknown name `{name}`")
        params = [p for p in g.params if p.kind != "hyp"]
        local: dict[str, Any] = {}
        n = min(len(args), len(params))
        for p, a in zip(params[:n], args[:n]):
            local[p.name] = self.value(a, env, p.ty_term)
        rest = args[n:]
        if n < len(params):
            return self._partial(g, params, n, local)
        val = self.call_global(g, local)
        if rest:
            return self.apply_value(val, rest, env)
        return val

    def _partial(self, g: GlobalDecl, params, n: int, local: dict[str, Any]) -> FVal:
        p = params[n]

        def f(x: Any) -> Any:
            l2 = dict(local)
            l2[p.name] = x
            if n + 1 == len(params):
                return self.call_global(g, l2)
            return self._partial(g, params, n + 1, l2)
        return FVal(kind_of(p.ty_term), f, p.ty_term)

    def call_global(self, g: GlobalDecl, local: dict[str, Any]) -> Any:
        """A fully applied global: unfold a definition, or build an opaque op's value."""
        self.ctx.tick()
        if g.kind == "def":
            self.ctx.use("unfold", None)
            self.ctx.use(f"def:{g.name}", None)
            kind = kind_of(g.ret_term) if g.ret_term is not None else "prop"
            if kind == "real":
                return self.real(g.body, local)  # type: ignore[arg-type]
            if kind == "tensor":
                return self.tensor(g.body, local)  # type: ignore[arg-type]
            if kind == "prop":
                return _PropVal(g.body, local)  # type: ignore[arg-type]
            if kind == "nat":      # (read as a tensor sum, `n0 m + n0 m` crashed: 49th review)
                try:
                    return self.nat(g.body, local)  # type: ignore[arg-type]
                except EngineGap:                  # (an application in it: a real value)
                    return self.real(g.body, local)  # type: ignore[arg-type]
            return self.any_value(g.body, local)  # type: ignore[arg-type]
        if g.kind == "opaque":
            params = [p for p in g.params if p.kind != "hyp"]
            sizes = tuple(local[p.name] for p in params if p.kind == "size")
            kind = kind_of(g.ret_term)
            if kind == "real":
                args = tuple(local[p.name] for p in params if p.kind != "size")
                self.no_bound_index(sizes + args)
                self.ctx.use(f"opaque:{g.name}", None)
                # the size arguments too: `g 1 x` and `g 2 x` are different values
                return Poly.atom(Fn(g.name, tuple(bound_as_poly(z) for z in sizes) +
                                    tuple(_as_poly(a) for a in args)))
            size_env = {p.name: local[p.name] for p in params if p.kind == "size"}
            targs = []
            for p in params:
                if p.kind == "size":
                    continue
                ty = _subst_sizes(p.ty_term, size_env, self)
                targs.append((p.name, local[p.name], ty))
            ret = _subst_sizes(g.ret_term, size_env, self)
            out_size = self.nat(ret.args[0], {})  # type: ignore[union-attr]
            self.ctx.use(f"opaque:{g.name}", None)
            return OpT(self, g.name, sizes, targs, g.linear_in, out_size)
        raise EngineGap(f"`{g.name}` is a theorem, not a term")


_LAYOUT_HINT = ("one cause is a size written with its factors in another order than the "
                "data's layout (`K * N` for a vector laid out `N * K`): write it in that order")


class _Lazy:
    """A value computed on first use (a variable defined by a hypothesis)."""

    def __init__(self, f: Callable[[], Any], name: str = "") -> None:
        self.f, self.name, self.busy = f, name, False

    def force(self) -> Any:
        return self.during(self.f)

    def during(self, f: Callable[[], Any]) -> Any:
        """``f()``, refused when the definition is read while it is being read (a cycle)."""
        if self.busy:          # (`x = y`, `y = x` recursed until "nested too deeply")
            raise EngineGap(f"the hypotheses define `{self.name}` through itself (a cycle of "
                            "definitions: `norm` cannot substitute them; `rw` with one instead)")
        self.busy = True
        try:
            return f()
        finally:
            self.busy = False


class _PropVal:
    """A proposition-valued definition applied to arguments (unfolded by the prover)."""

    def __init__(self, body: T.Term, env: dict[str, Any]) -> None:
        self.body, self.env = body, env


def _as_poly(v: Any) -> Poly:
    if isinstance(v, Poly):
        return v
    if isinstance(v, IPoly):
        return bound_as_poly(v)
    raise EngineGap("a non-real argument to a scalar function")


def _subst_sizes(ty: T.Term, size_env: dict[str, IPoly], nz: Normaliser) -> T.Term:
    """A declared type with size parameters replaced by their (polynomial) values."""
    from ..types import subst_term
    m = {k: _ipoly_term(v) for k, v in size_env.items()}
    return subst_term(ty, m)


def _ipoly_term(p: IPoly) -> T.Term:
    """An IPoly back as a size term (a sum of products; keeps leaves for shapes)."""
    parts: list[T.Term] = []
    for m, c in p.terms:
        factors: list[T.Term] = [T.Var(v) for v, e in m for _ in range(e)]
        if c != 1 or not factors:
            factors.insert(0, T.Num(Fraction(c)))
        t = factors[0]
        for f in factors[1:]:
            t = T.BinOp("*", t, f)
        parts.append(t)
    if not parts:
        return T.Num(Fraction(0))
    out = parts[0]
    for q in parts[1:]:
        out = T.BinOp("+", out, q)
    return out


__all__ = ["Normaliser", "EngineGap", "TVal", "FVal", "VarT", "size_leaves", "kind_of",
           "_Lazy", "_PropVal", "Scalar"]
