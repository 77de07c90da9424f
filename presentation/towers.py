"""Siege tower poker (``towers``) on Discord: the table, the private panel and the controls.

Reads only engine views (``engine.towers.Towers.view``: the public summary, whose turn it is, the
hands shown during the latest action, and a seat's own cards with its best hand now) and events.
Which buttons appear comes from the engine's legal list; the amounts on them come from the
summary (``to_call``, ``bet_size``, ``round_bets``, ``next_flip_cost``). The words for the best
hand come from :func:`engine.poker_hands.describe` of the five cards the view's ``best`` names.

The table is a picture (:mod:`presentation.towers_table`) with the same facts as text in the embed
(for screen readers and when images fail). Private cards appear only on their owner's panel, and
on the table once a show makes them public (the view's ``shows``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.rules import Action, Event, Result
from presentation import towers_words
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
from presentation.knights_board import load_font
from presentation.picture_text import picture_names, result_words, seat_names
from presentation.towers_table import NAME_W, render_table, seat_status, table_cards
from presentation.towers_words import (
    CATEGORY_WORDS,
    MODE_WORDS,
    RANK_WORDS,
    STATUS_WORDS,
    _and,
    cards_text,
    hand_name,
    hand_words,
    pretty,
)

BETTING = ("check", "bet", "call", "raise", "fold")
FLIP = ("buy_flip", "decline_flip")
LEAVE_STAGE = "leave"
FOLD_STAGE = "fold"


#: The game's names, with those its other modules hold (callers import them from here).
__all__ = [
    "BETTING",
    "CATEGORY_WORDS",
    "FLIP",
    "FOLD_STAGE",
    "LEAVE_STAGE",
    "MODE_WORDS",
    "RANK_WORDS",
    "RENDERER",
    "STATUS_WORDS",
    "TowersRenderer",
    "cards_text",
    "hand_name",
    "hand_words",
    "pretty",
]


class TowersRenderer:
    game = "towers"
    title = "Siege tower poker"
    panel_label = "My hand"
    marks_new_cards = False
    panel_pictures = False

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        seats = len(view["summary"]["chips"])
        drawn = picture_names(names, seats, load_font(22, bold=True), NAME_W)
        return render_table(view, drawn, result_words(view, drawn, self.result_line))

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        """The table picture in words: the result once over, hand, pot, towers, cards face up,
        each seat's name, chips and status, the seat to act (public facts only, as drawn)."""
        summary = view["summary"]
        sides = seat_names(names, len(summary["chips"]))
        if summary["phase"] == "over":
            parts = ["Tower poker table, game over."]
            result = result_words(view, sides, self.result_line)
            if result:
                parts.append(result)
        else:
            parts = [f"Tower poker table, hand {summary['hand_no']}, pot {summary['pot']}."]
        towers = ", ".join(str(h) for h in summary["towers"])
        parts.append(f"Cards left in the four towers: {towers}.")
        face_up, _, label = table_cards(view)
        if face_up:
            parts.append(f"{label}: {cards_text(face_up)}.")
        elif summary["phase"] == "over":
            parts.append("No card face up: the last hand ended without a show.")
        else:
            parts.append("No card face up.")
        shows = view.get("shows") or []
        shown = shows[-1]["hands"] if shows else [None] * len(summary["chips"])
        for seat, chips in enumerate(summary["chips"]):
            status = seat_status(summary, seat)
            words = f"{sides[seat]}: {chips} chips, bet {summary['round_bets'][seat]}"
            if summary["dealer"] == seat:
                words += ", dealer"
            if status:
                words += f", {status.lower()}"
            held: list[str] | None = shown[seat]
            if held:
                words += f", showed {cards_text(held)}"
            parts.append(words + ".")
        if view["to_act"] is not None:
            parts.append(f"{sides[view['to_act']]} to act.")
        text = " ".join(parts)
        return fit_alt(text)

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        return None

    def hand_words(self, view: View, name: str) -> str | None:
        hand: list[str] = view.get("hand") or []
        lines = [f"**{name}'s cards:** {cards_text(hand)}"]
        best = view.get("best")
        if best is not None and hand:
            lines.append(f"Best hand then: {hand_words(hand, best['tower'])}")
        return "\n".join(lines)

    def turn_number(self, view: View, ply: int) -> int:
        return ply_turn(view, ply)

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        summary = view["summary"]
        decided = (
            "the towers ran out, so the most chips win"
            if result.reason == "towers_exhausted"
            else "one player was left with chips"
        )
        lines = [
            self.result_line(result, names),
            f"Decided by: {decided}.",
            f"Length: {count(summary['hand_no'], 'hand')}, {count(turns, 'turn')}.",
        ]
        for seat, chips in enumerate(result.scores or summary["chips"]):
            status = " (left)" if summary["left"][seat] else ""
            lines.append(f"{names[seat]}: {chips} chips{status}")
        return "\n".join(lines)

    # -- text ------------------------------------------------------------------------------------

    @staticmethod
    def _status_line(summary: Mapping[str, Any]) -> str:
        towers = " · ".join(str(h) for h in summary["towers"])
        up = summary["face_up"]
        words = []
        for i, code in enumerate(up):
            words.append(f"hold card {pretty(code)}" if i == 0 else f"{i + 1}: {pretty(code)}")
        face = " · ".join(words) if words else "none"
        if summary["jackpot"]:
            face += " (jackpot: 2 cards of your own + 3 tower cards)"
        cost = summary["next_flip_cost"]
        flip = "no more flips this hand" if cost is None else f"next flip costs **{cost}**"
        burned = f" · burned {pretty(summary['burned'])}" if summary["burned"] else ""
        if summary["phase"] == "over":
            return f"**Game over** · towers (cards left): {towers}"
        return (
            f"**Hand {summary['hand_no']}** · pot **{summary['pot']}** · {flip}\n"
            f"Towers (cards left): {towers}\n"
            f"Face up: {face}{burned}"
        )

    @staticmethod
    def _seat_lines(view: View, names: list[str]) -> str:
        summary = view["summary"]
        lines = []
        for seat in range(len(summary["chips"])):
            marks = []
            if view["to_act"] == seat:
                marks.append("▶️")
            if summary["dealer"] == seat and summary["phase"] != "over":
                marks.append("Ⓓ")
            status = seat_status(summary, seat)
            line = (
                f"`{seat + 1}` {' '.join(marks) + ' ' if marks else ''}{names[seat]} — "
                f"**{summary['chips'][seat]}** chips · bet {summary['round_bets'][seat]} · "
                f"in pot {summary['in_pot'][seat]}"
            )
            if summary["dealer"] == seat and summary["phase"] != "over":
                line += " · dealer"
            if status:
                line += f" · **{STATUS_WORDS[status]}**"
            lines.append(line)
        return "\n".join(lines)

    @staticmethod
    def _show_lines(view: View, names: list[str]) -> list[str]:
        """The hands shown at the latest show(s), as the view gives them (all public)."""
        lines = []
        last = view["summary"]["last_hand"] or {}
        for show in view.get("shows") or []:
            lines.append(f"Hand {show['hand_no']}, tower cards up: {cards_text(show['face_up'])}")
            categories = last.get("categories") if last.get("hand_no") == show["hand_no"] else None
            for seat, hand in enumerate(show["hands"]):
                if hand is None:
                    continue
                tower = show["tower"][seat] or []
                line = f"{names[seat]}: {cards_text(hand)} + {cards_text(tower)}"
                if categories and categories[seat]:
                    line += f" — {hand_name([*hand, *tower])}"
                lines.append(line)
        return lines

    def _prompt(self, view: View, names: list[str]) -> str | None:
        summary = view["summary"]
        seat = view["to_act"]
        if seat is None:
            return None
        phase = summary["phase"]
        if phase == "betting":
            to_call = summary["to_call"]
            need = f"**{to_call}** to call" if to_call else "nothing to call"
            return f"{names[seat]} to bet: {need} (bets are {summary['bet_size']})."
        if phase == "flip_offer":
            return f"{names[seat]} may buy the next flip for **{summary['next_flip_cost']}**."
        return f"{names[seat]} chooses cards to swap for a tower joker."

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        summary = view["summary"]
        over = view["result"] is not None
        description = self._status_line(summary)
        prompt = self._prompt(view, names)
        if prompt:
            description += f"\n{prompt}"
        embed = Sheet(
            title=self.title,
            description=description,
            colour=OVER_COLOUR if over else PLAYING_COLOUR,
        )
        embed.add_field(name="Players", value=self._seat_lines(view, names), inline=False)
        shows = self._show_lines(view, names)
        if shows:
            embed.add_field(name="Shown", value="\n".join(shows)[:1024], inline=False)
        if recent:
            embed.add_field(name="Recent", value="\n".join(recent)[:1024], inline=False)
        return embed

    def panel_embed(
        self,
        view: View,
        names: list[str],
        since: Sequence[str] = (),
        new_cards: Sequence[str] = (),
    ) -> Sheet:
        summary = view["summary"]
        seat = view["seat"]
        hand = view.get("hand") or []
        best = view.get("best")
        lines = ["**Since your last turn**", since_block(since), ""] if since else []
        lines.append(f"**Your cards:** {cards_text(hand)}")
        if summary["left"][seat]:
            lines.append("You left this game; your chips are counted at the end.")
        elif summary["out"][seat]:
            lines.append("You are out of chips.")
        elif summary["folded"][seat] and view["result"] is None:
            lines.append("You folded this hand.")
        if best is not None and hand:
            lines.append(f"**Best hand now:** {hand_words(hand, best['tower'])}")
        if summary["joker_revealed"][seat]:
            lines.append("You have revealed a joker this hand.")
        lines.append(
            f"Your chips **{summary['chips'][seat]}** · your bet this round "
            f"{summary['round_bets'][seat]} · pot **{summary['pot']}**"
        )
        if view["to_act"] == seat:
            lines.append(self._your_turn(summary))
        embed = Sheet(
            title=f"Your hand — {self.title}",
            description="\n".join(lines),
            colour=OVER_COLOUR if view["result"] is not None else PLAYING_COLOUR,
        )
        embed.add_field(name="Table", value=self._status_line(summary), inline=False)
        return embed

    @staticmethod
    def _your_turn(summary: Mapping[str, Any]) -> str:
        phase = summary["phase"]
        if phase == "betting":
            to_call = summary["to_call"]
            return f"▶️ Your turn to bet: {to_call or 'nothing'} to call."
        if phase == "flip_offer":
            return f"▶️ Your turn: buy the next flip for {summary['next_flip_cost']}, or pass."
        return "▶️ Your turn: choose the cards to swap for the tower joker."

    # -- controls --------------------------------------------------------------------------------

    @staticmethod
    def _label(action: Action, summary: Mapping[str, Any], seat: int) -> str:
        kind = action["type"]
        to_call = summary["to_call"]
        chips = summary["chips"][seat]
        if kind == "check":
            return "Check"
        if kind == "bet":
            return f"Bet {summary['bet_size']}"
        if kind == "call":
            if chips <= to_call:
                return f"Call {chips} (all-in)"
            return f"Call {to_call}"
        if kind == "raise":
            return f"Raise to {summary['round_bets'][seat] + to_call + summary['bet_size']}"
        if kind == "fold":
            return "Fold"
        if kind == "buy_flip":
            return f"Buy flip — {summary['next_flip_cost']}"
        if kind == "decline_flip":
            return "No flip"
        return str(kind)

    def _buttons(self, view: View, legal: list[Action], confirm_fold: bool) -> list[Control]:
        summary = view["summary"]
        seat = view["to_act"]
        styles = {
            "check": Style.PRIMARY,
            "call": Style.PRIMARY,
            "bet": Style.SUCCESS,
            "raise": Style.SUCCESS,
            "fold": Style.SECONDARY,
            "buy_flip": Style.SUCCESS,
            "decline_flip": Style.SECONDARY,
        }
        controls: list[Control] = []
        for i, action in enumerate(legal):
            kind = action["type"]
            if kind not in BETTING and kind not in FLIP:
                continue
            if kind == "fold" and confirm_fold:
                continue
            controls.append(ActionButton(self._label(action, summary, seat), i, styles[kind]))
        return controls

    @staticmethod
    def _fold_needs_asking(legal: list[Action]) -> bool:
        """Folding needs a confirmation when checking would cost nothing."""
        kinds = {a["type"] for a in legal}
        return "fold" in kinds and "check" in kinds

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        return self._buttons(view, legal, self._fold_needs_asking(legal))

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        summary = view["summary"]
        seat = view["to_act"]
        if stage == LEAVE_STAGE:
            index = next(i for i, a in enumerate(legal) if a["type"] == "leave")
            label = f"Leave for good (keep {summary['chips'][seat]} chips)"
            return [ActionButton(label, index, Style.DANGER), BackButton()]
        if stage == FOLD_STAGE and self._fold_needs_asking(legal):
            index = next(i for i, a in enumerate(legal) if a["type"] == "fold")
            return [
                ActionButton("Fold anyway", index, Style.SECONDARY),
                BackButton("Back (check instead)"),
            ]
        confirm_fold = self._fold_needs_asking(legal)
        controls = self._buttons(view, legal, confirm_fold)
        reveal = [
            ActionChoice(f"Discard {pretty(a['discard'])} and draw", i)
            for i, a in enumerate(legal)
            if a["type"] == "reveal_joker"
        ]
        if reveal:
            controls.append(ActionSelect("Reveal a joker: discard one card…", tuple(reveal)))
        discards = [(i, a["cards"]) for i, a in enumerate(legal) if a["type"] == "discard"]
        if discards:
            # After the jackpot the discards are thrown away without a redraw.
            verb = "Throw away" if summary["jackpot"] else "Swap"
            choices = tuple(
                ActionChoice(
                    f"{verb} {_and([pretty(c) for c in cards])}" if cards else "Keep all", i
                )
                for i, cards in discards
            )
            placeholder = (
                "Choose 2 cards to throw away…" if summary["jackpot"] else "Choose cards to swap…"
            )
            controls.append(ActionSelect(placeholder, choices))
        stages = []
        if confirm_fold:
            stages.append(StageChoice("Fold (you could check for free)", FOLD_STAGE))
        if any(a["type"] == "leave" for a in legal):
            stages.append(
                StageChoice(
                    "Leave the game",
                    LEAVE_STAGE,
                    description="Fold, keep your chips, and stop playing for good",
                )
            )
        if stages:
            placeholder = "Fold or leave…" if len(stages) > 1 else "Leave the game…"
            controls.append(StageSelect(placeholder, tuple(stages)))
        return controls

    # -- words, from presentation.towers_words -----------------------------------------------------

    def event_line(self, event: Event, names: list[str]) -> str | None:
        return towers_words.event_line(event, names)

    def result_line(self, result: Result, names: list[str]) -> str:
        return towers_words.result_line(result, names)


RENDERER: Renderer = TowersRenderer()

#: The doctests of the helpers that moved beside this module run with it (``doctest.testmod``).
__test__ = {"hand_name": hand_name}
