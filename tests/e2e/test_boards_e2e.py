"""Leaderboards, stats, history and replays end to end: two finished games, then every board
command through the fake Discord, as the server's members would use them."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from storage import TableError
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, open_game, refusal
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


async def resigned_game(w: World, loser_is_bob: bool = True) -> int:
    """A castles game Alice opens; a few moves, then one of the two resigns. Its table id."""
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, "Draw (38 left)")
    await w.fake.settle()
    loser = w.bob if loser_is_bob else w.alice
    handle = await loser.click(dm_panel(w, loser, table), "Resign")
    assert handle.response_message is not None  # the confirmation, only the loser sees it
    await loser.click(handle.response_message, "Yes, resign")
    await w.fake.settle()
    over = await w.table_by_id(table.id)
    assert over.status == "over"
    return over.id


async def test_two_games_then_the_boards(world: World) -> None:
    w = world
    first = await resigned_game(w)
    await resigned_game(w)

    # The leaderboard: Alice on top with two wins, names as stored, paging buttons.
    handle = await w.carol.slash(w.channel, "siege leaderboard", game="castles")
    board = handle.response_message
    assert board is not None and not handle.ephemeral
    text = board.text()
    assert "leaderboard" in text and "season" in text
    lines = [line for line in text.splitlines() if line.startswith("**")]
    assert lines[0].startswith("**1.** alice") and "2 games, 2 won" in lines[0]
    assert lines[1].startswith("**2.** bob") and "2 games, 0 won" in lines[1]
    assert "No rated game on this board yet." in text  # Carol has not played
    assert [b.disabled for b in board.buttons()] == [True, True]  # one page only
    all_time = await w.alice.slash(w.channel, "siege leaderboard", game="castles", season="all")
    assert all_time.response_message is not None
    assert "all time" in all_time.response_message.text()
    bad = await w.alice.slash(w.channel, "siege leaderboard", game="castles", season="soon")
    assert "2026-11" in refusal(bad) or "like" in refusal(bad)

    # Stats: figures in text and the chart as an attachment.
    handle = await w.carol.slash(w.channel, "siege stats", user=w.bob)
    stats = handle.response_message
    assert stats is not None
    assert "2 games: 0 won, 2 lost, 0 drawn" in stats.text()
    assert [a.filename for a in stats.attachments] == ["stats-castles.png"]
    assert stats.attachments[0].data.startswith(b"\x89PNG")
    alt = stats.attachments[0].description or ""  # the chart in words, with its dates
    assert alt.startswith("Castles Besieged: rating after each of 2 rated games, ") and "to" in alt
    assert "Trend over the last 1 game:" in stats.text()  # not "1 games"
    nothing = await w.carol.slash(w.channel, "siege stats")
    assert "no rated game" in refusal(nothing)

    # History, with a replay that steps to the end and shows what was hidden.
    handle = await w.bob.slash(w.channel, "siege history")
    history = handle.response_message
    assert history is not None
    assert history.text().count("**Lost** vs alice") == 2 and "resigned" in history.text()
    opened = await w.bob.click(history, f"Replay #{first}")
    replay = opened.response_message
    assert replay is not None and opened.ephemeral
    assert f"Replay of table #{first} — move 0 of 1" in replay.text()  # then a resignation
    assert "alice's hand" in replay.text() and "bob's hand" in replay.text()
    stepped = await w.bob.click(replay, "⏭")
    await w.fake.settle()
    final = w.fake.latest(replay)
    assert "the end, after 1 move" in final.text()
    assert stepped is not None

    # The export is a script the engine plays again (the resignation is a table action).
    exported = await w.bob.click(final, "Export script")
    assert exported.response_message is not None and exported.ephemeral
    (attachment,) = exported.response_message.attachments
    script = json.loads(attachment.data)
    assert script["game"] == "castles" and len(script["actions"]) == 1
    table = await w.table_by_id(first)
    run = subprocess.run(
        [sys.executable, "-m", "engine.script", "-"],
        input=attachment.data.decode(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert all(step["ok"] for step in json.loads(run.stdout)["steps"])
    assert table.state is not None


async def test_a_running_game_cannot_be_replayed_and_recompute_is_for_managers(
    world: World,
) -> None:
    w = world
    finished = await resigned_game(w)
    table, _ = await open_game(w, dealer=DEALER_BOB)
    handle = await w.alice.slash(w.channel, "siege history")
    assert handle.response_message is not None
    replay = await w.alice.click(handle.response_message, f"Replay #{finished}")
    assert replay.response_message is not None
    # A running game keeps its secrets: no replay, whoever asks (what a forged button would do).
    asker = SimpleNamespace(guild_id=w.guild.id)
    with pytest.raises(TableError, match="running game"):
        await w.running.boards.replay(asker, table.id, 0)  # type: ignore[arg-type]
    with pytest.raises(TableError, match="not one of this server's"):
        await w.running.boards.replay(SimpleNamespace(guild_id=1), finished, 0)  # type: ignore[arg-type]
    refused = await w.alice.slash(w.channel, "siege recompute")
    assert "server manager" in refusal(refused)
    done = await w.mod.slash(w.channel, "siege recompute")
    assert done.response_message is not None
    assert "from 1 rated games" in (done.response_message.content or "")
