"""Floor benchmark: the bot-side CPU of the Discord traffic of one move, with no game logic.

Not a test. Our bot spends ~8–10 ms of CPU per move; the issue's target is 2.5 ms. This measures
how much of that discord.py + aiohttp + asyncio cost anyway, on this machine, by running a
minimal ``discord.Client`` (one :class:`discord.ui.DynamicItem` button, no database, no
pictures drawn, no game) in a process of its own against the loopback fake Discord
(``tests.fakecord``) that runs in this process, like ``benchmarks/table_load.py``. The bot's CPU
is read from ``/proc/<bot pid>/stat`` (utime + stime) around the timed clicks only.

A scripted user clicks a button of the bot's message (an embed: a title, six lines, two fields,
a footer; a row of six dynamic buttons), one click at a time and unpaced: the next click as soon
as the previous one's requests are all answered. Three modes, each over ``--clicks`` clicks
(after a few untimed warm-up clicks):

- ``answer``: the callback only answers, ``interaction.response.edit_message(embed=, view=)``
  (the embed's text changes with every click);
- ``answer_png``: the same with ``attachments=[a fixed ~30 KB PNG]`` (the embed shows it);
- ``move``: what one of our moves costs, 4 requests through interaction endpoints: the
  ``answer_png`` answer, ``followup.send(embed=, view=, wait=True)`` (a fresh message), an edit of
  the previous click's follow-up (through that interaction's webhook) and the delete of the one
  from two clicks ago.

Printed per mode: the bot's CPU ms per click, requests per click (counted by the fake, by kind),
CPU ms per request (the floor per request), and click-to-answer p50/p99 (from the interaction's
dispatch to the fake's receipt of its answer, as in ``table_load``). The last line is one JSON
object (``RESULT {...}``).

With ``--rate R`` the timed clicks are paced, R a second (as ``table_load.py`` paces its players):
between two clicks the bot idles, as it does at a paced load, so its caches are colder and each
wake of its event loop carries one click; ``python -m benchmarks`` compares its paced load runs
with the floor paced at the same rate.

Run: ``.venv/bin/python benchmarks/request_floor.py [--clicks 2000] [--rate 0]
[--loop uvloop|asyncio]``
(``--loop``: the bot process's event loop, uvloop by default as ``bot.py``'s; this process always
runs asyncio's).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repo root, for tests.fakecord

import discord  # noqa: E402

from benchmarks.table_load import cpu_seconds  # noqa: E402
from tests.fakecord import FakeDiscord, FakeMessage  # noqa: E402
from tests.fakecord.messages import walk_components  # noqa: E402

PYTHON = sys.executable
MODES = ("answer", "answer_png", "move")
#: Requests the bot sends per click once warm (the first two moves have no follow-up to edit
#: or delete yet).
REQUESTS = {"answer": 1, "answer_png": 1, "move": 4}
WARMUP = 30  # untimed clicks per mode
BUTTONS = 6
PNG_TARGET = 30_000  # bytes
BOT_ROLE = "--bot-process"  # argv[1] of the bot's process: this file, running the bot


# -- the bot (its own process) ------------------------------------------------------------------


def floor_embed(mode: str, n: int, *, png: bool, followup: str = "") -> discord.Embed:
    lines = [f"Line {k}: the position after move {n}, as our boards describe it." for k in range(6)]
    embed = discord.Embed(
        title=f"Floor table ({mode}) — move {n}{followup}",
        description="\n".join(lines),
        colour=0x8A5A2B,
    )
    embed.add_field(name="To act", value=f"<@{1000 + n % 2}> (seat {n % 2 + 1})")
    embed.add_field(name="Clock", value=f"{600 - n % 600} s left")
    embed.set_footer(text=f"Siege Hall floor benchmark · click {n}")
    if png:
        embed.set_image(url="attachment://t.png")
    return embed


class FloorButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"floor:(?P<n>[0-9]+):(?P<mode>[a-z_]+)",
):
    """A button whose custom id carries the click number and the mode (like our game's)."""

    def __init__(self, n: int, mode: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Move {n % BUTTONS + 1}",
                style=discord.ButtonStyle.secondary,
                custom_id=f"floor:{n}:{mode}",
            )
        )
        self.n, self.mode = n, mode

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> FloorButton:
        return cls(int(match["n"]), match["mode"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        assert isinstance(client, FloorClient)
        await client.on_click(interaction, self.mode)


def floor_view(mode: str, click: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for k in range(BUTTONS):
        view.add_item(FloorButton(click * BUTTONS + k, mode))
    return view


class FloorClient(discord.Client):
    def __init__(self, channel_id: int, png: bytes) -> None:
        super().__init__(intents=discord.Intents(guilds=True), guild_ready_timeout=0.05)
        self.channel_id = channel_id
        self.png = png
        self.clicks: Counter[str] = Counter()
        #: ``move``: (the interaction webhook that sent it, message id) of the last follow-ups.
        self.followups: deque[tuple[discord.Webhook, int]] = deque()
        self.posted = False

    async def setup_hook(self) -> None:
        self.add_dynamic_items(FloorButton)

    async def on_ready(self) -> None:
        if self.posted:
            return
        self.posted = True
        channel = self.get_partial_messageable(self.channel_id)
        for mode in MODES:
            await channel.send(embed=floor_embed(mode, 0, png=False), view=floor_view(mode, 0))

    async def on_click(self, interaction: discord.Interaction[Any], mode: str) -> None:
        self.clicks[mode] += 1
        n = self.clicks[mode]
        png = mode != "answer"
        attachments = [discord.File(io.BytesIO(self.png), "t.png")] if png else []
        if png:
            await interaction.response.edit_message(
                embed=floor_embed(mode, n, png=True),
                view=floor_view(mode, n),
                attachments=attachments,
            )
        else:
            await interaction.response.edit_message(
                embed=floor_embed(mode, n, png=False), view=floor_view(mode, n)
            )
        if mode != "move":
            return
        webhook = interaction.followup
        sent = await webhook.send(
            embed=floor_embed(mode, n, png=False, followup=" (follow-up)"),
            view=floor_view("answer", n),  # not clicked: any dispatchable view
            wait=True,
        )
        if self.followups:
            previous, message_id = self.followups[-1]
            await previous.edit_message(
                message_id, embed=floor_embed(mode, n, png=False, followup=" (edited)")
            )
        if len(self.followups) >= 2:
            oldest, message_id = self.followups.popleft()
            await oldest.delete_message(message_id)
        self.followups.append((webhook, sent.id))


def bot_main() -> None:
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = os.environ["FLOOR_API"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["FLOOR_GATEWAY"])
    client = FloorClient(
        int(os.environ["FLOOR_CHANNEL"]), Path(os.environ["FLOOR_PNG"]).read_bytes()
    )

    async def run() -> None:
        async with client:
            await client.start("fake-token")

    if os.environ["FLOOR_LOOP"] == "uvloop":
        import uvloop

        uvloop.run(run())
    else:
        asyncio.run(run())


# -- the driver (this process: the fake Discord and the user) ------------------------------------


def make_png(path: Path) -> int:
    """A fixed picture of ~30 KB: shapes on a plain board, drawn until the file is that big."""
    from PIL import Image, ImageDraw

    rng = random.Random(7)
    image = Image.new("RGB", (800, 400), (222, 205, 170))
    draw = ImageDraw.Draw(image)
    data = b""
    while len(data) < PNG_TARGET:
        for _ in range(20):
            x, y = rng.randrange(800), rng.randrange(400)
            r = rng.randrange(4, 30)
            colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
            if rng.random() < 0.5:
                draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=(40, 30, 20))
            else:
                draw.line((x, y, x + rng.randrange(-80, 80), y + rng.randrange(-80, 80)), colour, 3)
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        data = buffer.getvalue()
    path.write_bytes(data)
    return len(data)


def request_kind(method: str, path: str) -> str:
    if "/callback" in path and "/interactions/" in path:
        return "callback"
    if "/webhooks/" in path:
        return f"webhook {method}"
    return f"{method} " + re.sub(r"/[0-9]{6,}|/[A-Za-z0-9_-]{60,}", "/…", path)


class RequestCounter:
    """Counts the requests the fake answered, by kind, and wakes whoever waits for a number."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.done = 0
        self.kinds: Counter[str] = Counter()
        self.changed = asyncio.Event()
        handle: Callable[[Any], Awaitable[Any]] = fake._handle_http

        async def counted(request: Any) -> Any:
            try:
                return await handle(request)
            finally:
                self.done += 1
                self.kinds[request_kind(request.method, request.path)] += 1
                self.changed.set()

        # Before start(): the server's route takes the attribute then.
        fake._handle_http = counted  # type: ignore[method-assign]

    async def wait_for(self, done: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.done < done:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit(f"the bot sent {self.done} requests, {done} expected")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)


@dataclass
class ModeResult:
    mode: str
    clicks: int
    seconds: float
    cpu_ms_per_click: float
    requests_per_click: float
    cpu_ms_per_request: float
    p50_ms: float
    p99_ms: float
    kinds_per_click: dict[str, float] = field(default_factory=dict)


def start_bot(fake: FakeDiscord, channel_id: int, png: Path, loop: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "FLOOR_"))}
    env.update(
        FLOOR_API=fake.api_base,
        FLOOR_GATEWAY=fake.ws_url,
        FLOOR_CHANNEL=str(channel_id),
        FLOOR_PNG=str(png),
        FLOOR_LOOP=loop,
    )
    return subprocess.Popen(
        [PYTHON, str(Path(__file__).resolve()), BOT_ROLE],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def mode_of(message: FakeMessage) -> str | None:
    for component in walk_components(message.components):
        found = re.fullmatch(r"floor:[0-9]+:([a-z_]+)", str(component.get("custom_id") or ""))
        if found:
            return found.group(1)
    return None


async def run_mode(
    fake: FakeDiscord,
    counter: RequestCounter,
    user: Any,
    message: FakeMessage,
    mode: str,
    clicks: int,
    pid: int,
    rate: float = 0.0,
) -> ModeResult:
    per_click = REQUESTS[mode]
    expected = counter.done
    waits: list[float] = []
    cpu = started = 0.0
    kinds: Counter[str] = Counter()
    for click in range(WARMUP + clicks):
        if click == WARMUP:
            await fake.settle(quiet=0.2, timeout=60)
            cpu, started = cpu_seconds(pid), time.perf_counter()
            kinds = counter.kinds.copy()
            expected = counter.done
        if rate > 0 and click >= WARMUP:
            # Paced: each timed click at its slot, as table_load paces its players.
            wait = started + (click - WARMUP) / rate - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
        latest = fake.latest(message)
        button = f"floor:{click * BUTTONS + click % BUTTONS}:{mode}"
        handle = await user.click(latest, custom_id=button, settle_first=False)
        record = handle.record
        if record.responded_at is None:
            raise SystemExit(f"{mode}: click {click} not answered: {fake.violations[-3:]}")
        if click >= WARMUP:
            waits.append((record.responded_at - record.dispatched_at) * 1000)
        # The move's first follow-ups have nothing to edit or delete yet.
        expected += per_click if mode != "move" else min(per_click, 2 + click)
        await counter.wait_for(expected)
    elapsed = time.perf_counter() - started
    await fake.settle(quiet=0.2, timeout=60)  # the bot reads its last answers
    cpu = cpu_seconds(pid) - cpu
    kinds = counter.kinds - kinds
    requests = sum(kinds.values())
    waits.sort()
    return ModeResult(
        mode=mode,
        clicks=clicks,
        seconds=elapsed,
        cpu_ms_per_click=cpu * 1000 / clicks,
        requests_per_click=requests / clicks,
        cpu_ms_per_request=cpu * 1000 / requests if requests else 0.0,
        p50_ms=statistics.median(waits),
        p99_ms=waits[min(len(waits) - 1, int(0.99 * len(waits)))],
        kinds_per_click={k: v / clicks for k, v in sorted(kinds.items())},
    )


async def amain(args: argparse.Namespace) -> list[ModeResult]:
    results: list[ModeResult] = []
    fake = FakeDiscord(capture_library_errors=False)
    counter = RequestCounter(fake)
    async with fake:
        guild = fake.add_guild("Floor")
        channel = guild.add_text_channel("floor")
        user = fake.add_user("clicker")
        guild.add_member(user)
        with tempfile.TemporaryDirectory() as tmp:
            png = Path(tmp) / "t.png"
            size = make_png(png)
            print(
                f"PNG attachment: {size} bytes; bot loop: {args.loop}; clicks per mode: "
                f"{args.clicks} (+{WARMUP} warm-up); "
                + (f"paced at {args.rate:g} clicks/s" if args.rate > 0 else "unpaced")
            )
            process = start_bot(fake, channel.id, png, args.loop)
            stderr: list[str] = []
            reader = threading.Thread(
                target=lambda: stderr.extend(process.stderr or []), daemon=True
            )
            reader.start()
            try:
                deadline = time.monotonic() + 60
                messages: dict[str, FakeMessage] = {}
                while len(messages) < len(MODES):
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("the bot did not start:\n" + "".join(stderr[-20:]))
                    await asyncio.sleep(0.05)
                    for message in fake.channel_messages(channel):
                        found = mode_of(message)
                        if found is not None:
                            messages[found] = message
                await fake.settle(quiet=0.3, timeout=60)
                for mode in MODES:
                    result = await run_mode(
                        fake,
                        counter,
                        user,
                        messages[mode],
                        mode,
                        args.clicks,
                        process.pid,
                        args.rate,
                    )
                    show(result)
                    results.append(result)
            finally:
                if process.poll() is None:
                    process.terminate()
                    try:
                        process.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        process.wait()
                reader.join(timeout=5)
    if fake.violations:
        print("fake Discord violations:", *fake.violations[:10], sep="\n  ")
    errors = [n for n, line in enumerate(stderr) if "Traceback" in line or "ERROR" in line]
    if errors:
        print("bot errors:", *stderr[errors[0] : errors[0] + 30], sep="\n  ")
    return results


def show(result: ModeResult) -> None:
    kinds = ", ".join(f"{k} {v:.2f}" for k, v in result.kinds_per_click.items())
    print(
        f"{result.mode:<10} {result.clicks} clicks in {result.seconds:.1f} s: bot CPU "
        f"{result.cpu_ms_per_click:.3f} ms/click; {result.requests_per_click:.2f} requests/click "
        f"({kinds}); {result.cpu_ms_per_request:.3f} ms CPU/request; click to answer "
        f"p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms"
    )


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clicks", type=int, default=2000, help="timed clicks per mode")
    parser.add_argument(
        "--loop",
        choices=("asyncio", "uvloop"),
        default="uvloop",
        help="the bot process's event loop (the bot itself runs uvloop where it is installed)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="clicks a second, paced as table_load paces its players (0: unpaced, the next click"
        " as soon as the last one's requests are answered)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments(argv)
    results = asyncio.run(amain(args))
    modes = {r.mode: r.__dict__ for r in results}
    print("RESULT " + json.dumps({"loop": args.loop, "rate": args.rate, "modes": modes}))


if __name__ == "__main__":
    if sys.argv[1:2] == [BOT_ROLE]:
        bot_main()
    else:
        main()
