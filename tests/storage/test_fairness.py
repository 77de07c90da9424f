"""Provably fair chance in storage (issue 23): every table sealed by a salt, stored games keep
the chance scheme they were dealt with, and a finished game exports what engine.verify checks."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

from engine import chance, get_game
from engine.rules import dumps, rng_for
from engine.verify import main as verify_main
from engine.verify import verify
from storage import Store, TableRecord
from storage.export import export_script
from storage.fairness import commitment_of
from tests.pg import raw_execute, raw_rows

KURTH = get_game("kurth")
PLAYER = 11
SEED = 987654321


async def kurth_table(store: Store, channel: int = 1) -> TableRecord:
    return await store.create_table(
        guild_id=5, channel_id=channel, game="kurth", host_id=PLAYER, seed=SEED, start=True
    )


async def play(store: Store, table: TableRecord, moves: int, chooser: random.Random) -> TableRecord:
    for _ in range(moves):
        if table.state is None or KURTH.to_act(table.state) is None:
            break
        action = chooser.choice(KURTH.legal_actions(table.state, 0))
        table, _ = await store.act(table.id, PLAYER, action, table.ply)
    return table


async def test_a_new_table_is_sealed_by_a_salt_kept_with_its_seed(store: Store) -> None:
    table = await kurth_table(store)
    assert table.salt is not None and len(bytes.fromhex(table.salt)) == 16
    assert chance.scheme_of(table.state) == chance.BY_PURPOSE
    other = await kurth_table(store, channel=2)
    assert other.salt != table.salt  # random, not derived from the seed
    assert commitment_of(table) == chance.commitment(SEED, table.salt)
    assert commitment_of(table) != commitment_of(other)


async def test_a_lobby_from_before_commitments_gets_its_salt_at_the_start(
    store: Store, db_path: Path | str
) -> None:
    lobby = await store.create_table(guild_id=5, channel_id=3, game="castles", host_id=1)
    raw_execute(db_path, "UPDATE tables SET salt = NULL WHERE id = ?", (lobby.id,))
    await store.join(lobby.id, 2)
    started = await store.start(lobby.id, 1)
    assert started.salt is not None
    assert raw_rows(db_path, "SELECT salt FROM tables WHERE id = ?", (lobby.id,)) == [
        (started.salt,)
    ]


async def test_an_old_game_replays_and_plays_on_with_the_chance_it_was_dealt(
    store: Store, db_path: Path | str
) -> None:
    """A table stored before chance came by purpose (no chance key in its state, no salt): its
    moves keep the per-ply generator, so replays, exports and the game itself go on as dealt."""
    table = await kurth_table(store)
    old = chance.deal(KURTH, 1, table.options, SEED, scheme=chance.BY_PLY)
    raw_execute(
        db_path, "UPDATE tables SET state = ?, salt = NULL WHERE id = ?", (dumps(old), table.id)
    )
    table = await store.get_table(table.id)  # type: ignore[assignment]
    assert table is not None and table.salt is None
    table = await play(store, table, 400, random.Random(3))
    assert table.status == "over" and table.state is not None
    # The same moves under the old scheme, without the store: the identical game.
    expected = old
    for record in await store.actions(table.id):
        expected, events = KURTH.apply(expected, 0, record.action, rng_for(SEED, record.ply))
        assert events == record.events
    assert dumps(table.state) == dumps(expected)
    assert chance.KEY not in table.state
    assert dumps(await store.replay(table.id)) == dumps(table.state)
    script = await export_script(store, table)
    assert script["chance"] == {"scheme": chance.BY_PLY}
    verdict = verify(script)
    assert verdict.ok, verdict.text()
    assert "no commitment" in verdict.text()


async def test_an_exported_game_verifies_and_one_changed_die_or_card_fails(
    store: Store, tmp_path: Path, capsys: object
) -> None:
    table = await play(store, await kurth_table(store), 400, random.Random(8))
    assert table.status == "over"
    script = await export_script(store, table)
    assert script["chance"]["commitment"] == commitment_of(table)
    assert script["dealt"]["final"] == table.state
    good = verify(script)
    assert good.ok, good.text()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(script))
    assert verify_main([str(path)]) == 0

    rolled = next(
        (n, e)
        for n, entry in enumerate(script["actions"])
        for e, event in enumerate(entry["events"])
        if event["type"] == "attack_rolled"
    )
    tampered = copy.deepcopy(script)
    die = tampered["actions"][rolled[0]]["events"][rolled[1]]["dice"]
    die[0] = die[0] % 6 + 1
    bad = verify(tampered)
    assert not bad.ok and f"move {rolled[0] + 1}:" in bad.text()
    path.write_text(json.dumps(tampered))
    assert verify_main([str(path)]) == 1

    stacked = copy.deepcopy(script)
    pile = stacked["dealt"]["opening"]["pile"]
    pile[0], pile[1] = pile[1], pile[0]
    assert not verify(stacked).ok

    lied = copy.deepcopy(script)
    lied["seed"] += 1
    text = verify(lied).text()
    assert "MISMATCH: sha256(seed:salt)" in text


async def test_a_game_ending_in_resignation_exports_its_deal(store: Store) -> None:
    table = await play(store, await kurth_table(store), 5, random.Random(1))
    table, _ = await store.resign(table.id, PLAYER)
    script = await export_script(store, table)
    assert all(entry["action"] != {"type": "resign"} for entry in script["actions"])
    assert "final" in script["dealt"]
    assert verify(script).ok


async def test_two_players_of_one_daily_seed_get_every_die_and_card_alike(store: Store) -> None:
    """Issue 23: two different policies on the day's seed see the same n-th die and the same
    cards each turn, however differently they play."""
    # The server's secret, fixed: the day's seed (and so how long each game lasts, and how many
    # dice it rolls) is then the same on every run.
    await store._write(
        lambda conn: conn.execute(
            "INSERT INTO guild_secrets (guild_id, secret) VALUES (?, ?)", (9, "5e" * 32)
        )
    )
    dealt = []
    for user, policy in ((21, random.Random("cautious")), (22, random.Random("reckless"))):
        table, scored = await store.start_daily(
            guild_id=9, channel_id=user, user_id=user, difficulty="advanced", day="2026-11-25"
        )
        assert scored
        while table.state is not None and KURTH.to_act(table.state) is not None:
            action = policy.choice(KURTH.legal_actions(table.state, 0))
            table, _ = await store.act(table.id, user, action, table.ply)
        dice: list[int] = []
        cards = {1: (await store.replay(table.id, upto=0))["cards"]}
        for record in await store.actions(table.id):
            for event in record.events:
                if event["type"] == "attack_rolled":
                    dice += event["dice"]
                elif event["type"] == "attack_rerolled":
                    dice.append(event["dice"][event["die"]])
                elif event["type"] == "upkeep_done":
                    cards[event["turn"]] = event["cards"]
        dealt.append((table.seed, [r.action for r in await store.actions(table.id)], dice, cards))
    (seed_a, moves_a, dice_a, cards_a), (seed_b, moves_b, dice_b, cards_b) = dealt
    assert seed_a == seed_b and moves_a != moves_b
    common = min(len(dice_a), len(dice_b))
    assert common >= 4 and dice_a[:common] == dice_b[:common]
    turns = set(cards_a) & set(cards_b)
    assert len(turns) >= 4 and all(cards_a[t] == cards_b[t] for t in turns)


async def test_a_tower_poker_seat_leaving_mid_game_still_verifies(store: Store) -> None:
    """A resignation is no script action: the export says where it came, and the verifier
    replays it there, so the others' later cards still match."""
    towers = get_game("towers")
    table = await store.create_table(
        guild_id=5, channel_id=7, game="towers", host_id=1, seats=(1, 2, 3), start=True
    )
    chooser = random.Random(4)

    async def moves(table: TableRecord, count: int) -> TableRecord:
        for _ in range(count):
            assert table.state is not None
            seat = towers.to_act(table.state)
            if seat is None:
                break
            legal = [a for a in towers.legal_actions(table.state, seat) if a["type"] != "leave"]
            table, _ = await store.act(
                table.id, table.seats[seat], chooser.choice(legal), table.ply
            )
        return table

    table = await moves(table, 6)
    table, _ = await store.resign(table.id, 3)
    table = await moves(table, 40)
    script = await export_script(store, table)
    assert script["dealt"]["resignations"] == [{"after": 6, "seat": 2}]
    verdict = verify(script)
    assert verdict.ok, verdict.text()
    script["dealt"]["resignations"] = []
    assert not verify(script).ok  # without the leave, the game that follows is another
