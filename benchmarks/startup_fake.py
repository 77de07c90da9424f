"""The loopback fake Discord in a process of its own, for ``benchmarks/startup.py``.

Starts :class:`tests.fakecord.FakeDiscord` on 127.0.0.1, adds one guild, prints one JSON line
(``api_base``, ``gateway``, ``guild_id``) on standard output and then serves until SIGTERM or
SIGINT. Each IDENTIFY it receives is reported as a line ``IDENTIFY <time.time()>`` on standard
output; the violations the fake recorded, if any, go to standard error when it stops.

Run: ``.venv/bin/python benchmarks/startup_fake.py`` (not on its own very useful).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root, for tests.fakecord

from tests.fakecord import FakeDiscord
from tests.fakecord.gateway import GatewayConnection


async def main() -> int:
    fake = FakeDiscord(capture_library_errors=False)
    await fake.start()
    guild = fake.add_guild("Startup benchmark")

    identify = fake.gateway._identify

    def on_identify(connection: GatewayConnection, data: dict[str, Any]) -> None:
        print(f"IDENTIFY {time.time():.6f}", flush=True)
        identify(connection, data)

    fake.gateway._identify = on_identify  # type: ignore[method-assign]
    print(
        json.dumps({"api_base": fake.api_base, "gateway": fake.ws_url, "guild_id": guild.id}),
        flush=True,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await fake.stop()
    for violation in fake.violations:
        print(f"fake Discord violation: {violation}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
