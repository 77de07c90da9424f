"""The fake Discord REST API (``/api/v10/...``).

Only the routes a discord.py bot like Siege Hall uses exist; anything else answers 404 with a
clear message *and* records a violation so a missing route gets noticed.  Every response that
has a body is ``Content-Type: application/json`` exactly (discord.py compares the header with
``==``, so a ``; charset=utf-8`` suffix would make it treat the body as text).  "No content"
answers are 204 without a body or content type, like Discord (an empty body labelled JSON would
make discord.py's ``json_or_text`` fail).
"""

from __future__ import annotations

import dataclasses
import json
import mimetypes
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .commands import CommandScope, check_command, check_command_list
from .interactions import (
    ALLOWED_CALLBACKS,
    CALLBACK_NAMES,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MODAL,
    UPDATE_MESSAGE,
    InteractionRecord,
)
from .limits import (
    UPLOAD_LIMIT_BYTES,
    Problem,
    check_message,
    check_modal,
    error_body,
)
from .messages import FLAG_EPHEMERAL, FakeMessage
from .threads import delete_channel, modify_channel, unarchive_on_send
from .world import DM, GUILD_TEXT, PRIVATE_THREAD, PUBLIC_THREAD, FakeChannel

if TYPE_CHECKING:
    from .server import FakeDiscord

JSONDict = dict[str, Any]
API_PREFIX = "/api/v10"

#: The permission bit a bot needs to start a thread from a message.
CREATE_PUBLIC_THREADS = 1 << 35


@dataclasses.dataclass(frozen=True)
class Upload:
    """A ``files[n]`` part of a multipart request."""

    index: int
    filename: str
    data: bytes
    content_type: str | None


@dataclasses.dataclass
class Call:
    """One parsed API request."""

    method: str
    path: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    uploads: dict[int, Upload]

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")


@dataclasses.dataclass
class Reply:
    status: int
    body: Any = None


Handler = Callable[[Call], Awaitable[Reply]]


def json_response(status: int, body: Any) -> web.Response:
    if status == 204 or body is None:
        return web.Response(status=204)
    return web.Response(
        status=status,
        body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )


def discord_error(status: int, code: int, message: str) -> Reply:
    return Reply(status, {"code": code, "message": message})


_FILES_FIELD = re.compile(r"^files\[(\d+)\]$")


def _content_type(part: Any) -> str | None:
    """Discord derives an attachment's content type from its filename, like this."""
    guessed, _ = mimetypes.guess_type(str(getattr(part, "filename", "") or ""))
    return guessed or part.headers.get("Content-Type")


class RestApi:
    """Routes and handlers; state lives on the :class:`FakeDiscord`."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self._routes: list[tuple[str, re.Pattern[str], Handler, bool]] = []
        add = self._add
        add("GET", "/users/@me", self.get_me)
        add("POST", "/users/@me/channels", self.create_dm)
        add("GET", "/users/{user_id}", self.get_user)
        add("GET", "/oauth2/applications/@me", self.get_application)
        add("GET", "/applications/@me", self.get_application)
        add("GET", "/gateway", self.get_gateway)
        add("GET", "/gateway/bot", self.get_gateway_bot)
        for scope in ("/applications/{app}", "/applications/{app}/guilds/{guild_id}"):
            add("GET", scope + "/commands", self.list_commands)
            add("PUT", scope + "/commands", self.overwrite_commands)
            add("POST", scope + "/commands", self.upsert_command)
            add("GET", scope + "/commands/{command_id}", self.get_command)
            add("PATCH", scope + "/commands/{command_id}", self.edit_command)
            add("DELETE", scope + "/commands/{command_id}", self.delete_command)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self.callback, auth=False)
        add("POST", "/webhooks/{app}/{token}", self.followup, auth=False)
        add(
            "GET", "/webhooks/{app}/{token}/messages/{message_id}", self.get_webhook_msg, auth=False
        )
        add(
            "PATCH",
            "/webhooks/{app}/{token}/messages/{message_id}",
            self.edit_webhook_msg,
            auth=False,
        )
        add(
            "DELETE",
            "/webhooks/{app}/{token}/messages/{message_id}",
            self.delete_webhook_msg,
            auth=False,
        )
        add("GET", "/channels/{channel_id}", self.get_channel)
        add("PATCH", "/channels/{channel_id}", lambda call: modify_channel(self, call))
        add("DELETE", "/channels/{channel_id}", lambda call: delete_channel(self, call))
        add("GET", "/channels/{channel_id}/messages", self.history)
        add("POST", "/channels/{channel_id}/messages", self.send_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message)
        add("POST", "/channels/{channel_id}/typing", self.typing)
        add("POST", "/channels/{channel_id}/threads", self.create_thread)
        add("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.create_thread)
        add("GET", "/guilds/{guild_id}", self.get_guild)
        add("GET", "/guilds/{guild_id}/channels", self.get_guild_channels)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member)

    def _add(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        pattern = re.escape(template)
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", pattern)
        self._routes.append((method, re.compile(f"^{pattern}$"), handler, auth))

    # -- entry point ------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.Response:
        path = request.path
        if not path.startswith(API_PREFIX + "/"):
            return await self._serve_attachment(request)
        path = path[len(API_PREFIX) :]
        method_mismatch = False
        for method, pattern, handler, auth in self._routes:
            match = pattern.match(path)
            if match is None:
                continue
            if method != request.method:
                method_mismatch = True
                continue
            if auth and not request.headers.get("Authorization", "").startswith("Bot "):
                return json_response(401, {"code": 0, "message": "401: Unauthorized"})
            call = await self._parse(request, path, match.groupdict())
            if isinstance(call, Reply):
                return json_response(call.status, call.body)
            reply = await handler(call)
            self.fake.request_log.append(f"{request.method} {path} -> {reply.status}")
            return json_response(reply.status, reply.body)
        what = "method not supported" if method_mismatch else "route not implemented"
        message = f"fakecord: {request.method} {API_PREFIX}{path}: {what}"
        self.fake.violation(message)
        return json_response(404, {"code": 0, "message": message})

    async def _parse(self, request: web.Request, path: str, params: dict[str, str]) -> Call | Reply:
        body: Any = None
        uploads: dict[int, Upload] = {}
        # The header read as sent: ``request.content_type`` parses it with the email package,
        # which makes a class each time, and a multipart one (a new boundary each request)
        # always misses aiohttp's cache of parsed types.
        media_type = request.headers.get("Content-Type", "").partition(";")[0]
        if media_type.strip().lower() == "multipart/form-data":
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = getattr(part, "name", None)
                raw = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    body = json.loads(raw)
                    continue
                match = _FILES_FIELD.match(name or "")
                if match is None:
                    self.fake.violation(
                        f"{request.method} {path}: unexpected multipart field {name!r}"
                    )
                    continue
                index = int(match.group(1))
                uploads[index] = Upload(
                    index=index,
                    filename=getattr(part, "filename", None) or f"file{index}",
                    data=bytes(raw),
                    content_type=_content_type(part),
                )
            total = sum(len(u.data) for u in uploads.values())
            if total > UPLOAD_LIMIT_BYTES:
                self.fake.violation(
                    f"{request.method} {path}: {total} bytes of files exceed the "
                    f"{UPLOAD_LIMIT_BYTES}-byte upload limit"
                )
                return discord_error(413, 40005, "Request entity too large")
        elif request.can_read_body:
            text = await request.text()
            if text:
                try:
                    body = json.loads(text)
                except ValueError:
                    return discord_error(400, 50109, "The request body contains invalid JSON.")
        return Call(request.method, path, params, request.query, body, uploads)

    async def _serve_attachment(self, request: web.Request) -> web.Response:
        match = re.match(r"^/attachments/\d+/(\d+)/", request.path)
        attachment = self.fake.attachments.get(int(match.group(1))) if match else None
        if attachment is None:
            self.fake.violation(f"fakecord: {request.method} {request.path}: no such route or file")
            return json_response(404, {"code": 0, "message": f"fakecord: no {request.path}"})
        return web.Response(
            body=attachment.data,
            headers={"Content-Type": attachment.content_type or "application/octet-stream"},
        )

    # -- helpers ----------------------------------------------------------------------------

    def _invalid(self, what: str, problems: list[Problem], prefix: tuple[str, ...] = ()) -> Reply:
        details = "; ".join(p.describe() for p in problems)
        self.fake.violation(f"{what}: Discord rejects this with 400 / 50035: {details}")
        return Reply(400, error_body(problems, prefix))

    def _message_problems(
        self,
        payload: Any,
        uploads: dict[int, Upload],
        *,
        creating: bool,
        via_interaction: bool,
        existing: FakeMessage | None = None,
    ) -> list[Problem]:
        if not isinstance(payload, Mapping):
            return [Problem((), "MODEL_TYPE_CONVERT", "The body must be a JSON object.")]
        return check_message(
            payload,
            n_files=len(uploads),
            creating=creating,
            via_interaction=via_interaction,
            existing_flags=existing.flags if existing is not None else 0,
        )

    def _refused_message(
        self,
        what: str,
        body: Any,
        uploads: Any,
        *,
        creating: bool,
        via_interaction: bool,
        existing: FakeMessage | None = None,
        prefix: tuple[str, ...] = (),
    ) -> Reply | None:
        """Discord's answer to a message body it refuses (limits, or nothing left to show), or
        None when the body is acceptable."""
        problems = self._message_problems(
            body or {},
            uploads,
            creating=creating,
            via_interaction=via_interaction,
            existing=existing,
        )
        if problems:
            return self._invalid(what, problems, prefix)
        if self.fake.would_be_empty(body or {}, uploads, base=existing):
            return self._empty_message(what)
        return None

    def _empty_message(self, what: str) -> Reply:
        self.fake.violation(
            f"{what}: Discord rejects this with 400 / 50006: Cannot send an empty message"
        )
        return discord_error(400, 50006, "Cannot send an empty message")

    def _channel(self, call: Call) -> FakeChannel | None:
        try:
            return self.fake.channels.get(int(call.params["channel_id"]))
        except ValueError:
            return None

    def _scope(self, call: Call) -> CommandScope | Reply:
        if call.params.get("app") != str(self.fake.application_id):
            self.fake.violation(f"{call.method} {call.path}: wrong application id")
            return discord_error(404, 10002, "Unknown Application")
        guild_id = call.params.get("guild_id")
        if guild_id is None:
            return self.fake.global_commands
        guild = self.fake.guilds.get(int(guild_id))
        if guild is None:
            return discord_error(403, 50001, "Missing Access")
        return guild.commands

    # -- users, application, gateway --------------------------------------------------------

    async def get_me(self, call: Call) -> Reply:
        return Reply(200, self.fake.bot_self_payload())

    async def get_user(self, call: Call) -> Reply:
        user = self.fake.users.get(int(call.params["user_id"]))
        if user is None:
            return discord_error(404, 10013, "Unknown User")
        return Reply(200, user.payload())

    async def get_application(self, call: Call) -> Reply:
        return Reply(200, self.fake.application_payload())

    async def get_gateway(self, call: Call) -> Reply:
        return Reply(200, {"url": self.fake.ws_url})

    async def get_gateway_bot(self, call: Call) -> Reply:
        return Reply(
            200,
            {
                "url": self.fake.ws_url,
                "shards": self.fake.recommended_shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 14400000,
                    "max_concurrency": 1,
                },
            },
        )

    async def create_dm(self, call: Call) -> Reply:
        body = call.body if isinstance(call.body, Mapping) else {}
        try:
            user = self.fake.users.get(int(body.get("recipient_id", 0)))
        except (TypeError, ValueError):
            user = None
        if user is None or user is self.fake.bot_user:
            return discord_error(400, 50033, "Invalid Recipient(s)")
        return Reply(200, self.fake.dm_channel_for(user).payload())

    # -- guilds -----------------------------------------------------------------------------

    async def get_guild(self, call: Call) -> Reply:
        guild = self.fake.guilds.get(int(call.params["guild_id"]))
        if guild is None:
            return discord_error(404, 10004, "Unknown Guild")
        return Reply(200, guild.payload())

    async def get_guild_channels(self, call: Call) -> Reply:
        guild = self.fake.guilds.get(int(call.params["guild_id"]))
        if guild is None:
            return discord_error(404, 10004, "Unknown Guild")
        return Reply(200, [c.payload() for c in guild.channels if not c.is_thread])

    async def get_member(self, call: Call) -> Reply:
        guild = self.fake.guilds.get(int(call.params["guild_id"]))
        if guild is None:
            return discord_error(404, 10004, "Unknown Guild")
        member = guild.members.get(int(call.params["user_id"]))
        if member is None:
            return discord_error(404, 10007, "Unknown Member")
        return Reply(200, member.payload())

    # -- application commands ---------------------------------------------------------------

    async def list_commands(self, call: Call) -> Reply:
        scope = self._scope(call)
        return scope if isinstance(scope, Reply) else Reply(200, scope.all())

    async def overwrite_commands(self, call: Call) -> Reply:
        scope = self._scope(call)
        if isinstance(scope, Reply):
            return scope
        problems = check_command_list(call.body)
        if problems:
            return self._invalid(f"{call.method} {call.path} (command sync)", problems)
        return Reply(200, scope.overwrite(call.body))

    async def upsert_command(self, call: Call) -> Reply:
        scope = self._scope(call)
        if isinstance(scope, Reply):
            return scope
        problems = check_command(call.body, 0)
        if problems:
            return self._invalid(f"{call.method} {call.path} (command upsert)", problems)
        return Reply(201, scope.upsert(call.body))

    async def get_command(self, call: Call) -> Reply:
        scope = self._scope(call)
        if isinstance(scope, Reply):
            return scope
        command = scope.by_id(int(call.params["command_id"]))
        if command is None:
            return discord_error(404, 10063, "Unknown application command")
        return Reply(200, command)

    async def edit_command(self, call: Call) -> Reply:
        scope = self._scope(call)
        if isinstance(scope, Reply):
            return scope
        command = scope.by_id(int(call.params["command_id"]))
        if command is None:
            return discord_error(404, 10063, "Unknown application command")
        merged = {**command, **(call.body if isinstance(call.body, Mapping) else {})}
        problems = check_command(merged, 0)
        if problems:
            return self._invalid(f"{call.method} {call.path} (command edit)", problems)
        return Reply(200, scope.upsert(merged))

    async def delete_command(self, call: Call) -> Reply:
        scope = self._scope(call)
        if isinstance(scope, Reply):
            return scope
        if not scope.delete(int(call.params["command_id"])):
            return discord_error(404, 10063, "Unknown application command")
        return Reply(204)

    # -- interaction callback ---------------------------------------------------------------

    async def callback(self, call: Call) -> Reply:
        fake = self.fake
        try:
            record = fake.interactions.get(int(call.params["interaction_id"]))
        except ValueError:
            record = None
        if record is None or record.token != call.params["token"]:
            fake.violation(f"interaction callback for unknown interaction {call.path}")
            return discord_error(404, 10062, "Unknown interaction")
        body = call.body if isinstance(call.body, Mapping) else {}
        raw_type = body.get("type")
        cb_type = raw_type if isinstance(raw_type, int) else -1
        data = body.get("data")
        what = f"{record.description}: callback type {cb_type} ({CALLBACK_NAMES.get(cb_type, '?')})"
        if record.response_type is not None:
            fake.violation(
                f"{what}: second initial response (already answered with type "
                f"{record.response_type}); Discord answers 400 / 40060"
            )
            return discord_error(400, 40060, "Interaction has already been acknowledged.")
        elapsed = fake.loop_time() - record.dispatched_at
        if record.expired or elapsed > fake.response_deadline:
            fake.violation(
                f"{what}: initial response arrived {elapsed:.2f}s after dispatch, past the "
                f"{fake.response_deadline}s deadline; Discord answers 404 / 10062"
            )
            record.expired = True
            fake.finish_interaction(record)
            return discord_error(404, 10062, "Unknown interaction")
        if cb_type not in ALLOWED_CALLBACKS.get(record.type, set()):
            return self._invalid(
                what,
                [
                    Problem(
                        ("type",),
                        "INTERACTION_RESPONSE_TYPE_INVALID",
                        f"Callback type {cb_type} is not valid for interaction type {record.type}.",
                    )
                ],
            )
        if (
            cb_type in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE)
            and record.source_message_id is None
        ):
            return self._invalid(
                what,
                [Problem(("type",), "INTERACTION_RESPONSE_TYPE_INVALID", "No message to update.")],
            )
        message: FakeMessage | None = None
        if cb_type == CHANNEL_MESSAGE:
            refused = self._refused_message(
                what, data, call.uploads, creating=True, via_interaction=True, prefix=("data",)
            )
            if refused is not None:
                return refused
            assert isinstance(data, Mapping)
            ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            message = fake.create_message(
                record.channel,
                data,
                call.uploads,
                ephemeral_for=record.user.id if ephemeral else None,
                record=record,
            )
            record.ephemeral = ephemeral
            record.original_message_id = message.id
        elif cb_type == DEFERRED_CHANNEL_MESSAGE:
            flags = int((data or {}).get("flags") or 0) if isinstance(data, Mapping) else 0
            ephemeral = bool(flags & FLAG_EPHEMERAL)
            message = fake.create_message(
                record.channel,
                {},
                {},
                ephemeral_for=record.user.id if ephemeral else None,
                record=record,
                loading=True,
            )
            record.ephemeral = ephemeral
            record.loading = True
            record.original_message_id = message.id
        elif cb_type == DEFERRED_UPDATE_MESSAGE:
            record.original_message_id = record.source_message_id
        elif cb_type == UPDATE_MESSAGE:
            assert record.source_message_id is not None
            source = fake.messages[record.source_message_id]
            if source.deleted:
                return discord_error(404, 10008, "Unknown Message")
            refused = self._refused_message(
                what,
                data,
                call.uploads,
                creating=False,
                via_interaction=True,
                existing=source,
                prefix=("data",),
            )
            if refused is not None:
                return refused
            message = fake.edit_message(source, data or {}, call.uploads)
            record.original_message_id = source.id
            record.ephemeral = source.ephemeral
        elif cb_type == MODAL:
            problems = check_modal(data)
            if problems:
                return self._invalid(what, problems)
            record.modal = dict(data) if isinstance(data, Mapping) else None
        fake.mark_responded(record, cb_type)
        if not call.flag("with_response"):
            return Reply(204)
        interaction: JSONDict = {"id": str(record.id), "type": record.type}
        out: JSONDict = {"interaction": interaction}
        if message is not None and cb_type != DEFERRED_UPDATE_MESSAGE:
            interaction.update(
                {
                    "response_message_id": str(message.id),
                    "response_message_loading": message.loading,
                    "response_message_ephemeral": message.ephemeral,
                }
            )
            out["resource"] = {"type": cb_type, "message": message.payload()}
        return Reply(200, out)

    # -- interaction webhooks ---------------------------------------------------------------

    def _webhook_record(self, call: Call) -> InteractionRecord | Reply:
        record = self.fake.interaction_by_token(call.params["token"])
        if record is None or call.params["app"] != str(self.fake.application_id):
            self.fake.violation(f"{call.method} {call.path}: unknown webhook / interaction token")
            return discord_error(404, 10015, "Unknown Webhook")
        if record.response_type is None:
            self.fake.violation(
                f"{record.description}: {call.method} on the interaction webhook before any "
                "initial response; Discord answers 404 / 10015 Unknown Webhook"
            )
            return discord_error(404, 10015, "Unknown Webhook")
        return record

    def _webhook_message(self, call: Call, record: InteractionRecord) -> FakeMessage | Reply:
        raw = call.params["message_id"]
        if raw == "@original":
            message_id = record.original_message_id
        else:
            try:
                message_id = int(raw)
            except ValueError:
                message_id = None
            if message_id not in (record.original_message_id, *record.followup_ids):
                message_id = None
        message = None if message_id is None else self.fake.messages.get(message_id)
        if message is None or message.deleted:
            return discord_error(404, 10008, "Unknown Message")
        if message.channel_id not in self.fake.channels:
            return discord_error(404, 10003, "Unknown Channel")  # the channel was deleted
        return message

    async def followup(self, call: Call) -> Reply:
        record = self._webhook_record(call)
        if isinstance(record, Reply):
            return record
        fake = self.fake
        what = f"{record.description}: follow-up message"
        refused = self._refused_message(
            what, call.body, call.uploads, creating=True, via_interaction=True
        )
        if refused is not None:
            return refused
        body: Mapping[str, Any] = call.body
        if record.loading and record.original_message_id is not None:
            # The first follow-up after a deferred (thinking) response replaces the placeholder;
            # its ephemerality was decided by the defer.
            original = fake.messages[record.original_message_id]
            message = fake.edit_message(original, body, call.uploads, finish_loading=True)
            record.loading = False
        else:
            ephemeral = bool(int(body.get("flags") or 0) & FLAG_EPHEMERAL)
            message = fake.create_message(
                record.channel,
                body,
                call.uploads,
                ephemeral_for=record.user.id if ephemeral else None,
                record=record,
                followup=True,
            )
            record.followup_ids.append(message.id)
        if not call.flag("wait"):
            return Reply(204)
        return Reply(200, message.payload())

    async def get_webhook_msg(self, call: Call) -> Reply:
        record = self._webhook_record(call)
        if isinstance(record, Reply):
            return record
        message = self._webhook_message(call, record)
        return message if isinstance(message, Reply) else Reply(200, message.payload())

    async def edit_webhook_msg(self, call: Call) -> Reply:
        record = self._webhook_record(call)
        if isinstance(record, Reply):
            return record
        message = self._webhook_message(call, record)
        if isinstance(message, Reply):
            return message
        what = f"{record.description}: edit of message {message.id}"
        refused = self._refused_message(
            what, call.body, call.uploads, creating=False, via_interaction=True, existing=message
        )
        if refused is not None:
            return refused
        finish = record.loading and message.id == record.original_message_id
        edited = self.fake.edit_message(
            message, call.body or {}, call.uploads, finish_loading=finish
        )
        if finish:
            record.loading = False
        return Reply(200, edited.payload())

    async def delete_webhook_msg(self, call: Call) -> Reply:
        record = self._webhook_record(call)
        if isinstance(record, Reply):
            return record
        message = self._webhook_message(call, record)
        if isinstance(message, Reply):
            return message
        self.fake.delete_message(message)
        if message.id == record.original_message_id:
            record.loading = False
        return Reply(204)

    # -- channels ---------------------------------------------------------------------------

    async def get_channel(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        return Reply(200, channel.payload())

    async def typing(self, call: Call) -> Reply:
        if self._channel(call) is None:
            return discord_error(404, 10003, "Unknown Channel")
        return Reply(204)

    def _channel_message(self, call: Call, channel: FakeChannel) -> FakeMessage | Reply:
        try:
            message = self.fake.messages.get(int(call.params["message_id"]))
        except ValueError:
            message = None
        if message is None or message.deleted or message.channel_id != channel.id:
            return discord_error(404, 10008, "Unknown Message")
        if message.ephemeral:
            self.fake.violation(
                f"{call.method} {API_PREFIX}{call.path}: message {message.id} is ephemeral; "
                "ephemeral messages are only reachable through the interaction webhook "
                "(interaction.edit_original_response / followup), Discord answers 404 / 10008"
            )
            return discord_error(404, 10008, "Unknown Message")
        return message

    async def send_message(self, call: Call) -> Reply:
        fake = self.fake
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        what = f"POST message to {channel!r}"
        refused = self._refused_message(
            what, call.body, call.uploads, creating=True, via_interaction=False
        )
        if refused is not None:
            return refused
        body: Mapping[str, Any] = call.body
        if channel.type == DM:
            assert channel.recipient is not None
            if channel.recipient.dms_closed or not fake.shares_guild(channel.recipient):
                return discord_error(403, 50007, "Cannot send messages to this user")
        if not unarchive_on_send(fake, channel):
            return discord_error(400, 50083, "Thread is archived")
        message = fake.create_message(channel, body, call.uploads)
        return Reply(200, message.payload())

    async def get_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        message = self._channel_message(call, channel)
        return message if isinstance(message, Reply) else Reply(200, message.payload())

    async def edit_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        message = self._channel_message(call, channel)
        if isinstance(message, Reply):
            return message
        if channel.is_thread and channel.archived:
            return discord_error(400, 50083, "Thread is archived")
        what = f"PATCH message {message.id} in {channel!r}"
        refused = self._refused_message(
            what, call.body, call.uploads, creating=False, via_interaction=False, existing=message
        )
        if refused is not None:
            return refused
        return Reply(200, self.fake.edit_message(message, call.body or {}, call.uploads).payload())

    async def delete_message(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        message = self._channel_message(call, channel)
        if isinstance(message, Reply):
            return message
        self.fake.delete_message(message)
        return Reply(204)

    async def history(self, call: Call) -> Reply:
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        try:
            limit = int(call.query.get("limit", "50"))
        except ValueError:
            limit = 50
        if not 1 <= limit <= 100:
            return self._invalid(
                "GET history",
                [Problem(("limit",), "NUMBER_TYPE_MAX", "limit must be between 1 and 100")],
            )
        messages = self.fake.channel_messages(channel)
        if "before" in call.query:
            messages = [m for m in messages if m.id < int(call.query["before"])]
        if "after" in call.query:
            messages = [m for m in messages if m.id > int(call.query["after"])]
            messages = messages[:limit]
        if "around" in call.query:
            around = int(call.query["around"])
            older = [m for m in messages if m.id <= around][-((limit + 1) // 2) :]
            newer = [m for m in messages if m.id > around][: limit // 2]
            messages = older + newer
        messages = messages[-limit:]
        return Reply(200, [m.payload() for m in reversed(messages)])

    async def create_thread(self, call: Call) -> Reply:
        fake = self.fake
        channel = self._channel(call)
        if channel is None:
            return discord_error(404, 10003, "Unknown Channel")
        if channel.type != GUILD_TEXT:
            return discord_error(400, 50024, "Cannot execute action on this channel type")
        assert channel.guild is not None
        held = fake.bot_permissions & channel.guild.permissions_of(fake.bot_user)
        if not held & CREATE_PUBLIC_THREADS:  # the fake's bot-wide permissions, or its roles'
            return discord_error(403, 50013, "Missing Permissions")
        body = call.body if isinstance(call.body, Mapping) else {}
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            return self._invalid(
                "create thread",
                [
                    Problem(
                        ("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
                    )
                ],
            )
        duration = body.get("auto_archive_duration", 1440)
        if "message_id" in call.params:
            message = self._channel_message(call, channel)
            if isinstance(message, Reply):
                return message
            if message.thread is not None:
                return discord_error(
                    400, 160004, "A thread has already been created for this message"
                )
            thread = fake.create_thread(channel, name, PUBLIC_THREAD, thread_id=message.id)
            fake.attach_thread(message, thread)
        else:
            kind = int(body.get("type") or PRIVATE_THREAD)
            if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
                return discord_error(400, 50035, "Invalid thread type")
            thread = fake.create_thread(channel, name, kind)
        thread.auto_archive_duration = int(duration)
        return Reply(201, thread.payload())
