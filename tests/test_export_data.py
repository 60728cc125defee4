"""``python -m loaders export-data``: the snapshot as Parquet, a Frictionless data package and a DuckDB file.

Runs on the bundled snapshot (``data/``, committed) and on small changes of it written in tmp_path in the real
layout; nothing here needs ../shared/data or the network.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from loaders import data as cdata
from loaders import ddp_records, export_data
from loaders.__main__ import main
from loaders.snapshot import Generation, read_generation

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
DOC = ROOT / "docs" / "data.md"
TIDY = ["series", "key", "date", "end", "value", "release", "flag", "file"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "export"
    assert main(["export-data", "--data", str(DATA), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def snap() -> cdata.Snapshot:
    return cdata.load_snapshot(DATA)


def _csv(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)


def _pkg(out: Path) -> dict:
    return json.loads((out / "datapackage.json").read_text("utf-8"))


def _connect(out: Path):
    return duckdb.connect(str(out / "snapshot.duckdb"), read_only=True)


def _frame(df: pd.DataFrame) -> pd.DataFrame:
    """Tidy rows in one comparable form: sorted, dates as Timestamps, text as str."""
    df = df[TIDY].copy()
    for c in ("date", "end", "release"):
        df[c] = pd.to_datetime(df[c])
    for c in ("series", "key", "flag", "file"):
        df[c] = df[c].astype(str)
    df["value"] = df["value"].astype(float)
    return df.sort_values(["series", "key", "date"], kind="mergesort").reset_index(drop=True)


def _page_rows(snapshot: cdata.Snapshot, groups, as_of=None) -> pd.DataFrame:
    """What the page draws (``loaders.data.series_rows``) for each (series, key), as one tidy frame."""
    parts = []
    for sid, key in groups:
        r = cdata.series_rows(snapshot, sid, key, as_of=as_of)
        parts.append(r.assign(series=sid, key=key))
    return _frame(pd.concat(parts, ignore_index=True))


def _on(day: str) -> str:
    return f"release <= DATE '{day}' AND (superseded_on IS NULL OR superseded_on > DATE '{day}')"


# ---------------------------------------------------------------- the data package

def test_the_export_of_the_bundled_snapshot_is_a_valid_frictionless_package(exported):
    from frictionless import Package, Resource

    descriptor = exported / "datapackage.json"
    meta = Package.validate_descriptor(str(descriptor))
    assert meta.valid, meta.flatten(["type", "note"])
    pkg = Package(str(descriptor))
    names = [r.name for r in pkg.resources]
    assert names[:6] == ["observations", "series", "quality_flags", "events", "sources", "source_files"]
    assert "deaths_in_custody.records" in names
    # frictionless 5.21 reads Parquet through pandas one cell at a time (about a minute for the observations on
    # this machine): it reads every other resource from its file itself, and gets the observations' rows as
    # pyarrow reads them from observations.parquet. Types, primary and foreign keys are all checked.
    obs = pkg.get_resource("observations")
    table = pq.read_table(exported / obs.path)
    rows = [table.column_names] + [list(r) for r in zip(*(table.column(c).to_pylist() for c in table.column_names))]
    pkg.remove_resource("observations")
    pkg.add_resource(Resource(name="observations", data=rows, schema=obs.schema))
    report = pkg.validate()
    assert report.valid, report.flatten(["taskName", "rowNumber", "fieldName", "type", "note"])[:20]
    checked = {t.name: t.stats.get("rows") for t in report.tasks}
    assert checked["observations"] == table.num_rows


def test_every_column_is_typed_described_and_matches_its_parquet_file(exported):
    pkg = _pkg(exported)
    arrow = {"string": "string", "integer": "int64", "number": "double", "date": "date32[day]", "boolean": "bool"}
    for res in pkg["resources"]:
        schema = pq.read_schema(exported / res["path"])
        fields = res["schema"]["fields"]
        assert [f["name"] for f in fields] == schema.names, res["name"]
        assert [arrow[f["type"]] for f in fields] == [str(t) for t in schema.types], res["name"]
        assert res["description"] and "Reference table" not in res["description"], res["name"]
        assert all(f["description"] and f["description"] != export_data.UNDOCUMENTED for f in fields), \
            f"{res['name']}: describe {[f['name'] for f in fields if f['description'] == export_data.UNDOCUMENTED]} " \
            "in loaders/export_data.py"
        assert res["x-sha256"] == hashlib.sha256((exported / res["path"]).read_bytes()).hexdigest()
    units = next(r for r in pkg["resources"] if r["name"] == "observations")["units"]
    cat = _csv((DATA / "snapshot" / "series.csv").read_bytes())
    assert units == dict(zip(cat["id"], cat["unit"]))


def test_licences_and_sources_come_from_the_manifest(exported):
    pkg = _pkg(exported)
    man = json.loads((DATA / "snapshot" / "manifest.json").read_text("utf-8"))
    by_name = {r["name"]: r for r in pkg["resources"]}
    deaths = by_name["deaths_in_custody.records"]
    assert deaths["licenses"][0]["name"] == "CC-BY-4.0"
    assert deaths["licenses"][0]["title"] == man["sources"]["deaths_in_custody"]["licence"]
    assert deaths["sources"][0]["attribution"] == man["sources"]["deaths_in_custody"]["attribution"]
    assert deaths["sources"][0]["path"] == man["sources"]["deaths_in_custody"]["landing_page"]
    # the observations mix every source: every source's licence and credit travel with them
    obs = by_name["observations"]
    assert {s["title"] for s in obs["sources"]} == {f"{e['publisher']} ({sid})" for sid, e in man["sources"].items()}
    assert {lic["title"] for lic in obs["licenses"]} == {e["licence"] for e in man["sources"].values()}
    # a licence is only named for what its words say: a mixed text is not CC0 as a whole
    mixed = export_data.licence_object("DDP data and report CC0 1.0; analysts' repositories state no licence")
    assert mixed["name"] == "notspecified"
    assert export_data.licence_object("US government work, public domain")["name"] == "other-pd"
    assert pkg["x-snapshot-manifest-sha256"] == hashlib.sha256((DATA / "snapshot" / "manifest.json").read_bytes()).hexdigest()
    assert len(pkg["sources"]) == len(man["sources"])


# ---------------------------------------------------------------- the same rows as the CSV snapshot

def test_parquet_and_duckdb_hold_the_csv_snapshot(exported):
    _, man, files = read_generation(DATA)
    pkg = _pkg(exported)
    con = _connect(exported)
    try:
        # observations: every row, in the snapshot's order, with its values
        csv = pd.concat([_csv(files[r]).assign(source=r[len("observations/"):-4])
                         for r in sorted(files) if r.startswith("observations/")], ignore_index=True)
        got = pq.read_table(exported / "observations.parquet").to_pandas()
        assert len(got) == len(csv) == con.execute("select count(*) from observations").fetchall()[0][0]
        for c in ("source", "series", "key", "flag", "file"):
            assert (got[c].astype(str).to_numpy() == csv[c].to_numpy()).all(), c
        for c in ("date", "end", "release"):
            assert got[c].map(lambda d: d.isoformat() if d else "").tolist() == csv[c].tolist(), c
        assert (got["value"].to_numpy() == csv["value"].astype(float).to_numpy()).all()
        # a few rows of each source, looked up in the DuckDB file by their identity
        for src, g in csv.groupby("source"):
            for i in sorted({0, len(g) // 2, len(g) - 1}):
                r = g.iloc[i]
                rel = "release is null" if r["release"] == "" else f"release = DATE '{r['release']}'"
                ((value,),) = con.execute(f"select value from observations where series = ? and key = ? and date = ? "
                                          f"and file = ? and {rel}", [r["series"], r["key"], r["date"], r["file"]]
                                          ).fetchall()
                assert value == float(r["value"]), (src, i)
        # every table: the row count of its CSV, the same rows in Parquet and DuckDB, values as written
        for res in pkg["resources"]:
            table = pq.read_table(exported / res["path"])
            rel = res["x-snapshot-file"]
            if rel in files:
                src = _csv(files[rel])
                assert table.num_rows == len(src), res["name"]
                declared = {f.name: f for f in export_data.TABLES.get(res["name"], [])}
                for f in res["schema"]["fields"]:
                    col = pd.Series(table.column(f["name"]).to_pylist(), dtype=object)
                    if f["type"] == "string":
                        assert col.tolist() == src[f["name"]].tolist(), (res["name"], f["name"])
                    elif f["type"] in ("integer", "number"):
                        want = pd.to_numeric(src[f["name"]].replace("", None))
                        assert pd.Series(col.astype(float)).equals(want.astype(float).rename(None)), (res["name"], f["name"])
                    elif f["type"] == "date":
                        written = declared[f["name"]].format if f["name"] in declared else ""
                        shown = [d.strftime(written or "%Y-%m-%d") if d else "" for d in col]
                        assert shown == src[f["name"]].tolist(), (res["name"], f["name"])
                    else:
                        want = src[f["name"]].str.lower().map({"true": True, "false": False, "yes": True, "no": False, "": None})
                        assert col.tolist() == want.tolist(), (res["name"], f["name"])
            duck = con.sql(f"select * from {export_data._ident(res['name'])}").to_arrow_table()
            assert duck.cast(table.schema).equals(table), res["name"]
        files_listed = sum(len(e.get("files") or []) for e in man["sources"].values())
        assert con.execute("select count(*) from source_files").fetchall()[0][0] == files_listed
        assert con.execute("select count(*) from sources").fetchall()[0][0] == len(man["sources"])
    finally:
        con.close()


@pytest.mark.parametrize("rel, column, bad, kind", [
    ("tables/deaths_in_custody.records.csv", "age", "about 40", "an integer"),
    ("observations/deaths_in_custody.csv", "date", "2004-13-01", "a date"),
    ("observations/ohss_khsm.csv", "value", "1,234", "a number"),
])
def test_a_value_that_does_not_fit_its_declared_type_stops_the_export_naming_file_row_and_column(
        tmp_path, rel, column, bad, kind):
    data = _changed_snapshot(tmp_path, rel, lambda df: df.assign(**{column: df[column].where(df.index != 3, bad)}))
    out = tmp_path / "export"
    with pytest.raises(export_data.ExportError, match=rf"^{re.escape(rel)} row 5 column '{column}': "
                                                      rf"'{re.escape(bad)}' is not {kind}"):
        export_data.export(data, out)
    assert not out.exists()


# ---------------------------------------------------------------- the views are what the page shows

def test_latest_and_as_published_are_what_the_page_shows(exported, snap):
    # every total, and every member of a versioned breakdown series
    groups = sorted({(s, "") for s in snap.obs.loc[snap.obs["key"] == "", "series"].unique()}
                    | {(s, k) for s, k in snap.obs.loc[snap.obs["series"] == "ice_detention_stats.adp_by_facility_type",
                                                       ["series", "key"]].itertuples(index=False)})
    con = _connect(exported)
    try:
        latest = _frame(con.sql("select * from latest").df())
        pick = latest.set_index(["series", "key"]).index.isin(groups)
        pd.testing.assert_frame_equal(latest[pick].reset_index(drop=True), _page_rows(snap, groups))
        versioned = [g for g in groups if snap.by_series[g[0]]["release"].notna().any()]
        for day in ("2019-12-31", "2025-01-16", "2025-08-15", "2026-03-01"):
            shown = _frame(con.sql(f"select * from as_published where {_on(day)}").df())
            pick = shown.set_index(["series", "key"]).index.isin(versioned)
            want = _page_rows(snap, versioned, as_of=pd.Timestamp(day))
            pd.testing.assert_frame_equal(shown[pick].reset_index(drop=True), want, obj=day)
    finally:
        con.close()


def _changed_snapshot(tmp_path: Path, rel: str, change) -> Path:
    """The bundled snapshot with one file changed, written as a real generation (checksums and all)."""
    _, man, files = read_generation(DATA)
    df = change(_csv(files[rel]))
    files = dict(files)
    files[rel] = df.to_csv(index=False, lineterminator="\n").encode("utf-8")
    data = tmp_path / "data"
    with Generation(data) as gen:
        for name, body in sorted(files.items()):
            gen.add(name, body)
        gen.commit({k: v for k, v in man.items() if k not in ("snapshot_files", "curated_files")})
    return data


def test_a_figure_known_to_be_wrong_never_replaces_a_good_one_in_either_view(tmp_path):
    sid = "ice_detention_stats.adp_total"
    file = "FY26_detentionStats_99999999.xlsx"

    def add_rows(df):
        mine = df[(df["series"] == sid) & (df["key"] == "")]
        first, second = mine["date"].min(), sorted(mine["date"].unique())[1]
        extra = pd.DataFrame([
            # printed wrong in a later release: the good figure stays, flagged later-known-wrong from that day
            {"series": sid, "key": "", "date": first, "end": mine.loc[mine["date"] == first, "end"].iloc[0],
             "value": "999999", "release": "2026-05-01", "flag": "mislabelled", "file": file},
            # a wrong figure, then a good one in a later release
            {"series": sid, "key": "", "date": "2026-06-01", "end": "2026-06-30", "value": "1",
             "release": "2026-06-10", "flag": "rounded;transposed", "file": file},
            {"series": sid, "key": "", "date": "2026-06-01", "end": "2026-06-30", "value": "61000",
             "release": "2026-07-10", "flag": "", "file": file},
            # only ever printed wrong: shown, flagged
            {"series": sid, "key": "", "date": "2026-07-01", "end": "2026-07-31", "value": "2",
             "release": "2026-07-10", "flag": "out-of-range", "file": file},
            # a second wrong figure after the good one of the second month
            {"series": sid, "key": "", "date": second, "end": mine.loc[mine["date"] == second, "end"].iloc[0],
             "value": "5", "release": "2026-07-10", "flag": "out-of-range", "file": file},
        ])
        return pd.concat([df, extra], ignore_index=True)

    data = _changed_snapshot(tmp_path, "observations/ice_detention_stats.csv", add_rows)
    export_data.export(data, tmp_path / "export")
    snapshot = cdata.load_snapshot(data)
    con = _connect(tmp_path / "export")
    try:
        groups = [(sid, "")]
        got = _frame(con.sql(f"select * from latest where series = '{sid}' and key = ''").df())
        pd.testing.assert_frame_equal(got, _page_rows(snapshot, groups))
        assert got["value"].max() < 999999 and "later-known-wrong" in got["flag"].iloc[0]
        assert got.loc[got["date"] == "2026-06-01", "value"].tolist() == [61000.0]
        assert got.loc[got["date"] == "2026-07-01", "flag"].tolist() == ["out-of-range"]
        for day in ("2026-04-30", "2026-05-01", "2026-06-10", "2026-07-09", "2026-07-10", "2027-01-01"):
            rows = con.sql(f"select * from as_published where series = '{sid}' and key = '' and {_on(day)}").df()
            # the flag the page adds from the day a later release printed a known-wrong figure
            wrong_on = pd.to_datetime(rows["later_known_wrong_on"])
            rows["flag"] = [";".join(sorted({*f.split(";"), "later-known-wrong"} - {""})) if pd.notna(w) and
                            w <= pd.Timestamp(day) else f for f, w in zip(rows["flag"], wrong_on)]
            pd.testing.assert_frame_equal(_frame(rows), _page_rows(snapshot, groups, as_of=pd.Timestamp(day)), obj=day)
    finally:
        con.close()


def test_the_views_run_on_the_parquet_file_alone(exported):
    obs = f"read_parquet('{exported / 'observations.parquet'}', file_row_number = true)"
    con = duckdb.connect()
    try:
        con.execute(f"attach '{exported / 'snapshot.duckdb'}' as s (read_only)")
        for make, view in ((export_data.latest_sql, "latest"), (export_data.as_published_sql, "as_published")):
            alone = con.sql(make(obs, order="file_row_number") + " order by all").fetchall()
            assert alone == con.sql(f"select * from s.{view} order by all").fetchall(), view
            assert alone
    finally:
        con.close()


# ---------------------------------------------------------------- the documentation's queries

def _doc_queries() -> list[str]:
    return re.findall(r"^```sql\n(.*?)^```$", DOC.read_text("utf-8"), re.M | re.S)


def test_the_three_queries_in_docs_data_md_run_as_printed_and_give_sane_answers(exported, snap):
    queries = _doc_queries()
    assert len(queries) == 3, "docs/data.md shows three example queries in ```sql blocks"
    con = _connect(exported)
    try:
        book_ins, adp, deaths = (con.sql(q).df() for q in queries)
    finally:
        con.close()

    # 1. monthly ICE-arrest book-ins in FY2025: twelve months, the latest release's figures
    assert "ice_detention_stats.book_ins_ice" in queries[0]
    months = pd.to_datetime(book_ins["month_start"])
    assert list(months) == list(pd.date_range("2024-10-01", "2025-09-01", freq="MS"))
    page = cdata.series_rows(snap, "ice_detention_stats.book_ins_ice")
    page = page[page["date"].isin(months)]
    assert book_ins["book_ins"].tolist() == page["value"].tolist()
    assert (book_ins["book_ins"] > 0).all() and (book_ins["book_ins"] % 1 == 0).all()
    through = pd.to_datetime(book_ins["data_through"])
    assert ((through >= months) & (through <= months + pd.offsets.MonthEnd(0))).all()
    assert (book_ins.loc[through < months + pd.offsets.MonthEnd(0), "flag"].str.contains("partial")).all()

    # 2. ADP as published on 15 August 2025 against the latest: what the page showed that day
    assert len(adp) > 0
    day = pd.Timestamp("2025-08-15")
    then = cdata.series_rows(snap, "ice_detention_stats.adp_total", as_of=day)
    then = then[then["date"] >= "2024-10-01"]
    assert pd.to_datetime(adp["month_start"]).tolist() == then["date"].tolist()
    assert adp["adp_as_published"].tolist() == then["value"].tolist()
    assert (pd.to_datetime(adp["published_in"]) <= day).all()
    assert (pd.to_datetime(adp["latest_release"]) >= pd.to_datetime(adp["published_in"])).all()
    assert ((adp["adp_as_published"] > 1000) & (adp["adp_as_published"] < 200000)).all()
    assert (adp["revised_by"] - (adp["adp_latest"] - adp["adp_as_published"])).abs().max() <= 0.05

    # 3. deaths per fiscal year with the rate: consecutive years, counts, a rate only where defined
    years = deaths["fiscal_year"].tolist()
    assert years == list(range(years[0], years[0] + len(years)))
    assert (pd.to_datetime(deaths["counted_to"]).dt.year == deaths["fiscal_year"]).all()
    assert (deaths["deaths"] >= 0).all() and (deaths["deaths"] % 1 == 0).all()
    assert int(deaths["deaths"].sum()) == int(snap.by_series["deaths_in_custody.deaths_fy"]["value"].sum())
    rated = deaths[deaths["deaths_per_100k_adp"].notna()]
    assert len(rated) > 0 and ((rated["deaths_per_100k_adp"] > 0) & (rated["deaths_per_100k_adp"] < 1000)).all()
    assert (rated.loc[rated["deaths"] > 0, "deaths_per_100k_adp"] > 0).all()


def test_the_records_query_of_the_docs_counts_like_the_loader(tmp_path):
    """docs/data.md counts DDP's records with ``build_sql`` over a ``read_parquet`` relation and ``DESCRIBE``d
    columns (the way to reach object storage); on a local file it gives the loader's own daily counts."""
    import pyarrow as pa
    records = pa.table({
        "apprehension_date": ["2025-03-01", "2025-03-01", "2025-03-02", "2025-03-02", "2025-03-02", None],
        "apprehension_aor": ["Miami", "", "Miami", "Chicago", "Chicago", "Miami"],
        "apprehension_criminality": ["Other", "Other", "Convicted", "Other", "Other", "Other"],
        "duplicate_drop_row": [False, False, False, False, True, False],
    })
    path = tmp_path / "arrests-latest.parquet"
    pq.write_table(records, path)
    con = duckdb.connect()
    try:
        relation = f"read_parquet('{path}')"
        columns = [row[0] for row in con.sql(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
        sql, used, rule = ddp_records.build_sql(ddp_records.ARRESTS, relation, columns, "arrests")
        daily = con.sql(sql).df()
    finally:
        con.close()
    assert rule == "duplicate_drop_row" and set(used) == {"aor", "criminality"}
    national = daily[(daily["g_aor"] == 1) & (daily["g_criminality"] == 1)].sort_values("d")
    loader = ddp_records.aggregate_records(path, "arrests")
    want = loader[loader["series"] == "ddp_records.arrests_daily"]
    assert national["n"].tolist() == want["value"].tolist() == [2, 2]
    assert "read_parquet('s3://" in DOC.read_text("utf-8") and "httpfs" in DOC.read_text("utf-8")


# ---------------------------------------------------------------- the command

def test_the_export_is_the_same_bytes_every_time_and_replaces_only_an_export(exported, tmp_path, capsys):
    again = tmp_path / "again"
    assert main(["export-data", "--data", str(DATA), "--out", str(again)]) == 0
    assert "wrote" in capsys.readouterr().out
    for res in _pkg(exported)["resources"]:
        assert (again / res["path"]).read_bytes() == (exported / res["path"]).read_bytes(), res["path"]
    assert (again / "datapackage.json").read_bytes() == (exported / "datapackage.json").read_bytes()
    # an earlier export is replaced as a whole (a stray file of the old one does not survive)
    (again / "tables" / "stray.parquet").write_bytes(b"old")
    assert main(["export-data", "--data", str(DATA), "--out", str(again)]) == 0
    assert not (again / "tables" / "stray.parquet").exists()
    assert (again / "snapshot.duckdb").is_file()
    # a folder holding something else is refused and left as it was
    other = tmp_path / "notes"
    other.mkdir()
    (other / "thesis.txt").write_text("mine")
    assert main(["export-data", "--data", str(DATA), "--out", str(other)]) == 1
    assert "not empty" in capsys.readouterr().err
    assert [p.name for p in other.iterdir()] == ["thesis.txt"]
    assert not list(tmp_path.glob(".*export-*"))


# ---------------------------------------------------------------- the docs and the files agree

def _doc_table() -> dict[str, str]:
    """docs/data.md's table of the export's files: the file name (first code span of a row) -> the row's text."""
    rows = {}
    for line in text_between(DOC.read_text("utf-8"), "## What the export holds", "Things to know").splitlines():
        m = re.match(r"\| `([^`]+)` \| (.*) \|$", line.strip())
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def text_between(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end, text.index(start))]


def _doc_columns(cell: str, label: str) -> list[str] | None:
    """The names in the row's "<label> `a, b, c`" code span, or None when the row names none."""
    m = re.search(label + r" `([^`]+)`", cell)
    return [c.strip() for c in m.group(1).split(",")] if m else None


def test_docs_name_every_column_and_primary_key_the_export_has(exported):
    pkg = {r["path"]: r for r in _pkg(exported)["resources"]}
    doc = _doc_table()
    tops = [p for p in pkg if "/" not in p]
    assert sorted(p for p in doc if p.endswith(".parquet") and "/" not in p) == sorted(tops)
    for path in tops:
        schema = pkg[path]["schema"]
        columns = _doc_columns(doc[path], "columns")
        assert columns == [f["name"] for f in schema["fields"]], path
        assert _doc_columns(doc[path], "primary key") == schema.get("primaryKey"), path


def test_observations_have_a_primary_key_the_snapshot_guarantees(exported):
    schema = next(r for r in _pkg(exported)["resources"] if r["name"] == "observations")["schema"]
    # One row per series, member, period, release and file: the snapshot's validator refuses a duplicate of these.
    assert schema["primaryKey"] == ["series", "key", "date", "release", "file"]
    obs = pq.read_table(exported / "observations.parquet").to_pandas()
    assert not obs.duplicated(schema["primaryKey"]).any()


def test_fiscal_year_to_date_figures_join_by_period_and_latest_holds_each_years_newest(exported, snap):
    # docs/data.md: date = 1 October, end = the data date, key = the member alone, partial until 30 September;
    # ``latest`` gives one row per fiscal year: the figure of the year's newest release, one of the page's points
    # (a release repeating an older one's figures can run to an earlier date than the one before it).
    con = _connect(exported)
    try:
        got = con.sql("select key, date, \"end\", value, flag from latest "
                      "where series = 'ice_detention_stats.removals_fytd' order by date").df()
        kinds = con.sql("select period, count(*) from series group by period order by period").fetchall()
    finally:
        con.close()
    assert (got["key"] == "").all() and got["date"].is_unique
    assert all(d.month == 10 and d.day == 1 for d in got["date"])
    drawn = snap.by_series["ice_detention_stats.removals_fytd"].sort_values(["release", "file"], kind="mergesort")
    for row in got.itertuples():
        start, end = pd.Timestamp(row.date).date(), pd.Timestamp(row.end).date()
        fy = f"FY{start.year + 1}"
        last = drawn[drawn["key"] == fy].iloc[-1]
        assert (end, row.value) == (last["end"].date(), last["value"]), fy
        assert ("partial" in row.flag.split(";")) == (end < dt.date(start.year + 1, 9, 30)), fy
    assert dict(kinds) == {"": len(snap.catalogue) - 17, "fiscal-year-to-date": 17}


def test_a_duplicate_observation_stops_the_export_naming_file_and_rows(tmp_path):
    gen, man, files = read_generation(DATA)
    rel = "observations/cbp_encounters.csv"
    lines = files[rel].decode().splitlines()
    files = dict(files, **{rel: ("\n".join(lines[:2] + [lines[1]] + lines[2:]) + "\n").encode()})
    with pytest.raises(export_data.ExportError,
                       match=r"observations/cbp_encounters\.csv rows 2 and 3: .*same series, key, date, release and file"):
        export_data.build_tables(man, files)
