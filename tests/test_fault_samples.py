"""The small valid files the fault, fuzz and limits tests start from (``tests/fault_samples.py``).

Every registered source needs one that is at hand on a clone with nothing beside it (issue 29: six sources fell
back to ../shared/data and 168 fast-tier tests skipped there). A built file is only worth something if the real
parser reads it under a name the source's raw files have, and if it is in the real layout: where the real files
are present, the text ones are compared with the real file of the same name (header, line ends, encoding).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from loaders import pipeline, registry
from tests import fault_samples as fs


@pytest.mark.parametrize("sid", sorted(registry.SOURCES))
def test_every_source_has_a_sample_that_needs_nothing_beside_the_clone(sid):
    src = registry.get(sid)
    in_project = [p for p in src.project_files if (fs.ROOT / p).is_file()]
    assert sid in fs.BUILDERS or in_project or fs.own_builder(sid), (
        f"{sid}: no builder in tests/fault_samples.py BUILDERS, no sample() in tests/test_{sid}.py "
        "and no project file; its fault and fuzz tests "
        "would skip wherever ../shared/data is absent")


@pytest.mark.parametrize("sid", sorted(fs.BUILDERS))
def test_each_built_sample_is_read_by_the_real_parser_under_a_real_file_name(sid):
    src = registry.get(sid)
    name, content = fs.BUILDERS[sid]()
    assert any(Path(sid, name).match(g) for g in src.raw_globs), f"{name} matches none of {src.raw_globs}"
    parsed = pipeline.parse_file(src, content, name)
    assert len(parsed.obs) or any(len(t) for t in parsed.tables.values()), f"{sid}: {name} gave no rows"
    assert len(content) < 100_000, "a sample is rewritten per case: keep it small"


def _real_namesake(shared: Path, sid: str, name: str) -> Path:
    found = [p for p in pipeline.find_raw_files(registry.get(sid), shared) if p.name == name]
    if not found:
        pytest.skip(f"no real file named {name} for {sid} under {shared}")
    return found[0]


def _line_end(b: bytes) -> bytes:
    first = b.split(b"\n", 1)[0]
    return b"\r\n" if first.endswith(b"\r") else b"\n"


@pytest.mark.parametrize("sid", sorted(fs.BUILDERS))
def test_built_text_samples_have_the_layout_of_the_real_file(sid, shared_data):
    name, content = fs.BUILDERS[sid]()
    kind = fs.kind_of(registry.get(sid), name)
    if kind not in ("csv", "json"):
        pytest.skip(f"{name} is {kind}: its layout is checked by its source's own tests")
    real = _real_namesake(shared_data, sid, name).read_bytes()
    assert content.startswith(b"\xef\xbb\xbf") == real.startswith(b"\xef\xbb\xbf"), "byte-order mark differs"
    if kind == "json":
        def keys(b):
            return list(fs._records(json.loads(b.decode("utf-8-sig")))[0])
        assert keys(content) == keys(real)
        return
    def header(b):
        return b.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    assert header(content) == header(real)
    assert _line_end(content) == _line_end(real), "line ends differ from the real file's"
