"""What the fake keeps in its light mode (``FakeDiscord(light=True)``), for load benchmarks.

By default the fake keeps everything, as tests read it: every interaction's payload (a click's
carries the whole message clicked), every deleted message's last content, every attachment ever
uploaded. A benchmark that plays tens of thousands of moves in the same process as the fake
would have that heap grow with the moves, and its garbage collector walk it while the players
measure the bot (at 1,000 tables, pauses of up to 763 ms). In light mode:

- an answered interaction keeps of its payload only what the fake reads later (its id, type,
  server, the owners its follow-ups name, the command's data), unless it opened a modal
  (submitting the modal sends the message it was opened from again);
- a deleted message is stored as its ids, flags and version, without content, author, embeds,
  components or attachments (no route shows a deleted message);
- an attachment is forgotten once the new version of its message no longer shows it.

The record of each interaction stays (the bot may use its token for 15 minutes): a few small
objects an interaction, where the default keeps the whole payload.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .interactions import MODAL, InteractionRecord
from .messages import FakeMessage

if TYPE_CHECKING:
    from .server import FakeDiscord

#: The keys of an answered interaction's payload the fake still reads: the server it came from,
#: the owners and the command data a follow-up message's interaction fields name.
KEPT_PAYLOAD = ("id", "type", "guild_id", "authorizing_integration_owners", "data")


def slim(record: InteractionRecord) -> None:
    """Drop what an answered interaction's payload no longer needs (not a modal's)."""
    if record.response_type == MODAL:
        return
    payload = record.payload
    record.payload = {key: payload[key] for key in KEPT_PAYLOAD if key in payload}


def kept(fake: FakeDiscord, old: FakeMessage | None, new: FakeMessage) -> FakeMessage:
    """The version of ``new`` to store: attachments ``old`` showed and ``new`` does not are
    forgotten; a deleted message is stored bare."""
    if old is not None:
        shown = {attachment.id for attachment in new.attachments} if not new.deleted else set()
        for attachment in old.attachments:
            if attachment.id not in shown:
                fake.attachments.pop(attachment.id, None)
    if not new.deleted:
        return new
    return dataclasses.replace(
        new,
        author={},
        content="",
        embeds=[],
        components=[],
        attachments=(),
        interaction_metadata=None,
        interaction=None,
        message_reference=None,
        thread=None,
    )
