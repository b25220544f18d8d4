"""Parsing: `.lemma` text → frozen terms (:mod:`shardproof.terms`) with source spans.

The grammar lives in ``grammar.lark`` (shipped as package data).  Lark's errors are turned into
:class:`~shardproof.errors.ParseError` with ``file:line:col``, what was found and what was expected.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import terms as T
from .errors import ParseError, Span

# What a user should read instead of Lark's terminal names.
_TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "DECIMAL": "a number", "RELOP": "a relation (= ≠ < ≤)",
    "MULOP": "`*`", "ARROW": "`→`", "AND": "`∧`", "DOCSTRING": "a docstring", "FILEDOC": "`/-! … -/`",
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "COMMA": "`,`", "COLON": "`:`", "SEMICOLON": "`;`", "PLUS": "`+`", "MINUS": "`-`",
    "SLASH": "`/`", "CIRCUMFLEX": "`^`", "DOT": "`.`", "__ANON_0": "`:=`", "$END": "end of file",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    text = resources.files("shardproof").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=False)


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
    ordered = sorted(words)
    if len(ordered) > 8:
        ordered = ordered[:8] + ["…"]
    return ", ".join(ordered)


class _Builder(Transformer):
    """Lark tree → terms.  Each rule method receives ``meta`` for the span."""

    def __init__(self, path: str) -> None:
        super().__init__(visit_tokens=False)
        self.path = path

    def _span(self, meta) -> Span | None:
        if getattr(meta, "empty", True):
            return None
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.line, tok.column, tok.end_line or tok.line,
                    tok.end_column or tok.column + len(tok))

    # ---- items
    @v_args(meta=True)
    def start(self, meta, items):
        header = None
        decls = []
        for it in items:
            if isinstance(it, str):
                header = it if header is None else header + "\n" + it
            else:
                decls.append(it)
        return T.Module(self.path, header, tuple(decls), span=self._span(meta))

    def filedoc(self, items):
        return str(items[0])[3:-2].strip()

    @v_args(meta=True)
    def import_(self, meta, items):
        return T.Import(items[0], span=self._span(meta))

    def dotted(self, items):
        return tuple(str(t) for t in items)

    @v_args(meta=True)
    def variable(self, meta, items):
        bs: list[T.Binder] = []
        for group in items:
            bs.extend(group)
        return T.Variable(tuple(bs), span=self._span(meta))

    @v_args(meta=True)
    def decl(self, meta, items):
        doc = None
        attr = None
        body = items[-1]
        for it in items[:-1]:
            if isinstance(it, Token) and it.type == "DOCSTRING":
                doc = str(it)[3:-2].strip()
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

    def attr(self, items):
        return (str(items[0]), str(items[1]), self._tok_span(items[0]))

    @v_args(meta=True)
    def theorem(self, meta, items):
        name = str(items[0])
        rest = items[1:]
        proof = None
        if rest and isinstance(rest[-1], T.Proof):
            proof = rest[-1]
            rest = rest[:-1]
        stmt = rest[-1]
        binders = _flatten_binders(rest[:-1])
        if proof is None:
            proof = T.Proof((T.ProofStep("norm", span=self._span(meta)),), span=self._span(meta))
        return T.Theorem(name, binders, stmt, proof, None, span=self._name_span(meta, items[0]))

    def _name_span(self, meta, name_tok: Token) -> Span | None:
        sp = self._span(meta)
        if sp is None:
            return None
        # Point at the declaration keyword's line but keep the whole extent.
        return sp

    @v_args(meta=True)
    def def_(self, meta, items):
        name = str(items[0])
        body = items[-1]
        ret = items[-2]
        binders = _flatten_binders(items[1:-2])
        return T.Def(name, binders, ret, body, None, span=self._span(meta))

    @v_args(meta=True)
    def opaque(self, meta, items):
        name = str(items[0])
        ret = items[-1]
        binders = _flatten_binders(items[1:-1])
        return T.Opaque(name, binders, ret, None, None, span=self._span(meta))

    @v_args(meta=True)
    def explicit_binder(self, meta, items):
        return self._binders(meta, items, False)

    @v_args(meta=True)
    def implicit_binder(self, meta, items):
        return self._binders(meta, items, True)

    def _binders(self, meta, items, implicit):
        ty = items[-1]
        return tuple(T.Binder(str(n), ty, implicit, span=self._tok_span(n)) for n in items[:-1])

    @v_args(meta=True)
    def proof(self, meta, items):
        return T.Proof(tuple(items), span=self._span(meta))

    @v_args(meta=True)
    def tactic(self, meta, items):
        name = str(items[0])
        names: tuple[T.Var, ...] = ()
        assigns: list[T.NamedArg] = []
        for it in items[1:]:
            if isinstance(it, tuple):
                names = it
            else:
                assigns.append(it)
        return T.ProofStep(name, names, tuple(assigns), span=self._tok_span(items[0]))

    def tactic_names(self, items):
        return tuple(T.Var(str(t), span=self._tok_span(t)) for t in items if t is not None)

    @v_args(meta=True)
    def named_arg(self, meta, items):
        return T.NamedArg(str(items[0]), items[1], span=self._span(meta))

    # ---- expressions
    @v_args(meta=True)
    def lam(self, meta, items):
        return T.Lam(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def sum(self, meta, items):
        return T.Sum(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def forall_(self, meta, items):
        return T.Forall(items[0], items[1], span=self._span(meta))

    @v_args(meta=True)
    def ite(self, meta, items):
        return T.Ite(items[0], items[1], items[2], span=self._span(meta))

    def untyped_binders(self, items):
        return tuple(T.Binder(str(n), None, span=self._tok_span(n)) for n in items)

    def one_typed_binders(self, items):
        ty = items[-1]
        return tuple(T.Binder(str(n), ty, span=self._tok_span(n)) for n in items[:-1])

    def typed_binders(self, items):
        out: list[T.Binder] = []
        for group in items:
            out.extend(group)
        return tuple(out)

    def paren_binder(self, items):
        ty = items[-1]
        return tuple(T.Binder(str(n), ty, span=self._tok_span(n)) for n in items[:-1])

    @v_args(meta=True)
    def arrow(self, meta, items):
        return T.Arrow(items[0], items[-1], span=self._span(meta))

    @v_args(meta=True)
    def and_(self, meta, items):
        return T.And(items[0], items[-1], span=self._span(meta))

    @v_args(meta=True)
    def cmp(self, meta, items):
        op = {"!=": "≠", "<=": "≤", ">=": "≥"}.get(str(items[1]), str(items[1]))
        return T.Cmp(op, items[0], items[2], span=self._span(meta))

    def _bin(self, op, meta, items):
        return T.BinOp(op, items[0], items[-1], span=self._span(meta))

    @v_args(meta=True)
    def add(self, meta, items):
        return self._bin("+", meta, items)

    @v_args(meta=True)
    def sub(self, meta, items):
        return self._bin("-", meta, items)

    @v_args(meta=True)
    def mul(self, meta, items):
        return self._bin("*", meta, items)

    @v_args(meta=True)
    def div(self, meta, items):
        return self._bin("/", meta, items)

    @v_args(meta=True)
    def smul(self, meta, items):
        return self._bin("•", meta, items)

    @v_args(meta=True)
    def pow(self, meta, items):
        return self._bin("^", meta, items)

    @v_args(meta=True)
    def neg(self, meta, items):
        return T.Neg(items[0], span=self._span(meta))

    @v_args(meta=True)
    def app(self, meta, items):
        fn, arg = items
        if isinstance(fn, T.App):
            return T.App(fn.fn, fn.args + (arg,), span=self._span(meta))
        return T.App(fn, (arg,), span=self._span(meta))

    @v_args(meta=True)
    def index(self, meta, items):
        return T.Index(items[0], tuple(items[1:]), span=self._span(meta))

    def var(self, items):
        tok = items[0]
        return T.Var(str(tok), span=self._tok_span(tok))

    def num(self, items):
        tok = items[0]
        return T.Num(Fraction(int(str(tok))), span=self._tok_span(tok))

    def dec(self, items):
        tok = items[0]
        return T.Num(Fraction(str(tok)), span=self._tok_span(tok))

    @v_args(meta=True)
    def named(self, meta, items):
        return T.NamedArg(str(items[0]), items[1], span=self._span(meta))

    @v_args(meta=True)
    def veclit(self, meta, items):
        return T.VecLit(tuple(i for i in items if i is not None), span=self._span(meta))


def _fields_without_span(t: T.Term) -> list[str]:
    return [f for f in t.__dataclass_fields__ if f != "span"]


def _flatten_binders(groups) -> tuple[T.Binder, ...]:
    out: list[T.Binder] = []
    for g in groups:
        out.extend(g)
    return tuple(out)


def decode_source(data: bytes, path: str) -> str:
    """Bytes → text, or a ParseError at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise ParseError(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                         Span(path, line, col, line, col + 1)) from None


def parse_module(text: str, path: str = "<input>") -> T.Module:
    """Parse a whole `.lemma` file into a :class:`~shardproof.terms.Module`."""
    lines = text.splitlines()
    if not any(ln.strip() for ln in lines):
        raise ParseError("the file is empty: expected `import`, `def`, `theorem` or `/-! … -/`",
                         Span(path, 1, 1, 1, 1), source_line="")
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _convert(exc, text, path) from None
    return _Builder(path).transform(tree)


def parse_expr(text: str, path: str = "<input>") -> T.Term:
    """Parse one expression (used by the notebook API and the tests)."""
    mod = parse_module(f"def _e : _ := {text}", path)
    d = mod.decls[0]
    assert isinstance(d, T.Def)
    return d.body


def _convert(exc: UnexpectedInput, text: str, path: str) -> ParseError:
    lines = text.splitlines()
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken)
                                          and exc.token.type == "$END"):
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        expected = _describe_expected(set(exc.expected))
        msg = f"unexpected end of file; expected {expected}"
        if text.count("(") > text.count(")"):
            msg += " (an opening `(` is never closed)"
    elif isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        if text.startswith("/-", exc.pos_in_stream):
            msg = "unterminated comment: `/-` without a closing `-/`"
        else:
            allowed = _describe_expected(set(exc.allowed or ()))
            msg = f"unexpected character {ch!r}" + (f"; expected {allowed}" if allowed else "")
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        expected = _describe_expected(set(exc.expected))
        found = f"`{tok}`" if tok.type != "NAME" else f"name `{tok}`"
        msg = f"unexpected {found}; expected {expected}"
    else:  # pragma: no cover - lark has no other kinds today
        msg = str(exc).splitlines()[0]
    src = lines[line - 1] if 1 <= line <= len(lines) else ""
    return ParseError(msg, Span(path, line, col, line, col + 1), source_line=src)


def is_tree(x) -> bool:  # small helper for tests
    return isinstance(x, Tree)
