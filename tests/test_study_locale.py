"""The event study's numbers and axis (issue 26): whole-period ticks with the unit on the axis, and every number
the study prints written through the reader's locale ("+110,6" beside "75.000", never "+110.6")."""
import datetime as dt
import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analysis.study import StudyResult, Window
from charts import study_export
from figures.core import whole_step
from figures.layout import SIZES
from loaders.data import load_snapshot
from tests.conftest import ROOT
from views import event_study as es

SNAP = load_snapshot()
MONTHLY = "trac_detention.book_ins_ice"
SPANISH_NUMBER = r"[+-]?\d{1,3}(?:\.\d{3})*,\d+(?: %)?"


def ticks(axis: dict, lo: float, hi: float) -> list[float]:
    """The tick values Plotly draws for a linear axis with tick0 and dtick between lo and hi."""
    first = axis["tick0"] + np.ceil((lo - axis["tick0"]) / axis["dtick"]) * axis["dtick"]
    return list(np.arange(first, hi + 1e-9, axis["dtick"]))


@pytest.mark.parametrize("days", [14, 30, 90, 365])
def test_a_monthly_study_has_ticks_on_whole_months_and_says_months(days):
    fig, win = es.study_figure(SNAP, MONTHLY, dt.date(2025, 6, 1), days, title="t", subtitle="s", unit="u",
                               sources=(), today=dt.date(2026, 1, 1))
    axis = fig.to_plotly_json()["layout"]["xaxis"]
    assert axis["tickmode"] == "linear" and axis["tick0"] == 0 and float(axis["dtick"]).is_integer()
    lo, hi = win["days_from_date"].min(), win["days_from_date"].max()
    drawn = ticks(axis, lo, hi)
    assert 0 in drawn and all(float(t).is_integer() for t in drawn) and 3 <= len(drawn) <= 13
    assert axis["title"]["text"].startswith("months from the month holding the date")


def test_a_daily_study_has_whole_day_ticks_that_fit():
    fig, win = es.study_figure(SNAP, "trac_detention.detained_total", dt.date(2025, 6, 1), 60, title="t",
                               subtitle="s", unit="u", sources=(), today=dt.date(2026, 1, 1), size="article")
    axis = fig.to_plotly_json()["layout"]["xaxis"]
    assert axis["dtick"] in (10, 20) and axis["title"]["text"].startswith("days from the date")
    assert whole_step(2, SIZES["page"]) == 1 and whole_step(120, SIZES["article"]) == 20


def result(change=110.6, pct=15.8) -> StudyResult:
    w = lambda m: Window(dt.date(2025, 1, 1), dt.date(2025, 1, 31), 31, m)  # noqa: E731
    return StudyResult(dt.date(2025, 2, 1), 30, w(700.0), w(700.0 + change), change, pct, w(1000.0), w(1200.5),
                       200.5, 20.05, unit="months", periods=1)


def test_the_study_numbers_follow_the_readers_marks():
    es_text = es.study_numbers_text(result(), "es", ".")
    assert es_text["change"] == "+110,6 (+15,8 %)" and es_text["after"] == "810,6"
    assert es_text["year_change"] == "+200,5" and es_text["year_change_pct"] == "+20,1 %"
    en_text = es.study_numbers_text(result(), "en", ",")
    assert en_text["change"] == "+110.6 (+15.8%)" and en_text["year_change"] == "+200.5"
    assert es.study_numbers_text(result(-1234.5, -3.25), "es", ".")["change"] == "-1.234,5 (-3,2 %)"
    table = es.study_table_text(result(), "es", ".")
    assert table["cambio"].tolist() == ["+110,6", "+200,5"] and table["promedio por día antes"].tolist() == ["700,0", "1.000,0"]


def test_the_study_csv_comment_lines_use_the_readers_marks():
    res = result()
    win = pd.DataFrame({"days_from_date": [0], "value": [1.5], "date": pd.to_datetime(["2025-02-01"]),
                        "window": ["around the date"]})
    text = study_export.study_csv("T", res, win, ("Fuente: x",), "es", ".").decode()
    line = next(ln for ln in text.splitlines() if ln.startswith("# En torno a la fecha"))
    assert "700,00" in line and "810,60" in line and "810.6" not in line


def test_the_spanish_page_prints_the_study_with_decimal_commas():
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=180)
    for k, v in {"lang": "es", "sep": ".", "tab": "study", "study": MONTHLY, "study_event": "(a date)",
                 "study_date": "2025-06-01"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    study = [m for m in at.metric if m.label.startswith(("Promedio por día", "Mismos periodos un año antes"))]
    shown = [m.value for m in study] + [m.delta for m in study if m.delta]
    assert len(study) == 3 and len(shown) >= 5, shown
    assert all(re.fullmatch(SPANISH_NUMBER + r"(?: \(" + SPANISH_NUMBER + r"\))?", s) for s in shown), shown
    table = next(d.value for d in at.dataframe if "cambio" in d.value.columns)
    assert all(re.fullmatch(SPANISH_NUMBER, str(v)) for v in table["cambio"]), table["cambio"].tolist()


def test_the_study_csv_rounds_values_per_day_so_the_published_totals_come_back():
    import io

    from loaders import data as cdata
    flow, _, _, res = es.study_numbers(SNAP, MONTHLY, dt.date(2025, 6, 1), 90)
    assert flow
    win, _ = es.study_window(SNAP, MONTHLY, dt.date(2025, 6, 1), 90, flow=flow)
    text = study_export.study_csv("T", res, win, ()).decode()
    body = pd.read_csv(io.StringIO(text), comment="#", dtype={"value": str})
    assert len(body) >= 6 and body["value"].map(lambda v: len(v.split(".")[1]) if "." in v else 0).max() <= 2
    rows = cdata.series_rows(SNAP, MONTHLY)
    total = dict(zip(rows["date"].dt.date.astype(str), rows["value"]))
    days = dict(zip(rows["date"].dt.date.astype(str), cdata.days_covered(rows)))
    for d, v in zip(body["date"], body["value"].astype(float)):
        assert round(v * days[d]) == total[d]
