"""The toy game's computer player as it would lie in ``engine/ai/`` (see :mod:`tests.toy`)."""
