"""One command measured as a process tree: wall time, CPU time of the whole tree, and
the tree's peak memory (Linux).

CPU is the user + system time of every process the command ran and waited for
(``resource.RUSAGE_CHILDREN`` before and after; pool workers are joined, so they count).
Memory is sampled every 20 ms as the sum over the tree of each process's proportional
set size (``/proc/<pid>/smaps_rollup`` Pss: pages a forked worker shares with its parent
are counted once, split between them), falling back to RSS; its peak is the figure.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Measured:
    wall: float  # seconds
    cpu: float  # seconds, user + system, the whole tree
    peak_mb: float  # MB (1e6 bytes), the tree's summed PSS at its highest sample
    code: int
    stdout: str
    stderr: str


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:  # gone meanwhile
        return out
    for task in tasks:
        try:
            out += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except (OSError, ValueError):
            continue
    return out


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += _children(p)
    return found


def _memory(pid: int) -> int:
    """Bytes: PSS of one process (RSS where smaps_rollup is missing); 0 once gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Measured:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], sum(_memory(p) for p in _tree(proc.pid)))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measured(wall, cpu, peak[0] / 1e6, proc.returncode, stdout, stderr)
