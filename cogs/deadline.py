"""The deadline guard: every interaction answered, or deferred, in time.

Discord waits three seconds for the first answer to an interaction, counted from when it
created the interaction; after that it refuses the answer (404 / 10062) and the player reads
"This interaction failed", although the move may well have counted. A flow's answer usually
takes milliseconds, but a slow picture, a slow database or a loaded machine can push it past
the limit, so :class:`Deadline` watches every flow run through ``Hall.guarded``:

* the budget (``ANSWER_BUDGET``, 1.5 s by default) is measured from the interaction's own
  creation time (its snowflake), or from when the flow started if that is earlier by our clock
  (a clock running behind Discord's must not make us late);
* a flow that has not answered when the budget is spent gets a deferred response sent for it:
  ``DEFERRED_UPDATE_MESSAGE`` for a click or a modal (the player's message stays as it is),
  ``DEFERRED_CHANNEL_MESSAGE`` ("Siege Hall is thinking…") for a command, ephemeral when the
  command answers privately;
* the flow does not know: its answer, given later through ``interaction.response`` as always,
  becomes an edit of the clicked message, of the placeholder, or a follow-up (see
  :class:`DeadlineResponse`). A refusal after a public placeholder removes the placeholder and
  is sent privately, as it would have been.

Flows stay as they are; this module is the one place that knows about the deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import discord
from discord.interactions import InteractionCallbackResponse, InteractionResponse
from discord.utils import MISSING

from cogs.answerless import can_edit_in_answer, edit_in_answer

log = logging.getLogger("siege.deadline")

#: Seconds from an interaction's creation within which it is answered or deferred.
DEFAULT_BUDGET = 1.5
#: Discord's own limit: an answer later than this is refused.
DISCORD_LIMIT = 3.0


class DeadlineResponse(InteractionResponse[Any]):
    """``interaction.response`` for a guarded flow: the usual methods, made safe against the
    guard deferring in the meantime.

    The guard's deferral and the flow's answer never cross (one lock); once deferred,
    ``send_message`` and ``edit_message`` are carried out through the interaction's webhook
    and :meth:`is_done` still tells the flow whether *it* has answered."""

    __slots__ = ("_answered", "_counted", "_deferred", "_lock", "_private", "_released")

    def __init__(
        self, parent: discord.Interaction[Any], *, private: bool, counted: Callable[[str], None]
    ) -> None:
        super().__init__(parent)
        self._lock = asyncio.Lock()
        self._deferred = False  # the guard sent a deferred response
        self._answered = False  # the flow answered (or deferred itself)
        self._private = private
        self._counted = counted  # told of the first answer: "answered" (the flow's), "deferred"
        self._released = False  # the flow is over (see release)

    @classmethod
    def install(
        cls, interaction: discord.Interaction[Any], *, private: bool, counted: Callable[[str], None]
    ) -> DeadlineResponse:
        """Put a guarded response in place of ``interaction.response`` (once: a nested guard
        gets the one already there)."""
        current = interaction.response
        if isinstance(current, DeadlineResponse):
            return current
        if current.is_done():
            raise RuntimeError("the interaction was answered before its flow was guarded")
        response = cls(interaction, private=private, counted=counted)
        # discord.py keeps the response in this slot (a cached property); nothing else can
        # make every ``interaction.response`` of the flow this one.
        interaction._cs_response = response  # type: ignore[attr-defined]
        return response

    def is_done(self) -> bool:
        return self._answered

    @property
    def deferred(self) -> bool:
        """Whether the guard had to defer (the flow was too slow to answer directly)."""
        return self._deferred

    @property
    def acknowledged(self) -> bool:
        """Whether Discord has had a first answer, from the flow or the guard."""
        return self._response_type is not None

    def release(self) -> None:
        """The flow and its error path are over: let go of the interaction. discord.py's
        response and its interaction refer to each other (``interaction.response._parent``), so
        without this every click's interaction, with its parsed message, waited for a garbage
        collection to be freed, and full collections walked thousands of them under load; now
        reference counting frees them when the flow ends. What the response says
        (:meth:`is_done`, :attr:`acknowledged`) stays; it can no longer answer."""
        if not self._lock.locked():  # a deferral under way still needs the interaction
            self._released = True
            self._parent = None  # type: ignore[assignment]

    async def defer_late(self) -> bool:
        """Send the deferred response, unless the flow has answered or is answering now (or is
        over). Returns whether it was sent."""
        if self.acknowledged or self._lock.locked() or self._released:
            return False
        async with self._lock:
            if self.acknowledged or self._released:
                return False
            parent = self._parent
            command = parent.type is discord.InteractionType.application_command
            await super().defer(ephemeral=self._private and command)
            self._deferred = True
            self._counted("deferred")
            return True

    # -- the flow's answers -------------------------------------------------------------------

    async def defer(
        self, *, ephemeral: bool = False, thinking: bool = False
    ) -> InteractionCallbackResponse[Any] | None:
        async with self._lock:
            self._claim()
            if self._deferred:
                self._done(count=False)
                return None  # already acknowledged: what follows goes through the webhook
            response = await super().defer(ephemeral=ephemeral, thinking=thinking)
            self._done()
            return response

    async def send_message(
        self,
        content: Any | None = None,
        *,
        ephemeral: bool = False,
        **kwargs: Any,
    ) -> InteractionCallbackResponse[Any]:
        async with self._lock:
            self._claim()
            if not self._deferred:
                sent = await super().send_message(content, ephemeral=ephemeral, **kwargs)
                self._done()
                return sent
            late = await self._send_late(content, ephemeral, kwargs)
            self._done(count=False)
            return late

    async def edit_message(self, **kwargs: Any) -> InteractionCallbackResponse[Any] | None:
        async with self._lock:
            self._claim()
            if not self._deferred:
                if not can_edit_in_answer(kwargs):
                    edited = await super().edit_message(**kwargs)
                    self._done()
                    return edited
                await edit_in_answer(self, **kwargs)  # (nothing comes back to parse)
                self._done()
                return None
            kwargs.pop("delete_after", None)
            kwargs.pop("suppress_embeds", None)
            # Deferred as an update: the original response is the clicked message.
            await self._parent.edit_original_response(**kwargs)
            self._done(count=False)
            return None

    async def send_modal(self, modal: discord.ui.Modal, /) -> InteractionCallbackResponse[Any]:
        async with self._lock:
            self._claim()
            opened = await super().send_modal(modal)  # InteractionResponded if deferred
            self._done()
            return opened

    def _claim(self) -> None:
        if self._released:
            raise RuntimeError("the interaction's flow is over: it can no longer be answered")
        if self._answered:
            raise discord.InteractionResponded(self._parent)

    def _done(self, *, count: bool = True) -> None:
        """The flow's answer went through (a failed one leaves it free to answer again)."""
        self._answered = True
        if count:
            self._counted("answered")

    async def _send_late(
        self, content: Any | None, ephemeral: bool, kwargs: dict[str, Any]
    ) -> InteractionCallbackResponse[Any]:
        """A message answer after the guard deferred: the placeholder becomes the answer when
        both are as public, else the placeholder goes and the answer is a follow-up."""
        parent = self._parent
        kwargs.pop("delete_after", None)
        placeholder = (
            self._response_type is discord.InteractionResponseType.deferred_channel_message
        )
        placeholder_private = self._private and placeholder
        if placeholder and placeholder_private == ephemeral:
            files: Sequence[discord.File] = kwargs.pop("files", MISSING)
            file: discord.File = kwargs.pop("file", MISSING)
            if file is not MISSING:
                files = [file]
            for dropped in ("tts", "suppress_embeds", "silent"):
                kwargs.pop(dropped, None)
            if content is not None:
                kwargs["content"] = content
            if files is not MISSING:
                kwargs["attachments"] = files
            message: discord.Message = await parent.edit_original_response(**kwargs)
        else:
            if placeholder:  # the first follow-up would take its place, and its visibility
                with contextlib.suppress(discord.NotFound):
                    await parent.delete_original_response()
            if content is not None:
                kwargs["content"] = content
            message = await parent.followup.send(ephemeral=ephemeral, wait=True, **kwargs)
        data: dict[str, Any] = {
            "interaction": {
                "id": str(parent.id),
                "type": parent.type.value,
                "response_message_id": str(message.id),
                "response_message_ephemeral": ephemeral,
            }
        }
        return InteractionCallbackResponse(
            data=data,  # type: ignore[arg-type]
            parent=parent,
            state=parent._state,
            type=discord.InteractionResponseType.channel_message,
        )


class Deadline:
    """Watches guarded flows and defers those that are too slow to answer (see the module's
    docstring). ``clock`` gives the time of day in seconds (tests move it, then :meth:`check`)."""

    def __init__(
        self, budget: float = DEFAULT_BUDGET, clock: Callable[[], float] = time.time
    ) -> None:
        self.budget = budget
        self.clock = clock
        self._pending: dict[int, tuple[float, DeadlineResponse]] = {}
        self._deferring: set[asyncio.Task[bool]] = set()
        #: First answers: by the flow itself ("answered") or by the guard ("deferred").
        self.counts: Counter[str] = Counter()
        #: Also told of each first answer (the metrics, when they are on).
        self.observer: Callable[[str], None] | None = None

    def counted(self, how: str) -> None:
        """An interaction had its first answer: ``"answered"`` by its flow, or ``"deferred"``."""
        self.counts[how] += 1
        if self.observer is not None:
            self.observer(how)

    def due(self, interaction: discord.Interaction[Any], started: float) -> float:
        """When ``interaction`` must have a first answer by (time of day, seconds)."""
        created = interaction.created_at.timestamp()
        return min(created, started) + self.budget

    @contextlib.asynccontextmanager
    async def guard(
        self, interaction: discord.Interaction[Any], *, private: bool = False
    ) -> AsyncIterator[DeadlineResponse]:
        """Run the body with ``interaction`` answered or deferred by its due time."""
        if isinstance(interaction.response, DeadlineResponse):  # a flow inside a flow
            yield interaction.response
            return
        response = DeadlineResponse.install(interaction, private=private, counted=self.counted)
        now = self.clock()
        due = self.due(interaction, now)
        self._pending[interaction.id] = (due, response)
        timer = asyncio.get_running_loop().call_later(
            max(due - now, 0.0), self._fire, interaction.id
        )
        try:
            yield response
        finally:
            timer.cancel()
            self._pending.pop(interaction.id, None)

    def _fire(self, interaction_id: int) -> None:
        entry = self._pending.get(interaction_id)
        if entry is None:
            return
        task = asyncio.get_running_loop().create_task(self._defer(entry[1]))
        self._deferring.add(task)
        task.add_done_callback(self._deferring.discard)

    async def check(self) -> int:
        """Defer every watched flow whose due time has come by the clock now; returns how many
        were deferred (the timers do this on their own; tests that move the clock call it)."""
        now = self.clock()
        due = [response for when, response in self._pending.values() if when <= now]
        results = await asyncio.gather(*(self._defer(response) for response in due))
        return sum(results)

    async def _defer(self, response: DeadlineResponse) -> bool:
        parent = response._parent
        try:
            sent = await response.defer_late()
        except discord.HTTPException as exc:
            log.warning("could not defer interaction %s in time (%s)", parent.id, exc)
            return False
        if sent:
            log.info(
                "interaction %s deferred: no answer %.1f s after it was made",
                parent.id,
                self.clock() - parent.created_at.timestamp(),
            )
        return sent


__all__ = ["DEFAULT_BUDGET", "Deadline", "DeadlineResponse"]
