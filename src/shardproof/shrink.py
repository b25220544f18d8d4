"""Shrinking a counterexample: the smallest sizes and the plainest data that still refute.

The search (:func:`.semantics.find_counterexample`) tries sizes from a fixed schedule whose
first members are the replica and batch sizes 2 (a bug that needs two replicas or two examples
is found first), and draws its data at random, so the first refutation it confirms is seldom
the one an engineer would write down: ``N = 2`` where ``N = 1`` fails too, ``X = [-3/2, -1,
-3, -3]`` where ``X = [0, 1]`` does.  Like Hypothesis, the search then shrinks what it found,
greedily and deterministically:

1. **sizes** — each free size in the theorem's order is lowered to the smallest value at which
   the current data cut to the new lengths (first entries, or last) or a fresh draw (the
   search's three kinds of data, seeded) still refutes in floating point;
   after a success the names are tried again from the first.  A size is never lowered to 0 (a
   statement that fails only there is found there by the search itself, and a divisor bug is
   better shown at ``R = 2`` than as Lean's ``x / 0 = 0``);
2. **data** — each free value (reals, vectors, replica families and per-example maps, in the
   theorem's binder order; what a hypothesis defines is recomputed from them) is replaced
   by the first of 0, 1, −1, 2, −2 that its hypotheses allow and that still refutes — a vector
   zeroed whole first, then by halves, quarters and eighths, then entry by entry.

A step whose evaluation (float, or the phase's exact confirmation) divides by 0 or takes the
square root of a negative (Lean's ``x / 0 = 0``, ``sqrt x = 0``) more often than the search's
own counterexample did is not taken:
BatchNorm of one example at ``ε = 0`` is ``0 / 0``, a failure an engineer would dismiss.
Each phase's result is confirmed in exact arithmetic, or dropped; the report is always a
confirmed counterexample — at worst the search's own.  "Smallest" is local (no single size
lowered, no single entry made plainer, with these draws), not a minimum over all assignments.

Bounded like the search, by evaluation work, so the outcome does not depend on the machine:
the float trials within a tenth of the search's work budget (:data:`SHRINK_SHARE`), and at most
two exact confirmations, each within twice the work of the search's own.  Where the search's
wall-clock safety net cuts the shrinking short, the verdict says so (and is not cached).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from . import semantics as S
from .semantics import Assignment, Counterexample, EvalError, RandomMap

SHRINK_SHARE = 0.1                  # of the search's work budget, for the float trials
EXACT_CONFIRMATIONS = 2             # one after the sizes, one after the data
EXACT_FLOOR = 100_000               # work units an exact confirmation may take at least
PLAIN_VALUES = (0.0, 1.0, -1.0, 2.0, -2.0)


class _Spent(Exception):
    """The float trials' share of the budget (or the clock's safety net) ran out."""


class _Shrinker:
    def __init__(self, g: Any, env: Any, plan: Any, witness: bool, seed: int,
                 budget: tuple[int, float, int], confirm_work: int,
                 notes: list[str] | None, confirm_degenerate: int) -> None:
        self.g, self.env, self.plan, self.witness, self.seed = g, env, plan, witness, seed
        self.float_left = int(SHRINK_SHARE * budget[2])
        self.exacts_left = EXACT_CONFIRMATIONS
        self.exact_allowance = max(2 * confirm_work, EXACT_FLOOR)
        self.clock, self.notes = budget[1], notes
        self.saved_limit = S.WORK_LIMIT[0]
        # how many of its operations divided by 0 or took the root of a negative: the search's
        # own counterexample, in float (`baseline`) and in its exact confirmation
        self.degenerate = {"float": 0, "exact": confirm_degenerate}
        self.best: tuple[Assignment, Counterexample] | None = None    # the last confirmed

    # ---------------------------------------------------------------- one evaluation

    def _clock(self) -> None:
        if time.monotonic() >= self.clock:
            S._note(self.notes, S.CLOCK_NOTE)
            raise _Spent

    def _spend(self, run: Callable[[], Any]) -> Any:
        """``run()`` (a float evaluation) within what is left of the float share; None when it
        cannot be evaluated."""
        if self.float_left <= 0:
            raise _Spent
        self._clock()
        start = S.WORK[0]
        S.WORK_LIMIT[0] = start + self.float_left
        try:
            return run()
        except EvalError as e:
            if str(e) == S.BUDGET_RAN_OUT:
                self.float_left = 0
                raise _Spent from None
            return None
        finally:
            self.float_left -= S.WORK[0] - start
            S.WORK_LIMIT[0] = self.saved_limit

    def _refutes(self, base: Assignment) -> bool:
        """Does ``base`` (its hypotheses' definitions completed) refute, in float, without a
        division by 0 or a negative square root the search's own counterexample did not have?"""
        def run() -> bool:
            before = S.DEGENERATE[0]
            a = S._complete(self.g, self.env, self.plan, base, "float")
            hit = a is not None and \
                S._locate(self.g, self.env, a, "float", self.witness) is not None
            return hit and S.DEGENERATE[0] - before <= self.degenerate["float"]
        return bool(self._spend(run))

    def _exact(self, base: Assignment) -> Counterexample | None:
        """The counterexample ``base`` gives in exact arithmetic (one of the confirmations)."""
        if self.exacts_left <= 0:
            return None
        self.exacts_left -= 1
        self._clock()
        S.WORK_LIMIT[0] = S.WORK[0] + self.exact_allowance
        before = S.DEGENERATE[0]
        try:
            a = S._complete(self.g, self.env, self.plan, base, "exact")
            cx = None if a is None else S._locate(self.g, self.env, a, "exact", self.witness)
        except EvalError:
            return None
        finally:
            S.WORK_LIMIT[0] = self.saved_limit
        # (a float 4.4e-16 may be an exact 0: √2·√2 − 2)
        return cx if S.DEGENERATE[0] - before <= self.degenerate["exact"] else None

    def _confirm(self, base: Assignment) -> None:
        cx = self._exact(base)
        if cx is not None:
            self.best = (base, cx)

    def baseline(self) -> None:
        """How many divisions by 0 or roots of a negative the search's own counterexample
        makes in float (a shrunk one may make as many, not more: one in a part that does not
        matter is no licence for another where it does)."""
        def run() -> int:
            before = S.DEGENERATE[0]
            a = S._complete(self.g, self.env, self.plan, self.best[0], "float")
            if a is not None:
                S._locate(self.g, self.env, a, "float", self.witness)
            return S.DEGENERATE[0] - before
        self.degenerate["float"] = self._spend(run) or 0

    # ---------------------------------------------------------------- sizes

    def sizes(self) -> None:
        free = list(self.plan.free_sizes)
        base = self.best[0]
        cur = {n: base.sizes[n] for n in free}
        changed, step, progress = False, 0, True
        try:
            while progress:
                progress = False
                for name in free:
                    for v in range(1, cur[name]):
                        trial = {**cur, name: v}
                        step += 1
                        found = self._at_sizes(trial, step, base)
                        if found is not None:
                            base, cur, changed, progress = found, trial, True, True
                            break
                    if progress:
                        break
        finally:                # (a spent share still confirms what it reached)
            if changed:
                self._confirm(base)

    def _at_sizes(self, sizes: dict[str, int], step: int, now: Assignment
                  ) -> Assignment | None:
        """Data at ``sizes`` that still refutes: the current data cut to the new lengths (its
        first entries, then its last: `relu6 n x = relu n x` fails at `x = [0, 13/2]` through
        its last), then the search's three kinds of fresh draws."""
        if S._entries_to_draw(self.g, self.plan, sizes) > S.EXACT_ELEMENTS:
            return None
        for di, data in enumerate(("head", "tail") + S._DRAWS):
            rng = np.random.default_rng([self.seed, 7919, step, di])
            base = self._spend(lambda: S._draw_base(self.g, self.env, self.plan, sizes, rng,
                                                    data if data in S._DRAWS else "halves"))
            if base is None:            # a hypothesis about sizes alone fails here
                return None
            if data not in S._DRAWS:
                _cut(now, base, data)
            if self._refutes(base):
                return base
        return None

    # ---------------------------------------------------------------- data

    def data(self) -> None:
        trial = self.best[0].copy()
        changed = False
        try:
            for name, _ in list(self.g.binders) + list(self.plan.extra):
                for get, put in _slots(trial, name):
                    changed |= self._plain(trial, get, put, name)
        finally:
            if changed:
                self._confirm(trial)

    def _plain(self, trial: Assignment, get: Any, put: Any, name: str) -> bool:
        """Make one array (or real) of ``trial`` plainer in place: zero it whole, then its
        halves, quarters and eighths (few entries of a large input reach the failing output:
        a strided conv, a max-pool), then entry by entry; True when something changed.  A
        trial cut short by the share is undone before the share's end propagates."""
        arr = np.array(get(trial), dtype=np.float64)
        flat = arr.reshape(-1).copy()
        changed = False

        def attempt(where: Any, values: Any) -> bool:
            old = flat[where].copy()
            flat[where] = values
            put(trial, flat.reshape(arr.shape).copy() if arr.ndim else flat[0])
            ok = False
            try:
                ok = self._refutes(trial)
            finally:
                if not ok:
                    flat[where] = old
                    put(trial, flat.reshape(arr.shape).copy() if arr.ndim else flat[0])
            return ok

        for parts in (1, 2, 4, 8) if arr.ndim else ():
            if parts > 1 and flat.size <= parts:
                break
            for chunk in np.array_split(np.arange(flat.size), parts):
                if np.any(flat[chunk] != 0):
                    changed |= attempt(chunk, 0.0)
        for i in range(flat.size):
            for v in self._candidates(name, flat[i]):
                if attempt(i, v):
                    changed = True
                    break
        return changed

    def _candidates(self, name: str, old: float) -> list[float]:
        out = []
        for v in PLAIN_VALUES:
            if v == old:
                break                   # (the rest are no plainer than what is there)
            if name in self.plan.positive and v <= 0 or name in self.plan.nonneg and v < 0:
                continue
            out.append(v)
        return out


def _cut(old: Assignment, new: Assignment, end: str) -> None:
    """``new`` (fresh data at smaller sizes) given ``old``'s values where it can hold them: its
    reals, and its vectors' (and replica families' members') first or last entries."""
    def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, out = np.asarray(x, dtype=np.float64).reshape(-1), np.array(y, dtype=np.float64)
        flat, k = out.reshape(-1), min(np.size(x), np.size(y))
        if k:
            flat[:k] = x[:k] if end == "head" else x[-k:]
        return flat.reshape(out.shape)
    for name in new.reals.keys() & old.reals.keys():
        new.reals[name] = float(old.reals[name])
    for name in new.tensors.keys() & old.tensors.keys():
        new.tensors[name] = fit(old.tensors[name], new.tensors[name])
    for name in new.families.keys() & old.families.keys():
        olds = old.families[name]
        new.families[name] = [fit(olds[r], y) if r < len(olds) else y
                              for r, y in enumerate(new.families[name])]


def _slots(a: Assignment, name: str) -> list[tuple[Any, Any]]:
    """Getters and setters of the free values bound to ``name`` in ``a``."""
    if name in a.reals:
        return [(lambda t: t.reals[name], lambda t, v: t.reals.__setitem__(name, float(v)))]
    if name in a.tensors:
        return [(lambda t: t.tensors[name], lambda t, v: t.tensors.__setitem__(name, v))]
    if name in a.families:
        def member(r: int) -> tuple[Any, Any]:
            def put(t: Assignment, v: Any) -> None:
                t.families[name] = list(t.families[name])
                t.families[name][r] = np.asarray(v, dtype=np.float64)
            return (lambda t: t.families[name][r], put)
        return [member(r) for r in range(len(a.families[name]))]
    if name in a.maps:
        def field(f: str) -> tuple[Any, Any]:
            def put(t: Assignment, v: Any) -> None:
                m = t.maps[name]
                parts = {"M": m.M, "P": m.P, "c": m.c, f: v}
                t.maps[name] = RandomMap(parts["M"], parts["P"], parts["c"], m.widths)
            return (lambda t: getattr(t.maps[name], f), put)
        return [field(f) for f in ("M", "P", "c")]
    return []


def shrink(g: Any, env: Any, plan: Any, witness: bool, seed: int,
           budget: tuple[int, float, int], base: Assignment, cx: Counterexample,
           confirm_work: int = 0, notes: list[str] | None = None,
           confirm_degenerate: int = 0) -> Counterexample:
    """The counterexample ``cx`` (found at the free values ``base``, confirmed with
    ``confirm_work`` units of exact work) made smaller and plainer and confirmed in exact
    arithmetic; ``cx`` itself when nothing shrinks.  A shrunk one keeps ``cx`` as its
    ``unshrunk``."""
    s = _Shrinker(g, env, plan, witness, seed, budget, confirm_work, notes, confirm_degenerate)
    s.best = (base, cx)
    try:
        s.baseline()
        s.sizes()
        s.data()
    except _Spent:
        pass
    finally:
        S.WORK_LIMIT[0] = s.saved_limit
    out = s.best[1]
    if out is not cx:
        out.unshrunk = cx
    return out
