"""How a game ended, in words: the table-level endings (a forfeit on the clock, a claim on an
abandoned game, an abort, an agreed end, a moderator's cancel) that the game's own renderer does
not know, told the same way for every game. The game's result line stands for an end by the
rules or a resignation; for the others it is told here, and the summary's "Decided by" follows.
Endings are stored by ``storage`` (migration 013); these functions take plain names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.rules import Result

#: What decided a game that did not end by its rules or a resignation (the summary's line).
DECIDED = {
    "time": "a forfeit on the clock",
    "claim": "a claim: the player to move abandoned the game",
}
RESIGNATION = "a resignation"


def _and(names: Sequence[str]) -> str:
    """Names joined as in a sentence.

    >>> _and(["a"]), _and(["a", "b"]), _and(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    """
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def resigned_line(who: str, event: Mapping[str, Any]) -> str:
    """The event line of a seat taken out of the game at the table: a resignation, a forfeit
    on the clock, or the others' claim (the event's ``why``; a logged ``resigned`` event of
    before migration 013 has none)."""
    why = event.get("why")
    if why == "time":
        return f"{who} ran out of time and forfeited."
    if why == "claim":
        return f"{who} abandoned the game, and the others claimed it."
    return f"{who} resigned."


def abandoned_line(who: str) -> str:
    """The event line of a seat that abandoned a game the other then claimed drawn."""
    return f"{who} abandoned the game, and the other claimed a draw."


#: The result line, and the summary's "Decided by", of a game drawn on a claim (reason
#: ``abandoned``, ``Game.claim_draw``).
DRAWN_ON_CLAIM = "🤝 Drawn: the player to move abandoned the game, and the other claimed a draw."
DECIDED_DRAWN = "a claimed draw: the player to move abandoned the game"


def ending_line(
    ending: str | None, result: Result | None, names: Sequence[str], by: str | None, line: str
) -> str:
    """The result line of a finished or closed game: ``line`` (the game's own, or ``""`` for a
    game that has no result) unless the ending is one the game does not know of. ``by``: who
    ended it (the seat out of time, the claimant, whoever aborted or cancelled it), ``None``
    when unknown.

    >>> from engine.rules import Result
    >>> ending_line("time", Result((1,), "resigned"), ["ann", "bo"], "ann", "🏳️ ann resigned.")
    '⏰ ann ran out of time and forfeited; bo wins.'
    >>> ending_line("claim", Result((1,), "resigned"), ["ann", "bo"], "bo", "")
    '🏚️ ann abandoned the game; bo wins on a claim.'
    >>> ending_line("resigned", Result((1,), "resigned"), ["ann", "bo"], "ann", "as told")
    'as told'
    >>> ending_line(None, None, ["ann", "bo"], None, "")
    ''
    """
    who = by or "a player"
    if ending == "aborted":
        return f"✖️ Aborted by {who} before every player had made a first move; not rated."
    if ending == "agreed":
        return f"🤝 Ended by agreement: every player accepted {who}'s offer to cancel; not rated."
    if ending == "moderator":
        return f"🛑 Cancelled by a moderator, {who}, while it was running; not rated."
    if result is None or ending not in DECIDED or not result.winners:
        return line  # a claimed draw: the game's own line tells it
    winners = [names[seat] for seat in result.winners]
    verb = "wins" if len(winners) == 1 else "win"
    if ending == "time":  # ``by``: the seat whose time ran out
        return f"⏰ {who} ran out of time and forfeited; {_and(winners)} {verb}."
    losers = [name for seat, name in enumerate(names) if seat not in result.winners]
    if len(names) == 2 and len(losers) == 1:
        return f"🏚️ {losers[0]} abandoned the game; {_and(winners)} {verb} on a claim."
    return f"🏚️ The player to move abandoned the game; {_and(winners)} {verb} on {who}'s claim."


def with_ending(view: Mapping[str, Any], ending: str | None, seat: int | None) -> dict[str, Any]:
    """A finished game's spectator view with how it ended (``ending``, and the seat that ran out
    of time or claimed), for the picture's result banner and alt text (see
    :func:`presentation.picture_text.result_words`); the view as it was for any other ending."""
    if ending not in DECIDED or view.get("result") is None:
        return dict(view)
    return {**view, "ending": {"how": ending, "seat": seat}}


def told_with_view(view: Mapping[str, Any], result: Result, names: Sequence[str], line: str) -> str:
    """``line`` as :func:`ending_line` tells it for a view marked by :func:`with_ending`."""
    ending = view.get("ending")
    if not isinstance(ending, Mapping):
        return line
    seat = ending.get("seat")
    by = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None
    return ending_line(str(ending.get("how")), result, names, by, line)


def retold_summary(summary: str, ending: str | None, line: str, told: str) -> str:
    """A game's end summary with its result line ``line`` replaced by ``told`` and, for a forfeit
    on the clock or a claim, "a resignation" replaced by what really decided it."""
    if told != line:
        summary = summary.replace(line, told, 1)
    if ending in DECIDED:
        summary = summary.replace(RESIGNATION, DECIDED[ending])
    return summary


__all__ = [
    "DECIDED",
    "DECIDED_DRAWN",
    "DRAWN_ON_CLAIM",
    "abandoned_line",
    "ending_line",
    "resigned_line",
    "retold_summary",
    "told_with_view",
    "with_ending",
]
