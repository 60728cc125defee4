"""(Re)write the golden pages of ``tests/test_site_templates.py`` from the current code.

    .venv/bin/python tests/golden/site/regen.py            # list the files that would change; write nothing
    .venv/bin/python tests/golden/site/regen.py --write    # rewrite them (then read the diff before committing!)

The first set was written by the hand-built (f-string) pages, before the Jinja2 templates replaced them, so
the test proves the templates write the same bytes. Never run by the tests."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.test_site_templates import outputs  # noqa: E402


def main(argv: list[str]) -> int:
    write = "--write" in argv
    for name, data in sorted(outputs().items()):
        path = HERE / name
        if path.exists() and path.read_bytes() == data:
            continue
        print(("wrote " if write else "would change ") + name)
        if write:
            path.write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
