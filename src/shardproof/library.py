"""Files, imports and declarations: from `.lemma` paths to elaborated globals.

A *lemma root* is a directory; `import kit.defs` reads ``<root>/kit/defs.lemma`` and nothing
outside the root.  The prelude (package data, ``prelude/*.lemma``) is imported by every file.
Each file is parsed once; imports are loaded depth-first with cycle detection; every declaration
is elaborated in order by :class:`~shardproof.types.Elaborator`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from . import terms as T
from .errors import ImportError_, NameError_, ShardproofError, Span, TypeError_
from .syntax import decode_source, parse_module, source_lines
from .types import (TYPE_NAMES, Ctx, Elaborator, FinT, FunT, GlobalDecl, GlobalEnv, NatT, Param,
                    LeanReading, PropT, RealT, Ty, VecT, _suggest, check_binder_name,
                    is_size_term)

PRELUDE_FILES = ("core.lemma", "batch.lemma", "bn.lemma", "conv.lemma", "loss.lemma")
ROOT_MARKER = ".lemmaroot"
MAX_FILE_BYTES = 4 * 1024 * 1024


@dataclass
class LoadedFile:
    path: str
    module: T.Module
    env: GlobalEnv                         # everything visible at the end of the file
    own: list[GlobalDecl] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def find_root(path: Path) -> Path:
    """The lemma root of a path: the nearest ancestor holding ``.lemmaroot``, else the dir."""
    p = path.resolve()
    start = p if p.is_dir() else p.parent
    for cand in [start, *start.parents]:
        if (cand / ROOT_MARKER).exists():
            return cand
    return start


class Library:
    """Loads files under one lemma root (and the prelude) and elaborates their declarations."""

    def __init__(self, root: Path | str, *, prelude: GlobalEnv | None = None) -> None:
        self.root = Path(root).resolve()
        self.files: dict[str, LoadedFile] = {}
        self._loading: list[str] = []
        self._depth: dict[str, int] = {}  # file -> the longest chain of imports from it (≥ 1)
        self.prelude = prelude if prelude is not None else prelude_env()
        self.sources: dict[str, list[str]] = {}
        self.owner: dict[str, str] = {}  # global name -> file that declares it

    # ---- files
    def display(self, p: Path) -> str:
        try:
            return os.path.relpath(p, Path.cwd())
        except ValueError:  # pragma: no cover - other drive on Windows
            return str(p)

    def load(self, path: Path | str, *, text: str | None = None,
             via: Span | None = None) -> LoadedFile:
        """Load a file; ``via`` is the `import` that asked for it (where a cycle is reported)."""
        p = Path(path).resolve()
        key = str(p)
        if key in self.files:
            return self.files[key]
        shown = self.display(p)
        if len(self._loading) >= 2 * MAX_IMPORT_DEPTH:    # each level is a Python frame; a
            # chain this long fails by its depth anyway (below), which is found bottom-up, so
            # up to twice the limit the same file is named whatever was loaded first: this
            # guard only bounds frames (past it, the file named depends on the order)
            raise ImportError_(f"imports nested more than {MAX_IMPORT_DEPTH} files deep", via)
        if key in self._loading:
            cycle = self._loading[self._loading.index(key):] + [key]
            raise ImportError_("import cycle: " + " → ".join(
                self.display(Path(c)) for c in cycle), via)
        if text is None:
            data = _read_source(p, shown)
            if len(data) > MAX_FILE_BYTES:
                raise ShardproofError(f"file too large (more than the limit of "
                                      f"{MAX_FILE_BYTES} bytes)", Span(shown, 1, 1))
            text = decode_source(data, shown)
        elif len(text) > MAX_FILE_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > \
                MAX_FILE_BYTES:       # (a text given, as a notebook does: the same limit)
            raise ShardproofError(f"text too large (more than the limit of {MAX_FILE_BYTES} "
                                  "bytes)", Span(shown, 1, 1))
        self.sources[shown] = source_lines(text)
        module = parse_module(text, shown)
        self._loading.append(key)
        try:
            env = self.prelude.copy()
            imports: list[str] = []
            depth = 1
            declared = False
            for d in module.decls:
                if isinstance(d, T.Import):
                    if declared:        # (its names were visible above it; Lean refuses it)
                        raise ImportError_("an `import` comes before the file's declarations, "
                                           "as in Lean: move it to the top", d.span)
                    target = self.resolve_import(d, p)
                    dep = self.load(target, via=d.span)
                    imports.append(str(target))
                    depth = max(depth, 1 + self._depth[str(target)])
                    if depth > MAX_IMPORT_DEPTH:     # (by the imports, whatever was loaded first)
                        raise ImportError_(f"imports nested more than {MAX_IMPORT_DEPTH} files "
                                           "deep", d.span)
                    mine, theirs = env.decls, dep.env.decls
                    if all(mine[n] is theirs[n] for n in mine.keys() & theirs.keys()):
                        mine.update(theirs)     # (what the loop below does when nothing clashes)
                        continue
                    for g in theirs.values():
                        old = env.get(g.name)
                        if old is not None and old is not g:   # globals are found by name
                            raise NameError_(f"`{g.name}` is declared both in {old.path} and in "
                                             f"{g.path}, which this file imports: one name, one "
                                             "declaration", d.span)
                        env.add(g)
                else:
                    declared = True
            lf = LoadedFile(shown, module, env, imports=imports, lines=source_lines(text))
            elaborate_module(lf, self)
        finally:
            self._loading.pop()
        self.files[key] = lf
        self._depth[key] = depth
        return lf

    def resolve_import(self, imp: T.Import, importer: Path) -> Path:
        rel = Path(*imp.path).with_suffix(".lemma")
        try:        # (a name too long for the file system, a symlink loop: the forty-sixth review)
            target = (self.root / rel).resolve()
            is_file = target.is_file()
        except (OSError, RuntimeError) as exc:
            raise ImportError_(f"cannot resolve import `{'.'.join(imp.path)}`: "
                               f"{getattr(exc, 'strerror', None) or exc}", imp.span) from None
        if self.root not in target.parents:
            raise ImportError_(f"import `{'.'.join(imp.path)}` leaves the lemma root "
                               f"{self.display(self.root)}", imp.span)
        if not is_file:
            raise ImportError_(f"cannot find `{'.'.join(imp.path)}` (looked for "
                               f"{self.display(target)} under the lemma root "
                               f"{self.display(self.root)})", imp.span)
        return target


MAX_IMPORT_DEPTH = 200


def _read_source(p: Path, shown: str) -> bytes:
    """At most MAX_FILE_BYTES + 1 bytes of a regular file (enough to tell that it is too large).

    A FIFO would block the read forever and `/dev/zero` never ends: only regular files are read.
    The file is opened without blocking and checked on the open descriptor (no race with a
    rename between a check and the open).
    """
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise ShardproofError(f"cannot read {shown}: {exc.strerror or exc}",
                              Span(shown, 1, 1)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):         # (before fdopen, which refuses a directory with an
        os.close(fd)                   # IsADirectoryError: the eighty-third review)
        raise ShardproofError("a directory: give a `.lemma` file" if stat.S_ISDIR(mode) else
                              "not a regular file (a device, a FIFO or a socket): only "
                              "regular files are read", Span(shown, 1, 1))
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise ShardproofError(f"cannot read {shown}: {exc.strerror or exc}",
                                  Span(shown, 1, 1)) from None


def _param_kind(ty: Ty) -> str:
    if isinstance(ty, NatT):
        return "size"
    if isinstance(ty, PropT):
        return "hyp"
    return "value"


def _used_variables(variables: list[T.Binder], d: T.Decl,
                    included: frozenset[str] = frozenset()) -> list[T.Binder]:
    """`variable` binders a declaration mentions (directly or through an included binder's type),
    and, for a theorem, those named by an earlier `include`."""
    if not variables:
        return []
    names: set[str] = set(included) if isinstance(d, T.Theorem) else set()
    parts: list[T.Term] = []
    if isinstance(d, (T.Def, T.Theorem, T.Opaque)):
        parts.extend(b.ty for b in d.binders if b.ty is not None)
        parts.append(d.stmt if isinstance(d, T.Theorem) else d.ret)
        if isinstance(d, T.Def):
            parts.append(d.body)
    # Only the variables' names are looked up in ``names``: the parts' free names among them
    # (read without memoising every node's free names, as ``T.free_names`` would).
    wanted = frozenset(b.name for b in variables)
    for p in parts:
        _free_among(p, wanted, frozenset(), names)
    own = {b.name for b in getattr(d, "binders", ())}
    # (chosen by identity: binders equal by value have one name, so they are chosen together)
    chosen: set[int] = set()
    changed = True
    while changed:
        changed = False
        for b in variables:
            if b.name in names and b.name not in own and id(b) not in chosen:
                chosen.add(id(b))
                if b.ty is not None:
                    names |= T.free_names(b.ty)
                changed = True
    return [b for b in variables if id(b) in chosen]


def _free_among(t: T.Term, wanted: frozenset[str], bound: frozenset[str], out: set[str]) -> None:
    """Add to ``out`` the names of ``wanted`` free in ``t`` and not in ``bound``: the same as
    ``out |= T.free_names(t) & wanted - bound`` (binders scope as there: a binder's type sees the
    binders before it in its group, the body all of them)."""
    cls = type(t)
    if cls is T.Var:
        name = t.name
        if name in wanted and name not in bound:
            out.add(name)
        return
    if cls is T.Num:
        return
    memo = getattr(t, "_fv", None)       # (already known: read it)
    if memo is not None:
        for name in memo:
            if name in wanted and name not in bound:
                out.add(name)
        return
    if cls is T.App:
        _free_among(t.fn, wanted, bound, out)
        for a in t.args:
            _free_among(a, wanted, bound, out)
    elif cls is T.BinOp or cls is T.Cmp or cls is T.And:
        _free_among(t.lhs, wanted, bound, out)
        _free_among(t.rhs, wanted, bound, out)
    elif isinstance(t, T.Var):
        if t.name in wanted and t.name not in bound:
            out.add(t.name)
    elif isinstance(t, (T.Lam, T.Sum, T.Forall, T.Exists)):
        inner = bound
        for bd in t.binders:
            if bd.ty is not None:
                _free_among(bd.ty, wanted, inner, out)
            inner = inner | {bd.name}
        _free_among(t.body, wanted, inner, out)
    elif isinstance(t, T.NamedArg):
        _free_among(t.value, wanted, bound, out)
    else:
        for c in t.children():
            _free_among(c, wanted, bound, out)


def _check_included_not_redeclared(variables: list[T.Binder], included: set[str],
                                   d: T.Theorem) -> None:
    """A theorem that declares its own binder of a name `include` brings in (or that an
    included binder's type mentions) would drop the included one silently: an error."""
    by_name = {b.name: b for b in variables}
    needed: dict[str, str] = {}                  # name -> the included binder that needs it
    todo = [(n, n) for n in sorted(included)]
    while todo:
        n, why = todo.pop()
        if n in needed or n not in by_name:
            continue
        needed[n] = why
        ty = by_name[n].ty
        todo += [(m, why) for m in sorted(T.free_names(ty))] if ty is not None else []
    for b in d.binders:
        if b.name in needed:
            why = needed[b.name]
            raise NameError_(f"`{b.name}` is declared by this theorem and also brought in by "
                             f"`include {why}`" + (f" (its type mentions `{b.name}`)"
                                                    if why != b.name else "")
                             + ": rename one", b.span, theorem=d.name)


def elaborate_module(lf: LoadedFile, lib: Library | None) -> None:
    """Elaborate every declaration of a file in order, adding each to ``lf.env``."""
    variables: list[T.Binder] = []
    included: set[str] = set()
    seen: dict[str, Span | None] = {}
    for d in lf.module.decls:
        if isinstance(d, T.Import):
            continue
        if isinstance(d, T.Variable):
            variables.extend(d.binders)
            continue
        if isinstance(d, T.Include):
            for name, span in zip(d.names, d.spans):
                if not any(b.name == name for b in variables):
                    raise NameError_(f"`include {name}`: `{name}` is not declared by an earlier "
                                     "`variable`", span,
                                     hint=_suggest(name, [b.name for b in variables]))
                included.add(name)
            continue
        name = getattr(d, "name")
        if name in seen or (lf.env.get(name) is not None and lib is not None
                            and lib.owner.get(name, lf.path) != lf.path):
            where = seen.get(name) or (lf.env.get(name).span if lf.env.get(name) else None)
            raise NameError_(f"duplicate declaration `{name}`"
                             + (f" (first declared at {where})" if where else ""),
                             d.span, theorem=name)
        if name in TYPE_NAMES:
            raise NameError_(f"`{name}` names a type: a declaration cannot reuse it", d.span,
                             theorem=name)
        if lf.env.get(name) is not None and lf.env.get(name).path.startswith("<prelude"):
            # (a redefinition would also change every prelude definition that uses it)
            raise NameError_(f"`{name}` is a built-in of the prelude; choose another name",
                             d.span, theorem=name)
        if isinstance(d, T.Theorem) and included:
            _check_included_not_redeclared(variables, included, d)
        extra = _used_variables(variables, d, frozenset(included))
        if extra:
            d = type(d)(**{**{f: getattr(d, f) for f in d.__dataclass_fields__},
                           "binders": tuple(extra) + d.binders})
        seen[name] = d.span
        try:
            g = elaborate_decl(d, lf.env, Elaborator(), lf.path)
        except ShardproofError as exc:
            raise exc.with_context(span=d.span, theorem=name) from None
        lf.env.add(g)
        lf.own.append(g)
        if lib is not None:
            lib.owner[name] = lf.path


def elaborate_decl(d: T.Decl, env: GlobalEnv, el: Elaborator, path: str) -> GlobalDecl:
    ctx = Ctx(env, theorem=getattr(d, "name", None))
    params: list[Param] = []
    binders: list[tuple[str, Ty]] = []
    hyps: list[tuple[str, T.Term]] = []
    names_seen: set[str] = set()
    binders_src, stmt_src, conjuncts = getattr(d, "binders", ()), getattr(d, "stmt", None), ()
    existential = isinstance(d, T.Theorem) and isinstance(d.stmt, T.Exists)
    if existential:
        binders_src, conjuncts, stmt_src = _open_exists(d)
    for b in binders_src:
        if b.name in names_seen:
            raise TypeError_(f"the binder `{b.name}` is declared twice", b.span,
                             theorem=ctx.theorem)
        names_seen.add(b.name)
        check_binder_name(b, (), ctx)
        if b.ty is None:  # pragma: no cover - the grammar requires a type here
            raise TypeError_(f"`{b.name}` needs a type", b.span)
        if _is_prop_syntax(b.ty):
            prop = el.prop(b.ty, ctx)
            ctx.facts.append(prop)
            _add_size_equality(prop, ctx)
            params.append(Param(b.name, prop, "hyp", b.implicit))
            hyps.append((b.name, prop))
            ctx.locals[b.name] = PropT()
            continue
        ty = el.type_of_term(b.ty, ctx)
        ctx.locals[b.name] = ty
        from .types import ty_to_term
        params.append(Param(b.name, ty_to_term(ty), _param_kind(ty), b.implicit))
        binders.append((b.name, ty))
    for k, c in enumerate(conjuncts, 1):     # `∃ …, P ∧ a ≠ b`: P is a hypothesis on the values
        prop = el.prop(c, ctx)
        ctx.facts.append(prop)
        _add_size_equality(prop, ctx)
        params.append(Param(f"h∧{k}", prop, "hyp", False))
        hyps.append((f"h∧{k}", prop))
    reading = LeanReading(ctx)      # text Lean reads in ℕ where this language reads ℝ: refused
    for _, h in hyps:
        reading.check(h, None)
    if isinstance(d, T.Def):
        ret_ty = el.type_of_term(d.ret, ctx) if not _is_prop_type(d.ret) else PropT()
        if isinstance(ret_ty, PropT):
            body = el.prop(d.body, ctx)
        else:
            body = el.expect(d.body, ctx, ret_ty)
        cod = ret_ty
        while isinstance(cod, FunT):                     # (a family's entries are real too)
            cod = cod.cod
        reading.check(body, "real" if isinstance(cod, (RealT, VecT)) else None)
        return GlobalDecl(d.name, "def", tuple(params), d.ret if not isinstance(ret_ty, PropT)
                          else None, body=body, doc=d.doc, span=d.span, path=path, decl=d,
                          ret_ty=ret_ty, size_subst=ctx.subst,
                          cmp_types=dict(el.cmp_types),
                          prop_types=el.positional_types(body) if isinstance(ret_ty, PropT)
                          else {})
    if isinstance(d, T.Opaque):
        ret_ty = el.type_of_term(d.ret, ctx)
        if not isinstance(ret_ty, (RealT, VecT)):   # (an op is read as a real or entries)
            raise TypeError_(f"the result of the op `{d.name}` must be a real (`ℝ`) or a vector "
                             f"(`Vec n`), not `{ret_ty}`", d.ret.span or d.span)
        if d.linear_in is not None and d.linear_in not in {p.name for p in params}:
            raise TypeError_(f"`@[linear {d.linear_in}]` names no parameter of `{d.name}`",
                             d.span)
        if d.linear_in is not None and not (isinstance(dict(binders)[d.linear_in], VecT)
                                             and isinstance(ret_ty, VecT)):
            # (linearity is read as a Jacobian: op(…, dy)[k] = Σ_j J[k, j]·dy[j])
            raise TypeError_(f"`@[linear {d.linear_in}]` needs `{d.linear_in}` and the result "
                             f"of `{d.name}` to be vectors (`Vec n`)", d.span)
        return GlobalDecl(d.name, "opaque", tuple(params), d.ret, linear_in=d.linear_in,
                          doc=d.doc, span=d.span, path=path, decl=d, ret_ty=ret_ty)
    if isinstance(d, T.Theorem):
        stmt = el.prop(stmt_src, ctx)
        _check_proof_names(d, {h for h, _ in hyps}, env)
        prop_types = el.positional_types(stmt)
        _check_no_nested_ne(stmt, prop_types, env)
        reading.check(stmt, None)
        negative = isinstance(stmt, T.Cmp) and stmt.op == "≠" and \
            not isinstance(prop_types.get(()), NatT)
        if existential and not negative:
            raise TypeError_("an `∃` statement states a counterexample here: after its "
                             "hypotheses (`P ∧ …`) it must end in a `≠` between reals or "
                             "vectors", stmt_src.span or d.span, theorem=d.name)
        written = d.proof is not None and not d.proof.implicit    # (implicit: `norm` alone)
        for k, step in enumerate(d.proof.steps if written else ()):
            if negative:
                _check_negative_step(d, step, k, existential or not binders)
            elif step.tactic == "witness":                # it was silently ignored
                raise TypeError_("`witness` proves `∃ …, a ≠ b` (or a closed `a ≠ b`) between "
                                 "reals or vectors; this statement is not one", step.span)
        for step in d.proof.steps if d.proof is not None else ():
            given: set[str] = set()                       # (the last value once won silently)
            for na in step.assignments:
                if na.name not in dict(binders) or na.name in given:
                    raise NameError_(f"`{na.name}` is given twice in this witness"
                                     if na.name in given else f"`{na.name}` is not a variable "
                                     f"of `{d.name}` (a witness gives its variables values)",
                                     na.span)
                given.add(na.name)
                _check_witness_value(na, dict(binders)[na.name], env, d.name)
        return GlobalDecl(d.name, "theorem", tuple(params), None, stmt=stmt,
                          binders=tuple(binders), hyps=tuple(hyps), doc=d.doc, span=d.span,
                          path=path, decl=d, proof=d.proof, size_subst=ctx.subst,
                          cmp_types=dict(el.cmp_types), prop_types=prop_types,
                          existential=existential)
    raise AssertionError(d)  # pragma: no cover


def _check_negative_step(d: T.Theorem, step: T.ProofStep, k: int, witnessable: bool) -> None:
    """A `≠` between reals or vectors takes one proof step, `witness`, and only as an `∃` (or
    closed): other tactics were silently ignored, and so was a witness for a theorem whose
    binders are universal (the forty-seventh review's note), which then read as refuted."""
    if step.tactic != "witness":
        raise TypeError_(f"`{step.tactic}` does not prove a `≠` between reals or vectors: an "
                         "`∃ …, a ≠ b` (or a closed one) is proved by `witness (…)`, or with no "
                         "proof by the checker's search", step.span, theorem=d.name)
    if k > 0:
        raise TypeError_("one `witness` step gives the values", step.span, theorem=d.name)
    if not witnessable:
        raise TypeError_("`witness` gives values to the binders of an `∃`; this theorem's "
                         "binders are universal (Lean reads its `≠` for every value of them)",
                         step.span, theorem=d.name,
                         hint=f"state the counterexample as `theorem {d.name} : ∃ (…), a ≠ b`, "
                              "the binders inside the `∃`")


def _check_witness_value(na: T.NamedArg, ty: Ty, env: GlobalEnv, theorem: str) -> None:
    """A witness value Lean would not elaborate at its variable's type is an input error, as
    there (the fifty-second review: `(n := 1.0)` was taken as the natural 1, an unknown name
    was `unknown`): a name must be in scope, and a size or an index a natural numeral."""
    v = na.value
    for name in sorted(T.free_names(v)):
        if env.get(name) is None:
            raise NameError_(f"unknown name `{name}` in the witness value of `{na.name}`",
                             v.span or na.span, theorem=theorem)
    numeral = v.arg if isinstance(v, T.Neg) else v
    fraction = isinstance(numeral, T.BinOp) and numeral.op == "/"     # (review 81: `1/2`)
    if isinstance(ty, (NatT, FinT)) and (fraction or isinstance(numeral, T.Num) and (
            v is not numeral or numeral.decimal or numeral.value.denominator != 1)):
        raise TypeError_(f"`{na.name}` is a `{ty}`: its value is a natural numeral (`2`), "
                         "not a negative, a fraction or a decimal", v.span or na.span,
                         theorem=theorem)


def _open_exists(d: T.Theorem) -> tuple[tuple[T.Binder, ...], tuple[T.Term, ...], T.Term]:
    """`theorem t : ∃ (x : X) (h : P x), Q x ∧ a ≠ b`: the binders (`x`, and `h` as a
    hypothesis), the conjuncts before the last (`Q x`, hypotheses too) and the last (`a ≠ b`).
    A witness gives the binders values.  Binders before the colon would make it `∀ y, ∃ x, …`,
    whose witness may depend on `y`: not decided here, so refused."""
    if d.binders:
        raise TypeError_(f"`{d.name}` states `∃ …` after binders: that reads `∀ …, ∃ …`, whose "
                         "witness may depend on them, and this checker takes a witness of "
                         "numbers; move the binders into the `∃`", d.binders[0].span or d.span,
                         theorem=d.name)
    binders: list[T.Binder] = []
    body = d.stmt
    while isinstance(body, T.Exists):
        for b in body.binders:
            if b.ty is None:
                raise TypeError_(f"`{b.name}` needs a type: `∃ ({b.name} : ℝ), …`",
                                 b.span or body.span, theorem=d.name)
        binders.extend(body.binders)
        body = body.body
    conjuncts: list[T.Term] = []
    while isinstance(body, T.And):
        conjuncts.append(body.lhs)
        body = body.rhs
    return tuple(binders), tuple(conjuncts), body


def _check_no_nested_ne(stmt: T.Term, prop_types: dict, env: GlobalEnv) -> None:
    """A `≠` between reals or vectors is decided only as a whole statement: proved by a witness
    as an `∃`'s (or closed), refuted where its sides are equal under a theorem's binders.  Under
    `∀`, inside `∧` or inside a `Prop`-valued definition the statement applies it is an error
    (when a theorem's binders still read existentially, reviews had `∀ (i : Fin n), x + 1 ≠
    x + 1` refuted though its own witness n := 0 held, also through a definition; neither
    decision is built for that position).  Each comparison's type is
    looked up by its position (``prop_types``): by text, `(∀ (k : ℝ), k + 1 ≠ 0) ∧ (∀ (k : Fin 2),
    k + 1 ≠ 0)` shared one key, the later scope's type won, and the real `≠` passed (the
    thirty-ninth review)."""
    todo: list[tuple[T.Term, dict, tuple[int, ...], T.Term | None]] = [(stmt, prop_types, (), None)]
    seen: set[str] = set()          # each definition's body once (`P ∧ P` nested 30 deep: 2³⁰)
    while todo:
        s, types, path, via = todo.pop()
        head = s.fn if isinstance(s, T.App) else s
        g = env.get(head.name) if isinstance(head, T.Var) else None
        if g is not None and g.kind == "def" and isinstance(g.ret_ty, PropT):
            if g.name not in seen:
                seen.add(g.name)
                todo.append((g.body, g.prop_types or {}, (), via or s))
        elif isinstance(s, T.Cmp) and s.op == "≠" and not isinstance(types.get(path), NatT) and \
                (path or via is not None):
            raise TypeError_("a `≠` between reals or vectors is decided here only by a witness, "
                             "as a whole statement (`theorem t : ∃ (x : …), a ≠ b`, or closed), "
                             "not under `∀`, inside `∧` or inside a definition: state it as a "
                             "theorem of its own",
                             (via or s).span)
        elif isinstance(s, T.Forall):
            todo.append((s.body, types, path + (0,), via))
        elif isinstance(s, T.And):
            todo += [(s.lhs, types, path + (0,), via), (s.rhs, types, path + (1,), via)]


def _check_proof_names(d: T.Theorem, hyps: set[str], env: GlobalEnv) -> None:
    """Every tactic of a proof is known and every name it cites is in scope (as in Lean, an
    unknown or later-declared name is an error in the file, not an unproved theorem)."""
    for step in d.proof.steps if d.proof is not None else ():
        if step.tactic not in ("norm", "rw", "unfold", "witness"):
            raise NameError_(f"unknown tactic `{step.tactic}` (expected norm, rw [..], "
                             "unfold [..] or witness)", step.span)
        if step.tactic in ("rw", "unfold") and not step.names:    # (it was a silent no-op)
            raise NameError_(f"`{step.tactic}` needs a list of what to "
                             f"{'rewrite with' if step.tactic == 'rw' else 'unfold'}: "
                             f"`{step.tactic} [{'h' if step.tactic == 'rw' else 'f'}]`", step.span)
        for nm in step.names:
            g = env.get(nm.name)
            if step.tactic == "unfold" and (g is None or g.kind != "def"):
                raise NameError_(f"`{nm.name}` is not a definition in scope (unfold [..] "
                                 "takes definitions)", nm.span)
            if step.tactic != "unfold" and nm.name not in hyps and (g is None or
                                                                   g.kind != "theorem"):
                raise NameError_(f"`{nm.name}` is neither a hypothesis of `{d.name}` nor a "
                                 "theorem declared before it", nm.span)


def _is_prop_syntax(t: T.Term) -> bool:
    return isinstance(t, (T.Cmp, T.And, T.Forall, T.Exists))


def _is_prop_type(t: T.Term) -> bool:
    return isinstance(t, T.Var) and t.name == "Prop"


def _add_size_equality(prop: T.Term, ctx: Ctx) -> None:
    """A hypothesis `a = b` between sizes: later types are compared with ``a := b``.

    ``ctx.subst`` is applied recursively (``arith.to_ipoly``, the normaliser, the sampler), so it
    must stay acyclic with one tie per name.  A size already tied is followed to the size it
    stands for (`a = b` then `a = 3` ties `b := 3`), and a tie whose right side mentions its left
    side once the earlier ties are applied (`a = a + 1`, `a = b` then `b = a`) is not added: the
    hypothesis is still a hypothesis, checked wherever the others are, just not a substitution.
    """
    if not (isinstance(prop, T.Cmp) and prop.op == "="):
        return
    tied = dict(ctx.subst)
    for side, other in ((prop.lhs, prop.rhs), (prop.rhs, prop.lhs)):
        name = _untied_size(side, tied, ctx)
        # only a size is a size's value: `n = v 0`, `n = -x`, `n = 4 / 2` stay hypotheses (as
        # ties they crashed the search and misplaced the type checker's errors)
        if name is not None and is_size_term(other, ctx) and \
                name not in _resolved_names(other, tied):
            ctx.subst = ctx.subst + ((name, other),)
            return


def _untied_size(t: T.Term, tied: dict[str, T.Term], ctx: Ctx) -> str | None:
    """The size variable ``t`` stands for after following ties `a := b` between variables, if
    that variable is not tied yet (else None: there is nothing to orient the equation on)."""
    seen: set[str] = set()
    while isinstance(t, T.Var) and t.name in tied and t.name not in seen:
        seen.add(t.name)
        t = tied[t.name]
    if isinstance(t, T.Var) and t.name not in tied and isinstance(ctx.locals.get(t.name), NatT):
        return t.name
    return None


def _resolved_names(t: T.Term, tied: dict[str, T.Term]) -> set[str]:
    """The free names of ``t`` once the ties are applied (the occurs check of a new tie)."""
    out: set[str] = set()
    seen: set[str] = set()
    todo = list(T.free_names(t))
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in tied:
            todo.extend(T.free_names(tied[n]))
        else:
            out.add(n)
    return out


@lru_cache(maxsize=1)
def prelude_env() -> GlobalEnv:
    """The built-in vocabulary: the prelude files, elaborated once per process."""
    env = GlobalEnv()
    base = resources.files("shardproof").joinpath("prelude")
    for fname in PRELUDE_FILES:
        text = base.joinpath(fname).read_text(encoding="utf-8")
        shown = f"<prelude>/{fname}"
        module = parse_module(text, shown)
        lf = LoadedFile(shown, module, env)
        elaborate_module(lf, None)
        env = lf.env
    return env


__all__ = ["Library", "LoadedFile", "prelude_env", "find_root", "FinT"]
