"""Delivery: editing and deleting the bot's messages with as few rate-limited requests as possible.

A bot has about 50 requests per second across every server, and interaction endpoints are not
bound to that limit: the answer to a click, and for the next 15 minutes the interaction's webhook
(its original message, which for a click is the clicked message, and its follow-ups). So:

* every message the bot shows is remembered by a fingerprint of what it shows (content, embed,
  components, picture bytes); an edit that would show the same again is not sent;
* every interaction that touched a message is kept for a while (less than its 15 minutes), and a
  later edit or delete of that message goes through the interaction's webhook (exempt) instead
  of the channel route (rate-limited). A webhook that no longer answers falls back to the route;
* a player's latest click in their DMs can post there: a new DM (a fresh panel, which notifies
  them) is that click's follow-up while its token lives.

Both caches are in memory: after a restart the first edit of a message is simply sent.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple, cast

import discord
import orjson

from cogs.answerless import AnswerlessWebhook

log = logging.getLogger("siege.delivery")

#: Interaction tokens live 15 minutes; a margin keeps a slow request from outliving its token.
TOKEN_LIFETIME = 14 * 60.0
MAX_SHOWN = 100_000  # message fingerprints kept (about 100 bytes each)
MAX_HANDLES = 50_000  # interactions kept (one per message they reach)
UNKNOWN_MESSAGE_CODE = 10008
#: The answer to a click on a message deleted meanwhile (a panel just replaced by a fresh one).
REPLACED = "Done. That message was just replaced by a newer one: use the newest."


def fingerprint(
    kwargs: dict[str, Any], image: tuple[str, bytes] | None, image_print: str | None = None
) -> str:
    """What a message shows, as a short digest: content, embed, components and the picture's
    name and bytes (``kwargs`` as given to ``send``/``edit``). ``image_print``: what identifies
    the picture, taken in place of its bytes (the same picture always has the same one, and
    two pictures never share one)."""
    embed = kwargs.get("embed")
    view = kwargs.get("view")
    shown = {
        "content": kwargs.get("content"),
        "embed": embed.to_dict() if isinstance(embed, discord.Embed) else None,
        "components": view.to_components() if isinstance(view, discord.ui.View) else None,
    }
    digest = hashlib.blake2b(
        orjson.dumps(shown, default=str, option=orjson.OPT_SORT_KEYS), digest_size=16
    )
    if image is not None:
        digest.update(image[0].encode())
        if image_print is not None:
            digest.update(b"\0drawn from\0" + image_print.encode())
        else:
            digest.update(image[1])
    return digest.hexdigest()


#: Discord's name, in an interaction webhook's message routes, for the interaction's original
#: response (for a click: the clicked message). discord.py puts the id into the route as text,
#: as its own ``edit_original_response`` does with this name.
ORIGINAL = cast(int, "@original")


class Handle(NamedTuple):
    """An interaction's webhook and the message it reaches there: the original response (a
    clicked message is the original of the click) or one of its follow-ups.

    Only the webhook's application id and token are kept, not the interaction nor a
    ``discord.Webhook``: a kept interaction holds its whole parsed message, and thousands of
    kept objects made every full garbage collection pause the bot for tens of milliseconds.
    :class:`Delivery` keeps each handle as a plain tuple (:meth:`kept`), which the collector
    stops tracking (numbers and text only), and makes the webhook when it is used."""

    application_id: int
    token: str
    target: int  # the follow-up's id, or ORIGINAL
    channel_id: int | None
    until: float

    @classmethod
    def of(
        cls, interaction: discord.Interaction[Any], target: int, lifetime: float, now: float
    ) -> Handle:
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        until = now + lifetime - max(age, 0.0)
        return cls(
            interaction.application_id, interaction.token, target, interaction.channel_id, until
        )

    def kept(self) -> tuple[int, str, int, int | None, float]:
        """As kept: a plain tuple (a named tuple is not one, and stays tracked)."""
        return tuple.__new__(tuple, self)


Kept = tuple[int, str, int, int | None, float]  # a Handle as Delivery keeps it


class Delivery:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._shown: OrderedDict[int, str] = OrderedDict()
        self._handles: OrderedDict[int, Kept] = OrderedDict()
        self._in_dms: OrderedDict[int, Kept] = OrderedDict()  # by user: their latest DM click
        #: discord.py's connection state, which an interaction webhook is made with.
        self._state: Any = None
        #: Requests sent, by kind, for the benchmarks: edits and deletes through a webhook
        #: (exempt) and through the channel route (rate-limited), and edits not sent at all.
        self.counts = {"webhook": 0, "route": 0, "unchanged": 0, "replaced": 0}

    # -- what is shown ---------------------------------------------------------------------

    def is_shown(self, message_id: int, print_: str) -> bool:
        return self._shown.get(message_id) == print_

    def shown(self, message_id: int, print_: str) -> None:
        self._shown[message_id] = print_
        self._shown.move_to_end(message_id)
        if len(self._shown) > MAX_SHOWN:
            self._shown.popitem(last=False)

    def forget(self, message_id: int) -> None:
        self._shown.pop(message_id, None)
        self._handles.pop(message_id, None)

    # -- interactions that reach a message ---------------------------------------------------

    def reach(
        self,
        message_id: int,
        interaction: discord.Interaction[Any],
        followup_id: int | None = None,
    ) -> None:
        """Remember that ``interaction``'s webhook reaches ``message_id`` (its original
        response, or the follow-up ``followup_id``)."""
        target = ORIGINAL if followup_id is None else followup_id
        self._state = interaction._state
        self._keep(message_id, Handle.of(interaction, target, TOKEN_LIFETIME, self.clock()))

    def _keep(self, message_id: int, handle: Handle) -> None:
        self._handles[message_id] = handle.kept()
        self._handles.move_to_end(message_id)
        if len(self._handles) > MAX_HANDLES:
            self._handles.popitem(last=False)

    def clicked_in_dms(self, user_id: int, interaction: discord.Interaction[Any]) -> None:
        """``user_id`` clicked in their DMs: the click's follow-ups can post there for a while."""
        self._state = interaction._state
        handle = Handle.of(interaction, ORIGINAL, TOKEN_LIFETIME, self.clock())
        self._in_dms[user_id] = handle.kept()
        self._in_dms.move_to_end(user_id)
        if len(self._in_dms) > MAX_HANDLES:
            self._in_dms.popitem(last=False)

    async def send_dm(self, user_id: int, kwargs: dict[str, Any]) -> tuple[int, int] | None:
        """Post a new message in ``user_id``'s DMs as the follow-up of their latest click there
        (exempt from the rate limit): ``(channel id, message id)``, or ``None`` when no click of
        theirs is recent enough (or its webhook refused), for the caller to use the route."""
        kept = self._in_dms.get(user_id)
        if kept is None:
            return None
        handle = Handle(*kept)
        if handle.until <= self.clock() or handle.channel_id is None:
            del self._in_dms[user_id]
            return None
        try:
            message = await self.webhook(handle).send(**kwargs, wait=True)
        except discord.HTTPException as exc:
            log.debug("DM follow-up for %s failed (%s); using the route", user_id, exc)
            self._in_dms.pop(user_id, None)
            return None
        self.counts["webhook"] += 1
        self._keep(message.id, handle._replace(target=message.id))
        return handle.channel_id, message.id

    def _handle(self, message_id: int) -> Handle | None:
        kept = self._handles.get(message_id)
        if kept is None:
            return None
        handle = Handle(*kept)
        if handle.until <= self.clock():
            del self._handles[message_id]
            return None
        return handle

    def webhook(self, handle: Handle) -> discord.Webhook:
        """The interaction webhook of ``handle``, made as discord.py's ``Interaction.followup``
        makes it (with the HTTP session of now), but leaving its answers unparsed."""
        data: Any = {"id": handle.application_id, "type": 3, "token": handle.token}
        return AnswerlessWebhook.from_state(data=data, state=self._state)

    # -- sending -----------------------------------------------------------------------------

    async def answer_by_edit(
        self,
        interaction: discord.Interaction[Any],
        kwargs: dict[str, Any],
        image: tuple[str, bytes] | None,
        gone: str = REPLACED,
        print_: str | None = None,
    ) -> bool:
        """Answer a click by editing the clicked message (an exempt interaction response).

        The clicked message may have been deleted while the click was on its way: a DM panel is
        replaced by a fresh one when its player's turn begins, and a quick player can click the
        old one in that moment. The click is then answered privately with ``gone`` (what was
        done and where to look) instead of failing, and False returned. ``print_``: the
        fingerprint of ``kwargs`` and ``image`` when the caller has it already."""
        try:
            await interaction.response.edit_message(**kwargs)
        except discord.NotFound as exc:
            if exc.code != UNKNOWN_MESSAGE_CODE or interaction.response.is_done():
                raise
            self.counts["replaced"] += 1
            if interaction.message is not None:
                self.forget(interaction.message.id)
            await interaction.response.send_message(gone, ephemeral=True)
            return False
        message = interaction.message
        if message is not None:
            self.shown(message.id, print_ or fingerprint(kwargs, image))
            self.reach(message.id, interaction)
        if interaction.guild_id is None:
            self.clicked_in_dms(interaction.user.id, interaction)
        return True

    async def edit(
        self,
        message: discord.PartialMessage,
        kwargs: dict[str, Any],
        image: tuple[str, bytes] | None,
        print_: str | None = None,
    ) -> bool:
        """Edit ``message`` to show ``kwargs`` unless it already does; through an interaction's
        webhook when one reaches it. Returns whether a request was sent. Raises what the channel
        route raises (``discord.NotFound`` for a deleted message or channel, ...). ``print_``:
        the fingerprint of ``kwargs`` and ``image`` when the caller has it already."""
        print_ = print_ or fingerprint(kwargs, image)
        if self.is_shown(message.id, print_):
            self.counts["unchanged"] += 1
            return False
        self._shown.pop(message.id, None)  # unknown until the edit succeeds
        handle = self._handle(message.id)
        if handle is not None:
            try:
                await self.webhook(handle).edit_message(handle.target, **kwargs)
            except discord.HTTPException as exc:
                # An expired or unknown token (or a message gone): the route decides.
                log.debug("webhook edit of %s failed (%s); using the route", message.id, exc)
                self._handles.pop(message.id, None)
            else:
                self.counts["webhook"] += 1
                self.shown(message.id, print_)
                return True
        self.counts["route"] += 1
        await message.edit(**kwargs)
        self.shown(message.id, print_)
        return True

    async def delete(self, message: discord.PartialMessage) -> None:
        """Delete ``message``; through an interaction's webhook when one reaches it. Raises what
        the channel route raises."""
        handle = self._handle(message.id)
        self.forget(message.id)
        if handle is not None:
            try:
                await self.webhook(handle).delete_message(handle.target)
            except discord.HTTPException as exc:
                log.debug("webhook delete of %s failed (%s); using the route", message.id, exc)
            else:
                self.counts["webhook"] += 1
                return
        self.counts["route"] += 1
        await message.delete()


__all__ = ["Delivery", "fingerprint"]
