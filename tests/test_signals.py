"""Ctrl-C and a killed parent end `shardproof check` promptly, with exit 130 and one line, and
leave no `-j` worker behind (the seventy-sixth review: a double Ctrl-C during `-j 2` hung for
ever, workers outlived a parent killed by SIGTERM and held the output pipe open, and Ctrl-C
while the modules loaded printed a traceback).  Linux process tools (`/proc`); each wait is
bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

LEMMAS = Path(__file__).resolve().parents[1] / "lemmas"
pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")


def _start_parallel(stdout=subprocess.DEVNULL) -> tuple[subprocess.Popen, list[str]]:
    """`check -j 2` of the library in a session of its own, once both workers exist."""
    p = subprocess.Popen([sys.executable, "-m", "shardproof", "check", "-j", "2", "--no-cache",
                          str(LEMMAS)], stdout=stdout, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    end = time.monotonic() + 60
    kids: list[str] = []
    while time.monotonic() < end and len(kids) < 2 and p.poll() is None:
        time.sleep(0.05)
        try:
            kids = Path(f"/proc/{p.pid}/task/{p.pid}/children").read_text().split()
        except OSError:
            kids = []
    assert len(kids) >= 2, "the workers never started"
    time.sleep(0.3)                                   # (inside the work, not its start-up)
    return p, kids


def _finish(p: subprocess.Popen, seconds: float) -> tuple[int | None, str]:
    try:
        _, err = p.communicate(timeout=seconds)
        return p.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "still running"


def test_ctrl_c_twice_during_a_parallel_check_exits_130() -> None:
    p, _ = _start_parallel()
    os.killpg(p.pid, signal.SIGINT)
    time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    code, err = _finish(p, 60)
    assert code == 130 and "shardproof: interrupted" in err and "Traceback" not in err, \
        (code, err[-500:])


def test_workers_exit_with_their_parent() -> None:
    p, kids = _start_parallel(stdout=subprocess.PIPE)
    os.kill(p.pid, signal.SIGTERM)                  # the parent only, as a supervisor does
    code, _ = _finish(p, 30)                        # the pipe closes: no worker holds it
    assert code is not None, "the output pipe stayed open after the parent was killed"
    end = time.monotonic() + 10
    while time.monotonic() < end and any(Path(f"/proc/{k}").exists() for k in kids):
        time.sleep(0.1)
    alive = []
    for k in kids:
        try:
            if Path(f"/proc/{k}/stat").read_text().split()[2] != "Z":
                alive.append(k)
        except OSError:
            pass
    assert not alive, f"workers {alive} outlived their parent"


def test_ctrl_c_while_the_checker_loads_exits_130() -> None:
    code = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'shardproof.cli':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from shardproof.entry import main\n"
        "main()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stderr) == (130, "shardproof: interrupted\n"), (r.returncode, r.stderr)


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_parallel_check_under_another_start_method(tmp_path: Path, method: str) -> None:
    """Seventy-ninth review: under forkserver (Python 3.14's default on Linux, or a notebook's
    choice) a worker's parent is the fork server, which the watch of `_worker_init` took for a
    dead parent: every worker exited, an internal error (exit 3)."""
    (tmp_path / ".lemmaroot").write_text("")
    for k in range(3):
        (tmp_path / f"t{k}.lemma").write_text(f"theorem t{k} (x : ℝ) : x + {k} = {k} + x := by norm\n")
    code = ("import multiprocessing, sys\n"
            "from shardproof import cli\n"
            "if __name__ == '__main__':\n"
            f"    multiprocessing.set_start_method({method!r})\n"
            f"    sys.exit(cli.main(['check', '-j', '2', '--no-cache', {str(tmp_path)!r}]))\n")
    script = tmp_path / "run.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "3 proved" in r.stdout, (r.returncode, r.stdout, r.stderr)
