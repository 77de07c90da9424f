"""The fake gateway websocket.

Protocol (plain JSON text frames; discord.py decompresses only *binary* frames, so text frames
are fine even though it connects with ``compress=zlib-stream``):

* on connect: HELLO (op 10);
* IDENTIFY (op 2) → READY (guilds unavailable, ``resume_gateway_url`` = this server) then one
  GUILD_CREATE per guild (of the session's shard: see below);
* HEARTBEAT (op 1) → HEARTBEAT_ACK (op 11);
* RESUME (op 6) → missed events replayed with their original sequence numbers, then RESUMED; an
  unknown or closed session gets INVALID_SESSION (op 9, ``d=false``);
* REQUEST_GUILD_MEMBERS (op 8) → one GUILD_MEMBERS_CHUNK.

Each session buffers its dispatches so a resumed client gets what it missed while disconnected.
Dispatches go to the *active* session: the one most recently identified or resumed.

Shards: an IDENTIFY with ``shard: [id, count]`` makes a session of that shard (without one: shard
0 of 1, every guild). As on Discord, a guild's events (GUILD_CREATE, its channels, messages and
interactions) go only to the active session of shard ``(guild_id >> 22) % count``; direct
messages and DM interactions go to shard 0. Several processes can so serve one application, one
shard each (see :meth:`Gateway.session_for`).
"""

from __future__ import annotations

import asyncio
import collections
import json
import secrets
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .errors import NotConnected

if TYPE_CHECKING:
    from .server import FakeDiscord

JSONDict = dict[str, Any]

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE_UPDATE = 3
OP_VOICE_STATE_UPDATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12

#: Dispatches kept per session for RESUME (older ones also go once the client heartbeats them).
BUFFER_LIMIT = 10_000
#: Close codes after which Discord forgets the session.
_SESSION_ENDING_CLOSE_CODES = frozenset({1000, 1001})


class GatewayConnection:
    """One websocket; frames are written in order by a single writer task."""

    def __init__(self, gateway: Gateway, ws: web.WebSocketResponse) -> None:
        self.gateway = gateway
        self.ws = ws
        self.session: GatewaySession | None = None
        #: Set when the fake closes the socket (a drop); only client closes end sessions.
        self.closed_by_server = False
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._sending = False
        self._writer = asyncio.create_task(self._write(), name="fakecord-gateway-writer")

    @property
    def pending(self) -> int:
        return self._queue.qsize() + (1 if self._sending else 0)

    def send(self, frame: JSONDict | str) -> None:
        self._queue.put_nowait(frame if isinstance(frame, str) else json.dumps(frame))

    async def _write(self) -> None:
        while True:
            frame = await self._queue.get()
            if frame is None:
                return
            self._sending = True
            try:
                await self.ws.send_str(frame)
            except (ConnectionError, RuntimeError):
                self._sending = False
                self._drain()
                return
            finally:
                self.gateway.fake.touch()
            self._sending = False

    def _drain(self) -> None:
        while not self._queue.empty():
            self._queue.get_nowait()

    async def stop(self) -> None:
        self._drain()
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(self._writer, timeout=2.0)
        except (TimeoutError, asyncio.CancelledError):
            self._writer.cancel()


class GatewaySession:
    """A gateway session: survives disconnects until the client closes it or it is invalidated."""

    def __init__(self, session_id: str, intents: int, shard: tuple[int, int] = (0, 1)) -> None:
        self.id = session_id
        self.intents = intents
        #: ``(shard id, shard count)`` from IDENTIFY; ``(0, 1)``: every guild.
        self.shard = shard
        self.seq = 0
        self.buffer: collections.deque[tuple[int, str]] = collections.deque(maxlen=BUFFER_LIMIT)
        self.connection: GatewayConnection | None = None
        self.closed = False

    def dispatch(self, event: str, data: Any) -> int:
        self.seq += 1
        frame = json.dumps({"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data})
        self.buffer.append((self.seq, frame))
        if self.connection is not None:
            self.connection.send(frame)
        return self.seq

    def acknowledge(self, seq: int) -> None:
        """The client has seen everything up to ``seq`` (from its heartbeat)."""
        while self.buffer and self.buffer[0][0] <= seq:
            self.buffer.popleft()

    def has_intent(self, intent: int) -> bool:
        return bool(self.intents & intent)

    def serves(self, guild_id: int | None) -> bool:
        """Whether Discord sends this guild's events (``None``: DMs) on this session's shard."""
        shard_id, count = self.shard
        return shard_of(guild_id, count) == shard_id


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard a guild's events come on (Discord: ``(guild_id >> 22) % num_shards``); DMs
    come on shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % count


def guild_of(event: str, data: Any) -> int | None:
    """The guild a dispatch belongs to (``None``: none, as for DMs)."""
    if not isinstance(data, dict):
        return None
    key = "id" if event in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE") else "guild_id"
    value = data.get(key)
    return int(value) if value is not None else None


class Gateway:
    """Sessions and websocket handling for one fake Discord."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.sessions: dict[str, GatewaySession] = {}
        self.active: GatewaySession | None = None
        #: The active session of each shard id (the one most recently identified or resumed).
        self.shards: dict[int, GatewaySession] = {}
        self.connections: set[GatewayConnection] = set()
        self.identify_count = 0
        self.resume_count = 0
        self._attach_waiters: list[asyncio.Future[None]] = []

    # -- state queries ----------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """A bot session is active and currently has a socket."""
        return self.active is not None and self.active.connection is not None

    def pending_frames(self) -> int:
        return sum(c.pending for c in self.connections)

    # -- dispatching ------------------------------------------------------------------------

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The active session that gets ``guild_id``'s events (``None``: DMs): the one of its
        shard. Unsharded, that is the active session, whatever the guild."""
        active = self.active
        if active is not None and not active.closed and active.serves(guild_id):
            return active
        for session in self.shards.values():
            if not session.closed and session.serves(guild_id):
                return session
        return None

    def dispatch(self, event: str, data: Any, *, intent: int | None = None) -> bool:
        """Sends (or buffers, while disconnected) an event on the active session of the shard
        of the event's guild."""
        session = self.session_for(guild_of(event, data))
        if session is None:
            return False
        if intent is not None and not session.has_intent(intent):
            return False
        session.dispatch(event, data)
        self.fake.touch()
        return True

    def _attached(self) -> None:
        waiters, self._attach_waiters = self._attach_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def drop(self, *, code: int, wait: bool, timeout: float) -> None:
        session = self.active
        if session is None or session.connection is None:
            raise NotConnected("drop_gateway(): no bot is connected to the fake gateway")
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._attach_waiters.append(waiter)
        connection = session.connection
        session.connection = None
        connection.closed_by_server = True
        await connection.ws.close(code=code, message=b"fakecord: drop_gateway()")
        if wait:
            await asyncio.wait_for(waiter, timeout=timeout)

    async def close_all(self) -> None:
        for connection in list(self.connections):
            connection.closed_by_server = True
            await connection.ws.close(code=1001, message=b"fakecord stopping")
        for connection in list(self.connections):
            await connection.stop()
        self.connections.clear()

    # -- websocket --------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        connection = GatewayConnection(self, ws)
        self.connections.add(connection)
        connection.send(
            {
                "op": OP_HELLO,
                "d": {
                    "heartbeat_interval": self.fake.heartbeat_interval_ms,
                    "_trace": ["fakecord"],
                },
                "s": None,
                "t": None,
            }
        )
        try:
            async for message in ws:
                if message.type is WSMsgType.TEXT:
                    try:
                        frame = json.loads(message.data)
                    except ValueError:
                        self.fake.violation(f"gateway: client sent invalid JSON {message.data!r}")
                        continue
                    self._on_frame(connection, frame)
                elif message.type is WSMsgType.BINARY:
                    self.fake.violation("gateway: client sent a binary frame (expected JSON text)")
                elif message.type is WSMsgType.ERROR:
                    break
        finally:
            session = connection.session
            if session is not None:
                if session.connection is connection:
                    session.connection = None
                client_ended = not connection.closed_by_server
                if client_ended and ws.close_code in _SESSION_ENDING_CLOSE_CODES:
                    session.closed = True
                    if self.active is session:
                        self.active = None
                    if self.shards.get(session.shard[0]) is session:
                        del self.shards[session.shard[0]]
            self.connections.discard(connection)
            await connection.stop()
        return ws

    def _on_frame(self, connection: GatewayConnection, frame: JSONDict) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op != OP_HEARTBEAT:
            self.fake.touch()
        if op == OP_HEARTBEAT:
            if isinstance(data, int) and connection.session is not None:
                connection.session.acknowledge(data)
            connection.send({"op": OP_HEARTBEAT_ACK, "d": None, "s": None, "t": None})
        elif op == OP_IDENTIFY:
            self._identify(connection, data or {})
        elif op == OP_RESUME:
            self._resume(connection, data or {})
        elif op == OP_REQUEST_GUILD_MEMBERS:
            self._request_members(connection, data or {})
        elif op in (OP_PRESENCE_UPDATE, OP_VOICE_STATE_UPDATE):
            pass
        else:
            self.fake.violation(f"gateway: unexpected opcode {op!r} from client: {frame!r}")

    def _identify(self, connection: GatewayConnection, data: JSONDict) -> None:
        if connection.session is not None:
            self.fake.violation("gateway: IDENTIFY sent twice on one connection")
            return
        if not data.get("token"):
            self.fake.violation("gateway: IDENTIFY without a token")
        intents = int(data.get("intents", 0))
        if not intents & INTENT_GUILDS:
            self.fake.violation(
                "gateway: IDENTIFY without the GUILDS intent; discord.py needs it for its cache"
            )
        shard = data.get("shard", [0, 1])
        valid = (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(n, int) for n in shard)
            and 0 <= shard[0] < shard[1]
        )
        if not valid:
            # Discord closes such a connection with 4010 (Invalid shard).
            self.fake.violation(f"gateway: IDENTIFY with an invalid shard {shard!r}")
            shard = [0, 1]
        session = GatewaySession(secrets.token_hex(16), intents, (shard[0], shard[1]))
        self.sessions[session.id] = session
        session.connection = connection
        connection.session = session
        self.active = session
        self.shards[session.shard[0]] = session
        self.identify_count += 1
        session.dispatch("READY", self.fake.ready_payload(session))
        for guild in list(self.fake.guilds.values()):
            if not session.serves(guild.id):
                continue
            session.dispatch(
                "GUILD_CREATE",
                guild.create_payload(include_all_members=session.has_intent(INTENT_GUILD_MEMBERS)),
            )
        self._attached()

    def _resume(self, connection: GatewayConnection, data: JSONDict) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or session.closed:
            connection.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        seq = data.get("seq")
        if not isinstance(seq, int):
            seq = 0
        if session.buffer and session.buffer[0][0] > seq + 1:
            # Events the client never saw were trimmed: cannot resume.
            connection.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        if session.connection is not None and session.connection is not connection:
            old = session.connection
            old.closed_by_server = True
            asyncio.get_running_loop().create_task(old.ws.close(code=4000))
        session.connection = connection
        connection.session = session
        for frame_seq, frame in session.buffer:
            if frame_seq > seq:
                connection.send(frame)
        self.active = session
        self.shards[session.shard[0]] = session
        self.resume_count += 1
        session.dispatch("RESUMED", {"_trace": ["fakecord"]})
        self._attached()

    def _request_members(self, connection: GatewayConnection, data: JSONDict) -> None:
        session = connection.session
        if session is None:
            return
        guild = self.fake.guilds.get(int(data.get("guild_id", 0)))
        if guild is None:
            return
        if not session.has_intent(INTENT_GUILD_MEMBERS):
            self.fake.violation("gateway: REQUEST_GUILD_MEMBERS without the GUILD_MEMBERS intent")
        wanted = {int(u) for u in data.get("user_ids") or []}
        query = str(data.get("query") or "").lower()
        members = [
            m.payload()
            for m in guild.members.values()
            if (not wanted or m.user.id in wanted) and m.user.name.lower().startswith(query)
        ]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: JSONDict = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
