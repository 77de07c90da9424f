"""The Discord adapter of the presentation layer: sheets become embeds, styles button styles.

Renderers (:mod:`presentation`) describe a message in plain data; this is the one place that
knows how Discord shows it.
"""

from __future__ import annotations

import discord

from presentation.base import Sheet, Style

BUTTON_STYLES = {
    Style.PRIMARY: discord.ButtonStyle.primary,
    Style.SECONDARY: discord.ButtonStyle.secondary,
    Style.SUCCESS: discord.ButtonStyle.success,
    Style.DANGER: discord.ButtonStyle.danger,
}


def as_embed(sheet: Sheet) -> discord.Embed:
    """A sheet as a Discord embed (its picture, if any, is an attachment of the message)."""
    embed = discord.Embed(title=sheet.title, description=sheet.description, colour=sheet.colour)
    for item in sheet.fields:
        embed.add_field(name=item.name, value=item.value, inline=item.inline)
    if sheet.footer is not None:
        embed.set_footer(text=sheet.footer)
    if sheet.image is not None:
        embed.set_image(url=f"attachment://{sheet.image}")
    return embed


def button_style(style: Style) -> discord.ButtonStyle:
    return BUTTON_STYLES[style]
