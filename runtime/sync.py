"""Whether the slash commands changed since they were last uploaded: a hash of the command tree,
kept beside the database."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

import discord

log = logging.getLogger("siege")


def command_tree_hash(tree: discord.app_commands.CommandTree[Any], guild: Any | None) -> str:
    """A hash of what ``tree.sync(guild=guild)`` would upload (the same JSON)."""
    payload = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class CommandSyncRecord:
    """The hash of the command tree last synced, by application and scope, in a small JSON file
    beside the database (``siege.db`` -> ``siege.db.commands.json``). An unreadable or missing
    file means "never synced": the commands are then synced, which is always safe."""

    def __init__(self, database_path: str) -> None:
        self.path = (
            None
            if database_path in ("", ":memory:") or database_path.startswith("file:")
            else Path(f"{database_path}.commands.json")
        )

    def _read(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, scope: str) -> str | None:
        return self._read().get(scope)

    def put(self, scope: str, digest: str) -> None:
        if self.path is None:
            return
        data = {**self._read(), scope: digest}
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            temporary.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            # Not fatal: the next start syncs again.
            log.warning("could not record the command sync in %s (%s)", self.path, exc)
