"""The rating chart of ``/siege stats``: a picture with its dates, and the same in words."""

from __future__ import annotations

import io

from PIL import Image

from presentation.charts import HEIGHT, WIDTH, rating_alt, rating_chart

POINTS = [(f"2026-11-{day:02d}T10:00:00+00:00", 1000.0 + day * 3) for day in range(1, 28)]


def test_the_chart_is_a_picture_of_the_preview_size_for_one_game_or_many() -> None:
    for points in (POINTS[:1], POINTS):
        image = Image.open(io.BytesIO(rating_chart("Siege tower poker: rating", points)))
        assert image.size == (WIDTH, HEIGHT)


def test_the_alt_text_gives_the_dates_and_the_figures() -> None:
    assert rating_alt("Siege (1966)", POINTS) == (
        "Siege (1966): rating after each of 27 rated games, 1 Nov to 27 Nov: from 1003 to 1081 "
        "(lowest 1003, highest 1081)."
    )
    assert rating_alt("Siege (1966)", POINTS[:1]) == (
        "Siege (1966): rating after 1 rated game, 1 Nov: from 1003 to 1003 "
        "(lowest 1003, highest 1003)."
    )
