"""Parsing: `.lemma` text → frozen terms (:mod:`shardproof.terms`) with source spans.

The grammar lives in ``grammar.lark`` (shipped as package data).  Lark's errors are turned into
:class:`~shardproof.errors.ParseError` with ``file:line:col``, what was found and what was expected.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             UnexpectedToken, VisitError)

from . import terms as T
from .errors import ParseError, Span

# What a user should read instead of Lark's terminal names.
_TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "DECIMAL": "a number", "RELOP": "a relation (= ≠ < ≤)",
    "MULOP": "`*`", "ARROW": "`→`", "AND": "`∧`", "DOCSTRING": "a docstring", "FILEDOC": "`/-! … -/`",
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "COMMA": "`,`", "COLON": "`:`", "SEMICOLON": "`;`", "PLUS": "`+`", "MINUS": "`-`",
    "SLASH": "`/`", "CIRCUMFLEX": "`^`", "DOT": "`.`", "_MAPSTO": "`=>`",
    "$END": "end of file",
}

# Input limits.  Lark's LALR parser costs ~15 µs a token, so a 1 MB line of tokens would take
# seconds: longer lines are rejected up front.  Deeper nesting than any real lemma (the prelude
# peaks at 23) is rejected before the recursive transformer and elaborator can overflow the stack.
MAX_LINE_CHARS = 20_000
MAX_NESTING = 100

# The declaration a position is inside (for errors found before there are any terms).
_DECL_NAME = re.compile(r"^[ \t]*(?:@\[[^\]\n]*\][ \t]*)?(?:theorem|lemma|def|opaque)[ \t]+"
                        r"([^\s(){}:]+)", re.MULTILINE)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    text = resources.files("shardproof").joinpath("grammar.lark").read_text(encoding="utf-8")
    # cache=True keeps the LALR tables in a temporary file named by the grammar's hash (saves
    # ~65 ms per process; the tables are a pure function of the grammar).
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=False,
                cache=True)


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
        line_start = before.rfind(b"\n") + 1
        line = before.count(b"\n") + 1
        # Columns count characters, as everywhere else; the prefix of the line is valid UTF-8.
        col = len(data[line_start: exc.start].decode("utf-8")) + 1
        line_end = data.find(b"\n", exc.start)
        shown = data[line_start: line_end if line_end >= 0 else len(data)]
        raise ParseError(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                         Span(path, line, col, line, col + 1),
                         source_line=shown.decode("utf-8", errors="replace")) from None


def parse_module(text: str, path: str = "<input>") -> T.Module:
    """Parse a whole `.lemma` file into a :class:`~shardproof.terms.Module`."""
    lines = text.splitlines()
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
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _convert(exc, text, path) from None
    _check_nesting(tree, text, path)
    try:
        return _Builder(path).transform(tree)
    except VisitError as exc:  # a ParseError raised inside a rule (e.g. a bad attribute)
        err = exc.orig_exc
        if isinstance(err, ParseError):
            # The declaration whose header holds the error (an attribute precedes its name).
            end_of_line = _span_offset(lines, err.span) + len(lines[err.span.line - 1]) \
                if err.span is not None else 0
            raise err.with_context(theorem=_decl_at(text, end_of_line)) from None
        raise


def parse_expr(text: str, path: str = "<input>") -> T.Term:
    """Parse one expression (used by the notebook API and the tests)."""
    mod = parse_module(f"def _e : _ := {text}", path)
    d = mod.decls[0]
    assert isinstance(d, T.Def)
    return d.body


def _check_nesting(tree: Tree, text: str, path: str) -> None:
    """Reject nesting deeper than MAX_NESTING, walking the tree without recursion."""
    stack: list[tuple[Tree, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            line = getattr(meta, "line", 1)
            col = getattr(meta, "column", 1)
            lines = text.splitlines()
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


def _decl_at(text: str, pos: int) -> str | None:
    """The name of the last `theorem`/`def`/`opaque` that starts before ``pos``, if any."""
    name = None
    for m in _DECL_NAME.finditer(text, 0, pos):
        name = m.group(1)
    return name


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
_DECL_KEYWORDS = {"theorem", "lemma", "def", "opaque", "import", "variable", "@["}


def _comment_message(text: str, pos: int) -> str:
    if text.startswith("/--", pos):
        return "unterminated docstring: `/--` without a closing `-/`"
    if text.startswith("/-!", pos):
        return "unterminated file docstring: `/-!` without a closing `-/`"
    return "unterminated comment: `/-` without a closing `-/`"


def _convert(exc: UnexpectedInput, text: str, path: str) -> ParseError:
    lines = text.splitlines()
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
        if str(tok) == "/" and text.startswith("/-", pos):
            msg = _comment_message(text, pos)
        elif str(tok) == "=" and pos > 0 and text[pos - 1] == ":":
            # `theorem t (x : ℝ) := …`: the lexer split `:=` because no statement was written.
            col -= 1
            pos -= 1
            msg = ("missing `: statement` (or `: type`) before `:=`: write "
                   "`theorem name binders : statement := by …`")
        elif str(tok) in _DECL_KEYWORDS and expected == "`:=`":
            # `def f … : T` with no body, followed by the next declaration.
            pos = _end_of_previous_token(text, pos)
            line, col = _line_col(text, pos)
            msg = f"expected `:=` and a body before the next declaration (found {found})"
        elif str(tok) == "." and src_line.lstrip().startswith("import"):
            msg = ("an import is a dotted path inside the lemma root (`import kit.defs`); "
                   "`..` and other relative paths are not allowed")
    else:  # pragma: no cover - lark has no other kinds today
        msg = str(exc).splitlines()[0]
    src = lines[line - 1] if 1 <= line <= len(lines) else ""
    return ParseError(msg, Span(path, line, col, line, col + 1), source_line=src,
                      theorem=_decl_at(text, pos))

