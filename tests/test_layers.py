"""The layers' import contract (pyproject.toml, ``[tool.importlinter]``) holds: page > outputs (charts) >
views > figures > analysis > data (loaders), the wording below them, Streamlit only in the page, Plotly only from the
figures up, and no import cycle inside a layer. `make lint` runs the same check; this keeps it in the suite too."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@pytest.mark.skipif(not LINT_IMPORTS.exists() and not shutil.which("lint-imports"),
                    reason="import-linter is not installed (make dev-setup installs it)")
def test_the_import_contract_is_kept():
    exe = str(LINT_IMPORTS) if LINT_IMPORTS.exists() else shutil.which("lint-imports")
    r = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout and "BROKEN" not in r.stdout, r.stdout


def test_the_page_pieces_live_in_the_page():
    """Streamlit code sits in dashboard.py and page/ only: no page piece at the root or in the outputs."""
    assert not (ROOT / "releases_view.py").exists() and not (ROOT / "charts" / "places_page.py").exists()
    assert (ROOT / "page" / "releases_view.py").exists() and (ROOT / "page" / "places_page.py").exists()
