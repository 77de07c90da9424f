"""Siege, the 1966 board game (``knights``) on Discord: the table, the mover's panel, the controls.

Reads only engine views (``engine.knights.Knights.view``), the engine's legal list and events.
Which pieces may move, where they may go and what they capture come from the engine's front-end
helpers (``movable_squares``, ``destinations``); the pictures come from
:mod:`presentation.knights_board`. A move takes two steps in the mover's panel: the piece (a stage
select), then its destination (an action select).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.knights import (
    ATTACKER,
    CROWNS,
    DEFENDER,
    GAME,
    NO_CAPTURE_LIMIT,
    PIECE_NAMES,
    SPECIAL_TURNS,
    destinations,
    movable_squares,
    square_kind,
)
from engine.rules import ABANDONED, Action, Event, Result
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
    fit_alt,
    ply_turn,
    since_block,
)
from presentation.endings import DECIDED_DRAWN, DRAWN_ON_CLAIM, abandoned_line, resigned_line
from presentation.knights_board import last_move_text, render_board_png, text_board
from presentation.knights_table import SIDE_WORDS, drawn_names, render_table
from presentation.picture_text import result_words, seat_names

SIDE_LABELS = GAME.about.sides
SIDE_ICONS = ("🐎", "🏰")
# What each piece is called after "captures" / "capturing".
TAKEN = {"N": "a Knight", "D": "a Defender", "C": "the Commander"}
KIND_WORDS = {
    "blue": "blue (water)",
    "green": "green",
    "start": "green (start)",
    "castle": "castle",
    "crown": "crown",
    "dot": "castle dot",
}
SELECT_DESCRIPTION_MAX = 100


def _pieces(view: View) -> dict[str, str]:
    pieces: dict[str, str] = view["summary"]["pieces"]
    return pieces


def _clip(text: str, limit: int = SELECT_DESCRIPTION_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class KnightsRenderer:
    game = "knights"
    title = "Siege (1966)"
    panel_label = "My moves"
    marks_new_cards = False
    panel_pictures = True

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        # The public board from the attacker's end, as the rules and notation describe it; the
        # view's last move is framed and a capture tagged; the players' names above it.
        drawn = drawn_names(names)
        return render_table(view, drawn, result_words(view, drawn, self.result_line))

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        sides = seat_names(names, 2)
        parts = [f"{SIDE_WORDS[seat]}: {sides[seat]}." for seat in (ATTACKER, DEFENDER)]
        result = result_words(view, sides, self.result_line)
        if result is not None:
            parts.insert(0, f"Game over: {result}")
        elif view["to_act"] is not None:
            parts.append(f"{sides[view['to_act']]} to move.")
        return fit_alt(" ".join([*parts, board_alt(view, flip=False)]))

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        """The board turned to the panel's side (the defender sees it from the castle's end);
        once a piece is chosen, its legal destinations are ringed."""
        flip = view["seat"] == DEFENDER
        marked: list[str] = []
        if stage is not None and stage in movable_squares(legal):
            marked = [t["to"] for t in destinations(_pieces(view), legal, stage)]
        png = render_board_png(view, flip=flip, highlight=marked, chosen=stage if marked else None)
        return png, board_alt(view, flip=flip, piece=stage if marked else None, marked=marked)

    def hand_words(self, view: View, name: str) -> str | None:
        return None  # every piece is on the board: nothing is hidden

    def turn_number(self, view: View, ply: int) -> int:
        return ply_turn(view, ply)  # the Commander's placement, then one move a turn

    # -- embeds ----------------------------------------------------------------------------------

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        over = view["result"] is not None
        embed = Sheet(title=f"⚔️ {self.title}", colour=OVER_COLOUR if over else PLAYING_COLOUR)
        lines = [*self._status_lines(view, names), ""]
        turn = self._turn_line(view, names)
        if turn:
            lines += [turn, ""]
        # The text board keeps the game readable for screen readers and with images off.
        lines.append(text_board(view))
        embed.description = "\n".join(lines)
        if recent:
            embed.add_field(name="Recent moves", value="\n".join(recent), inline=False)
        return embed

    def panel_embed(
        self,
        view: View,
        names: list[str],
        since: Sequence[str] = (),
        new_cards: Sequence[str] = (),
    ) -> Sheet:
        seat = view["seat"]
        embed = Sheet(title=f"{SIDE_ICONS[seat]} Your moves — {self.title}", colour=PLAYING_COLOUR)
        lines = []
        if since:
            lines += ["**Since your last turn**", since_block(since), ""]
        lines += [f"You play **{SIDE_LABELS[seat]}**.", *self._status_lines(view, names)]
        embed.description = "\n".join(lines)
        # The picture shows the board turned to this side; the text board keeps it readable
        # with images off and for screen readers.
        embed.add_field(name="Board", value=text_board(view, flip=seat == DEFENDER), inline=False)
        if view["result"] is not None:
            embed.add_field(name="Game over", value="See the table for the result.", inline=False)
        elif view["to_act"] == seat:
            embed.add_field(name="Your turn", value=self._your_turn(view), inline=False)
        else:
            other = view["to_act"]
            embed.add_field(
                name="Waiting", value=f"{names[other]} ({SIDE_LABELS[other]}) is to move."
            )
        return embed

    def _status_lines(self, view: View, names: list[str]) -> list[str]:
        summary = view["summary"]
        pieces = _pieces(view)
        captured = summary["captured"]
        knights = sum(p == "N" for p in pieces.values())
        defenders = sum(p == "D" for p in pieces.values())
        commander = next((s for s, p in pieces.items() if p == "C"), None)
        if commander is not None:
            where = f"Commander on {commander}"
        elif view["phase"] == "placement":
            where = "Commander not placed yet"
        else:
            where = "Commander captured"
        lines = [
            f"{SIDE_ICONS[ATTACKER]} {names[ATTACKER]} — Knights: **{knights}** on the board, "
            f"{captured['knights']} captured",
            f"{SIDE_ICONS[DEFENDER]} {names[DEFENDER]} — Defenders: **{defenders}** on the board, "
            f"{captured['defenders']} captured · {where}",
        ]
        left = summary["special_turns_left"]
        if left > 0 and view["result"] is None:
            rule = f"📜 Opening rule: {left} of {SPECIAL_TURNS} defender turns left"
            if summary["restricted"]:
                rule += " — this turn a Defender must step off its dot"
            lines.append(rule + ".")
        quiet = summary["plies_since_capture"]
        if quiet and view["result"] is None:
            lines.append(f"⏳ Moves without a capture: {quiet}/{NO_CAPTURE_LIMIT} (then a draw).")
        return lines

    @staticmethod
    def _turn_line(view: View, names: list[str]) -> str | None:
        if view["result"] is not None:
            return None
        seat = view["to_act"]
        who = f"▶️ {names[seat]} ({SIDE_LABELS[seat]})"
        if view["phase"] == "placement":
            return f"{who} places the Commander on a crown: {' or '.join(CROWNS)}."
        return f"{who} to move."

    @staticmethod
    def _your_turn(view: View) -> str:
        if view["phase"] == "placement":
            return (
                f"Place your Commander on a crown: {' or '.join(CROWNS)}. "
                "Then the Knights move first."
            )
        if view["summary"]["restricted"]:
            return (
                "Opening rule: move a Defender off its dot onto a square without a dot (the "
                "menu lists only those moves). Choose a piece, then where it goes."
            )
        return "Choose a piece, then where it goes."

    # -- controls --------------------------------------------------------------------------------

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        """Only what is public and takes one click: the Commander's placement and a forced pass.
        Moves take two steps, which belong in the mover's panel."""
        controls: list[Control] = []
        for index, action in enumerate(legal):
            if action["type"] == "place_commander":
                label = f"Place the Commander on {action['square']}"
                controls.append(ActionButton(label, index, Style.PRIMARY, "👑"))
            elif action["type"] == "pass":
                label = "Pass (no legal move)"
                controls.append(ActionButton(label, index, Style.PRIMARY))
        return controls

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        controls = self.table_controls(view, legal)
        movable = movable_squares(legal)
        if not movable:
            return controls
        if stage in movable:
            return [*controls, *self._destination_controls(view, legal, stage)]
        # No piece chosen (or a stale choice): the pieces that can move.
        pieces = _pieces(view)
        choices = []
        for square in movable:
            targets = destinations(pieces, legal, square)
            captures = [t["to"] for t in targets if t["captures"]]
            where = ", ".join(t["to"] for t in targets)
            count = f"{len(targets)} move{'s' if len(targets) != 1 else ''}"
            description = f"{count}: {where}"
            if captures:
                description = f"Can capture on {', '.join(captures)} · {description}"
            choices.append(
                StageChoice(
                    label=f"{PIECE_NAMES[pieces[square]]} on {square}",
                    key=square,
                    description=_clip(description),
                )
            )
        placeholder = "Choose a piece to move…"
        if view["summary"]["restricted"]:
            placeholder = "Opening rule: choose a Defender on a dot…"
        return [*controls, StageSelect(placeholder, tuple(choices))]

    @staticmethod
    def _destination_controls(view: View, legal: list[Action], square: str) -> list[Control]:
        pieces = _pieces(view)
        name = PIECE_NAMES[pieces[square]]
        by_move = {(a["from"], a["to"]): i for i, a in enumerate(legal) if a["type"] == "move"}
        choices = []
        for target in destinations(pieces, legal, square):
            to_sq = target["to"]
            taken = target["captures"]
            label = f"{to_sq} ✕ captures {TAKEN[taken]}" if taken else to_sq
            choices.append(
                ActionChoice(
                    label=label,
                    index=by_move[(square, to_sq)],
                    description=f"{target['notation']} · {KIND_WORDS[square_kind(to_sq)]} square",
                    emoji="⚔️" if taken else None,
                )
            )
        return [
            ActionSelect(f"Move the {name} on {square} to…", tuple(choices)),
            BackButton("Back to the pieces"),
        ]

    # -- words -----------------------------------------------------------------------------------

    def event_line(self, event: Event, names: list[str]) -> str | None:
        kind = event["type"]
        who = names[event["seat"]] if "seat" in event else ""
        if kind == "commander_placed":
            return f"{who} placed the Commander on **{event['square']}**."
        if kind == "moved":
            line = f"{who} played **{event['notation']}**"
            if event["captured"]:
                line += f", capturing {TAKEN[event['captured']]}"
            if event.get("restricted"):
                line += " (opening rule)"
            return line + "."
        if kind == "passed":
            return f"{who} had no legal move and passed."
        if kind == "resigned":
            return resigned_line(who, event)
        if kind == ABANDONED:
            return abandoned_line(who)
        return None  # game_ended: the result line says it

    def result_line(self, result: Result, names: list[str]) -> str:
        attacker, defender = names[ATTACKER], names[DEFENDER]
        if result.reason == "commander_captured":
            return f"🏆 {attacker}'s Knights captured the Commander: the attack wins."
        if result.reason == "knights_eliminated":
            return f"🏆 {defender}'s castle holds: all four Knights were captured."
        if result.reason == "resigned":
            winner = result.winners[0]
            return f"🏳️ {names[1 - winner]} resigned; {names[winner]} wins."
        if result.reason == ABANDONED:
            return DRAWN_ON_CLAIM
        if result.reason == "no_moves":
            return "🤝 Draw: neither side had a legal move."
        if result.reason == "repetition":
            return "🤝 Draw: the same position came up for the third time."
        if result.reason == "no_capture":
            return f"🤝 Draw: {NO_CAPTURE_LIMIT} moves in a row without a capture."
        if result.winners:
            return f"🏆 {names[result.winners[0]]} wins."
        return "🤝 The game ended in a draw."

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        decided = {
            "commander_captured": "the Commander was captured",
            "knights_eliminated": "the last Knight was captured",
            "resigned": "a resignation",
            ABANDONED: DECIDED_DRAWN,
            "no_moves": "neither side could move",
            "repetition": "the same position for the third time",
            "no_capture": f"{NO_CAPTURE_LIMIT} moves without a capture",
        }.get(result.reason, result.reason.replace("_", " "))
        pieces = _pieces(view)
        captured = view["summary"]["captured"]
        knights = sum(p == "N" for p in pieces.values())
        defenders = sum(p == "D" for p in pieces.values())
        commander = "on the board" if "C" in pieces.values() else "captured"
        return "\n".join(
            [
                self.result_line(result, names),
                f"Decided by: {decided}.",
                f"Length: {count(turns, 'turn')}.",
                f"{names[ATTACKER]} (Knights): {knights} left, {captured['knights']} captured",
                f"{names[DEFENDER]} (castle): {defenders} Defenders left, "
                f"{captured['defenders']} captured · Commander {commander}",
            ]
        )


def board_alt(
    view: View, *, flip: bool, piece: str | None = None, marked: Iterable[str] = ()
) -> str:
    """A board picture in words: from which side it is seen, where every piece stands, the
    last move and any ringed destinations (at most 1024 characters)."""
    pieces = _pieces(view)
    end = "the castle's (defender's) end" if flip else "the attacker's end"
    where = {
        kind: ", ".join(sorted(s for s, p in pieces.items() if p == kind)) or "none"
        for kind in ("N", "D", "C")
    }
    parts = [
        f"Siege (1966) board seen from {end}.",
        f"Knights on {where['N']}.",
        f"Defenders on {where['D']}.",
        f"Commander on {where['C']}." if where["C"] != "none" else "No Commander on the board.",
    ]
    moved = last_move_text(view.get("last_move"))
    if moved:
        parts.append(moved)
    squares = list(marked)
    if piece is not None and squares:
        name = PIECE_NAMES[pieces[piece]]
        parts.append(
            f"Marked (a dot on an empty square, a ring round a piece it can take): where the "
            f"{name} on {piece} can go: {', '.join(squares)}."
        )
    text = " ".join(parts)
    return fit_alt(text)


RENDERER: Renderer = KnightsRenderer()
