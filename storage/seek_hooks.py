"""What other writes do to seeks (``storage/seeks.py``), inside their own transaction: a player
who takes a seat in another game withdraws their open seeks (:func:`seated`), and a game opened
by an unrated seek, or a rematch of one, is not rated (:func:`is_casual`). Leaf functions, so
the table writes and the results can call them without importing the seeks' own module.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import get_game
from storage.database import Connection


def seated(conn: Connection, game: str, user_ids: Iterable[int], now: str) -> int:
    """``user_ids`` took seats in a game of ``game``: their open seeks are superseded (their
    messages still show them open, ``shown = 0``, until the hall edits them). A solo game
    keeps them open: nobody waits on its player there. Returns how many were closed."""
    people = sorted({uid for uid in user_ids if uid > 0})  # computer seats have negative ids
    if not people or get_game(game).max_seats == 1:
        return 0
    marks = ", ".join("?" for _ in people)
    cur = conn.execute(
        "UPDATE seeks SET status = 'superseded', shown = 0, updated_at = ?"
        f" WHERE status = 'open' AND author_id IN ({marks})",
        (now, *people),
    )
    return max(cur.rowcount, 0)


def is_casual(conn: Connection, table_id: int) -> bool:
    """Was this table opened by an unrated seek, or is it a rematch of such a game?"""
    row = conn.execute(
        "WITH RECURSIVE chain (id, rematch_of) AS ("
        " SELECT id, rematch_of FROM tables WHERE id = ?"
        " UNION ALL"
        " SELECT t.id, t.rematch_of FROM tables t JOIN chain c ON t.id = c.rematch_of)"
        " SELECT 1 FROM seeks WHERE rated = 0 AND table_id IN (SELECT id FROM chain) LIMIT 1",
        (table_id,),
    ).fetchone()
    return row is not None


__all__ = ["is_casual", "seated"]
