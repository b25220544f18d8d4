"""The kernel's own normal form: the check behind a ``norm`` step.

A deliberately plain re-implementation of the meaning of terms as polynomials, written
independently of the engine (:mod:`shardproof.rewrite`), that decides nothing by search:

* reals are polynomials over *atoms* (hashable tuples) in the ring/field oracle
  (``arith.RPoly``); a size name or a scalar a hypothesis makes nonzero may take a negative
  exponent, any other inverse is an atom of its own (Lean's ``x / 0 = 0`` keeps
  ``(a·b)⁻¹ = a⁻¹·b⁻¹`` true for every value);
* indices and sizes are integer polynomials (the gateway's ``IPoly``);
* a vector is read at an index; reading ``fun (i : Fin A) (j : Fin B) => e`` at ``p`` needs
  digits ``p = q·B + d`` with ``0 ≤ d < B`` shown by the gateway's range check;
* ``∑`` over ``Fin (A·B·…)`` is written over one binder per factor (the size's product tree),
  distributed over ``+``, constant factors pulled out, inner sums absorbed, unused binders
  replaced by their range; the binders are named by height and ordered by a signature that
  ignores every non-canonical name, ties kept in the order met (two equal sums that tie
  differently compare unequal: incomplete, never unsound);
* an opaque op is an atom of its arguments (each read at fresh index names, named by height
  in the key), an op marked linear in ``dy`` is ``Σ_j J[k, j] · dy[j]``; ``if`` is ``b + [c]·(a − b)`` with ``[c]`` an
  idempotent indicator atom, decided when the comparison is between constants;
* a hypothesis ``∀ (r : Fin S), x r = RHS`` (or ``x = RHS``, ``a = size``) defines the theorem's
  variable ``x``: it is substituted before evaluation.

Two sides are equal when their polynomials are identical.  Anything outside this fragment
raises :class:`Unsupported`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from functools import cache, reduce
from itertools import permutations
from math import isqrt, prod
from typing import Any

from .. import arith
from .. import terms as T
from . import (Goal, Rejected, _holds, _strip_forall, between_sizes, facts, nonzero_names,
               size_fact, subst, unfold_head)

IPoly, RPoly = arith.IPoly, arith.RPoly
ONE = IPoly.const(1)
MAX_BITS = 1 << 17          # a number at a witness: numerator and denominator together
UNROLL = 4                  # `norm` with `unroll`: a `∑` over `Fin 0` … `Fin 4` term by term
MAX_DEFINED_NODES = 100_000   # definitions by hypotheses, substituted (each round walks them)


class Unsupported(Rejected):
    """The term is outside the kernel's normal-form fragment (the step is not accepted)."""


class V:
    """A vector: the factors of its size (for fresh indices; they multiply to the size) and
    how to read it."""

    def __init__(self, leaves: list[IPoly], read: Callable[[IPoly], RPoly]) -> None:
        self.leaves, self.read = leaves, read


class F:
    """A function (a replica family, a per-example map, a partial application); ``dom`` is
    the range of its ``Fin`` argument, when it has one."""

    def __init__(self, apply: Callable[[Any], Any], dom: IPoly | None = None) -> None:
        self.apply, self.dom = apply, dom


def _head(ty: T.Term | None) -> str:
    if isinstance(ty, T.App) and isinstance(ty.fn, T.Var):
        return ty.fn.name
    return ty.name if isinstance(ty, T.Var) else ""


def _decide(op: str, v: Any) -> RPoly:
    """The comparison ``0 op v`` for a constant ``v``, as 0 or 1."""
    return RPoly.const(int({"=": v == 0, "≠": v != 0, "<": v > 0, "≤": v >= 0}[op]))


class NF:
    """Evaluates terms of one theorem into the kernel's normal form."""

    def __init__(self, goal: Goal, fuel: int = 400_000, unroll: bool = False) -> None:
        self.unroll = unroll                 # a `∑` over `Fin 2` … `Fin 4` term by term
        self.goal, self.decls, self.hyps = goal, goal.decls, list(goal.hyps.values())
        self.nz = frozenset(nonzero_names(facts(goal)))
        self.bounds: dict[str, IPoly] = {}
        self.factors: dict[IPoly, list[IPoly]] = {}
        self.fuel, self.counter = fuel, 0
        self.shadowed: set[str] = set()      # names a `∀` of the statement rebinds
        self.closed = False                  # at a witness: every variable has a value
        self.used = {"oracle:ring", "kernel:delta", "kernel:beta", "oracle:index-ring"}

    def tick(self, cost: int = 1) -> None:
        self.fuel -= cost
        if self.fuel < 0:
            raise Unsupported("the kernel's normal form ran out of fuel")

    def fresh(self, base: str = "%") -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def invertible(self, atom: tuple) -> bool:
        """A size name or a scalar variable that a hypothesis makes nonzero."""
        if atom[0] == "n":
            vs = atom[1].vars()
            return len(vs) == 1 and vs <= self.nz and atom[1] == IPoly.var(*vs)
        return atom[0] == "x" and not atom[2] and atom[1] in self.nz

    def index(self, leaves: list[IPoly], name: Callable[[int], str], unit: bool = True
              ) -> tuple[IPoly, list[tuple[str, IPoly]]]:
        """A flat index ``(d₁·B₂ + d₂)·B₃ + …`` over fresh digits ``dₖ < Bₖ`` (the ``leaves``)
        named ``name(k)``, and the digits; with ``unit``, the digit below 1 is 0."""
        flat, digits = IPoly(), []
        for k, b in enumerate(leaves):
            d = IPoly()
            if b != ONE or not unit:
                n = name(k)
                digits.append((n, b))
                self.bounds[n] = b
                d = IPoly.var(n)
            flat = flat * b + d
        return flat, digits

    # ---- values of the theorem's variables
    def var_value(self, name: str, ty: T.Term, env: dict, fam: tuple = ()) -> Any:
        h = _head(ty)
        if fam and h in ("Nat", "Fin"):          # a family of sizes or indices: not a polynomial
            raise Unsupported(f"a family of {h} values")
        if h == "Nat":
            return IPoly.var(name)
        if h == "ℝ":
            return RPoly.atom(("x", name, fam))
        if h == "Fin":
            return self.index(self.leaves(ty.args[0], env), lambda k: f"{name}.{k}")[0]
        if h == "Vec":
            return V(self.leaves(ty.args[0], env),
                     lambda p: RPoly.atom(("x", name, fam + (p,))))
        if isinstance(ty, T.Arrow):               # applied to a replica index or an argument
            dom = self.nat(ty.dom.args[0], env) if _head(ty.dom) == "Fin" else None
            return F(lambda v: self.var_value(
                name, ty.cod, env, fam + (self.argkey(v, ty.dom, env),)), dom)
        raise Unsupported(f"a variable of type {type(ty).__name__}")

    def argkey(self, v: Any, ty: T.Term, env: dict) -> Any:
        """A canonical key for an argument: a vector is read at fresh index names, which are
        then named by height, `#a{h}.k` with h above every key nested in it (as sums name their
        binders): a key means the same wherever it is built (one built as an argument, then
        put inside another key, once shared names with it when names were by depth)."""
        if isinstance(v, IPoly):
            return v
        if isinstance(v, RPoly):
            return v.key()
        if not isinstance(v, V):
            raise Unsupported("a function passed to an opaque op")
        lv = self.leaves(ty.args[0], env) if _head(ty) == "Vec" else v.leaves
        base = self.fresh("%a")
        flat, _ = self.index(lv, lambda k: f"{base}.{k}", unit=False)
        key = ("vec", tuple(lv), v.read(flat).key())   # the split too: it fixes the names' bounds
        h = 1 + max([int(n[2:].split(".")[0]) for n in arith.index_vars(key, {}) if n[:2] == "#a"],
                    default=0)
        return arith.map_indices(key, lambda p: p.rename({f"{base}.{k}": f"#a{h}.{k}"
                                                          for k in range(len(lv))}))

    # ---- sizes and indices
    def nat(self, t: T.Term, env: dict) -> IPoly:
        v = self.ev(t, env)
        if not isinstance(v, IPoly):
            raise Unsupported("a size that is not an integer polynomial")
        return v

    def leaves(self, t: T.Term, env: dict) -> list[IPoly]:
        """The factors of a size: its product tree, and for a name standing for a product,
        the factors that product was first built from (``a := oc * h * w`` → oc, h, w)."""
        if isinstance(t, T.BinOp) and t.op == "*":
            out = self.leaves(t.lhs, env) + self.leaves(t.rhs, env)
            self.factors.setdefault(prod(out, start=ONE), out)
            return out
        v = self.nat(t, env)
        # No size depends on an index a sum or a `fun` binds (`f i` for `f : Nat → ℝ`); the
        # theorem's own `r : Fin R`, a constant to every sum, may (its digits are `r.k`).
        if {n for n in v.vars() if n.split(".")[0] not in self.goal.fins} & self.bounds.keys():
            raise Unsupported("a size that depends on a bound index")
        return list(self.factors.get(v, [v]))

    def real(self, v: Any) -> RPoly:
        if isinstance(v, RPoly):
            return v
        if isinstance(v, IPoly):                 # a size or index used as a real
            return RPoly({arith.srt((("n", IPoly.var(x)), e) for x, e in m): Fraction(c)
                          for m, c in v.terms})
        raise Unsupported("a vector or function where a real is expected")

    # ---- evaluation
    def ev(self, t: T.Term, env: dict) -> Any:
        return self.charge(self.value(t, env))

    def value(self, t: T.Term, env: dict) -> Any:
        self.tick()
        if isinstance(t, T.Num):
            v = t.value
            return IPoly.const(int(v)) if v.denominator == 1 and v >= 0 else RPoly.const(v)
        head, args = (t.fn, t.args) if isinstance(t, T.App) else (t, ())
        if isinstance(head, T.Var) and head.name not in env:
            return self.glob(head.name, args, env)
        if isinstance(t, T.Var):
            return env[t.name]
        if isinstance(t, T.App):
            f = self.ev(t.fn, env)
            for a in t.args:
                f = self.apply(f, self.ev(a, env))
            return f
        if isinstance(t, T.Lam):
            return self.lam(t, env)
        if isinstance(t, T.Sum):
            return self.sum(t, env)
        if isinstance(t, T.BinOp):
            return self.binop(t, env)
        if isinstance(t, T.Neg):                               # a vector: entrywise
            a = self.ev(t.arg, env)
            return V(a.leaves, lambda p: a.read(p).scale(-1)) if isinstance(a, V) else \
                self.real(a).scale(-1)
        if isinstance(t, T.VecLit):                            # read at a number only
            return V([IPoly.const(len(t.items))], _entry([self.real(self.ev(x, env)) for x in t.items]))
        if isinstance(t, T.Ite):
            c = self.cond(t.cond, env)
            a, b = self.ev(t.then, env), self.ev(t.els, env)
            if isinstance(a, V) and isinstance(b, V):
                return V(a.leaves, lambda p: b.read(p) + self.mul(c, a.read(p) - b.read(p)))
            return self.real(b) + self.mul(c, self.real(a) - self.real(b))
        raise Unsupported(f"a term of the form {type(t).__name__}")

    def apply(self, f: Any, x: Any) -> Any:
        if isinstance(f, F):
            return f.apply(x)
        if isinstance(f, V) and isinstance(x, IPoly):
            return f.read(x)
        raise Unsupported("an application of something that is not a function or vector")

    def binop(self, t: T.BinOp, env: dict) -> Any:
        a, b = self.ev(t.lhs, env), self.ev(t.rhs, env)
        op = t.op
        if op == "•" and isinstance(b, V):
            s = self.real(a)
            return V(b.leaves, lambda p: self.mul(s, b.read(p)))
        if isinstance(a, IPoly) and isinstance(b, IPoly) and op in ("+", "*"):
            # (a natural-number `-` is a real one: the type checker allows it only there)
            if op == "+" or self.closed:          # (at a witness a size needs no factors)
                return a + b if op == "+" else self.charge(a * b)
            self.factors.setdefault(a * b, self.factors.get(a, [a]) + self.factors.get(b, [b]))
            return a * b
        if op == "^":
            if not (isinstance(b, IPoly) and b.is_const() and b.const_value() <= 64):
                raise Unsupported("a power that is not a numeral up to 64")
            x = self.real(a)
            return reduce(lambda out, _: self.mul(out, x), range(b.const_value()), RPoly.const(1))
        if isinstance(a, V) and isinstance(b, V) and op in ("+", "-"):   # entrywise
            sign = 1 if op == "+" else -1
            return V(a.leaves, lambda p: a.read(p) + b.read(p).scale(sign))
        a, b = self.real(a), self.real(b)
        if op == "/":
            self.used.add("kernel:nf-inverse")
            return self.mul(a, b.inverse(self.invertible))
        if op not in ("+", "-", "*", "•"):
            raise Unsupported(f"the operator {op}")
        return self.charge(a + b if op == "+" else a - b) if op in ("+", "-") else self.mul(a, b)

    def mul(self, a: RPoly, b: RPoly) -> RPoly:
        self.tick(len(a.d) * len(b.d))             # charged before it is formed: fuel bounds time
        return self.charge(a * b)

    def charge(self, v: Any) -> Any:
        """A number costs fuel by its length (an operation on long numbers takes longer), and at
        a witness one past MAX_BITS is refused (numbers squared 64 times over); an atom by the
        size of its key, hashed as a tree (a sum of 1,024 atoms with 40,000-node keys took a
        minute to replay in `norm`: the forty-ninth review)."""
        if isinstance(v, (RPoly, IPoly)):      # (sizes too: n · n · n …)
            cs = v.d.values() if isinstance(v, RPoly) else [Fraction(c) for _, c in v.terms]
            bits = sum(c.numerator.bit_length() + c.denominator.bit_length() for c in cs)
            if bits > MAX_BITS and self.closed:
                raise Unsupported(f"a number at the witness past {MAX_BITS:,} bits")
            atoms = sum(arith.nodes(m) for m in v.d) if isinstance(v, RPoly) else 0
            self.tick(bits // 64 + atoms // 16)      # (an atom's key is hashed as a tree)
        return v

    def cond(self, c: T.Term, env: dict) -> RPoly:
        self.used.add("kernel:nf-indicator")
        if isinstance(c, T.And):
            return self.cond(c.lhs, env) * self.cond(c.rhs, env)
        if not isinstance(c, T.Cmp):
            raise Unsupported("a condition that is not a comparison")
        a, b = self.ev(c.lhs, env), self.ev(c.rhs, env)
        op, (a, b) = {">": ("<", (b, a)), "≥": ("≤", (b, a))}.get(c.op, (c.op, (a, b)))
        if isinstance(a, IPoly) and isinstance(b, IPoly):
            d = b - a                                              # the comparison is 0 ? d
            if d.is_const():
                return _decide(op, d.const_value())
            if op in ("=", "≠"):
                lead = sorted(d.terms, key=repr)[0][1]
                ind = RPoly.atom(("ieq", d if lead > 0 else -d))
                return ind if op == "=" else RPoly.const(1) - ind
            return RPoly.atom(("ilt", d)) if op == "<" else RPoly.const(1) - RPoly.atom(("ilt", -d))
        d = self.real(b) - self.real(a)
        if d.d.keys() <= {()}:
            return _decide(op, d.d.get((), 0))
        if op == "<":
            return RPoly.atom(("pos", d.key()))
        if op == "≤":
            return RPoly.const(1) - RPoly.atom(("pos", d.scale(-1).key()))
        raise Unsupported("an equation between reals as a condition")

    def lam(self, t: T.Lam, env: dict) -> Any:
        if t.vec is True or (t.vec is None and len(t.binders) > 1):
            sizes = [self.nat(b.ty.args[0], env) for b in t.binders]
            leaves = [x for b in t.binders for x in self.leaves(b.ty.args[0], env)]
            if len(sizes) > 1:
                self.used |= {"kernel:nf-read", "oracle:index-range"}

            @cache     # one evaluation per entry, keyed by its digits (checked in range) AND
            def at(ds: tuple[IPoly, ...], _bounds: frozenset) -> RPoly:   # their names' ranges
                return self.real(self.ev(t.body, {**env, **dict(zip(names, ds))}))

            def read(p: IPoly) -> RPoly:    # (an op's key reuses the names `#a…` at new ranges)
                ds = const_digits(p, sizes) if self.closed else \
                    arith.digits(p, sizes, self.bounds, self.nz)
                if ds is None:
                    raise Unsupported("a digit of a flat index not shown in range")
                return at(tuple(ds), frozenset((n, self.bounds.get(n)) for d in ds
                                               for n in d.vars()))
            names = [b.name for b in t.binders]
            return V(leaves, read)
        b0, rest = t.binders[0], t.binders[1:]
        dom = self.nat(b0.ty.args[0], env) if _head(b0.ty) == "Fin" else None
        body = T.Lam(rest, t.body, vec=t.vec) if rest else t.body
        return F(lambda x: self.ev(body, {**env, b0.name: x}), dom)

    # ---- sums
    def sum(self, t: T.Sum, env: dict) -> RPoly:
        ty = t.binders[0].ty
        n = self.nat(ty.args[0], env) if self.unroll and _head(ty) == "Fin" else None
        if self.closed or n is not None and n.is_const() and n.const_value() <= UNROLL:
            # at a witness, or (a `norm` step that says so) over a numeral range: term by term
            self.used |= set() if self.closed else {"kernel:nf-sum"}
            return reduce(lambda acc, e: self.charge(acc + self.real(self.ev(e[0], e[1]))),
                          self.instances(t, env), RPoly())
        e = dict(env)
        binders: list[tuple[str, IPoly]] = []
        for b in t.binders:
            lv = self.leaves(b.ty.args[0], e)
            e[b.name], digits = self.index(lv, lambda _: self.fresh())   # Σ_{i<1} f i = f 0
            binders += digits
        return self.mk_sum(binders, self.real(self.ev(t.body, e)))

    def mk_sum(self, binders: list[tuple[str, IPoly]], body: RPoly) -> RPoly:
        self.used.add("kernel:nf-sum")
        out = RPoly()
        for m, c in body.d.items():
            out = out + self.sum_mono(binders, m).scale(c)
        return out

    def sum_mono(self, binders: list[tuple[str, IPoly]], mono: tuple) -> RPoly:
        rng, memo = dict(binders), {}
        ivars = lambda x: arith.index_vars(x, memo)
        indep = [(a, e) for a, e in mono if not ivars(a) & rng.keys()]
        factors: list[tuple] = []
        for atom, e in [(a, e) for a, e in mono if ivars(a) & rng.keys()]:
            if atom[0] != "sum" or e <= 0:
                factors.append((atom, e))
                continue
            for _ in range(e):                                   # absorb an inner sum
                ren = {f"#{atom[3]}.{k}": self.fresh() for k in range(len(atom[1]))}
                rng.update(zip(ren.values(), atom[1]))
                factors.extend(arith.map_indices(atom[2], lambda p: p.rename(ren)))
        factors = self.merge(rng, factors, ivars)
        used = frozenset().union(*(ivars(a) for a, _ in factors))
        out = RPoly({tuple(indep): Fraction(1)})
        for n, b in rng.items():
            if n not in used:                                    # Σ_{i<K} c = K·c
                out = out * self.real(b)
        live = [n for n in rng if n in used]
        if not live:
            return out * RPoly({arith.srt(factors): Fraction(1)})
        height = 1 + max([int(v[1:].split(".")[0]) for v in used
                          if v.startswith("#") and v[1:2].isdigit()], default=0)

        def mask(x: Any, me: str) -> str:
            ren = {v: ("@" if v == me else "?") for v in ivars(x)
                   if v.startswith("%") or v == me or v in rng}
            return repr(arith.map_indices(x, lambda p: p.rename(ren)))
        sig = {n: (repr(rng[n]), sorted(mask(f, n) for f in factors if n in ivars(f)))
               for n in live}
        order = sorted(live, key=lambda n: sig[n])            # stable: ties in the order met
        ren = {n: f"#{height}.{k}" for k, n in enumerate(order)}
        merged: dict = {}
        for f, e in factors:
            f = arith.map_indices(f, lambda p: p.rename(ren))
            merged[f] = merged.get(f, 0) + e
        body = arith.srt((f, e) for f, e in merged.items() if e)
        return out * RPoly.atom(("sum", tuple(rng[n] for n in order), body, height))

    def merge(self, rng: dict[str, IPoly], factors: list, ivars: Callable) -> list:
        """Σ_{u<U} Σ_{v<V} f(u·V + v) = Σ_{w<U·V} f(w): merge two binders when, after
        ``v := w − u·V``, the body no longer mentions ``u`` (the map is a bijection)."""
        while True:
            live = [n for n in rng if any(n in ivars(f) for f, _ in factors)]
            for u, v in permutations(live, 2):
                self.tick()
                w = self.fresh()
                sub = {v: IPoly.var(w) - IPoly.var(u) * rng[v]}
                if all(u not in p.subst(sub).vars() for f, _ in factors
                       for p in arith.index_polys(f) if p.vars() & {u, v}):
                    new = [(arith.map_indices(f, lambda p: p.subst(sub)), e) for f, e in factors]
                    self.used.add("kernel:nf-merge")
                    rng[w] = rng.pop(u) * rng.pop(v)
                    factors = new
                    break
            else:
                return factors

    # ---- globals
    def glob(self, name: str, args: tuple[T.Term, ...], env: dict) -> Any:
        d = self.decls.get(name)
        if d is None or d.kind not in ("def", "opaque"):
            raise Unsupported(f"`{name}` is not a definition or an op in scope")
        vals = [self.ev(a, env) for a in args]
        out = self.call(d, vals[:len(d.params)])
        for x in vals[len(d.params):]:
            out = self.apply(out, x)
        return out

    def call(self, d: Any, vals: list) -> Any:
        """``d`` applied to the values of its parameters (a function while some are missing)."""
        if len(vals) < len(d.params):
            return F(lambda x: self.call(d, vals + [x]))
        if d.kind == "def":
            return self.ev(d.body, dict(zip(d.params, vals)))
        self.used.add("kernel:opaque-congruence")
        exact = self.exact_opaque(d, vals) if self.closed else None
        if exact is not None:
            return exact
        if _head(d.ret) == "ℝ":
            return RPoly.atom(("f", d.name, tuple(self.real(v).key() for v in vals)))
        env = dict(zip(d.params, vals))
        sizes = tuple(v for v, ty in zip(vals, d.ptypes) if _head(ty) == "Nat")
        if not all(isinstance(v, IPoly) for v in sizes):   # (a key's index names are in IPolys)
            raise Unsupported("a size argument of an op that is not a size")
        lv = self.leaves(d.ret.args[0], env)
        keys = tuple(self.argkey(v, ty, env) for p, v, ty in zip(d.params, vals, d.ptypes)
                     if _head(ty) != "Nat" and p != d.linear_in)
        if d.linear_in is None:
            return V(lv, lambda k: RPoly.atom(("op", d.name, sizes, keys, k)))
        self.used |= {"kernel:linear-jacobian", "linear:" + d.name}   # (that op's own claim)
        dy = env[d.linear_in]
        dlv = self.leaves(d.ptypes[d.params.index(d.linear_in)].args[0], env)

        def read(k: IPoly) -> RPoly:
            flat, binders = self.index(dlv, lambda _: self.fresh(), unit=False)
            jac = RPoly.atom(("jac", d.name, sizes, keys, k, flat))
            return self.mk_sum(binders, jac * dy.read(flat))
        return V(lv, read)

    # ---- at a witness: numbers
    def const(self, v: Any) -> Fraction:
        if isinstance(v, IPoly) and v.is_const():
            return Fraction(v.const_value())
        if isinstance(v, RPoly) and v.d.keys() <= {()}:
            return Fraction(v.d.get((), 0))
        raise Unsupported("a value at the witness that is not a number")

    def exact_opaque(self, d: Any, vals: list) -> RPoly | None:
        """The prelude's `sqrt` (Mathlib's: 0 below 0) at a rational square and `exp` at 0, as
        numbers; None elsewhere (the value stays an atom of its argument)."""
        if d.name not in ("sqrt", "exp") or d.kind != "opaque" or \
                not isinstance(vals[0], (RPoly, IPoly)) or not self.real(vals[0]).d.keys() <= {()}:
            return None                # (a prelude name: a file cannot declare its own `sqrt`)
        x = self.const(self.real(vals[0]))
        rn, rd = isqrt(max(x.numerator, 0)), isqrt(x.denominator)
        if d.name == "exp" and x == 0 or d.name == "sqrt" and \
                (x <= 0 or rn * rn == x.numerator and rd * rd == x.denominator):
            self.used.add("kernel:witness-sqrt-exp")
            return RPoly.const(1 if d.name == "exp" else Fraction(rn, rd) if x > 0 else 0)
        return None

    def instances(self, t: Any, env: dict) -> Any:
        """A `∑` or `∀` at a witness, its first binder over a numeral `Fin` range: the rest of
        it at each index in turn, with its environment."""
        b, body = t.binders[0], T.rebind(t, t.binders[1:], t.body) if t.binders[1:] else t.body
        if _head(b.ty) != "Fin":
            raise Unsupported("a `∑` or `∀` over a range that is not a `Fin`")
        return ((body, {**env, b.name: IPoly.const(i)})
                for i in range(int(self.const(self.nat(b.ty.args[0], env)))))

    def differ(self, a: Any, b: Any) -> bool:
        """Do two values at the witness differ (vectors and maps: at some index)?  Their
        difference must be the zero polynomial (equal) or a nonzero number (they differ)."""
        self.tick()
        if isinstance(a, (V, F)) and type(a) is type(b):
            (n, m), get = ((prod(x.leaves, start=ONE) if isinstance(x, V) else x.dom for x in (a, b)),
                           lambda x, k: x.read(k) if isinstance(x, V) else x.apply(k))
            if n is None or n != m:
                raise Unsupported("two sides of different sizes or ranges")
            return any(self.differ(get(a, IPoly.const(k)), get(b, IPoly.const(k)))
                       for k in range(int(self.const(n))))
        d = self.real(a) - self.real(b)
        if d.d and not d.d.keys() <= {()}:
            raise Unsupported("the two sides at the witness are not numbers")
        return bool(d.d)

    def truth(self, p: T.Term, env: dict) -> bool:
        """A proposition at the witness (a `∀` over a `Fin` range: every index in turn)."""
        self.tick()
        if isinstance(p, T.And):
            return self.truth(p.lhs, env) and self.truth(p.rhs, env)
        if isinstance(p, T.Forall):
            return all(self.truth(body, e) for body, e in self.instances(p, env))
        if isinstance(p, T.Cmp) and p.op in ("=", "≠"):
            return self.differ(self.ev(p.lhs, env), self.ev(p.rhs, env)) == (p.op == "≠")
        if isinstance(p, T.Cmp):
            a, b = self.ev(p.lhs, env), self.ev(p.rhs, env)
            op, (a, b) = {">": ("<", (b, a)), "≥": ("≤", (b, a))}.get(p.op, (p.op, (a, b)))
            d = self.const(self.real(b)) - self.const(self.real(a))
            return d > 0 if op == "<" else d >= 0
        body = unfold_head(p, self.decls, frozenset(env))      # a `def` of a proposition
        if body is None:
            raise Unsupported(f"a proposition of the form {type(p).__name__} at the witness")
        return self.truth(body, env)

    # ---- statements
    def statement(self, s: T.Term, env: dict) -> None:
        if isinstance(s, T.And):
            self.statement(s.lhs, env)
            self.statement(s.rhs, env)
        elif isinstance(s, T.Forall):
            e = dict(env)
            for b in s.binders:
                self.shadowed.add(b.name)
                e[b.name] = self.var_value(self.fresh(b.name + "@"), b.ty, e)
            self.statement(s.body, e)
        elif isinstance(s, T.App):
            # A `def` of a statement: its body with the arguments substituted (as terms, so a
            # size fact in it is about the arguments, not about names the theorem also has).
            # (δ refuses a body whose global a theorem variable or a `∀` above hides)
            body = unfold_head(s, self.decls, frozenset(env))
            if body is None:
                raise Unsupported("a statement that is not an equation")
            self.statement(body, env)
        elif isinstance(s, T.Cmp) and s.op == "=":
            self.equal(self.ev(s.lhs, env), self.ev(s.rhs, env))
        elif isinstance(s, T.Cmp) and not T.free_names(s) & self.shadowed and \
                size_fact(s, self.goal) and (s.op != "≠" or between_sizes(s, self.goal)):
            self.used.add("kernel:size-fact")
        else:
            raise Unsupported(f"a statement of the form {type(s).__name__}")

    def equal(self, a: Any, b: Any) -> None:
        if isinstance(a, V) and isinstance(b, V):
            if prod(a.leaves, start=ONE) != prod(b.leaves, start=ONE):
                raise Unsupported("vectors of different sizes")
            flat, _ = self.index(max(a.leaves, b.leaves, key=len), lambda _: self.fresh("@o"))
            self.equal(a.read(flat), b.read(flat))
        elif isinstance(a, F) and isinstance(b, F):
            if a.dom is not None and b.dom is not None and a.dom != b.dom:
                raise Unsupported("maps over different ranges")
            dom = a.dom if a.dom is not None else b.dom
            if dom is None:
                raise Unsupported("an equation between maps")
            r, _ = self.index([dom], lambda _: self.fresh("@r"), unit=False)
            self.equal(a.apply(r), b.apply(r))
        elif isinstance(a, IPoly) and isinstance(b, IPoly):
            if a != b:
                raise Unsupported("the two sizes differ")
        elif self.real(a).d != self.real(b).d:
            raise Unsupported("the kernel's normal forms of the two sides differ")


def definitions(goal: Goal) -> dict[str, T.Term]:
    """The theorem's variables its hypotheses define: ``∀ (r : Fin S), x r = RHS`` (``x``'s
    domain exactly ``Fin S``; a vector ``Vec S`` is ``Fin S → ℝ``) gives ``x := fun r => RHS``,
    ``x = RHS`` gives ``x := RHS``, for ``x`` not in RHS; the first such hypothesis of a name counts.  Substituting them is sound:
    the theorem is claimed only where its hypotheses hold."""
    out: dict[str, T.Term] = {}
    for h in goal.hyps.values():
        h, bs = _strip_forall(h)
        if not (isinstance(h, T.Cmp) and h.op == "="):
            continue
        head, args = (h.lhs.fn, h.lhs.args) if isinstance(h.lhs, T.App) else (h.lhs, ())
        for _ in out if isinstance(head, T.Var) and not bs else ():   # a chain of ties: a = b,
            if not isinstance(out.get(head.name), T.Var):             # a = 3: b := 3 (its end)
                break
            head = out[head.name]
        if isinstance(h.lhs, T.Var) and head.name in out and isinstance(h.rhs, T.Var) and not bs \
                and goal.types.get(h.rhs.name) == goal.types.get(h.lhs.name):
            h, head = T.Cmp("=", h.rhs, h.lhs), h.rhs          # a = 3, a = b gives b := a
        if not isinstance(head, T.Var) or head.name not in goal.types or head.name in out or \
                head.name in T.free_names(h.rhs) or list(args) != [T.Var(b.name) for b in bs] \
                or len({b.name for b in bs}) != len(bs):          # ∀ r, ∀ r: only a diagonal
            continue
        ty, vec = goal.types[head.name], _head(goal.types[head.name]) == "Vec"
        ty = T.Arrow(T.App(T.Var("Fin"), ty.args), T.Var("ℝ")) if vec else ty   # (Lean's)
        for b in bs:
            if not (isinstance(ty, T.Arrow) and _head(b.ty) == "Fin" == _head(ty.dom) and
                    _holds(arith.sizes_equal, b.ty.args[0], ty.dom.args[0])):
                break
            ty = ty.cod
        else:
            out[head.name] = T.Lam(tuple(bs), h.rhs, vec=vec) if bs else h.rhs
    return out


def check_statement(goal: Goal, unroll: bool = False) -> set[str]:
    """Decide every equation of the goal by the kernel's normal form; raise when one fails."""
    nfc = NF(goal, unroll=unroll is True)
    defs = definitions(goal)
    for _ in defs:                                    # chains: x := … y …, y := …
        new = {n: subst(v, defs) for n, v in defs.items()}
        if all(new[n] is v for n, v in defs.items()):   # (a fixpoint: 16,000 rounds took 140 s)
            break
        defs = new
        if sum(map(T.tree_size, defs.values())) > MAX_DEFINED_NODES:   # (x₂ := x₁·x₁ …)
            raise Unsupported(f"definitions by hypotheses past {MAX_DEFINED_NODES:,} nodes")
    if defs:       # (a size fact holds of what its sizes are defined as: 0 < R, R := N)
        nfc.used.add("kernel:nf-hypothesis")
        held = [subst(h, defs) for h in facts(goal)]
        nfc.tick(sum(map(T.tree_size, held)))       # (each is read as a tree: 20,000 took 59 s)
        nfc.nz |= frozenset(nonzero_names(held))
    env: dict[str, Any] = {}
    types = {n: subst(ty, defs) for n, ty in goal.types.items() if n not in defs}
    for name, ty in sorted(types.items(), key=lambda nt: _head(nt[1]) != "Nat"):
        env[name] = nfc.var_value(name, ty, env)
    nfc.statement(subst(goal.stmt, defs), env)
    return nfc.used


def const_digits(p: IPoly, sizes: list[IPoly]) -> list[IPoly]:
    """The digits of a number ``p`` over numeral ranges ``sizes`` (refused outside them)."""
    if not (p.is_const() and all(b.is_const() for b in sizes)):
        raise Unsupported("an index at the witness that is not a number")
    k, out = p.const_value(), []
    if not 0 <= k < prod(b.const_value() for b in sizes):
        raise Unsupported("an index at the witness out of its range")
    for b in reversed(sizes):
        k, d = divmod(k, b.const_value())
        out.append(IPoly.const(d))
    return out[::-1]


def _entry(items: list) -> Callable[[IPoly], Any]:
    """Reading a list at a number in its range."""
    return lambda p: items[const_digits(p, [IPoly.const(len(items))])[0].const_value()]


def _number(x: Any) -> Fraction:
    """A witness's number: an integer or the text `p` or `p/q` (never a float, nor `1e9999…`,
    which `Fraction` would expand)."""
    if type(x) is int or type(x) is str and re.fullmatch(r"-?\d{1,5000}(/\d{1,5000})?", x):
        return Fraction(x)
    raise Unsupported(f"the witness value {str(x)[:40]!r} is not an exact number")


def check_witness(goal: Goal, assignment: dict) -> set[str]:
    """`∃ vars, hyps ∧ a ≠ b` (or a closed `a ≠ b`) by an exact witness: every variable gets the
    witness's value (a size, an index in its range, a rational, a vector or replica family of
    rationals of its size), every hypothesis holds there and the two sides differ there, all
    decided by the normal form with every name a number.  Raise when one of these does not
    check.  Universal variables (Lean's reading of a theorem's binders) are never witnessed.
    The sides' types do not matter (sizes or reals, read as every kernel step reads them): the
    values show the `∃` whatever they are; typing them here refused true statements whose
    typing needs a hypothesis (`g 0` for `g : Vec R` under `0 < R`: the fifty-second review)."""
    nfc = NF(goal)
    nfc.closed = True
    nfc.used.add("kernel:witness")
    if not (isinstance(goal.stmt, T.Cmp) and goal.stmt.op == "≠") or \
            goal.types and not goal.existential:
        raise Rejected("an exact witness shows `∃ …, a ≠ b` or a closed `a ≠ b`, not this")
    env: dict[str, Any] = {}
    size = lambda ty: int(nfc.const(nfc.nat(ty.args[0], env)))      # noqa: E731
    for name, ty in sorted(goal.types.items(), key=lambda nt: _head(nt[1]) != "Nat"):
        h, fam = _head(ty), isinstance(ty, T.Arrow) and (_head(ty.dom), _head(ty.cod)) == ("Fin", "Vec")
        if h in ("Nat", "Fin"):
            v = assignment["sizes" if h == "Nat" else "indices"][name]
            if type(v) is not int or v < 0 or (h == "Fin" and v >= size(ty)):
                raise Rejected(f"the witness's `{name}` is not a size or an index in its range")
            env[name] = IPoly.const(v)
        elif h == "ℝ":
            env[name] = RPoly.const(_number(assignment["reals"][name]))
        elif h == "Vec" or fam:
            rows = assignment["families"][name] if fam else [assignment["tensors"][name]]
            n, r_n = size(ty.cod if fam else ty), size(ty.dom) if fam else 1
            if len(rows) != r_n or any(len(r) != n for r in rows):
                raise Rejected(f"the witness's `{name}` does not have its type's size")
            vals = [V([IPoly.const(n)], _entry([RPoly.const(_number(x)) for x in r])) for r in rows]
            env[name] = F(_entry(vals), IPoly.const(r_n)) if fam else vals[0]
        else:
            raise Unsupported(f"a witness for `{name}`, a variable of this type")
    for hname, hyp in goal.hyps.items():
        if not nfc.truth(hyp, env):
            raise Rejected(f"hypothesis `{hname}` does not hold at the witness")
    if not nfc.truth(goal.stmt, env):
        raise Rejected("the two sides are equal at the witness")
    return nfc.used
