"""Every example written in a docstring of ours still holds: the doctests of each module of the
engine, storage, presentation, the cogs and the terminal run here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("engine", "storage", "presentation", "cogs", "siegehall")


def modules() -> list[str]:
    found = []
    for name in PACKAGES:
        package = importlib.import_module(name)
        found.append(name)
        found += [m.name for m in pkgutil.walk_packages(package.__path__, f"{name}.")]
    return sorted(m for m in found if not m.endswith("__main__"))


@pytest.mark.parametrize("name", modules())
def test_the_examples_in_a_modules_docstrings_hold(name: str) -> None:
    module = importlib.import_module(name)
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0, f"{outcome.failed} of {outcome.attempted} examples failed"
