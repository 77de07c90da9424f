"""``FakeDiscord``: a loopback Discord (REST + gateway) for end-to-end tests of a discord.py bot.

The real, unmodified discord.py client is pointed at it purely by configuration
(:meth:`FakeDiscord.install` sets ``discord.http.Route.BASE`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``).  The fake keeps the world (guilds,
channels, users), every message in the version a user currently sees, and a list of
*violations*: things real Discord would reject or that would break for real users (payload
limits, late or missing interaction responses, double responses, unknown routes, errors
discord.py logged).  The pytest fixture fails a test that leaves violations behind.

Timing: the only timing assumption anywhere is in :meth:`FakeDiscord.settle`, which waits until
every dispatched interaction got its initial response (or passed its deadline), no REST request
is in flight, no gateway frame is queued, and nothing happened for ``quiet_period`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import json
import logging
import re
import socket
import time
import traceback
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from types import TracebackType
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from . import light, threads
from .commands import CommandScope
from .errors import NotConnected, SettleTimeout
from .gateway import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    Gateway,
    GatewaySession,
    guild_of,
)
from .ids import SnowflakeFactory, iso_now
from .interactions import APPLICATION_COMMAND, MESSAGE_COMPONENT, Actions, InteractionRecord
from .limits import message_is_empty
from .messages import (
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    FakeAttachment,
    FakeMessage,
)
from .rest import API_PREFIX, RestApi, Upload
from .world import (
    DEFAULT_BOT_PERMISSIONS,
    DM,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
)

JSONDict = dict[str, Any]

_log = logging.getLogger(__name__)

#: GATEWAY_GUILD_MEMBERS_LIMITED | GATEWAY_MESSAGE_CONTENT_LIMITED | APPLICATION_COMMAND_BADGE
APPLICATION_FLAGS = (1 << 15) | (1 << 19) | (1 << 23)
MESSAGE_TYPE_DEFAULT = 0
MESSAGE_TYPE_REPLY = 19
MESSAGE_TYPE_CHAT_INPUT_COMMAND = 20


IDLE_POLLS = 5  # consecutive idle wake-ups settle() requires besides the quiet window


#: Names discord.py gives the tasks that run a client's handlers (views, dynamic items such as
#: every Siege Hall button, modals, slash commands, events). A flow that waits on a worker (a
#: picture being drawn, the database) between two requests is still inside one of them.
CLIENT_HANDLER_TASKS = (
    "discord-ui-view-dispatch-",
    "discord-ui-dynamic-item-",
    "discord-ui-modal-dispatch-",
    "CommandTree-invoker",
    "discord.py: on_",
)


def _client_handlers_running() -> bool:
    """Whether a discord.py client sharing this loop is still inside a handler."""
    return any(
        not task.done() and task.get_name().startswith(CLIENT_HANDLER_TASKS)
        for task in asyncio.all_tasks()
    )


class _LibraryErrorHandler(logging.Handler):
    """Turns ERROR records of the ``discord`` logger (swallowed exceptions) into violations."""

    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__(level=logging.ERROR)
        self.fake = fake

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
            where = f" at {last[0].filename}:{last[0].lineno}" if last else ""
            text += f": {type(exc).__name__}: {exc}{where}"
        self.fake.violation(f"discord.py logged an error ({record.name}): {text}")


def _command_name(data: Mapping[str, Any]) -> str:
    parts = [str(data.get("name", ""))]
    options = data.get("options") or []
    while options and options[0].get("type") in (1, 2):
        parts.append(str(options[0]["name"]))
        options = options[0].get("options") or []
    return " ".join(parts)


def _normalize_components(components: Any) -> list[JSONDict]:
    """Discord numbers every component that has no ``id`` (depth first, from 1)."""
    out = copy.deepcopy(components) if isinstance(components, list) else []
    used = {item["id"] for item in _component_dicts(out) if isinstance(item.get("id"), int)}
    counter = 0
    for item in _component_dicts(out):
        if not isinstance(item.get("id"), int):
            counter += 1
            while counter in used:
                counter += 1
            item["id"] = counter
    return out


def _component_dicts(items: list[Any]) -> Iterator[JSONDict]:
    """Every component of ``items``, depth first, each before its children. (A generator, not
    recursive closures: those are reference cycles, left for the collector, at every message.)"""
    for item in items:
        if isinstance(item, dict):
            yield item
            yield from _component_dicts(item.get("components") or [])
            for key in ("accessory", "component"):
                if isinstance(item.get(key), dict):
                    yield from _component_dicts([item[key]])


def _normalize_embeds(embeds: Any) -> list[JSONDict]:
    out: list[JSONDict] = []
    for embed in embeds or []:
        if isinstance(embed, dict):
            item = copy.deepcopy(embed)
            item.setdefault("type", "rich")
            out.append(item)
    return out


class FakeDiscord:
    """A fake Discord on 127.0.0.1.  Use ``async with FakeDiscord() as fake:`` or the
    ``fakecord`` pytest fixture; then build a world, start the bot, script users."""

    def __init__(
        self,
        *,
        bot_name: str = "Siege Hall",
        response_deadline: float = 3.0,
        quiet_period: float = 0.04,
        settle_timeout: float = 10.0,
        heartbeat_interval_ms: int = 41250,
        capture_library_errors: bool = True,
        light: bool = False,
    ) -> None:
        self.ids = SnowflakeFactory()
        #: Keep only what the fake reads later, so its heap does not grow with every click and
        #: picture (load benchmarks; see :mod:`tests.fakecord.light`). Tests keep everything.
        self.light = light
        self.application_id = self.ids.next()
        #: The bot's user; its id is the application id, as for every modern Discord app.
        self.bot_user = FakeUser(self, id=self.application_id, name=bot_name, bot=True)
        #: The application's owner (``Bot.is_owner``); not a member of any guild by default.
        self.app_owner = FakeUser(self, id=self.ids.next(), name="app-owner")
        #: Permissions of the bot's managed role in guilds created after this is set.
        self.bot_permissions = DEFAULT_BOT_PERMISSIONS
        #: Seconds the bot has for an initial interaction response (Discord: 3).
        self.response_deadline = response_deadline
        #: How long the bot must be silent for ``settle()`` to return.
        self.quiet_period = quiet_period
        self.settle_timeout = settle_timeout
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.capture_library_errors = capture_library_errors
        #: The ``shards`` ``GET /gateway/bot`` recommends (what an ``AutoShardedClient`` without
        #: a ``shard_count`` opens).
        self.recommended_shards = 1

        self.users: dict[int, FakeUser] = {
            self.bot_user.id: self.bot_user,
            self.app_owner.id: self.app_owner,
        }
        self.guilds: dict[int, FakeGuild] = {}
        #: Guilds the bot was removed from (see :meth:`remove_bot`), kept for :meth:`add_bot_back`.
        self.left_guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        #: Latest version of every message, by id.
        self.messages: dict[int, FakeMessage] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self._channel_message_ids: dict[int, list[int]] = {}
        #: Commands the bot synced globally (guild commands are on ``FakeGuild.commands``).
        self.global_commands = CommandScope(self.ids, self.application_id, None)
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self._unfinished: set[int] = set()
        #: Human-readable descriptions of everything Discord would reject or users would suffer.
        self.violations: list[str] = []
        #: ``"METHOD /path -> status"`` of recent API requests (for debugging and load tests).
        self.request_log: deque[str] = deque(maxlen=5000)
        self.request_count = 0
        #: API requests split as Discord's global rate limit sees them: interaction callbacks
        #: and interaction webhooks (follow-ups, edits of the original response) are exempt;
        #: everything else counts against the bot's ~50 requests per second.
        self.exempt_count = 0
        self.limited_count = 0
        #: 429 answers the fake gave (see :meth:`rate_limit`).
        self.rate_limited_answers = 0
        self._rate_limits: list[RateLimitRule] = []

        self.actions = Actions(self)
        self.gateway = Gateway(self)
        self.rest = RestApi(self)
        self._inflight = 0
        self._busy_checks: list[Callable[[], bool]] = []  # see busy_while
        self._last_activity = time.monotonic()
        self._activity_seq = 0  # bumped by every REST/gateway activity (see settle)
        self._runner: web.AppRunner | None = None
        self._saved_config: tuple[str, yarl.URL] | None = None
        self._log_handler: _LibraryErrorHandler | None = None
        self.http_url = ""
        self.ws_url = ""

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Starts the HTTP + websocket server on a free 127.0.0.1 port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/ws", self.gateway.handle)
        app.router.add_route("*", "/{tail:.*}", self._handle_http)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=0.5
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        self.http_url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}/ws"
        if self.capture_library_errors:
            self._log_handler = _LibraryErrorHandler(self)
            logging.getLogger("discord").addHandler(self._log_handler)

    async def stop(self) -> None:
        """Closes every socket and the server.  Unanswered interactions become violations."""
        for record in list(self.interactions.values()):
            if not record.finished:
                self.violation(f"{record.description}: still unanswered when the fake stopped")
                record.expired = True
                self.finish_interaction(record)
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._log_handler is not None:
            logging.getLogger("discord").removeHandler(self._log_handler)
            self._log_handler = None

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` is set to."""
        return self.http_url + API_PREFIX

    def install(self) -> None:
        """Points discord.py at this fake (process-wide; undo with :meth:`uninstall`)."""
        if self._saved_config is None:
            self._saved_config = (
                discord.http.Route.BASE,
                discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
            )
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.ws_url)

    def uninstall(self) -> None:
        if self._saved_config is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
                self._saved_config
            )
            self._saved_config = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[FakeDiscord]:
        self.install()
        try:
            yield self
        finally:
            self.uninstall()

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        self.install()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.uninstall()
        await self.stop()

    # -- violations -------------------------------------------------------------------------

    def violation(self, text: str) -> None:
        _log.warning("fakecord violation: %s", text)
        self.violations.append(text)

    def pop_violations(self, containing: str | None = None) -> list[str]:
        """Removes and returns the violations containing ``containing`` (all if None)."""
        taken = [v for v in self.violations if containing is None or containing in v]
        self.violations = [v for v in self.violations if v not in taken]
        return taken

    # -- world ------------------------------------------------------------------------------

    def add_user(self, name: str, *, global_name: str | None = None) -> FakeUser:
        user = FakeUser(self, id=self.ids.next(), name=name, global_name=global_name)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: FakeUser | None = None,
        system_channel: str | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A guild with the bot in it (with a managed role holding ``bot_permissions``).

        The owner has every permission; by default it is a user who is not a member. With
        ``system_channel``, a text channel of that name exists from the start and is the
        guild's system channel (where Discord posts joins, and a bot may greet). With
        ``shard=(id, count)``, the guild's id puts it on that shard of ``count``."""
        owner_id = owner.id if owner is not None else self.ids.next()
        guild_id = self.ids.next() if shard is None else self.ids.next_on_shard(*shard)
        guild = FakeGuild(self, id=guild_id, name=name, owner_id=owner_id)
        self.guilds[guild.id] = guild
        bot_role = FakeRole(
            id=self.ids.next(),
            guild_id=guild.id,
            name=self.bot_user.name,
            permissions=self.bot_permissions,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, guild, [bot_role], None)
        if owner is not None:
            guild.members[owner.id] = FakeMember(owner, guild, [], None)
        if system_channel is not None:
            guild.system_channel_id = guild.add_text_channel(system_channel).id
        # A guild the bot joins while connected: Discord's GUILD_CREATE then has no
        # "unavailable" field (discord.py tells on_guild_join from on_guild_available by it).
        joined = guild.create_payload(include_all_members=self._members_intent())
        joined.pop("unavailable", None)
        self.gateway.dispatch("GUILD_CREATE", joined)
        return guild

    def _members_intent(self) -> bool:
        active = self.gateway.active
        return active is not None and active.has_intent(INTENT_GUILD_MEMBERS)

    def register_channel(self, channel: FakeChannel) -> None:
        self.channels[channel.id] = channel
        self._channel_message_ids.setdefault(channel.id, [])
        if channel.guild is not None:
            event = "THREAD_CREATE" if channel.is_thread else "CHANNEL_CREATE"
            payload = channel.payload()
            if channel.is_thread:
                payload["newly_created"] = True
            self.gateway.dispatch(event, payload)

    def on_role_created(self, guild: FakeGuild, role: FakeRole) -> None:
        self.gateway.dispatch(
            "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()}
        )

    def on_member_added(self, guild: FakeGuild, member: FakeMember) -> None:
        self.gateway.dispatch(
            "GUILD_MEMBER_ADD",
            {**member.payload(), "guild_id": str(guild.id)},
            intent=INTENT_GUILD_MEMBERS,
        )

    def dm_channel_for(self, user: FakeUser) -> FakeChannel:
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self, id=self.ids.next(), type=DM, name=None, recipient=user)
            self.dm_channels[user.id] = channel
            self.register_channel(channel)
        return channel

    def shares_guild(self, user: FakeUser) -> bool:
        return any(user.id in g.members for g in self.guilds.values())

    def create_thread(
        self, parent: FakeChannel, name: str, kind: int, *, thread_id: int | None = None
    ) -> FakeChannel:
        assert parent.guild is not None
        thread = FakeChannel(
            self,
            id=thread_id if thread_id is not None else self.ids.next(),
            type=kind,
            name=name,
            guild=parent.guild,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
        )
        parent.guild.channels.append(thread)
        self.register_channel(thread)
        return thread

    def delete_channel(self, channel: FakeChannel, *, notify: bool = True) -> None:
        """Deletes a guild channel or thread, as a server admin would: REST calls to it get
        404 / 10003 from now on. ``notify=False`` models a deletion while the bot was offline
        (no CHANNEL_DELETE / THREAD_DELETE reaches it)."""
        assert channel.guild is not None, "only guild channels can be deleted"
        threads.delete(self, channel)
        self.channels.pop(channel.id, None)
        channel.guild.channels = [c for c in channel.guild.channels if c.id != channel.id]
        if not notify:
            return
        if channel.is_thread:
            self.gateway.dispatch(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(channel.guild.id),
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
            )
        else:
            self.gateway.dispatch("CHANNEL_DELETE", channel.payload())

    def remove_bot(self, guild: FakeGuild) -> None:
        """The bot is removed from ``guild`` (kicked, or its app removed by an admin): Discord
        sends GUILD_DELETE without ``unavailable`` (an outage sends it with ``true``), and the
        guild and its channels answer 404 until :meth:`add_bot_back`."""
        self.guilds.pop(guild.id)
        self.left_guilds[guild.id] = guild
        for channel in guild.channels:
            self.channels.pop(channel.id, None)
        self.gateway.dispatch("GUILD_DELETE", {"id": str(guild.id)})

    def add_bot_back(self, guild: FakeGuild) -> None:
        """The bot is added again to a guild it was removed from, everything in it as it was:
        GUILD_CREATE without ``unavailable``, as for any join."""
        self.guilds[guild.id] = self.left_guilds.pop(guild.id)
        for channel in guild.channels:
            self.channels[channel.id] = channel
        joined = guild.create_payload(include_all_members=self._members_intent())
        joined.pop("unavailable", None)
        self.gateway.dispatch("GUILD_CREATE", joined)

    def attach_thread(self, message: FakeMessage, thread: FakeChannel) -> None:
        self._store(
            message,
            _replace(message, thread=thread.payload(), version=message.version + 1),
            "MESSAGE_UPDATE",
        )

    # -- what users see ---------------------------------------------------------------------

    def latest(self, message: FakeMessage) -> FakeMessage:
        """The current version of ``message`` (deleted messages have ``deleted=True``)."""
        return self.messages[message.id]

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """Public, not deleted messages of ``channel``, oldest first (latest versions)."""
        return [
            m
            for m in (self.messages[i] for i in self._channel_message_ids.get(channel.id, []))
            if not m.deleted and m.ephemeral_for is None
        ]

    def visible_messages(self, channel: FakeChannel, user: FakeUser) -> list[FakeMessage]:
        return [
            m
            for m in (self.messages[i] for i in self._channel_message_ids.get(channel.id, []))
            if not m.deleted and m.ephemeral_for in (None, user.id)
        ]

    # -- gateway payloads -------------------------------------------------------------------

    def bot_self_payload(self) -> JSONDict:
        return {
            **self.bot_user.payload(),
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "email": None,
            "locale": "en-US",
        }

    def application_payload(self) -> JSONDict:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": self.app_owner.payload(),
            "team": None,
            "flags": APPLICATION_FLAGS,
            "rpc_origins": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "tags": [],
            "install_params": None,
            "integration_types_config": {"0": {}},
            "approximate_guild_count": len(self.guilds),
            "bot": self.bot_user.payload(),
        }

    def ready_payload(self, session: GatewaySession) -> JSONDict:
        return {
            "v": 10,
            "user": self.bot_self_payload(),
            "guilds": [
                {"id": str(g), "unavailable": True} for g in self.guilds if session.serves(g)
            ],
            "session_id": session.id,
            **({"shard": list(session.shard)} if session.shard != (0, 1) else {}),
            "session_type": "normal",
            "resume_gateway_url": self.ws_url,
            "application": {"id": str(self.application_id), "flags": APPLICATION_FLAGS},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fakecord"],
            "_trace": ["fakecord"],
        }

    # -- connection state -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """A bot session is connected to the gateway right now."""
        return self.gateway.connected

    async def drop_gateway(
        self, *, code: int = 4000, wait: bool = True, timeout: float = 10.0
    ) -> None:
        """Closes the bot's gateway socket (as Discord does on a server restart).

        discord.py reconnects to ``resume_gateway_url`` and RESUMEs; events dispatched meanwhile
        are replayed.  With ``wait`` this returns once the session is attached again."""
        await self.gateway.drop(code=code, wait=wait, timeout=timeout)

    # -- interactions -----------------------------------------------------------------------

    def loop_time(self) -> float:
        return asyncio.get_running_loop().time()

    def touch(self) -> None:
        self._last_activity = time.monotonic()
        self._activity_seq += 1

    def dispatch_interaction(self, record: InteractionRecord) -> None:
        session = self.gateway.session_for(guild_of("INTERACTION_CREATE", record.payload))
        if session is None:
            raise NotConnected(f"cannot dispatch {record.description}: no bot is connected")
        loop = asyncio.get_running_loop()
        record.dispatched_at = loop.time()
        record.session_id = session.id
        record.shard = session.shard
        self.interactions[record.id] = record
        self._by_token[record.token] = record
        self._unfinished.add(record.id)
        record.timer = loop.call_later(self.response_deadline, self._expire, record)
        self.gateway.dispatch("INTERACTION_CREATE", record.payload)

    def interaction_by_token(self, token: str) -> InteractionRecord | None:
        return self._by_token.get(token)

    def _expire(self, record: InteractionRecord) -> None:
        if record.finished:
            return
        record.expired = True
        self.violation(
            f"{record.description}: no initial response within {self.response_deadline}s "
            "(the user sees 'This interaction failed')"
        )
        self.finish_interaction(record)

    def finish_interaction(self, record: InteractionRecord) -> None:
        if record.timer is not None:
            record.timer.cancel()
            record.timer = None
        self._unfinished.discard(record.id)
        if not record.done.done():
            record.done.set_result(None)

    def mark_responded(self, record: InteractionRecord, callback_type: int) -> None:
        record.response_type = callback_type
        record.responded_at = self.loop_time()
        self.finish_interaction(record)
        if self.light:
            light.slim(record)

    # -- messages ---------------------------------------------------------------------------

    def would_be_empty(
        self,
        patch: Mapping[str, Any],
        uploads: Mapping[int, Upload],
        *,
        base: FakeMessage | None = None,
    ) -> bool:
        if base is None:
            return message_is_empty(
                patch.get("content"),
                patch.get("embeds") or [],
                patch.get("components") or [],
                len(uploads) + (1 if patch.get("sticker_ids") or patch.get("poll") else 0),
            )
        content = patch.get("content", base.content)
        embeds = patch.get("embeds", base.embeds)
        components = patch.get("components", base.components)
        if "attachments" in patch:
            kept = len(patch.get("attachments") or [])
        else:
            kept = len(base.attachments) + len(uploads)
        return message_is_empty(content, embeds or [], components or [], kept)

    def _attachments(
        self,
        channel_id: int,
        spec: Any,
        uploads: Mapping[int, Upload],
        existing: tuple[FakeAttachment, ...],
    ) -> tuple[FakeAttachment, ...]:
        def new(upload: Upload, entry: Mapping[str, Any]) -> FakeAttachment:
            attachment_id = self.ids.next()
            filename = str(entry.get("filename") or upload.filename)
            attachment = FakeAttachment(
                id=attachment_id,
                filename=filename,
                data=upload.data,
                url=f"{self.http_url}/attachments/{channel_id}/{attachment_id}/{filename}",
                content_type=upload.content_type,
                description=entry.get("description"),
            )
            self.attachments[attachment_id] = attachment
            return attachment

        if not isinstance(spec, list):
            return existing + tuple(new(uploads[i], {}) for i in sorted(uploads))
        by_id = {a.id: a for a in existing}
        out: list[FakeAttachment] = []
        for entry in spec:
            if not isinstance(entry, Mapping):
                continue
            try:
                key = int(entry.get("id", -1))
            except (TypeError, ValueError):
                continue
            if key in uploads:
                out.append(new(uploads[key], entry))
            elif key in by_id:
                out.append(by_id[key])
        return tuple(out)

    def _interaction_fields(self, record: InteractionRecord, *, followup: bool) -> JSONDict:
        metadata: JSONDict = {
            "id": str(record.id),
            "type": record.type,
            "user": record.user.payload(),
            "authorizing_integration_owners": record.payload["authorizing_integration_owners"],
        }
        fields: JSONDict = {
            "webhook_id": self.application_id,
            "application_id": self.application_id,
            "interaction_id": record.id,
        }
        if record.type == APPLICATION_COMMAND:
            name = _command_name(record.payload["data"])
            metadata["name"] = name
            metadata["command_type"] = 1
            legacy: JSONDict = {
                "id": str(record.id),
                "type": record.type,
                "name": name,
                "user": record.user.payload(),
            }
            fields["interaction"] = legacy
            fields["type"] = MESSAGE_TYPE_CHAT_INPUT_COMMAND
        if record.type == MESSAGE_COMPONENT and record.source_message_id is not None:
            metadata["interacted_message_id"] = str(record.source_message_id)
        if followup and record.original_message_id is not None:
            metadata["original_response_message_id"] = str(record.original_message_id)
        fields["interaction_metadata"] = metadata
        return fields

    def create_message(
        self,
        channel: FakeChannel,
        body: Mapping[str, Any],
        uploads: Mapping[int, Upload],
        *,
        ephemeral_for: int | None = None,
        record: InteractionRecord | None = None,
        loading: bool = False,
        followup: bool = False,
    ) -> FakeMessage:
        """Stores a new message the bot sent (already validated) and emits MESSAGE_CREATE."""
        message_id = self.ids.next()
        sendable = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
        flags = int(body.get("flags") or 0) & sendable
        if ephemeral_for is not None:
            flags |= FLAG_EPHEMERAL
        if loading:
            flags |= FLAG_LOADING
        extra: JSONDict = {"type": MESSAGE_TYPE_DEFAULT}
        if record is not None:
            extra.update(self._interaction_fields(record, followup=followup))
        reference = body.get("message_reference")
        if isinstance(reference, Mapping) and reference.get("message_id"):
            extra["message_reference"] = {
                "type": 0,
                "message_id": str(reference["message_id"]),
                "channel_id": str(reference.get("channel_id") or channel.id),
                **({"guild_id": str(channel.guild.id)} if channel.guild else {}),
            }
            extra["type"] = MESSAGE_TYPE_REPLY
        message = FakeMessage(
            id=message_id,
            channel_id=channel.id,
            guild_id=channel.guild.id if channel.guild is not None else None,
            author=self.bot_user.payload(),
            content=str(body.get("content") or ""),
            embeds=_normalize_embeds(body.get("embeds")),
            components=_normalize_components(body.get("components")),
            attachments=self._attachments(channel.id, body.get("attachments"), uploads, ()),
            flags=flags,
            ephemeral_for=ephemeral_for,
            timestamp=iso_now(),
            tts=bool(body.get("tts", False)),
            **extra,
        )
        self._channel_message_ids.setdefault(channel.id, []).append(message.id)
        if ephemeral_for is None:
            channel.last_message_id = message.id
            channel.message_count += 1
        self._store(None, message, "MESSAGE_CREATE")
        return message

    def edit_message(
        self,
        message: FakeMessage,
        patch: Mapping[str, Any],
        uploads: Mapping[int, Upload],
        *,
        finish_loading: bool = False,
    ) -> FakeMessage:
        """Applies a (validated) edit and emits MESSAGE_UPDATE for public messages."""
        changes: JSONDict = {"version": message.version + 1, "edited_timestamp": iso_now()}
        if "content" in patch:
            changes["content"] = str(patch["content"] or "")
        if "embeds" in patch:
            changes["embeds"] = _normalize_embeds(patch["embeds"])
        if "components" in patch:
            changes["components"] = _normalize_components(patch["components"])
        if "attachments" in patch or uploads:
            changes["attachments"] = self._attachments(
                message.channel_id, patch.get("attachments"), uploads, message.attachments
            )
        flags = message.flags
        if patch.get("flags") is not None:
            requested = int(patch["flags"])
            flags = (flags & ~FLAG_SUPPRESS_EMBEDS) | (requested & FLAG_SUPPRESS_EMBEDS)
            flags |= requested & FLAG_COMPONENTS_V2
        if finish_loading:
            flags &= ~FLAG_LOADING
            changes["edited_timestamp"] = None
        changes["flags"] = flags
        edited = _replace(message, **changes)
        self._store(message, edited, "MESSAGE_UPDATE")
        return edited

    def delete_message(self, message: FakeMessage) -> FakeMessage:
        deleted = _replace(message, deleted=True, version=message.version + 1)
        self._store(message, deleted, "MESSAGE_DELETE")
        return deleted

    def _store(self, old: FakeMessage | None, new: FakeMessage, event: str) -> None:
        self.messages[new.id] = light.kept(self, old, new) if self.light else new
        if new.ephemeral_for is not None:
            return
        intent = INTENT_GUILD_MESSAGES if new.guild_id is not None else INTENT_DIRECT_MESSAGES
        if event == "MESSAGE_DELETE":
            data: JSONDict = {"id": str(new.id), "channel_id": str(new.channel_id)}
            if new.guild_id is not None:
                data["guild_id"] = str(new.guild_id)
        else:
            data = new.payload()
            if new.guild_id is not None:
                guild = self.guilds[new.guild_id]
                member = guild.members.get(self.bot_user.id)
                if member is not None:
                    data["member"] = member.payload(with_user=False)
        self.gateway.dispatch(event, data, intent=intent)

    # -- waiting ----------------------------------------------------------------------------

    def busy_while(self, check: Callable[[], bool]) -> None:
        """Make :meth:`settle` also wait while ``check()`` is true: work a bot queues to do
        after its handlers have returned (what a click left to redraw, say)."""
        self._busy_checks.append(check)

    async def settle(self, timeout: float | None = None, *, quiet: float | None = None) -> None:
        """Waits until the bot is done reacting.

        Done means: every dispatched interaction got its initial response (or passed its
        deadline, which is a violation), no REST request is in flight, no gateway frame is
        queued, no discord.py handler task of a client in this loop is still running (a flow
        waiting on its database between two requests), and there was no REST/gateway activity
        for ``quiet`` seconds (default
        ``quiet_period``, 40 ms) — counted from the later of the last activity and the call, so
        it always waits at least ``quiet``.  This quiet window is the fixture's only timing
        assumption: work the bot starts more than ``quiet`` after its last request (a timer, a
        slow database call between two requests) is not waited for.  Raises
        :class:`SettleTimeout`.
        """
        loop = asyncio.get_running_loop()
        quiet = self.quiet_period if quiet is None else quiet
        deadline = loop.time() + (self.settle_timeout if timeout is None else timeout)
        poll = max(0.002, quiet / IDLE_POLLS)
        started = time.monotonic()
        seen, idle_polls = self._activity_seq, 0
        while True:
            busy = (
                self._inflight
                or self._unfinished
                or self.gateway.pending_frames()
                or _client_handlers_running()
                or any(check() for check in self._busy_checks)
            )
            # Quiet must hold over several wake-ups of the loop, not only on the clock: one
            # long pause of the whole process (a garbage collection) can pass the time window
            # while the bot, sharing this loop, has not had a chance to run its next step.
            if busy or self._activity_seq != seen:
                seen, idle_polls = self._activity_seq, 0
            else:
                idle_polls += 1
            quiet_for = time.monotonic() - max(self._last_activity, started)
            if not busy and idle_polls >= IDLE_POLLS and quiet_for >= quiet:
                return
            if loop.time() >= deadline:
                pending = [self.interactions[i].description for i in self._unfinished]
                raise SettleTimeout(
                    f"bot did not settle: {self._inflight} requests in flight, unanswered "
                    f"interactions {pending}, {self.gateway.pending_frames()} frames queued"
                )
            await asyncio.sleep(poll)

    # -- HTTP entry -------------------------------------------------------------------------

    # -- rate limits ------------------------------------------------------------------------

    def rate_limit(
        self,
        method: str = "*",
        route: str = "",
        *,
        times: int = 1,
        retry_after: float = 0.01,
        is_global: bool = False,
    ) -> RateLimitRule:
        """Hit a rate limit ``times`` times: the next matching API request is answered 429 Too
        Many Requests, and so is every matching request in the ``retry_after`` seconds after it
        (the limit is exhausted for that long); the next one sent later goes through, as on
        Discord, and the limit after it can be hit again. The
        429 is Discord's: ``X-RateLimit-*`` headers, a ``Via`` header (without one discord.py
        takes a 429 for a Cloudflare ban) and a JSON body with ``retry_after`` (seconds) and
        ``global``. ``answered`` on the returned rule counts the 429s, ``hits`` the limits hit.

        ``route`` is a regular expression searched in the path after ``/api/v10`` (empty: any);
        ``method`` an HTTP method or ``*``. A global limit (``is_global``) applies to every
        request that counts against the global limit, whatever ``route`` says, and never to
        interaction callbacks and webhooks (Discord exempts them). Keep ``retry_after`` tiny in
        tests: discord.py really sleeps that long before retrying."""
        rule = RateLimitRule(method.upper(), re.compile(route), times, retry_after, is_global)
        self._rate_limits.append(rule)
        return rule

    def _rate_limited(self, request: web.Request, exempt: bool) -> web.Response | None:
        path = request.path[len(API_PREFIX) :] if request.path.startswith(API_PREFIX) else ""
        if not path:
            return None
        now = time.monotonic()
        for rule in self._rate_limits:
            if rule.is_global:
                if exempt:
                    continue
            elif rule.method not in ("*", request.method) or not rule.route.search(path):
                continue
            if now >= rule.exhausted_until:
                if rule.remaining <= 0 or rule.retry_owed:
                    rule.retry_owed = False  # the retry after a hit goes through
                    continue
                rule.retry_owed = True
                rule.remaining -= 1
                rule.hits += 1
                # A retry sent after retry_after goes through (with a hair of slack for clocks).
                rule.exhausted_until = now + rule.retry_after * 0.9
            rule.answered += 1
            self.rate_limited_answers += 1
            self.request_log.append(f"{request.method} {path} -> 429")
            return rate_limit_response(rule.retry_after, is_global=rule.is_global)
        return None

    # -- HTTP entry -------------------------------------------------------------------------

    async def _handle_http(self, request: web.Request) -> web.StreamResponse:
        self._inflight += 1
        self.request_count += 1
        exempt = is_exempt(request.path)
        if exempt:
            self.exempt_count += 1
        else:
            self.limited_count += 1
        self.touch()
        try:
            limited = self._rate_limited(request, exempt) if self._rate_limits else None
            if limited is not None:
                return limited
            return await self.rest.handle(request)
        except Exception as exc:
            self.violation(
                f"fakecord internal error on {request.method} {request.path}: {exc!r}\n"
                + traceback.format_exc()
            )
            return web.Response(
                status=400,
                body=b'{"code": 0, "message": "fakecord internal error"}',
                headers={"Content-Type": "application/json"},
            )
        finally:
            self._inflight -= 1
            self.touch()


@dataclasses.dataclass
class RateLimitRule:
    """Requests the fake answers with 429 (see :meth:`FakeDiscord.rate_limit`)."""

    method: str
    route: re.Pattern[str]
    remaining: int
    retry_after: float
    is_global: bool
    hits: int = 0
    answered: int = 0
    exhausted_until: float = 0.0
    retry_owed: bool = False


#: Interaction callbacks and interaction webhooks: not bound to the global rate limit.
_EXEMPT = re.compile(r"^/api/v\d+/(interactions/\d+/[^/]+/callback|webhooks/\d+/[^/]+)")


def is_exempt(path: str) -> bool:
    """Whether Discord leaves a request to ``path`` out of the bot's global rate limit."""
    return _EXEMPT.match(path) is not None


def rate_limit_response(retry_after: float, *, is_global: bool) -> web.Response:
    """A 429 the way Discord sends it (headers and body discord.py reads)."""
    headers = {
        "Content-Type": "application/json",
        "Via": "1.1 google",
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
        "X-RateLimit-Reset-After": f"{retry_after:.3f}",
        "X-RateLimit-Bucket": "fakecord-global" if is_global else "fakecord-route",
        "X-RateLimit-Scope": "global" if is_global else "user",
        "Retry-After": str(max(1, round(retry_after))),
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    body = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": is_global,
    }
    return web.Response(status=429, body=json.dumps(body).encode(), headers=headers)


def _replace(message: FakeMessage, **changes: Any) -> FakeMessage:
    return dataclasses.replace(message, **changes)


@contextlib.asynccontextmanager
async def running_fake(**options: Any) -> AsyncIterator[FakeDiscord]:
    """``async with running_fake() as fake:`` — started and installed, stopped afterwards."""
    fake = FakeDiscord(**options)
    async with fake:
        yield fake
