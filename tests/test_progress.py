"""`make test` prints one line per finished test file (tests/progress.py), with and without workers."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.parametrize("workers", [[], ["-n", "2", "--dist", "loadfile"]])
def test_each_finished_file_gets_a_line_with_its_counts(tmp_path, workers):
    (tmp_path / "test_one.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    assert False\n")
    (tmp_path / "test_two.py").write_text("import pytest\n\n@pytest.mark.skip(reason='x')\ndef test_c():\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.progress", "-p", "no:cacheprovider",
                          "--rootdir", str(tmp_path), "-c", "/dev/null", *workers, str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = run.stdout.splitlines()
    assert any(line.startswith("test_one.py: 1 failed, 1 passed (") for line in lines), run.stdout
    assert any(line.startswith("test_two.py: 1 skipped (") for line in lines), run.stdout
