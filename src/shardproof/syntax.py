"""Parsing: `.lemma` text → frozen terms (:mod:`shardproof.terms`) with source spans.

The grammar lives in ``grammar.lark`` (shipped as package data).  Lark builds the LALR(1) tables
and the lexer; :class:`_FastParser` runs them and builds the terms in one pass.  Text it rejects
is parsed again by Lark itself, whose errors are turned into
:class:`~shardproof.errors.ParseError` with ``file:line:col``, what was found and what was expected.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from functools import lru_cache
from importlib import resources

from lark import Lark, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import terms as T
from .errors import ParseError, ShardproofError, Span

# What a user should read instead of Lark's terminal names.
_TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "DECIMAL": "a number", "RELOP": "a relation (= ≠ < ≤)",
    "MULOP": "`*`", "ARROW": "`→`", "AND": "`∧`", "DOCSTRING": "a docstring", "FILEDOC": "`/-! … -/`",
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "COMMA": "`,`", "COLON": "`:`", "SEMICOLON": "`;`", "PLUS": "`+`", "MINUS": "`-`",
    "SLASH": "`/`", "CIRCUMFLEX": "`^`", "DOT": "`.`", "_MAPSTO": "`=>`",
    "$END": "end of file",
}

# Input limits.  Parsing costs ~4 µs a token (~18 µs through Lark, which reports errors), so a
# 1 MB line of tokens would take seconds: longer lines are rejected up front.  Deeper nesting
# than any real lemma (the prelude peaks at 23) is rejected before the recursive builder (on
# Lark's tree) and the elaborator can overflow the stack.
MAX_LINE_CHARS = 20_000
MAX_NESTING = 100

# The declaration a position is inside (for errors found before there are any terms).
_DECL_NAME = re.compile(r"^[ \t]*(?:@\[[^\]\n]*\][ \t]*)?(theorem|lemma|def|opaque)[ \t]+"
                        r"([^\s(){}:]+)", re.MULTILINE)       # (keyword, name)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    text = resources.files("shardproof").joinpath("grammar.lark").read_text(encoding="utf-8")
    # cache=True keeps the LALR tables in a temporary file named by the grammar's hash (saves
    # ~65 ms per process; the tables are a pure function of the grammar).
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=False,
                cache=True)


# The tokens a term may start with.
_TERM_STARTS = {"a name", "a number", "`(`", "`-`", "`![`", "`∑`", "`Σ`", "`∀`", "`∃`", "`λ`",
                "`fun`", "`if`", "`sum`", "`forall`", "`exists`"}
_A_TERM = "a term (a name, a number, `(`, `fun`, `∑`, …)"
_AN_OPERAND = "a term (a name, a number, `(`, …)"     # where a `∑`/`fun` cannot start one


def _describe_expected(expected: set[str]) -> str:
    p = _parser()
    words: set[str] = set()
    for name in expected:
        if name in _TOKEN_WORDS:
            words.add(_TOKEN_WORDS[name])
            continue
        try:
            term = p.get_terminal(name)
            pat = term.pattern
            words.add(f"`{pat.value}`" if pat.type == "str" else name.lower())
        except KeyError:
            words.add(name.lower())
    if {"a name", "a number", "`(`"} <= words:   # Lark lists every token a term may begin
        # with (the set differs from place to place: `x + ∀` is not a term): say "a term"
        others = sorted(words - _TERM_STARTS)
        what = _A_TERM if "`∑`" in words else _AN_OPERAND
        return what + "".join(f" or {w}" for w in others)
    ordered = sorted(words)
    if len(ordered) > 8:
        ordered = ordered[:8] + ["…"]
    return ", ".join(ordered)


def _span_setters() -> tuple | None:
    """The slot setters of :class:`Span`'s fields, in order, for building a span without its
    frozen dataclass ``__init__`` (which sets each field through ``object.__setattr__``; the
    fast parser makes one span per rule it builds, a tenth of its time).  The object is the
    same (its fields set, nothing else; ``Span`` has no ``__post_init__``).  None when
    ``Span`` is not the slotted five-field class this expects: then ``Span(...)`` is called."""
    names = tuple(f.name for f in dataclasses.fields(Span))
    if names != ("path", "line", "col", "end_line", "end_col") or \
            hasattr(Span, "__post_init__") or "__slots__" not in Span.__dict__ or \
            Span.__new__ is not object.__new__:
        return None
    try:
        return tuple(Span.__dict__[n].__set__ for n in names)
    except (KeyError, AttributeError):
        return None


_SPAN_SETTERS = _span_setters()


def _make_span(path: str, line: int, col: int, end_line: int, end_col: int) -> Span:
    """``Span(path, line, col, end_line, end_col)``, built as :func:`_span_setters` says."""
    if _SPAN_SETTERS is None:
        return Span(path, line, col, end_line, end_col)
    set_path, set_line, set_col, set_end_line, set_end_col = _SPAN_SETTERS
    s = object.__new__(Span)
    set_path(s, path)
    set_line(s, line)
    set_col(s, col)
    set_end_line(s, end_line)
    set_end_col(s, end_col)
    return s


# ---- building terms ------------------------------------------------------------------------------
#
# Both parsers below (the fast driver and the reference walk over Lark's tree) hand a rule's
# children to the same builder method, as *entries*: tuples ``(value, line, col, end_line,
# end_col, height)``.  A token's value is its text; a rule's value is what its method built.  The
# positions are the child's extent (what Lark's ``propagate_positions`` calls its container) and
# ``height`` its depth in Lark's tree (0 for a token), for the nesting limit.  Only tokens'
# positions are read here; a rule's own extent comes as ``span``.


class _Builder:
    """Rule children → terms.  One method per rule name (its alias, else its name)."""

    def __init__(self, path: str, text: str = "") -> None:
        self.path = path
        self.text = text             # (the source: a `∑` body's parentheses are read from it)

    def _tok_span(self, tok: tuple) -> Span:
        return _make_span(self.path, tok[1], tok[2], tok[3], tok[4])

    # ---- items
    def start(self, kids, span):
        header = None
        decls = []
        for k in kids:
            it = k[0]
            if isinstance(it, str):
                header = it if header is None else header + "\n" + it
            else:
                decls.append(it)
        return T.Module(self.path, header, tuple(decls), span=span)

    def filedoc(self, kids, span):
        return kids[0][0][3:-2].strip()

    def import_(self, kids, span):
        return T.Import(kids[0][0], span=span)

    def dotted(self, kids, span):
        for a, b in zip(kids, kids[1:]):     # `kit.defs`, one word as in Lean: no space at a dot
            if (a[3], a[4] + 1) != (b[1], b[2]):
                raise ParseError("an import path is one dotted name, with no space around its "
                                 "dots (`kit.defs`)", Span(self.path, a[3], a[4], b[1], b[2]))
        return tuple(k[0] for k in kids)

    def variable(self, kids, span):
        return T.Variable(_flatten_binders(k[0] for k in kids), span=span)

    def ascription(self, kids, span):
        """`(e : ℝ)`, Lean's cast of `e` to the reals: the prelude's `toReal e`."""
        ty = kids[1][0]
        if not (isinstance(ty, T.Var) and ty.name in ("ℝ", "Real")):
            raise ParseError("a type ascription `(e : T)` is only `(e : ℝ)` here: `e` read as a "
                             "real (Lean's cast `↑e`)", ty.span)
        return T.App(T.Var("toReal", span=ty.span), (kids[0][0],), span=span)

    def include(self, kids, span):
        return T.Include(tuple(k[0] for k in kids), tuple(self._tok_span(k) for k in kids),
                         span=span)

    def decl(self, kids, span):
        doc = None
        attr = None
        body = kids[-1][0]
        for k in kids[:-1]:
            it = k[0]
            if isinstance(it, str):  # the only token a `decl` keeps is its DOCSTRING
                doc = it[3:-2].strip()
            elif isinstance(it, tuple):
                attr = it
        if attr is not None:
            if not isinstance(body, T.Opaque) or attr[0] != "linear":
                raise ParseError(f"unknown attribute `@[{attr[0]} {attr[1]}]` (only "
                                 "`@[linear x]` on an `opaque` declaration)", attr[2])
            body = T.Opaque(body.name, body.binders, body.ret, attr[1], doc, span=body.span)
        elif doc is not None:
            body = type(body)(*[getattr(body, f) for f in _fields_without_span(body)
                                if f != "doc"], doc=doc, span=body.span)
        return body

    def attr(self, kids, span):
        return (kids[0][0], kids[1][0], self._tok_span(kids[0]))

    def theorem(self, kids, span):
        name = kids[0][0]
        rest = [k[0] for k in kids[1:]]
        proof = None
        if rest and isinstance(rest[-1], T.Proof):
            proof = rest[-1]
            rest = rest[:-1]
        stmt = rest[-1]
        binders = _flatten_binders(rest[:-1])
        if proof is None:
            proof = T.Proof((T.ProofStep("norm", span=span),), span=span, implicit=True)
        return T.Theorem(name, binders, stmt, proof, None, span=span)

    def def_(self, kids, span):
        binders = _flatten_binders(k[0] for k in kids[1:-2])
        return T.Def(kids[0][0], binders, kids[-2][0], kids[-1][0], None, span=span)

    def opaque(self, kids, span):
        binders = _flatten_binders(k[0] for k in kids[1:-1])
        return T.Opaque(kids[0][0], binders, kids[-1][0], None, None, span=span)

    def explicit_binder(self, kids, span):
        return self._binders(kids, False)

    def implicit_binder(self, kids, span):
        return self._binders(kids, True)

    def _binders(self, kids, implicit):
        ty = kids[-1][0]
        return tuple(T.Binder(n[0], ty, implicit, span=self._tok_span(n)) for n in kids[:-1])

    def proof(self, kids, span):
        return T.Proof(tuple(k[0] for k in kids), span=span)

    def tactic(self, kids, span):
        names: tuple[T.Var, ...] = ()
        assigns: list[T.NamedArg] = []
        for k in kids[1:]:
            it = k[0]
            if isinstance(it, tuple):
                names = it
            else:
                assigns.append(it)
        return T.ProofStep(kids[0][0], names, tuple(assigns), span=self._tok_span(kids[0]))

    def tactic_names(self, kids, span):
        return tuple(T.Var(k[0], span=self._tok_span(k)) for k in kids)

    def named_arg(self, kids, span):
        return T.NamedArg(kids[0][0], kids[1][0], span=span)

    # ---- expressions
    def lam(self, kids, span):
        return T.Lam(kids[0][0], kids[1][0], span=span)

    def sum(self, kids, span):
        binders = kids[0][0]
        if any(b.name == "in" for b in binders):     # read as binders `i in s`
            raise ParseError(_SUM_IN, next(b.span for b in binders if b.name == "in"))
        out = T.Sum(binders, kids[1][0], span=span)
        _check_sum_body(out, self.text)
        return out

    def forall_(self, kids, span):
        return T.Forall(kids[0][0], kids[1][0], span=span)

    def exists_(self, kids, span):
        return T.Exists(kids[0][0], kids[1][0], span=span)

    def ite(self, kids, span):
        return T.Ite(kids[0][0], kids[1][0], kids[2][0], span=span)

    def untyped_binders(self, kids, span):
        return tuple(T.Binder(n[0], None, span=self._tok_span(n)) for n in kids)

    def one_typed_binders(self, kids, span):
        ty = kids[-1][0]
        return tuple(T.Binder(n[0], ty, span=self._tok_span(n)) for n in kids[:-1])

    def typed_binders(self, kids, span):
        return _flatten_binders(k[0] for k in kids)

    paren_binder = one_typed_binders

    def arrow(self, kids, span):
        return T.Arrow(kids[0][0], kids[-1][0], span=span)

    def and_(self, kids, span):
        return T.And(kids[0][0], kids[-1][0], span=span)

    def cmp(self, kids, span):
        op = kids[1][0]
        op = {"!=": "≠", "<=": "≤", ">=": "≥"}.get(op, op)
        return T.Cmp(op, kids[0][0], kids[2][0], span=span)

    def add(self, kids, span):
        return T.BinOp("+", kids[0][0], kids[-1][0], span=span)

    def sub(self, kids, span):
        return T.BinOp("-", kids[0][0], kids[-1][0], span=span)

    def mul(self, kids, span):
        return T.BinOp("*", kids[0][0], kids[-1][0], span=span)

    def div(self, kids, span):
        return T.BinOp("/", kids[0][0], kids[-1][0], span=span)

    def smul(self, kids, span):
        return T.BinOp("•", kids[0][0], kids[-1][0], span=span)

    def pow(self, kids, span):
        return T.BinOp("^", kids[0][0], kids[-1][0], span=span)

    def neg(self, kids, span):
        return T.Neg(kids[0][0], span=span)

    def app(self, kids, span):
        fn = kids[0][0]
        arg = kids[1][0]
        if isinstance(fn, T.App):
            return T.App(fn.fn, fn.args + (arg,), span=span)
        return T.App(fn, (arg,), span=span)

    def index(self, kids, span):
        return T.Index(kids[0][0], tuple(k[0] for k in kids[1:]), span=span)

    # An atom's span is its token's.
    def var(self, kids, span):
        return T.Var(kids[0][0], span=span)

    def num(self, kids, span):
        return T.Num(Fraction(int(kids[0][0])), span=span)

    def dec(self, kids, span):
        return T.Num(Fraction(kids[0][0]), span=span, decimal=True)

    named = named_arg

    def veclit(self, kids, span):
        return T.VecLit(tuple(k[0] for k in kids), span=span)


def _fields_without_span(t: T.Term) -> list[str]:
    return [f for f in t.__dataclass_fields__ if f != "span"]


def _flatten_binders(groups) -> tuple[T.Binder, ...]:
    out: list[T.Binder] = []
    for g in groups:
        out.extend(g)
    return tuple(out)


# ---- the fast parser ---------------------------------------------------------------------------
#
# Through Lark, parsing costs about 18 µs a token: every reduction (3.6 a token, most of them the
# unit steps of the precedence chain `expr → arrow_e → … → atom`) goes through a chain of wrapper
# objects and builds a Tree and a Meta, every token is a Token object, and the terms come from a
# second, recursive pass.  The driver below runs the same LALR tables and the same contextual
# lexer in one loop that builds terms directly (about 4 µs a token): a chain of unit steps is one
# memo lookup, punctuation never becomes an object, and a rule's span is the extent of its first
# and last child, exactly as Lark's ``propagate_positions`` computes it.  It only has to be right
# on input that parses: on any error (or nesting past MAX_NESTING, or a builder's ParseError)
# :func:`parse_module` parses again with Lark itself, which reports it exactly as before.
# tests/test_syntax_fast.py checks that both give identical terms and spans.

class _Reject(Exception):
    """The fast parser saw an error; Lark will parse the text again and report it."""


# Kinds of reduction: PASS, a step of a `?rule` that keeps its only kept child (and widens the
# child's extent, e.g. to the parentheses around it); SPLICE, an inlined helper rule (`item*`,
# `NAME+`) whose children join its parent's; BUILD, a rule with a builder method.  The unit steps
# (a `?rule` with one child and nothing else) are not reductions here: see _UnitSteps.
_PASS, _SPLICE, _BUILD = range(3)
_NAME_ATOM = 3      # BUILD of the atom `var: NAME` (a third of all reductions), done inline


class _UnitSteps(dict):
    """The action "reduce by a unit rule `?a: b`" in a state, for one lookahead.

    A unit step keeps the value and replaces the top state by the goto on `a` of the state below
    it, which the following unit steps (up the precedence chain) keep under them.  So the state
    reached after the whole chain depends only on that state below: this dict remembers it.
    """

    __slots__ = ("origin",)

    def __init__(self, origin: str) -> None:
        super().__init__()
        self.origin = origin


class _Keywords(dict):
    """Spelling → terminal type for one terminal that keywords share (`def` is a NAME too).

    Lark's lexer retypes such a token with a callback; this remembers its answers.
    """

    def __init__(self, ttype: str, callback, token_class) -> None:
        super().__init__()
        self.ttype, self.callback, self.token_class = ttype, callback, token_class

    def __missing__(self, value: str) -> str:
        self[value] = self.callback(self.token_class(self.ttype, value)).type
        return self[value]


class _PartialApp:
    """An application `f a b …` still being read: the fast parser reduces `app` once per
    argument, and :meth:`_Builder.app` would build an App each time.  ``done`` builds the App
    that the last of those reductions would have built (the arguments so far, that reduction's
    span).  A rule's value is read by one reduction only, so the list is extended in place."""

    __slots__ = ("fn", "args", "span")

    def __init__(self, fn: T.Term, args: list[T.Term], span: Span | None) -> None:
        self.fn, self.args, self.span = fn, args, span

    def done(self) -> T.App:
        return T.App(self.fn, tuple(self.args), span=self.span)


class _FastParser:
    """Lark's LALR(1) tables and contextual lexer, run by a loop specialised to the builder."""

    def __init__(self, lark: Lark) -> None:
        from lark.lexer import Token, UnlessCallback
        from lark.parsers.lalr_analysis import Shift

        opts = lark.options
        if (opts.maybe_placeholders or opts.lexer != "contextual" or opts.postlex is not None
                or opts.regex or opts.use_bytes):
            raise NotImplementedError("a Lark configuration this driver does not replicate")
        table = lark.parser.parser.parser.parse_table
        self._contextual = lark.parser.lexer.lexers       # parser state -> Lark's BasicLexer
        self._token, self._unless_type = Token, UnlessCallback
        self.start = table.start_states["start"]
        self.end = table.end_states["start"]
        # actions[state][symbol]: shift (or goto) to state s is s >= 0, reduce by rule r is ~r,
        # a unit step is a _UnitSteps.
        self.actions: list[dict] = [{} for _ in range(max(table.states) + 1)]
        self.rules: list[tuple] = []
        index: dict[object, int] = {}
        for state, row in table.states.items():
            for sym, (action, arg) in row.items():
                if action is Shift:
                    self.actions[state][sym] = arg
                    continue
                plan = self._plan(arg)
                if plan is None:
                    self.actions[state][sym] = _UnitSteps(arg.origin.name)
                    continue
                if arg not in index:
                    index[arg] = len(self.rules)
                    self.rules.append(plan)
                self.actions[state][sym] = ~index[arg]
        self.lexers: list[tuple | None] = [None] * len(self.actions)
        self._compiled: dict[int, tuple] = {}
        self.ignore = frozenset(lark.lexer_conf.ignore)

    @staticmethod
    def _plan(rule) -> tuple | None:
        """(size, origin, kind, kept, method, rules) for one rule, None for a unit step.

        This is Lark's ParseTreeBuilder unrolled.  ``kept`` lists (child index, splice?) of the
        children Lark keeps: anonymous and `_`-named terminals are dropped, the children of
        `_`-named rules are spliced in.  It is None when every child is kept as it is.
        ``rules``: whether a kept child is a rule (whose value may be a :class:`_PartialApp`).
        """
        size = len(rule.expansion)
        kept = [(i, not sym.is_term and sym.name.startswith("_"))
                for i, sym in enumerate(rule.expansion)
                if rule.options.keep_all_tokens or not (sym.is_term and sym.filter_out)]
        plain = len(kept) == size and not any(s for _, s in kept)
        name = rule.alias or rule.options.template_source or rule.origin.name
        method = getattr(_Builder, name, None)
        if size == 0 and rule.origin.name != "start":
            # Lark would give an empty child the extent of its parent; no rule here is empty.
            raise NotImplementedError(f"empty rule {rule}")
        if rule.origin.name.startswith("_"):
            kind = _SPLICE
        elif rule.options.expand1 and not rule.alias and len(kept) == 1 and not kept[0][1]:
            if size == 1:
                return None
            if rule.expansion[kept[0][0]].is_term:
                # Lark passes such a token up with its own extent, not the rule's.
                raise NotImplementedError(f"`?rule` passing up a token: {rule}")
            kind = _PASS
        elif method is None:
            raise NotImplementedError(f"no builder for rule {name}")
        elif method is _Builder.var and size == 1 and plain and rule.expansion[0].is_term:
            kind = _NAME_ATOM
        else:
            kind = _BUILD
        rules = any(not rule.expansion[i].is_term for i, _ in kept)
        return size, rule.origin.name, kind, None if plain else kept, method, rules

    def _unit_steps(self, steps: _UnitSteps, below: int, ttype: str) -> int:
        """Run a chain of unit steps on the state ``below``; remember where it ends."""
        top = self.actions[below][steps.origin]
        while (nxt := self.actions[top].get(ttype)).__class__ is _UnitSteps:
            top = self.actions[below][nxt.origin]
        steps[below] = top
        return top

    def _lexer(self, state: int) -> tuple:
        """(match, keywords) for a parser state: the terminals Lark's lexer allows there.

        The regex is the one Lark's scanner builds (its terminals, in its priority order).
        ``keywords`` maps a terminal that can also spell a keyword (NAME: `def`, `fun`, …) to a
        _Keywords memo.
        """
        basic = self._contextual[state]
        if id(basic) not in self._compiled:
            scanner = basic.scanner  # builds the scanner, and the keyword callbacks with it
            pattern = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})"
                               for t in scanner.terminals)
            keywords = {}
            for ttype, callback in basic.callback.items():
                if not isinstance(callback, self._unless_type):
                    raise NotImplementedError(f"lexer callback on {ttype}")
                keywords[ttype] = _Keywords(ttype, callback, self._token)
            self._compiled[id(basic)] = (re.compile(pattern, basic.g_regex_flags).match,
                                         keywords)
        self.lexers[state] = self._compiled[id(basic)]
        return self.lexers[state]

    def parse(self, text: str, path: str) -> tuple[T.Module, int]:
        """The module and its nesting depth; raises _Reject on any syntax error."""
        b = _Builder(path, text)
        actions, rules, lexers, ignore, end = (self.actions, self.rules, self.lexers,
                                               self.ignore, self.end)
        app, Var = _Builder.app, T.Var
        make_span = _make_span
        states = [self.start]
        values: list[tuple] = []
        pos, n, line, line_start = 0, len(text), 1, 0
        while True:
            # ---- the next token, lexed in the current parser state (ignored ones skipped)
            match, keywords = lexers[states[-1]] or self._lexer(states[-1])
            while pos < n:
                m = match(text, pos)
                if m is None:
                    raise _Reject
                ttype = m.lastgroup
                start, pos = pos, m.end()
                value = text[start:pos]
                tline, tcol = line, start - line_start + 1
                if "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                if ttype not in ignore:
                    if ttype in keywords:
                        ttype = keywords[ttype][value]
                    tok = (value, tline, tcol, line, pos - line_start + 1, 0)
                    break
            else:
                ttype = "$END"
            # ---- reduce as long as the token asks for it, then shift it
            while True:
                act = actions[states[-1]].get(ttype)
                if act.__class__ is _UnitSteps:
                    top = act.get(states[-2])
                    if top is None:
                        top = self._unit_steps(act, states[-2], ttype)
                    states[-1] = top
                    act = actions[top].get(ttype)
                if act is None:
                    raise _Reject
                if act >= 0:
                    states.append(act)
                    values.append(tok)
                    break
                size, origin, kind, kept, method, sub = rules[~act]
                if kind == _NAME_ATOM:       # what the general case below does for `var`
                    name = values.pop()
                    del states[-1]
                    line0, col0, line1, col1 = name[1], name[2], name[3], name[4]
                    span = make_span(path, line0, col0, line1, col1)
                    states.append(actions[states[-1]][origin])
                    values.append((Var(name[0], span=span), line0, col0, line1, col1, 1))
                    continue
                if size:
                    raw = values[-size:]
                    del values[-size:]
                    del states[-size:]
                    first, last = raw[0], raw[-1]
                    line0, col0, line1, col1 = first[1], first[2], last[3], last[4]
                else:
                    raw = []
                    line0 = col0 = line1 = col1 = None
                if kept is None:
                    kids = raw
                else:
                    kids = []
                    for i, splice in kept:
                        if not splice:
                            kids.append(raw[i])
                        elif kids:
                            kids.extend(raw[i][0])
                        else:  # left recursion: extend the helper's own list (used only here)
                            kids = raw[i][0]
                if kind == _SPLICE:
                    entry = (kids, line0, col0, line1, col1, 0)
                elif kind == _PASS:
                    entry = (kids[0][0], line0, col0, line1, col1, kids[0][5])
                else:
                    span = None if line0 is None else make_span(path, line0, col0, line1, col1)
                    height = 0
                    for k in kids:  # (no max(): this loop is hot)
                        if k[5] > height:  # noqa: PLR1730
                            height = k[5]
                    if method is app:
                        # `f a b c` is three reductions; its App is built once (_PartialApp)
                        fn, arg = kids[0][0], kids[1][0]
                        if arg.__class__ is _PartialApp:
                            arg = arg.done()
                        if fn.__class__ is _PartialApp:
                            fn.args.append(arg)
                            fn.span = span
                            value = fn
                        elif isinstance(fn, T.App):     # (as _Builder.app: `(f a) b`)
                            value = _PartialApp(fn.fn, [*fn.args, arg], span)
                        else:
                            value = _PartialApp(fn, [arg], span)
                    else:
                        if sub:
                            for i, k in enumerate(kids):
                                if k[0].__class__ is _PartialApp:
                                    kids[i] = (k[0].done(), *k[1:])
                        value = method(b, kids, span)
                    entry = (value, line0, col0, line1, col1, height + 1)
                states.append(actions[states[-1]][origin])
                values.append(entry)
                if states[-1] == end:  # reached only by reducing `start` at the end of input
                    return entry[0], entry[5]


@lru_cache(maxsize=1)
def _fast_parser() -> _FastParser | None:
    try:
        return _FastParser(_parser())
    except (AttributeError, KeyError, NotImplementedError):
        return None  # a Lark whose internals differ: parse with Lark alone (slower, same result)


def decode_source(data: bytes, path: str) -> str:
    """Bytes → text, or a ParseError at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line_start = before.rfind(b"\n") + 1
        line = before.count(b"\n") + 1
        # Columns count characters, as everywhere else; the prefix of the line is valid UTF-8.
        col = len(data[line_start: exc.start].decode("utf-8")) + 1
        line_end = data.find(b"\n", exc.start)
        shown = data[line_start: line_end if line_end >= 0 else len(data)]
        raise ParseError(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                         Span(path, line, col, line, col + 1),
                         source_line=shown.decode("utf-8", errors="replace").removesuffix("\r")
                         ) from None


def source_lines(text: str) -> list[str]:
    """The lines of a source as the lexer counts them (positions, carets, the lines shown).

    Lines end at `\n` only (the `\r` of a CRLF is dropped).  ``str.splitlines`` also breaks at
    a form feed, U+2028 and other separators, which are whitespace or comment text to the lexer:
    the line shown under an error after one of them would not be the line of the error.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # as splitlines: no empty line after the last line break
    return [ln.removesuffix("\r") for ln in lines]


_LONE_CR = re.compile(r"\r(?!\n)")
_OUTSIDE = re.compile(r"--|/-")        # outside a comment: a line comment or a block comment
_INSIDE = re.compile(r"/-|-/")         # inside a block comment: Lean nests `/-` … `-/`


def _nested_comment(text: str) -> int | None:
    """Where a `/-` opens a block comment inside another, if anywhere.  Lean's block comments
    nest, so `/- a /- b -/ c -/` is one comment; this reader's end at the first `-/` (the
    fiftieth review: `x /- /- -/ + 1 -- -/` was `x + 1` here, `x` in Lean).  Line comments
    are skipped (a `/-` in one means nothing), as is `--` inside a block comment."""
    i = 0
    while True:
        m = _OUTSIDE.search(text, i)
        if m is None:
            return None
        if m.group() == "--":
            i = text.find("\n", m.end())
            if i < 0:
                return None
            continue
        m = _INSIDE.search(text, m.end())
        if m is None:
            return None             # unterminated: the parser says so
        if m.group() == "/-":
            return m.start()
        i = m.end()


def parse_module(text: str, path: str = "<input>") -> T.Module:
    """Parse a whole `.lemma` file into a :class:`~shardproof.terms.Module`."""
    lines = source_lines(text)
    cr = _LONE_CR.search(text)
    if cr is not None:
        # Lines end at `\n` (LF or CRLF).  A lone `\r` (classic Mac OS line endings) is
        # whitespace to the lexer: every position after it would be on the wrong line.
        line, col = _line_col(text, cr.start())
        shown = lines[line - 1].split("\r")[0] if line <= len(lines) else ""
        raise ParseError("a carriage return (CR) that is not part of a CRLF line ending: lines "
                         "must end with LF or CRLF (convert classic Mac OS line endings)",
                         Span(path, line, col, line, col + 1), source_line=shown,
                         theorem=_decl_at(text, cr.start()))
    nested = _nested_comment(text)
    if nested is not None:
        line, col = _line_col(text, nested)
        raise ParseError("a `/-` inside a comment: Lean's block comments nest (this opens a "
                         "comment inside the one before it, which then ends at a later `-/`), "
                         "this reader's end at the first `-/`: the same text would say "
                         "something else; remove the inner `/-`",
                         Span(path, line, col, line, col + 2),
                         source_line=lines[line - 1] if line <= len(lines) else "",
                         theorem=_decl_at(text, nested))
    if not any(ln.strip() for ln in lines):
        raise ParseError("the file is empty: expected `import`, `def`, `theorem` or `/-! … -/`",
                         Span(path, 1, 1, 1, 1), source_line="")
    for k, ln in enumerate(lines, start=1):
        if len(ln) > MAX_LINE_CHARS:
            raise ParseError(f"line {k} is too long ({len(ln)} characters; the limit is "
                             f"{MAX_LINE_CHARS}): break it into several lines",
                             Span(path, k, MAX_LINE_CHARS + 1, k, MAX_LINE_CHARS + 2),
                             source_line=ln,
                             theorem=_decl_at(text, _offset(lines, k) + MAX_LINE_CHARS))
    fast = _fast_parser()
    module = None
    if fast is not None:
        try:
            module, depth = fast.parse(text, path)
            if depth > MAX_NESTING:
                module = None
        except (_Reject, ParseError):
            pass  # reported below, in the order Lark's parse, the nesting check and the build do
    if module is None:
        module = _parse_with_lark(text, path, lines)
    return module


_COMMENTS = re.compile(r"/-[\s\S]*?-/|--[^\n]*")


def _check_sum_body(t: T.Sum, text: str) -> None:
    """Refuse `∑ i, a + b` without parentheses: Mathlib's `∑` takes its body at precedence 67,
    so Lean reads it `(∑ i, a) + b`, while here `∑` extends as far right as it can (the
    thirty-ninth review): the same text would state something else.  `∑ i, (a + b)` and
    `(∑ i, a) + b` say which is meant.  The same holds for a body that is a comparison or a
    conjunction: `∑ i, x i = c` is how Mathlib writes a sum's equation, `(∑ i, x i) = c`; here
    it was a sum of propositions, refused by a message that did not name the fix (the
    fifty-seventh review)."""
    body = t.body
    op = body.op if isinstance(body, (T.BinOp, T.Cmp)) else "∧" if isinstance(body, T.And) \
        else None
    if not (op in ("+", "-", "∧") or isinstance(body, T.Cmp)) or body.span is None or \
            t.span is None or not text:
        return
    # What stands between the binders' `,` and the body, comments dropped: nothing, or the
    # opening parenthesis (a comment there once hid the `,`: the forty-first review).
    lines = source_lines(text)
    at = _offset(lines, body.span.line) + body.span.col - 1
    before = text[_offset(lines, t.span.line) + t.span.col - 1:at]
    if _COMMENTS.sub(" ", before).rstrip().endswith(","):
        here = f"this language as `∑ …, (a {op} b)`: write the parentheses that say which " \
            "is meant" if op in ("+", "-") else f"write the parentheses: `(∑ …, a) {op} b`"
        raise ParseError(
            f"`∑ …, a {op} b` without parentheses: Lean (Mathlib) reads it as "
            f"`(∑ …, a) {op} b`; {here}", body.span,
            source_line=lines[body.span.line - 1], theorem=_decl_at(text, at))


def _parse_with_lark(text: str, path: str, lines: list[str]) -> T.Module:
    """The reference parser: Lark's parse tree with propagated positions, then the builder.

    Used for input the fast parser rejects (it raises the errors users see) and by the tests.
    """
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _convert(exc, text, path) from None
    _check_nesting(tree, text, path)
    b = _Builder(path, text)

    def build(node: Tree) -> tuple:  # recursion depth is bounded by the nesting check
        kids = [build(c) if isinstance(c, Tree) else
                (str(c), c.line, c.column, c.end_line or c.line, c.end_column or c.column + len(c),
                 0) for c in node.children]
        meta = node.meta
        span = None if getattr(meta, "empty", True) else \
            Span(path, meta.line, meta.column, meta.end_line, meta.end_column)
        return (getattr(b, node.data)(kids, span),)

    try:
        return build(tree)[0]
    except ParseError as err:  # raised by a rule (e.g. a bad attribute)
        # The declaration whose header holds the error (an attribute precedes its name).
        end_of_line = _span_offset(lines, err.span) + len(lines[err.span.line - 1]) \
            if err.span is not None else 0
        raise err.with_context(theorem=_decl_at(text, end_of_line)) from None


def parse_expr(text: str, path: str = "<input>") -> T.Term:
    """Parse one expression (used by the notebook API and the tests); an error points into
    ``text``, not into the wrapper it is parsed in (the eighty-third review)."""
    lines = text.split("\n")
    try:
        mod = parse_module(f"def _e : _ :=\n{text}\n", path)
        if len(mod.decls) != 1:
            d = mod.decls[1]
            raise ParseError("one expression is expected; a declaration follows it",
                             Span(path, d.span.line, d.span.col) if d.span else None)
    except ShardproofError as exc:
        at = exc.span
        if at is not None and at.line >= 2:
            line = min(at.line - 1, len(lines))
            exc.span = Span(at.path, line, at.col, max(line, min(at.end_line - 1, len(lines))),
                            at.end_col)
            exc.source_line, exc.theorem = lines[line - 1], None
        # positions the message names (`the `(` at 2:1 is never closed`) are the wrapper's too
        exc.message = re.sub(r"\bat (\d+):(\d+)\b", lambda m: f"at {int(m[1]) - 1}:{m[2]}"
                             if int(m[1]) >= 2 else m[0], exc.message)
        if re.search(r"; expected .*(`def`|`:=`|`@\[`|a docstring)", exc.message):
            exc.message = re.sub(r"; expected .*$", "; expected an operator or the end of the "
                                 "expression", exc.message)     # (not a declaration's parts)
        raise
    d = mod.decls[0]
    assert isinstance(d, T.Def)
    return _up_a_line(d.body)


def _up_a_line(t: T.Term) -> T.Term:
    """``t`` with its spans one line up: the text `parse_expr` was given is the wrapper's second
    line, and a term's spans are read in that text (the eighty-fifth review)."""
    t = t.map_children(_up_a_line)
    at = getattr(t, "span", None)
    if at is None:
        return t
    return dataclasses.replace(t, span=Span(at.path, at.line - 1, at.col, at.end_line - 1,
                                            at.end_col))


def _check_nesting(tree: Tree, text: str, path: str) -> None:
    """Reject nesting deeper than MAX_NESTING, walking the tree without recursion."""
    stack: list[tuple[Tree, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            line = getattr(meta, "line", 1)
            col = getattr(meta, "column", 1)
            lines = source_lines(text)
            raise ParseError(f"the expression is nested too deeply (more than {MAX_NESTING} "
                             "levels): name a part of it with a `def`",
                             Span(path, line, col, line, col + 1),
                             source_line=lines[line - 1] if 1 <= line <= len(lines) else "",
                             theorem=_decl_at(text, _offset(lines, line) + col - 1))
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))


def _offset(lines: list[str], line: int) -> int:
    """Character offset of the start of a 1-based line (newlines counted as one character)."""
    return sum(len(ln) + 1 for ln in lines[: line - 1])


def _span_offset(lines: list[str], span: Span | None) -> int:
    """Offset of the start of the span's line (0 without a span)."""
    return 0 if span is None else _offset(lines, span.line)


def _decl_at(text: str, pos: int, part: int = 2) -> str | None:
    """The name (``part=1``: the keyword) of the last `theorem`/`def`/`opaque` that starts
    before ``pos``, if any."""
    found = None
    for m in _DECL_NAME.finditer(text, 0, pos):
        found = m.group(part)
    return found


def _unclosed_bracket(text: str) -> tuple[str, int] | None:
    """The innermost bracket left open at the end of ``text`` (comments skipped), and its offset.

    Only used to point a user at the `(` that an end-of-file error is really about.
    """
    closing = {")": "(", "]": "[", "}": "{"}
    stack: list[tuple[str, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if text.startswith("/-", i):
            end = text.find("-/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c in "([{":
            stack.append((c, i))
        elif c in closing and stack and stack[-1][0] == closing[c]:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _end_of_previous_token(text: str, pos: int) -> int:
    """Offset just after the last non-blank character before ``pos``."""
    k = pos
    while k > 0 and text[k - 1].isspace():
        k -= 1
    return k


_AFTER_BINDERS = "expected another binder `(x : T)` or `:` followed by the statement or type"
_DECL_KEYWORDS = {"theorem", "lemma", "def", "opaque", "import", "variable", "include", "@["}


def _comment_message(text: str, pos: int) -> str:
    if text.startswith("/--", pos):
        return "unterminated docstring: `/--` without a closing `-/`"
    if text.startswith("/-!", pos):
        return "unterminated file docstring: `/-!` without a closing `-/`"
    return "unterminated comment: `/-` without a closing `-/`"


def _comparison_just_before(text: str, pos: int) -> bool:
    """Is the nearest of a comparison sign and an opening (`:=`, `∧`, `(`, `,`) before ``pos``
    a comparison sign (`a = b = c`)?  One backward scan: a regex over the text before the spot
    was quadratic (300,000 `(` took minutes)."""
    k = pos - 1
    while k >= 0:
        c = text[k]
        if c in "=≠<≤>≥":
            return not (c == "=" and k > 0 and text[k - 1] == ":")
        if c in "∧(,":
            return False
        k -= 1
    return False


_TACTICS = ("norm", "rw", "unfold", "witness")
_SUM_IN = ("Mathlib's `∑ i in s, f i` (over a `Finset`) is not read here: a sum ranges over a "
           "`Fin` type, `∑ (i : Fin n), f i`")


_A_TACTIC = "expected a tactic: `norm`, `rw [h₁, h₂]`, `unfold [f, g]` or `witness (x := 1)`"


def _tactic_expected(exc: UnexpectedInput, text: str, pos: int) -> bool:
    """Is a tactic's name what is missing (right after `by` or a `;` of a proof)?"""
    before = text[:pos].rstrip()
    return set(getattr(exc, "expected", ())) == {"NAME"} and (
        re.search(r"(?:^|[\s)=])by$", before) is not None or before.endswith(";"))


def _convert(exc: UnexpectedInput, text: str, path: str) -> ParseError:
    lines = source_lines(text)
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    pos = getattr(exc, "pos_in_stream", None)
    if pos is None and isinstance(exc, UnexpectedToken):
        pos = exc.token.start_pos
    if pos is None or pos < 0:
        pos = _offset(lines, line) + col - 1
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken)
                                          and exc.token.type == "$END"):
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        pos = len(text)
        expected = _describe_expected(set(exc.expected))
        msg = f"unexpected end of file; expected {expected}"
        if _tactic_expected(exc, text, pos):
            msg = f"unexpected end of file; {_A_TACTIC}"
        if {"COLON", "LPAR"} <= set(exc.expected):
            msg = "unexpected end of file; " + _AFTER_BINDERS
        open_br = _unclosed_bracket(text)
        if open_br is not None:
            bl, bc = _line_col(text, open_br[1])
            msg += f" (the `{open_br[0]}` at {bl}:{bc} is never closed)"
    elif isinstance(exc, UnexpectedCharacters):
        ch = text[pos] if pos < len(text) else ""
        if text.startswith("/-", pos):
            msg = _comment_message(text, pos)
        elif text.startswith("⁻¹", pos):          # Mathlib's inverse
            msg = "Mathlib's `x⁻¹` is not read here: write `1 / x`"
        else:
            allowed = _describe_expected(set(exc.allowed or ()))
            msg = f"unexpected character {ch!r}" + (f"; expected {allowed}" if allowed else "")
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        expected_names = set(exc.expected)
        expected = _describe_expected(expected_names)
        found = f"`{tok}`" if tok.type != "NAME" else f"name `{tok}`"
        msg = f"unexpected {found}; expected {expected}"
        src_line = lines[line - 1] if 1 <= line <= len(lines) else ""
        if {"COLON", "LPAR"} <= expected_names and tok.type in ("NAME", "NUMBER", "RELOP"):
            msg = f"unexpected {found}; {_AFTER_BINDERS}"
        if _tactic_expected(exc, text, pos):
            msg = f"unexpected {found}; {_A_TACTIC}"
        if str(tok) == "/" and text.startswith("/-", pos):
            msg = _comment_message(text, pos)
        elif str(tok) == "=" and pos > 0 and text[pos - 1] == ":":
            # `theorem t (x : ℝ) := …`: the lexer split `:=` because no statement was written.
            col -= 1
            pos -= 1
            kind = _decl_at(text, pos, part=1)
            msg = ("missing `: type` before `:=`: write `def name binders : type := body` "
                   "(the result type is not inferred here)" if kind == "def" else
                   "missing `: statement` (or `: type`) before `:=`: write "
                   "`theorem name binders : statement := by …`")
        elif str(tok) in _DECL_KEYWORDS and expected == "`:=`":
            # `def f … : T` with no body, followed by the next declaration.
            pos = _end_of_previous_token(text, pos)
            line, col = _line_col(text, pos)
            msg = f"expected `:=` and a body before the next declaration (found {found})"
        elif tok.type == "RELOP" and "RELOP" not in expected_names and \
                _comparison_just_before(text, pos):
            # `a = b = c` (a comparison right after one): Lean does not chain them either
            msg = f"unexpected {found}: comparisons do not chain; write `a = b ∧ b = c`"
        elif str(tok) == "." and src_line.lstrip().startswith("import"):
            msg = ("an import is a dotted path inside the lemma root (`import kit.defs`); "
                   "`..` and other relative paths are not allowed")
        elif re.search(r"[∑Σ]\s*\S+\s+in\s", src_line[:col - 1]):
            msg = _SUM_IN                               # (`∑ i in Finset.range n, …`)
        elif str(tok) == "." and re.search(r"(?:Real|Finset|Nat|Fin)$", src_line[:col - 1]):
            msg = (f"qualified names (`{src_line[:col - 1].split()[-1].lstrip('(')}.…`) are not "
                   "read here: the prelude's `sqrt`, `exp`, …, a sum `∑ (i : Fin n), …`, a cast "
                   "`(e : ℝ)` (docs/language.md lists the names)")
        elif tok.type == "NAME" and "LSQB" in expected_names and \
                (lean_tactic := re.search(r"(?:^|[\s;])(unfold|rw)[ \t]*$", text[:pos])) and \
                src_line[:col - 1].strip():    # (a tactic on the next line: the message below)
            # Lean's `unfold f g` / `rw [h]`: here both take a bracketed list
            tactic = lean_tactic.group(1)
            msg = (f"unexpected {found}: `{tactic}` takes a list in brackets here, "
                   f"`{tactic} [{tok}]`")
        elif str(tok) in ("∑", "Σ", "∀", "∃", "fun", "λ") and expected.startswith(_AN_OPERAND):
            # `y * ∑ i, x i`: Lean reads it too, but here a binder form after an operator
            # takes parentheses (its body would otherwise run to the end of the line)
            msg = (f"unexpected {found}: after an operator, a `{tok}` needs parentheses, "
                   f"`y * ({tok} …)`")
        elif str(tok) in _TACTICS and src_line[:col - 1].strip() == "" and ";" in expected:
            # a tactic on a line of its own, as in Lean 4 (the fifty-seventh review)
            msg = (f"unexpected {found} at the start of a line: here tactics are separated by "
                   f"`;` (`by rw [h]; norm`), not by line breaks")
    else:  # pragma: no cover - lark has no other kinds today
        msg = str(exc).splitlines()[0]
    src = lines[line - 1] if 1 <= line <= len(lines) else ""
    return ParseError(msg, Span(path, line, col, line, col + 1), source_line=src,
                      theorem=_decl_at(text, pos))
