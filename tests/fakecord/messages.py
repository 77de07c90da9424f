"""Message records of the fake Discord.

A :class:`FakeMessage` is an immutable snapshot of one version of a message.  The fake keeps the
latest version of every message; each edit stores a new snapshot with ``version + 1``.  Tests hold
on to snapshots freely: clicking a button on an old snapshot sends the *old* components, exactly
like a Discord client that has not re-rendered yet.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

JSONDict = dict[str, Any]

FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# Component types (https://discord.com/developers/docs/components/reference)
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
USER_SELECT = 5
ROLE_SELECT = 6
MENTIONABLE_SELECT = 7
CHANNEL_SELECT = 8
SECTION = 9
TEXT_DISPLAY = 10
THUMBNAIL = 11
MEDIA_GALLERY = 12
FILE = 13
SEPARATOR = 14
CONTAINER = 17
LABEL = 18
SELECT_TYPES = frozenset(
    {STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT}
)


class ButtonInfo(NamedTuple):
    """A button as a user sees it: ``(label, custom_id, disabled, style)``."""

    label: str
    custom_id: str | None
    disabled: bool
    style: int


class SelectOptionInfo(NamedTuple):
    label: str
    value: str
    description: str | None
    default: bool


class SelectInfo(NamedTuple):
    """A select menu: its custom_id, placeholder, options and value bounds."""

    custom_id: str
    placeholder: str | None
    options: tuple[SelectOptionInfo, ...]
    min_values: int
    max_values: int
    disabled: bool
    type: int


@dataclasses.dataclass(frozen=True, eq=False)
class FakeAttachment:
    """A file attached to a message, with its bytes."""

    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self) -> JSONDict:
        out: JSONDict = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "flags": 0,
        }
        if self.content_type is not None:
            out["content_type"] = self.content_type
        if self.description is not None:
            out["description"] = self.description
        return out


def walk_components(components: Sequence[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """Every component, depth first, including ones nested in rows, sections and containers."""
    for component in components:
        if not isinstance(component, Mapping):
            continue
        yield component
        children = component.get("components")
        if isinstance(children, list):
            yield from walk_components(children)
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, Mapping):
                yield from walk_components([child])


def _button_label(component: Mapping[str, Any]) -> str:
    label = component.get("label")
    if label:
        return str(label)
    emoji = component.get("emoji")
    if isinstance(emoji, Mapping) and emoji.get("name"):
        return str(emoji["name"])
    return ""


@dataclasses.dataclass(frozen=True, eq=False)
class FakeMessage:
    """One version of a message, as Discord stores it.

    ``ephemeral_for`` is the id of the only user who can see the message, or ``None`` for a
    public message.  ``deleted`` is set on the version stored after a delete.
    """

    id: int
    channel_id: int
    guild_id: int | None
    author: JSONDict
    content: str
    embeds: list[JSONDict]
    components: list[JSONDict]
    attachments: tuple[FakeAttachment, ...]
    flags: int
    ephemeral_for: int | None
    timestamp: str
    deleted: bool = False
    version: int = 0
    edited_timestamp: str | None = None
    type: int = 0
    tts: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_id: int | None = None
    interaction_metadata: JSONDict | None = None
    interaction: JSONDict | None = None
    message_reference: JSONDict | None = None
    thread: JSONDict | None = None

    # -- what a user sees -------------------------------------------------------------------

    @property
    def ephemeral(self) -> bool:
        return self.ephemeral_for is not None

    @property
    def loading(self) -> bool:
        """True while this is the "Bot is thinking..." placeholder of a deferred response."""
        return bool(self.flags & FLAG_LOADING)

    def buttons(self) -> list[ButtonInfo]:
        """All buttons, in display order: ``(label, custom_id, disabled, style)``."""
        return [
            ButtonInfo(
                label=_button_label(c),
                custom_id=c.get("custom_id"),
                disabled=bool(c.get("disabled", False)),
                style=int(c.get("style", 0)),
            )
            for c in walk_components(self.components)
            if c.get("type") == BUTTON
        ]

    def selects(self) -> list[SelectInfo]:
        """All select menus, in display order."""
        out: list[SelectInfo] = []
        for c in walk_components(self.components):
            if c.get("type") not in SELECT_TYPES:
                continue
            options = tuple(
                SelectOptionInfo(
                    label=str(o.get("label", "")),
                    value=str(o.get("value", "")),
                    description=o.get("description"),
                    default=bool(o.get("default", False)),
                )
                for o in c.get("options", []) or []
            )
            out.append(
                SelectInfo(
                    custom_id=str(c.get("custom_id", "")),
                    placeholder=c.get("placeholder"),
                    options=options,
                    min_values=int(c.get("min_values", 1)),
                    max_values=int(c.get("max_values", 1)),
                    disabled=bool(c.get("disabled", False)),
                    type=int(c["type"]),
                )
            )
        return out

    def text(self) -> str:
        """All human-visible text, one piece per line.

        Content, every embed's author/title/description/field names and values/footer, button
        labels, select placeholders and option labels/descriptions, text displays of
        components-v2 messages, and attachment filenames.
        """
        parts: list[str] = []
        if self.content:
            parts.append(self.content)
        if not self.flags & FLAG_SUPPRESS_EMBEDS:
            for embed in self.embeds:
                parts.extend(_embed_texts(embed))
        for c in walk_components(self.components):
            kind = c.get("type")
            if kind == BUTTON:
                label = _button_label(c)
                if label:
                    parts.append(label)
            elif kind in SELECT_TYPES:
                if c.get("placeholder"):
                    parts.append(str(c["placeholder"]))
                for option in c.get("options", []) or []:
                    parts.append(str(option.get("label", "")))
                    if option.get("description"):
                        parts.append(str(option["description"]))
            elif kind == TEXT_DISPLAY and c.get("content"):
                parts.append(str(c["content"]))
        parts.extend(a.filename for a in self.attachments)
        return "\n".join(p for p in parts if p)

    def find_button(self, label: str | None = None, *, custom_id: str | None = None) -> JSONDict:
        """The raw button component with this label (or custom_id); raises LookupError."""
        if (label is None) == (custom_id is None):
            raise ValueError("give exactly one of label or custom_id")
        matches = [
            dict(c)
            for c in walk_components(self.components)
            if c.get("type") == BUTTON
            and (
                (custom_id is not None and c.get("custom_id") == custom_id)
                or (label is not None and _button_label(c) == label)
            )
        ]
        wanted = f"label {label!r}" if label is not None else f"custom_id {custom_id!r}"
        if not matches:
            raise LookupError(
                f"message {self.id} has no button with {wanted}; buttons: {self.buttons()}"
            )
        if len(matches) > 1:
            raise LookupError(
                f"message {self.id} has {len(matches)} buttons with {wanted}; use custom_id="
            )
        return matches[0]

    # -- wire format ------------------------------------------------------------------------

    def payload(self) -> JSONDict:
        """The message object as Discord's REST API and gateway return it."""
        out: JSONDict = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": copy.deepcopy(self.author),
            "content": self.content,
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "attachments": [a.payload() for a in self.attachments],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": self.tts,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            out["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            out["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            out["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            out["interaction_metadata"] = copy.deepcopy(self.interaction_metadata)
        if self.interaction is not None:
            out["interaction"] = copy.deepcopy(self.interaction)
        if self.message_reference is not None:
            out["message_reference"] = copy.deepcopy(self.message_reference)
        if self.thread is not None:
            out["thread"] = copy.deepcopy(self.thread)
        return out

    def __repr__(self) -> str:
        where = f"ephemeral_for={self.ephemeral_for}" if self.ephemeral else "public"
        gone = " deleted" if self.deleted else ""
        return (
            f"<FakeMessage id={self.id} v{self.version} channel={self.channel_id} {where}{gone} "
            f"content={self.content[:40]!r} embeds={len(self.embeds)} "
            f"buttons={[b.label for b in self.buttons()]}>"
        )


def _embed_texts(embed: Mapping[str, Any]) -> list[str]:
    parts: list[str] = []
    author = embed.get("author")
    if isinstance(author, Mapping) and author.get("name"):
        parts.append(str(author["name"]))
    for key in ("title", "description"):
        if embed.get(key):
            parts.append(str(embed[key]))
    for field in embed.get("fields", []) or []:
        if isinstance(field, Mapping):
            parts.append(str(field.get("name", "")))
            parts.append(str(field.get("value", "")))
    footer = embed.get("footer")
    if isinstance(footer, Mapping) and footer.get("text"):
        parts.append(str(footer["text"]))
    return parts
