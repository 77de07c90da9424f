"""The words of Siege tower poker (``towers``) for the table and the panel: a card as a player
reads it (``10♥``, ``🃏 black joker``), cards in rank order, the best hand named as a player says it
(``Two pair, kings and sevens``), and the log's line for each event and the result's line.

Reads only the views and events of ``engine.towers`` (spec ``../shared/spec/towers.md``, sections 2
and 6 for what the events report); :mod:`presentation.towers` uses these words.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.poker_hands import describe, hand_value
from engine.rules import Event, Result
from presentation.endings import resigned_line
from presentation.towers_table import SUIT_SYMBOLS

RANK_WORDS = {
    "2": ("two", "twos"),
    "3": ("three", "threes"),
    "4": ("four", "fours"),
    "5": ("five", "fives"),
    "6": ("six", "sixes"),
    "7": ("seven", "sevens"),
    "8": ("eight", "eights"),
    "9": ("nine", "nines"),
    "T": ("ten", "tens"),
    "J": ("jack", "jacks"),
    "Q": ("queen", "queens"),
    "K": ("king", "kings"),
    "A": ("ace", "aces"),
}
CATEGORY_WORDS = {
    "high_card": "High card",
    "pair": "Pair",
    "two_pair": "Two pair",
    "three_of_a_kind": "Three of a kind",
    "straight": "Straight",
    "flush": "Flush",
    "full_house": "Full house",
    "four_of_a_kind": "Four of a kind",
    "straight_flush": "Straight flush",
    "five_of_a_kind": "Five of a kind",
}
STATUS_WORDS = {"FOLDED": "folded", "ALL-IN": "all-in", "OUT": "out", "LEFT": "left"}
MODE_WORDS = {
    "up_to_1": "may swap up to 1 card",
    "up_to_4": "may swap up to 4 cards",
    "exactly_2": "must throw away exactly 2 cards",
}


def pretty(code: str) -> str:
    """A card as a player reads it: ``10♥``, ``A♠``, ``🃏 black joker``."""
    if code == "XB":
        return "🃏 black joker"
    if code == "XR":
        return "🃏 red joker"
    return ("10" if code[0] == "T" else code[0]) + SUIT_SYMBOLS[code[1]]


def cards_text(codes: Sequence[str]) -> str:
    """Cards in rank order, jokers last: ``2♣ 7♥ K♠ 🃏 red joker``."""
    ordered = sorted(codes, key=lambda c: ("23456789TJQKAX".index(c[0]), c))
    return " ".join(pretty(c) for c in ordered) if codes else "—"


def _and(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def hand_name(cards: Sequence[str]) -> str:
    """The best hand of ``cards`` named as a player says it: ``Pair of jacks``, ``Two pair,
    kings and sevens``, ``Flush, ace high``.

    >>> hand_name(["JS", "JH", "2C", "5D", "9S"]), hand_name(["KS", "KH", "7C", "7D", "2S"])
    ('Pair of jacks', 'Two pair, kings and sevens')
    """
    cat, ranks = describe(hand_value(list(cards)))
    one = [RANK_WORDS[r][0] for r in ranks]
    many = [RANK_WORDS[r][1] for r in ranks]
    if cat == "pair":
        return f"Pair of {many[0]}"
    if cat == "two_pair":
        return f"Two pair, {many[0]} and {many[1]}"
    if cat == "full_house":
        return f"Full house, {many[0]} over {many[1]}"
    if cat in ("three_of_a_kind", "four_of_a_kind", "five_of_a_kind"):
        return f"{CATEGORY_WORDS[cat]}, {many[0]}"
    if cat == "high_card":
        return f"High card, {one[0]}"
    return f"{CATEGORY_WORDS[cat]}, {one[0]} high"


def hand_words(hand: Sequence[str], tower: Sequence[str]) -> str:
    """The best hand in words: ``Two pair, kings and sevens, with the tower 7♣``."""
    noun = "the tower" if len(tower) == 1 else "the towers"
    return f"{hand_name([*hand, *tower])}, with {noun} {_and([pretty(c) for c in tower])}"


def event_line(event: Event, names: list[str]) -> str | None:
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event and event["seat"] is not None else ""
    if kind == "hand_started":
        return f"Hand {event['hand_no']} dealt; {names[event['dealer']]} deals."
    if kind == "card_burned":
        return f"{pretty(event['card'])} burned."
    if kind == "tower_flipped":
        card = pretty(event["card"])
        if event["flip"] == 1:
            return f"Hold card: {card} (tower {event['tower'] + 1})."
        return (
            f"{names[event['buyer']]} bought flip {event['flip']} for {event['fee']}: "
            f"{card} (tower {event['tower'] + 1})."
        )
    if kind == "checked":
        return f"{who} checked."
    if kind == "bet_made":
        return f"{who} bet {event['amount']}."
    if kind == "called":
        return f"{who} called {event['amount']}{' (all-in)' if event.get('all_in') else ''}."
    if kind == "raised":
        return f"{who} raised, paying {event['amount']}."
    if kind == "folded":
        return f"{who} folded."
    if kind == "flip_declined":
        return f"{who} passed on the flip."
    if kind == "joker_revealed":
        return f"{who} revealed a joker and swapped a card."
    if kind == "tower_joker":
        seats = ", ".join(names[s] for s in event["seats"]) or "nobody still in the hand"
        return f"Tower joker no. {event['count']}: {seats} {MODE_WORDS[event['mode']]}."
    if kind == "jackpot":
        return f"The jackpot! Turned: {cards_text(event['cards'])}."
    if kind == "discarded":
        n = event["count"]
        return f"{who} {'swapped' if event['redrawn'] else 'threw away'} {n} card{'s' * (n != 1)}."
    if kind == "left":
        if event.get("why") in ("time", "claim"):
            return resigned_line(who, event).rstrip(".") + f", leaving with {event['chips']} chips."
        return f"{who} left the game with {event['chips']} chips."
    if kind == "pot_won":
        return f"{who} won the pot of {event['amount']} without a show."
    if kind == "shown":
        parts = []
        for n, pot in enumerate(event["pots"]):
            name = "main pot" if n == 0 else f"side pot {n}"
            winners = _and([names[s] for s in pot["winners"]])
            parts.append(f"{name} ({pot['amount']}) to {winners}")
        return "Show: " + "; ".join(parts) + "."
    if kind == "seat_out":
        return f"{who} is out of chips."
    if kind == "spire_reshuffled":
        return "The dungeon was shuffled into a new spire."
    return None


def result_line(result: Result, names: list[str]) -> str:
    winners = _and([names[s] for s in result.winners])
    scores = result.scores or ()
    chips = ", ".join(f"{names[s]} {c}" for s, c in enumerate(scores))
    why = (
        "the towers are empty"
        if result.reason == "towers_exhausted"
        else "one player is left standing"
    )
    verb = "wins" if len(result.winners) == 1 else "share the win"
    return f"{winners} {verb}: {why}. Chips: {chips}."
