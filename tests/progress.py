"""One line per test file as it finishes (`make test` printed only dots for five minutes): its name, how many of
its tests passed, failed and were skipped, and the time since the run began. Runs in the process that reports (the
controller under pytest-xdist, which learns each file's size from the workers' collections)."""

from __future__ import annotations

import time
from collections import Counter, defaultdict

import pytest

_total: Counter = Counter()
_done: Counter = Counter()
_outcomes: dict[str, Counter] = defaultdict(Counter)
_started = time.monotonic()
_counted_nodes: set[str] = set()


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(session, config, items) -> None:  # the run without workers
    if not hasattr(config, "workerinput"):
        _total.clear()
        _total.update(_file(i.nodeid) for i in items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:
    # Every worker collects the whole suite; count it once.
    if not _counted_nodes:
        _total.clear()
        _total.update(_file(i) for i in ids)
    _counted_nodes.add(str(node))


def pytest_runtest_logreport(report) -> None:
    f = _file(report.nodeid)
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _outcomes[f][report.outcome] += 1
    if report.when != "teardown":
        return
    _done[f] += 1
    if _total[f] and _done[f] == _total[f]:
        counts = ", ".join(f"{n} {k}" for k, n in sorted(_outcomes[f].items()))
        _write(f"{f}: {counts or 'no test run'} ({time.monotonic() - _started:.0f} s)")


_config = None


def pytest_configure(config) -> None:
    global _config
    _config = config


def _write(line: str) -> None:
    # Looked up when needed: the terminal reporter registers after this plugin is configured.
    reporter = _config.pluginmanager.get_plugin("terminalreporter") if _config else None
    if reporter is not None and reporter.verbosity >= -1:
        if reporter._tw.width_of_current_line:  # after a row of dots
            reporter._tw.line()
        reporter.write_line(line)
