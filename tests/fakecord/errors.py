"""Exceptions the fake raises in the *test* (as opposed to violations, which are bot mistakes)."""

from __future__ import annotations


class FakecordError(Exception):
    """Base class: the test asked the fake for something impossible."""


class SchemaMismatch(FakecordError):
    """A scripted slash command does not match the schema the bot synced (a test-author mistake)."""


class CommandUnavailable(FakecordError):
    """Discord would not offer this command to this user here (permissions, DM/guild context)."""


class ActionRefused(FakecordError):
    """A real Discord client could not do this (click a disabled/absent button, see a message)."""


class NotConnected(FakecordError):
    """No bot session is connected to the fake gateway."""


class SettleTimeout(FakecordError, TimeoutError):
    """``settle()`` did not see the bot go quiet in time."""
