"""What the bot's process runs on, apart from the bot itself: its settings (environment and
``.env``), its logging, its event loop and signals, and the record of the last command sync.
``bot.py`` puts these together with the cogs."""
