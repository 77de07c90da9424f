"""``Store.count_open_tables``: what the metrics' open-tables gauge shows, on both backends."""

from __future__ import annotations

from storage import Store

GUILD = 77
HOST, GUEST = 1001, 2002


async def test_open_tables_are_counted_by_status(store: Store) -> None:
    assert await store.count_open_tables() == {"lobby": 0, "running": 0}
    lobby = await store.create_table(guild_id=GUILD, channel_id=1, game="castles", host_id=HOST)
    running = []
    for channel in (2, 3, 4):
        table = await store.create_table(
            guild_id=GUILD, channel_id=channel, game="castles", host_id=HOST
        )
        await store.join(table.id, GUEST)
        running.append(await store.start(table.id, HOST))
    assert await store.count_open_tables() == {"lobby": 1, "running": 3}

    # Cancelled and finished tables are not open.
    await store.cancel(lobby.id)
    over, _ = await store.resign(running[0].id, GUEST)
    assert over.status == "over"
    assert await store.count_open_tables() == {"lobby": 0, "running": 2}
