"""Siege at Kurth (``kurth``) on Discord: the city table, the cards panel, the controls, words.

Reads only engine views (``engine.kurth.Kurth.view``), the engine's legal list and events. The
solo player hides nothing, so every legal choice is a button on the table itself (the panel
offers the same ones beside the three cards in full). Labels name what the engine lists, with
the cost printed on the card (mana for spells, spirit for special actions); names, costs and
effects come from the engine's tables, the picture from :mod:`presentation.kurth_board`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.kurth import (
    LOCATION_CARDS,
    LOCATION_NAMES,
    LOCATIONS,
    MANA_CAP,
    OVERRUN_MARKERS,
    SPECIALS,
    SPELLS,
    START_SPIRIT,
    TURNS,
    TURNS_PER_ROUND,
    spirit_loss,
)
from engine.rules import Action, Event, Result
from presentation import kurth_words
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
    fit_alt,
    since_block,
)
from presentation.kurth_board import ROMAN, location_line, render_city_png
from presentation.kurth_words import _markers, _place, _special_cost, _spell_cost

ROUNDS = TURNS // TURNS_PER_ROUND
DIFFICULTY_LABELS = {"easy": "Easy", "normal": "Normal", "advanced": "Advanced"}
KURTH_COLOUR = PLAYING_COLOUR
LOST_COLOUR = 0xB4451F


class KurthRenderer:
    game = "kurth"
    title = "Siege at Kurth"
    panel_label = "My cards"
    marks_new_cards = False
    panel_pictures = False

    def hand_words(self, view: View, name: str) -> str | None:
        cards = [f"{card['name']} ({card['code']})" for card in view["hand"]]
        return f"**{name}'s cards** ({len(cards)})\n" + ("\n".join(cards) or "*none*")

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        # Played alone: the city is the player's, and its banner already says the end.
        return render_city_png(view)

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        """The city picture in words: round and turn, spirit and mana, where the player is,
        each location's markers, the passage (at most 1024 characters)."""
        summary = view["summary"]
        markers = summary["markers"]
        city = ", ".join(f"{LOCATION_NAMES[k]} {markers[k]}" for k in LOCATIONS)
        parts = [
            f"The city of Kurth, round {summary['round']} of {ROUNDS}, turn {summary['turn']} "
            f"of {TURNS}.",
            f"Spirit {summary['spirit']} of {START_SPIRIT}, mana {summary['mana']} of {MANA_CAP}.",
            f"You are at {LOCATION_NAMES[summary['location']]}.",
            f"Markers, clockwise from the Citadel: {city}.",
            f"{summary['overrun']} of {summary['overrun_limit']} locations overrun; the passage "
            f"is {'open' if summary['passage_open'] else 'closed'}.",
        ]
        text = " ".join(parts)
        return fit_alt(text)

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        return None

    def turn_number(self, view: View, ply: int) -> int:
        turn: int = view["summary"]["turn"]
        return turn

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        summary = view["summary"]
        return "\n".join(
            [
                self.result_line(result, names),
                f"Decided by: {self._decided(summary, result.to_json())}",
                f"Length: {turns} of {TURNS} turns.",
                f"{names[0]}: spirit {summary['spirit']}/{START_SPIRIT} · mana "
                f"{summary['mana']}/{MANA_CAP} · {summary['overrun']} of "
                f"{summary['overrun_limit']} locations overrun",
            ]
        )

    # -- embeds ----------------------------------------------------------------------------------

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        summary = view["summary"]
        result = view["result"]
        embed = Sheet(title=self._title(summary), colour=self._colour(result))
        lines = [*self._status_lines(summary), ""]
        if result is None:
            lines += [self._prompt(summary, names[0]), ""]
        lines.append("**The city** (clockwise from the Citadel; card I top-left, II top-right, "
                     "III bottom-right, IV bottom-left)")  # fmt: skip
        lines += self._city_lines(summary)
        embed.description = "\n".join(lines)
        if result is not None:
            embed.add_field(
                name="What decided it", value=self._decided(summary, result), inline=False
            )
        embed.add_field(
            name=f"This turn's cards (turn {summary['turn']})",
            value=self._cards_text(view),
            inline=False,
        )
        so_far = self._this_turn(summary)
        if so_far and result is None:
            embed.add_field(name="This turn so far", value=so_far, inline=False)
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
        summary = view["summary"]
        embed = Sheet(title=f"🃏 Your cards — {self.title}", colour=self._colour(view["result"]))
        opening = ["**Since your last turn**", since_block(since), ""] if since else []
        embed.description = "\n".join([*opening, *self._status_lines(summary)])
        for n, card in enumerate(view["hand"], start=1):
            embed.add_field(
                name=f"{n}. {card['name']} ({card['code']})",
                value=self._card_detail(card, n),
                inline=False,
            )
        if view["result"] is not None:
            embed.add_field(name="Game over", value="See the table for the result.", inline=False)
        elif view["to_act"] == view["seat"]:
            embed.add_field(name="Your turn", value=self._prompt(summary, None), inline=False)
        return embed

    def _title(self, summary: View) -> str:
        difficulty = DIFFICULTY_LABELS.get(summary["difficulty"], summary["difficulty"])
        return f"🏰 {self.title} — {difficulty}"

    @staticmethod
    def _colour(result: Any) -> int:
        if result is None:
            return KURTH_COLOUR
        return OVER_COLOUR if result["winners"] else LOST_COLOUR

    @staticmethod
    def _status_lines(summary: View) -> list[str]:
        passage = "**open**" if summary["passage_open"] else "closed"
        return [
            f"Round **{summary['round']}** of {ROUNDS} · Turn **{summary['turn']}** of {TURNS} · "
            f"❤️ Spirit **{summary['spirit']}**/{START_SPIRIT} · "
            f"🔮 Mana **{summary['mana']}**/{MANA_CAP}",
            f"🔥 Overrun **{summary['overrun']}** of {summary['overrun_limit']} "
            f"(a location with {OVERRUN_MARKERS}+ markers is overrun; {summary['overrun_limit']} "
            f"lose the city) · Passage (Armory ↔ Barracks) {passage} · "
            f"{summary['pile']} cards left in the pile",
            f"🧍 You are at {_place(summary['location'])}"
            + (
                f": {_markers(summary['markers'][summary['location']])}, "
                f"siege strength **{summary['strength']}**."
                if summary["strength"]
                else ": no markers here."
            ),
        ]

    @staticmethod
    def _city_lines(summary: View) -> list[str]:
        lines = []
        for n, pair in enumerate(LOCATION_CARDS):
            for key in pair:
                text = location_line(summary, key)
                if summary["location"] == key:
                    text = f"**{text}**"
                lines.append(f"`{ROMAN[n]:>3}` {text}")
        return lines

    @staticmethod
    def _prompt(summary: View, who: str | None) -> str:
        head = f"▶️ {who}: " if who else "▶️ "
        phase = summary["phase"]
        here = _place(summary["location"])
        if phase == "move":
            passage = " (or through the open passage)" if summary["passage_open"] else ""
            special = summary["special_used"]
            if special in ("forced_march", "counter_march", "hold_fast"):
                walk = f"{SPECIALS[special].name}: {SPECIALS[special].effect}"
                if special == "hold_fast":
                    passage = ""
                return f"{head}**move** — {walk}{passage}. Every destination is a choice below."
            return (
                f"{head}**move** 1 to 3 locations clockwise{passage}. Every destination you can "
                "reach is a choice below; special actions and spells first, if you like."
            )
        if phase == "attack":
            m = summary["markers"][summary["location"]]
            return (
                f"{head}**attack** the {_markers(m)} at {here}: two dice plus your spell bonus "
                f"against strength **{summary['strength']}**. Spells and special actions first, "
                "if you like."
            )
        if summary["roll"] is None:
            return (
                f"{head}no attack at {here}. Use what you still may, then **End turn** "
                "(the next upkeep deals three new cards)."
            )
        return (
            f"{head}the attack is settled. Fate's Favor may still re-roll a die; then **End "
            "turn** (the next upkeep deals three new cards)."
        )

    @staticmethod
    def _upkeep_text(summary: View) -> str:
        placed = []
        for p in summary["placed"]:
            name = LOCATION_NAMES[p["location"]]
            placed.append(f"{name} +{p['added']}" if p["added"] else f"{name} protected: +0")
        return (
            f"Upkeep: R {summary['reinforcements']} to {', '.join(placed)} · siege strength "
            f"+{summary['bonus_strength']} · mana +{summary['mana_boost']}"
        )

    def _cards_text(self, view: View) -> str:
        lines = []
        for n, card in enumerate(view["hand"], start=1):
            lines.append(f"**{n}. {card['name']}** ({card['code']}) — {self._card_detail(card, n)}")
        lines.append(self._upkeep_text(view["summary"]))
        return "\n".join(lines)

    @staticmethod
    def _card_detail(card: Mapping[str, Any], n: int) -> str:
        where = " or ".join(LOCATION_NAMES[k] for k in card["locations"])
        if n == 3:
            where += " (card 3 places no markers)"
        spell, special = card["spell"], card["special"]
        spell_now = " ✅ now" if card["spell_legal"] else ""
        special_now = " ✅ now" if card["special_legal"] else ""
        return (
            f"{where} · R{card['reinforcements']} B{card['bonus_strength']} M{card['mana_boost']}\n"
            f"✨ **{SPELLS[spell].name}** ({_spell_cost(spell)}): {SPELLS[spell].effect}"
            f"{spell_now}\n"
            f"⚡ **{SPECIALS[special].name}** ({_special_cost(special)}): "
            f"{SPECIALS[special].effect}{special_now}"
        )

    @staticmethod
    def _this_turn(summary: View) -> str:
        parts = []
        if summary["special_used"]:
            parts.append(f"⚡ Special action: {SPECIALS[summary['special_used']].name}")
        if summary["spells_cast_this_turn"]:
            spells = ", ".join(SPELLS[s].name for s in summary["spells_cast_this_turn"])
            parts.append(f"✨ Spells cast: {spells}")
        roll = summary["roll"]
        if roll is not None:
            dice = roll["dice"]
            text = f"🎲 Roll: {dice[0]} + {dice[1]}"
            if roll["bonus"]:
                text += f" + {roll['bonus']} bonus"
            verdict = "won" if roll["won"] else "beaten"
            text += f" = **{roll['total']}** against strength {roll['strength']}: {verdict}"
            if dice[0] == dice[1]:
                text += " (doubles: the passage is open for the next move)"
            parts.append(text + ".")
        return "\n".join(parts)

    @staticmethod
    def _decided(summary: View, result: Mapping[str, Any]) -> str:
        reason = result["reason"]
        turn = summary["turn"]
        overrun = summary["overrun"]
        limit = summary["overrun_limit"]
        difficulty = DIFFICULTY_LABELS.get(summary["difficulty"], summary["difficulty"])
        fallen = [LOCATION_NAMES[k] for k in LOCATIONS if summary["markers"][k] >= OVERRUN_MARKERS]
        fallen_text = f" ({', '.join(fallen)})" if fallen else ""
        score = (result.get("scores") or [0])[0]
        if reason == "relieved":
            held = len(LOCATIONS) - overrun
            return (
                f"You held out through turn {TURNS} with {overrun} of {limit} allowed locations "
                f"overrun{fallen_text}. Score **{score}** = 10 × {summary['spirit']} spirit + "
                f"{summary['mana']} mana + 2 × {held} locations not overrun."
            )
        if reason == "overrun":
            return (
                f"At the end of turn {turn}, {overrun} locations held {OVERRUN_MARKERS} or more "
                f"markers{fallen_text}: {difficulty} loses at {limit}. Score 0."
            )
        if reason == "spirit_broken":
            return (
                f"At the end of turn {turn} your spirit was 0 ({overrun} of {limit} locations "
                "overrun). Score 0."
            )
        if reason == "resigned":
            return f"You resigned on turn {turn} of {TURNS}. Score 0."
        return f"The game ended ({reason}). Score {score}."

    # -- controls --------------------------------------------------------------------------------

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        """Every legal action: the player is alone and hides nothing, so the table carries them
        all. Buttons for destinations, the attack, End turn, special actions and spells (each
        with its cost); a menu for Ward of Stone's target (up to eight locations)."""
        summary = view["summary"]
        moves: list[Control] = []
        main: list[Control] = []
        specials: list[Control] = []
        spells: list[Control] = []
        wards: list[ActionChoice] = []
        for index, action in enumerate(legal):
            kind = action["type"]
            if kind == "move":
                to = action["to"]
                verb = "Stay at" if to == summary["location"] else "Move to"
                label = f"{verb} {LOCATION_NAMES[to]} ({_markers(summary['markers'][to])})"
                moves.append(ActionButton(label, index, Style.PRIMARY))
            elif kind == "attack":
                m = summary["markers"][summary["location"]]
                label = (
                    f"Attack {_markers(m)} — strength {summary['strength']} "
                    f"(beaten: −{spirit_loss(m)} spirit)"
                )
                main.append(ActionButton(label, index, Style.PRIMARY, "⚔️"))
            elif kind == "end_turn":
                label = "End turn" if summary["turn"] < TURNS else f"End turn {TURNS} (the last)"
                main.append(ActionButton(label, index, Style.SUCCESS))
            elif kind == "special":
                name = action["name"]
                label = f"{SPECIALS[name].name} — {_special_cost(name)}"
                specials.append(ActionButton(label, index, emoji="⚡"))
            elif kind == "cast" and action["spell"] == "ward_of_stone":
                where = action["location"]
                wards.append(
                    ActionChoice(
                        label=LOCATION_NAMES[where],
                        index=index,
                        description=(
                            f"{_markers(summary['markers'][where])} now; "
                            "it gets none at the next upkeep"
                        ),
                    )
                )
            elif kind == "cast" and action["spell"] == "fates_favor":
                die = action["die"]
                value = summary["roll"]["dice"][die] if summary["roll"] else "?"
                cost = _spell_cost("fates_favor")
                label = f"Fate's Favor: re-roll die {die + 1} (a {value}) — {cost}"
                spells.append(ActionButton(label, index, emoji="🍀"))
            elif kind == "cast":
                spell = action["spell"]
                label = f"{SPELLS[spell].name} — {_spell_cost(spell)}"
                spells.append(ActionButton(label, index, emoji="✨"))
        controls = [*moves, *main, *specials, *spells]
        if wards:
            placeholder = (
                f"Ward of Stone — {_spell_cost('ward_of_stone')}: protect a location from the "
                "next upkeep…"
            )
            controls.append(ActionSelect(placeholder, tuple(wards)))
        return controls

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        return self.table_controls(view, legal)

    # -- words, from presentation.kurth_words ------------------------------------------------------

    def event_line(self, event: Event, names: list[str]) -> str | None:
        return kurth_words.event_line(event, names)

    def result_line(self, result: Result, names: list[str]) -> str:
        return kurth_words.result_line(result, names)


RENDERER: Renderer = KurthRenderer()
