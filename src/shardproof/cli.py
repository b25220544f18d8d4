"""The `shardproof` command: `check`, `explain` and `axioms`, thin layers over :mod:`.check`.

The command line is the one place that catches :class:`~shardproof.errors.ShardproofError`: an
input error is rendered as ``path:line:col: error: …`` with the source line and a caret, and the
exit status is 2.  Exit 0 means every theorem checked was proved, 1 that something was refuted or
left unknown; 3 is reserved for a bug in shardproof itself (an exception that is not an input
error), so CI can tell "your lemma is wrong" from "the checker is broken".

Output is deterministic: the same files give the same bytes on stdout, except for timings, which
``--no-times`` replaces by zeros (tests compare runs byte for byte with it).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
import time
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .check import (MAX_SEARCH_SECONDS, Checker, Options, Verdict, cex_value,
                    counterexample_lines, lemma_files, stopped_text)
from .errors import ShardproofError, shown_path
from .library import LoadedFile
from .pretty import pretty

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141   # the shell's 128 + SIGINT, 128 + SIGPIPE

_EPILOG = """\
examples:
  shardproof check lemmas/                     check every .lemma file under lemmas/
  shardproof check -q lemmas/kit/shard.lemma   only failures and the summary
  shardproof check --format json lemmas/ > verdicts.jsonl
  shardproof check --junit report.xml lemmas/  JUnit XML for CI (GitHub annotations are
                                               printed too when GITHUB_ACTIONS=true)
  shardproof check --no-times lemmas/          byte-identical output from run to run
  shardproof explain den_relu_shard            statement, verdict, rules, lemmas and trace
  shardproof axioms resStem_shard lemmas/      what a theorem rests on, transitively

exit status: 0 every theorem proved, 1 something refuted or unknown, 2 bad input,
3 internal error (please report it, with the output of --debug).
"""

_COLOURS = {"proved": "\033[32m", "refuted": "\033[31m", "unknown": "\033[33m"}
_RESET = "\033[0m"
# Characters XML 1.0 cannot carry (a fuzzed file can put any of them into a message).
_XML_BAD = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# --------------------------------------------------------------------------- argument parsing

def _budget(text: str) -> float:
    """A search budget: a finite number of nominal seconds, 0 to a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0.0 <= value <= MAX_SEARCH_SECONDS:      # (also false for nan)
        raise argparse.ArgumentTypeError(
            f"expected seconds from 0 to {MAX_SEARCH_SECONDS:g}, got {text!r}")
    return value


def _cache_dir(text: str) -> str:
    """A cache directory: not empty (`--cache-dir "$UNSET"` would mean the current directory,
    the fifty-third review)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a directory, got an empty name")
    return text


def _report_file(text: str) -> str:
    """A report file: not empty (`--junit ''` wrote nothing, silently)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got an empty name")
    return text


def _seed(text: str) -> int:
    """A search seed: a natural number (numpy's generators take no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a natural number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a natural number, got {text!r}")
    return value


def _jobs(text: str) -> int:
    """A number of processes: 1 to 256."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 256:
        raise argparse.ArgumentTypeError(f"expected a number of processes from 1 to 256, "
                                         f"got {text!r}")
    return value


def _common_options() -> argparse.ArgumentParser:
    """Options every subcommand accepts (so they may follow the subcommand's name)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--no-color", action="store_true",
                   help="never colour the verdicts (also: the NO_COLOR environment variable)")
    p.add_argument("--no-times", action="store_true",
                   help="print and record every time as 0 (byte-identical output across runs)")
    p.add_argument("--no-replay", action="store_true",
                   help="do not replay proofs in the kernel (faster, less trusted)")
    p.add_argument("--search-seconds", type=_budget, default=Options.search_seconds, metavar="S",
                   help="counterexample search budget per theorem, in nominal seconds: "
                        "counted as evaluation work (about that many seconds on a 2-core "
                        "reference machine), so the verdict is the same on any machine; "
                        "shrinking a counterexample found adds float trials within a tenth of "
                        "that work and two exact re-checks "
                        "(default: %(default)s)")
    p.add_argument("--seed", type=_seed, default=Options.seed, metavar="N",
                   help="seed of the counterexample search (default: %(default)s)")
    p.add_argument("--cache-dir", default=None, metavar="DIR", type=_cache_dir,
                   help="the incremental cache: verdicts of unchanged theorems (and of "
                        "everything they depend on) are reused (default: .shardproof-cache; "
                        "the environment variable SHARDPROOF_NO_CACHE turns the default off)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the incremental cache")
    p.add_argument("--debug", action="store_true",
                   help="show Python tracebacks for errors")
    return p


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and the tests)."""
    common = _common_options()
    parser = argparse.ArgumentParser(
        prog="shardproof",
        description="Check data-parallel training identities written as `.lemma` files.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"shardproof {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    chk = sub.add_parser("check", parents=[common], epilog=_EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         help="check every theorem in files or directories (recursively)",
                         description="Check every theorem; one line per theorem, then a summary.")
    chk.add_argument("paths", nargs="*", default=None, metavar="PATH",
                     help="`.lemma` files or directories (default: lemmas)")
    chk.add_argument("--format", choices=("text", "json"), default="text",
                     help="text (default) or json: one JSON object per theorem per line")
    chk.add_argument("--junit", metavar="FILE", type=_report_file,
                     help="also write a JUnit XML report to FILE")
    chk.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                     help="check files in N processes (output identical to -j 1)")
    level = chk.add_mutually_exclusive_group()
    level.add_argument("-q", "--quiet", action="store_true",
                       help="print only failures and the summary")
    level.add_argument("-v", "--verbose", action="store_true",
                       help="also print the rules and lemmas each proof used")
    chk.set_defaults(run=_cmd_check)

    exp = sub.add_parser("explain", parents=[common],
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         help="print a theorem's statement, verdict, rules, lemmas and trace",
                         description="Check one theorem (and what it imports) and explain the "
                                     "verdict: statement, rules, oracles, lemmas and the trace.",
                         epilog="example:\n  shardproof explain den_relu_shard lemmas/")
    exp.add_argument("name", metavar="NAME", help="the theorem's name")
    exp.add_argument("paths", nargs="*", default=None, metavar="PATH",
                     help="where to look for it (default: lemmas)")
    exp.set_defaults(run=_cmd_explain)

    axi = sub.add_parser("axioms", parents=[common],
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         help="the rules, oracles and lemmas a theorem rests on, transitively",
                         description="Our `#print axioms`: every rule, trusted oracle and lemma "
                                     "a theorem's proof rests on, through the lemmas it cites.",
                         epilog="example:\n  shardproof axioms den_relu_shard lemmas/")
    axi.add_argument("name", metavar="NAME", help="the theorem's name")
    axi.add_argument("paths", nargs="*", default=None, metavar="PATH",
                     help="where to look for it (default: lemmas)")
    axi.set_defaults(run=_cmd_axioms)

    rep = sub.add_parser("report", parents=[common],
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         help="write a static HTML report (pages, traces, dependency graph)",
                         description="Check the files and write an offline HTML site: one page "
                                     "per file, each theorem with its verdict, statement, "
                                     "trace and axioms, and an index with the lemma "
                                     "dependency graph coloured by verdict.",
                         epilog="example:\n  shardproof report lemmas/ -o report/")
    rep.add_argument("paths", nargs="*", default=None, metavar="PATH",
                     help="files or directories (default: lemmas)")
    rep.add_argument("-o", "--output", default="report", metavar="DIR",
                     help="where to write the site (default: %(default)s)")
    rep.set_defaults(run=_cmd_report)
    return parser


# --------------------------------------------------------------------------- the session

@dataclass
class _Session:
    """What one run of the command shares: options, output streams, the checker, errors seen."""

    args: argparse.Namespace
    out: TextIO
    err: TextIO
    checker: Checker
    colour: bool
    github: bool
    errors: list[ShardproofError] = field(default_factory=list)
    _seen_errors: set[tuple[str, str]] = field(default_factory=set)

    def secs(self, seconds: float) -> float:
        return 0.0 if self.args.no_times else seconds

    def paint(self, verdict: str) -> str:
        if not self.colour or verdict not in _COLOURS:
            return verdict
        return f"{_COLOURS[verdict]}{verdict}{_RESET}"

    def sources(self) -> dict[str, list[str]]:
        merged: dict[str, list[str]] = {}
        for lib in self.checker.libraries.values():
            merged.update(lib.sources)
        return merged

    def report_error(self, exc: ShardproofError) -> None:
        """Print an input error once (a broken file imported twice fails twice)."""
        key = (str(exc.span), exc.message)
        if key in self._seen_errors:
            return
        self._seen_errors.add(key)
        self.errors.append(exc)
        print(_render(exc, self.sources()), file=self.err)
        if self.args.debug:
            traceback.print_exception(exc, file=self.err)
        if self.github:
            props = {"title": f"shardproof: {exc.kind} error"}
            if exc.span is not None:
                props = {"file": exc.span.path, "line": str(exc.span.line),
                         "col": str(exc.span.col), **props}
            msg = exc.message + (f" (in `{exc.theorem}`)" if exc.theorem else "")
            print(_annotation(props, msg), file=self._annotation_stream())

    def annotate_verdict(self, v: Verdict, col: int) -> None:
        if not self.github or v.verdict == "proved":
            return
        props = {"file": v.file, "line": str(v.line), "col": str(col),
                 "title": f"shardproof: {v.name} {v.verdict}"}
        print(_annotation(props, "\n".join(_failure_lines(v))), file=self._annotation_stream())

    def _annotation_stream(self) -> TextIO:
        # GitHub reads workflow commands from stdout; JSON mode keeps stdout pure JSON.
        return self.err if getattr(self.args, "format", "text") == "json" else self.out


def _render(exc: ShardproofError, sources: dict[str, list[str]] | None) -> str:
    """An input error as ``path:line:col: error: …`` (no bare `<input>:` when it has no place)."""
    if exc.span is None and exc.source_line is None:
        text = exc.render(sources).split(": error: ", 1)[-1]
        return f"shardproof: error: {text}"
    return exc.render(sources)


def _annotation(props: dict[str, str], message: str) -> str:
    """A GitHub workflow command `::error k=v,…::message`, escaped as GitHub specifies."""
    def data(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(s: str) -> str:
        return data(s).replace(":", "%3A").replace(",", "%2C")

    return "::error " + ",".join(f"{k}={prop(v)}" for k, v in props.items()) + "::" + data(message)


def _options(args: argparse.Namespace) -> Options:
    cache = args.cache_dir
    if cache is None and not os.environ.get("SHARDPROOF_NO_CACHE"):
        cache = ".shardproof-cache"
    return Options(search_seconds=args.search_seconds, replay=not args.no_replay,
                   seed=args.seed, cache_dir=None if args.no_cache else cache)


def _use_colour(args: argparse.Namespace, out: TextIO) -> bool:
    if args.no_color or os.environ.get("NO_COLOR", ""):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


# --------------------------------------------------------------------------- formatting

def _fmt_seconds(seconds: float) -> str:
    if seconds < 1.0:
        return f"{round(seconds * 1000)} ms"
    return f"{seconds:.2f} s"


def _failure_lines(v: Verdict, python: bool = False, file: str | None = None) -> list[str]:
    """Why a theorem is not proved: its counterexample, or the reason and residual.  With
    ``python``, the counterexample's code too, whose `sp.sides` call reads ``file``."""
    lines: list[str] = []
    if v.verdict == "refuted":
        if v.counterexample:
            lines.append("counterexample:")
            lines.extend("  " + ln for ln in counterexample_lines(v.counterexample, python,
                                                                  file=file, name=v.name))
        elif v.reason:
            lines.append(v.reason)
        if (stopped := stopped_text(v)) is not None:
            lines.append(stopped)
    elif v.verdict == "unknown":
        lines.append(f"reason: {v.reason or 'not proved'}")
        if v.residual:
            res = str(v.residual).splitlines() or [""]
            lines.append(f"residual: {res[0]}")
            lines.extend("  " + ln for ln in res[1:])
    return lines


def _theorem_line(s: _Session, v: Verdict, width: int) -> str:
    pad = " " * (len("unknown  ") - len(v.verdict))
    return f"{s.paint(v.verdict)}{pad}{v.name.ljust(width)}  ({_fmt_seconds(s.secs(v.seconds))})"


def _join(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items) if items else "—"


# --------------------------------------------------------------------------- loading and checking

def _check_file(s: _Session, path: Path
                ) -> tuple[list[tuple[Verdict, int]] | None, ShardproofError | None]:
    """Check a file after its whole import closure (so lemmas from any import can be cited).

    Returns its verdicts with the column of each theorem, or the input error (already reported).
    """
    ck = s.checker
    try:
        lf = ck.load(path)
        verdicts = ck.check_file(path)   # checks the whole import closure first
    except ShardproofError as exc:
        s.report_error(exc)
        return None, exc
    cols = {g.name: (g.span.col if g.span else 1) for g in lf.own}
    return [(v, cols.get(v.name, 1)) for v in verdicts], None


def _files(s: _Session, paths: list[str]) -> list[Path]:
    try:
        return lemma_files(paths)
    except ShardproofError as exc:
        s.report_error(exc)
        return []


# --------------------------------------------------------------------------- check

_WORKER_CHECKER: Checker | None = None


def _check_in_worker(path: str, options: Options) -> tuple[Any, Any, dict[str, Any]]:
    """One file checked in a worker process (for `-j N`): verdicts, or the input error.  A
    worker keeps its checker from file to file, as the serial run does: a fresh one per file
    re-checked each file's whole import closure (the fifty-third review: `-j 2` took five
    times as long as `-j 1` on the library)."""
    global _WORKER_CHECKER
    if _WORKER_CHECKER is None or _WORKER_CHECKER.options != options:
        _WORKER_CHECKER = Checker(options)
    ck = _WORKER_CHECKER
    if ck.cache is not None:
        ck.cache.new.clear()
    p = Path(path)
    try:
        lf = ck.load(p)
        verdicts = ck.check_file(p)   # checks the whole import closure first
    except ShardproofError as exc:
        line = exc.source_line         # (the parent never read this file: the line goes along)
        src = {k: v for lib in ck.libraries.values() for k, v in lib.sources.items()}.get(
            exc.span.path if exc.span is not None else None)
        if line is None and src and 1 <= exc.span.line <= len(src):
            line = src[exc.span.line - 1]
        err = (exc.message, exc.span, exc.theorem, line, exc.hint, type(exc).__name__)
        return None, err, {}
    cols = {g.name: (g.span.col if g.span else 1) for g in lf.own}
    new = dict(ck.cache.new) if ck.cache is not None else {}
    return [(v, cols.get(v.name, 1)) for v in verdicts], None, new


def _worker_init() -> None:
    """A `-j` worker: Ctrl-C is the parent's to handle (it stops the workers), and a worker
    whose parent is gone exits (the seventy-sixth review: workers outlived a parent killed by
    SIGTERM, holding the output pipe open, so `… | tee log` never ended)."""
    import signal
    import threading
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()   # (the main process, or a fork server that ends with it: the
                            # seventy-ninth review, forkserver workers took the server for gone)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def _parallel_results(s: _Session, paths: list[Path]):
    """Check files in ``-j`` processes; results come back in file order (deterministic)."""
    import signal
    from concurrent.futures import ProcessPoolExecutor

    from . import errors as E
    opts = s.checker.options
    pool = ProcessPoolExecutor(max_workers=s.args.jobs, initializer=_worker_init)
    try:
        futures = [pool.submit(_check_in_worker, str(p), opts) for p in paths]
        for p, fut in zip(paths, futures):
            checked, err, new = fut.result()
            if s.checker.cache is not None:
                for k, rec in new.items():
                    s.checker.cache.put(k, rec)
            if err is not None:
                msg, span, thm, line, hint, kind = err
                cls = getattr(E, kind, E.ShardproofError)
                exc = cls(msg, span, theorem=thm, source_line=line, hint=hint)
                s.report_error(exc)
                yield p, None, exc
                continue
            for v, _ in checked:
                s.checker.verdicts[v.name] = v
            yield p, checked, None
    except BaseException:
        # Ctrl-C (pressed twice, too: the seventy-sixth review's hang, a shutdown cut short and
        # its workers joined at exit forever) or an early close: stop the workers, never wait;
        # a second Ctrl-C meanwhile is ignored
        before = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        finally:
            signal.signal(signal.SIGINT, before)
        raise
    pool.shutdown()


def _progress(s: _Session, k: int, n: int, path: Path) -> None:
    """A progress line on stderr, only on a terminal (never in CI logs or pipes)."""
    if n > 1 and s.err.isatty() and not s.args.quiet and s.args.format == "text":
        print(f"\r\033[K[{k}/{n}] {path}", end="", file=s.err, flush=True)


def _cmd_report(s: _Session) -> int:
    from .report import build_report_and_verdicts
    paths = s.args.paths or ["lemmas"]
    try:
        index, report = build_report_and_verdicts(paths, s.args.output, checker=s.checker)
    except ShardproofError as exc:
        s.report_error(exc)
        return EXIT_INPUT
    counts = {k: sum(1 for v in report.verdicts if v.verdict == k)
              for k in ("proved", "refuted", "unknown")}
    print(f"wrote {index}: {counts['proved']} proved, {counts['refuted']} refuted, "
          f"{counts['unknown']} unknown", file=s.out)
    return EXIT_OK if report.ok else EXIT_FAILED


def _cmd_check(s: _Session) -> int:
    args = s.args
    t0 = time.perf_counter()
    results: list[tuple[str, list[tuple[Verdict, int]] | None, ShardproofError | None]] = []
    counts = {"proved": 0, "refuted": 0, "unknown": 0}
    files = _files(s, args.paths)
    if args.jobs > 1 and len(files) > 1:
        stream = _parallel_results(s, files)
    else:
        stream = ((p, *_check_file(s, p)) for p in files)
    for k, (path, checked, err) in enumerate(stream, 1):
        _progress(s, k, len(files), path)
        results.append((str(path), checked, err))
        if checked is None:
            continue
        width = max((len(v.name) for v, _ in checked), default=0)
        for v, col in checked:
            counts[v.verdict] = counts.get(v.verdict, 0) + 1
            _print_verdict(s, v, width)
            s.annotate_verdict(v, col)
    if files and len(files) > 1 and s.err.isatty() and not args.quiet and args.format == "text":
        print("\r\033[K", end="", file=s.err, flush=True)
    elapsed = s.secs(time.perf_counter() - t0)
    try:
        s.checker.save_cache()
    except ShardproofError as exc:  # the cache cannot be written: say so, keep the verdicts
        s.report_error(exc)
    if args.format == "text":
        summary = f"{counts['proved']} proved, {counts['refuted']} refuted, " \
                  f"{counts['unknown']} unknown"
        if s.errors:
            summary += f", {len(s.errors)} input error{'s' if len(s.errors) != 1 else ''}"
        print(f"{summary} in {elapsed:.2f} s", file=s.out)
    if args.junit:
        try:
            _write_junit(s, Path(args.junit), results, elapsed)
        except OSError as exc:
            print(f"shardproof: error: cannot write the JUnit report {args.junit}: "
                  f"{exc.strerror or exc}", file=s.err)
            return EXIT_INPUT
    if s.errors:
        return EXIT_INPUT
    return EXIT_OK if sum(counts.values()) == counts["proved"] else EXIT_FAILED


def _print_verdict(s: _Session, v: Verdict, width: int) -> None:
    if s.args.format == "json":
        rec = v.to_json()
        rec["seconds"] = round(s.secs(v.seconds), 6)
        print(json.dumps(rec, ensure_ascii=False, default=str), file=s.out)
        return
    failed = v.verdict != "proved"
    if s.args.quiet and not failed:
        return
    print(_theorem_line(s, v, width), file=s.out)
    if failed:
        print(f"    at {shown_path(v.file)}:{v.line}", file=s.out)
        for ln in _failure_lines(v):
            print("    " + ln, file=s.out)
    if s.args.verbose:
        print(f"    rules: {_join(v.rules)}", file=s.out)
        if v.lemmas:
            print(f"    lemmas: {_join(v.lemmas)}", file=s.out)


def _xml_text(text: str) -> str:
    return _XML_BAD.sub("\ufffd", text)


def _write_junit(s: _Session, path: Path, results, elapsed: float) -> None:
    """JUnit XML: a testsuite per file, a testcase per theorem; input errors are `<error>`s."""
    root = ET.Element("testsuites", name="shardproof")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    # an input error no file's result carries (a missing path, an empty directory, a cache that
    # cannot be written) is a suite of its own: the report of a run that exits 2 is never empty
    # and green (the fifty-fourth review)
    carried = {id(err) for _, _, err in results if err is not None}
    results = list(results) + [(str(e.span.path) if e.span is not None else "(command line)",
                                None, e) for e in s.errors if id(e) not in carried]
    for fname, checked, err in results:
        suite = ET.SubElement(root, "testsuite", name=_xml_text(fname))
        tests = failures = errors = 0
        suite_time = 0.0
        if checked is None:
            tests = errors = 1
            # an error in a file this one imports is named by the import, not by the other
            # file's theorem (it read as a theorem of this file); its place is in `file`/`line`
            where = err.span if err is not None else None
            elsewhere = where is not None and Path(where.path).resolve() != Path(fname).resolve()
            name = (f"(importing {shown_path(where.path)})" if elsewhere else
                    err.theorem if err and err.theorem else "(loading the file)"
                    if err is None or where is not None else "(the paths given)")
            case = ET.SubElement(suite, "testcase", classname=_xml_text(fname),
                                 name=_xml_text(name), time="0")
            if where is not None:
                case.set("file", _xml_text(where.path))
                case.set("line", str(where.line))
            if err is not None:
                el = ET.SubElement(case, "error", type=err.kind,
                                   message=_xml_text(err.message))
                el.text = _xml_text(err.render(s.sources()))
        else:
            for v, _col in checked:
                tests += 1
                secs = s.secs(v.seconds)
                suite_time += secs
                case = ET.SubElement(suite, "testcase", classname=_xml_text(fname),
                                     name=_xml_text(v.name), time=f"{secs:.6f}",
                                     file=_xml_text(v.file), line=str(v.line))
                if v.verdict != "proved":
                    failures += 1
                    lines = _failure_lines(v)
                    if v.verdict == "refuted" and len(lines) > 1:
                        head = lines[1].strip()  # the counterexample's message
                    else:
                        head = v.reason or (lines[0] if lines else v.verdict)
                    el = ET.SubElement(case, "failure", type=v.verdict,
                                       message=_xml_text(f"{v.verdict}: {head}"))
                    title = f"{v.file}:{v.line}: {v.name} is {v.verdict}"
                    el.text = _xml_text("\n".join([title, *lines]))
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", "0")
        suite.set("time", f"{suite_time:.6f}")
        totals["tests"] += tests
        totals["failures"] += failures
        totals["errors"] += errors
    for k, n in totals.items():
        root.set(k, str(n))
    root.set("time", f"{elapsed:.6f}")
    ET.indent(root)
    data = ET.tostring(root, encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + data + "\n", encoding="utf-8",
                    errors="backslashreplace")      # (a file name that is not UTF-8)


# --------------------------------------------------------------------------- explain / axioms

def _find_theorem(s: _Session, name: str, paths: list[str]) -> tuple[Path, LoadedFile] | None:
    """Load the files under ``paths`` until one declares theorem ``name``.

    Input errors in other files are reported but do not stop the search.
    """
    known: list[str] = []
    found: list[tuple[Path, LoadedFile, int]] = []
    unread: list[str] = []
    for path in _files(s, paths):
        try:
            lf = s.checker.load(path)
        except ShardproofError as exc:
            s.report_error(exc)
            unread.append(shown_path(str(path)))
            continue
        for g in lf.own:
            if g.kind == "theorem":
                if g.name == name:
                    found.append((path, lf, g.span.line if g.span else 0))
                known.append(g.name)
    if len(found) == 1:
        return found[0][0], found[0][1]
    where = ", ".join(paths)
    if found:           # files that do not import each other may share a name: say which
        print(f"shardproof: error: {len(found)} theorems are named `{name}` in {where}: "
              + ", ".join(f"{shown_path(str(lf.path))}:{line}" for _, lf, line in found)
              + "; name the file to choose one", file=s.err)
        return None
    msg = f"shardproof: error: no theorem named `{name}` in {where}"
    if unread:       # (it may be in a file that did not load: the seventy-third review)
        msg = (f"shardproof: error: no theorem named `{name}` in the files that load; "
               f"{', '.join(unread)} did not (the error above): mend it and ask again")
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if close:
        msg += "; did you mean " + ", ".join(f"`{c}`" for c in close) + "?"
    print(msg, file=s.err)
    return None


def _verdict_of(s: _Session, name: str) -> tuple[Verdict, LoadedFile, Path] | None:
    """The theorem's verdict, its file loaded, and that file's path as the user named it (a
    file given, or one found under a directory given)."""
    found = _find_theorem(s, s.args.name, s.args.paths)
    if found is None:
        return None
    path, lf = found
    if _check_file(s, path)[0] is None:
        return None
    return s.checker.verdicts[name], lf, path


def _cmd_explain(s: _Session) -> int:
    got = _verdict_of(s, s.args.name)
    if got is None:
        return EXIT_INPUT
    v, lf, path = got
    g = next(g for g in lf.own if g.name == v.name)
    out = s.out
    print(f"theorem {v.name}  ({shown_path(v.file)}:{v.line})", file=out)
    print(file=out)
    for ln in pretty(g.decl).splitlines() if g.decl is not None else []:
        print("  " + ln, file=out)
    print(file=out)
    print(f"verdict:  {s.paint(v.verdict)}  ({_fmt_seconds(s.secs(v.seconds))})", file=out)
    for ln in _failure_lines(v, python=True, file=str(path)):
        print("  " + ln, file=out)
    print(f"rules:    {_join(v.rules)}", file=out)
    print(f"oracles:  {_join(v.oracles)}", file=out)
    print(f"lemmas:   {_join(v.lemmas)}", file=out)
    if v.replayed is not None:
        print(f"replayed: {'yes' if v.replayed else 'no'}", file=out)
    if v.verdict == "proved" and v.counterexample:
        print("witness:", file=out)
        for ln in counterexample_lines(v.counterexample, python=True, file=str(path),
                                       name=v.name):
            print("  " + ln, file=out)
    print(f"trace:    {len(v.trace)} step{'s' if len(v.trace) != 1 else ''}"
          + (" (the engine's, before it stopped: not a proof)"
             if v.trace and v.verdict != "proved" else ""), file=out)
    for ln in _trace_lines(v.trace):
        print(ln, file=out)
    if s.errors:                               # another file given had an input error
        return EXIT_INPUT
    return EXIT_OK if v.verdict == "proved" else EXIT_FAILED


def _trace_lines(trace: list[dict[str, Any]]) -> list[str]:
    """One numbered line per step: rule, where it applied, what it did (continuations indented)."""
    if not trace:
        return []
    width = min(max(len(str(step.get("rule", "?"))) for step in trace), 28)
    num = len(str(len(trace)))
    lines: list[str] = []
    for k, step in enumerate(trace, start=1):
        rule = str(step.get("rule", "?"))
        at = str(step.get("at", "") or "")
        detail = str(step.get("detail", "") or "")
        extra = [f"{key}={cex_value(val)}" for key, val in step.items()
                 if key not in ("rule", "at", "detail") and val not in (None, "", [], {})]
        text = (f"at {at}: " if at else "") + detail
        if extra:
            text += ("  " if text else "") + " ".join(extra)
        body = text.splitlines() or [""]
        lead = f"  {str(k).rjust(num)}. {rule.ljust(width)}  "
        lines.append((lead + body[0]).rstrip())
        lines.extend(" " * len(lead) + ln for ln in body[1:])
    return lines


def _cmd_axioms(s: _Session) -> int:
    from .check import read_allowlist, rests_on
    got = _verdict_of(s, s.args.name)
    if got is None:
        return EXIT_INPUT
    v, lf, _ = got
    base, lemmas = rests_on(s.checker.verdicts, v.name)
    allow = read_allowlist(s.checker.library_for(Path(lf.path)).root)
    out = s.out
    print(f"theorem {v.name}: {s.paint(v.verdict)}  ({shown_path(v.file)}:{v.line})", file=out)
    print(f"lemmas ({len(lemmas)}, transitively):", file=out)
    for name in sorted(lemmas):
        print(f"  {name}  ({s.paint(lemmas[name])})", file=out)
    outside = sorted(b for b in base if allow is not None and b not in allow)
    if v.replayed:
        where = "axioms.allow" if allow is not None else "no axioms.allow at the lemma root"
        print(f"rests on ({len(base)} kernel rules and oracles, transitively; {where}):",
              file=out)
        for b in sorted(base):
            mark = "   NOT IN axioms.allow" if b in outside else ""
            print(f"  {b}{mark}", file=out)
    elif v.verdict != "proved":
        print(f"nothing to list: the theorem is {v.verdict}, so no proof rests on anything",
              file=out)
    else:
        print("not replayed by the kernel (checked with --no-replay): the engine's rules were",
              file=out)
        for r in sorted(v.rules):
            print(f"  {r}", file=out)
    ok = v.verdict == "proved" and all(st == "proved" for st in lemmas.values()) and \
        not outside and bool(v.replayed)      # (not replayed: nothing was checked against it)
    if s.errors:                               # another file given had an input error
        return EXIT_INPUT
    return EXIT_OK if ok else EXIT_FAILED


# --------------------------------------------------------------------------- entry point

def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    parser = build_parser()
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_INPUT
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    out, err = sys.stdout, sys.stderr
    if out is None or err is None:          # a closed descriptor (`>&-`): Python gives None
        if err is not None:
            print("shardproof: the standard output is closed: nowhere to write the result",
                  file=err)
        return EXIT_INPUT
    _ensure_encodable(out)
    _ensure_encodable(err)
    session = None
    try:
        session = _Session(args, out, err, Checker(_options(args)), _use_colour(args, out),
                           os.environ.get("GITHUB_ACTIONS") == "true")
        code = args.run(session)
        out.flush()
        return code
    except ShardproofError as exc:  # an input error outside any file (normally reported above)
        sources = session.sources() if session is not None else None
        print(_render(exc, sources), file=err)
        if args.debug:
            traceback.print_exc(file=err)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("shardproof: interrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `shardproof check … | head`: the reader left before the end, so
        _silence_stdout()    # there is no verdict to report: not 1 (a theorem not proved)
        return EXIT_BROKEN_PIPE
    except OSError as exc:   # the output cannot be written (a full disk): not a checker bug
        _silence_stdout()                  # (files the checker writes report their own errors)
        print(f"shardproof: cannot write the output: {exc.strerror or exc}", file=err)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 - the one top-level handler (see module docstring)
        print(f"shardproof: internal error: {type(exc).__name__}: {exc}", file=err)
        if args.debug:
            traceback.print_exc(file=err)
        else:
            print("this is a bug in shardproof; rerun with --debug for the traceback",
                  file=err)
        return EXIT_INTERNAL


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse, letting paths and options interleave (`explain NAME --no-times lemmas/`).

    argparse stops filling a `*` positional at the first option; the paths after it come back
    as leftovers, which are paths too unless they look like options (then the usual error).
    """
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not hasattr(args, "paths") or any(e.startswith("-") for e in extra):
            parser.parse_args(argv)  # reports the unrecognised arguments and exits with 2
        args.paths = list(args.paths or []) + extra
    if hasattr(args, "paths") and not args.paths:
        args.paths = ["lemmas"]
    return args


def _ensure_encodable(stream: TextIO) -> None:
    """Lemmas are Unicode (ℝ, ∑, ε): never crash on a terminal that cannot show them, nor on
    a file name that is not UTF-8 (Python holds its bytes as surrogates, which no encoding
    takes)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except ValueError:  # pragma: no cover - a stream that cannot be reconfigured mid-use
            pass


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
