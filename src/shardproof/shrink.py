"""Shrinking a counterexample: the smallest sizes and the plainest data that still refute.

The search (:func:`.semantics.find_counterexample`) tries sizes from a fixed schedule whose
first members are the replica and batch sizes 2 (a bug that needs two replicas or two examples
is found first), and draws its data at random, so the first refutation it confirms is seldom
the one an engineer would write down: ``N = 2`` where ``N = 1`` fails too, ``X = [-3/2, -1,
-3, -3]`` where ``X = [0, 1]`` does.  Like Hypothesis, the search then shrinks what it found,
greedily and deterministically:

1. **sizes** — each free size in the theorem's order is lowered to the smallest value at which
   a fresh draw (the search's three kinds of data, seeded) still refutes, confirmed in exact
   arithmetic; after a success the names are tried again from the first.  A size is never
   lowered to 0 (a statement that fails only there is found there by the search itself, and a
   divisor bug is better shown at ``R = 2`` than as Lean's ``x / 0 = 0``);
2. **data** — each free value (reals, vectors, replica families and per-example maps, in the
   theorem's binder order; what a hypothesis defines is recomputed from them) is replaced
   by the first of 0, 1, −1, 2, −2 that its hypotheses allow and that still refutes — a vector
   zeroed whole first, then by halves, quarters and eighths, then entry by entry; each
   binder's change is confirmed in exact arithmetic, or undone.

Every step keeps a confirmed counterexample, so the result is one too: at worst the one the
search found.  "Smallest" is local — no single size can be lowered and no single entry made
plainer with these draws — not a minimum over all assignments.  The work is bounded like the
search's (a share of its work budget, :data:`SHRINK_SHARE`), so the outcome does not depend on
the machine; when that share runs out, the shrinking stops where it is.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from . import semantics as S
from .semantics import Assignment, Counterexample, EvalError, RandomMap

SHRINK_SHARE = 0.1                 # of the search's work budget
PLAIN_VALUES = (0.0, 1.0, -1.0, 2.0, -2.0)


class _Spent(Exception):
    """The shrinking's share of the budget (or the clock's safety net) ran out."""


class _Shrinker:
    def __init__(self, g: Any, env: Any, plan: Any, witness: bool, seed: int,
                 budget: tuple[int, float, int]) -> None:
        self.g, self.env, self.plan, self.witness, self.seed = g, env, plan, witness, seed
        self.limit = S.WORK[0] + int(SHRINK_SHARE * budget[2])
        self.clock = budget[1]
        self.best: tuple[Assignment, Counterexample] | None = None    # the last confirmed

    # ---------------------------------------------------------------- one trial

    def _refutes(self, base: Assignment, exact: bool) -> Counterexample | None:
        """The counterexample ``base`` gives (its hypotheses' definitions completed), in float
        or in exact arithmetic; None when it does not refute or a hypothesis fails."""
        if S.WORK[0] >= self.limit or time.monotonic() >= self.clock:
            raise _Spent
        mode = "exact" if exact else "float"
        try:
            a = S._complete(self.g, self.env, self.plan, base, mode)
            return None if a is None else S._locate(self.g, self.env, a, mode, self.witness)
        except EvalError as e:
            if str(e) == S.BUDGET_RAN_OUT:
                raise _Spent from None
            return None

    def _confirmed(self, base: Assignment) -> Counterexample | None:
        if self._refutes(base, exact=False) is None:
            return None
        return self._refutes(base, exact=True)

    # ---------------------------------------------------------------- sizes

    def sizes(self) -> None:
        free = list(self.plan.free_sizes)
        cur = {n: self.best[0].sizes[n] for n in free}
        step = 0
        progress = True
        while progress:
            progress = False
            for name in free:
                for v in range(1, cur[name]):
                    trial = {**cur, name: v}
                    step += 1
                    found = self._at_sizes(trial, step)
                    if found is not None:
                        self.best, cur, progress = found, trial, True
                        break
                if progress:
                    break

    def _at_sizes(self, sizes: dict[str, int], step: int
                  ) -> tuple[Assignment, Counterexample] | None:
        if S._entries_to_draw(self.g, self.plan, sizes) > S.EXACT_ELEMENTS:
            return None
        for di, data in enumerate(S._DRAWS):
            rng = np.random.default_rng([self.seed, 7919, step, di])
            try:
                base = S._draw_base(self.g, self.env, self.plan, sizes, rng, data)
            except EvalError as e:
                if str(e) == S.BUDGET_RAN_OUT:
                    raise _Spent from None
                return None
            if base is None:            # a hypothesis about sizes alone fails here
                return None
            cx = self._confirmed(base)
            if cx is not None:
                return base, cx
        return None

    # ---------------------------------------------------------------- data

    def data(self) -> None:
        for name, _ in list(self.g.binders) + list(self.plan.extra):
            slots = _slots(self.best[0], name)
            if not slots:
                continue
            trial = self.best[0].copy()
            changed = False
            for get, put in slots:
                changed |= self._plain(trial, get, put, name)
            if changed:
                cx = self._refutes(trial, exact=True)
                if cx is not None:
                    self.best = (trial, cx)

    def _plain(self, trial: Assignment, get: Any, put: Any, name: str) -> bool:
        """Make one array (or real) of ``trial`` plainer in place: zero it whole, then its
        halves, quarters and eighths (few entries of a large input reach the failing output:
        a strided conv, a max-pool), then entry by entry; True when something changed."""
        arr = np.array(get(trial), dtype=np.float64)
        flat = arr.reshape(-1).copy()

        def show() -> None:
            put(trial, flat.reshape(arr.shape).copy() if arr.ndim else flat[0])

        changed = False
        for parts in (1, 2, 4, 8) if arr.ndim else ():
            if parts > 1 and flat.size <= parts:
                break
            for chunk in np.array_split(np.arange(flat.size), parts):
                if not np.any(flat[chunk] != 0):
                    continue
                old = flat[chunk].copy()
                flat[chunk] = 0.0
                show()
                if self._refutes(trial, exact=False) is not None:
                    changed = True
                else:
                    flat[chunk] = old
            show()
        for i in range(flat.size):
            old = flat[i]
            for v in self._candidates(name, old):
                flat[i] = v
                show()
                if self._refutes(trial, exact=False) is not None:
                    changed = True
                    break
                flat[i] = old
            show()
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
           budget: tuple[int, float, int], base: Assignment, cx: Counterexample
           ) -> Counterexample:
    """The counterexample ``cx`` (found at the free values ``base``) made smaller and plainer,
    confirmed in exact arithmetic at every step; ``cx`` itself when nothing shrinks."""
    s = _Shrinker(g, env, plan, witness, seed, budget)
    s.best = (base, cx)
    saved = S.WORK_LIMIT[0]
    S.WORK_LIMIT[0] = s.limit
    try:
        s.sizes()
        s.data()
    except _Spent:
        pass
    finally:
        S.WORK_LIMIT[0] = saved
    return s.best[1]
