"""The whole suite on a busy machine: ``make test-busy`` (not part of ``make test``).

A test that passes only while the machine is quiet is a defect (a real bot shares a small VPS
with other work). This runs ``pytest -n auto`` with one process per core spinning beside it
(``--spinners`` to change that), ``--runs`` times in a row, and prints each run's result and
duration, then how loaded the machine was (the load average before and after)::

    python -m tests.busy --runs 3
    python -m tests.busy --spinners 4 -- tests/e2e -k castles

Arguments after ``--`` go to pytest. The exit status is pytest's worst.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Sequence


def spin() -> None:
    """Keep a core busy until terminated."""
    n = 0
    while True:
        n = (n * 1103515245 + 12345) % 2**31


def run(pytest_args: Sequence[str], spinners: int) -> tuple[int, float]:
    """One run of the suite beside ``spinners`` busy processes: (exit status, seconds)."""
    busy = [multiprocessing.Process(target=spin, daemon=True) for _ in range(spinners)]
    for process in busy:
        process.start()
    began = time.monotonic()
    try:
        status = subprocess.call([sys.executable, "-m", "pytest", "-n", "auto", *pytest_args])
    finally:
        for process in busy:
            process.terminate()
            process.join()
    return status, time.monotonic() - began


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs in a row (default 1)")
    parser.add_argument(
        "--spinners", type=int, default=os.cpu_count() or 2, help="busy processes (default: cores)"
    )
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    options = parser.parse_args(argv)
    results = []
    for number in range(1, options.runs + 1):
        load = os.getloadavg()[0]
        status, seconds = run(options.pytest_args, options.spinners)
        results.append(status)
        print(
            f"busy run {number}/{options.runs}: {'passed' if status == 0 else 'FAILED'} "
            f"(exit {status}) in {seconds:.0f} s, {options.spinners} spinners on "
            f"{os.cpu_count()} cores, load average {load:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after",
            flush=True,
        )
    return max(results, default=0)


if __name__ == "__main__":
    sys.exit(main())
