"""Castles Besieged on Discord: the table embed, the hand panel and the action controls.

Reads only engine views (``engine.castles.Castles.view``) and events; the needed rolls it shows
come from the view, not from rules of its own. The table is a picture of both rows
(:mod:`presentation.castles_table`) with the same facts as text in the embed; the panel opens with
what happened since the seat's last turn, shows both rows and marks the card just drawn; its lay
menu has one entry per value, since suits never matter in this game.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import cards
from engine.castles import FLAVOUR, HITS_TO_LOSE, QUIET_TURNS_LIMIT
from engine.rules import Action, Event, Result
from presentation.base import (
    OVER_COLOUR,
    PLAYING_COLOUR,
    ActionButton,
    ActionChoice,
    ActionSelect,
    Control,
    Renderer,
    Sheet,
    Style,
    View,
    count,
    ply_turn,
    since_block,
)
from presentation.castles_table import NAME_W, alt_text, render_table
from presentation.endings import DECIDED_DRAWN, DRAWN_ON_CLAIM, abandoned_line, resigned_line
from presentation.knights_board import load_font
from presentation.picture_text import picture_names, result_words

ATTACK_BUTTONS_MAX = 5
NEW_MARK = "🆕"


def _card(code: str) -> str:
    return f"**{cards.pretty(code)}**"


def _flavour(code: str) -> str:
    return FLAVOUR[cards.value(code)]


def _value_name(value: int) -> str:
    """A card value as its rank reads: ``7``, ``10``, ``K``."""
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(value, str(value))


class CastlesRenderer:
    game = "castles"
    title = "Castles Besieged"
    panel_label = "My hand"
    marks_new_cards = True
    panel_pictures = False

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        # The picture shows the rows facing each other; the embed keeps the same facts as text.
        drawn = picture_names(names, 2, load_font(22, bold=True), NAME_W)
        return render_table(view, last_events, drawn, result_words(view, drawn, self.result_line))

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        return alt_text(view, last_events, names, result_words(view, names, self.result_line))

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        return None

    def hand_words(self, view: View, name: str) -> str | None:
        hand: list[str] = view["hand"]
        lines = [f"**{name}'s hand** ({len(hand)})"]
        lines += [f"{_card(code)} {_flavour(code)}" for code in hand] or ["*empty*"]
        return "\n".join(lines)

    def turn_number(self, view: View, ply: int) -> int:
        return ply_turn(view, ply)  # one action is one turn

    # -- embeds ----------------------------------------------------------------------------------

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        summary = view["summary"]
        result = view["result"]
        embed = Sheet(title=f"⚔️ {self.title}", colour=OVER_COLOUR if result else PLAYING_COLOUR)
        lines = [self._seat_line(summary, names, seat) for seat in (0, 1)]
        pile_line = f"🂠 Draw pile **{summary['pile']}** · ☠️ killed **{summary['discard']}**"
        if summary["pile"] == 0 and result is None:
            pile_line += f" · quiet turns {summary['quiet_turns']}/{QUIET_TURNS_LIMIT}"
        lines.append(pile_line)
        lines.append("")
        lines.append(f"**Battle lines** — left {names[0]}, right {names[1]}")
        lines.extend(self._battle_lines(summary["rows"]))
        if result is None:
            lines.append("")
            lines.append(f"▶️ {names[view['to_act']]} to act.")
        embed.description = "\n".join(lines)
        if summary["last_attack"] is not None:
            embed.add_field(
                name="Last attack",
                value=self._last_attack(summary["last_attack"], names),
                inline=False,
            )
        if recent:
            embed.add_field(name="Recent", value="\n".join(recent), inline=False)
        return embed

    def panel_embed(
        self,
        view: View,
        names: list[str],
        since: Sequence[str] = (),
        new_cards: Sequence[str] = (),
    ) -> Sheet:
        seat = view["seat"]
        other = 1 - seat
        summary = view["summary"]
        hand = view["hand"]
        embed = Sheet(title=f"🂠 Your hand — {self.title}", colour=PLAYING_COLOUR)
        lines = []
        if since:
            lines += ["**Since your last turn**", since_block(since), ""]
        lines.append(f"**Your hand** ({len(hand)})")
        fresh = list(new_cards)
        for code in hand:
            mark = ""
            if code in fresh:
                fresh.remove(code)
                mark = f" {NEW_MARK} *just drawn*"
            lines.append(f"{_card(code)} {_flavour(code)}{mark}")
        if not hand:
            lines.append("*Your hand is empty.*")
        embed.description = "\n".join(lines)
        embed.add_field(
            name=f"Battle lines — left you, right {names[other]}",
            value="\n".join(self._battle_lines(summary["rows"], mine=seat)),
            inline=False,
        )
        embed.add_field(
            name="Castles",
            value=(
                f"Yours: {summary['hits'][seat]}/{HITS_TO_LOSE} hits · "
                f"{names[other]}: {summary['hits'][other]}/{HITS_TO_LOSE} hits · "
                f"they hold {summary['hand_sizes'][other]} · draw pile {summary['pile']}"
            ),
            inline=False,
        )
        if view["result"] is not None:
            embed.add_field(name="Game over", value="See the table for the result.", inline=False)
        elif view["to_act"] == seat:
            embed.add_field(name="Your turn", value="Draw, lay a card or attack.", inline=False)
        else:
            embed.add_field(name="Waiting", value=f"{names[view['to_act']]} is to act.")
        return embed

    def _seat_line(self, summary: View, names: list[str], seat: int) -> str:
        dealer = " · dealer" if summary["dealer"] == seat else ""
        return (
            f"🏰 {names[seat]} — hits taken "
            f"**{summary['hits'][seat]}**/{HITS_TO_LOSE} · {summary['hand_sizes'][seat]} in hand"
            f"{dealer}"
        )

    @staticmethod
    def _battle_lines(rows: list[list[str]], mine: int = 0) -> list[str]:
        """The rows position by position, ``mine`` on the left (the panel puts its seat there)."""
        left, right = rows[mine], rows[1 - mine]
        if not left and not right:
            return ["*No cards in play yet.*"]
        out = []
        for pos in range(max(len(left), len(right))):
            a = cards.pretty(left[pos]) if pos < len(left) else None
            b = cards.pretty(right[pos]) if pos < len(right) else None
            if a and b:
                out.append(f"`{pos + 1:>2}` {a} ⚔️ {b}")
            elif a:
                out.append(f"`{pos + 1:>2}` {a} ➡️ 🏰")
            else:
                out.append(f"`{pos + 1:>2}` 🏰 ⬅️ {b}")
        return out

    @staticmethod
    def _last_attack(attack: View, names: list[str]) -> str:
        dice = attack["dice"]
        outcome = "hit" if attack["hit"] else "missed"
        target = "castle" if attack["target"] == "player" else "card"
        return (
            f"{names[attack['seat']]}'s card at position {attack['pos'] + 1} attacked "
            f"the {target}: needed {attack['needed']}+, rolled {dice[0]} + {dice[1]} = "
            f"{sum(dice)} — {outcome}."
        )

    # -- controls --------------------------------------------------------------------------------

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        controls: list[Control] = []
        attacks: list[tuple[int, Action]] = []
        for index, action in enumerate(legal):
            if action["type"] == "draw":
                label = f"Draw ({view['summary']['pile']} left)"
                controls.append(ActionButton(label, index, Style.PRIMARY, "🃏"))
            elif action["type"] == "pass":
                controls.append(ActionButton("Pass (nothing to do)", index))
            elif action["type"] == "attack":
                attacks.append((index, action))
        controls.extend(self._attack_controls(view, attacks))
        return controls

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        controls = self.table_controls(view, legal)
        seat = view["seat"]
        rows = view["summary"]["rows"]
        pos = len(rows[seat])
        facing = rows[1 - seat][pos] if pos < len(rows[1 - seat]) else None
        where = f"facing {cards.pretty(facing)}" if facing else "unblocked"
        # Suits never matter when laying: one entry per value (the first such card in the
        # engine's list), so any hand fits one menu of at most 13 entries.
        by_value: dict[int, list[tuple[int, str]]] = {}
        for i, a in enumerate(legal):
            if a["type"] == "lay":
                by_value.setdefault(cards.value(a["card"]), []).append((i, a["card"]))
        lays = tuple(
            ActionChoice(
                label=f"{_value_name(value)} {FLAVOUR[value]}"
                + (f" ×{len(held)}" if len(held) > 1 else ""),
                index=held[0][0],
                description=f"Value {value} · " + " ".join(cards.pretty(c) for _, c in held),
            )
            for value, held in sorted(by_value.items())
        )
        if lays:
            # Lays first after the buttons: they are what only the panel can offer.
            controls.insert(
                sum(isinstance(c, ActionButton) for c in controls),
                ActionSelect(f"Lay a card at position {pos + 1} ({where})…", lays),
            )
        return controls

    def _attack_controls(self, view: View, attacks: list[tuple[int, Action]]) -> list[Control]:
        if not attacks:
            return []
        seat = view["to_act"]
        rows = view["summary"]["rows"]
        odds = view["attacks"][seat]
        labelled = []
        for index, action in attacks:
            pos = action["pos"]
            card = cards.pretty(rows[seat][pos])
            info = odds[pos]
            is_card = info["target"] == "card"
            target = cards.pretty(rows[1 - seat][pos]) if is_card else "castle"
            labelled.append((index, f"{card} → {target}", f"needs {info['needed']}+"))
        if len(labelled) <= ATTACK_BUTTONS_MAX:
            return [
                ActionButton(f"Attack {text} ({need})", index, Style.SECONDARY, "⚔️")
                for index, text, need in labelled
            ]
        return [
            ActionSelect(
                "Attack with a card in your row…",
                tuple(
                    ActionChoice(f"#{n + 1} {text}", index, f"Two dice, {need}")
                    for n, (index, text, need) in enumerate(labelled)
                ),
            )
        ]

    # -- words -----------------------------------------------------------------------------------

    def event_line(self, event: Event, names: list[str]) -> str | None:
        kind = event["type"]
        who = names[event["seat"]] if "seat" in event else ""
        if kind == "card_drawn":
            return f"{who} drew a card ({event['pile']} left in the pile)."
        if kind == "card_laid":
            card = event["card"]
            return f"{who} laid {_card(card)} ({_flavour(card)}) at position {event['pos'] + 1}."
        if kind == "attacked":
            dice = event["dice"]
            roll = f"needed {event['needed']}+, rolled {dice[0]} + {dice[1]} = {sum(dice)}"
            attacker = _card(event["card"])
            other = names[1 - event["seat"]]
            if event["target"] == "card":
                target = f"{other}'s {_card(event['target_card'])}"
                outcome = "killed it!" if event["hit"] else "missed."
            else:
                target = f"{other}'s castle"
                outcome = f"a hit ({event['hits']}/{HITS_TO_LOSE})!" if event["hit"] else "missed."
            return f"{who}'s {attacker} attacked {target}: {roll} — {outcome}"
        if kind == "passed":
            return f"{who} had nothing left to do and passed."
        if kind == "resigned":
            return resigned_line(who, event)
        if kind == "abandoned":
            return abandoned_line(who)
        if kind == "game_ended":
            return None
        return None

    def result_line(self, result: Result, names: list[str]) -> str:
        scores = result.scores or (0, 0)
        if result.reason == "castle_stormed":
            winner = result.winners[0]
            return (
                f"🏆 {names[winner]} stormed {names[1 - winner]}'s castle "
                f"({scores[1 - winner]} hits to {scores[winner]})."
            )
        if result.reason == "abandoned":
            return DRAWN_ON_CLAIM
        if result.reason == "resigned":
            winner = result.winners[0]
            return f"🏳️ {names[1 - winner]} resigned; {names[winner]} wins."
        if result.winners:
            winner = result.winners[0]
            return (
                f"🤝 Stalemate: {names[winner]} wins on the tie-break "
                f"(hits {scores[0]}–{scores[1]})."
            )
        return f"🤝 Stalemate: a draw (hits {scores[0]}–{scores[1]}, equal rows)."

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        summary = view["summary"]
        hits = summary["hits"]
        rows = summary["rows"]
        totals = [sum(cards.value(c) for c in row) for row in rows]
        lines = [self.result_line(result, names)]
        if result.reason == "castle_stormed":
            lines.append(f"Decided by: the {HITS_TO_LOSE}th hit on a castle.")
        elif result.reason == "resigned":
            lines.append("Decided by: a resignation.")
        elif result.reason == "abandoned":
            lines.append(f"Decided by: {DECIDED_DRAWN}.")
        else:
            why = (
                f"{QUIET_TURNS_LIMIT} turns without a kill or a hit after the pile ran out"
                if summary["quiet_turns"] >= QUIET_TURNS_LIMIT
                else "both players passed in a row"
            )
            if hits[0] != hits[1]:
                decided = f"fewer hits taken ({hits[0]} against {hits[1]})"
            else:
                decided = (
                    f"hits level at {hits[0]}, so the row totals: {names[0]} {totals[0]} "
                    f"against {names[1]} {totals[1]}"
                )
            lines.append(f"Decided by: a stalemate ({why}); {decided}.")
        lines.append(f"Length: {count(turns, 'turn')}.")
        for seat in (0, 1):
            lines.append(
                f"{names[seat]}: {hits[seat]}/{HITS_TO_LOSE} hits taken · "
                f"{count(len(rows[seat]), 'card')} in the row (total {totals[seat]}) · "
                f"{summary['hand_sizes'][seat]} in hand"
            )
        return "\n".join(lines)


RENDERER: Renderer = CastlesRenderer()
