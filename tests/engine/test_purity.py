"""The engine stays pure: no Discord, database, asyncio or clock, and no module-level random.

Reads every ``.py`` under ``engine/`` with :mod:`ast` (nothing is imported). ``import random``
is allowed for the ``random.Random`` type and class only; ``from random import`` only ``Random``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = frozenset({"discord", "aiosqlite", "asyncio", "sqlite3", "time", "datetime"})
RANDOM_ALLOWED = frozenset({"Random"})


def impurities(source: str, filename: str = "<source>") -> list[str]:
    """Every forbidden import or module-level random use in ``source``."""
    tree = ast.parse(source, filename)
    problems: list[str] = []
    random_names: set[str] = set()  # local names bound to the random module

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FORBIDDEN:
                    problems.append(f"{filename}:{node.lineno}: import {alias.name}")
                if alias.name == "random":
                    random_names.add(alias.asname or "random")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in FORBIDDEN:
                problems.append(f"{filename}:{node.lineno}: from {node.module} import ...")
            if node.module == "random":
                for alias in node.names:
                    if alias.name not in RANDOM_ALLOWED:
                        problems.append(
                            f"{filename}:{node.lineno}: from random import {alias.name}"
                        )
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            first = node.args[0]
            if (
                name in ("__import__", "import_module")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and first.value.split(".")[0] in FORBIDDEN | {"random"}
            ):
                problems.append(f"{filename}:{node.lineno}: dynamic import of {first.value}")

    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in random_names
            and node.attr not in RANDOM_ALLOWED
        ):
            problems.append(f"{filename}:{node.lineno}: module-level {node.value.id}.{node.attr}")
    return problems


ENGINE_FILES = sorted(ENGINE.rglob("*.py"))


def test_engine_files_are_found() -> None:
    names = {path.name for path in ENGINE_FILES}
    assert {"__init__.py", "rules.py", "cards.py", "castles.py", "script.py"} <= names


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_is_pure(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert impurities(source, str(path.relative_to(ENGINE.parent))) == []


@pytest.mark.parametrize(
    "source",
    [
        "import discord",
        "import discord.ui",
        "from discord import ui",
        "import aiosqlite",
        "import asyncio",
        "from asyncio import Lock",
        "import sqlite3",
        "import time",
        "import time as clock",
        "from time import monotonic",
        "import datetime",
        "from datetime import datetime",
        "import os, time",
        "def f():\n    import asyncio",
        "__import__('time')",
        "import importlib\nimportlib.import_module('sqlite3')",
        "from random import choice",
        "from random import Random, shuffle",
        "from random import *",
        "import random\nrandom.random()",
        "import random\nx = random.randint(1, 6)",
        "import random\nrandom.choice([1, 2])",
        "import random\nrandom.shuffle(deck)",
        "import random\nrandom.seed(1)",
        "import random\nrandom.sample(deck, 2)",
        "import random\nrandom.randrange(2)",
        "import random\nrandom.uniform(0, 1)",
        "import random\nroll = random.randint",
        "import random as r\nr.randint(1, 6)",
        "import random\nrandom.SystemRandom().random()",
    ],
)
def test_impure_sources_are_flagged(source: str) -> None:
    assert impurities(source)


@pytest.mark.parametrize(
    "source",
    [
        "import random\ndef f(rng: random.Random) -> int:\n    return rng.randint(1, 6)",
        "import random\nrng = random.Random('7:3')\nrng.shuffle(deck)",
        "from random import Random\nRandom(1).random()",
        "import json, copy\nfrom engine import cards",
        "from engine.rules import rng_for\nrng_for(1, 'setup').choice([1])",
        "from . import cards",
    ],
)
def test_pure_sources_pass(source: str) -> None:
    assert impurities(source) == []
