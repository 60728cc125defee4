"""The bundled snapshot (``data/``), read once per test run.

Test modules used to read it at import, each its own copy: fifteen reads at collection time, about 5 s before
the first test ran. A loaded snapshot is read-only (``loaders.data.Snapshot``), so one copy serves every module;
it is read on first use, so collecting or running tests that never touch it costs nothing."""
from __future__ import annotations

import functools

from loaders import data as cdata


@functools.cache
def snapshot() -> cdata.Snapshot:
    return cdata.load_snapshot()
