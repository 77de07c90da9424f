"""Counting the calls of a coroutine method in a test (each call still runs as before)."""

from __future__ import annotations

from typing import Any

import pytest


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[object]:
    """Replace ``owner.name`` (a coroutine function) by one that notes each call's first
    argument in the returned list, then awaits the original."""
    calls: list[object] = []
    original = getattr(owner, name)

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return await original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls
