"""The sweeper: one periodic task that acts on what the clocks say is due.

Deadlines live in the database (see :mod:`storage.clock`); this only asks the store what is due
and tells people what happened. A timeout goes through the same transaction and ply check as a
click (:meth:`storage.Store.time_out`), so a click and a timeout at the same instant apply
exactly once, also across processes. A process serving some of Discord's shards
(``SHARD_IDS``) sweeps only the tables of its own servers, and only the one serving shard 0
(where DMs arrive) sends the daily digests, so no notice is told twice. At start-up every
deadline is shifted by the time the bot was down, so nobody loses on time because the bot was
offline. Tests call :meth:`sweep` directly after moving their clock; nothing here reads the wall
clock.
"""

from __future__ import annotations

import contextlib
import logging
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord
from discord.ext import tasks

from cogs.flow import USER_MENTIONS, Sweeping, jump_url, mention
from presentation import get_renderer
from storage import StorageUnavailable, Store, TableRecord, Timeout, computers
from storage.shards import Shards

if TYPE_CHECKING:
    from cogs.metrics import Metrics

log = logging.getLogger("siege.clock")

SWEEP_EVERY = timedelta(seconds=30)


def when(stamp: str) -> str:
    """A stored moment as Discord shows it to each reader in their own time ("in 3 hours")."""
    return f"<t:{int(datetime.fromisoformat(stamp).timestamp())}:R>"


class Clockwork:
    def __init__(
        self, client: discord.Client, hall: Sweeping, store: Store, shards: Shards | None = None
    ) -> None:
        self.client = client
        self.hall = hall
        self.store = store
        #: The shards this process serves (``None``: every one, in one process).
        self.shards = shards
        #: Where the sweeper's lateness is measured (set by the bot when metrics are on).
        self.metrics: Metrics | None = None
        self.loop = tasks.loop(seconds=SWEEP_EVERY.total_seconds())(self._sweep_on)

    async def start(self) -> None:
        """Catch up on the time the bot was down, then sweep every :data:`SWEEP_EVERY`."""
        shift = await self.store.catch_up(SWEEP_EVERY)
        if shift:
            log.info("deadlines shifted by %s for the time the bot was down", shift)
        self.loop.start()

    def stop(self) -> None:
        self.loop.cancel()

    def _late(self, kind: str, due_at: str | None) -> None:
        """Tell the metrics how late the sweeper acted on an item due at ``due_at``."""
        if self.metrics is not None and due_at is not None:
            late = self.store.now() - datetime.fromisoformat(due_at)
            self.metrics.swept_late(kind, late.total_seconds())

    async def _sweep_on(self) -> None:
        """A sweep; one that meets the database unavailable (logged once per outage by the
        store) waits for the next, instead of stopping the loop."""
        with contextlib.suppress(StorageUnavailable):
            await self.sweep()

    async def sweep(self) -> int:
        """Act on every missed deadline, due reminder, expired offer and closed seek, and delete
        the data of the servers the bot left whose time is up; returns how many were handled."""
        started = time.perf_counter()  # a duration for the metrics, not the time of day
        await self.store.heartbeat()
        handled = 0
        for table_id, ply in await self.store.due(shards=self.shards):
            try:
                outcome = await self.store.time_out(table_id, ply)
            except Exception:
                log.exception("table %s: the timeout at ply %s failed", table_id, ply)
                continue
            if outcome is not None:
                handled += 1
                self._late("deadline", outcome.missed)
                await self.announce(outcome)
        for table in await self.store.reminders_due(shards=self.shards):
            seat = table.engine.to_act(table.running_state())
            if seat is None:
                continue
            settings = await self.store.settings(table.seats[seat])
            # Quiet hours delay the reminder (a later sweep sends it); a game without a clock's
            # "reminder" tells the others they may claim it, and their quiet is not the absent's.
            if table.deadline is not None and settings.is_quiet(self.store.now()):
                continue
            if await self.store.mark_reminded(table.id, table.ply):
                handled += 1
                self._late("reminder", table.remind_at)
                await self.remind(table)
        for offer in await self.store.expire_offers(shards=self.shards):
            handled += 1
            self._late("offer", offer.expires_at)
            await self.hall.offers.expired(offer)
        for cancel in await self.store.expire_cancel_offers(shards=self.shards):
            handled += 1
            self._late("offer", cancel.expires_at)
            await self.hall.closing.expired(cancel)
        handled += await self.hall.seeks.sweep(self.shards)
        digests = self.shards is None or self.shards.has_dms
        for user_id in await self.store.digests_due() if digests else []:
            if await self.store.digest_sent(user_id):
                handled += 1
                await self.digest(user_id)
        for guild_id in await self.store.delete_departed():  # servers the bot left long ago
            handled += 1
            log.info("deleted the data of server %s, which the bot left", guild_id)
        # Tournaments due: a start time come, a round over, a table to open (after a restart).
        handled += await self.hall.tournaments.sweep(self.shards)
        if self.hall.computers is not None:  # a computer turn a restart interrupted
            handled += await self.hall.computers.resume()
        if self.metrics is not None:
            self.metrics.swept(time.perf_counter() - started)
        return handled

    async def digest(self, user_id: int) -> None:
        """The opt-in daily DM: the games waiting for this player (none waiting, no DM)."""
        if not await self.store.turns_of(user_id):
            return
        embed = await self.turns(user_id)
        embed.title = "Your daily digest: games waiting for your move"
        if await self.hall.dm_message(user_id, embed=embed) is None:
            log.info("the daily digest could not be sent to a player")

    async def turns(self, user_id: int) -> discord.Embed:
        """``/siege turns``: every game in every server where it is this user's turn, the most
        urgent first, with the time left and a link."""
        tables = await self.store.turns_of(user_id)
        embed = discord.Embed(title="Your turn", colour=discord.Colour(0xD4A017))
        if not tables:
            embed.description = "No game is waiting for your move."
            return embed
        lines = []
        for table in tables[:20]:
            guild = self.client.get_guild(table.guild_id) if table.guild_id else None
            place = guild.name if guild is not None else "a server"
            due = f"due {when(table.deadline)}" if table.deadline else "no clock"
            link = self.where(table)
            lines.append(
                f"**{table.engine.title}** · table #{table.id} in {place} · {due}"
                + (f" · [open]({link})" if link else "")
            )
        if len(tables) > 20:
            lines.append(f"…and {len(tables) - 20} more.")
        embed.description = "\n".join(lines)
        return embed

    # -- telling people ------------------------------------------------------------------------

    async def announce(self, outcome: Timeout) -> None:
        """Say in the channel (and to the player) what a missed deadline did, then bring the
        table and panels up to date."""
        table = outcome.table
        title = table.engine.title
        if outcome.rung == "lobby_expired":
            text = (
                f"The {title} lobby (table #{table.id}) closed: nobody started it within a day. "
                "The channel is free for a new table."
            )
        else:
            assert outcome.user_id is not None
            names = [mention(uid) for uid in table.seats]
            renderer = get_renderer(table.game)
            done = "; ".join(
                line.rstrip(".") for e in outcome.events if (line := renderer.event_line(e, names))
            )
            if outcome.rung == "auto_move":
                left = table.forfeit_after - outcome.misses
                text = (
                    f"⏰ {mention(outcome.user_id)} ran out of time at table #{table.id}, so "
                    f"an automatic move was played for them: {done or 'done'}. "
                    f"{left} more missed move{'s' if left != 1 else ''} forfeits the game."
                )
            else:
                missed = (
                    "missed their move"
                    if outcome.misses == 1
                    else f"missed {outcome.misses} moves in a row"
                )
                text = f"⏰ {mention(outcome.user_id)} {missed} at table #{table.id} and forfeits."
        await self.say(table, text)
        if outcome.user_id is not None:
            await self.tell(outcome.user_id, f"{text}\n{self.where(table)}")
        await self.hall.redraw_after(table, outcome.user_id)

    async def remind(self, table: TableRecord) -> None:
        """80 % of the move's time is used: a new DM (Discord notifies on new messages only),
        or a mention in the channel when the player takes no DMs. In a game without a clock this
        moment is the one the others may claim it (:meth:`cogs.closing.Closing.claimable`)."""
        seat = table.engine.to_act(table.running_state())
        if seat is None:
            return
        if table.deadline is None:  # no clock: the others may now claim the game
            await self.hall.closing.claimable(table)
            return
        user = table.seats[seat]
        if computers.is_computer(user):
            self.hall.committed(table)  # a computer needs no reminder, only its turn
            return
        text = (
            f"⏳ Your move at table #{table.id} ({table.engine.title}) is due "
            f"{when(table.deadline)}. After that an automatic move is played for you, or you "
            "forfeit."
        )
        if await self.store.dm_mode(user) == "on" and await self.tell(
            user, f"{text}\n{self.where(table)}"
        ):
            return
        await self.say(table, f"{mention(user)} {text}")

    @staticmethod
    def where(table: TableRecord) -> str:
        return jump_url(table) or ""

    async def say(self, table: TableRecord, text: str) -> None:
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        try:
            await channel.send(text, allowed_mentions=USER_MENTIONS)
        except discord.HTTPException:
            log.warning("table %s: could not post a clock notice", table.id)

    async def tell(self, user_id: int, text: str) -> bool:
        """A DM; ``False`` if it could not be sent (closed DMs are remembered as such)."""
        return await self.hall.dm(user_id, text)


__all__ = ["SWEEP_EVERY", "Clockwork"]
