"""Siege Hall without Discord: ``python -m siegehall play <game>`` plays in a terminal."""
