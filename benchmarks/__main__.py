"""``python -m benchmarks [--quick] [--strength]``: every benchmark, one table (see all.py)."""

from __future__ import annotations

from benchmarks.all import main

raise SystemExit(main())
