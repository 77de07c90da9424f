"""Siege the King on Discord: the table embed, the private panel and the action controls.

Reads only engine views (``engine.king.King.view``: the public summary, plus a seat's own hand
and castle order) and events. Which cards can go where comes from the engine's legal list; the
column values come from the summary. The renderer only names things: card names and column
names (left, middle, right from the owner's view) come from :mod:`engine.king`.

The table shows all six columns as a picture (:mod:`presentation.king_table`) and keeps the same
facts as text: six short lines (three columns a side) that read well on a phone and with images
off; a castle card shows as 🂠 until the summary says what it is. The panel opens with what
happened since the seat's last turn, marks the cards just drawn and says why a held card cannot
be played (``engine.king.unplayable_reasons``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.king import ARTISAN, COLUMN_NAMES, JUDGE, KING, SORC, card_name, unplayable_reasons
from engine.rules import ABANDONED, Action, Event, Result
from presentation import king_words
from presentation.base import (
    OVER_COLOUR,
    PLAYING_COLOUR,
    ActionButton,
    ActionChoice,
    ActionSelect,
    BackButton,
    Control,
    Renderer,
    Sheet,
    StageChoice,
    StageSelect,
    Style,
    View,
    count,
    since_block,
)
from presentation.endings import DECIDED_DRAWN
from presentation.king_table import NAME_W, alt_text, render_table
from presentation.king_words import (
    FACE_DOWN_LEGEND,
    KING_MARK,
    KING_PLACES,
    LEGEND,
    _castle_lines,
    _emoji,
    _or_list,
    _position,
    _where,
)
from presentation.knights_board import load_font
from presentation.picture_text import picture_names, result_words, seat_names


class KingRenderer:
    game = "king"
    title = "Siege the King"
    panel_label = "My hand"
    marks_new_cards = True
    panel_pictures = False

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        # All six columns as a picture; the embed keeps the same facts as text.
        drawn = picture_names(names, 2, load_font(20, bold=True), NAME_W)
        return render_table(
            view,
            last_events,
            lambda events: self._picture_line(events, drawn),
            drawn,
            result_words(view, drawn, self.result_line),
        )

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        line = self._picture_line(last_events, names)
        return alt_text(view, last_events, line, names, result_words(view, names, self.result_line))

    def _picture_line(self, events: Sequence[Event], names: Sequence[str]) -> str | None:
        """The last action in words, with the players' plain names in place of mentions."""
        sides = seat_names(names, 2)
        lines = [line for e in events if (line := self.event_line(e, sides)) is not None]
        return " ".join(lines) or None

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        return None

    def hand_words(self, view: View, name: str) -> str | None:
        hand: list[str] = view["hand"]
        lines = [f"**{name}'s hand** ({len(hand)})"]
        lines += [f"{_emoji(code)} {card_name(code)}" for code in hand] or ["*empty*"]
        order = view["castle"]
        lines.append(f"**{name}'s castle**")
        if order is None:
            lines.append("*not arranged yet*")
        else:
            lines += _castle_lines(view["summary"]["columns"][view["seat"]], order)
        return "\n".join(lines)

    def turn_number(self, view: View, ply: int) -> int:
        turn: int = view["summary"]["turn"]
        return turn if view["result"] is not None else turn + 1

    # -- embeds ----------------------------------------------------------------------------------

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        summary = view["summary"]
        result = view["result"]
        embed = Sheet(title=f"⚔️ {self.title}", colour=OVER_COLOUR if result else PLAYING_COLOUR)
        number = self.turn_number(view, 0)
        turn = f"{number} turns played" if result else f"Turn {number}"
        lines = [
            f"**{turn}** · draw pile **{summary['pile']}**"
            f" · discard pile **{len(summary['discard'])}**"
        ]
        for seat in (0, 1):
            lines.append("")
            lines.append(f"🏰 {names[seat]} · {self._hand_size(summary, seat)}")
            lines.extend(_castle_lines(summary["columns"][seat]))
        lines.append("")
        # Once the game is over every castle card is face up.
        lines.append(LEGEND + ("*" if result else FACE_DOWN_LEGEND + "*"))
        status = self._status(view, names)
        if status:
            lines.append("")
            lines.append(status)
        embed.description = "\n".join(lines)
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
        fresh = list(new_cards)
        if hand:
            lines.append(f"**Your hand** ({len(hand)})")
            for code in hand:
                mark = ""
                if code in fresh:
                    fresh.remove(code)
                    mark = " 🆕 *just drawn*"
                lines.append(f"{_emoji(code)} {card_name(code)}{mark}")
        elif summary["phase"] == "arrange":
            lines.append("*The cards are dealt once both castles are arranged.*")
        else:
            lines.append("*Your hand is empty.*")
        if view["result"] is None and view["to_act"] == seat:
            reasons = unplayable_reasons(view)
            if reasons:
                lines += ["", "**Not playable now**", *(f"🚫 {r}" for r in reasons.values())]
        embed.description = "\n".join(lines)
        order = view["castle"]
        if order is None:
            mine = "Not arranged yet: choose below where your King hides."
        else:
            mine = "\n".join(_castle_lines(summary["columns"][seat], order))
        embed.add_field(name="Your castle (only you see your King)", value=mine, inline=False)
        theirs = [f"{names[other]} · {self._hand_size(summary, other)}"]
        theirs.extend(_castle_lines(summary["columns"][other]))
        embed.add_field(name="Their castle", value="\n".join(theirs), inline=False)
        if view["result"] is not None:
            embed.add_field(name="Game over", value="See the table for the result.", inline=False)
        elif view["to_act"] == seat:
            embed.add_field(name="Your turn", value=self._prompt(summary["phase"]), inline=False)
        else:
            embed.add_field(name="Waiting", value=f"{names[view['to_act']]} is to act.")
        return embed

    @staticmethod
    def _hand_size(summary: View, seat: int) -> str:
        n = summary["hand_sizes"][seat]
        return f"{n} card{'' if n == 1 else 's'} in hand"

    @staticmethod
    def _prompt(phase: str) -> str:
        if phase == "arrange":
            return "Hide your King: pick its column. Nobody else sees where it is."
        if phase == "assassinate":
            return "You drew the Assassin: pick the enemy column it strikes."
        return "Pick a card to play, then where it goes."

    @staticmethod
    def _status(view: View, names: list[str]) -> str | None:
        if view["result"] is not None:
            return None
        to_act = view["to_act"]
        phase = view["summary"]["phase"]
        if phase == "arrange":
            return f"▶️ {names[to_act]} is arranging their castle (in their panel)."
        if phase == "assassinate":
            return (
                f"🗡️ {names[to_act]} drew the Assassin and chooses which of "
                f"{names[1 - to_act]}'s columns it strikes."
            )
        return f"▶️ {names[to_act]} to play."

    # -- controls --------------------------------------------------------------------------------

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        # Only the Assassin's strike is public enough for the table: everything else is chosen
        # from a hand or a hidden castle.
        return [
            ActionButton(
                f"Strike their {COLUMN_NAMES[a['column']]} column",
                i,
                Style.PRIMARY,
                "🗡️",
            )
            for i, a in enumerate(legal)
            if a["type"] == "assassinate"
        ]

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        arranges = [(i, a) for i, a in enumerate(legal) if a["type"] == "arrange"]
        if arranges:
            return [
                ActionButton(
                    KING_PLACES[a["order"].index(KING)],
                    i,
                    Style.PRIMARY,
                    KING_MARK,
                )
                for i, a in arranges
            ]
        strikes = self.table_controls(view, legal)
        if strikes:
            return strikes
        plays: dict[str, list[tuple[int, Action]]] = {}
        for i, a in enumerate(legal):
            if a["type"] == "play":
                plays.setdefault(a["card"], []).append((i, a))
        if stage in plays:
            return [*self._targets(view, stage, plays[stage]), BackButton()]
        controls: list[Control] = [
            ActionButton(self._discard_label(a["card"]), i, emoji="🗑️")
            for i, a in enumerate(legal)
            if a["type"] == "discard"
        ]
        if plays:
            held: Counter[str] = Counter(view["hand"])
            controls.append(
                StageSelect(
                    "Play a card…",
                    tuple(
                        StageChoice(
                            card_name(card) + (f" ×{held[card]}" if held[card] > 1 else ""),
                            card,
                            self._reach(view, card, options),
                            _emoji(card),
                        )
                        for card, options in plays.items()
                    ),
                )
            )
        return controls

    @staticmethod
    def _discard_label(card: str) -> str:
        if card == ARTISAN:
            return "Discard the Artisan (draw a new card)"
        return f"Discard {card_name(card)}"

    @staticmethod
    def _reach(view: View, card: str, options: list[tuple[int, Action]]) -> str:
        """Where a card can go, from its legal plays: the second line of its menu entry."""
        if card == JUDGE:
            n = len(options)
            return f"Remove one of {n} card{'s' if n > 1 else ''} on the columns"
        columns = [a["column"] for _, a in options]
        verb = "Clear" if card == SORC else "Onto"
        if len(columns) == 2 * len(COLUMN_NAMES):
            return f"{verb} any column, yours or theirs"
        parts = []
        for whose, mine in (("your", True), ("their", False)):
            names = [COLUMN_NAMES[i] for s, i in columns if (s == view["seat"]) == mine]
            if len(names) == len(COLUMN_NAMES):
                parts.append(f"any of {whose} columns")
            elif names:
                parts.append(f"{whose} {_or_list(names)}")
        return f"{verb} {', or '.join(parts)}"

    @staticmethod
    def _targets(view: View, card: str, options: list[tuple[int, Action]]) -> list[Control]:
        """The second step for one card: its legal columns (for the Judge, the cards)."""
        columns = view["summary"]["columns"]
        if card == JUDGE:
            choices = []
            for i, a in options:
                s, c = a["column"]
                column = columns[s][c]
                k = a["target"]
                code = column["cards"][k]
                choices.append(
                    ActionChoice(
                        f"{_where(view, a['column']).capitalize()}: {card_name(code)}",
                        i,
                        f"{_position(k, len(column['cards']))} of a column worth {column['value']}",
                        _emoji(code),
                    )
                )
            return [ActionSelect("Judge: choose the card to remove…", tuple(choices))]
        controls: list[Control] = []
        for i, a in options:
            s, c = a["column"]
            own = s == view["seat"]
            style = Style.SUCCESS if own else Style.PRIMARY
            # The chosen card is named again: the panel's first step is gone by now.
            label = f"{card_name(card)} → {_where(view, a['column'])} ({columns[s][c]['value']})"
            controls.append(ActionButton(label, i, style))
        return controls

    # -- words, from presentation.king_words -------------------------------------------------------

    def event_line(self, event: Event, names: list[str]) -> str | None:
        return king_words.event_line(event, names)

    def result_line(self, result: Result, names: list[str]) -> str:
        return king_words.result_line(result, names)

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        columns = view["summary"]["columns"]
        kings = []
        for seat in (0, 1):
            where = next((i for i, c in enumerate(columns[seat]) if c["castle"] == KING), None)
            kings.append(where)
        decided = {
            "king_revealed": "a King column fell to 0 or below",
            "assassinated": "the Assassin struck the King's column",
            "own_king_fallen": "a player's own card brought their King column down",
            "resigned": "a resignation",
            ABANDONED: DECIDED_DRAWN,
        }.get(result.reason, "a stalemate: the King columns compared, then the open columns")
        lines = [self.result_line(result, names), f"Decided by: {decided}."]
        lines.append(f"Length: {count(turns, 'turn')}.")
        for seat in (0, 1):
            where = kings[seat]
            opened = sum(c["open"] for c in columns[seat])
            if where is None:
                king = "King not placed"
            else:
                column = columns[seat][where]
                king = f"King on the {COLUMN_NAMES[where]}, column worth {column['value']}"
            lines.append(f"{names[seat]}: {king} · {opened} of 3 columns open")
        return "\n".join(lines)


RENDERER: Renderer = KingRenderer()
