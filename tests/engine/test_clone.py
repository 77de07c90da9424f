"""``clone`` copies a state whole: the copy equals the input and shares no container with it,
even where the input shares one container in two places."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine.rules import clone

leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
trees = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


def containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for item in value.values() for i in containers(item))]
    if isinstance(value, list):
        return [id(value), *(i for item in value for i in containers(item))]
    return []


@given(st.dictionaries(st.text(max_size=3), trees, max_size=5))
def test_a_clone_is_equal_and_shares_nothing(state: dict[str, Any]) -> None:
    copied = clone(state)
    assert copied == state
    assert not set(containers(copied)) & set(containers(state))


def test_a_container_shared_in_the_input_is_two_containers_in_the_copy() -> None:
    shared: list[int] = [1, 2]
    state = {"a": shared, "b": shared}
    copied = clone(state)
    copied["a"].append(3)
    assert copied["b"] == [1, 2] and state == {"a": [1, 2], "b": [1, 2]}
