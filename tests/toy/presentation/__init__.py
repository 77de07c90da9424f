"""The toy game's renderer as it would lie in ``presentation/`` (see :mod:`tests.toy`)."""
