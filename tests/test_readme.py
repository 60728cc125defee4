"""The README is the way in: every command, option and source must be documented there."""
import argparse
import re

from loaders import registry
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def subcommands(main_module) -> dict[str, argparse.ArgumentParser]:
    captured = {}
    real = argparse.ArgumentParser.parse_args

    def grab(self, args=None, namespace=None):
        captured["parser"] = self
        raise SystemExit(0)
    argparse.ArgumentParser.parse_args = grab
    try:
        try:
            main_module.main(["--help"])
        except SystemExit:
            pass
    finally:
        argparse.ArgumentParser.parse_args = real
    sub = next(a for a in captured["parser"]._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_two_commands_and_ci_runs_the_test_command():
    assert "make run" in README and "make test" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)


def test_every_source_is_in_the_sources_table():
    table_ids = set(re.findall(r"^\| `([a-z0-9_]+)` \|", README, re.M))
    assert set(registry.SOURCES) | {"events"} <= table_ids


def test_every_loaders_command_is_documented():
    from loaders import __main__ as lm
    for name in subcommands(lm):
        assert f"python -m loaders {name}" in README, name


def test_every_charts_command_and_option_is_documented():
    from charts import __main__ as cm
    for name, parser in subcommands(cm).items():
        assert f"python -m charts {name}" in README, name
        for action in parser._actions:
            for opt in action.option_strings:
                if opt.startswith("--") and opt != "--help":
                    assert f"`{opt}`" in README, opt


def test_readme_has_the_sections_a_newcomer_needs():
    for heading in ("## Two commands", "## Sources", "## Data-quality notes", "## Command line", "## Refreshing the data",
                    "## Adding an event", "## Adding a source", "## Faults and bad input", "## Performance"):
        assert heading in README, heading
    assert "FAULTS_TABLE" not in README and "BENCH_TABLE" not in README, "placeholders left in the README"
    assert (ROOT / "docs" / "screenshot.png").exists() or "docs/screenshot.png" not in README


def test_every_test_the_readme_names_exists():
    """Rows of the faults tables cite their tests as ``tests/<file>::<test>`` (later ones in a cell as
    ``::<test>``): each must be a test function in that file."""
    cited = 0
    for cell in re.findall(r"\(`tests/[^)]*\)", README):
        current = None
        for ref in re.findall(r"`((?:tests/[\w/]+\.py)?::\w+)`", cell):
            path, _, name = ref.partition("::")
            current = path or current
            source = (ROOT / current).read_text("utf-8")
            assert re.search(rf"^def {name}\(", source, re.M), f"{current}::{name} is not a test"
            cited += 1
    assert cited >= 20
