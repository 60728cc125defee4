"""Which tests CI's second run repeats (tests/shared_deps.py): every test whose code reaches SHARED_DATA's value,
and no other. On a small folder of modules written here, then on this suite's own marks."""
from __future__ import annotations

import textwrap

import pytest

from tests.conftest import ROOT
from tests.shared_deps import Finder

HELPER = '''
import os
from pathlib import Path

SHARED = Path(os.environ.get("SHARED_DATA") or "/elsewhere")
ROOT = Path(__file__).parent


def sample(name):
    if SHARED.is_dir():
        return name
    return None


def builder():
    return b"built"


def via_sample(name):
    return sample(name)
'''

TESTS = '''
import os
import subprocess

import pytest

from tests import helper as h
from tests.helper import builder, via_sample


def sample():  # a local name that only shares the helper's
    return builder()


def uses_helper():
    return h.sample("x")


@pytest.fixture
def real():
    return via_sample("y")


def test_direct():
    assert h.SHARED


def test_through_a_local_function():
    assert uses_helper() is None


def test_through_a_helper_of_the_helper():
    assert via_sample("z") is None


def test_through_a_fixture(real):
    assert real is None


@pytest.mark.skipif(h.sample("w") is None, reason="x")
def test_through_a_decorator():
    pass


def test_a_local_import_inside_the_test():
    from tests.helper import SHARED
    assert SHARED


def test_by_dunder_import():
    assert __import__("tests.helper", fromlist=["SHARED"]).SHARED


def test_reading_the_variable_itself():
    assert os.environ.get("SHARED_DATA") is None


def test_a_builder_only():
    assert builder() == b"built"


def test_the_local_namesake():
    assert sample() == b"built"


def test_setting_the_variable_for_a_child_is_not_reading_it():
    subprocess.run(["true"], env={**os.environ, "SHARED_DATA": "/nonexistent"}, check=True)


def test_root_only():
    assert h.ROOT
'''

WHOLE_MODULE = '''
import pytest

from tests.helper import SHARED

pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="x")


def test_anything():
    pass
'''

PARAMETRISED = '''
import pytest

from tests import helper

CASES = [n for n in ("a", "b") if helper.via_sample(n)]


@pytest.mark.parametrize("n", CASES)
def test_case(n):
    pass


def test_other():
    pass
'''


CONFTEST = '''
import pytest

from tests.helper import SHARED


@pytest.fixture
def real_files():
    return SHARED


@pytest.fixture
def built_on_them(real_files):
    return 1
'''

BY_FIXTURE_NAME = '''
def test_takes_a_conftest_fixture_two_steps_from_the_variable(built_on_them):
    pass
'''

CLEAN = '''
from tests.helper import builder


def test_built(tmp_path):
    assert builder()
'''


@pytest.fixture
def finder(tmp_path):
    d = tmp_path / "tests"
    d.mkdir()
    for name, text in {"helper": HELPER, "test_a": TESTS, "test_b": WHOLE_MODULE, "test_c": PARAMETRISED,
                       "conftest": CONFTEST, "test_d": BY_FIXTURE_NAME, "test_e": CLEAN}.items():
        (d / f"{name}.py").write_text(textwrap.dedent(text))
    return d, Finder(d)


@pytest.mark.parametrize("test, expected", [
    ("test_direct", True),
    ("test_through_a_local_function", True),
    ("test_through_a_helper_of_the_helper", True),
    ("test_through_a_decorator", True),
    ("test_a_local_import_inside_the_test", True),
    ("test_by_dunder_import", True),
    ("test_reading_the_variable_itself", True),
    ("test_a_builder_only", False),
    ("test_the_local_namesake", False),
    ("test_setting_the_variable_for_a_child_is_not_reading_it", False),
    ("test_root_only", False),
])
def test_a_test_is_found_by_what_its_own_code_reaches(finder, test, expected):
    d, f = finder
    assert f.depends(d / "test_a.py", test, []) is expected


def test_a_fixture_that_reaches_the_variable_marks_its_tests(finder):
    d, f = finder
    assert not f.depends(d / "test_a.py", "test_a_builder_only", [(str(d / "test_a.py"), "sample")])
    assert f.depends(d / "test_a.py", "test_a_builder_only", [(str(d / "test_a.py"), "real")])


def test_a_module_whose_import_marks_or_cases_reach_the_variable_marks_those_tests(finder):
    d, f = finder
    assert f.depends(d / "test_b.py", "test_anything", [])
    # a parametrisation computed on import: which cases exist can change; the module's other tests stay out
    assert f.depends(d / "test_c.py", "test_case", [])
    assert not f.depends(d / "test_c.py", "test_other", [])


def test_the_second_run_collects_only_the_files_that_can_hold_a_marked_test(finder):
    from tests.shared_deps import files_to_repeat
    d, f = finder
    assert f.depends(d / "test_d.py", "test_takes_a_conftest_fixture_two_steps_from_the_variable",
                     [(str(d / "conftest.py"), "built_on_them"), (str(d / "conftest.py"), "real_files")])
    assert files_to_repeat(d) == ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py", "tests/test_d.py"]


def test_every_file_left_out_of_the_second_run_holds_no_test_that_reaches_the_variable():
    from tests.shared_deps import files_to_repeat
    f = Finder(ROOT / "tests")
    kept = set(files_to_repeat(ROOT / "tests"))
    assert "tests/test_shared_deps.py" in kept and "tests/test_page.py" not in kept
    for p in sorted((ROOT / "tests").glob("test_*.py")):
        if f"tests/{p.name}" in kept:
            continue
        mod = f.modules[str(p.resolve())]
        assert not mod.body_refs & f.tainted, p.name
        assert not [n for n in mod.by_name if f.reaches(p, n)], p.name


def test_this_suites_readers_of_the_variable_are_the_roots(request):
    f = Finder(ROOT / "tests")
    roots = {(p.rsplit("/", 1)[-1], name) for p, m in f.modules.items() for u in m.units if u.reads_env
             for name in u.names}
    assert roots == {("conftest.py", "SHARED")}
    # the real files are read through SHARED and the shared_data fixture (slow tier); the fault, fuzz and limits
    # tests start from built samples (tests/fault_samples.py), the same with or without the real files
    tests = ROOT / "tests"
    assert f.depends(tests / "test_ice_tables.py", "test_ddp_drops_a_repeated_atd_row", [])
    assert f.depends(tests / "test_trac_detention.py", "test_real_files", [(str(tests / "conftest.py"), "shared_data")])
    assert not f.depends(tests / "test_fuzz.py", "test_arbitrary_bytes", [])
    assert not f.depends(tests / "test_faults.py", "test_changed_layout", [])
    assert not f.depends(tests / "test_page.py", "test_headlines_are_dated_and_sourced", [])
    assert not f.depends(tests / "test_fault_samples.py",
                         "test_every_source_has_a_sample_that_needs_nothing_beside_the_clone", [])
    assert request.node.get_closest_marker("shared_path") is None


def test_the_collection_hook_marks_a_test_that_reaches_the_variable(request):
    """This test reads SHARED itself, so tests/conftest.py must have marked it (and CI's second run repeats it)."""
    from tests.conftest import SHARED
    assert SHARED.name and request.node.get_closest_marker("shared_path") is not None


def test_no_code_outside_the_tests_reads_the_variable():
    """The analysis covers tests/ only: the project's own code must not read SHARED_DATA (it takes its raw folder
    as an argument), or the second run could miss a test that reaches it through the code under test."""
    from tests.shared_deps import Resolver, analyse
    files = [ROOT / "dashboard.py"] + [p for d in ("loaders", "analysis", "figures", "charts", "page", "wording",
                                                    "deploy", "bench") for p in sorted((ROOT / d).rglob("*.py"))]
    readers = [f"{p.relative_to(ROOT)}: {sorted(u.names)}" for p in files
               for u in analyse(p.read_text("utf-8"), str(p), Resolver(p.parent)).units if u.reads_env]
    assert readers == []
