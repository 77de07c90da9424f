"""Discord's payload limits, checked the way Discord's API checks them.

Every check returns a list of :class:`Problem`; the server turns a non-empty list into an HTTP 400
with code 50035 ("Invalid Form Body") and the nested ``errors`` object Discord uses, and records a
violation so the test fails.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .messages import (
    ACTION_ROW,
    BUTTON,
    CONTAINER,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    LABEL,
    SECTION,
    SELECT_TYPES,
    STRING_SELECT,
    TEXT_DISPLAY,
    TEXT_INPUT,
    walk_components,
)

JSONDict = dict[str, Any]
Path = tuple[str | int, ...]

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_LABEL_MAX = 80
SELECT_OPTION_VALUE_MAX = 100
SELECT_OPTION_DESCRIPTION_MAX = 100
SELECT_PLACEHOLDER_MAX = 150
V2_COMPONENTS_MAX = 40
V2_TEXT_MAX = 4000
FILES_MAX = 10
UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_VALUE_MAX = 4000
TEXT_INPUT_PLACEHOLDER_MAX = 100

#: Flags a bot may set when sending a message through an interaction.
INTERACTION_SENDABLE_FLAGS = (
    FLAG_EPHEMERAL | FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
)
#: Flags a bot may set on a plain channel message.
CHANNEL_SENDABLE_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2


@dataclasses.dataclass(frozen=True)
class Problem:
    """One thing Discord would reject: where it is in the payload and why."""

    path: Path
    code: str
    message: str

    def describe(self) -> str:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path)
        return f"{where.lstrip('.') or '<body>'}: {self.message}"


def _too_long(path: Path, value: Any, limit: int) -> list[Problem]:
    if isinstance(value, str) and len(value) > limit:
        return [
            Problem(
                path,
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {limit} or fewer in length (got {len(value)}).",
            )
        ]
    return []


def _length_between(path: Path, value: Any, low: int, high: int) -> list[Problem]:
    if not isinstance(value, str):
        return [Problem(path, "BASE_TYPE_REQUIRED", "This field is required (a string).")]
    if not low <= len(value) <= high:
        return [
            Problem(
                path,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between {low} and {high} in length (got {len(value)}).",
            )
        ]
    return []


def embed_text_length(embed: Mapping[str, Any]) -> int:
    """Characters counted towards the 6000 total: title, description, fields, footer, author."""
    total = len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
    for field in embed.get("fields", []) or []:
        if isinstance(field, Mapping):
            total += len(str(field.get("name") or "")) + len(str(field.get("value") or ""))
    footer = embed.get("footer")
    if isinstance(footer, Mapping):
        total += len(str(footer.get("text") or ""))
    author = embed.get("author")
    if isinstance(author, Mapping):
        total += len(str(author.get("name") or ""))
    return total


def check_embeds(embeds: Any, path: Path = ("embeds",)) -> list[Problem]:
    if embeds is None:
        return []
    if not isinstance(embeds, list):
        return [Problem(path, "BASE_TYPE_ARRAY", "Must be an array.")]
    problems: list[Problem] = []
    if len(embeds) > EMBEDS_MAX:
        problems.append(
            Problem(path, "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length.")
        )
    total = 0
    for i, embed in enumerate(embeds):
        here = (*path, i)
        if not isinstance(embed, Mapping):
            problems.append(Problem(here, "MODEL_TYPE_CONVERT", "Must be an object."))
            continue
        problems += _too_long((*here, "title"), embed.get("title"), EMBED_TITLE_MAX)
        problems += _too_long(
            (*here, "description"), embed.get("description"), EMBED_DESCRIPTION_MAX
        )
        fields = embed.get("fields", []) or []
        if len(fields) > EMBED_FIELDS_MAX:
            problems.append(
                Problem(
                    (*here, "fields"),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {EMBED_FIELDS_MAX} or fewer in length (got {len(fields)}).",
                )
            )
        for j, field in enumerate(fields):
            fpath = (*here, "fields", j)
            if not isinstance(field, Mapping):
                problems.append(Problem(fpath, "MODEL_TYPE_CONVERT", "Must be an object."))
                continue
            for key, limit in (("name", EMBED_FIELD_NAME_MAX), ("value", EMBED_FIELD_VALUE_MAX)):
                value = field.get(key)
                if value is None or value == "":
                    problems.append(
                        Problem((*fpath, key), "BASE_TYPE_REQUIRED", "This field is required")
                    )
                problems += _too_long((*fpath, key), value, limit)
        footer = embed.get("footer")
        if isinstance(footer, Mapping):
            problems += _too_long((*here, "footer", "text"), footer.get("text"), EMBED_FOOTER_MAX)
        author = embed.get("author")
        if isinstance(author, Mapping):
            problems += _too_long((*here, "author", "name"), author.get("name"), EMBED_AUTHOR_MAX)
        total += embed_text_length(embed)
    if total > EMBED_TOTAL_MAX:
        problems.append(
            Problem(
                path,
                "MESSAGE_EMBED_TOO_LARGE",
                f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX} (got {total} characters "
                "across all embeds).",
            )
        )
    return problems


def _check_button(component: Mapping[str, Any], path: Path) -> list[Problem]:
    problems: list[Problem] = []
    style = component.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        problems.append(
            Problem((*path, "style"), "BASE_TYPE_CHOICES", "Value must be one of {1..6}.")
        )
        return problems
    has_custom_id = bool(component.get("custom_id"))
    if style == 5:
        if not component.get("url"):
            problems.append(Problem((*path, "url"), "BASE_TYPE_REQUIRED", "Link buttons need url"))
        if has_custom_id:
            problems.append(
                Problem(
                    (*path, "custom_id"),
                    "BUTTON_LINK_CANNOT_HAVE_CUSTOM_ID",
                    "A link button cannot have a custom_id.",
                )
            )
    elif style == 6:
        if not component.get("sku_id"):
            problems.append(
                Problem((*path, "sku_id"), "BASE_TYPE_REQUIRED", "Premium buttons need sku_id")
            )
        for key in ("custom_id", "url", "label", "emoji"):
            if component.get(key):
                problems.append(
                    Problem(
                        (*path, key),
                        "BUTTON_PREMIUM_FIELD_NOT_ALLOWED",
                        f"A premium button cannot have {key}.",
                    )
                )
    else:
        if not has_custom_id:
            problems.append(
                Problem(
                    (*path, "custom_id"),
                    "BASE_TYPE_REQUIRED",
                    "Non-link buttons need a custom_id.",
                )
            )
        if component.get("url"):
            problems.append(
                Problem((*path, "url"), "BUTTON_URL_NOT_ALLOWED", "Only link buttons have a url.")
            )
    if style != 6 and not component.get("label") and not component.get("emoji"):
        problems.append(
            Problem((*path, "label"), "BASE_TYPE_REQUIRED", "A button needs a label or emoji.")
        )
    problems += _too_long((*path, "label"), component.get("label"), BUTTON_LABEL_MAX)
    problems += _check_emoji((*path, "emoji"), component.get("emoji"))
    return problems


# Unicode that Discord refuses as a component emoji although it renders fine in text: in the
# Mahjong, Domino and Playing Cards blocks only 🀄 and 🃏 are emoji (Unicode's Emoji property);
# the card back 🂠 and the rest are not in Discord's set. This is a deny-list of what bots trip
# on, not Discord's whole allow-list.
UNSUPPORTED_EMOJI_RANGES = ((0x1F000, 0x1F0FF),)
EMOJI_IN_THOSE_RANGES = frozenset({0x1F004, 0x1F0CF})


def _is_unsupported(ch: str) -> bool:
    code = ord(ch)
    in_range = any(lo <= code <= hi for lo, hi in UNSUPPORTED_EMOJI_RANGES)
    return in_range and code not in EMOJI_IN_THOSE_RANGES


def _check_emoji(path: Path, emoji: Any) -> list[Problem]:
    if emoji is None or not isinstance(emoji, Mapping) or emoji.get("id"):
        return []  # absent, or a custom emoji (checked by id on real Discord)
    name = str(emoji.get("name") or "")
    bad = not name or any(ch.isascii() and ch.isalnum() for ch in name)
    bad = bad or any(_is_unsupported(ch) for ch in name)
    if bad:
        return [Problem(path, "BUTTON_COMPONENT_INVALID_EMOJI", f"Invalid emoji {name!r}.")]
    return []


def _check_select(component: Mapping[str, Any], path: Path) -> list[Problem]:
    problems: list[Problem] = []
    if not component.get("custom_id"):
        problems.append(Problem((*path, "custom_id"), "BASE_TYPE_REQUIRED", "Required."))
    problems += _too_long(
        (*path, "placeholder"), component.get("placeholder"), SELECT_PLACEHOLDER_MAX
    )
    min_values = component.get("min_values", 1)
    max_values = component.get("max_values", 1)
    if not isinstance(min_values, int) or not 0 <= min_values <= 25:
        problems.append(
            Problem((*path, "min_values"), "NUMBER_TYPE_MAX", "min_values must be in 0..25.")
        )
        min_values = 1
    if not isinstance(max_values, int) or not 1 <= max_values <= 25:
        problems.append(
            Problem((*path, "max_values"), "NUMBER_TYPE_MAX", "max_values must be in 1..25.")
        )
        max_values = 1
    if min_values > max_values:
        problems.append(
            Problem(
                (*path, "min_values"),
                "SELECT_COMPONENT_MIN_VALUES_TOO_LARGE",
                f"min_values ({min_values}) is greater than max_values ({max_values}).",
            )
        )
    if component.get("type") != STRING_SELECT:
        return problems
    options = component.get("options")
    if not isinstance(options, list) or not 1 <= len(options) <= SELECT_OPTIONS_MAX:
        count = len(options) if isinstance(options, list) else 0
        problems.append(
            Problem(
                (*path, "options"),
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {SELECT_OPTIONS_MAX} in length (got {count}).",
            )
        )
        return problems
    if max_values > len(options):
        problems.append(
            Problem(
                (*path, "max_values"),
                "SELECT_COMPONENT_MAX_VALUES_TOO_LARGE",
                f"max_values ({max_values}) exceeds the number of options ({len(options)}).",
            )
        )
    seen_values: set[str] = set()
    defaults = 0
    for k, option in enumerate(options):
        opath = (*path, "options", k)
        if not isinstance(option, Mapping):
            problems.append(Problem(opath, "MODEL_TYPE_CONVERT", "Must be an object."))
            continue
        problems += _length_between((*opath, "label"), option.get("label"), 1, 100)
        problems += _check_emoji((*opath, "emoji"), option.get("emoji"))
        problems += _length_between((*opath, "value"), option.get("value"), 1, 100)
        problems += _too_long(
            (*opath, "description"), option.get("description"), SELECT_OPTION_DESCRIPTION_MAX
        )
        value = option.get("value")
        if isinstance(value, str):
            if value in seen_values:
                problems.append(
                    Problem(
                        (*opath, "value"),
                        "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                        f"Option value {value!r} is duplicated.",
                    )
                )
            seen_values.add(value)
        if option.get("default"):
            defaults += 1
    if defaults > max_values:
        problems.append(
            Problem(
                (*path, "options"),
                "SELECT_COMPONENT_TOO_MANY_DEFAULTS",
                f"{defaults} default options but max_values is {max_values}.",
            )
        )
    return problems


def _check_action_row(row: Mapping[str, Any], path: Path) -> list[Problem]:
    problems: list[Problem] = []
    children = row.get("components")
    if not isinstance(children, list) or not children:
        return [Problem((*path, "components"), "BASE_TYPE_BAD_LENGTH", "A row cannot be empty.")]
    kinds = [c.get("type") if isinstance(c, Mapping) else None for c in children]
    selects = sum(1 for k in kinds if k in SELECT_TYPES)
    buttons = sum(1 for k in kinds if k == BUTTON)
    if selects and (selects > 1 or buttons):
        problems.append(
            Problem(
                (*path, "components"),
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "A row with a select menu must contain exactly that one select.",
            )
        )
    if buttons > BUTTONS_PER_ROW_MAX:
        problems.append(
            Problem(
                (*path, "components"),
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {BUTTONS_PER_ROW_MAX} or fewer in length (got {buttons} buttons).",
            )
        )
    for i, child in enumerate(children):
        cpath = (*path, "components", i)
        kind = kinds[i]
        if kind == BUTTON:
            problems += _check_button(child, cpath)
        elif kind in SELECT_TYPES:
            problems += _check_select(child, cpath)
        elif kind == TEXT_INPUT:
            problems.append(
                Problem(cpath, "COMPONENT_TYPE_INVALID", "Text inputs are only valid in modals.")
            )
        else:
            problems.append(
                Problem(cpath, "COMPONENT_TYPE_INVALID", f"Invalid component type {kind!r} in row")
            )
    return problems


def check_components(components: Any, *, v2: bool, path: Path = ("components",)) -> list[Problem]:
    """Rows/buttons/selects limits, custom_id length and uniqueness within the message."""
    if components is None:
        return []
    if not isinstance(components, list):
        return [Problem(path, "BASE_TYPE_ARRAY", "Must be an array.")]
    problems: list[Problem] = []
    if not v2:
        if len(components) > ACTION_ROWS_MAX:
            problems.append(
                Problem(
                    path,
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {ACTION_ROWS_MAX} or fewer in length (got {len(components)} "
                    "action rows).",
                )
            )
        for i, row in enumerate(components):
            if not isinstance(row, Mapping) or row.get("type") != ACTION_ROW:
                problems.append(
                    Problem(
                        (*path, i),
                        "COMPONENT_TYPE_INVALID",
                        "Top-level components must be action rows (type 1) unless the "
                        "IS_COMPONENTS_V2 flag is set.",
                    )
                )
                continue
            problems += _check_action_row(row, (*path, i))
    else:
        problems += _check_v2(components, path)
    seen: set[str] = set()
    for component in walk_components(components):
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if not isinstance(custom_id, str) or not custom_id:
            problems.append(
                Problem((*path, "custom_id"), "BASE_TYPE_REQUIRED", "custom_id must be a string")
            )
            continue
        if len(custom_id) > CUSTOM_ID_MAX:
            problems.append(
                Problem(
                    (*path, "custom_id"),
                    "BASE_TYPE_MAX_LENGTH",
                    f"custom_id {custom_id[:30]!r}... must be {CUSTOM_ID_MAX} or fewer in length "
                    f"(got {len(custom_id)}).",
                )
            )
        if custom_id in seen:
            problems.append(
                Problem(
                    (*path, "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    f"Component custom id {custom_id!r} cannot be duplicated.",
                )
            )
        seen.add(custom_id)
    return problems


def _check_v2(components: list[Any], path: Path) -> list[Problem]:
    problems: list[Problem] = []
    everything = list(walk_components(components))
    if len(everything) > V2_COMPONENTS_MAX:
        problems.append(
            Problem(
                path,
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {V2_COMPONENTS_MAX} or fewer components in total (got "
                f"{len(everything)}).",
            )
        )
    text = sum(len(str(c.get("content", ""))) for c in everything if c.get("type") == TEXT_DISPLAY)
    if text > V2_TEXT_MAX:
        problems.append(
            Problem(
                path,
                "BASE_TYPE_MAX_LENGTH",
                f"Text displays may hold {V2_TEXT_MAX} characters in total (got {text}).",
            )
        )
    for i, component in enumerate(everything):
        if component.get("type") == ACTION_ROW:
            problems += _check_action_row(component, (*path, i))
        elif component.get("type") == SECTION:
            texts = component.get("components") or []
            if not 1 <= len(texts) <= 3:
                problems.append(
                    Problem((*path, i), "BASE_TYPE_BAD_LENGTH", "A section holds 1-3 texts.")
                )
            accessory = component.get("accessory")
            if isinstance(accessory, Mapping) and accessory.get("type") == BUTTON:
                problems += _check_button(accessory, (*path, i, "accessory"))
        elif component.get("type") == CONTAINER and not component.get("components"):
            problems.append(
                Problem((*path, i), "BASE_TYPE_BAD_LENGTH", "A container cannot be empty.")
            )
    return problems


def check_message(
    payload: Mapping[str, Any],
    *,
    n_files: int,
    creating: bool,
    via_interaction: bool,
    existing_flags: int = 0,
) -> list[Problem]:
    """Checks a message create/edit body.

    ``creating`` — a new message (it must not be empty); edits are checked for emptiness by the
    caller on the merged result.  ``via_interaction`` — interaction responses and follow-ups may
    carry the ephemeral flag, channel messages may not.
    """
    problems: list[Problem] = []
    flags = payload.get("flags")
    v2 = bool(existing_flags & FLAG_COMPONENTS_V2)
    if flags is not None:
        if not isinstance(flags, int):
            problems.append(Problem(("flags",), "NUMBER_TYPE_COERCE", "flags must be an integer"))
            flags = 0
        allowed = INTERACTION_SENDABLE_FLAGS if via_interaction else CHANNEL_SENDABLE_FLAGS
        if not creating:
            allowed = FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2 | existing_flags
        bad = flags & ~allowed
        if bad:
            why = (
                "the ephemeral flag (64) is only valid on interaction responses and follow-ups"
                if bad & FLAG_EPHEMERAL and not via_interaction
                else f"flag bits {bad} cannot be set here"
            )
            problems.append(Problem(("flags",), "MESSAGE_FLAGS_INVALID", f"Invalid flags: {why}."))
        v2 = v2 or bool(flags & FLAG_COMPONENTS_V2)
    content = payload.get("content")
    if content is not None and not isinstance(content, str):
        problems.append(Problem(("content",), "BASE_TYPE_STRING", "content must be a string"))
    problems += _too_long(("content",), content, CONTENT_MAX)
    problems += check_embeds(payload.get("embeds"))
    problems += check_components(payload.get("components"), v2=v2)
    if v2 and (payload.get("content") or payload.get("embeds")):
        problems.append(
            Problem(
                ("content",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "content and embeds cannot be used with the IS_COMPONENTS_V2 flag.",
            )
        )
    if n_files > FILES_MAX:
        problems.append(
            Problem(("files",), "BASE_TYPE_MAX_LENGTH", f"At most {FILES_MAX} files per message.")
        )
    return problems


def message_is_empty(
    content: str | None, embeds: Sequence[Any], components: Sequence[Any], n_files: int
) -> bool:
    return not content and not embeds and not components and n_files == 0


def check_modal(data: Any) -> list[Problem]:
    """A type-9 (MODAL) callback's data."""
    path: Path = ("data",)
    if not isinstance(data, Mapping):
        return [Problem(path, "BASE_TYPE_REQUIRED", "A modal needs data.")]
    problems: list[Problem] = []
    problems += _length_between((*path, "custom_id"), data.get("custom_id"), 1, CUSTOM_ID_MAX)
    problems += _length_between((*path, "title"), data.get("title"), 1, MODAL_TITLE_MAX)
    components = data.get("components")
    if not isinstance(components, list) or not 1 <= len(components) <= MODAL_COMPONENTS_MAX:
        problems.append(
            Problem(
                (*path, "components"),
                "BASE_TYPE_BAD_LENGTH",
                f"A modal holds 1..{MODAL_COMPONENTS_MAX} top-level components.",
            )
        )
        return problems
    seen: set[str] = set()
    for i, top in enumerate(components):
        tpath = (*path, "components", i)
        if not isinstance(top, Mapping):
            problems.append(Problem(tpath, "MODEL_TYPE_CONVERT", "Must be an object."))
            continue
        if top.get("type") == LABEL:
            problems += _length_between((*tpath, "label"), top.get("label"), 1, 45)
            problems += _too_long((*tpath, "description"), top.get("description"), 100)
        for component in walk_components([top]):
            if component.get("type") == TEXT_INPUT:
                problems += _check_text_input(component, tpath, labelled=top.get("type") == LABEL)
            custom_id = component.get("custom_id")
            if isinstance(custom_id, str):
                if custom_id in seen:
                    problems.append(
                        Problem(
                            tpath,
                            "COMPONENT_CUSTOM_ID_DUPLICATED",
                            f"Component custom id {custom_id!r} cannot be duplicated.",
                        )
                    )
                seen.add(custom_id)
                problems += _too_long((*tpath, "custom_id"), custom_id, CUSTOM_ID_MAX)
    return problems


def _check_text_input(component: Mapping[str, Any], path: Path, *, labelled: bool) -> list[Problem]:
    problems: list[Problem] = []
    if not component.get("custom_id"):
        problems.append(Problem((*path, "custom_id"), "BASE_TYPE_REQUIRED", "Required."))
    if component.get("style") not in (1, 2):
        problems.append(Problem((*path, "style"), "BASE_TYPE_CHOICES", "style must be 1 or 2."))
    if not labelled:
        problems += _length_between((*path, "label"), component.get("label"), 1, 45)
    problems += _too_long(
        (*path, "placeholder"), component.get("placeholder"), TEXT_INPUT_PLACEHOLDER_MAX
    )
    problems += _too_long((*path, "value"), component.get("value"), TEXT_INPUT_VALUE_MAX)
    for key in ("min_length", "max_length"):
        value = component.get(key)
        if value is not None and (not isinstance(value, int) or not 0 <= value <= 4000):
            problems.append(Problem((*path, key), "NUMBER_TYPE_MAX", f"{key} must be 0..4000."))
    return problems


def error_body(problems: Sequence[Problem], prefix: Path = ()) -> JSONDict:
    """Discord's 50035 body: ``{"code": 50035, "message": ..., "errors": {nested...}}``."""
    errors: JSONDict = {}
    for problem in problems:
        node = errors
        for part in (*prefix, *problem.path):
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": problem.code, "message": problem.message})
    return {"code": 50035, "message": "Invalid Form Body", "errors": errors}
