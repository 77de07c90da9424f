"""The fake Discord's world: users, guilds, roles, members and channels.

Each object knows how to render itself as the JSON Discord sends.  :class:`FakeUser` doubles as
the scripted user of end-to-end tests (``await alice.slash(...)``, ``await bob.click(...)``,
``alice.view(channel)``); the actions are implemented in :mod:`tests.fakecord.interactions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import discord

from .commands import CommandScope
from .ids import iso_now

if TYPE_CHECKING:
    from .interactions import InteractionHandle
    from .messages import FakeMessage
    from .server import FakeDiscord

JSONDict = dict[str, Any]

# Channel types
GUILD_TEXT = 0
DM = 1
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({PUBLIC_THREAD, PRIVATE_THREAD})

# Permission bits
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
VIEW_CHANNEL = 1 << 10
ALL_PERMISSIONS = discord.Permissions.all().value
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    create_instant_invite=True,
    add_reactions=True,
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    use_external_emojis=True,
    connect=True,
    speak=True,
    change_nickname=True,
    use_application_commands=True,
    create_public_threads=True,
    create_private_threads=True,
    send_messages_in_threads=True,
).value
DEFAULT_BOT_PERMISSIONS = (
    DEFAULT_EVERYONE_PERMISSIONS
    | discord.Permissions(manage_messages=True, manage_threads=True).value
)


def _permission_value(permissions: int | discord.Permissions) -> int:
    return permissions.value if isinstance(permissions, discord.Permissions) else int(permissions)


class FakeRole:
    """A guild role.  The @everyone role has the guild's id."""

    def __init__(
        self,
        *,
        id: int,
        guild_id: int,
        name: str,
        permissions: int,
        position: int,
        managed: bool = False,
        bot_id: int | None = None,
    ) -> None:
        self.id = id
        self.guild_id = guild_id
        self.name = name
        self.permissions = permissions
        self.position = position
        self.managed = managed
        self.bot_id = bot_id

    def payload(self) -> JSONDict:
        out: JSONDict = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            out["tags"] = {"bot_id": str(self.bot_id)}
        return out

    def __repr__(self) -> str:
        return f"<FakeRole {self.name!r} id={self.id} permissions={self.permissions}>"


class FakeUser:
    """A Discord user; in tests also the scripted person clicking and typing commands."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        id: int,
        name: str,
        bot: bool = False,
        global_name: str | None = None,
    ) -> None:
        self.fake = fake
        self.id = id
        self.name = name
        self.global_name = global_name
        self.bot = bot
        #: When True, the bot's DMs to this user fail with 403 / code 50007.
        self.dms_closed = False
        #: Sent as the interaction ``locale``.
        self.locale = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> JSONDict:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "avatar_decoration_data": None,
            "banner": None,
            "accent_color": None,
            "primary_guild": None,
            "collectibles": None,
        }

    # -- scripted actions -------------------------------------------------------------------

    async def slash(
        self,
        channel: FakeChannel,
        command: str,
        opts: Mapping[str, Any] | None = None,
        /,
        **options: Any,
    ) -> InteractionHandle:
        """Invokes ``/command sub... option=value`` in ``channel``.

        Returns once the bot sent its initial response (or the response deadline passed).
        Options whose names are not Python identifiers go in ``opts``.  Raises
        :class:`SchemaMismatch` if the call does not fit the synced command schema and
        :class:`CommandUnavailable` if Discord would not offer the command to this user there.
        """
        values = {**(opts or {}), **options}
        return await self.fake.actions.slash(self, channel, command, values)

    async def click(
        self,
        message: FakeMessage,
        label: str | None = None,
        *,
        custom_id: str | None = None,
        settle_first: bool = True,
    ) -> InteractionHandle:
        """Clicks a button of this snapshot of ``message`` (by label, or by ``custom_id=``).

        Raises :class:`ActionRefused` if the button is absent, disabled or a link, or if this user
        cannot see the message.  With ``settle_first`` (default) the fake first waits for the bot
        to settle: discord.py registers a message's View only *after* the HTTP response that
        created the message returns, so a click sent at once could beat that registration.
        Pass ``settle_first=False`` for deliberate concurrency (several users clicking at once).
        """
        if settle_first:
            await self.fake.settle()
        return await self.fake.actions.click(self, message, label, custom_id)

    async def select(
        self,
        message: FakeMessage,
        values: str | Sequence[str],
        *,
        placeholder: str | None = None,
        custom_id: str | None = None,
        settle_first: bool = True,
        forged: bool = False,
    ) -> InteractionHandle:
        """Picks option(s), by value or label, in a string select of this snapshot.

        The select is found by ``custom_id``/``placeholder``, or is the only one on the message.
        ``settle_first`` as for :meth:`click`. ``forged`` sends ``values`` as they are, options
        or not: what a hostile client could put in an interaction payload."""
        if settle_first:
            await self.fake.settle()
        picked = [values] if isinstance(values, str) else list(values)
        return await self.fake.actions.select(
            self, message, picked, placeholder, custom_id, forged=forged
        )

    async def submit_modal(
        self, opened: InteractionHandle, values: Mapping[str, str], *, settle_first: bool = True
    ) -> InteractionHandle:
        """Submits the modal the bot opened in answer to ``opened`` (values by custom_id/label).

        ``settle_first`` as for :meth:`click` (discord.py stores the Modal after its response)."""
        if settle_first:
            await self.fake.settle()
        return await self.fake.actions.submit_modal(self, opened, values)

    # -- what this user sees ----------------------------------------------------------------

    def view(self, channel: FakeChannel) -> list[FakeMessage]:
        """Messages this user sees in ``channel``: public ones plus their own ephemerals."""
        return self.fake.visible_messages(channel, self)

    def dms(self) -> list[FakeMessage]:
        """The bot's messages in this user's DM channel (latest versions)."""
        channel = self.fake.dm_channels.get(self.id)
        return [] if channel is None else self.fake.visible_messages(channel, self)

    @property
    def dm_channel(self) -> FakeChannel:
        """The DM channel between the bot and this user (created on first use)."""
        return self.fake.dm_channel_for(self)

    def __repr__(self) -> str:
        return f"<FakeUser {self.name!r} id={self.id}{' bot' if self.bot else ''}>"


class FakeMember:
    """A user's membership in a guild."""

    def __init__(
        self, user: FakeUser, guild: FakeGuild, roles: list[FakeRole], nick: str | None
    ) -> None:
        self.user = user
        self.guild = guild
        self.roles = roles
        self.nick = nick
        self.joined_at = iso_now()

    def permissions(self) -> int:
        """Guild-level permissions (a channel's overwrites are not applied here)."""
        return self.guild.permissions_of(self.user)

    def payload(self, *, with_user: bool = True, with_permissions: bool = False) -> JSONDict:
        out: JSONDict = {
            "roles": [str(r.id) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "premium_since": None,
            "joined_at": self.joined_at,
            "pending": False,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "communication_disabled_until": None,
            "unusual_dm_activity_until": None,
        }
        if with_user:
            out["user"] = self.user.payload()
        if with_permissions:
            out["permissions"] = str(self.permissions())
        return out

    def __repr__(self) -> str:
        return f"<FakeMember {self.user.name!r} in {self.guild.name!r}>"


class FakeChannel:
    """A text channel, thread or DM channel."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        id: int,
        type: int,
        name: str | None,
        guild: FakeGuild | None = None,
        position: int = 0,
        parent_id: int | None = None,
        recipient: FakeUser | None = None,
        owner_id: int | None = None,
        topic: str | None = None,
    ) -> None:
        self.fake = fake
        self.id = id
        self.type = type
        self.name = name
        self.guild = guild
        self.position = position
        self.parent_id = parent_id
        self.recipient = recipient
        self.owner_id = owner_id
        self.topic = topic
        #: Discord's ``permission_overwrites`` of a guild text channel (see
        #: :meth:`FakeGuild.add_text_channel`'s ``visible_to``).
        self.overwrites: list[JSONDict] = []
        self.last_message_id: int | None = None
        self.message_count = 0
        self.created_at = iso_now()
        #: A thread's state (tests/fakecord/threads.py).
        self.archived = False
        self.auto_archive_duration = 1440
        self.locked = False

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> JSONDict:
        if self.type == DM:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": _opt(self.last_message_id),
                "flags": 0,
                "recipients": [self.recipient.payload()],
            }
        assert self.guild is not None
        out: JSONDict = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "parent_id": _opt(self.parent_id),
            "last_message_id": _opt(self.last_message_id),
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            out.update(
                {
                    "owner_id": _opt(self.owner_id),
                    "message_count": self.message_count,
                    "member_count": 1,
                    "total_message_sent": self.message_count,
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": self.auto_archive_duration,
                        "archive_timestamp": self.created_at,
                        "locked": self.locked,
                        "invitable": True,
                        "create_timestamp": self.created_at,
                    },
                }
            )
        else:
            out.update(
                {
                    "position": self.position,
                    "permission_overwrites": self.overwrites,
                    "nsfw": False,
                    "topic": self.topic,
                    "default_thread_rate_limit_per_user": 0,
                }
            )
        return out

    def __repr__(self) -> str:
        kind = {GUILD_TEXT: "text", DM: "dm", PUBLIC_THREAD: "thread", PRIVATE_THREAD: "thread"}
        label = self.name if self.name else f"with {self.recipient!r}"
        return f"<FakeChannel {kind.get(self.type, self.type)} {label} id={self.id}>"


def _opt(snowflake: int | None) -> str | None:
    return None if snowflake is None else str(snowflake)


class FakeGuild:
    """A guild (server) the bot is in."""

    def __init__(self, fake: FakeDiscord, *, id: int, name: str, owner_id: int) -> None:
        self.fake = fake
        self.id = id
        self.name = name
        self.owner_id = owner_id
        self.channels: list[FakeChannel] = []
        self.members: dict[int, FakeMember] = {}
        self.roles: dict[int, FakeRole] = {}
        self.everyone = FakeRole(
            id=id,
            guild_id=id,
            name="@everyone",
            permissions=DEFAULT_EVERYONE_PERMISSIONS,
            position=0,
        )
        self.roles[id] = self.everyone
        #: Commands the bot synced to this guild.
        self.commands = CommandScope(fake.ids, fake.application_id, id)
        self.system_channel_id: int | None = None
        #: The server's own grants (Server Settings → Integrations): command name → members who
        #: may use it whatever its default member permissions.
        self.command_grants: dict[str, set[int]] = {}
        self.created_at = iso_now()

    # -- building the world -----------------------------------------------------------------

    def add_text_channel(
        self, name: str, *, topic: str | None = None, visible_to: Iterable[FakeUser] | None = None
    ) -> FakeChannel:
        """A text channel; with ``visible_to``, a private one: View Channel denied to @everyone
        and allowed to those users, as channel overwrites (in its payload, for the bot's
        ``permissions_for``; the fake itself does not refuse anyone there)."""
        channel = FakeChannel(
            self.fake,
            id=self.fake.ids.next(),
            type=GUILD_TEXT,
            name=name,
            guild=self,
            position=len([c for c in self.channels if not c.is_thread]),
            topic=topic,
        )
        if visible_to is not None:
            channel.overwrites = [
                {"id": str(self.id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)},
                *(
                    {"id": str(user.id), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"}
                    for user in visible_to
                ),
            ]
        self.channels.append(channel)
        self.fake.register_channel(channel)
        return channel

    def add_role(self, name: str, permissions: int | discord.Permissions = 0) -> FakeRole:
        role = FakeRole(
            id=self.fake.ids.next(),
            guild_id=self.id,
            name=name,
            permissions=_permission_value(permissions),
            position=len(self.roles),
        )
        self.roles[role.id] = role
        self.fake.on_role_created(self, role)
        return role

    def add_member(
        self,
        user: FakeUser,
        *,
        permissions: int | discord.Permissions = 0,
        roles: Iterable[FakeRole] = (),
        nick: str | None = None,
    ) -> FakeMember:
        """Adds ``user`` to the guild.  ``permissions`` (e.g. ``MANAGE_GUILD``) are granted
        through a role made for this member, so ``guild_permissions`` and
        ``interaction.permissions`` both see them."""
        member_roles = list(roles)
        value = _permission_value(permissions)
        if value:
            member_roles.append(self.add_role(f"{user.name}-permissions", value))
        member = FakeMember(user, self, member_roles, nick)
        self.members[user.id] = member
        self.fake.on_member_added(self, member)
        return member

    def member(self, user: FakeUser) -> FakeMember | None:
        return self.members.get(user.id)

    def permissions_of(self, user: FakeUser) -> int:
        if user.id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user.id)
        if member is None:
            return 0
        value = self.everyone.permissions
        for role in member.roles:
            value |= role.permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    # -- wire format ------------------------------------------------------------------------

    def partial_payload(self) -> JSONDict:
        """The ``guild`` object inside interactions."""
        return {"id": str(self.id), "locale": "en-US", "features": []}

    def payload(self) -> JSONDict:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": _opt(self.system_channel_id),
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
            "max_video_channel_users": 25,
        }

    def create_payload(self, *, include_all_members: bool) -> JSONDict:
        """GUILD_CREATE: without the GUILD_MEMBERS intent Discord sends only the bot's member."""
        members = [
            m.payload()
            for m in self.members.values()
            if include_all_members or m.user.id == self.fake.bot_user.id
        ]
        return {
            **self.payload(),
            "unavailable": False,
            "joined_at": self.created_at,
            "large": False,
            "member_count": len(self.members),
            "members": members,
            "channels": [c.payload() for c in self.channels if not c.is_thread],
            "threads": [c.payload() for c in self.channels if c.is_thread],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
        }

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name!r} id={self.id}>"
