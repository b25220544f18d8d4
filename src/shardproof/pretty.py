"""Printing terms back to `.lemma` syntax (Unicode by default, ASCII on request).

``parse_expr(pretty(t)) == t`` for every term the parser can produce: the printer adds
parentheses exactly where the grammar's precedences need them.
"""

from __future__ import annotations

from fractions import Fraction

from . import terms as T

# Binding strength, loosest first (mirrors grammar.lark).
_OPEN, _ARROW, _AND, _REL, _ADD, _MUL, _SMUL, _NEG, _POW, _APP, _POST, _ATOM = range(12)

_ASCII = {"∀": "forall", "∃": "exists", "→": "->", "∧": "/\\", "≠": "!=", "≤": "<=", "≥": ">=", "•": "smul",
          "∑": "sum", "ℝ": "Real", "↦": "=>"}


def _num(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    # Decimals print exactly when the denominator divides a power of ten; else as a quotient.
    d = v.denominator
    k = 0
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:
        if d % 10 == 0:
            d //= 10
        elif d % 2 == 0:
            d //= 2
        else:
            d //= 5
        k += 1
    if d == 1:
        s = f"{Fraction(v.numerator * 10**k, v.denominator).numerator}"
        s = s.rjust(k + 1, "0")
        return s[:-k] + "." + s[-k:]
    return f"({v.numerator} / {v.denominator})"


def pretty(t: T.Term, ascii_only: bool = False) -> str:
    # The last term printed is remembered (by identity: terms are immutable): a trace entry
    # prints the same subterm several times in a row.
    global _LAST
    last = _LAST
    if t is last[0]:
        s = last[1]
    else:
        s = _p(t)
        _LAST = (t, s)
    if ascii_only:
        for u, a in _ASCII.items():
            s = s.replace(u, a)
    return s


def _wrap(s: str, prec: int, need: int) -> str:
    return f"({s})" if prec < need else s


def _binders(bs: tuple[T.Binder, ...]) -> str:
    if all(b.ty is None for b in bs):
        return " ".join(b.name for b in bs)
    parts = []
    for b in bs:
        if b.ty is None:
            parts.append(b.name)
        else:
            l, r = ("{", "}") if b.implicit else ("(", ")")
            parts.append(f"{l}{b.name} : {_p(b.ty)}{r}")
    return " ".join(parts)


_LAST: tuple = (None, "")

_PREC_OF = {T.Lam: _OPEN, T.Sum: _OPEN, T.Forall: _OPEN, T.Exists: _OPEN, T.Ite: _OPEN,
            T.Arrow: _ARROW, T.And: _AND, T.Cmp: _REL, T.Neg: _NEG, T.App: _APP,
            T.Index: _POST}
_PREC_OF_OP = {"+": _ADD, "-": _ADD, "*": _MUL, "/": _MUL, "•": _SMUL, "^": _POW}


def _prec(t: T.Term) -> int:
    cls = type(t)
    if cls is T.BinOp:
        return _PREC_OF_OP[t.op]
    p = _PREC_OF.get(cls)
    if p is not None:
        return p
    return _prec_slow(t)


def _prec_slow(t: T.Term) -> int:
    if isinstance(t, (T.Lam, T.Sum, T.Forall, T.Exists, T.Ite)):
        return _OPEN
    if isinstance(t, T.Arrow):
        return _ARROW
    if isinstance(t, T.And):
        return _AND
    if isinstance(t, T.Cmp):
        return _REL
    if isinstance(t, T.BinOp):
        return {"+": _ADD, "-": _ADD, "*": _MUL, "/": _MUL, "•": _SMUL, "^": _POW}[t.op]
    if isinstance(t, T.Neg):
        return _NEG
    if isinstance(t, T.App):
        return _ATOM if _is_cast(t) else _APP
    if isinstance(t, T.Index):
        return _POST
    return _ATOM   # (a numeral is an atom: a fraction prints in its own parentheses)


def _is_cast(t: T.App) -> bool:
    return isinstance(t.fn, T.Var) and t.fn.name == "toReal" and len(t.args) == 1


def _p(t: T.Term, need: int = _OPEN) -> str:
    cls = type(t)
    if cls is T.Var:
        return t.name           # an atom: never wrapped
    s = _raw(t)
    return f"({s})" if _prec(t) < need else s


def proof_suffix(t: T.Theorem) -> str:
    """` := by …` as written; nothing for a theorem written without a proof."""
    return "" if t.proof is None or t.proof.implicit else f" := {_raw(t.proof)}"


def _raw(t: T.Term) -> str:
    if isinstance(t, T.Var):
        return t.name
    if isinstance(t, T.Num):
        return _num(t.value) + (".0" if t.decimal and t.value.denominator == 1 else "")
    if isinstance(t, T.NamedArg):
        return f"({t.name} := {_p(t.value)})"
    if isinstance(t, T.App):
        if _is_cast(t):            # the parser's `toReal e` for `(e : ℝ)`: shown as written
            return f"({_p(t.args[0])} : ℝ)"
        return " ".join([_p(t.fn, _APP)] + [_p(a, _POST) for a in t.args])
    if isinstance(t, T.Index):
        return _p(t.base, _POST) + "[" + ", ".join(_p(i) for i in t.indices) + "]"
    if isinstance(t, T.BinOp):
        if t.op in ("+", "-"):
            return f"{_p(t.lhs, _ADD)} {t.op} {_p(t.rhs, _MUL)}"
        if t.op in ("*", "/"):
            return f"{_p(t.lhs, _MUL)} {t.op} {_p(t.rhs, _SMUL)}"
        if t.op == "•":
            return f"{_p(t.lhs, _NEG)} • {_p(t.rhs, _SMUL)}"
        return f"{_p(t.lhs, _APP)} ^ {_p(t.rhs, _NEG)}"
    if isinstance(t, T.Neg):
        inner = _p(t.arg, _NEG)
        return f"-({inner})" if inner.startswith("-") else f"-{inner}"
    if isinstance(t, T.Lam):
        return f"fun {_binders(t.binders)} => {_p(t.body)}"
    if isinstance(t, T.Sum):      # `∑ i, a + b` is refused (Lean reads it `(∑ i, a) + b`)
        body = _p(t.body)         # (and `∑ i, a = b`, `∑ i, a ∧ b`)
        if isinstance(t.body, T.BinOp) and t.body.op in ("+", "-") or \
                isinstance(t.body, (T.Cmp, T.And)):
            body = f"({body})"
        return f"∑ {_binders(t.binders)}, {body}"
    if isinstance(t, T.Forall):
        return f"∀ {_binders(t.binders)}, {_p(t.body)}"
    if isinstance(t, T.Exists):
        return f"∃ {_binders(t.binders)}, {_p(t.body)}"
    if isinstance(t, T.Ite):
        return f"if {_p(t.cond)} then {_p(t.then)} else {_p(t.els)}"
    if isinstance(t, T.Cmp):
        return f"{_p(t.lhs, _ADD)} {t.op} {_p(t.rhs, _ADD)}"
    if isinstance(t, T.And):
        return f"{_p(t.lhs, _REL)} ∧ {_p(t.rhs, _AND)}"
    if isinstance(t, T.Arrow):
        return f"{_p(t.dom, _AND)} → {_p(t.cod, _OPEN)}"
    if isinstance(t, T.VecLit):
        return "![" + ", ".join(_p(i) for i in t.items) + "]"
    if isinstance(t, T.Binder):
        return _binders((t,))
    if isinstance(t, T.Proof):
        return "by " + "; ".join(_raw(s) for s in t.steps)
    if isinstance(t, T.ProofStep):
        s = t.tactic
        if t.names:
            s += " [" + ", ".join(n.name for n in t.names) + "]"
        for a in t.assignments:
            s += " " + _raw(a)
        return s
    if isinstance(t, T.Theorem):
        doc = f"/-- {t.doc} -/\n" if t.doc else ""
        bs = (" " + _binders(t.binders)) if t.binders else ""
        return f"{doc}theorem {t.name}{bs} :\n    {_p(t.stmt)}{proof_suffix(t)}"
    if isinstance(t, T.Def):
        doc = f"/-- {t.doc} -/\n" if t.doc else ""
        bs = (" " + _binders(t.binders)) if t.binders else ""
        return f"{doc}def {t.name}{bs} : {_p(t.ret)} :=\n  {_p(t.body)}"
    if isinstance(t, T.Opaque):
        doc = f"/-- {t.doc} -/\n" if t.doc else ""
        attr = f"@[linear {t.linear_in}] " if t.linear_in else ""
        bs = (" " + _binders(t.binders)) if t.binders else ""
        return f"{doc}{attr}opaque {t.name}{bs} : {_p(t.ret)}"
    if isinstance(t, T.Import):
        return "import " + ".".join(t.path)
    if isinstance(t, T.Variable):
        return "variable " + _binders(t.binders)
    if isinstance(t, T.Include):
        return "include " + " ".join(t.names)
    if isinstance(t, T.Module):
        head = f"/-! {t.header} -/\n\n" if t.header else ""
        return head + "\n\n".join(_raw(d) for d in t.decls) + "\n"
    raise TypeError(f"cannot print {type(t).__name__}")


def clip(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, an ellipsis marking the cut (a term in a message)."""
    return text if len(text) <= limit else text[:limit] + " …"
