"""The event study's own words in Spanish: the note, the windows' names, the table's headers and cells, the
chart's legend and axis. The English stays byte-identical (the note, the CSV's data columns)."""
import datetime as dt

import pandas as pd
import pytest

from analysis.study import study, x_title_in
from charts import study_export
from wording import i18n


def monthly():
    months = pd.date_range("2024-01-01", "2025-06-01", freq="MS")
    return pd.DataFrame({"date": months, "end": months + pd.offsets.MonthEnd(0),
                         "value": [3100.0 + 31 * i for i in range(len(months))]})


def weekly():
    weeks = pd.date_range("2024-01-01", "2025-06-30", freq="W-MON")
    return pd.DataFrame({"date": weeks, "end": weeks + pd.Timedelta(days=6), "value": 700.0})


def daily():
    days = pd.date_range("2024-01-01", "2025-03-31")
    return pd.DataFrame({"date": days, "end": days, "value": 1.0})


CASES = [  # (frame, date, days, flow, the Spanish note and window)
    (monthly, dt.date(2025, 2, 11), 14, True, "Serie mensual: 1 mes completo antes frente a 1 mes completo después; "
     "promedio por día de los totales. Febrero de 2025 contiene la fecha y mezcla días de antes y de después, así "
     "que se deja fuera.", "1 mes completo"),
    (monthly, dt.date(2025, 3, 1), 60, False, "Serie mensual: 2 meses completos antes frente a 2 meses completos "
     "después; promedio de los valores.", "2 meses completos"),
    (weekly, dt.date(2025, 3, 5), 28, True, "Serie semanal: 4 semanas completas antes frente a 4 semanas completas "
     "después; promedio por día de los totales. La semana del 2025-03-03 contiene la fecha y mezcla días de antes y "
     "de después, así que se deja fuera.", "4 semanas completas"),
    (daily, dt.date(2025, 2, 1), 30, True, "30 días antes de la fecha frente a 30 días desde la fecha; los totales "
     "de cada periodo se reparten por igual entre sus días.", "30 días"),
    (daily, dt.date(2025, 2, 1), 30, False, "30 días antes de la fecha frente a 30 días desde la fecha; cada recuento "
     "vale hasta 45 días después de tomarse.", "30 días"),
]


@pytest.mark.parametrize("frame,on,days,flow,note,window", CASES)
def test_the_note_and_window_in_spanish(frame, on, days, flow, note, window):
    kw = {} if frame is not daily or flow else {"max_carry_days": 45}
    res = study(frame(), on, days, flow=flow, **kw)
    assert res.note_in("es") == note
    assert res.window_in("es") == window
    assert res.note_in("en") == res.note  # English: the note itself
    assert res.window_in("en") == res.window_label


def test_english_words_are_unchanged():
    res = study(monthly(), dt.date(2025, 2, 11), 14, flow=True)
    assert res.note == ("A monthly series: 1 whole month before against 1 whole month after, mean per day of the "
                        "totals. February 2025 holds the date and mixes days before and after it, so it is left out.")
    assert res.window_label == "1 whole month"
    assert list(res.table().columns) == ["comparison", "before", "mean per day before", "after", "mean per day after",
                                         "change", "change %", "months with data (before/after)"]
    assert res.table().iloc[0, 0] == "Around the date" and res.table().iloc[0, 1] == "2025-01-01 to 2025-01-31"
    assert x_title_in("days") == "days from the date (0 = the date)"
    assert x_title_in("weeks") == "weeks from the week holding the date (0 = that week)"


def test_the_table_in_spanish():
    res = study(weekly(), dt.date(2025, 3, 5), 28, flow=True)
    t = res.table("es")
    assert list(t.columns) == ["comparación", "antes", "promedio por día antes", "después", "promedio por día después",
                               "cambio", "cambio %", "semanas con datos (antes/después)"]
    assert t.iloc[1, 0] == "Mismos periodos un año antes" and t.iloc[0, 1].startswith("del 2025-")
    assert t.iloc[0, 2] == res.table().iloc[0, 2]  # the same numbers
    assert x_title_in("months", "es") == "meses desde el mes que contiene la fecha (0 = el mes de la fecha)"


def test_the_spanish_study_csv_and_figure():
    from loaders.data import load_snapshot
    from views import event_study as es
    snap = load_snapshot()
    ref = "trac_detention.book_ins_ice"  # monthly: whole months, and the legend's two windows
    on = dt.date(2025, 6, 1)
    flow, _, _, res = es.study_numbers(snap, ref, on, 30)
    fig, win = es.study_figure(snap, ref, on, 30, title="t", subtitle="s", unit="u", sources=("Fuente: x",),
                               today=dt.date(2026, 1, 1), lang="es")
    names = {d.name for d in fig.data}
    assert names == {"en torno a la fecha", "un año antes"}
    assert set(win["window"]) == {"around the date", "a year earlier"}  # the data keeps the machine's names
    assert fig.layout.xaxis.title.text == x_title_in(res.unit, "es") and "que contiene la fecha" in fig.layout.xaxis.title.text
    text = study_export.study_csv("t", res, win, ("Fuente: x",), "es").decode("utf-8")
    assert res.note_in("es") in text and "promedio por día" in text and "mean per day" not in text.split("\n\n")[0]
    english = study_export.study_csv("t", res, win, ("Source: x",)).decode("utf-8")
    assert res.note in english and "mean per day" in english
    assert i18n.t("study.csv_row", "en", comparison="a", before="b", mean_before="1", after="c", mean_after="2") \
        == "a: b mean per day 1; c mean per day 2"
