"""The README and the manual in docs/ say what is true: their links lead somewhere, their commands exist and parse,
the help they show is what the commands print, every source is listed, and the example event loads."""
from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess

import pytest

from loaders import __main__ as loaders_main
from loaders import events, pipeline, registry, snapshot
from tests import gen_cli_docs
from tests.conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def text(path) -> str:
    return path.read_text("utf-8")


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file: lower case, punctuation dropped, spaces to '-'."""
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
        out.add(slug)
    return out


def links(markdown: str) -> list[str]:
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S)
    return re.findall(r"\]\(([^)\s]+)\)", prose)


def code_blocks(markdown: str, langs=("sh", "bash")) -> list[str]:
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", markdown, re.M | re.S) if lang in langs]


def commands(block: str) -> list[str]:
    """The commands of a shell block: comments dropped, continued lines joined."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))


class ParseError(Exception):
    pass


def parse_with(parser: argparse.ArgumentParser, args: list[str]):
    """Parse as the command would, raising instead of exiting (subparsers included)."""
    def fail(message, *a, **k):
        raise ParseError(message)
    for p in [parser] + [s for a in parser._actions if isinstance(a, argparse._SubParsersAction)
                         for s in a.choices.values()]:
        p.error = fail
    return parser.parse_args(args)


# ------------------------------------------------------------------------------------------- links and commands

def test_the_readme_and_the_manual_exist_and_the_readme_is_short():
    names = {p.name for p in DOCS}
    assert {"index.md", "using.md", "command-line.md", "sources.md", "methods.md", "faults.md", "deployment.md",
            "contributing.md"} <= names
    assert len(text(ROOT / "README.md").splitlines()) <= 150


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(doc):
    broken = []
    for target in links(text(doc)):
        if re.match(r"[a-z]+:", target):
            continue  # http(s) and mailto links are not checked here (no network in tests)
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(text(dest)):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not broken, f"{doc.name}: {broken}"


def test_the_anchor_rule_matches_headings_as_github_makes_them():
    assert anchors("# Faults and bad input\n## Readers' events, links and exports\n## A static site for the day"
                   " a story runs\n### `python -m loaders`\n") == {
        "faults-and-bad-input", "readers-events-links-and-exports", "a-static-site-for-the-day-a-story-runs",
        "python--m-loaders"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_command_shown_is_a_make_target_or_a_command_whose_options_exist(doc):
    """Commands in ```sh blocks: `make X` must be a target of the Makefile; `... -m loaders|charts ...` must parse
    with the real parser; no bare `python` (it fails outside the virtual environment)."""
    from charts import __main__ as charts_main
    parsers = {"loaders": loaders_main.build_parser, "charts": charts_main.build_parser}
    targets, problems = make_targets(), []
    for block in code_blocks(text(doc)):
        for cmd in commands(block):
            words = shlex.split(cmd)
            if words[0] == "make":
                goals = [w for w in words[1:] if "=" not in w]
                problems += [f"{cmd}: no make target {g!r}" for g in goals if g not in targets]
            if re.match(r"(python3?|pip)\b", words[0]):
                problems.append(f"{cmd}: bare {words[0]} fails outside the venv; use .venv/bin/{words[0]}")
            if "-m" in words and words[words.index("-m") + 1] in parsers:
                i = words.index("-m")
                try:
                    parse_with(parsers[words[i + 1]](), words[i + 2:])
                except ParseError as e:
                    problems.append(f"{cmd}: {e}")
            elif words[0] == ".venv/bin/python" and words[1].endswith(".py") and not (ROOT / words[1]).is_file():
                problems.append(f"{cmd}: no script {words[1]}")
    assert not problems, f"{doc.name}: {problems}"


def test_the_command_check_refuses_a_wrong_option_and_an_unknown_target():
    with pytest.raises(ParseError):
        parse_with(loaders_main.build_parser(), ["rebuild", "--no-such-option"])
    with pytest.raises(ParseError):
        parse_with(loaders_main.build_parser(), ["frobnicate"])
    assert "rebuild-curated" in make_targets() and "no-such-target" not in make_targets()


# --------------------------------------------------------------------------------------------------- help text

def test_the_command_line_page_shows_the_real_help_of_every_command():
    """docs/command-line.md's help section is what the parsers print (regenerate: python -m tests.gen_cli_docs)."""
    current = text(gen_cli_docs.DOC)
    assert gen_cli_docs.render(current) == current, "docs/command-line.md is stale: run .venv/bin/python -m tests.gen_cli_docs"
    shown = re.findall(r"^\$ \.venv/bin/(python -m \w+(?: [\w-]+)?) --help$", current, re.M)
    assert shown == list(gen_cli_docs.real_help()), "a command's help is missing or shown twice"


def test_the_help_shown_is_what_the_command_prints_when_run(monkeypatch):
    """Run as a reader runs it, `python -m loaders rebuild --help` prints the block the page shows."""
    import os
    import sys
    env = dict(os.environ, COLUMNS=gen_cli_docs.COLUMNS)
    got = subprocess.run([sys.executable, "-m", "loaders", "rebuild", "--help"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    block = re.search(r"^\$ \.venv/bin/python -m loaders rebuild --help\n(.*?)^```", text(gen_cli_docs.DOC), re.M | re.S)
    assert block and block.group(1) == got.stdout


def test_every_command_is_on_the_command_line_page():
    page = text(ROOT / "docs" / "command-line.md")
    from charts import __main__ as charts_main
    for prog, mod in (("loaders", loaders_main), ("charts", charts_main)):
        for name in gen_cli_docs.subcommands(mod.build_parser()):
            assert f"-m {prog} {name}" in page, (prog, name)


# ------------------------------------------------------------------------------------------------- sources

def source_ids(markdown: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z0-9_]+)` \|", markdown, re.M))


@pytest.mark.parametrize("doc", ["README.md", "docs/sources.md"])
def test_every_source_is_in_the_sources_tables(doc):
    assert source_ids(text(ROOT / doc)) == set(registry.SOURCES) | {"events"}


def test_the_sources_page_names_the_sources_update_can_download():
    """docs/sources.md's table says, for every source, whether `update` downloads it."""
    page = text(ROOT / "docs" / "sources.md")
    said = dict(re.findall(r"^\| `([a-z0-9_]+)` \|.*\| ([a-z ]+) \|$", page, re.M))
    assert set(said) == set(registry.SOURCES) | {"events"}, "a row without the `update` column"
    downloadable = {sid for sid, s in registry.SOURCES.items() if s.downloadable}
    assert {sid for sid, v in said.items() if v == "downloads it"} == downloadable
    curated = {sid for sid, s in registry.SOURCES.items() if s.project_files} | {"events"}
    assert {sid for sid, v in said.items() if v == "curated here"} == curated
    assert {sid for sid, v in said.items() if v == "fixed copy"} == set(registry.SOURCES) - downloadable - curated


def test_update_stops_on_a_source_with_no_download_address_and_writes_nothing(tmp_path):
    """As the sources page says: `update` of a named source that has no download address fails and writes
    nothing."""
    from loaders.errors import LoaderError
    no_url = next(sid for sid, s in registry.SOURCES.items() if not s.downloadable)
    with pytest.raises(LoaderError, match="no download URL found"):
        pipeline.update([no_url], tmp_path / "data", tmp_path / "raw", session_factory=lambda **k: None)
    assert not (tmp_path / "data" / "snapshot").exists()


# ------------------------------------------------------------------------------------------ adding an event

CONTRIBUTING = ROOT / "docs" / "contributing.md"


def example_event() -> tuple[str, str]:
    """The header and the example row exactly as docs/contributing.md prints them."""
    section = text(CONTRIBUTING).split("## Adding an event", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```csv\n(.*?)^```", section, re.M | re.S)
    header, row = block.rstrip("\n").split("\n")
    return header, row


def test_the_example_event_row_loads_with_the_real_loader(tmp_path):
    header, row = example_event()
    bundled = ROOT / "data" / "events.csv"
    assert header == bundled.read_text("utf-8").splitlines()[0], "the doc's header is not the file's"
    copy = tmp_path / "events.csv"
    body = bundled.read_bytes()
    copy.write_bytes(body + (b"" if body.endswith(b"\n") else b"\n") + row.encode() + b"\n")
    loaded = events.read_bundled(copy)  # raises, naming row and field, on a bad row
    new = loaded[loaded["id"] == row.split(",", 1)[0]]
    assert len(new) == 1 and len(loaded) == len(events.read_bundled(bundled)) + 1
    assert new["title"].iloc[0] in row and new["category"].iloc[0] in events.CATEGORIES


def copy_project_data(tmp_path, monkeypatch):
    """A copy of data/ (the curated files and the bundled snapshot) that the pipeline takes for the project's."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("raw", "user_events.csv*", ".update.lock"))
    monkeypatch.setattr(pipeline, "DATA", data)
    return data


def test_an_added_event_reaches_the_snapshot_with_no_raw_folder(tmp_path, monkeypatch):
    """`rebuild --curated-only` (make rebuild-curated) takes an edited events file in on a clone with nothing
    beside it: the new event is in the snapshot, every other source's rows are byte for byte as they were."""
    data = copy_project_data(tmp_path, monkeypatch)
    before = {p.relative_to(data): p.read_bytes() for p in (data / "snapshot" / "observations").glob("*.csv")}
    _, row = example_event()
    with (data / "events.csv").open("a", encoding="utf-8") as f:
        f.write(row + "\n")
    problems = snapshot.verify(data)  # the curated file was edited since the snapshot was written
    # ... and verify names the command that takes it in with no raw folder (a bare "run rebuild" needs ../shared).
    assert problems and all("make rebuild-curated" in p for p in problems), problems
    assert loaders_main.main(["rebuild", "--curated-only", "--out", str(data)]) == 0
    assert snapshot.verify(data) == []
    held = events.from_snapshot((data / "snapshot" / events.SNAPSHOT_FILE).read_bytes())
    assert row.split(",", 1)[0] in set(held["id"])
    assert {p.relative_to(data): p.read_bytes() for p in (data / "snapshot" / "observations").glob("*.csv")} == before


def test_without_a_raw_folder_only_the_curated_sources_are_rebuilt(tmp_path, monkeypatch, capsys):
    data = copy_project_data(tmp_path, monkeypatch)
    assert pipeline.curated_sources() == ["reported_figures"]
    assert loaders_main.main(["rebuild", "--curated-only", "--out", str(data), "ice_detention_stats"]) == 1
    assert "leave out the source ids" in capsys.readouterr().err
    from loaders.errors import LoaderError
    with pytest.raises(LoaderError, match="only the curated sources"):
        pipeline.rebuild(None, data, ["ice_detention_stats"])
    with pytest.raises(LoaderError, match="holds no snapshot"):
        pipeline.rebuild(None, tmp_path / "empty", pipeline.curated_sources())


def test_a_bad_added_event_stops_the_curated_rebuild_naming_the_row(tmp_path, monkeypatch, capsys):
    """The README's old example (8 fields against the header's 12) is refused, and the snapshot stays."""
    data = copy_project_data(tmp_path, monkeypatch)
    before = (data / "snapshot" / "manifest.json").read_bytes()
    with (data / "events.csv").open("a", encoding="utf-8") as f:
        f.write('2025-09-08-x,2025-09-08,exact,A title,operation,"A description.",AP,https://apnews.com/x\n')
    assert loaders_main.main(["rebuild", "--curated-only", "--out", str(data)]) == 1
    err = capsys.readouterr().err
    assert "events.csv" in err and "row" in err and "unchanged" in err
    assert (data / "snapshot" / "manifest.json").read_bytes() == before


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("goal, args, expected", [
    ("rebuild", [], "-m loaders rebuild --raw ../shared/data --out data"),
    ("rebuild", ["RAW=data/raw"], "-m loaders rebuild --raw data/raw --out data"),
    ("rebuild-curated", [], "-m loaders rebuild --curated-only --out data"),
])
def test_the_make_targets_the_docs_name_run_the_command_they_say(goal, args, expected):
    got = subprocess.run(["make", "-n", goal, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert any(line.endswith(expected) for line in got.stdout.splitlines()), got.stdout


# ------------------------------------------------------------------------------------------- what docs cite

def test_ci_runs_the_readmes_test_command():
    assert re.search(r"^make test\b", text(ROOT / "README.md"), re.M)
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(), re.M)


def test_every_test_the_docs_name_exists():
    """Rows of the faults tables cite their tests as ``tests/<file>::<test>`` (later ones in a cell as
    ``::<test>``): each must be a test function in that file."""
    cited = 0
    for doc in DOCS:
        for cell in re.findall(r"\(`tests/[^)]*\)", text(doc)):
            current = None
            for ref in re.findall(r"`((?:tests/[\w/]+\.py)?::\w+)`", cell):
                path, _, name = ref.partition("::")
                current = path or current
                source = (ROOT / current).read_text("utf-8")
                assert re.search(rf"^def {name}\(", source, re.M), f"{doc.name}: {current}::{name} is not a test"
                cited += 1
    assert cited >= 20


def test_the_licence_is_the_mit_licence_pyproject_declares():
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text()
    assert text(ROOT / "LICENSE").startswith("MIT License")


def test_update_with_no_source_ids_downloads_every_downloadable_source_and_names_the_others(tmp_path, monkeypatch, capsys):
    """A bare `update` stopped at the first source with no download address and wrote nothing; it now asks
    for every source that can be downloaded and says which it keeps as they are."""
    from loaders import __main__ as cli
    asked = []
    monkeypatch.setattr(pipeline, "update", lambda ids, *a, **k: asked.extend(ids) or {})
    assert cli.main(["update", "--data", str(tmp_path / "data"), "--raw", str(tmp_path / "raw")]) == 0
    kept = sorted(sid for sid, s in registry.SOURCES.items() if not s.downloadable)
    assert kept and sorted(asked) == sorted(set(registry.SOURCES) - set(kept))
    assert ", ".join(kept) in capsys.readouterr().out


def test_the_documented_parse_examples_run_as_written(shared_data):
    """Every `loaders parse` the docs show runs as pasted (from the checkout, with the raw files at ../shared/data)
    and prints validated rows: an example naming a bare file name failed with 'no such file'."""
    shown = sorted({cmd for doc in DOCS for block in code_blocks(text(doc)) for cmd in commands(block)
                    if " -m loaders parse " in cmd and cmd.split()[4] in registry.SOURCES}
                   | {m for doc in DOCS for m in re.findall(r"`(\.venv/bin/python -m loaders parse [^`]+)`", text(doc))
                      if m.split()[4] in registry.SOURCES})
    assert shown, "the docs show no `loaders parse` example"
    for cmd in shown:
        words = [w.replace("../shared/data", str(shared_data), 1) if w.startswith("../shared/data") else w
                 for w in shlex.split(cmd)]
        words[0] = str(ROOT / words[0])
        run = subprocess.run(words, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{cmd}: {run.stderr.strip()[-400:]}"
        header, *rows = run.stdout.splitlines()
        assert "series" in header and len(rows) > 100, f"{cmd}: printed {run.stdout[:200]!r}"
