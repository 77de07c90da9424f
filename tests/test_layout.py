"""``cogs.components.layout`` writes the components JSON itself (without building a discord.py
item per button): the same JSON, custom ids included, as the dynamic items laid out the
discord.py way write, for every game's table and panel controls along seeded games, and the
clicks route through the same dynamic items."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

import discord
import pytest

import engine
from cogs.components import (
    DYNAMIC_ITEMS,
    ROW_BUTTONS_MAX,
    ROWS_MAX,
    SELECT_MAX_OPTIONS,
    ActButton,
    ActSelect,
    BackToPanel,
    Rows,
    StageMenu,
    TableButton,
    _choice_value,
    _truncate,
    layout,
    link_button,
    table_button,
)
from engine.rules import Action, rng_for
from presentation import get_renderer
from presentation.base import (
    ActionButton,
    ActionSelect,
    BackButton,
    Control,
    StageChoice,
    StageSelect,
)

SEATS = {"kurth": 1, "towers": 4}


def reference(
    tid: int, ply: int, controls: Iterable[Control], extra: Iterable[discord.ui.Item[Any]]
) -> list[dict[str, Any]]:
    """The layout as it was built before: a discord.py View of the dynamic items themselves."""
    view = discord.ui.View(timeout=None)
    buttons: list[discord.ui.Item[Any]] = []
    selects: list[discord.ui.Item[Any]] = []
    n = 0
    for control in controls:
        if isinstance(control, ActionButton):
            buttons.append(ActButton(tid, ply, control))
            continue
        if isinstance(control, BackButton):
            buttons.append(BackToPanel(tid, ply, control.label))
            continue
        chunks = [
            control.choices[i : i + SELECT_MAX_OPTIONS]
            for i in range(0, len(control.choices), SELECT_MAX_OPTIONS)
        ]
        for part, chunk in enumerate(chunks, start=1):
            placeholder = control.placeholder
            if len(chunks) > 1:
                placeholder = f"{placeholder} ({part}/{len(chunks)})"
            select: discord.ui.Select[Any] = discord.ui.Select(
                placeholder=_truncate(placeholder, 150),
                options=[
                    discord.SelectOption(
                        label=_truncate(choice.label, 100),
                        value=_choice_value(choice),
                        description=_truncate(choice.description, 100)
                        if choice.description
                        else None,
                        emoji=choice.emoji,
                    )
                    for choice in chunk
                ],
            )
            menu: discord.ui.Item[Any] = (
                StageMenu(tid, ply, n, select)
                if isinstance(control, StageSelect)
                else ActSelect(tid, ply, n, select)
            )
            selects.append(menu)
            n += 1
    buttons.extend(extra)
    row = 0
    for i in range(0, len(buttons), ROW_BUTTONS_MAX):
        if row >= ROWS_MAX:
            break
        for item in buttons[i : i + ROW_BUTTONS_MAX]:
            item.row = row
            view.add_item(item)
        row += 1
    for select_item in selects:
        if row >= ROWS_MAX:
            break
        select_item.row = row
        view.add_item(select_item)
        row += 1
    return view.to_components()


def control_sets(key: str, seed: int) -> Iterator[tuple[int, list[Control]]]:
    """(ply, controls) of the table and of every seat's panel, every stage opened, along a
    seeded random game."""
    game = engine.GAMES[key]
    renderer = get_renderer(key)
    rng = random.Random(seed)
    state = game.setup(SEATS.get(key, 2), {}, rng_for(seed, "setup"))
    for ply in range(120):
        seat = game.to_act(state)
        if seat is None:
            return
        for who in range(SEATS.get(key, 2)):
            view = game.view(state, who)
            legal: list[Action] = game.legal_actions(state, who) if who == seat else []
            yield ply, renderer.table_controls(game.view(state, None), legal)
            panel = renderer.panel_controls(view, legal)
            yield ply, panel
            for control in panel:
                if isinstance(control, StageSelect):
                    for choice in control.choices:
                        assert isinstance(choice, StageChoice)
                        yield ply, renderer.panel_controls(view, legal, choice.key)
        state, _ = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)), rng)


@pytest.mark.parametrize("key", sorted(engine.GAMES))
async def test_layout_writes_what_the_dynamic_items_write(key: str) -> None:
    checked = 0
    for ply, controls in control_sets(key, seed=7):
        extra: list[discord.ui.Item[Any]] = [
            TableButton(41, "resign"),
            discord.ui.Button(label="Open the table", url="https://discord.com/channels/1/2/3"),
        ]
        made = layout(41, ply, controls, extra)
        assert isinstance(made, Rows)
        assert made.to_components() == reference(41, ply, controls, extra)
        checked += 1
    assert checked > 20


async def test_every_component_laid_out_is_routed_by_a_dynamic_item() -> None:
    controls: list[Control] = [
        ActionButton("Draw", 0),
        BackButton(),
        ActionSelect("Pick", ()),
    ]
    rows = layout(5, 9, controls, [TableButton(5, "hint")]).to_components()
    ids = [c["custom_id"] for row in rows for c in row["components"]]
    assert ids == ["sh:act:5:9:0", "sh:back:5:9", "sh:hint:5"]
    for custom_id in ids:
        assert any(
            item.__discord_ui_compiled_template__.fullmatch(custom_id) for item in DYNAMIC_ITEMS
        )


async def test_rows_are_laid_out_whole() -> None:
    rows = layout(1, 1, [ActionButton("Draw", 0)])
    with pytest.raises(TypeError):
        rows.add_item(TableButton(1, "hint"))
    # Nothing for discord.py to keep once sent: the dynamic items route the clicks.
    assert not rows.is_dispatchable()


def test_table_and_link_buttons_are_written_as_discord_py_writes_them() -> None:
    for op in TableButton.LABELS:
        for label in (None, "Play again"):
            built = TableButton(77, op, label=label)
            assert table_button(77, op, label=label) == built.to_component_dict()
            assert built.template.match(table_button(77, op, label=label)["custom_id"])
    url = "https://discord.com/channels/1/2/3"
    link: discord.ui.Button[Any] = discord.ui.Button(label="Open the table", url=url)
    assert link_button("Open the table", url) == link.to_component_dict()
    # Each message gets its own dicts: the shapes behind them are never handed out.
    first = table_button(77, "resign")
    first["custom_id"] = "changed"
    assert table_button(77, "resign")["custom_id"] == "sh:resign:77"
    view = layout(77, 3, [], [table_button(77, "resign"), TableButton(77, "hint")])
    assert [c["custom_id"] for c in view.to_components()[0]["components"]] == [
        "sh:resign:77",
        "sh:hint:77",
    ]
