"""The kernel's own normal form: the check behind a ``norm`` step.

A deliberately plain re-implementation of the meaning of terms as polynomials, written
independently of the engine (:mod:`shardproof.rewrite`), that decides nothing by search:

* reals are polynomials with ``Fraction`` coefficients over *atoms* (hashable tuples); a size
  name or a scalar a hypothesis makes nonzero may have a negative exponent, any other inverse is
  an atom of its own (Lean's ``x / 0 = 0`` keeps ``(a·b)⁻¹ = a⁻¹·b⁻¹`` true for every value);
* indices and sizes are integer polynomials (the gateway's ``IPoly``);
* a vector is read at an index; reading ``fun (i : Fin A) (j : Fin B) => e`` at ``p`` needs
  digits ``p = q·B + d`` with ``0 ≤ d < B`` shown by the gateway's range check (``below``);
* ``∑`` over ``Fin (A·B·…)`` is written over one binder per factor (the size's product tree),
  distributed over ``+``, constant factors pulled out, inner sums absorbed, unused binders
  replaced by their range; the binders are named by height and ordered by a signature that
  ignores every non-canonical name, ties kept in the order met (two equal sums that tie
  differently compare unequal: incomplete, never unsound);
* an opaque op is an atom of its arguments (each read at reserved index names), an op marked
  linear in ``dy`` is ``Σ_j J[k, j] · dy[j]``; ``if`` is ``b + [c]·(a − b)`` with ``[c]`` an
  idempotent indicator atom, decided when the comparison is between constants.

Two sides are equal when their polynomials are identical: the *ring oracle* is the dictionary
arithmetic below.  Anything outside this fragment raises :class:`Unsupported`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from itertools import permutations
from math import prod
from typing import Any

from .. import arith
from .. import terms as T
from . import Goal, Rejected, _holds, _strip_forall, nonzero_names, size_fact

IPoly = arith.IPoly
ONE = IPoly.const(1)
IND = ("pos", "ieq", "ilt")                 # indicator atoms: [c]² = [c]


class Unsupported(Rejected):
    """The term is outside the kernel's normal-form fragment (the step is not accepted)."""


# --------------------------------------------------------------------------- polynomials

def _srt(xs) -> tuple:
    return tuple(sorted(xs, key=repr))


def mono_mul(a: tuple, b: tuple, nz: frozenset) -> tuple:
    d = dict(a)
    for atom, e in b:
        d[atom] = 1 if atom[0] in IND else d.get(atom, 0) + e
        if d[atom] < 0 and not _may_invert(atom, nz):
            raise Unsupported("a negative power of an atom not known nonzero")
    return _srt((x, e) for x, e in d.items() if e)


def _may_invert(atom: tuple, nz: frozenset) -> bool:
    """A size name or a scalar variable that a hypothesis makes nonzero."""
    if atom[0] == "n":
        vs = atom[1].vars()
        return len(vs) == 1 and vs <= nz and atom[1] == IPoly.var(*vs)
    return atom[0] == "x" and not atom[2] and atom[1] in nz


class P:
    """A polynomial over atoms: ``{monomial: coefficient}``; a monomial is a sorted tuple of
    ``(atom, exponent)``."""

    __slots__ = ("d",)

    def __init__(self, d: dict | None = None) -> None:
        self.d = {m: c for m, c in (d or {}).items() if c != 0}

    @staticmethod
    def const(c: Fraction | int) -> P:
        return P({(): Fraction(c)})

    @staticmethod
    def atom(a: tuple) -> P:
        return P({((a, 1),): Fraction(1)})

    def __add__(self, o: P) -> P:
        d = dict(self.d)
        for m, c in o.d.items():
            d[m] = d.get(m, 0) + c
        return P(d)

    def scale(self, k: Fraction) -> P:
        return P({m: c * k for m, c in self.d.items()})

    def __sub__(self, o: P) -> P:
        return self + o.scale(Fraction(-1))

    def mul(self, o: P, nz: frozenset) -> P:
        d: dict = {}
        for m1, c1 in self.d.items():
            for m2, c2 in o.d.items():
                m = mono_mul(m1, m2, nz)
                d[m] = d.get(m, 0) + c1 * c2
        return P(d)

    def key(self) -> tuple:
        return ("P", _srt(self.d.items()))


def imap(x: Any, f: Callable[[IPoly], IPoly]) -> Any:
    """``f`` applied to every index polynomial of an atom/key, re-sorting what is sorted."""
    if isinstance(x, IPoly):
        return f(x)
    if not isinstance(x, tuple):
        return x
    if x and x[0] == "P":
        return ("P", _srt((imap(m, f), c) for m, c in x[1]))
    out = tuple(imap(e, f) for e in x)
    if x and isinstance(x[0], tuple) and len(x[0]) == 2 and isinstance(x[0][1], int) \
            and isinstance(x[0][0], tuple):
        return _srt(out)                                    # a monomial
    return out


def rename(x: Any, ren: dict[str, str]) -> Any:
    return imap(x, lambda p: p.rename(ren))


def ivars(x: Any, memo: dict) -> frozenset[str]:
    """The index variables an atom/key mentions."""
    if isinstance(x, IPoly):
        return x.vars()
    if isinstance(x, tuple):
        hit = memo.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        out: frozenset[str] = frozenset()
        for e in x:
            out |= ivars(e, memo)
        memo[id(x)] = (x, out)
        return out
    return frozenset()


# --------------------------------------------------------------------------- values

class V:
    """A vector: the factors of its size (for fresh indices; they multiply to the size) and
    how to read it."""

    def __init__(self, leaves: list[IPoly], read: Callable[[IPoly], P]) -> None:
        self.leaves, self.read = leaves, read


class F:
    """A function (a replica family, a per-example map, a partial application); ``dom`` is
    the range of its ``Fin`` argument, when it has one."""

    def __init__(self, apply: Callable[[Any], Any], dom: IPoly | None = None) -> None:
        self.apply, self.dom = apply, dom


class Lazy:
    """A value a hypothesis defines, evaluated on first use."""

    def __init__(self, thunk: Callable[[], Any]) -> None:
        self.thunk, self.val, self.busy = thunk, None, False

    def force(self) -> Any:
        if self.val is None:
            if self.busy:
                raise Unsupported("hypotheses that define each other")
            self.busy = True
            self.val = self.thunk()
        return self.val


def _head(ty: T.Term | None) -> str:
    if isinstance(ty, T.App) and isinstance(ty.fn, T.Var):
        return ty.fn.name
    return ty.name if isinstance(ty, T.Var) else ""


def _decide(op: str, v: Any) -> P:
    """The comparison ``0 op v`` for a constant ``v``, as 0 or 1."""
    return P.const(int({"=": v == 0, "≠": v != 0, "<": v > 0, "≤": v >= 0}[op]))


class NF:
    """Evaluates terms of one theorem into the kernel's normal form."""

    def __init__(self, goal: Goal, fuel: int = 400_000) -> None:
        self.decls, self.hyps = goal.decls, list(goal.hyps.values())
        self.nz = frozenset(nonzero_names(self.hyps))
        self.bounds: dict[str, IPoly] = {}
        self.fuel = fuel
        self.counter = 0
        self.depth = 0
        self.shadowed: set[str] = set()      # names a `∀` of the statement rebinds
        self.factors: dict[IPoly, list[IPoly]] = {}
        self.used = {"kernel:nf-ring", "kernel:delta", "kernel:beta", "oracle:index-ring"}

    def tick(self) -> None:
        self.fuel -= 1
        if self.fuel < 0:
            raise Unsupported("the kernel's normal form ran out of fuel")

    def fresh(self, base: str = "%") -> str:
        self.counter += 1
        return f"{base}{self.counter}"

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
        if h == "Nat":
            return IPoly.var(name)
        if h == "ℝ":
            return P.atom(("x", name, fam))
        if h == "Fin":
            lv = self.leaves(ty.args[0], env)
            return self.index(lv, lambda k: f"{name}.{k}")[0]
        if h == "Vec":
            return V(self.leaves(ty.args[0], env), lambda p: P.atom(("x", name, fam + (p,))))
        if isinstance(ty, T.Arrow):               # applied to a replica index or an argument
            dom = self.nat(ty.dom.args[0], env) if _head(ty.dom) == "Fin" else None
            return F(lambda v: self.var_value(
                name, ty.cod, env, fam + (self.argkey(v, ty.dom, env),)), dom)
        raise Unsupported(f"a variable of type {type(ty).__name__}")

    def argkey(self, v: Any, ty: T.Term, env: dict) -> Any:
        """A canonical key for an argument: a vector is read at reserved index names."""
        if isinstance(v, IPoly):
            return v
        if isinstance(v, P):
            return v.key()
        if not isinstance(v, V):
            raise Unsupported("a function passed to an opaque op")
        self.depth += 1
        lv = self.leaves(ty.args[0], env) if _head(ty) == "Vec" else v.leaves
        flat, _ = self.index(lv, lambda k: f"#a{self.depth}.{k}", unit=False)
        key = ("vec", v.read(flat).key())
        self.depth -= 1
        return key

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
        return list(self.factors.get(v, [v]))

    def real(self, v: Any) -> P:
        if isinstance(v, P):
            return v
        if isinstance(v, IPoly):                 # a size or index used as a real
            return P({_srt((("n", IPoly.var(x)), e) for x, e in m): Fraction(c)
                      for m, c in v.terms})
        raise Unsupported("a vector or function where a real is expected")

    # ---- evaluation
    def ev(self, t: T.Term, env: dict) -> Any:
        self.tick()
        if isinstance(t, T.Num):
            v = t.value
            return IPoly.const(int(v)) if v.denominator == 1 and v >= 0 else P.const(v)
        head, args = (t.fn, t.args) if isinstance(t, T.App) else (t, ())
        if isinstance(head, T.Var) and head.name not in env:
            return self.glob(head.name, args, env)
        if isinstance(t, T.Var):
            val = env[t.name]
            return val.force() if isinstance(val, Lazy) else val
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
        if isinstance(t, T.Neg):
            return self.real(self.ev(t.arg, env)).scale(Fraction(-1))
        if isinstance(t, T.Ite):
            c = self.cond(t.cond, env)
            a, b = self.ev(t.then, env), self.ev(t.els, env)
            if isinstance(a, V) and isinstance(b, V):
                return V(a.leaves, lambda p: b.read(p) + c.mul(a.read(p) - b.read(p), self.nz))
            a, b = self.real(a), self.real(b)
            return b + c.mul(a - b, self.nz)
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
        if op == "•":
            s = self.real(a)
            if isinstance(b, V):
                return V(b.leaves, lambda p: s.mul(b.read(p), self.nz))
            return s.mul(self.real(b), self.nz)
        if isinstance(a, IPoly) and isinstance(b, IPoly) and op in ("+", "-", "*"):
            if op == "+":
                return a + b
            if op == "-":
                raise Unsupported("subtraction of natural numbers")
            ab = a * b
            self.factors.setdefault(ab, self.factors.get(a, [a]) + self.factors.get(b, [b]))
            return ab
        if op == "^":
            if not (isinstance(b, IPoly) and b.is_const()):
                raise Unsupported("a power that is not a numeral")
            out = P.const(1)
            for _ in range(b.const_value()):
                out = out.mul(self.real(a), self.nz)
            return out
        a, b = self.real(a), self.real(b)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a.mul(b, self.nz)
        if op == "/":
            return a.mul(self.inverse(b), self.nz)
        raise Unsupported(f"the operator {op}")

    def inverse(self, b: P) -> P:
        self.used.add("kernel:nf-inverse")
        if not b.d:
            return P()                                        # 0⁻¹ = 0
        if len(b.d) == 1:
            (m, c), = b.d.items()
            out = P.const(1 / c)
            for atom, e in m:
                inv = P({((atom, -e),): Fraction(1)}) if _may_invert(atom, self.nz) else \
                    P({((("inv", atom), e),): Fraction(1)})
                out = out.mul(inv, self.nz)
            return out
        lead = sorted(b.d.items(), key=repr)[0][1]
        return P.atom(("invp", b.scale(1 / lead).key())).scale(1 / lead)

    def cond(self, c: T.Term, env: dict) -> P:
        self.used.add("kernel:nf-indicator")
        if isinstance(c, T.And):
            return self.cond(c.lhs, env).mul(self.cond(c.rhs, env), self.nz)
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
                ind = P.atom(("ieq", d if lead > 0 else -d))
                return ind if op == "=" else P.const(1) - ind
            return P.atom(("ilt", d)) if op == "<" else P.const(1) - P.atom(("ilt", -d))
        d = self.real(b) - self.real(a)
        if d.d.keys() <= {()}:
            return _decide(op, d.d.get((), 0))
        if op == "<":
            return P.atom(("pos", d.key()))
        if op == "≤":
            return P.const(1) - P.atom(("pos", d.scale(Fraction(-1)).key()))
        raise Unsupported("an equation between reals as a condition")

    def lam(self, t: T.Lam, env: dict) -> Any:
        if t.vec is True or (t.vec is None and len(t.binders) > 1):
            sizes = [self.nat(b.ty.args[0], env) for b in t.binders]
            leaves = [x for b in t.binders for x in self.leaves(b.ty.args[0], env)]

            def read(p: IPoly) -> P:
                e = dict(env)
                for b, d in zip(t.binders, self.digits(p, sizes)):
                    e[b.name] = d
                return self.real(self.ev(t.body, e))
            return V(leaves, read)
        b0, rest = t.binders[0], t.binders[1:]
        dom = self.nat(b0.ty.args[0], env) if _head(b0.ty) == "Fin" else None
        body = T.Lam(rest, t.body, vec=t.vec) if rest else t.body
        return F(lambda x: self.ev(body, {**env, b0.name: x}), dom)

    def digits(self, p: IPoly, sizes: list[IPoly]) -> list[IPoly]:
        """``p = d₁·(B₂⋯Bₖ) + … + dₖ`` with every ``0 ≤ dⱼ < Bⱼ`` shown by the range check."""
        out: list[IPoly] = []
        if len(sizes) > 1:
            self.used |= {"kernel:nf-read", "oracle:index-range"}
        for b in reversed(sizes[1:]):
            mono = b.as_monomial()
            if mono is None or mono[0] <= 0:
                raise Unsupported("a vector read across a range that is not a monomial")
            q, r = p.divide_by_monomial(*mono)
            near = {v: self.bounds[v] for v in r.vars() if v in self.bounds}
            if not arith.below(r, b, near, self.nz):
                raise Unsupported("a digit of a flat index not shown in range")
            out.append(r)
            p = q
        out.append(p)
        return out[::-1]

    def sum(self, t: T.Sum, env: dict) -> P:
        e = dict(env)
        binders: list[tuple[str, IPoly]] = []
        for b in t.binders:
            lv = self.leaves(b.ty.args[0], e)
            e[b.name], digits = self.index(lv, lambda _: self.fresh())   # Σ_{i<1} f i = f 0
            binders += digits
        return self.mk_sum(binders, self.real(self.ev(t.body, e)))

    def mk_sum(self, binders: list[tuple[str, IPoly]], body: P) -> P:
        self.used.add("kernel:nf-sum")
        out = P()
        for m, c in body.d.items():
            out = out + self.sum_mono(binders, m).scale(c)
        return out

    def sum_mono(self, binders: list[tuple[str, IPoly]], mono: tuple) -> P:
        rng = dict(binders)
        memo: dict = {}
        indep, dep = [], []
        for atom, e in mono:
            (dep if ivars(atom, memo) & rng.keys() else indep).append((atom, e))
        factors: list[tuple] = []
        for atom, e in dep:                                   # absorb inner sums
            if atom[0] != "sum" or e <= 0:
                factors.append((atom, e))
                continue
            for _ in range(e):
                ren = {f"#{atom[3]}.{k}": self.fresh() for k in range(len(atom[1]))}
                rng.update(zip(ren.values(), atom[1]))
                factors.extend(rename(atom[2], ren))
        factors = self.merge(rng, factors, memo)
        used = frozenset().union(*(ivars(a, memo) for a, _ in factors))
        out = P({tuple(indep): Fraction(1)})
        for n, b in rng.items():
            if n not in used and b.is_zero():
                return P()
            if n not in used:
                out = out.mul(self.real(b), self.nz)          # Σ_{i<K} c = K·c
        live = [n for n in rng if n in used]
        if not live:
            return out.mul(P({_srt(factors): Fraction(1)}), self.nz)
        height = 1 + max([int(v[1:].split(".")[0]) for v in used
                          if v.startswith("#") and v[1:2].isdigit()], default=0)

        def mask(x: Any, me: str) -> Any:
            ren = {v: ("@" if v == me else "?") for v in ivars(x, memo)
                   if v.startswith("%") or v == me or v in rng}
            return repr(rename(x, ren))
        sig = {n: (repr(rng[n]), sorted(mask(f, n) for f in factors if n in ivars(f, memo)))
               for n in live}
        order = sorted(live, key=lambda n: sig[n])            # stable: ties in the order met
        ren = {n: f"#{height}.{k}" for k, n in enumerate(order)}
        merged: dict = {}
        for f, e in factors:
            f = rename(f, ren)
            merged[f] = merged.get(f, 0) + e
        body = _srt((f, e) for f, e in merged.items() if e)
        return out.mul(P.atom(("sum", tuple(rng[n] for n in order), body, height)), self.nz)

    def merge(self, rng: dict[str, IPoly], factors: list, memo: dict) -> list:
        """Σ_{u<U} Σ_{v<V} f(u·V + v) = Σ_{w<U·V} f(w): merge two binders when, after
        ``v := w − u·V``, the body no longer mentions ``u`` (the map is a bijection)."""
        while True:
            live = [n for n in rng if any(n in ivars(f, memo) for f, _ in factors)]
            for u, v in permutations(live, 2):
                self.tick()
                w = self.fresh()
                sub = {v: IPoly.var(w) - IPoly.var(u) * rng[v]}
                new = [(imap(f, lambda p: p.subst(sub)), e) for f, e in factors]
                if not any(u in ivars(f, memo) for f, _ in new):
                    self.used.add("kernel:nf-merge")
                    rng[w] = rng.pop(u) * rng.pop(v)
                    factors = new
                    break
            else:
                return factors

    # ---- globals
    def glob(self, name: str, args: tuple[T.Term, ...], env: dict) -> Any:
        d = self.decls.get(name)
        if d is None:
            raise Unsupported(f"`{name}` is not in scope")
        if d.kind not in ("def", "opaque"):
            raise Unsupported(f"`{name}` ({d.kind}) used as a term")
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
        return self.opaque(d, vals)

    def opaque(self, d: Any, vals: list) -> Any:
        self.used.add("kernel:opaque-congruence")
        if d.linear_in is not None:
            self.used.add("kernel:linear-jacobian")
        if _head(d.ret) == "ℝ":
            return P.atom(("f", d.name, tuple(self.real(v).key() for v in vals)))
        env = dict(zip(d.params, vals))
        sizes = tuple(v for v, ty in zip(vals, d.ptypes) if _head(ty) == "Nat")
        lv = self.leaves(d.ret.args[0], env)
        keys = tuple(self.argkey(v, ty, env) for p, v, ty in zip(d.params, vals, d.ptypes)
                     if _head(ty) != "Nat" and p != d.linear_in)
        if d.linear_in is None:
            return V(lv, lambda k: P.atom(("op", d.name, sizes, keys, k)))
        dy = env[d.linear_in]
        dlv = self.leaves(d.ptypes[d.params.index(d.linear_in)].args[0], env)

        def read(k: IPoly) -> P:
            flat, binders = self.index(dlv, lambda _: self.fresh(), unit=False)
            body = P.atom(("jac", d.name, sizes, keys, k, flat)).mul(dy.read(flat), self.nz)
            return self.mk_sum(binders, body)
        return V(lv, read)

    # ---- statements
    def statement(self, s: T.Term, env: dict) -> None:
        if isinstance(s, T.And):
            self.statement(s.lhs, env)
            self.statement(s.rhs, env)
        elif isinstance(s, T.Forall):
            e = dict(env)
            for b in s.binders:
                self.shadowed.add(b.name)
                e[b.name] = self.var_value(self.fresh(b.name + "'"), b.ty, e)
            self.statement(s.body, e)
        elif isinstance(s, T.App):
            # A `def` of a statement: its parameters are bound to the values of the arguments.
            d = self.decls.get(s.fn.name) if isinstance(s.fn, T.Var) else None
            if d is None or d.kind != "def" or d.body is None or len(s.args) != len(d.params):
                raise Unsupported("a statement that is not an equation")
            self.statement(d.body, {p: self.ev(a, env) for p, a in zip(d.params, s.args)})
        elif isinstance(s, T.Cmp) and s.op == "=":
            self.equal(self.ev(s.lhs, env), self.ev(s.rhs, env))
        elif isinstance(s, T.Cmp) and not T.free_names(s) & self.shadowed and \
                size_fact(s, self.hyps):
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


# --------------------------------------------------------------------------- statements

def check_statement(goal: Goal) -> set[str]:
    """Decide every equation of the goal by the kernel's normal form; raise when one fails."""
    nfc = NF(goal)
    env: dict[str, Any] = {}
    for name, ty in goal.types.items():               # sizes fixed by `a = b` hypotheses first
        if _head(ty) == "Nat":
            env[name] = IPoly.var(name)
    for h in goal.hyps.values():
        if isinstance(h, T.Cmp) and h.op == "=" and isinstance(h.lhs, T.Var) and \
                _head(goal.types.get(h.lhs.name)) == "Nat" and \
                h.lhs.name not in T.free_names(h.rhs):
            env[h.lhs.name] = nfc.nat(h.rhs, env)
    defined = _hypothesis_definitions(goal)
    for name, ty in goal.types.items():
        if _head(ty) == "Nat":
            continue
        if name not in defined:
            env[name] = nfc.var_value(name, ty, env)
            continue
        nfc.used.add("kernel:nf-hypothesis")
        bs, rhs = defined[name]
        if bs:                                        # evaluated when applied
            env[name] = nfc.lam(T.Lam(tuple(bs), rhs, vec=False), env)
        else:
            env[name] = Lazy(partial(nfc.ev, rhs, env))
    nfc.statement(goal.stmt, env)
    return nfc.used


def _hypothesis_definitions(goal: Goal) -> dict[str, tuple[list[T.Binder], T.Term]]:
    """Hypotheses ``∀ (r : Fin S), x r = RHS`` (``x`` a variable whose domain is exactly
    ``Fin S``, not mentioned in RHS) or ``x = RHS``: they say what ``x`` is."""
    out: dict[str, tuple[list[T.Binder], T.Term]] = {}
    for h in goal.hyps.values():
        h, bs = _strip_forall(h)
        if not (isinstance(h, T.Cmp) and h.op == "="):
            continue
        head, args = (h.lhs.fn, h.lhs.args) if isinstance(h.lhs, T.App) else (h.lhs, ())
        if not isinstance(head, T.Var) or head.name not in goal.types or head.name in out or \
                head.name in T.free_names(h.rhs) or list(args) != [T.Var(b.name) for b in bs]:
            continue
        ty = goal.types[head.name]
        for b in bs:
            if not (isinstance(ty, T.Arrow) and _head(b.ty) == "Fin" == _head(ty.dom) and
                    _holds(arith.sizes_equal, b.ty.args[0], ty.dom.args[0])):
                break
            ty = ty.cod
        else:
            out[head.name] = (bs, h.rhs)
    return out
