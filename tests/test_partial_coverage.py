"""A period a source covers only in part is marked so wherever it is drawn (issue 37). The list of deaths in custody
starts its ICE death reports on 10 April 2018, yet FY2018 showed 6 deaths with no mark, where ICE itself gave 9.
``loaders.tidy.mark_coverage`` flags any row whose period a source's coverage starts or stops inside
(``partial-coverage``) and drops rows no coverage touches; the deaths loader computes its coverage from its rows;
the charts, the maps' tables and the CSV exports carry the flag and the notes, ICE's own total beside the list's."""
from __future__ import annotations

import datetime as dt
import io
import json

import pandas as pd

from analysis.view import View
from charts import export
from figures.core import source_lines
from loaders import deaths_in_custody as dic
from loaders import tidy
from tests import bundled
from tests.test_deaths_in_custody import NAME, PRESS, _row, csv_bytes
from views.compose import render

D = dt.date


def monthly(months: list[str], value=1.0, flag="") -> pd.DataFrame:
    rows = []
    for m in months:
        start = pd.Timestamp(m)
        rows.append({"series": "x.monthly", "date": m, "end": (start + pd.offsets.MonthEnd(0)).date().isoformat(),
                     "value": value, "flag": flag})
    return tidy.frame(rows)


def test_a_period_a_coverage_starts_or_stops_inside_is_partial_and_one_it_misses_is_dropped():
    rows = monthly(["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01", "2024-06-01"])
    year = tidy.frame([{"series": "x.annual", "date": "2023-10-01", "end": "2024-09-30", "value": 6.0}])
    covered = [(D(2024, 3, 15), D(2024, 5, 10))]
    out = tidy.mark_coverage(pd.concat([rows, year], ignore_index=True), covered).set_index(["series", "date"])
    months = out.loc["x.monthly"]
    assert list(months.index) == ["2024-03-01", "2024-04-01", "2024-05-01"]  # January, February, June: no zeros
    assert months.loc["2024-03-01", "flag"] == "partial-coverage" and months.loc["2024-03-01", "end"] == "2024-03-31"
    assert months.loc["2024-04-01", "flag"] == ""
    assert months.loc["2024-05-01", "flag"] == "partial-coverage" and months.loc["2024-05-01", "end"] == "2024-05-10"
    assert out.loc[("x.annual", "2023-10-01"), "flag"] == "partial-coverage"
    assert out.loc[("x.annual", "2023-10-01"), "end"] == "2024-05-10"


def test_a_gap_inside_a_period_makes_it_partial_and_an_existing_flag_is_kept():
    year = tidy.frame([{"series": "x", "date": "2016-10-01", "end": "2017-09-30", "value": 3.0, "flag": "rounded"}])
    covered = [(D(2003, 10, 1), D(2017, 2, 5)), (D(2017, 4, 10), D(2026, 1, 24))]  # in any order
    out = tidy.mark_coverage(year, list(reversed(covered)))
    assert out.loc[0, "flag"] == "rounded;partial-coverage" and out.loc[0, "end"] == "2017-09-30"
    whole = tidy.mark_coverage(year.assign(date="2018-10-01", end="2019-09-30"), covered)
    assert whole.loc[0, "flag"] == "rounded"  # covered from end to end: unchanged
    assert tidy.mark_coverage(year, []).equals(year)  # no coverage given: nothing to say


def test_the_deaths_coverage_starts_with_the_first_report_and_fy_totals_give_ice_beside_the_list():
    rows = [_row("A", "2017-05-02", "X", "FY2003-2017"),
            _row("B", "2018-04-10", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/b.pdf"),
            _row("C", "2018-07-01", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/c.pdf"),
            _row("D", "2019-02-01", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/d.pdf"),
            _row("E", "2026-01-05", "X", "Public reporting (CY2026)", link=PRESS)]
    p = dic.parse(csv_bytes(rows), NAME)
    recs = dic.read_records(csv_bytes(rows), NAME)
    assert dic.coverage(((r["date"], r["period"]) for r in recs), D(2026, 1, 5)) == [
        (D(2003, 10, 1), D(2017, 6, 5)), (D(2018, 4, 10), D(2026, 1, 5))]
    fy = p.obs[p.obs.series == f"{dic.ID}.deaths_fy"].set_index("date")
    assert fy.loc["2017-10-01", "value"] == 2 and fy.loc["2017-10-01", "flag"] == "partial-coverage"
    assert fy.loc["2018-10-01", "flag"] == ""
    m = p.obs[p.obs.series == f"{dic.ID}.deaths_monthly"].set_index("date")
    assert "2018-03-01" not in m.index and m.loc["2018-04-01", "flag"] == "partial-coverage"
    t = p.tables["fy_totals"].set_index("fiscal_year")
    y18 = t.loc["2018"]
    assert (y18["list_deaths"], y18["list_covers_from"], y18["whole_year"]) == ("2", "2018-04-10", "no")
    ice, outlet, said_on, url = dic.ICE_FY_TOTALS[2018]
    assert y18["ice_total"] == str(ice) == "9" and y18["ice_total_url"] == url and url.startswith("https://")
    assert y18["ice_total_date"] == said_on.isoformat() and outlet
    # A year with no total sourced here is blank, never a zero.
    assert t.loc["2019", "ice_total"] == "" and t.loc["2019", "whole_year"] == "yes"


def _texts(r, lang):
    fig = " ".join(json.dumps(json.loads(r.figure.to_json())["layout"], ensure_ascii=False).replace("<br>", " ").split())
    csv = export.to_csv(export.export_table(r), sources=source_lines(bundled.snapshot(), r.prepared, lang) + r.notes,
                        title=r.title, lang=lang).decode()
    return fig, csv


def test_the_deaths_chart_and_its_csv_mark_fy2018_and_give_ices_total_in_both_languages():
    snap = bundled.snapshot()
    for lang, words in (("en", ("partial-coverage: the source covers only part of this period",
                                "FY2018: the list covers only 10 April 2018 to 30 September 2018",
                                "ICE gave 9 for the whole year")),
                        ("es", ("partial-coverage: la fuente cubre solo una parte de este periodo",
                                "Año fiscal 2018: la lista cubre solo del 10 de abril de 2018 al 30 de septiembre",
                                "ICE dio 9 para todo el año"))):
        r = render(snap, View(series=["deaths_in_custody.deaths_fy"], preset="all", lang=lang),
                   generated_on=D(2026, 12, 3), size="full")
        fig, csv = _texts(r, lang)
        for w in words:
            assert w in fig, (w, fig[:2000])
        for w in words[1:]:
            assert w in csv, w
        # FY2018's point is drawn as flagged (an open circle), and its CSV row carries the flag.
        rings = [t for t in r.figure.data if t.showlegend is False and t.mode == "markers"]
        assert any("2017-10-01" in list(t.x) for t in rings)
        body = pd.read_csv(io.StringIO(csv), comment="#", dtype=str, keep_default_na=False)
        assert body.loc[body["date"] == "2017-10-01", "flag"].tolist() == ["partial-coverage"]
        assert body.loc[body["date"] == "2018-10-01", "flag"].tolist() == [""]
