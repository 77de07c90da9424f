"""Start-up and configuration of ``bot.py``: settings, failures that end start-up with one line
and status 2, and logging in again while Discord cannot be reached."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import discord
import discord.http
import pytest
from aiohttp import web

import bot
from tests.fakecord import FakeDiscord, start_client, stop_client
from tests.unprivileged import as_nobody

ROOT = Path(__file__).resolve().parent.parent
SECRET = "MTIzNDU2Nzg5.secret-token.do-not-log-me"
VARIABLE_NAMES = ("DISCORD_TOKEN", "DATABASE_PATH", "DEV_GUILD_ID", "LOG_LEVEL")
STEP = 20.0  # seconds any one awaited step of a test may take before it fails


# -- settings --------------------------------------------------------------------------------


def test_settings_defaults_and_values() -> None:
    settings = bot.Settings.from_env({})
    assert settings.token is None and settings.dev_guild_id is None
    assert settings.database_path == "siege.db" and settings.log_level == "INFO"
    assert settings.answer_budget == 1.5
    assert bot.Settings.from_env({"ANSWER_BUDGET": "0.8"}).answer_budget == 0.8
    assert settings.server_data_days == 30
    assert bot.Settings.from_env({"SERVER_DATA_DAYS": "7"}).server_data_days == 7
    settings = bot.Settings.from_env(
        {
            "DISCORD_TOKEN": " abc ",
            "DATABASE_PATH": "/data/x.db",
            "DEV_GUILD_ID": "42",
            "LOG_LEVEL": "debug",
            "token": "ignored",
        }
    )
    assert settings.token is not None and settings.token.get_secret_value() == "abc"
    assert settings.database_path == "/data/x.db" and settings.dev_guild_id == 42
    assert settings.log_level == "DEBUG"
    blank = {name: " " for name in VARIABLE_NAMES}
    assert bot.Settings.from_env(blank) == bot.Settings.from_env({})  # empty counts as unset
    # The form tests/e2e/world.py uses: field names.
    settings = bot.Settings(token="fake-token", database_path="/tmp/t.db", dev_guild_id=7)
    assert settings.token is not None and settings.token.get_secret_value() == "fake-token"
    assert settings.database_path == "/tmp/t.db" and settings.dev_guild_id == 7


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DEV_GUILD_ID", "my server"),
        ("DEV_GUILD_ID", "-3"),
        ("DEV_GUILD_ID", "4.5"),
        ("LOG_LEVEL", "LOUD"),
        ("LOG_LEVEL", "verbose"),
        ("ANSWER_BUDGET", "0"),
        ("ANSWER_BUDGET", "3"),
        ("ANSWER_BUDGET", "soon"),
        ("SERVER_DATA_DAYS", "0"),
        ("SERVER_DATA_DAYS", "a month"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable(variable: str, value: str) -> None:
    with pytest.raises(bot.SettingsError) as caught:
        bot.Settings.from_env({"DISCORD_TOKEN": SECRET, variable: value})
    message = str(caught.value)
    assert variable in message and repr(value) in message and "\n" not in message
    assert SECRET not in message and "pydantic" not in message


def test_settings_read_the_environment_then_dot_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in VARIABLE_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("token", "a stray variable, not ours")
    assert bot.Settings.from_env().token is None
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=from-dotenv\nDATABASE_PATH=dotenv.db\nDEV_GUILD_ID=5\nLOG_LEVEL=warning\n"
    )
    monkeypatch.setenv("DATABASE_PATH", "environment.db")  # the environment wins
    monkeypatch.setenv("DEV_GUILD_ID", "")  # empty counts as unset: .env's value applies
    settings = bot.Settings.from_env()
    assert settings.token is not None and settings.token.get_secret_value() == "from-dotenv"
    assert settings.database_path == "environment.db" and settings.dev_guild_id == 5
    assert settings.log_level == "WARNING"
    # An explicit mapping, or Settings(...), reads neither the environment nor .env.
    for explicit in (bot.Settings.from_env({}), bot.Settings(database_path="siege.db")):
        assert explicit.token is None and explicit.dev_guild_id is None
        assert explicit.database_path == "siege.db" and explicit.log_level == "INFO"


def test_settings_never_show_the_token() -> None:
    settings = bot.Settings.from_env({"DISCORD_TOKEN": SECRET, "DEV_GUILD_ID": "42"})
    direct = bot.Settings(token=SECRET, database_path="x.db")
    for shown in (settings, direct):
        texts = [repr(shown), str(shown), f"{shown}", shown.model_dump_json(), repr(shown.token)]
        texts += [str(shown.model_dump()), str(shown.token)]
        for text in texts:
            assert SECRET not in text and "**" in text


@pytest.mark.parametrize("bad", ["DEV_GUILD_ID=abc", "LOG_LEVEL=LOUD"])
def test_main_with_a_bad_setting_exits_2_with_one_line(
    bad: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    for name in VARIABLE_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", SECRET)
    name, value = bad.split("=")
    monkeypatch.setenv(name, value)
    assert bot.main() == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"Siege Hall: {name} ") and repr(value) in err
    assert SECRET not in err and "Traceback" not in err and "validation error" not in err


def test_starting_without_a_token_exits_2_with_a_short_message(tmp_path: Path) -> None:
    done = run_bot_py(tmp_path, {})
    assert done.returncode == 2
    assert "DISCORD_TOKEN" in done.stderr and "discord.com/developers" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_payload_loggers_stay_at_info_even_when_debugging() -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        bot.configure_logging("DEBUG")
        for name in bot.PAYLOAD_LOGGERS:
            assert logging.getLogger(name).getEffectiveLevel() >= logging.INFO
        assert logging.getLogger("siege").getEffectiveLevel() == logging.DEBUG
    finally:
        restore_root_logger(handlers, level)


# -- an unusable database: checked before connecting, one line, status 2 -----------------------


async def truncated_database(path: Path, keep: float = 0.5) -> None:
    """A real, migrated database cut to ``keep`` of its length (1.0: left whole)."""
    store = await bot.open_store(str(path))
    await store.close()
    data = path.read_bytes()
    assert len(data) > 8192, "expected a database of several pages"
    path.write_bytes(data[: int(len(data) * keep)])


@pytest.mark.parametrize("case", ["missing folder", "a folder", "garbage file", "truncated"])
async def test_an_unusable_database_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    if case == "missing folder":
        db = tmp_path / "no-such-folder" / "siege.db"
    elif case == "a folder":
        db = tmp_path / "siege.db"
        db.mkdir()
    elif case == "garbage file":
        db = tmp_path / "siege.db"
        db.write_bytes(b"these are not the pages you are looking for\n" * 200)
    else:
        db = tmp_path / "siege.db"
        await truncated_database(db)
    started = time.monotonic()
    done = run_bot_py(tmp_path, {"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(db)})
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("Siege Hall: "), done.stderr
    assert str(db) in lines[0]
    assert "Traceback" not in done.stderr and SECRET not in done.stderr and done.stdout == ""
    assert time.monotonic() - started < 15


async def test_a_read_only_database_exits_2_with_one_line() -> None:
    """Opened and read fine, then every move would have failed: now refused at start."""
    folder = Path(tempfile.mkdtemp(prefix="siege-ro-"))
    try:
        db = folder / "siege.db"
        await truncated_database(db, keep=1.0)
        os.chmod(folder, 0o755)  # the unprivileged user must reach the file, not write it
        os.chmod(db, 0o444)
        env = {k: v for k, v in os.environ.items() if k not in VARIABLE_NAMES}
        done = subprocess.run(
            [*as_nobody(), sys.executable, str(ROOT / "bot.py")],
            cwd=folder,
            env=env | {"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(db)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        lines = done.stderr.splitlines()
        assert done.returncode == 2, done.stderr
        assert len(lines) == 1 and "read-only" in lines[0] and str(db) in lines[0]
        assert "Traceback" not in done.stderr and SECRET not in done.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_debug_start_up_that_fails_never_shows_the_token(tmp_path: Path) -> None:
    db = tmp_path / "missing" / "siege.db"
    done = run_bot_py(
        tmp_path, {"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(db), "LOG_LEVEL": "DEBUG"}
    )
    assert done.returncode == 2 and str(db) in done.stderr
    assert SECRET not in done.stderr + done.stdout and "Traceback" not in done.stderr


async def test_the_database_is_checked_before_connecting_to_discord(
    tmp_path: Path, discord_base: None, capsys: pytest.CaptureFixture[str]
) -> None:
    discord.http.Route.BASE = f"http://127.0.0.1:{closed_port()}/api/v10"
    attempts: list[float] = []

    async def sleep(delay: float) -> None:
        attempts.append(delay)
        raise AssertionError("tried to reach Discord")

    settings = bot.Settings.from_env(
        {"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(tmp_path / "missing" / "siege.db")}
    )
    assert await asyncio.wait_for(bot.amain(settings, sleep=sleep), STEP) == 2
    assert attempts == []
    err = capsys.readouterr().err
    assert err.startswith("Siege Hall: cannot use the database at ") and len(err.splitlines()) == 1


# -- Discord unreachable at start: retried with back-off --------------------------------------


async def test_login_is_retried_with_back_off_until_discord_answers(
    fakecord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    guild = fakecord.add_guild("Retry Server")
    discord.http.Route.BASE = f"http://127.0.0.1:{closed_port()}/api/v10"  # Discord is down
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)
        if len(delays) == 4:
            fakecord.install()  # ... and back

    caplog.set_level(logging.INFO, logger="siege")
    client = bot.create_bot(
        bot.Settings(token=SECRET, database_path=str(tmp_path / "siege.db"), dev_guild_id=guild.id),
        sleep=sleep,
        guild_ready_timeout=0.05,
    )
    await start_client(client, token=SECRET, timeout=STEP)
    try:
        assert delays == [1, 2, 4, 8]
        retries = [r for r in caplog.records if "cannot reach Discord" in r.getMessage()]
        assert [r.levelno for r in retries] == [logging.WARNING] * 4
        for record, delay in zip(retries, delays, strict=True):
            line = record.getMessage()
            assert line.endswith(f"); retrying in {delay:g} s") and "\n" not in line
            assert "127.0.0.1" in line and record.exc_info is None
        assert client.is_ready() and guild.commands.all()  # set up once, synced, connected
    finally:
        await stop_client(client)
    assert_no_unclosed_sessions(caplog)


async def test_a_failed_command_sync_is_retried_without_setting_up_twice(
    fakecord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """login() runs setup_hook after signing in; when its command sync loses the network, the
    retried login syncs again but opens no second store and loads no extension twice."""
    guild = fakecord.add_guild("Sync Server")
    opened: list[str] = []
    open_store = bot.open_store

    async def counting_open_store(path: str, clock: Any = None) -> bot.Store:
        opened.append(path)
        return await open_store(path, clock)

    monkeypatch.setattr(bot, "open_store", counting_open_store)
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)

    settings = bot.Settings(
        token=SECRET, database_path=str(tmp_path / "siege.db"), dev_guild_id=guild.id
    )
    client = bot.create_bot(settings, sleep=sleep, guild_ready_timeout=0.05)
    sync = client.sync_commands
    failures = [ConnectionResetError("connection reset during the command sync")]

    async def flaky_sync() -> None:
        if failures:
            raise failures.pop()
        await sync()

    client.sync_commands = flaky_sync  # type: ignore[method-assign]
    await start_client(client, token=SECRET, timeout=STEP)
    try:
        assert delays == [1] and opened == [settings.database_path]
        assert guild.commands.all() and client.is_ready()
    finally:
        await stop_client(client)


async def test_back_off_is_capped_and_closing_stops_the_retries(
    tmp_path: Path, discord_base: None, caplog: pytest.LogCaptureFixture
) -> None:
    discord.http.Route.BASE = f"http://127.0.0.1:{closed_port()}/api/v10"
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)
        if len(delays) == 9:
            await client.close()  # a stop while waiting to retry

    settings = bot.Settings(token=SECRET, database_path=str(tmp_path / "siege.db"))
    client = bot.create_bot(settings, sleep=sleep)

    caplog.set_level(logging.INFO)
    async with client:
        await asyncio.wait_for(client.start(SECRET), STEP)  # returns: closed, not connected
    assert delays == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    assert len([r for r in caplog.records if "cannot reach Discord" in r.getMessage()]) == 9
    assert_no_unclosed_sessions(caplog)


async def test_server_errors_are_retried_but_a_refused_token_is_not(
    tmp_path: Path, discord_base: None
) -> None:
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)

    async with scripted_discord([503, 503, 401]) as seen:
        client = bot.create_bot(
            bot.Settings(token=SECRET, database_path=str(tmp_path / "siege.db")), sleep=sleep
        )
        async with client:
            with pytest.raises(discord.LoginFailure):
                await asyncio.wait_for(client.start(SECRET), STEP)
    assert delays == [1, 2] and seen == [503, 503, 401]


async def test_a_refused_token_exits_2_and_closes_the_store(
    tmp_path: Path,
    discord_base: None,
    closed_stores: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = str(tmp_path / "siege.db")
    settings = bot.Settings.from_env({"DISCORD_TOKEN": SECRET, "DATABASE_PATH": db})
    async with scripted_discord([401]):
        assert await asyncio.wait_for(bot.amain(settings), STEP) == 2
    assert closed_stores == [db]
    err = capsys.readouterr().err
    assert err.strip() == bot.BAD_TOKEN and SECRET not in err


async def test_a_debug_start_up_never_logs_the_token(
    fakecord: FakeDiscord,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    closed_stores: list[str],
) -> None:
    """The whole of main() after the settings: logging at DEBUG, the database, one failed
    login, the real login, set-up, command sync, the gateway; then Ctrl-C."""
    guild = fakecord.add_guild("Debug Server")
    discord.http.Route.BASE = f"http://127.0.0.1:{closed_port()}/api/v10"

    async def sleep(delay: float) -> None:
        fakecord.install()

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    caplog.set_level(logging.DEBUG)
    bot.configure_logging("DEBUG")
    settings = bot.Settings.from_env(
        {
            "DISCORD_TOKEN": SECRET,
            "DATABASE_PATH": str(tmp_path / "siege.db"),
            "DEV_GUILD_ID": str(guild.id),
            "LOG_LEVEL": "DEBUG",
        }
    )
    task = asyncio.create_task(bot.amain(settings, sleep=sleep, guild_ready_timeout=0.05))
    try:
        deadline = time.monotonic() + STEP
        while not any(r.getMessage().startswith("ready as") for r in caplog.records):
            assert not task.done(), task.result()
            assert time.monotonic() < deadline, "the bot did not get ready"
            await asyncio.sleep(0.01)
        await fakecord.settle()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, STEP)
        restore_root_logger(handlers, level)
    assert closed_stores == [str(tmp_path / "siege.db")]  # Ctrl-C closed the database
    assert any(r.levelno == logging.DEBUG for r in caplog.records)  # DEBUG really was on
    assert any("cannot reach Discord" in r.getMessage() for r in caplog.records)
    assert SECRET not in caplog.text
    for record in caplog.records:
        assert SECRET not in record.getMessage() and SECRET not in str(record.exc_text)


# -- helpers ---------------------------------------------------------------------------------


def run_bot_py(cwd: Path, variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLE_NAMES}
    return subprocess.run(
        [sys.executable, str(ROOT / "bot.py")],
        cwd=cwd,  # no .env here
        env=env | variables,
        capture_output=True,
        text=True,
        timeout=60,
    )


def restore_root_logger(handlers: list[logging.Handler], level: int) -> None:
    root = logging.getLogger()
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)


def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on (connecting is refused at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def assert_no_unclosed_sessions(caplog: pytest.LogCaptureFixture) -> None:
    gc.collect()  # aiohttp reports an unclosed session or connector when it is collected
    unclosed = [r.getMessage() for r in caplog.records if "Unclosed" in r.getMessage()]
    assert unclosed == []


@pytest.fixture
def closed_stores(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the stores bot.open_store() opened that were closed again."""
    closed: list[str] = []
    open_store = bot.open_store

    async def spying_open_store(path: str, clock: Any = None) -> bot.Store:
        store = await open_store(path, clock)
        close = store.close

        async def spy() -> None:
            closed.append(path)
            await close()

        store.close = spy  # type: ignore[method-assign]
        return store

    monkeypatch.setattr(bot, "open_store", spying_open_store)
    return closed


@pytest.fixture
def discord_base() -> Iterator[None]:
    """Puts discord.http.Route.BASE back after a test that points it elsewhere."""
    saved = discord.http.Route.BASE
    try:
        yield
    finally:
        discord.http.Route.BASE = saved


@contextlib.asynccontextmanager
async def scripted_discord(statuses: list[int]) -> AsyncIterator[list[int]]:
    """A Discord on 127.0.0.1 that answers the login request with ``statuses`` in turn;
    yields the statuses it sent."""
    sent: list[int] = []

    async def users_me(request: web.Request) -> web.Response:
        status = statuses[min(len(sent), len(statuses) - 1)]
        sent.append(status)
        return web.json_response({"code": 0, "message": f"{status}: scripted"}, status=status)

    app = web.Application()
    app.router.add_get("/api/v10/users/@me", users_me)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    try:
        yield sent
    finally:
        await runner.cleanup()


def test_sigterm_while_waiting_for_discord_closes_cleanly(tmp_path: Path) -> None:
    """``docker stop`` sends SIGTERM: the bot closes the database (the WAL file is folded back
    and removed) and exits 0, without waiting out the retry delay."""
    db = tmp_path / "siege.db"
    launcher = (
        "import discord.http, sys; "
        f"discord.http.Route.BASE = 'http://127.0.0.1:{closed_port()}/api/v10'; "
        "import bot; sys.exit(bot.main())"
    )
    env = {k: v for k, v in os.environ.items() if k not in VARIABLE_NAMES}
    process = subprocess.Popen(
        [sys.executable, "-c", launcher],
        cwd=ROOT,
        env=env | {"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(db), "NO_COLOR": "1"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "cannot reach Discord" in line:
                break
        assert Path(f"{db}-wal").exists()  # the database is open
        process.send_signal(signal.SIGTERM)
        rest = process.stderr.read()
        assert process.wait(timeout=20) == 0, rest
    finally:
        process.kill()
    assert "Traceback" not in rest and SECRET not in rest
    assert not Path(f"{db}-wal").exists()


def test_the_event_loop_is_uvloop_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvloop

    loop = bot.new_event_loop()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as on Windows: not installed
    loop = bot.new_event_loop()
    try:
        assert not isinstance(loop, uvloop.Loop)
        assert isinstance(loop, asyncio.AbstractEventLoop)
    finally:
        loop.close()
