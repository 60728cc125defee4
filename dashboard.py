"""The page. It reads the processed snapshot through a cache and calls the figure builders.

It never downloads, never parses a spreadsheet: refresh the data with ``python -m loaders update``.
"""
from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import streamlit as st

from charts import data as cdata
from charts.figures import Line, build_trend_figure

st.set_page_config(page_title="US immigration enforcement: trends and events", layout="wide")


@st.cache_resource(show_spinner=False)
def snapshot() -> cdata.Snapshot:
    # One shared, read-only copy for every session: cache_data would copy the frames on every rerun.
    return cdata.load_snapshot()


snap = snapshot()
st.title("US immigration enforcement: trends and events")

ids = snap.series_ids()
if not ids:
    st.error("The data snapshot is empty. Run `python -m loaders rebuild --raw ../shared/data` or "
             "`python -m loaders update`.")
    st.stop()

default_id = "trac_detention.detained_total" if "trac_detention.detained_total" in ids else ids[0]
series_id = st.selectbox("Series", ids, index=ids.index(default_id), key="series",
                         format_func=lambda s: snap.info(s)["title"])
info = snap.info(series_id)
keys = snap.keys(series_id)
key = st.selectbox(f"{info['breakdown'].capitalize()}", keys, key="key") if info["breakdown"] else ""
rows = cdata.series_rows(snap, series_id, key)
lo, hi = rows["date"].min().date(), rows["end"].max().date()
start, end = st.date_input("Date range", value=(max(lo, dt.date(2025, 1, 20)) if hi > dt.date(2025, 1, 20) else lo, hi),
                           min_value=lo, max_value=hi, key="range") if len(rows) else (lo, hi)
st.caption(info["definition"])

view = rows[(rows["date"] >= pd.Timestamp(start)) & (rows["date"] <= pd.Timestamp(end))]
src = snap.source_entry(info["source"])
if view.empty:
    st.info(f"No figures for this series between {start} and {end}. It has data from {lo} to {hi}: widen the range.")
    st.stop()

data_date = view["end"].max().date().isoformat()
release = view["release"].max()
source_line = (f"Source: {src.get('publisher', info['source'])}, {src.get('title', '')}; "
               f"latest release used {release.date().isoformat() if pd.notna(release) else 'n/a'}, data to {data_date}.")
fig = build_trend_figure(
    [Line(info["title"] + (f": {key}" if key else ""), view["date"].to_numpy(), view["value"].to_numpy(),
          unit=info["unit"], flagged=(view["flag"] != "").to_numpy())],
    title=info["title"] + (f" ({key})" if key else ""),
    subtitle=f"{start} to {end}",
    sources=[source_line] + ([src["attribution"]] if src.get("attribution") else []),
    y_title=info["unit"],
)
st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
st.markdown(f"**Data to {data_date}** · {source_line}")
with st.expander("Data behind the chart"):
    st.dataframe(view.assign(date=view["date"].dt.date, end=view["end"].dt.date,
                             release=view["release"].dt.date), hide_index=True)
