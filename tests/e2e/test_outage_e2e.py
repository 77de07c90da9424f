"""The database unavailable under a running bot, through the fake Discord: a click gets the defined
ephemeral answer ("nothing changed, try again"), counted in ``siege_storage_unavailable_total``,
with one log line for the outage and no traceback per click; PostgreSQL coming back, play goes on
without a restart. (SQLite's outage here is its write-ahead log deleted under the writer: writes
stop for good, until the operator restarts the bot.)"""

from __future__ import annotations

import logging

import pytest

from cogs.metrics import sample
from tests.e2e.test_castles_e2e import DEALER_BOB, open_game, refusal
from tests.e2e.test_hall_e2e import draw_label
from tests.e2e.test_metrics_e2e import free_port, scrape, start_with_metrics
from tests.e2e.world import World
from tests.pg import raw_execute
from tests.storage.test_outage import admin_url

pytestmark = pytest.mark.e2e

CLICKS = 3


async def test_clicks_during_an_outage_get_the_unavailable_answer(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    w = world
    caplog.set_level(logging.INFO)
    port = free_port()
    await start_with_metrics(w, port)
    table, _ = await open_game(w, dealer=DEALER_BOB)
    if w.database_url is not None:
        name = w.database_url.split("?")[0].rsplit("/", 1)[1]
        admin = admin_url(w.database_url)
        raw_execute(admin, f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        raw_execute(
            admin,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?",
            (name,),
        )
    else:
        w.db_path.with_name(w.db_path.name + "-wal").unlink()
    for _ in range(CLICKS):
        handle = await w.alice.click(w.table_message(table), draw_label(38))
        await w.fake.settle()
        assert "unavailable" in refusal(handle) and "nothing changed" in refusal(handle)
    text = await scrape(port)
    assert sample(text, "siege_storage_unavailable_total") == CLICKS
    began = [r for r in caplog.records if "unavailable (" in r.getMessage()]
    assert len(began) == 1 and began[0].levelno == logging.ERROR
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
    if w.database_url is None:
        return
    raw_execute(admin, f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    handle = await w.alice.click(w.table_message(table), draw_label(38))
    await w.fake.settle()
    assert not handle.ephemeral
    assert (await w.table_by_id(table.id)).ply == 1
    assert len([r for r in caplog.records if "available again" in r.getMessage()]) == 1
