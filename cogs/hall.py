"""The hall: the thin wiring of the flows that answer clicks and commands, for every game alike.

Each flow lives in a module of its own and is handed exactly what it uses (see
:mod:`cogs.flow` for the interfaces between them): the table message (:mod:`cogs.table_view`),
the lobby (:mod:`cogs.lobby`), moves and stages (:mod:`cogs.moves`), panels and DM delivery
(:mod:`cogs.panels`), turn pings and DMs (:mod:`cogs.notices`), endings, resign and rematch
(:mod:`cogs.endings`), challenges and rematch offers (:mod:`cogs.offers`), open challenges
(:mod:`cogs.seeks`), aborts, agreed ends, moderators' cancels and claims (:mod:`cogs.closing`).
The hall builds them
and keeps the names the bot, the other cogs and the components call: each is the flow's own
bound method, so a click costs no extra call for passing through here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import discord

from cogs.closing import Closing
from cogs.deadline import Deadline
from cogs.delivery import Delivery
from cogs.dm_channels import DmChannels
from cogs.endings import Endings
from cogs.flow import Guard, Hooks, Locks, Parts, Thinking, mention, turn_passed_to
from cogs.lobby import Lobby
from cogs.moves import Moves
from cogs.notices import Notices
from cogs.offers import Offers
from cogs.panels import Panels
from cogs.pictures import Pictures
from cogs.seeks import Seeks
from cogs.table_view import TableView
from cogs.threads import Threads
from cogs.tournaments import Tournaments
from storage import Store

if TYPE_CHECKING:
    from cogs.metrics import Metrics

RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"


class Hall:
    def __init__(
        self,
        client: discord.Client,
        store: Store,
        *,
        picture_processes: int = 0,
        deadline: Deadline | None = None,
    ) -> None:
        self.client = client
        self.store = store
        #: Every guarded flow answered or deferred within its budget.
        self.deadline = deadline or Deadline()
        #: What each message shows and which interactions reach it (fewer requests per move).
        self.delivery = Delivery()
        #: Pictures drawn in worker processes (or a thread), kept by what they show.
        self.pictures = Pictures(processes=picture_processes)
        self._rules: dict[str, str] = {}
        self.hooks = Hooks()
        self.locks = Locks()
        self.guard = guard = Guard(store, self.deadline, self.hooks)
        #: Game threads: where a new table opens, and archived once its game is over.
        self.threads = threads = Threads(client, store)
        #: Each player's DM channel, by id: a DM goes out without asking Discord for it.
        self.dms = dms = DmChannels(client)
        self.panels = panels = Panels(
            client, store, self.delivery, self.pictures, self.locks, guard, dms
        )
        self.tables = tables = TableView(
            client, store, self.delivery, self.pictures, self.locks, panels, threads
        )
        self.notices = notices = Notices(client, store, self.delivery, dms)
        self.lobby = lobby = Lobby(
            client, store, self.delivery, guard, self.hooks, tables, panels, notices, threads
        )
        self.offers = Offers(client, store, guard, lobby, tables, panels, notices)
        self.seeks = self.hooks.seeks = Seeks(client, store, guard, tables, self.offers, notices)
        self.endings = endings = Endings(client, store, guard, tables, panels, notices, self.offers)
        self.moves = moves = Moves(
            store, self.delivery, guard, self.hooks, tables, panels, notices, endings
        )
        #: What follows a move's answer, queued behind the answers (one redraw per table).
        self.redraws = moves.redraws
        #: Aborts, agreed ends, moderators' cancels and claims.
        self.closing = closing = Closing(client, store, guard, moves)
        self.tournaments = Tournaments(client, store, guard, self.offers, notices, moves)
        self.hooks.tournaments = self.tournaments

        # The names the bot, the cogs, the components and the tests call.
        self.guarded = guard.guarded
        self.refuse = guard.refuse
        self.remember = guard.remember
        self.after_commit = guard.after_commit
        self.committed = self.hooks.committed
        self.table_parts = tables.table_parts
        self.refresh_table = tables.refresh_table
        self.channel_gone = tables.channel_gone
        self.panel_parts = panels.panel_parts
        self.refresh_panels = panels.refresh_panels
        self.set_dms = panels.set_dms
        self.on_hand = panels.on_hand
        self.dm = notices.dm
        self.dm_message = notices.dm_message
        self.turn_ping = notices.turn_ping
        self.open_table = lobby.open_table
        self.post_new_table = lobby.post_new_table
        self.post_table = lobby.post_table
        self.on_lobby = lobby.on_lobby
        self.cancel_in_channel = closing.cancel_in_channel
        self.claim_in_channel = closing.claim_in_channel
        self.on_claim = closing.on_claim
        self.on_claim_draw = closing.on_claim_draw
        self.on_cancel_confirmed = closing.on_cancel_confirmed
        self.repost_table = lobby.repost_table
        self.on_act = moves.on_act
        self.on_stage = moves.on_stage
        self.on_hint = moves.on_hint
        self.redraw_after = moves.redraw_after
        self.announce_end = endings.announce_end
        self.on_resign = endings.on_resign
        self.on_resign_confirmed = endings.on_resign_confirmed
        self.on_rematch = endings.on_rematch

    turn_passed_to = staticmethod(turn_passed_to)

    @property
    def computers(self) -> Thinking | None:
        """Takes the computer seats' turns (set by the bot; None: no computer ever moves)."""
        return self.hooks.computers

    @computers.setter
    def computers(self, computers: Thinking | None) -> None:
        self.hooks.computers = computers

    @property
    def metrics(self) -> Metrics | None:
        """Counts the moves (set by the bot when ``METRICS_PORT`` is set)."""
        return self.hooks.metrics

    @metrics.setter
    def metrics(self, metrics: Metrics | None) -> None:
        self.hooks.metrics = metrics

    def summary(self) -> str:
        """What this hall has sent and drawn since it started, in one line (logged at close)."""
        counts = self.delivery.counts
        return (
            f"pictures drawn {self.pictures.drawn}, reused {self.pictures.reused}; requests "
            f"through a click's webhook {counts['webhook']}, through the channel routes "
            f"{counts['route']}; edits left out as unchanged {counts['unchanged']}; clicks on a "
            f"message replaced meanwhile {counts['replaced']}; interactions answered "
            f"{self.deadline.counts['answered']}, deferred {self.deadline.counts['deferred']}; "
            f"redraws merged {self.redraws.merged}; flows that waited their turn "
            f"{self.guard.queued}"
        )

    async def rules_text(self, game_key: str) -> str:
        """The rules text, read once (in a worker thread: file reads stay off the event loop)."""
        text = self._rules.get(game_key)
        if text is None:
            path = RULES_DIR / f"{game_key}.md"
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
            self._rules[game_key] = text
        return text


__all__ = ["Hall", "Parts", "mention"]
