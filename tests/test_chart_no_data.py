"""A series with no data in the chosen range (issue 26): it gets no empty panel with a made-up axis; it is left
off the figure, and the figure's footer and the CSV's comment lines say which series and where its data are."""
import datetime as dt
import io

import pandas as pd

from analysis.view import View
from charts import export
from figures.core import source_lines
from loaders.data import load_snapshot
from views.compose import render

SNAP = load_snapshot()
WEEKLY = "ddp_arrests_aggregates.weekly_national_digitised"  # ends in October 2025
DETAINED = "trac_detention.detained_total"
RANGE = dict(preset="custom", start=dt.date(2026, 4, 1), end=dt.date(2026, 6, 30))


def layout(fig) -> dict:
    return fig.to_plotly_json()["layout"]


def test_a_series_with_no_data_in_range_gets_no_panel_and_is_named():
    r = render(SNAP, View(series=[WEEKLY, DETAINED], **RANGE), generated_on=dt.date(2026, 12, 1))
    lay = layout(r.figure)
    panels = [k for k in lay if k.startswith("yaxis") and k != "yaxis9"]
    assert panels == ["yaxis"] and "people" in lay["yaxis"]["title"]["text"]  # only the detention panel
    drawn = [t["name"] for t in r.figure.to_plotly_json()["data"] if t.get("mode", "").startswith("lines")]
    assert not any("weekly" in n.lower() for n in drawn)
    footer = lay["annotations"][-1]["text"].replace("<br>", " ")
    assert "Left off the chart: ICE arrests per week" in footer and "has no data between 1 April 2026 and " \
        "30 June 2026" in footer and "to 15 October 2025" in footer
    assert "in panels" not in r.alt
    csv = export.to_csv(export.export_table(r), sources=source_lines(SNAP, r.prepared) + r.notes, title=r.title).decode()
    assert "# Left off the chart: ICE arrests per week" in csv
    assert len(pd.read_csv(io.StringIO(csv), comment="#")) == len(r.table)


def test_the_note_is_in_spanish_on_a_spanish_chart():
    r = render(SNAP, View(series=[WEEKLY, DETAINED], lang="es", **RANGE))
    footer = layout(r.figure)["annotations"][-1]["text"].replace("<br>", " ")
    assert "Fuera del gráfico" in footer and "no tiene datos entre el 1 de abril de 2026 y el 30 de junio de 2026" in footer


def test_series_that_all_have_data_are_all_drawn_and_no_note_is_added():
    r = render(SNAP, View(series=[WEEKLY, DETAINED], preset="custom", start=dt.date(2025, 3, 1),
                          end=dt.date(2025, 6, 30)))
    assert r.notes == [] and sum(1 for k in layout(r.figure) if k.startswith("yaxis") and k != "yaxis9") == 2


def test_the_subtitle_says_totals_are_shown_per_day_only_when_one_is_drawn():
    r = render(SNAP, View(series=[WEEKLY, DETAINED], **RANGE))  # the weekly totals are left off: headcounts only
    assert "per day" not in layout(r.figure)["title"]["text"]
    r = render(SNAP, View(series=[WEEKLY, DETAINED], preset="custom", start=dt.date(2025, 3, 1),
                          end=dt.date(2025, 6, 30)))
    assert "period totals shown per day" in layout(r.figure)["title"]["text"]
