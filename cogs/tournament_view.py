"""What tournaments look like on Discord: the tournament message, the standings embed, the
crosstable and the podium. Pure functions of the stored records (no requests, no database).
"""

from __future__ import annotations

from datetime import datetime

import discord

from engine import get_game
from engine.tournament import FORMATS, Standing, crosstable
from engine.tournament.plan import LEAST_PLAYERS, rank
from storage import clock
from storage.tournament_records import MatchRecord, TournamentRecord

GOLD = discord.Colour(0xD4A017)
MEDALS = ("🥇", "🥈", "🥉")
#: How many lines of standings an embed shows (the rest are summed up in one line).
STANDINGS_SHOWN = 30
#: Discord's longest message, and an embed field's longest value.
MESSAGE_MOST = 2000
FIELD_MOST = 1024
STATUS = {
    "open": "open for entries",
    "running": "running",
    "over": "over",
    "cancelled": "cancelled",
}


def when(stamp: str, style: str = "R") -> str:
    """A stored moment as Discord shows it to each reader in their own time."""
    return f"<t:{int(datetime.fromisoformat(stamp).timestamp())}:{style}>"


def title(t: TournamentRecord) -> str:
    return f"Tournament #{t.id}: {get_game(t.game).title}, {describe_format(t)}"


def describe_format(t: TournamentRecord) -> str:
    if t.format == "swiss":
        return f"Swiss, {t.rounds} round{'s' if t.rounds != 1 else ''}"
    if t.format == "tables":
        return f"table event (tables of up to {t.table_size})"
    return FORMATS[t.format]


def points(value: float) -> str:
    """Points as players write them: 2½, ½, 3.

    >>> points(2.5), points(0.5), points(3.0)
    ('2½', '½', '3')
    """
    whole, half = int(value), value - int(value) >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def info_embed(t: TournamentRecord) -> discord.Embed:
    """The tournament message: what, when, who has joined (and the Join / Leave buttons go with
    it until the start)."""
    embed = discord.Embed(title=title(t), colour=GOLD)
    lines = [
        f"Clock: {clock.describe(t.time_control)}. {'Rated' if t.rated else 'Not rated'}.",
        f"Starts {when(t.starts_at, 'F')} ({when(t.starts_at)}); "
        f"{LEAST_PLAYERS[t.format]} to {t.max_players} players.",
        f"Organised by <@{t.host_id}>. Status: {STATUS.get(t.status, t.status)}"
        + (f" (round {t.round})" if t.status == "running" and t.round else "")
        + (f": {t.ended_reason}" if t.ended_reason else "")
        + ".",
    ]
    if t.status == "open":
        lines.append("Press **Join** to play; each game opens in a thread of this channel.")
    embed.description = "\n".join(lines)
    names = ""
    for n, e in enumerate(t.entrants):
        name = f"<@{e.user_id}>" + (" (left)" if e.withdrawn else "")
        more = f" …and {len(t.entrants) - n} more"
        if len(names) + len(name) + len(more) + 1 > FIELD_MOST:
            names += more
            break
        names += (" " if names else "") + name
    embed.add_field(
        name=f"Players ({len(t.entrants)}/{t.max_players})",
        value=names or "Nobody yet.",
        inline=False,
    )
    return embed


def ranking(t: TournamentRecord, matches: list[MatchRecord]) -> list[Standing]:
    return rank(t.format, t.seeds, [m.match for m in matches])


def standings_embed(t: TournamentRecord, matches: list[MatchRecord]) -> discord.Embed:
    """The standings: one line a player, best first, with the tie-breaks."""
    lines_ = ranking(t, matches)
    embed = discord.Embed(title=f"Standings: {title(t)}", colour=GOLD)
    left = t.withdrawn
    rows = []
    for line in lines_[:STANDINGS_SHOWN]:
        mark = " (left)" if line.player in left else ""
        if t.format == "tables":
            rest = f"{line.wins} table{'s' if line.wins != 1 else ''} won"
        else:
            rest = (
                f"**{points(line.points)}** · Buchholz {points(line.buchholz)} · "
                f"S-B {line.sonneborn_berger:g} · {line.wins}W {line.draws}D {line.losses}L"
                + (f" {line.byes} bye" if line.byes else "")
            )
        rows.append(f"{line.rank}. <@{line.player}>{mark} — {rest}")
    if len(lines_) > STANDINGS_SHOWN:
        rows.append(f"…and {len(lines_) - STANDINGS_SHOWN} more.")
    played = sum(1 for m in matches if m.points is not None and len(m.players) > 1)
    state = {
        "running": f"after round {t.round - 1 if _round_open(t, matches) else t.round}",
        "over": "final",
    }.get(t.status, STATUS.get(t.status, t.status))
    embed.description = "\n".join(rows) or "No games yet."
    embed.set_footer(text=f"{state.capitalize()} · {played} game{'s' if played != 1 else ''}")
    return embed


def _round_open(t: TournamentRecord, matches: list[MatchRecord]) -> bool:
    return any(m.round == t.round and m.points is None for m in matches)


def podium(t: TournamentRecord, matches: list[MatchRecord]) -> str:
    """The end announced: the first three places (players level share a place)."""
    top = [line for line in ranking(t, matches) if line.rank <= 3]
    places = [
        f"{MEDALS[line.rank - 1]} <@{line.player}>"
        + ("" if t.format == "tables" else f" ({points(line.points)})")
        for line in top
    ]
    why = f" ({t.ended_reason})" if t.ended_reason else ""
    return f"🏆 {title(t)} is over{why}. " + ", ".join(places) + "."


def crosstable_text(t: TournamentRecord, matches: list[MatchRecord]) -> list[str]:
    """The crosstable, as messages that each fit Discord's 2,000 characters, numbered by final
    rank: a round robin's grid (each player's result against each other: 1, ½, 0; a double
    round robin shows both games); a Swiss's rounds (per player and round: the opponent's
    number, the seat, ``w``/``b`` for first/second, and the result; ``bye``); a table event's
    tables, round by round, with who went on."""
    order = [line.player for line in ranking(t, matches)]
    number = {player: n for n, player in enumerate(order, start=1)}
    if t.format == "tables":
        rows = []
        for match in matches:
            seats = ", ".join(f"#{number[p]}" for p in match.players)
            winners = [p for p in match.players if match.match.points_of(p) > 0]
            rows.append(
                f"R{match.round} T{match.board}: {seats}"
                + (f" → #{', #'.join(str(number[w]) for w in winners)}" if winners else "")
            )
    elif t.format == "swiss":
        rounds: dict[int, list[str]] = {p: [] for p in order}
        for match in matches:
            for seat, player in enumerate(match.players):
                if match.match.is_bye:
                    cell = f"bye{points(match.match.points_of(player))}"
                else:
                    other = match.players[1 - seat]
                    cell = (
                        f"{number[other]}{'wb'[seat]}"
                        f"{points(match.match.points_of(player)) if match.points else '·'}"
                    )
                rounds[player].append(f"{cell:>6}")
        total = {line.player: line.points for line in ranking(t, matches)}
        rows = [f"{number[p]:>2} {points(total[p]):>3} |" + "".join(rounds[p]) for p in order]
    else:
        cross = crosstable([m.match for m in matches])
        rows = ["   " + " ".join(f"{n:>3}" for n in range(1, len(order) + 1))]
        for a in order:
            cells = []
            for b in order:
                if a == b:
                    cells.append("  ■")
                else:
                    games = cross.get((a, b), [])
                    cells.append(f"{''.join(points(g) for g in games) or '·':>3}")
            rows.append(f"{number[a]:>2} " + " ".join(cells))
    names = [f"{number[p]}. <@{p}>" for p in order]
    return _messages(f"Crosstable of tournament #{t.id}:", rows, names)


def _messages(heading: str, rows: list[str], names: list[str]) -> list[str]:
    """Rows in code blocks, then the names, cut into messages of at most
    :data:`MESSAGE_MOST` characters."""
    messages: list[str] = []
    block = heading + "\n```\n"
    for row in rows:
        if len(block) + len(row) + 5 > MESSAGE_MOST:
            messages.append(block + "```")
            block = "```\n"
        block += row + "\n"
    current = block + "```"
    for name in names:
        if len(current) + len(name) + 2 > MESSAGE_MOST:
            messages.append(current)
            current = ""
        current += (", " if current and not current.endswith("```") else "\n") + name
    messages.append(current.strip())
    return messages


__all__ = [
    "crosstable_text",
    "describe_format",
    "info_embed",
    "podium",
    "points",
    "standings_embed",
    "title",
    "when",
]
