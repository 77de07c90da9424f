"""What a newcomer reads: ``/siege help`` and the welcome posted when the bot joins a server."""

from __future__ import annotations

import logging

import discord

from engine import get_game
from presentation import playable_games

log = logging.getLogger("siege.guide")

GUIDE_COLOUR = discord.Colour(0x3B82F6)


def command_name(game_key: str) -> str:
    """A game's ``/play`` subcommand, as its declaration names it.

    >>> command_name("castles"), command_name("knights"), command_name("towers")
    ('castles-besieged', 'siege-1966', 'siege-tower-poker')
    """
    return get_game(game_key).about.command


def blurb(game_key: str) -> str:
    """The description of a game's ``/play`` subcommand."""
    game = get_game(game_key)
    return f"{game.title}: {game.about.blurb}"


def game_lines() -> str:
    return "\n".join(
        f"**{get_game(key).title}** — {get_game(key).about.blurb}: `/play {command_name(key)}`"
        for key in playable_games()
    )


def help_embed() -> discord.Embed:
    """A short, friendly guide: how to start, how to play from DMs, where the rules are."""
    embed = discord.Embed(
        title="Siege Hall — how to play",
        colour=GUIDE_COLOUR,
        description=(
            "Siege-themed tabletop games, played turn by turn right here: take your time, a "
            "game can last minutes or days.\n\n" + game_lines()
        ),
    )
    embed.add_field(
        name="Start a game",
        value=(
            "Run `/play` and pick a game: a table appears in a thread of its own (or in the "
            "channel, where the server turned game threads off) with **Join**. When everyone "
            "is in, the host presses **Start**. To play someone in particular, "
            "`/siege challenge`; to play whoever is free, `/siege seek` posts a game anyone "
            "may **Accept** in one click (`/siege seeks` lists them)."
        ),
        inline=False,
    )
    embed.add_field(
        name="Take your turn",
        value=(
            "Your cards and moves come to you by **DM**, with buttons: play from there and the "
            "table updates for everyone. DMs closed? Press the table's **My hand** (or "
            "**My moves**) button: only you see what it opens. `/siege dm off` keeps your "
            "panels out of DMs; `/siege turns` lists every game waiting for you."
        ),
        inline=False,
    )
    embed.add_field(
        name="Clocks and reminders",
        value=(
            "A table may have a clock (`time_control`): you get a reminder before time runs "
            "out, and a player who keeps missing turns forfeits. Without a clock, a game whose "
            "player to move is gone 3 days can be claimed (`/siege claim`; `draw:True` claims "
            "a draw where the game has draws). `/siege cancel` "
            "aborts a game only before everyone has moved; after that it asks the others. "
            "`/siege settings` sets your time zone and quiet hours; `/siege vacation` pauses "
            "daily clocks."
        ),
        inline=False,
    )
    embed.add_field(
        name="Rules, ratings and more",
        value=(
            "`/siege rules` shows how each game plays (add `show:True` to post them for the "
            "channel). `/siege leaderboard`, `/siege stats` and `/siege history` (with "
            "replays) keep score"
            + "".join(
                f"; `/siege daily start` is today's {get_game(key).title} challenge"
                for key in playable_games()
                if get_game(key).about.daily is not None
            )
            + ". Every deal is sealed when a game starts: `/siege verify` checks a finished "
            "game's deal against the seed it reveals."
        ),
        inline=False,
    )
    return embed


def welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """The server's system channel, when the bot may post an embed there."""
    channel = guild.system_channel
    if channel is None:
        return None
    perms = channel.permissions_for(guild.me)
    if not (perms.view_channel and perms.send_messages and perms.embed_links):
        return None
    return channel


async def welcome(guild: discord.Guild) -> bool:
    """Post the guide to a server the bot just joined; True if it was posted."""
    channel = welcome_channel(guild)
    if channel is None:
        log.info("joined guild %s: no system channel to welcome in", guild.id)
        return False
    embed = help_embed()
    embed.title = "Thanks for inviting Siege Hall!"
    try:
        await channel.send(embed=embed)
    except discord.HTTPException as exc:
        log.warning("joined guild %s: the welcome could not be posted (%s)", guild.id, exc.status)
        return False
    return True


__all__ = ["blurb", "command_name", "help_embed", "welcome", "welcome_channel"]
