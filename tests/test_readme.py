"""The README is the way in: every command, option and source must be documented there."""
import argparse
import re

from loaders import registry
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def subcommands(main_module) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in main_module.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def help_blocks() -> dict[str, str]:
    """The README's ```text blocks that start with "$ python -m ... --help": {command: the text shown}."""
    found = re.findall(r"^```text\n\$ (python -m [^\n]+ --help)\n(.*?)^```$", README, re.M | re.S)
    assert len(found) == len(dict(found)), "a command's help is shown twice"
    return dict(found)


def real_help() -> dict[str, str]:
    """What each command's --help prints, from the parsers ``main`` runs (``build_parser``)."""
    from charts import __main__ as cm
    from loaders import __main__ as lm
    out = {}
    for prog, mod in (("python -m loaders", lm), ("python -m charts", cm)):
        out[f"{prog} --help"] = mod.build_parser().format_help()
        for name, parser in subcommands(mod).items():
            out[f"{prog} {name} --help"] = parser.format_help()
    return out


def test_the_readme_shows_the_real_help_text_of_every_command(monkeypatch):
    """README drift fails the suite: each command's help in the README is what it prints. Compared word for
    word (line breaks follow the terminal's width; the README's are at 100 columns)."""
    monkeypatch.setenv("COLUMNS", "100")
    shown, real = help_blocks(), real_help()
    assert set(shown) == set(real), f"missing: {sorted(set(real) - set(shown))}; stale: {sorted(set(shown) - set(real))}"
    for cmd, text in real.items():
        assert shown[cmd].split() == text.split(), f"the README's `{cmd}` differs from the real output"


def test_the_help_the_readme_shows_is_what_the_command_prints():
    """``python -m loaders --help`` run as a reader runs it prints the parser's text (main uses build_parser)."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, COLUMNS="100")
    for cmd in ("python -m loaders --help", "python -m loaders rebuild --help", "python -m charts export --help"):
        got = subprocess.run([sys.executable, *cmd.split()[1:]], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=120)
        assert got.returncode == 0, got.stderr
        assert got.stdout.split() == help_blocks()[cmd].split(), cmd


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
