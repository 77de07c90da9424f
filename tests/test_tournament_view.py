"""The tournament message, standings and crosstable stay within Discord's limits however many
players there are, and read as players write results (½, byes, seats)."""

from __future__ import annotations

from cogs.tournament_view import FIELD_MOST, MESSAGE_MOST, crosstable_text, info_embed
from engine.tournament import Entrant, Match, plan
from storage.tournament_records import EntrantRecord, MatchRecord, TournamentRecord

START = "2026-11-25T10:00:00+00:00"


def tournament(fmt: str, players: int, status: str = "over") -> TournamentRecord:
    return TournamentRecord(
        id=7,
        guild_id=1,
        channel_id=2,
        host_id=3,
        game="castles",
        format=fmt,  # type: ignore[arg-type]
        rounds=5 if fmt == "swiss" else None,
        time_control="live:5",
        starts_at=START,
        max_players=64,
        rated=True,
        status=status,
        round=5,
        version=1,
        message_id=None,
        standings_message_id=None,
        ended_reason=None,
        entrants=tuple(EntrantRecord(10**17 + n, 2000.0 - n, False) for n in range(1, players + 1)),
    )


def swiss_played(t: TournamentRecord, rounds: int) -> list[MatchRecord]:
    """``rounds`` of a Swiss in which the first seat always wins (byes score a point)."""
    seeds = [Entrant(e.user_id, e.rating) for e in t.entrants]
    played: list[Match] = []
    for r in range(1, rounds + 1):
        for m in plan.next_round("swiss", seeds, played, r, rounds=rounds):
            played.append(m if m.is_over else Match(r, m.players, (1.0, 0.0)))
    return [
        MatchRecord(n, m.round, n, m.players, m.points, None, None, None, None)
        for n, m in enumerate(played)
    ]


def test_a_big_swiss_crosstable_is_cut_into_messages_that_fit() -> None:
    t = tournament("swiss", 63)
    messages = crosstable_text(t, swiss_played(t, 5))
    assert len(messages) > 1 and all(len(m) <= MESSAGE_MOST for m in messages)
    text = "\n".join(messages)
    assert "bye1" in text and text.count("<@") == 63
    assert all(m.count("```") % 2 == 0 for m in messages)  # every code block closed


def test_the_player_list_fits_an_embed_field() -> None:
    embed = info_embed(tournament("swiss", 64, status="open"))
    field = embed.fields[0]
    assert field.name == "Players (64/64)"
    assert field.value is not None and len(field.value) <= FIELD_MOST and "more" in field.value


def test_a_small_round_robin_grid() -> None:
    t = tournament("robin", 3)
    a, b, c = (e.user_id for e in t.entrants)
    games = [
        MatchRecord(1, 1, 1, (a, b), (0.5, 0.5), None, None, None, None),
        MatchRecord(2, 2, 1, (c, a), (0.0, 1.0), None, None, None, None),
        MatchRecord(3, 3, 1, (b, c), (1.0, 0.0), None, None, None, None),
    ]
    (message,) = crosstable_text(t, games)
    grid = message.split("```")[1].strip().splitlines()
    assert grid[1].split() == ["1", "■", "½", "1"]  # a: 1½, first on Buchholz/S-B
    assert grid[3].split() == ["3", "0", "0", "■"]
