"""The documentation runs: `docs/tutorial.ipynb` executes cleanly, `docs/tutorial.md` is true.

* The notebook is executed top to bottom with ``nbclient`` (a ``python3`` Jupyter kernel from
  ``ipykernel``) in ``docs/``; no cell may error, and the outputs must show a ``proved`` and a
  ``refuted`` verdict.  Skipped when ``nbclient``/``nbformat``/``ipykernel`` are not installed
  (they belong to the ``test`` extra).
* Every ```` ```lean ```` snippet of ``docs/tutorial.md`` preceded by ``<!-- expect: VERDICT -->``
  is checked with ``sp.check_text`` (imports under ``lemmas/``) and must get that verdict, so the
  tutorial never claims a verdict the checker does not give.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

import shardproof as sp

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "docs" / "tutorial.ipynb"
TUTORIAL = REPO / "docs" / "tutorial.md"
LEMMAS = REPO / "lemmas"


def _output_text(nb) -> str:
    parts: list[str] = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            for value in out.get("data", {}).values():
                parts.append(value if isinstance(value, str) else str(value))
    return "\n".join(parts)


def test_tutorial_notebook_executes() -> None:
    nbformat = pytest.importorskip("nbformat", reason="the test extra: pip install nbformat")
    nbclient = pytest.importorskip("nbclient", reason="the test extra: pip install nbclient")
    pytest.importorskip("ipykernel", reason="the test extra: pip install ipykernel")

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "commit the notebook without outputs (they hold timings)"
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    t0 = time.perf_counter()
    client.execute()      # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - t0
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    text = _output_text(nb)
    assert "proved" in text
    assert "refuted" in text
    assert "counterexample" in text
    assert elapsed < 60, f"the notebook took {elapsed:.1f} s (budget: 60 s)"


_SNIPPET = re.compile(r"<!--\s*expect:\s*(proved|refuted|unknown)((?:\s+\w+)*)\s*-->\s*\n"
                      r"```lean\n(.*?)```", re.S)


def _snippets() -> list[tuple[str, list[str], str, int]]:
    text = TUTORIAL.read_text(encoding="utf-8")
    out = []
    for m in _SNIPPET.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append((m.group(1), m.group(2).split(), m.group(3), line))
    return out


def test_tutorial_has_checked_snippets() -> None:
    verdicts = [v for v, _, _, _ in _snippets()]
    assert verdicts.count("proved") >= 3 and verdicts.count("refuted") >= 2


@pytest.mark.parametrize("expect,names,text,line", _snippets(),
                         ids=[f"tutorial.md:{s[3]}" for s in _snippets()])
def test_tutorial_snippet_verdict(expect: str, names: list[str], text: str, line: int) -> None:
    """A snippet's theorems all get ``expect`` (or only those named after it in the marker)."""
    verdicts = sp.check_text(text, root=str(LEMMAS))
    assert verdicts, f"tutorial.md:{line}: the snippet has no theorem"
    chosen = [v for v in verdicts if not names or v.name in names]
    assert len(chosen) == (len(names) if names else len(verdicts))
    for v in chosen:
        assert v.verdict == expect, (f"tutorial.md:{line}: {v.name} is {v.verdict}, the "
                                     f"tutorial says {expect}: {v.reason}")


_PYTHON = re.compile(r"<!--\s*test:\s*python\s*-->\s*\n```python\n(.*?)```", re.S)


def test_tutorial_python_snippets_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The numpy replay of the BatchNorm counterexample prints what the tutorial says."""
    pytest.importorskip("numpy")
    blocks = _PYTHON.findall(TUTORIAL.read_text(encoding="utf-8"))
    assert blocks
    for code in blocks:
        exec(compile(code, str(TUTORIAL), "exec"), {"__name__": "__tutorial__"})
    out = capsys.readouterr().out.split("\n")
    # DDP replica 0 (one example: variance 0): β = 0; the global batch's shard: −1/√5.
    assert out[0] == "[0.]", out
    assert out[1] == "[-0.4472136]", out


def test_check_text_checks_the_imported_theorems_first() -> None:
    """Twenty-third review: `check_text` never checked the theorems of the files it imports, so
    citing one (`rw [den_relu_shard]`) said "it is not proved"."""
    text = """import kit.pointwise
theorem cites {R N n : Nat} (e : Fin R → Vec (N * n)) (X : Vec ((R * N) * n))
    (he : ∀ r, e r = shard R N n X r) (r : Fin R) :
    batchMap N (relu n) (e r) = shard R N n (relu ((R * N) * n) X) r := by
  rw [den_relu_shard]
"""
    (v,) = sp.check_text(text, root=str(LEMMAS))
    assert v.verdict == "proved" and v.lemmas == ["den_relu_shard"], v.reason
