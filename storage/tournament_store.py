"""The store's side of tournaments: each method one transaction of :mod:`storage.tournaments`.

A withdrawal and the resignation of the game the player was in commit together; a push
(:meth:`Tournaments.push_tournament`) settles cancelled tables and advances the tournament in
one transaction, so whichever of two racing pushes comes second finds nothing to do.
"""

from __future__ import annotations

import random

from storage import tournaments
from storage.base import StoreBase
from storage.database import Connection
from storage.playing import apply_action
from storage.records import RESIGN, TableRecord
from storage.shards import Shards
from storage.tournament_records import MatchRecord, TournamentPlan, TournamentRecord
from storage.tournaments import Advance


class Tournaments(StoreBase):
    """Tournaments: creating, joining and leaving, rounds, and the tables of their matches."""

    async def create_tournament(self, plan: TournamentPlan) -> TournamentRecord:
        moment = self._moment()

        def run(conn: Connection) -> TournamentRecord:
            return tournaments.create(conn, plan, moment)

        return await self._write(run)

    async def get_tournament(self, tid: int) -> TournamentRecord | None:
        return await self._read(lambda conn: tournaments.load(conn, tid))

    async def tournament_matches(self, tid: int) -> list[MatchRecord]:
        return await self._read(lambda conn: tournaments.matches(conn, tid))

    async def tournaments_of(self, guild_id: int, limit: int = 10) -> list[TournamentRecord]:
        return await self._read(lambda conn: tournaments.of_guild(conn, guild_id, limit))

    async def tournament_of_table(self, table_id: int) -> int | None:
        return await self._read(lambda conn: tournaments.of_table(conn, table_id))

    async def join_tournament(self, tid: int, user_id: int) -> TournamentRecord:
        moment = self._moment()
        return await self._write(lambda conn: tournaments.join(conn, tid, user_id, moment))

    async def leave_tournament(
        self, tid: int, user_id: int
    ) -> tuple[TournamentRecord, list[TableRecord]]:
        """Leave (before the start) or withdraw (after it); the game the player is in is
        resigned in the same transaction. Returns the tournament and the tables resigned."""
        moment = self._moment()

        def run(conn: Connection) -> tuple[TournamentRecord, list[TableRecord]]:
            _, playing = tournaments.leave(conn, tid, user_id, moment)
            resigned = [apply_action(conn, t, user_id, RESIGN, None, moment)[0] for t in playing]
            return tournaments.require(conn, tid), resigned

        return await self._write(run)

    async def withdraw_member(
        self, guild_id: int, user_id: int
    ) -> list[tuple[TournamentRecord, list[TableRecord]]]:
        """A member left the server: they leave every tournament of it they were in."""
        ids = await self._read(lambda conn: tournaments.withdrawals_of(conn, guild_id, user_id))
        return [await self.leave_tournament(tid, user_id) for tid in ids]

    async def push_tournament(self, tid: int) -> Advance | None:
        """Start, advance or end a tournament if it is due (exactly once under races)."""
        moment = self._moment()

        def run(conn: Connection) -> Advance | None:
            tournaments.settle_cancelled(conn, tid)
            return tournaments.advance(conn, tid, moment)

        return await self._write(run)

    async def seat_match(self, match_id: int, thread_id: int) -> TableRecord | None:
        """Open a match's table in its thread (``None``: it has one already)."""
        moment, seed = self._moment(), random.SystemRandom().randrange(2**62)
        return await self._write(
            lambda conn: tournaments.seat(conn, match_id, thread_id, seed, moment)
        )

    async def tournaments_due(self, limit: int = 50, *, shards: Shards | None = None) -> list[int]:
        """The tournaments a push may have work for (with ``shards``: of those shards' servers)."""
        moment = self._moment()
        return await self._read(lambda conn: tournaments.due(conn, moment, limit, shards))

    async def set_tournament_message(
        self, tid: int, message_id: int | None, *, standings: bool = False
    ) -> None:
        column = "standings_message_id" if standings else "message_id"
        await self._write(lambda conn: tournaments.set_message(conn, tid, column, message_id))


__all__ = ["Tournaments"]
