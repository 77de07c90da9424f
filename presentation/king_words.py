"""The words of Siege the King (``king``) for the table and the panel: the marks and emoji, a
card on a column (``+5``, ``−W4``), a column's line and a side's three lines, a column named from
the reader's side, and the log's line for each event and the result's line.

Reads only the views and events of ``engine.king`` (spec ``../shared/spec/king.md``, sections 2
and 6 for what the events report); :mod:`presentation.king` uses these words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.king import ARTISAN, ASSASSIN, COLUMN_NAMES, JUDGE, KING, SORC, card_name, card_value
from engine.rules import Event, Result
from presentation.base import View
from presentation.endings import DRAWN_ON_CLAIM, abandoned_line, resigned_line

FACE_DOWN = "🂠"
KING_MARK = "👑"
THRONE_MARK = "🪑"
LEGEND = "*+ defender · − attacker · W Warrior"
FACE_DOWN_LEGEND = " · 🂠 castle card face down"
# Card marks for the hand and the menus (the kind is the card code's letter).
EMOJI = {"A": "⚔️", "D": "🛡️", "W": "🪓", JUDGE: "⚖️", SORC: "🔮", ARTISAN: "🛠️", ASSASSIN: "🗡️"}
COUNT_WORDS = ("none", "one", "two", "three", "four", "five", "six", "seven", "eight")
KING_PLACES = ("King on the left", "King in the middle", "King on the right")
# Padded so the column lines line up in Discord's inline code.
LABELS = tuple(f"`{name.capitalize():<6}`" for name in COLUMN_NAMES)


def _emoji(code: str) -> str:
    return EMOJI.get(code, EMOJI.get(code[0], "🃏"))  # a Discord emoji: menus may show it


def _number(n: int) -> str:
    """A value as printed: a true minus sign for a fallen column (``−1``)."""
    return f"−{-n}" if n < 0 else str(n)


def _now(event: Event) -> str:
    """The value a column is left with after an event: ``(now 7)``."""
    return f"(now {_number(event['value'])})"


def _count(n: int) -> str:
    return COUNT_WORDS[n] if 0 <= n < len(COUNT_WORDS) else str(n)


def _token(code: str, role: str) -> str:
    """A card on a column: its sign says how it counts (``+5`` defends, ``−3`` attacks), and a
    Warrior keeps its W (``−W4``)."""
    sign = "+" if role == "defender" else "−"
    value = card_value(code)
    return f"{sign}W{value}" if code.startswith("W") else f"{sign}{value}"


def _column_line(index: int, column: Mapping[str, Any], castle: str | None) -> str:
    """One column: its castle card (face down unless ``castle`` says), value and cards."""
    label = LABELS[index]
    if not column["open"]:
        return f"{label} {THRONE_MARK} Throne · closed"
    if castle == KING:
        head = f"{KING_MARK} King"
    elif castle is not None:
        head = f"{THRONE_MARK} Throne"
    else:
        head = FACE_DOWN
    line = f"{label} {head} **{_number(column['value'])}**"
    tokens = [_token(c, r) for c, r in zip(column["cards"], column["roles"], strict=True)]
    return f"{line} · {' '.join(tokens)}" if tokens else line


def _castle_lines(columns: list[Mapping[str, Any]], order: list[str] | None = None) -> list[str]:
    """The three columns of one side; ``order`` is the owner's own castle order (their panel)."""
    lines = []
    for i, column in enumerate(columns):
        castle = column["castle"]
        if castle is None and order is not None:
            castle = order[i]
        lines.append(_column_line(i, column, castle))
    return lines


def _where(view: View, column: list[int]) -> str:
    """A column as the panel's owner names it: ``your left`` or ``their right``."""
    owner, index = column
    side = "your" if owner == view["seat"] else "their"
    return f"{side} {COLUMN_NAMES[index]}"


def _column_of(names: list[str], column: list[int], actor: int | None = None) -> str:
    """A column in the table's words: ``@Bob's left column`` (``their own`` for the actor's)."""
    owner, index = column
    whose = "their own" if owner == actor else f"{names[owner]}'s"
    return f"{whose} {COLUMN_NAMES[index]} column"


def _or_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _position(k: int, n: int) -> str:
    if n == 1:
        return "the only card"
    if k == n - 1:
        return "top card"
    if k == 0:
        return "bottom card"
    return f"card {k + 1} from the bottom"


def event_line(event: Event, names: list[str]) -> str | None:
    kind = event["type"]
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) else ""
    if kind == "castle_arranged":
        return f"{who} arranged their castle."
    if kind == "first_player_chosen":
        first = names[event["first"]]
        draws = event["draws"]
        if not draws:
            return f"{first} goes first."
        v0, v1 = draws[-1]
        return f"{first} goes first ({names[0]} drew {v0}, {names[1]} drew {v1})."
    if kind == "cards_dealt":
        each = _count(event["hand_sizes"][0])
        return f"{each.capitalize()} cards dealt to each player; {event['pile']} in the pile."
    if kind == "card_played":
        return _played_line(event, names)
    if kind == "cards_matched":
        return _matched_line(event, names)
    if kind == "card_removed":
        where = _column_of(names, event["column"], seat)
        return f"⚖️ {who}'s Judge removed {card_name(event['card'])} from {where} {_now(event)}."
    if kind == "column_cleared":
        where = _column_of(names, event["column"], seat)
        n = len(event["removed"])
        cleared = f"{_count(n)} cards" if n > 1 else "one card"
        return f"🔮 {who}'s Sorcerer cleared {where}: {cleared} gone, back to {event['value']}."
    if kind == "artisan_cancelled":
        if event["card"] == ASSASSIN:
            return (
                f"🛠️ {who}'s Artisan stopped the Assassin {names[event['by']]} drew: both discarded."
            )
        return (
            f"🛠️ {who}'s Artisan cancelled {names[event['by']]}'s "
            f"{card_name(event['card'])}: both discarded."
        )
    if kind == "assassin_drawn":
        return f"🗡️ {who} drew the Assassin!"
    if kind == "castle_revealed":
        return _revealed_line(event, names)
    if kind == "card_discarded":
        card = event["card"]
        what = "the Artisan" if card == ARTISAN else card_name(card)
        return f"{who} discarded {what}."
    if kind == "discard_reshuffled":
        return f"The discard pile was shuffled into a new draw pile of {event['pile']}."
    if kind == "castles_compared":
        why = "No cards left to play" if event["cause"] == "no_cards" else "Turn limit reached"
        k0, k1 = event["king_values"]
        return (
            f"{why}: King columns compared, {names[0]} {k0} against {names[1]} {k1} "
            f"(open columns {event['open_columns'][0]}–{event['open_columns'][1]})."
        )
    if kind == "resigned":
        return resigned_line(who, event)
    if kind == "abandoned":
        return abandoned_line(who)
    return None  # card_drawn, turn_ended, game_ended: the board and result say it


def _played_line(event: Event, names: list[str]) -> str | None:
    card = event["card"]
    if card in (JUDGE, SORC):
        return None  # the removal (or the Artisan's cancel) that follows says it all
    seat = event["seat"]
    where = _column_of(names, event["column"], seat)
    role = ""
    if card.startswith("W"):
        role = " as an attacker" if event["role"] == "attacker" else " as a defender"
    return f"{names[seat]} played {card_name(card)} on {where}{role} {_now(event)}."


def _matched_line(event: Event, names: list[str]) -> str:
    seat = event["seat"]
    where = _column_of(names, event["column"])
    removed = event["removed"]
    if event["rule"] == "equal":
        return (
            f"✨ {names[seat]}'s {card_name(event['card'])} cancelled "
            f"{card_name(removed[0])}: both cleared from {where} {_now(event)}."
        )
    total = " + ".join(str(card_value(c)) for c in removed)
    return (
        f"✨ {names[seat]}'s {card_value(event['card'])} matched {total}: "
        f"{_count(len(removed) + 1)} cards cleared from {where} {_now(event)}."
    )


def _revealed_line(event: Event, names: list[str]) -> str:
    where = _column_of(names, event["column"])
    owner = names[event["column"][0]]
    if event["cause"] == "assassin":
        opening = f"🗡️ The Assassin struck {where}:"
    else:
        opening = f"💥 {where[0].upper()}{where[1:]} fell to 0 or below:"
    if event["castle"] == KING:
        return f"{opening} {owner}'s King was hiding there! 👑"
    removed = event.get("removed") or []
    gone = f", {_count(len(removed))} card{'s' if len(removed) > 1 else ''} discarded"
    return f"{opening} only a Throne. The column is closed{gone if removed else ''}."


def result_line(result: Result, names: list[str]) -> str:
    if result.reason == "abandoned":
        return DRAWN_ON_CLAIM
    if result.reason == "draw" or not result.winners:
        return "🤝 A draw: equal King columns and as many open columns."
    winner = result.winners[0]
    loser = 1 - winner
    if result.reason == "king_revealed":
        return f"🏆 {names[winner]} found {names[loser]}'s King and wins!"
    if result.reason == "assassinated":
        return f"🏆 {names[winner]}'s Assassin found {names[loser]}'s King and wins!"
    if result.reason == "own_king_fallen":
        return f"🏆 {names[loser]}'s own King column fell: {names[winner]} wins!"
    if result.reason == "resigned":
        return f"🏳️ {names[loser]} resigned; {names[winner]} wins."
    return f"🤝 Stalemate: {names[winner]} wins on the King columns."
