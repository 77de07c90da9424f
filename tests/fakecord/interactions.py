"""Interactions: what a scripted user's slash command, click, select or modal submit sends.

:class:`Actions` builds the INTERACTION_CREATE payload exactly as the Discord client would (for
clicks: including the full message object with its components, from the snapshot the user
clicked), dispatches it over the gateway and waits for the bot's initial response.
:class:`InteractionRecord` is the fake's bookkeeping for one interaction (deadline, response,
follow-ups); tests get an :class:`InteractionHandle` to look at the outcome.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .commands import (
    ATTACHMENT,
    CHANNEL,
    MENTIONABLE,
    ROLE,
    USER,
    JSONDict,
    build_chat_input_data,
)
from .errors import ActionRefused, CommandUnavailable, SchemaMismatch
from .messages import (
    ACTION_ROW,
    BUTTON,
    LABEL,
    STRING_SELECT,
    TEXT_DISPLAY,
    TEXT_INPUT,
    FakeMessage,
    walk_components,
)
from .world import ADMINISTRATOR, ALL_PERMISSIONS, FakeChannel, FakeRole, FakeUser

if TYPE_CHECKING:
    from .server import FakeDiscord

# Interaction types
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
MODAL_SUBMIT = 5
# Interaction callback types
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
MODAL = 9
CALLBACK_NAMES = {
    1: "PONG",
    4: "CHANNEL_MESSAGE_WITH_SOURCE",
    5: "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE",
    6: "DEFERRED_UPDATE_MESSAGE",
    7: "UPDATE_MESSAGE",
    8: "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT",
    9: "MODAL",
}
ALLOWED_CALLBACKS = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    MESSAGE_COMPONENT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
        MODAL,
    },
    MODAL_SUBMIT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
    },
}
# Interaction contexts
CONTEXT_GUILD = 0
CONTEXT_BOT_DM = 1
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


@dataclasses.dataclass(eq=False)
class InteractionRecord:
    """The fake's state for one dispatched interaction."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    description: str
    payload: JSONDict
    done: asyncio.Future[None]
    dispatched_at: float = 0.0
    source_message_id: int | None = None
    response_type: int | None = None
    responded_at: float | None = None
    expired: bool = False
    ephemeral: bool = False
    original_message_id: int | None = None
    loading: bool = False
    followup_ids: list[int] = dataclasses.field(default_factory=list)
    modal: JSONDict | None = None
    modal_submitted: bool = False
    timer: asyncio.TimerHandle | None = None
    #: The gateway session it was dispatched on, and that session's ``(shard id, count)``.
    session_id: str | None = None
    shard: tuple[int, int] | None = None

    @property
    def finished(self) -> bool:
        """Answered, or past its deadline (then a violation was recorded)."""
        return self.response_type is not None or self.expired


class InteractionHandle:
    """What a test gets back from ``slash``/``click``/``select``/``submit_modal``."""

    def __init__(self, fake: FakeDiscord, record: InteractionRecord) -> None:
        self._fake = fake
        self.record = record

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def responded(self) -> bool:
        return self.record.response_type is not None

    @property
    def response_type(self) -> int | None:
        """The callback type the bot answered with (4, 5, 6, 7 or 9), or None."""
        return self.record.response_type

    @property
    def ephemeral(self) -> bool:
        return self.record.ephemeral

    @property
    def response_message(self) -> FakeMessage | None:
        """Latest version of the message the initial response created (4/5) or edited (6/7)."""
        mid = self.record.original_message_id
        return None if mid is None else self._fake.messages.get(mid)

    @property
    def followups(self) -> list[FakeMessage]:
        """Latest versions of the follow-up messages, in order."""
        return [self._fake.messages[m] for m in self.record.followup_ids]

    @property
    def modal(self) -> JSONDict | None:
        """The modal the bot opened (callback type 9), as sent."""
        return self.record.modal

    def __repr__(self) -> str:
        return (
            f"<InteractionHandle {self.record.description!r} response_type="
            f"{self.record.response_type} ephemeral={self.record.ephemeral}>"
        )


def _permissions_satisfy(held: int, required_field: Any) -> bool:
    if required_field is None:
        return True
    required = int(required_field)
    if held == ALL_PERMISSIONS or held & ADMINISTRATOR:
        return True
    if required == 0:
        return False
    return held & required == required


class Actions:
    """Builds and dispatches the interactions of scripted users."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake

    # -- common -----------------------------------------------------------------------------

    def _check_membership(self, user: FakeUser, channel: FakeChannel) -> None:
        if channel.is_dm:
            if channel.recipient is not user:
                raise ActionRefused(f"{user!r} cannot act in {channel!r} (not their DM)")
        elif channel.guild is None or channel.guild.member(user) is None:
            raise ActionRefused(f"{user!r} is not a member of the guild of {channel!r}")

    def _base_payload(
        self, kind: int, user: FakeUser, channel: FakeChannel, data: JSONDict
    ) -> tuple[int, str, JSONDict]:
        fake = self.fake
        interaction_id = fake.ids.next()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(96)
        payload: JSONDict = {
            "id": str(interaction_id),
            "application_id": str(fake.application_id),
            "type": kind,
            "data": data,
            "channel_id": str(channel.id),
            "token": token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        channel_payload = channel.payload()
        if channel.is_dm:
            payload["user"] = user.payload()
            payload["context"] = CONTEXT_BOT_DM
            payload["authorizing_integration_owners"] = {"0": "0"}
            payload["app_permissions"] = str(fake.bot_permissions)
        else:
            guild = channel.guild
            assert guild is not None
            member = guild.member(user)
            assert member is not None
            payload["guild_id"] = str(guild.id)
            payload["guild"] = guild.partial_payload()
            payload["guild_locale"] = "en-US"
            payload["member"] = member.payload(with_permissions=True)
            payload["context"] = CONTEXT_GUILD
            payload["authorizing_integration_owners"] = {"0": str(guild.id)}
            payload["app_permissions"] = str(guild.permissions_of(fake.bot_user))
            channel_payload["permissions"] = str(guild.permissions_of(user))
        payload["channel"] = channel_payload
        return interaction_id, token, payload

    async def _dispatch(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: JSONDict,
        description: str,
        *,
        message: FakeMessage | None = None,
        message_payload: JSONDict | None = None,
    ) -> InteractionHandle:
        interaction_id, token, payload = self._base_payload(kind, user, channel, data)
        if message is not None:
            message_payload = message.payload()
        if message_payload is not None:
            payload["message"] = message_payload
        record = InteractionRecord(
            id=interaction_id,
            token=token,
            type=kind,
            user=user,
            channel=channel,
            description=description,
            payload=payload,
            done=asyncio.get_running_loop().create_future(),
            source_message_id=None if message_payload is None else int(message_payload["id"]),
        )
        self.fake.dispatch_interaction(record)
        await asyncio.shield(record.done)
        return InteractionHandle(self.fake, record)

    # -- slash commands ---------------------------------------------------------------------

    def _resolver(self, channel: FakeChannel) -> Any:
        guild = channel.guild

        def resolve(kind: int, value: Any) -> tuple[str, dict[str, dict[str, JSONDict]]]:
            if kind in (USER, MENTIONABLE) and isinstance(value, FakeUser):
                fragment: dict[str, dict[str, JSONDict]] = {
                    "users": {str(value.id): value.payload()}
                }
                member = guild.member(value) if guild is not None else None
                if member is not None:
                    fragment["members"] = {
                        str(value.id): member.payload(with_user=False, with_permissions=True)
                    }
                return str(value.id), fragment
            if kind in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
                return str(value.id), {"roles": {str(value.id): value.payload()}}
            if kind == CHANNEL and isinstance(value, FakeChannel):
                entry = value.payload()
                keep = ("id", "name", "type", "parent_id", "thread_metadata", "guild_id")
                resolved = {k: entry[k] for k in keep if k in entry}
                if guild is not None:
                    resolved["permissions"] = str(guild.permissions_of(self.fake.bot_user))
                return str(value.id), {"channels": {str(value.id): resolved}}
            if kind == ATTACHMENT:
                raise SchemaMismatch("ATTACHMENT options are not supported by the fake")
            raise SchemaMismatch(f"value {value!r} does not fit option type {kind}")

        return resolve

    def _find_command(self, user: FakeUser, channel: FakeChannel, name: str) -> JSONDict:
        fake = self.fake
        command: JSONDict | None = None
        if channel.guild is not None:
            command = channel.guild.commands.chat_input(name)
        if command is None:
            command = fake.global_commands.chat_input(name)
        if command is None:
            synced = fake.global_commands.names()
            if channel.guild is not None:
                synced += channel.guild.commands.names()
            raise SchemaMismatch(f"no synced slash command /{name}; synced commands: {synced}")
        context = CONTEXT_BOT_DM if channel.is_dm else CONTEXT_GUILD
        contexts = command.get("contexts")
        if contexts is not None and context not in contexts:
            raise CommandUnavailable(f"/{name} is not offered in context {context} ({contexts})")
        if channel.is_dm and command.get("dm_permission") is False and contexts is None:
            raise CommandUnavailable(f"/{name} has dm_permission=False")
        integration_types = command.get("integration_types")
        if integration_types is not None and 0 not in integration_types:
            raise CommandUnavailable(f"/{name} is not a guild-install command")
        if channel.guild is not None:
            held = channel.guild.permissions_of(user)
            granted = user.id in channel.guild.command_grants.get(name, set())
            if not granted and not _permissions_satisfy(
                held, command.get("default_member_permissions")
            ):
                raise CommandUnavailable(
                    f"/{name} needs default_member_permissions="
                    f"{command.get('default_member_permissions')}; {user.name} has {held}"
                )
        return command

    async def slash(
        self, user: FakeUser, channel: FakeChannel, command: str, values: Mapping[str, Any]
    ) -> InteractionHandle:
        self._check_membership(user, channel)
        tokens = command.strip().lstrip("/").split()
        if not tokens:
            raise SchemaMismatch("empty command")
        schema = self._find_command(user, channel, tokens[0])
        data = build_chat_input_data(schema, tokens[1:], values, self._resolver(channel))
        shown = " ".join(f"{k}={v!r}" for k, v in values.items())
        description = f"/{' '.join(tokens)} {shown}".rstrip() + f" by {user.name} in {channel!r}"
        return await self._dispatch(APPLICATION_COMMAND, user, channel, data, description)

    # -- components -------------------------------------------------------------------------

    def _check_can_see(self, user: FakeUser, message: FakeMessage) -> FakeChannel:
        latest = self.fake.messages.get(message.id)
        if latest is None:
            raise ActionRefused(f"message {message.id} does not exist")
        if latest.deleted:
            raise ActionRefused(f"message {message.id} was deleted")
        if message.ephemeral_for is not None and message.ephemeral_for != user.id:
            raise ActionRefused(
                f"{user!r} cannot see message {message.id}: it is ephemeral for "
                f"user {message.ephemeral_for}"
            )
        channel = self.fake.channels[message.channel_id]
        self._check_membership(user, channel)
        return channel

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        label: str | None,
        custom_id: str | None,
    ) -> InteractionHandle:
        channel = self._check_can_see(user, message)
        try:
            button = message.find_button(label, custom_id=custom_id)
        except LookupError as exc:
            raise ActionRefused(str(exc)) from None
        if button.get("disabled"):
            raise ActionRefused(
                f"button {button.get('label')!r} on message {message.id} is disabled"
            )
        if button.get("style") in (5, 6):
            raise ActionRefused(
                f"button {button.get('label')!r} is a link/premium button; it sends no interaction"
            )
        data: JSONDict = {"custom_id": button["custom_id"], "component_type": BUTTON}
        if "id" in button:
            data["id"] = button["id"]
        description = (
            f"click {button.get('label')!r} (custom_id {button['custom_id']!r}) by {user.name} "
            f"on message {message.id} v{message.version}"
        )
        return await self._dispatch(
            MESSAGE_COMPONENT, user, channel, data, description, message=message
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        picked: Sequence[str],
        placeholder: str | None,
        custom_id: str | None,
        *,
        forged: bool = False,
    ) -> InteractionHandle:
        channel = self._check_can_see(user, message)
        selects = message.selects()
        if custom_id is not None:
            selects = [s for s in selects if s.custom_id == custom_id]
        if placeholder is not None:
            selects = [s for s in selects if s.placeholder == placeholder]
        if len(selects) != 1:
            raise ActionRefused(
                f"expected exactly one matching select on message {message.id}, found "
                f"{len(selects)} (custom_id={custom_id!r}, placeholder={placeholder!r}); "
                f"selects: {[(s.custom_id, s.placeholder) for s in message.selects()]}"
            )
        menu = selects[0]
        if menu.disabled:
            raise ActionRefused(f"select {menu.custom_id!r} is disabled")
        if menu.type != STRING_SELECT:
            raise ActionRefused("only string selects can be scripted")
        values: list[str] = list(picked) if forged else []
        for wanted in [] if forged else picked:
            option = next((o for o in menu.options if o.value == wanted), None)
            if option is None:
                option = next((o for o in menu.options if o.label == wanted), None)
            if option is None:
                raise ActionRefused(
                    f"select {menu.custom_id!r} has no option {wanted!r}; options: "
                    f"{[(o.label, o.value) for o in menu.options]}"
                )
            values.append(option.value)
        if not menu.min_values <= len(values) <= menu.max_values:
            raise ActionRefused(
                f"select {menu.custom_id!r} takes {menu.min_values}..{menu.max_values} values, "
                f"got {len(values)}"
            )
        raw = next(
            c
            for c in walk_components(message.components)
            if c.get("custom_id") == menu.custom_id and c.get("type") == menu.type
        )
        data: JSONDict = {
            "custom_id": menu.custom_id,
            "component_type": menu.type,
            "values": values,
        }
        if "id" in raw:
            data["id"] = raw["id"]
        description = (
            f"select {values} in {menu.custom_id!r} by {user.name} on message {message.id} "
            f"v{message.version}"
        )
        return await self._dispatch(
            MESSAGE_COMPONENT, user, channel, data, description, message=message
        )

    # -- modals -----------------------------------------------------------------------------

    async def submit_modal(
        self, user: FakeUser, opened: InteractionHandle, values: Mapping[str, str]
    ) -> InteractionHandle:
        record = opened.record
        if record.modal is None:
            raise ActionRefused(f"{opened!r} did not open a modal")
        if record.user is not user:
            raise ActionRefused("only the user who opened a modal can submit it")
        if record.modal_submitted:
            raise ActionRefused("this modal was already submitted")
        remaining = dict(values)
        components = [_submitted(c, remaining) for c in record.modal.get("components", [])]
        if remaining:
            raise ActionRefused(f"modal has no inputs {sorted(remaining)}")
        record.modal_submitted = True
        data: JSONDict = {"custom_id": record.modal["custom_id"], "components": components}
        description = f"modal {record.modal['custom_id']!r} submitted by {user.name}"
        source = record.payload.get("message")
        return await self._dispatch(
            MODAL_SUBMIT, user, record.channel, data, description, message_payload=source
        )


def _submitted(component: Mapping[str, Any], values: dict[str, str]) -> JSONDict:
    kind = component.get("type")
    out: JSONDict = {"type": kind}
    if "id" in component:
        out["id"] = component["id"]
    if kind == ACTION_ROW:
        out["components"] = [_submitted(c, values) for c in component.get("components", [])]
    elif kind == LABEL:
        child = dict(component["component"])
        child.setdefault("label", component.get("label"))
        out["component"] = _submitted(child, values)
    elif kind == TEXT_INPUT:
        custom_id = str(component["custom_id"])
        label = component.get("label")
        if custom_id in values:
            value = values.pop(custom_id)
        elif label is not None and label in values:
            value = values.pop(label)
        else:
            value = str(component.get("value") or "")
        if component.get("required", True) and not value:
            raise ActionRefused(f"modal input {custom_id!r} ({label!r}) is required")
        low, high = component.get("min_length"), component.get("max_length")
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            raise ActionRefused(f"modal input {custom_id!r} must be {low}..{high} characters")
        out.update({"custom_id": custom_id, "value": value})
    elif kind == STRING_SELECT:
        custom_id = str(component["custom_id"])
        raw = values.pop(custom_id, None) or values.pop(str(component.get("label")), None)
        out.update({"custom_id": custom_id, "values": [] if raw is None else [raw]})
    elif kind == TEXT_DISPLAY:
        pass
    return out
