"""Running a command as a user without root's power over files (root ignores file modes, and
CI runs as root), for tests of read-only databases."""

from __future__ import annotations

import os
import shutil

import pytest

NOBODY = 65534


def as_nobody() -> tuple[str, ...]:
    """The prefix that runs a command as ``nobody`` when we are root; nothing otherwise."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("running as root needs setpriv (util-linux) to drop to an unprivileged user")
    return (setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--")
