"""Refresh the README's screenshot (docs/screenshot.png): ``python -m tests.e2e_screenshot`` or ``make screenshot``.

The test suite never writes a tracked file, so the committed screenshot is regenerated only by this explicit
command, run by hand when the page changed. It starts the page on the bundled snapshot in Chromium exactly as
the browser tests do, captures the whole default page, and replaces the file only when the picture differs.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.conftest import ROOT

README_SHOT = ROOT / "docs" / "screenshot.png"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.e2e_screenshot", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(README_SHOT), help="where to write the PNG (default: docs/screenshot.png)")
    args = ap.parse_args(argv)
    try:
        from tests import test_e2e as e2e
    except BaseException as exc:  # the module skips itself (pytest's Skipped) when there is no Chromium
        print(f"error: cannot take the screenshot: {exc}", file=sys.stderr)
        return 1
    from PIL import Image, ImageChops
    from playwright.sync_api import sync_playwright

    out = Path(args.out)
    shot = e2e.ARTIFACTS / "readme_screenshot.png"
    with e2e.running_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=e2e.CHROMIUM, args=e2e.LAUNCH_ARGS)
        try:
            page = browser.new_context(viewport=e2e.VIEWPORT).new_page()
            page.set_default_timeout(60_000)
            e2e.open_page(page, url, panels=())  # the page as a reader first sees it
            e2e.save_full_page(page, shot)
        finally:
            browser.close()
    with Image.open(shot) as new:
        if out.exists():
            with Image.open(out) as old:
                if old.size == new.size and ImageChops.difference(old.convert("RGB"), new.convert("RGB")).getbbox() is None:
                    print(f"{out} is unchanged")
                    return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(shot.read_bytes())
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
