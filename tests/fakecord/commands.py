"""Application-command storage, sync validation, and slash-invocation building.

The bot syncs its command tree with ``PUT /applications/{app}/commands`` (or the guild variant);
:class:`CommandScope` stores what was synced, with stable ids, and checks the payload against
Discord's limits.  :func:`build_chat_input_data` turns a scripted ``alice.slash(...)`` call into
the ``data`` object of an APPLICATION_COMMAND interaction, raising :class:`SchemaMismatch` if the
call does not fit the synced schema (that is a mistake in the test, not in the bot).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import SchemaMismatch
from .ids import SnowflakeFactory
from .limits import Problem

JSONDict = dict[str, Any]

SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11
OPTION_TYPE_NAMES = {
    SUB_COMMAND: "SUB_COMMAND",
    SUB_COMMAND_GROUP: "SUB_COMMAND_GROUP",
    STRING: "STRING",
    INTEGER: "INTEGER",
    BOOLEAN: "BOOLEAN",
    USER: "USER",
    CHANNEL: "CHANNEL",
    ROLE: "ROLE",
    MENTIONABLE: "MENTIONABLE",
    NUMBER: "NUMBER",
    ATTACHMENT: "ATTACHMENT",
}
CHAT_INPUT = 1
USER_COMMAND = 2
MESSAGE_COMMAND = 3
MAX_SAFE_INTEGER = 2**53

_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


# ----------------------------------------------------------------------------------------------
# Sync validation


def _check_name(name: Any, path: tuple[str | int, ...], *, chat_input: bool) -> list[Problem]:
    if not isinstance(name, str) or not name:
        return [Problem((*path, "name"), "BASE_TYPE_REQUIRED", "name is required")]
    if chat_input and (not _NAME_RE.match(name) or name != name.lower()):
        return [
            Problem(
                (*path, "name"),
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Command name {name!r} is invalid (1-32 lowercase letters, digits, - or _).",
            )
        ]
    if not chat_input and not 1 <= len(name) <= 32:
        return [Problem((*path, "name"), "BASE_TYPE_BAD_LENGTH", "Must be 1-32 characters.")]
    return []


def _check_description(value: Any, path: tuple[str | int, ...], *, required: bool) -> list[Problem]:
    if not required:
        if value not in (None, ""):
            return [
                Problem(
                    (*path, "description"),
                    "APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED",
                    "Context-menu commands must have an empty description.",
                )
            ]
        return []
    if not isinstance(value, str) or not 1 <= len(value) <= 100:
        got = len(value) if isinstance(value, str) else value
        return [
            Problem(
                (*path, "description"),
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and 100 in length (got {got!r}).",
            )
        ]
    return []


def _text_length(command: Mapping[str, Any]) -> int:
    total = len(str(command.get("name", ""))) + len(str(command.get("description", "")))
    for option in command.get("options", []) or []:
        total += _text_length(option)
        for choice in option.get("choices", []) or []:
            total += len(str(choice.get("name", ""))) + len(str(choice.get("value", "")))
    return total


def _check_options(options: Any, path: tuple[str | int, ...], depth: int) -> list[Problem]:
    if options is None:
        return []
    if not isinstance(options, list):
        return [Problem((*path, "options"), "BASE_TYPE_ARRAY", "Must be an array.")]
    problems: list[Problem] = []
    if len(options) > 25:
        problems.append(
            Problem((*path, "options"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        )
    names: set[str] = set()
    seen_optional = False
    kinds = {o.get("type") for o in options if isinstance(o, Mapping)}
    if kinds & {SUB_COMMAND, SUB_COMMAND_GROUP} and kinds - {SUB_COMMAND, SUB_COMMAND_GROUP}:
        problems.append(
            Problem(
                (*path, "options"),
                "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
                "Subcommands cannot be mixed with plain options.",
            )
        )
    for i, option in enumerate(options):
        opath = (*path, "options", i)
        if not isinstance(option, Mapping):
            problems.append(Problem(opath, "MODEL_TYPE_CONVERT", "Must be an object."))
            continue
        kind = option.get("type")
        if kind not in OPTION_TYPE_NAMES:
            problems.append(Problem((*opath, "type"), "BASE_TYPE_CHOICES", f"Bad type {kind!r}"))
            continue
        problems += _check_name(option.get("name"), opath, chat_input=True)
        problems += _check_description(option.get("description"), opath, required=True)
        name = option.get("name")
        if isinstance(name, str):
            if name in names:
                problems.append(
                    Problem(
                        (*opath, "name"),
                        "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS",
                        f"Option name {name!r} is duplicated.",
                    )
                )
            names.add(name)
        if kind == SUB_COMMAND_GROUP:
            if depth != 0:
                problems.append(
                    Problem(opath, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Nested group.")
                )
            sub = option.get("options") or []
            if any(isinstance(s, Mapping) and s.get("type") != SUB_COMMAND for s in sub):
                problems.append(
                    Problem(
                        opath,
                        "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
                        "A subcommand group may only contain subcommands.",
                    )
                )
            problems += _check_options(sub, opath, depth + 1)
            continue
        if kind == SUB_COMMAND:
            problems += _check_options(option.get("options"), opath, depth + 1)
            continue
        if option.get("required"):
            if seen_optional:
                problems.append(
                    Problem(
                        opath,
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        "Required options must be placed before non-required options.",
                    )
                )
        else:
            seen_optional = True
        choices = option.get("choices")
        if choices:
            if option.get("autocomplete"):
                problems.append(
                    Problem(
                        (*opath, "autocomplete"),
                        "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                        "autocomplete cannot be combined with choices.",
                    )
                )
            if kind not in (STRING, INTEGER, NUMBER):
                problems.append(Problem((*opath, "choices"), "BASE_TYPE_CHOICES", "No choices."))
            if len(choices) > 25:
                problems.append(
                    Problem(
                        (*opath, "choices"),
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be 25 or fewer in length (got {len(choices)}).",
                    )
                )
            for k, choice in enumerate(choices):
                cpath = (*opath, "choices", k)
                cname = choice.get("name") if isinstance(choice, Mapping) else None
                if not isinstance(cname, str) or not 1 <= len(cname) <= 100:
                    problems.append(
                        Problem((*cpath, "name"), "BASE_TYPE_BAD_LENGTH", "Must be 1-100 chars.")
                    )
                value = choice.get("value") if isinstance(choice, Mapping) else None
                if kind == STRING and (not isinstance(value, str) or len(value) > 100):
                    problems.append(
                        Problem((*cpath, "value"), "BASE_TYPE_BAD_LENGTH", "Must be 1-100 chars.")
                    )
        for key in ("min_length", "max_length"):
            value = option.get(key)
            if value is not None and (not isinstance(value, int) or not 0 <= value <= 6000):
                problems.append(Problem((*opath, key), "NUMBER_TYPE_MAX", f"{key} in 0..6000."))
    return problems


def check_command(command: Any, index: int) -> list[Problem]:
    path: tuple[str | int, ...] = (index,)
    if not isinstance(command, Mapping):
        return [Problem(path, "MODEL_TYPE_CONVERT", "Must be an object.")]
    kind = command.get("type", CHAT_INPUT)
    chat_input = kind == CHAT_INPUT
    problems = _check_name(command.get("name"), path, chat_input=chat_input)
    problems += _check_description(command.get("description"), path, required=chat_input)
    if chat_input:
        problems += _check_options(command.get("options"), path, 0)
        length = _text_length(command)
        if length > 4000:
            problems.append(
                Problem(
                    path,
                    "APPLICATION_COMMAND_TOO_LARGE",
                    f"Command exceeds maximum size (4000) with {length} characters.",
                )
            )
    elif command.get("options"):
        problems.append(Problem((*path, "options"), "BASE_TYPE_MAX_LENGTH", "No options here."))
    return problems


def check_command_list(commands: Any) -> list[Problem]:
    if not isinstance(commands, list):
        return [Problem((), "BASE_TYPE_ARRAY", "Must be an array of commands.")]
    problems: list[Problem] = []
    per_type: dict[int, int] = {}
    seen: set[tuple[int, str]] = set()
    for i, command in enumerate(commands):
        problems += check_command(command, i)
        if isinstance(command, Mapping):
            kind = int(command.get("type", CHAT_INPUT))
            per_type[kind] = per_type.get(kind, 0) + 1
            key = (kind, str(command.get("name")))
            if key in seen:
                problems.append(
                    Problem(
                        (i, "name"),
                        "APPLICATION_COMMANDS_DUPLICATE_NAME",
                        f"Application command names must be unique ({key[1]!r}).",
                    )
                )
            seen.add(key)
    limits = {CHAT_INPUT: 100, USER_COMMAND: 15, MESSAGE_COMMAND: 15}
    for kind, count in per_type.items():
        if count > limits.get(kind, 100):
            problems.append(
                Problem((), "BASE_TYPE_MAX_LENGTH", f"Too many commands of type {kind}: {count}.")
            )
    return problems


# ----------------------------------------------------------------------------------------------
# Storage


class CommandScope:
    """The commands synced for one scope: global (``guild_id=None``) or one guild."""

    def __init__(self, ids: SnowflakeFactory, application_id: int, guild_id: int | None) -> None:
        self._ids = ids
        self.application_id = application_id
        self.guild_id = guild_id
        self._by_key: dict[tuple[int, str], JSONDict] = {}
        self._id_for_key: dict[tuple[int, str], int] = {}

    def _store(self, payload: Mapping[str, Any]) -> JSONDict:
        kind = int(payload.get("type", CHAT_INPUT))
        key = (kind, str(payload["name"]))
        command_id = self._id_for_key.setdefault(key, self._ids.next())
        stored: JSONDict = {
            "id": str(command_id),
            "application_id": str(self.application_id),
            "version": str(self._ids.next()),
            "type": kind,
            "name": payload["name"],
            "name_localizations": payload.get("name_localizations") or None,
            "description": payload.get("description", ""),
            "description_localizations": payload.get("description_localizations") or None,
            "options": copy.deepcopy(payload.get("options") or []),
            "default_member_permissions": (
                None
                if payload.get("default_member_permissions") is None
                else str(payload["default_member_permissions"])
            ),
            "dm_permission": payload.get("dm_permission", True),
            "contexts": payload.get("contexts"),
            "integration_types": payload.get("integration_types") or [0],
            "nsfw": bool(payload.get("nsfw", False)),
        }
        if self.guild_id is not None:
            stored["guild_id"] = str(self.guild_id)
        self._by_key[key] = stored
        return stored

    def overwrite(self, payloads: Sequence[Mapping[str, Any]]) -> list[JSONDict]:
        self._by_key = {}
        return [copy.deepcopy(self._store(p)) for p in payloads]

    def upsert(self, payload: Mapping[str, Any]) -> JSONDict:
        return copy.deepcopy(self._store(payload))

    def all(self) -> list[JSONDict]:
        return [copy.deepcopy(c) for c in self._by_key.values()]

    def by_id(self, command_id: int) -> JSONDict | None:
        for command in self._by_key.values():
            if int(command["id"]) == command_id:
                return command
        return None

    def delete(self, command_id: int) -> bool:
        for key, command in list(self._by_key.items()):
            if int(command["id"]) == command_id:
                del self._by_key[key]
                return True
        return False

    def chat_input(self, name: str) -> JSONDict | None:
        return self._by_key.get((CHAT_INPUT, name))

    def names(self) -> list[str]:
        return sorted(name for kind, name in self._by_key if kind == CHAT_INPUT)


# ----------------------------------------------------------------------------------------------
# Slash invocation

#: ``resolve(option_type, value) -> (id string, {"users": {...}, ...} fragment to merge)``
Resolver = Callable[[int, Any], tuple[str, dict[str, dict[str, JSONDict]]]]


def _convert(option: Mapping[str, Any], value: Any, where: str, resolve: Resolver) -> Any:
    kind = int(option["type"])
    name = option["name"]
    type_name = OPTION_TYPE_NAMES.get(kind, str(kind))
    if kind == STRING:
        if not isinstance(value, str):
            raise SchemaMismatch(f"{where}: option {name!r} is {type_name}, got {value!r}")
        low, high = option.get("min_length"), option.get("max_length")
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            raise SchemaMismatch(
                f"{where}: option {name!r} length must be in [{low}, {high}], got {len(value)}"
            )
    elif kind == INTEGER:
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) >= MAX_SAFE_INTEGER:
            raise SchemaMismatch(f"{where}: option {name!r} is {type_name}, got {value!r}")
    elif kind == NUMBER:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise SchemaMismatch(f"{where}: option {name!r} is {type_name}, got {value!r}")
    elif kind == BOOLEAN and not isinstance(value, bool):
        raise SchemaMismatch(f"{where}: option {name!r} is {type_name}, got {value!r}")
    if kind in (INTEGER, NUMBER):
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise SchemaMismatch(
                f"{where}: option {name!r} must be in [{low}, {high}], got {value!r}"
            )
    choices = option.get("choices")
    if choices:
        allowed = [c["value"] for c in choices]
        if value not in allowed:
            raise SchemaMismatch(
                f"{where}: option {name!r} must be one of the synced choices {allowed}, "
                f"got {value!r}"
            )
    return value


def build_chat_input_data(
    command: Mapping[str, Any], path: Sequence[str], values: Mapping[str, Any], resolve: Resolver
) -> JSONDict:
    """The ``data`` of an APPLICATION_COMMAND interaction for ``/command path... values``."""
    where = "/" + " ".join([str(command["name"]), *path])
    options: list[JSONDict] = list(command.get("options") or [])
    remaining = list(path)
    wrappers: list[JSONDict] = []
    while any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in options):
        subs = [o["name"] for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if not remaining:
            raise SchemaMismatch(f"{where} needs a subcommand; synced subcommands: {subs}")
        token = remaining.pop(0)
        match = next(
            (
                o
                for o in options
                if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) and o["name"] == token
            ),
            None,
        )
        if match is None:
            raise SchemaMismatch(f"{where}: no subcommand {token!r}; synced: {subs}")
        wrappers.append({"name": token, "type": int(match["type"])})
        options = list(match.get("options") or [])
    if remaining:
        raise SchemaMismatch(f"{where}: {remaining} are not subcommands of this command")
    by_name = {o["name"]: o for o in options}
    unknown = [name for name in values if name not in by_name]
    if unknown:
        raise SchemaMismatch(
            f"{where}: unknown option(s) {unknown}; synced options: {list(by_name)}"
        )
    missing = [o["name"] for o in options if o.get("required") and o["name"] not in values]
    if missing:
        raise SchemaMismatch(f"{where}: required option(s) {missing} missing")
    resolved: dict[str, dict[str, JSONDict]] = {}
    leaf: list[JSONDict] = []
    for option in options:
        if option["name"] not in values:
            continue
        value = values[option["name"]]
        kind = int(option["type"])
        if kind in (USER, CHANNEL, ROLE, MENTIONABLE, ATTACHMENT):
            try:
                snowflake, fragment = resolve(kind, value)
            except SchemaMismatch as exc:
                raise SchemaMismatch(f"{where}: option {option['name']!r}: {exc}") from None
            channel_types = option.get("channel_types")
            if kind == CHANNEL and channel_types:
                channel_type = next(iter(fragment.get("channels", {}).values()), {}).get("type")
                if channel_type not in channel_types:
                    raise SchemaMismatch(
                        f"{where}: option {option['name']!r} accepts channel types "
                        f"{channel_types}, got {channel_type}"
                    )
            for category, entries in fragment.items():
                resolved.setdefault(category, {}).update(entries)
            leaf.append({"name": option["name"], "type": kind, "value": snowflake})
        else:
            converted = _convert(option, value, where, resolve)
            leaf.append({"name": option["name"], "type": kind, "value": converted})
    data_options: list[JSONDict] = leaf
    for wrapper in reversed(wrappers):
        data_options = [{**wrapper, "options": data_options}]
    data: JSONDict = {
        "id": command["id"],
        "name": command["name"],
        "type": CHAT_INPUT,
        "options": data_options,
    }
    if command.get("guild_id") is not None:
        data["guild_id"] = command["guild_id"]
    if resolved:
        data["resolved"] = resolved
    return data
