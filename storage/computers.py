"""Computer seats: a seat held by the computer at one of three levels.

A computer has no Discord account, so its seat holds a negative "user id" that says its level and
which computer of the table it is (tower poker may seat several): ``-(100 × level + n)``, level 1
(easy) to 3 (hard), n from 1. Real Discord ids are positive, so the two can never meet. Nothing is
stored anywhere else: a table's seats say everything about its computers.

A player who deleted their data (``/siege privacy delete``) is a *former player*: a random
negative id from :data:`FORMER_FLOOR` down, one per deleted player, in place of theirs in the
games they played. Like a computer it has no Discord account, so everything that leaves
computers out (DMs, pings, mentions) leaves it out too; :func:`label` names it "former player".

>>> computer_id("hard", 2), level_of(-302), number_of(-302), level_of(1234)
(-302, 'hard', 2, None)
"""

from __future__ import annotations

from collections.abc import Iterable

LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


def computer_id(level: str, number: int) -> int:
    if level not in LEVELS or not 1 <= number <= 99:
        raise ValueError(f"no computer {level!r} #{number}")
    return -(100 * (LEVELS.index(level) + 1) + number)


def is_computer(user_id: int) -> bool:
    return user_id < 0


def level_of(user_id: int) -> str | None:
    """The level of a computer seat (None for a person)."""
    if user_id >= 0:
        return None
    code = -user_id // 100
    return LEVELS[code - 1] if 1 <= code <= len(LEVELS) else None


def number_of(user_id: int) -> int:
    return -user_id % 100


def name_of(user_id: int) -> str:
    """How a computer seat is shown: "Computer 2 (hard)"."""
    if is_former(user_id):
        return FORMER_NAME
    return f"Computer {number_of(user_id)} ({level_of(user_id)})"


#: The highest id a former player can have (computers' ids stay above it).
FORMER_FLOOR = -1_000_000
FORMER_NAME = "former player"


def is_former(user_id: int) -> bool:
    """Whether a seat is held by a player who deleted their data.

    >>> is_former(-1_000_042), is_former(-302), is_former(1234)
    (True, False, False)
    """
    return user_id <= FORMER_FLOOR


def label(user_id: int) -> str:
    """How a seat without a Discord account is named: "🤖 Computer 2 (hard)", "former player"."""
    return FORMER_NAME if is_former(user_id) else f"🤖 {name_of(user_id)}"


def next_computer(level: str, seats: Iterable[int]) -> int:
    """The id of one more computer at a table whose seats are ``seats`` (numbers never repeat)."""
    taken = {number_of(uid) for uid in seats if is_computer(uid)}
    return computer_id(level, min(n for n in range(1, 100) if n not in taken))


__all__ = [
    "FORMER_FLOOR",
    "FORMER_NAME",
    "LEVELS",
    "computer_id",
    "is_computer",
    "is_former",
    "label",
    "level_of",
    "name_of",
    "next_computer",
    "number_of",
]
