"""Open a `shardproof report` site in headless Chromium: does the dependency graph render?

    python tests/report_browser_check.py SITE_DIR [--artifacts DIR] [--expect-nodes N]

1. ``chromium --headless … --dump-dom file://SITE_DIR/index.html``: the page's inline script
   counts the SVG graph's nodes once the browser has laid them out (``getBBox()`` non-empty) and
   sets ``data-rendered="N"`` on ``<svg id="depgraph">``; the dumped DOM must show it (and N must
   be ``--expect-nodes`` when given).
2. ``--screenshot=ARTIFACTS/index.png --window-size=1200,900``: a picture a person can look at;
   the file must be a 1200×900 PNG.

Prints one JSON object (``rendered``, ``edges``, ``screenshot``) and exits 0; exits 1 when a
check fails, 2 when no Chromium is found.  The browser is Debian's ``/usr/bin/chromium``
(``apt-get install -y chromium``) unless ``SHARDPROOF_CHROMIUM`` names another binary.  Every run
uses a fresh profile directory, no network and no GPU.  Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_CHROMIUM = "/usr/bin/chromium"
TIMEOUT = 120  # seconds per browser run

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio"]


def find_chromium() -> str | None:
    """The browser binary: ``$SHARDPROOF_CHROMIUM``, ``/usr/bin/chromium``, or `chromium` on
    PATH; None when there is none."""
    env = os.environ.get("SHARDPROOF_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    if Path(DEFAULT_CHROMIUM).is_file():
        return DEFAULT_CHROMIUM
    return shutil.which("chromium")


def _run(browser: str, extra: list[str], url: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="shardproof-chromium-") as profile:
        cmd = [browser, *FLAGS, f"--user-data-dir={profile}", *extra, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                               stdin=subprocess.DEVNULL)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:32]
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def check(site: Path, artifacts: Path, expect_nodes: int | None) -> dict[str, object]:
    """Run both browser checks; raises AssertionError with a readable message on failure."""
    browser = find_chromium()
    if browser is None:
        raise FileNotFoundError("no Chromium found (apt-get install -y chromium, or set "
                                "SHARDPROOF_CHROMIUM)")
    index = (site / "index.html").resolve()
    assert index.is_file(), f"{index} does not exist"
    url = index.as_uri()

    dom = _run(browser, ["--dump-dom"], url)
    assert dom.returncode == 0, f"chromium --dump-dom exited {dom.returncode}:\n" \
                                f"{dom.stderr[-3000:]}"
    m = re.search(r'<svg[^>]*\bid="depgraph"[^>]*>', dom.stdout)
    assert m, "the dumped DOM has no <svg id=\"depgraph\">"
    tag = m.group(0)
    r = re.search(r'\bdata-rendered="(\d+)"', tag)
    assert r, ("the graph script did not mark the SVG as rendered (no data-rendered attribute: "
               "the script failed, or the SVG has an empty bounding box)")
    rendered = int(r.group(1))
    e = re.search(r'\bdata-edges="(\d+)"', tag)
    edges = int(e.group(1)) if e else -1
    assert rendered > 0, "the graph rendered no nodes"
    if expect_nodes is not None:
        assert rendered == expect_nodes, f"the browser counted {rendered} nodes, expected " \
                                         f"{expect_nodes}"

    artifacts.mkdir(parents=True, exist_ok=True)
    shot = (artifacts / "index.png").resolve()
    if shot.exists():
        shot.unlink()
    res = _run(browser, [f"--screenshot={shot}", "--window-size=1200,900"], url)
    assert res.returncode == 0, f"chromium --screenshot exited {res.returncode}:\n" \
                                f"{res.stderr[-3000:]}"
    assert shot.is_file(), f"chromium wrote no screenshot at {shot}"
    size = _png_size(shot)
    assert size == (1200, 900), f"the screenshot is {size[0]}×{size[1]}, expected 1200×900"
    assert shot.stat().st_size > 10_000, "the screenshot is suspiciously small (a blank page?)"
    return {"rendered": rendered, "edges": edges, "screenshot": str(shot), "browser": browser}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path, help="the report directory (holds index.html)")
    ap.add_argument("--artifacts", type=Path, default=None,
                    help="where to write index.png (default: SITE/_browser)")
    ap.add_argument("--expect-nodes", type=int, default=None,
                    help="the number of graph nodes the browser must count")
    args = ap.parse_args(argv)
    artifacts = args.artifacts or (args.site / "_browser")
    try:
        out = check(args.site, artifacts, args.expect_nodes)
    except FileNotFoundError as exc:
        print(f"report_browser_check: {exc}", file=sys.stderr)
        return 2
    except (AssertionError, ValueError, subprocess.TimeoutExpired) as exc:
        print(f"report_browser_check: FAILED: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
