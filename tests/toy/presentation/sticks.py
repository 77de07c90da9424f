"""Siege Sticks in words: no picture, a button per choice."""

from __future__ import annotations

from collections.abc import Sequence

from engine.rules import Action, Event, Result
from presentation.base import ActionButton, Control, Sheet, View, ply_turn


class SticksRenderer:
    game = "sticks"
    title = "Siege Sticks"
    panel_label = "My moves"
    marks_new_cards = False
    panel_pictures = False

    def hand_words(self, view: View, name: str) -> str | None:
        return None

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        return None

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        return f"{view['stones']} stones before the gate"

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        lines = [f"🪨 **{view['stones']}** stones before the gate.", *recent]
        return Sheet(title=self.title, description="\n".join(lines))

    def panel_embed(
        self, view: View, names: list[str], since: Sequence[str] = (), new: Sequence[str] = ()
    ) -> Sheet:
        return Sheet(title=f"{self.title}: your move", description="\n".join(since))

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        return None

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        return [ActionButton(label=f"Take {a['n']}", index=i) for i, a in enumerate(legal)]

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        return self.table_controls(view, legal)

    def event_line(self, event: Event, names: list[str]) -> str | None:
        if event["type"] != "taken":
            return None
        return f"{names[event['seat']]} took {event['n']}; {event['left']} left."

    def result_line(self, result: Result, names: list[str]) -> str:
        return f"🏰 {names[result.winners[0]]} took the gate."

    def turn_number(self, view: View, ply: int) -> int:
        return ply_turn(view, ply)

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        return f"{self.result_line(result, names)} ({turns} turns)"


RENDERER = SticksRenderer()
