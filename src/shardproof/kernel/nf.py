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
from typing import Any

from .. import arith
from .. import terms as T

IPoly = arith.IPoly
IND = ("pos", "nonneg", "ieq", "ilt")       # indicator atoms: [c]² = [c]


class Unsupported(Exception):
    """The term is outside the kernel's normal-form fragment (the step is not accepted)."""


# --------------------------------------------------------------------------- polynomials

def _srt(xs) -> tuple:
    return tuple(sorted(xs, key=repr))


def mono_mul(a: tuple, b: tuple, nz: frozenset) -> tuple:
    d = dict(a)
    for atom, e in b:
        n = d.get(atom, 0) + e
        if atom[0] in IND:
            n = 1
        if n < 0 and not _may_invert(atom, nz):
            raise Unsupported("a negative power of an atom not known nonzero")
        d[atom] = n
    return _srt((x, e) for x, e in d.items() if e)


def _may_invert(atom: tuple, nz: frozenset) -> bool:
    if atom[0] == "n":
        return len(atom[1].vars()) == 1 and next(iter(atom[1].vars())) in nz and \
            atom[1] == IPoly.var(next(iter(atom[1].vars())))
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


def rename(x: Any, ren: dict[str, str]) -> Any:
    """Rename index variables everywhere in an atom/key, re-sorting what is sorted."""
    if isinstance(x, IPoly):
        return x.rename(ren)
    if isinstance(x, tuple):
        if x and x[0] == "P":
            return ("P", _srt((rename(m, ren), c) for m, c in x[1]))
        out = tuple(rename(e, ren) for e in x)
        if x and isinstance(x[0], tuple) and len(x[0]) == 2 and isinstance(x[0][1], int) \
                and isinstance(x[0][0], tuple):
            return _srt(out)                                    # a monomial
        return out
    return x


def isubst(x: Any, m: dict[str, IPoly]) -> Any:
    """Substitute index variables everywhere in an atom/key, re-sorting what is sorted."""
    if isinstance(x, IPoly):
        return x.subst(m)
    if isinstance(x, tuple):
        if x and x[0] == "P":
            return ("P", _srt((isubst(mo, m), c) for mo, c in x[1]))
        out = tuple(isubst(e, m) for e in x)
        if x and isinstance(x[0], tuple) and len(x[0]) == 2 and isinstance(x[0][1], int) \
                and isinstance(x[0][0], tuple):
            return _srt(out)                                    # a monomial
        return out
    return x


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
    """A vector: its size, the factors of its size (for fresh indices) and how to read it."""

    def __init__(self, size: IPoly, leaves: list[IPoly], read: Callable[[IPoly], P]) -> None:
        self.size, self.leaves, self.read = size, leaves, read


class F:
    """A function (a replica family, a per-example map, a partial application)."""

    def __init__(self, apply: Callable[[Any], Any], dom: list[IPoly] | None = None) -> None:
        self.apply, self.dom = apply, dom


class Lazy:
    def __init__(self, thunk: Callable[[], Any]) -> None:
        self.thunk, self.val, self.busy = thunk, None, False

    def force(self) -> Any:
        if self.val is None:
            if self.busy:
                raise Unsupported("hypotheses that define each other")
            self.busy = True
            self.val = self.thunk()
        return self.val


def leaves_of(t: T.Term) -> list[T.Term]:
    if isinstance(t, T.BinOp) and t.op == "*":
        return leaves_of(t.lhs) + leaves_of(t.rhs)
    return [t]


def _arrow(ty: T.Term) -> tuple[list[T.Term], T.Term]:
    doms = []
    while isinstance(ty, T.Arrow):
        doms.append(ty.dom)
        ty = ty.cod
    return doms, ty


def _head(ty: T.Term) -> str:
    if isinstance(ty, T.App) and isinstance(ty.fn, T.Var):
        return ty.fn.name
    return ty.name if isinstance(ty, T.Var) else ""


class NF:
    """Evaluates terms of one theorem into the kernel's normal form."""

    def __init__(self, decls: Any, nonzero: set[str], fuel: int = 400_000) -> None:
        self.decls, self.nz = decls, frozenset(nonzero)
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

    def fresh(self, bound: IPoly, base: str = "%") -> IPoly:
        self.counter += 1
        name = f"{base}{self.counter}"
        self.bounds[name] = bound
        return IPoly.var(name)

    # ---- values of the theorem's variables
    def var_value(self, name: str, ty: T.Term, env: dict, fam: tuple = ()) -> Any:
        h = _head(ty)
        if h == "Nat":
            return IPoly.var(name)
        if h == "ℝ":
            return P.atom(("x", name, fam))
        if h == "Fin":
            return self.index_var(name, ty.args[0], env)
        if h == "Vec":
            size_t = ty.args[0]
            lv = self.leaves(size_t, env)
            return V(self.nat(size_t, env), lv, lambda p: P.atom(("x", name, fam + (p,))))
        if isinstance(ty, T.Arrow):
            dom_h = _head(ty.dom)
            if dom_h == "Fin":
                return F(lambda r: self.var_value(name, ty.cod, env, fam + (r,)),
                         [self.nat(ty.dom.args[0], env)])
            if dom_h == "Vec":
                ins = [ty.dom]
                cod = ty.cod
                while isinstance(cod, T.Arrow):
                    ins.append(cod.dom)
                    cod = cod.cod

                def mk(got: list) -> Any:
                    if len(got) < len(ins):
                        return F(lambda v: mk(got + [v]))
                    keys = tuple(self.argkey(v, ty_, env) for v, ty_ in zip(got, ins))
                    return self.var_value(name, cod, env, fam + (("fv",) + keys,))
                return mk([])
        raise Unsupported(f"a variable of type {type(ty).__name__}")

    def index_var(self, name: str, size: T.Term, env: dict) -> IPoly:
        flat = None
        for k, b in enumerate(self.leaves(size, env)):
            d = IPoly() if b == IPoly.const(1) else IPoly.var(f"{name}.{k}")
            if not d.is_zero():
                self.bounds[f"{name}.{k}"] = b
            flat = d if flat is None else flat * b + d
        return flat

    def argkey(self, v: Any, ty: T.Term, env: dict) -> Any:
        """A canonical key for an op's argument: a vector read at reserved index names."""
        if isinstance(v, IPoly):
            return v
        if isinstance(v, P):
            return v.key()
        if not isinstance(v, V):
            raise Unsupported("a function passed to an opaque op")
        self.depth += 1
        try:
            size_t = ty.args[0] if _head(ty) == "Vec" else None
            lv = self.leaves(size_t, env) if size_t is not None \
                else v.leaves
            flat = None
            for k, b in enumerate(lv):
                name = f"#a{self.depth}.{k}"
                self.bounds[name] = b
                flat = IPoly.var(name) if flat is None else flat * b + IPoly.var(name)
            return ("vec", v.read(flat).key())
        finally:
            self.depth -= 1

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
            prod = IPoly.const(1)
            for x in out:
                prod = prod * x
            self.factors.setdefault(prod, out)
            return out
        v = self.nat(t, env)
        return list(self.factors.get(v, [v]))

    def real(self, v: Any) -> P:
        if isinstance(v, P):
            return v
        if isinstance(v, IPoly):                 # a size or index used as a real
            out = P()
            for m, c in v.terms:
                term = P.const(c)
                for name, e in m:
                    term = term.mul(P({((("n", IPoly.var(name)), e),): Fraction(1)}), self.nz)
                out = out + term
            return out
        raise Unsupported("a vector or function where a real is expected")

    # ---- evaluation
    def ev(self, t: T.Term, env: dict) -> Any:
        self.tick()
        if isinstance(t, T.Num):
            v = t.value
            return IPoly.const(int(v)) if v.denominator == 1 and v >= 0 else P.const(v)
        if isinstance(t, T.Var):
            if t.name in env:
                val = env[t.name]
                return val.force() if isinstance(val, Lazy) else val
            return self.glob(t.name, [], env)
        if isinstance(t, T.App):
            if isinstance(t.fn, T.Var) and t.fn.name not in env:
                return self.glob(t.fn.name, list(t.args), env)
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
                return V(a.size, a.leaves, lambda p: self.real(b.read(p)) +
                         c.mul(a.read(p) - b.read(p), self.nz))
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
                return V(b.size, b.leaves, lambda p: s.mul(b.read(p), self.nz))
            return s.mul(self.real(b), self.nz)
        if isinstance(a, IPoly) and isinstance(b, IPoly) and op in ("+", "*"):
            if op == "+":
                return a + b
            prod = a * b
            self.factors.setdefault(prod, self.factors.get(a, [a]) + self.factors.get(b, [b]))
            return prod
        if op == "^":
            if not (isinstance(b, IPoly) and b.is_const()):
                raise Unsupported("a power that is not a numeral")
            out = P.const(1)
            for _ in range(b.const_value()):
                out = out.mul(self.real(a), self.nz)
            return out
        if isinstance(a, IPoly) and isinstance(b, IPoly) and op == "-":
            raise Unsupported("subtraction of natural numbers")
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
                v = d.const_value()
                return P.const(int({"=": v == 0, "≠": v != 0, "<": v > 0, "≤": v >= 0}[op]))
            if op in ("=", "≠"):
                lead = sorted(d.terms, key=repr)[0][1]
                ind = P.atom(("ieq", d if lead > 0 else -d))
                return ind if op == "=" else P.const(1) - ind
            return P.atom(("ilt", d)) if op == "<" else P.const(1) - P.atom(("ilt", -d))
        d = self.real(b) - self.real(a)
        if not d.d or list(d.d) == [()]:
            v = d.d.get((), Fraction(0))
            return P.const(int({"=": v == 0, "≠": v != 0, "<": v > 0, "≤": v >= 0}[op]))
        if op == "<":
            return P.atom(("pos", d.key()))
        if op == "≤":
            return P.const(1) - P.atom(("pos", d.scale(Fraction(-1)).key()))
        raise Unsupported("an equation between reals as a condition")

    def lam(self, t: T.Lam, env: dict) -> Any:
        if t.vec is True or (t.vec is None and len(t.binders) > 1):
            sizes = [self.nat(b.ty.args[0], env) for b in t.binders]
            leaves = [x for b in t.binders for x in self.leaves(b.ty.args[0], env)]
            size = IPoly.const(1)
            for s in sizes:
                size = size * s

            def read(p: IPoly) -> P:
                e = dict(env)
                for b, d in zip(t.binders, self.digits(p, sizes)):
                    e[b.name] = d
                return self.real(self.ev(t.body, e))
            return V(size, leaves, read)
        b0, rest = t.binders[0], t.binders[1:]
        dom = [self.nat(b0.ty.args[0], env)] if _head(b0.ty) == "Fin" else None

        def app(x: Any) -> Any:
            e = dict(env)
            e[b0.name] = x
            return self.ev(T.Lam(rest, t.body, vec=t.vec) if rest else t.body, e)
        return F(app, dom)

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
            if not arith.below(r, b, self.bounds, self.nz):
                raise Unsupported("a digit of a flat index not shown in range")
            out.append(r)
            p = q
        out.append(p)
        return out[::-1]

    def sum(self, t: T.Sum, env: dict) -> P:
        e = dict(env)
        binders: list[tuple[str, IPoly]] = []
        for b in t.binders:
            flat = None
            for bound in self.leaves(b.ty.args[0], e):
                if bound == IPoly.const(1):                   # Σ_{i<1} f i = f 0
                    flat = IPoly() if flat is None else flat * bound
                    continue
                v = self.fresh(bound)
                binders.append((next(iter(v.vars())), bound))
                flat = v if flat is None else flat * bound + v
            e[b.name] = flat
        return self.mk_sum(binders, self.real(self.ev(t.body, e)))

    def mk_sum(self, binders: list[tuple[str, IPoly]], body: P) -> P:
        self.used.add("kernel:nf-sum")
        out = P()
        for m, c in body.d.items():
            out = out + self.sum_mono(binders, m).scale(c)
        return out

    def sum_mono(self, binders: list[tuple[str, IPoly]], mono: tuple) -> P:
        names = {n for n, _ in binders}
        memo: dict = {}
        indep, dep = [], []
        for atom, e in mono:
            (dep if ivars(atom, memo) & names else indep).append((atom, e))
        rng = {n: b for n, b in binders}
        factors: list[tuple] = []
        for atom, e in dep:                                   # absorb inner sums
            if atom[0] == "sum" and e > 0:
                for _ in range(e):
                    ren = {}
                    for k, b in enumerate(atom[1]):
                        v = self.fresh(b)
                        ren[f"#{atom[3]}.{k}"] = next(iter(v.vars()))
                        rng[ren[f"#{atom[3]}.{k}"]] = b
                    factors.extend(rename(atom[2], ren))
            else:
                factors.append((atom, e))
        factors = self.merge(rng, factors, memo)
        used = frozenset().union(*(ivars(a, memo) for a, _ in factors)) if factors else set()
        out = P({tuple(indep): Fraction(1)}) if indep else P.const(1)
        live = [n for n in rng if n in used]
        for n in rng:
            if n not in used and rng[n] != IPoly.const(0):
                out = out.mul(self.real(rng[n]), self.nz)     # Σ_{i<K} c = K·c
            elif n not in used:
                return P()
        if not live:
            return out.mul(P({_srt(factors): Fraction(1)}) if factors else P.const(1), self.nz)
        height = 1 + max([int(v[1:].split(".")[0]) for v in used
                          if v.startswith("#") and v[1:2].isdigit()], default=0)

        def mask(x: Any, me: str) -> Any:
            ren = {v: ("@" if v == me else "?") for v in ivars(x, memo)
                   if v.startswith("%") or v == me or v in rng}
            return repr(rename(x, ren))
        sig = {n: (repr(rng[n]), sorted(mask(f, n) for f in factors if n in ivars(f, memo)))
               for n in live}
        order = sorted(live, key=lambda n: (sig[n], live.index(n)))
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
        again = True
        while again:
            again = False
            live = [n for n in rng if any(n in ivars(f, memo) for f, _ in factors)]
            for u in live:
                for v in live:
                    if u == v:
                        continue
                    self.tick()
                    w = self.fresh(rng[u] * rng[v])
                    sub = {v: w - IPoly.var(u) * rng[v]}
                    new = [(isubst(f, sub), e) for f, e in factors]
                    if any(u in ivars(f, memo) for f, _ in new):
                        continue
                    self.used.add("kernel:nf-merge")
                    rng[next(iter(w.vars()))] = rng[u] * rng[v]
                    del rng[u], rng[v]
                    factors, again = new, True
                    break
                if again:
                    break
        return factors

    # ---- globals
    def glob(self, name: str, args: list[T.Term], env: dict) -> Any:
        d = self.decls.get(name)
        if d is None:
            raise Unsupported(f"`{name}` is not in scope")
        if d.kind == "def":
            if len(args) < len(d.params):
                vals = [self.ev(a, env) for a in args]
                return self._partial(d, vals)
            e = {p: self.ev(a, env) for p, a in zip(d.params, args)}
            out = self.ev(d.body, e)
            for a in args[len(d.params):]:
                out = self.apply(out, self.ev(a, env))
            return out
        if d.kind == "opaque":
            vals = [self.ev(a, env) for a in args]
            if len(vals) < len(d.params):
                return self._partial(d, vals)
            out = self.opaque(d, vals[:len(d.params)])
            for x in vals[len(d.params):]:
                out = self.apply(out, x)
            return out
        raise Unsupported(f"`{name}` ({d.kind}) used as a term")

    def _partial(self, d: Any, vals: list) -> F:
        def more(x: Any) -> Any:
            got = vals + [x]
            if len(got) < len(d.params):
                return self._partial(d, got)
            if d.kind == "def":
                return self.ev(d.body, dict(zip(d.params, got)))
            return self.opaque(d, got)
        return F(more)

    def opaque(self, d: Any, vals: list) -> Any:
        self.used.add("kernel:opaque-congruence")
        if d.linear_in is not None:
            self.used.add("kernel:linear-jacobian")
        env = dict(zip(d.params, vals))
        sizes = tuple(v for p, v, ty in zip(d.params, vals, d.ptypes) if _head(ty) == "Nat")
        if _head(d.ret) == "ℝ":
            keys = tuple(self.real(v).key() for v in vals)
            return P.atom(("f", d.name, keys))
        size_t = d.ret.args[0]
        lv = self.leaves(size_t, env)
        keys = tuple(self.argkey(v, ty, env) for p, v, ty in zip(d.params, vals, d.ptypes)
                     if _head(ty) != "Nat" and p != d.linear_in)
        if d.linear_in is None:
            return V(self.nat(size_t, env), lv,
                     lambda k: P.atom(("op", d.name, sizes, keys, k)))
        dy = env[d.linear_in]
        dy_t = d.ptypes[d.params.index(d.linear_in)]
        dlv = self.leaves(dy_t.args[0], env)

        def read(k: IPoly) -> P:
            binders, flat = [], None
            for b in dlv:
                v = self.fresh(b)
                binders.append((next(iter(v.vars())), b))
                flat = v if flat is None else flat * b + v
            body = P.atom(("jac", d.name, sizes, keys, k, flat)).mul(dy.read(flat), self.nz)
            return self.mk_sum(binders, body)
        return V(self.nat(size_t, env), lv, read)


# --------------------------------------------------------------------------- statements

def check_statement(stmt: T.Term, types: dict[str, T.Term], hyps: dict[str, T.Term],
                    decls: Any, unfold: Callable[[T.Term], T.Term | None],
                    size_fact: Callable[[T.Term], bool]) -> set[str]:
    """Decide every equation of ``stmt`` by the kernel's normal form; raise when one fails."""
    from . import nonzero_names
    nfc = NF(decls, nonzero_names(list(hyps.values())))
    env: dict[str, Any] = {}
    for name, ty in types.items():                    # sizes fixed by `a = b` hypotheses first
        if _head(ty) == "Nat":
            env[name] = IPoly.var(name)
    for h in hyps.values():
        if isinstance(h, T.Cmp) and h.op == "=" and isinstance(h.lhs, T.Var) and \
                _head(types.get(h.lhs.name, T.Var("")) ) == "Nat" and \
                h.lhs.name not in T.free_names(h.rhs):
            env[h.lhs.name] = nfc.nat(h.rhs, env)
    defined = _hypothesis_definitions(types, hyps)
    for name, ty in types.items():
        if _head(ty) == "Nat":
            continue
        if name in defined:
            nfc.used.add("kernel:nf-hypothesis")
            env[name] = _defined_value(nfc, defined[name], env)
        else:
            env[name] = nfc.var_value(name, ty, env)
    _statement(nfc, stmt, env, unfold, size_fact)
    return nfc.used


def _hypothesis_definitions(types: dict[str, T.Term], hyps: dict[str, T.Term]) -> dict:
    """Hypotheses ``∀ (r : Fin S), x r = RHS`` (``x`` a variable whose domain is exactly
    ``Fin S``, not mentioned in RHS) or ``x = RHS``: they say what ``x`` is."""
    out: dict[str, tuple[list[T.Binder], T.Term]] = {}
    for h in hyps.values():
        bs: list[T.Binder] = []
        while isinstance(h, T.Forall):
            bs.extend(h.binders)
            h = h.body
        if not (isinstance(h, T.Cmp) and h.op == "="):
            continue
        lhs = h.lhs
        args = list(lhs.args) if isinstance(lhs, T.App) else []
        head = lhs.fn if isinstance(lhs, T.App) else lhs
        if not isinstance(head, T.Var) or head.name not in types or head.name in out or \
                head.name in T.free_names(h.rhs):
            continue
        if [a for a in args] != [T.Var(b.name) for b in bs]:
            continue
        doms, _ = _arrow(types[head.name])
        if len(doms) < len(bs) or not all(
                b.ty is not None and _head(b.ty) == "Fin" and _head(d) == "Fin" and
                _sizes_equal(b.ty.args[0], d.args[0]) for b, d in zip(bs, doms)):
            continue
        out[head.name] = (bs, h.rhs)
    return out


def _sizes_equal(a: T.Term, b: T.Term) -> bool:
    try:
        return arith.sizes_equal(a, b)
    except arith.NotASize:
        return False


def _defined_value(nfc: NF, d: tuple[list[T.Binder], T.Term], env: dict) -> Any:
    bs, rhs = d
    if not bs:
        return Lazy(lambda: nfc.ev(rhs, env))

    def mk(k: int, e: dict) -> Any:
        if k == len(bs):
            return nfc.ev(rhs, e)

        def app(x: Any) -> Any:
            e2 = dict(e)
            e2[bs[k].name] = x
            return mk(k + 1, e2)
        return F(app)
    return mk(0, env)


def _statement(nfc: NF, s: T.Term, env: dict, unfold, size_fact) -> None:
    if isinstance(s, T.And):
        _statement(nfc, s.lhs, env, unfold, size_fact)
        _statement(nfc, s.rhs, env, unfold, size_fact)
        return
    if isinstance(s, T.Forall):
        e = dict(env)
        for b in s.binders:
            nfc.counter += 1
            nfc.shadowed.add(b.name)
            e[b.name] = nfc.var_value(f"{b.name}'{nfc.counter}", b.ty, e)
        _statement(nfc, s.body, e, unfold, size_fact)
        return
    if isinstance(s, T.App):
        u = unfold(s)
        if u is None:
            raise Unsupported("a statement that is not an equation")
        # A `def` of a statement: its parameters are bound to the values of the arguments.
        _statement_def(nfc, s, env, unfold, size_fact)
        return
    if isinstance(s, T.Cmp) and s.op == "=":
        _equal(nfc, nfc.ev(s.lhs, env), nfc.ev(s.rhs, env))
        return
    if isinstance(s, T.Cmp) and not (T.free_names(s) & nfc.shadowed) and size_fact(s):
        nfc.used.add("kernel:size-fact")
        return
    raise Unsupported(f"a statement of the form {type(s).__name__}")


def _statement_def(nfc: NF, s: T.App, env: dict, unfold, size_fact) -> None:
    d = nfc.decls.get(s.fn.name) if isinstance(s.fn, T.Var) else None
    if d is None or d.kind != "def" or len(s.args) != len(d.params):
        raise Unsupported("a statement that is not an equation")
    e = {p: nfc.ev(a, env) for p, a in zip(d.params, s.args)}
    _statement(nfc, d.body, e, unfold, size_fact)


def _equal(nfc: NF, a: Any, b: Any) -> None:
    if isinstance(a, V) and isinstance(b, V):
        if a.size != b.size:
            raise Unsupported("vectors of different sizes")
        leaves = max((a.leaves, b.leaves), key=len)
        prod = IPoly.const(1)
        for x in leaves:
            prod = prod * x
        if prod != a.size:
            raise Unsupported("the factors of the size do not multiply to it")
        flat = None
        for b_ in leaves:
            v = nfc.fresh(b_, "@o") if b_ != IPoly.const(1) else IPoly()
            flat = v if flat is None else flat * b_ + v
        _equal(nfc, a.read(flat), b.read(flat))
        return
    if isinstance(a, F) and isinstance(b, F):
        dom = a.dom or b.dom
        if dom is None:
            raise Unsupported("an equation between maps")
        r = nfc.fresh(dom[0], "@r")
        _equal(nfc, a.apply(r), b.apply(r))
        return
    if isinstance(a, IPoly) and isinstance(b, IPoly):
        if a != b:
            raise Unsupported("the two sizes differ")
        return
    pa, pb = nfc.real(a), nfc.real(b)
    if pa.d != pb.d:
        raise Unsupported("the kernel's normal forms of the two sides differ")
