"""A view: which series, which dates, which transforms. Its link format (``views.link``) is shared by the
page, a shared link and ``python -m charts export``, so all describe the same chart the same way.

A link is checked once, by ``views.link.trends_from_link`` (``check_view`` here), for the page and
``python -m charts export`` alike: every link
renders. What cannot be drawn as asked is adjusted and said in a note (the page shows the notes, the command
prints them to stderr), never silently: dates before the data or after today are clamped, series that are not
in the snapshot and an unknown index event or category are left out, malformed values fall back to defaults.

``prepare(snap, view)`` turns a view into the frames that are drawn (and exported as "the data displayed").
Transforms run in a fixed order: vintage ("as published on") -> per day -> granularity -> rolling average ->
index = 100 -> date range. Each step is a plain pandas function that can be tested on its own.
"""
from __future__ import annotations

import datetime as dt
import functools
import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from analysis.study import carry_days
from loaders import data as cdata
from loaders.asof import revision_band
from wording import i18n

INAUGURATION = dt.date(2025, 1, 20)
# Big operations (the Los Angeles raids) and court orders are part of the story: shown by default; the
# markers cluster, so the busier default stays legible. Statistic releases and politics are opt-in.
DEFAULT_CATEGORIES = ("personnel", "policy", "operation", "legal", "funding")
PRESETS = {
    "since-2025-01-20": "Since 20 Jan 2025",
    "last-90-days": "Last 90 days",
    "fiscal-ytd": "Fiscal year to date",
    "calendar-year": "Calendar year to date",
    "all": "All data",
    "custom": "Custom range",
}
GRANULARITIES = {"native": "As published", "weekly": "Weekly", "monthly": "Monthly"}
ROLLING = {0: "None", 7: "7-day average", 30: "30-day average"}
# What a journalist asks first: ICE arrests per day since the inauguration (DDP's counts from ICE's own
# records: a weekly series to October 2025, then a monthly one to July 2026).
DEFAULT_SERIES = ("ddp_arrests_aggregates.weekly_national_digitised", "ddp_arrests_aggregates.monthly_national_chart_data")


def fiscal_year_start(d: dt.date) -> dt.date:
    return dt.date(d.year if d.month >= 10 else d.year - 1, 10, 1)


@dataclass
class View:
    series: list[str] = field(default_factory=lambda: list(DEFAULT_SERIES))  # "id" or "id|key"
    preset: str = "since-2025-01-20"
    start: dt.date | None = None  # only for preset "custom"
    end: dt.date | None = None
    granularity: str = "native"
    per_day: bool = True  # flows published as period totals are shown per day unless turned off
    rolling: int = 0
    index_at: dt.date | None = None
    index_event: str = ""  # an event id; resolved to its date by the caller
    log: bool = False
    fiscal_axis: bool = False
    as_of: dt.date | None = None
    events: bool = True
    # The default keeps the chart legible: leadership changes, policy and funding (the demotions among them).
    categories: list[str] = field(default_factory=lambda: list(DEFAULT_CATEGORIES))  # empty = all
    event_text: str = ""
    reported: bool = True
    # The revision band: behind each line, the range of the figures every release printed for each period
    # (``loaders.asof.revision_band``). Off by default: most readers want the latest figure alone.
    band: bool = False
    # The language of every text drawn (titles, notes, alt text, exports) and the thousands mark of numbers,
    # chosen apart from the language (US Spanish outlets print both "75,000" and "75.000").
    lang: str = "en"
    sep: str = ","

    def date_range(self, data_min: dt.date, data_max: dt.date) -> tuple[dt.date, dt.date]:
        """The range the preset means, given the data's extent ("today" is the latest data date)."""
        last = data_max
        p = self.preset
        if p == "custom" and self.start and self.end:
            lo, hi = self.start, self.end
        elif p == "since-2025-01-20":
            lo, hi = INAUGURATION, last
        elif p == "last-90-days":
            lo, hi = last - dt.timedelta(days=89), last
        elif p == "fiscal-ytd":
            lo, hi = fiscal_year_start(last), last
        elif p == "calendar-year":
            lo, hi = dt.date(last.year, 1, 1), last
        else:
            lo, hi = data_min, data_max
        return (min(lo, hi), max(lo, hi))


MAX_SERIES = 12


def _short(value) -> str:
    text = str(value)
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


def data_bounds(snap: cdata.Snapshot, today: dt.date | None = None) -> tuple[dt.date, dt.date]:
    """The dates a view may range over: from the snapshot's first data date to today (or to the last date the
    data cover, should a period end after today)."""
    today = today or dt.date.today()
    if snap.obs.empty:
        return today, today
    return snap.obs["date"].min().date(), max(today, snap.obs["end"].max().date())


def chosen_rows(snap: cdata.Snapshot, ref: str, as_of: dt.date | None = None) -> pd.DataFrame | None:
    """``loaders.data.series_rows`` for a reference (None when the series is not in the snapshot). The latest
    rows are kept on the snapshot once computed (read-only, like it); as-published ones, whose dates are the
    reader's, are computed each time."""
    sid, key = split_ref(ref)
    if sid not in snap.by_series:
        return None
    if as_of is not None:
        return cdata.series_rows(snap, sid, key, pd.Timestamp(as_of))
    return snap.memo.keep(("rows", sid, key), lambda: cdata.series_rows(snap, sid, key))


def view_range(snap: cdata.Snapshot, view: View) -> tuple[dt.date, dt.date, dt.date, dt.date] | None:
    """(start, end) of the range the view's preset means, and (first, last) date of the chosen series' data,
    as ``prepare`` computes them: presets count from the last date of the data, not from today. None when
    no chosen series has data (as published on ``view.as_of``, when set)."""
    frames = [f for f in (chosen_rows(snap, ref, view.as_of) for ref in view.series) if f is not None and len(f)]
    if not frames:
        return None
    data_min = min(f["date"].min() for f in frames).date()
    data_max = max(f["end"].max() for f in frames).date()
    lo, hi = view.date_range(data_min, data_max)
    return lo, hi, data_min, data_max


def ref_problem(snap: cdata.Snapshot, ref: str, lang: str = "en") -> str | None:
    """Why a series reference ("id" or "id|member") cannot be drawn, or None."""
    sid, key = split_ref(ref)
    if sid not in snap.by_series:
        return i18n.t("link.not_in_snapshot", lang)
    if sid.startswith("reported_figures."):
        return i18n.t("link.is_reported", lang)
    info = snap.info(sid)
    keys = snap.keys(sid)
    if key and key not in keys:
        return i18n.t("link.no_member", lang, value=_short(key))
    if not key and info["breakdown"] and "" not in keys:
        example = f"{sid}|{keys[0]}" if keys else f"{sid}|<member>"
        return i18n.t("link.broken_down", lang, breakdown=info["breakdown"], example=example[:80])
    return None


def check_view(view: View, snap: cdata.Snapshot, *, events: pd.DataFrame | None = None,
               today: dt.date | None = None) -> tuple[View, list[str]]:
    """A copy of ``view`` that can be drawn from ``snap``, and a note for each change made to it.

    - series that cannot be drawn (``ref_problem``) are left out; the view may end with none, and then the
      caller decides (the page shows its default, the command line refuses);
    - a custom range is clamped to ``data_bounds``; a missing end is today, a missing start the first data
      date; a start after the end is swapped;
    - an ``index_event`` that is not among ``events`` is dropped (the chart is not indexed, rather than indexed
      at some other date); categories no event has are dropped. Without ``events`` neither is checked.
    """
    v = replace(view, series=list(view.series), categories=list(view.categories))
    lang = v.lang if v.lang in i18n.LANGS else "en"
    notes: list[str] = []
    kept, dropped = [], []
    for ref in v.series:
        why = ref_problem(snap, ref, lang)
        (dropped.append(f"{_short(ref)} ({why})") if why else kept.append(ref))
    if dropped:
        notes.append(i18n.t("link.left_out_series", lang, items="; ".join(dropped)))
    v.series = list(dict.fromkeys(kept))
    lo, hi = data_bounds(snap, today)
    if v.preset != "custom":
        # Dates only a custom range uses: dropped, so that nothing out of bounds waits in the date picker.
        v.start = v.end = None
    if v.preset == "custom":
        start, end = v.start, v.end
        if start is None:
            start = lo
        if end is None:
            end = hi
            if v.start is not None:
                notes.append(i18n.t("link.no_end", lang, date=hi.isoformat()))
        if start > end:
            notes.append(i18n.t("link.swapped", lang, start=start.isoformat(), end=end.isoformat()))
            start, end = end, start
        for name, d in (("start", start), ("end", end)):
            if d < lo:
                notes.append(i18n.t("link.before_data", lang, name=i18n.t("link." + name, lang), date=d.isoformat(),
                                    first=lo.isoformat()))
            elif d > hi:
                notes.append(i18n.t("link.after_today", lang, name=i18n.t("link." + name, lang), date=d.isoformat(),
                                    last=hi.isoformat()))
        v.start, v.end = min(max(start, lo), hi), min(max(end, lo), hi)
    if events is not None:
        if v.index_event and ("id" not in events or not (events["id"].astype(str) == v.index_event).any()):
            notes.append(i18n.t("link.unknown_index_event", lang, value=_short(v.index_event)))
            v.index_event = ""
        if v.categories and "category" in events:
            known = set(events["category"].astype(str))
            unknown = [c for c in v.categories if c not in known]
            if unknown:
                v.categories = [c for c in v.categories if c in known]
                if not v.categories:  # an empty list would mean every category: not what the link asked either
                    v.categories = [c for c in View().categories if c in known]
                notes.append(i18n.t("link.unknown_categories", lang, items=", ".join(_short(c) for c in unknown),
                                    shown=", ".join(v.categories) or i18n.t("link.all_categories", lang)))
    return v, notes


def split_ref(ref: str) -> tuple[str, str]:
    sid, _, key = ref.partition("|")
    return sid, key


@dataclass
class Prepared:
    ref: str
    series_id: str
    key: str
    label: str
    unit: str
    source: str
    frame: pd.DataFrame  # date, end, value, release, flag, file (after transforms, within range)
    notes: list[str] = field(default_factory=list)
    # "Index = 100": the common base date (``common_base``) when indexed; when the view asked for an index that
    # cannot be drawn, the date asked and the references of the series with no value there (then not indexed).
    index_base: dt.date | None = None
    index_refused: tuple[dt.date, tuple[str, ...]] | None = None
    # The decimals the table (and so every CSV) writes the values with: None for values as published (counts
    # stay exact, a publisher's decimals stay as printed); a number for values the view derived (``export_decimals``).
    decimals: int | None = None
    # With ``View.band``: the revision band of the drawn periods (``loaders.asof.revision_band``, after the
    # same per-day and index steps as ``frame``), or None when the view draws none for this series; then
    # ``band_missing`` says why ("unversioned", "regrouped", "rolling").
    band: pd.DataFrame | None = None
    band_missing: str = ""


def per_day(df: pd.DataFrame, spans=()) -> pd.DataFrame:
    """Period totals divided by the days each covers (a partial month divides by the days to its data date; a
    period its source covers only in part, by the days ``spans`` cover: ``loaders.data.coverage_spans``)."""
    out = df.copy()
    out["value"] = out["value"].to_numpy() / cdata.days_covered(out, spans)
    return out


def is_daily(df: pd.DataFrame) -> bool:
    return len(df) > 1 and bool(((df["end"] - df["date"]).dt.days == 0).all()) and \
        df["date"].diff().dt.days.dropna().median() <= 1


def regrouped(df: pd.DataFrame, granularity: str) -> bool:
    """Whether the granularity ``granularity`` regroups a series with these rows: weeks and months are made from
    daily figures, months also from weekly (or shorter) periods. A series published for longer periods keeps
    them: splitting a period's figure across weeks or months would mean guessing figures the source did not
    publish. The page names the series this leaves as published."""
    if granularity == "native" or not len(df):
        return False
    return is_daily(df) or (granularity == "monthly" and (df["end"] - df["date"]).dt.days.max() <= 7)


def resample(df: pd.DataFrame, rule: str, how: str) -> pd.DataFrame:
    """Weekly ("W-SUN" periods starting Monday) or monthly ("MS"); flows are summed, levels averaged."""
    if df.empty:
        return df
    s = df.set_index("date")["value"]
    freq = "W-MON" if rule == "weekly" else "MS"
    label = "left"
    g = s.resample(freq, label=label, closed="left")
    vals = g.sum(min_count=1) if how == "sum" else g.mean()
    counts = g.count()
    ends = df.set_index("date")["end"].resample(freq, label=label, closed="left").max()
    flags = df.set_index("date")["flag"].resample(freq, label=label, closed="left").agg(
        lambda x: ";".join(sorted({c for f in x for c in str(f).split(";") if c})))
    out = pd.DataFrame({"date": vals.index, "value": vals.to_numpy(), "end": ends.to_numpy(), "flag": flags.to_numpy()})
    out = out[counts.to_numpy() > 0]
    period_end = (out["date"] + (pd.Timedelta(days=6) if rule == "weekly" else pd.offsets.MonthEnd(0)))
    partial = out["end"] < period_end
    if how != "sum" and not is_daily(df):
        # A level read on a few dates (biweekly headcounts) averaged over a month is not a partial month: the
        # snapshots simply fall before its last day. Only a total, or an average of daily counts that stop
        # early, covers less than the period.
        partial &= False
    out.loc[partial, "flag"] = out.loc[partial, "flag"].map(
        lambda f: ";".join(sorted(set(filter(None, f.split(";"))) | {"partial"})))
    out["release"] = pd.NaT
    out["file"] = ""
    return out[["date", "end", "value", "release", "flag", "file"]].reset_index(drop=True)


def rolling_mean(df: pd.DataFrame, days: int) -> pd.DataFrame:
    if df.empty or not days:
        return df
    out = df.copy()
    s = out.set_index("date")["value"].rolling(f"{days}D", min_periods=max(1, int(days * 0.8))).mean()
    out["value"] = s.to_numpy()
    return out[out["value"].notna()].reset_index(drop=True)


def index_to(df: pd.DataFrame, at: pd.Timestamp) -> tuple[pd.DataFrame, str]:
    """Rebase one series so the value at (or just before) ``at`` is 100. A view indexes all its series at one
    common date instead (``common_base``, used by ``prepare``)."""
    before = df[df["date"] <= at]
    base_row = before.iloc[-1] if len(before) else None
    if base_row is None or not base_row["value"]:
        return df, "could not index: no non-zero value at or before the base date"
    return rebase(df, float(base_row["value"])), f"indexed to 100 at {base_row['date'].date().isoformat()}"


def rebase(df: pd.DataFrame, base_value: float) -> pd.DataFrame:
    out = df.copy()
    out["value"] = out["value"] / base_value * 100
    return out


def covered_until(df: pd.DataFrame, *, flow: bool, carry: int) -> np.ndarray:
    """The last day each row's value stands for: its own end; for a level read on one day (a headcount), up to
    ``carry`` days counted from its reading (``analysis.study.CARRY_DAYS``: 14 for a biweekly count), as the
    event study carries it. A flow counted on one day stands for that day only."""
    ends = df["end"].to_numpy(dtype="datetime64[ns]")
    if flow:
        return ends
    carried = df["date"].to_numpy(dtype="datetime64[ns]") + np.timedelta64(max(1, carry) - 1, "D")
    return np.maximum(ends, carried)


def common_base(frames: list[tuple[str, pd.DataFrame, np.ndarray]], at: pd.Timestamp
                ) -> tuple[pd.Timestamp | None, dict[str, float], list[str]]:
    """The one date every series of a view is indexed at, for "index = 100 at ``at``".

    The rule: the latest period start (of any series) at or before ``at`` on which every series has a value,
    that is a row whose period holds that day (``covered_until`` says how long a level's reading holds) and
    whose value is not zero. Each series is then 100 at the value of its row holding that day. On a weekly and
    a monthly series indexed at 11 February 2025 that is Sunday 9 February: the weekly series' week of 9-15
    February and the monthly series' February are both 100.

    ``frames``: (name, frame sorted by date, ``covered_until`` of its rows). Returns (the base date, each
    series' base value by name, []) or, when no such date exists, (None, {}, the names of the series with no
    value on the date nearest ``at`` that some series starts a period on), so the caller can refuse by name
    rather than index each series at a different date."""
    at64 = np.datetime64(pd.Timestamp(at).to_datetime64(), "ns")
    starts = [f["date"].to_numpy(dtype="datetime64[ns]") for _, f, _ in frames]
    cands = np.unique(np.concatenate([s[s <= at64] for s in starts] or [np.array([], dtype="datetime64[ns]")]))
    if not len(cands):
        return None, {}, [name for name, _, _ in frames]
    ok_all = np.ones(len(cands), dtype=bool)
    per_series = []
    for (name, f, until), s in zip(frames, starts):
        vals = f["value"].to_numpy(dtype="float64")
        pos = np.searchsorted(s, cands, side="right") - 1
        safe = np.clip(pos, 0, None)
        ok = (pos >= 0) & (cands <= until[safe]) & np.isfinite(vals[safe]) & (vals[safe] != 0) \
            if len(s) else np.zeros(len(cands), dtype=bool)
        ok_all &= ok
        per_series.append((name, vals, safe, ok))
    hits = np.flatnonzero(ok_all)
    if not len(hits):
        return None, {}, [name for name, _, _, ok in per_series if not ok[-1]]
    i = hits[-1]
    return pd.Timestamp(cands[i]), {name: float(vals[safe[i]]) for name, vals, safe, _ in per_series}, []


def prepare(snap: cdata.Snapshot, view: View, *, index_date: dt.date | None = None) -> tuple[list[Prepared], dt.date, dt.date]:
    """The frames to draw for a view, and the date range they were cut to."""
    prepared = []
    raw = []
    as_of = pd.Timestamp(view.as_of) if view.as_of else None
    for ref in view.series:
        sid, key = split_ref(ref)
        rows = chosen_rows(snap, ref, view.as_of)
        if rows is None:  # not in the snapshot
            continue
        raw.append((ref, sid, key, rows))
    if not raw:
        today = dt.date.today()
        return [], today, today
    data_min = min(r[3]["date"].min() for r in raw if len(r[3])).date() if any(len(r[3]) for r in raw) else dt.date.today()
    data_max = max(r[3]["end"].max() for r in raw if len(r[3])).date() if any(len(r[3]) for r in raw) else dt.date.today()
    lo, hi = view.date_range(data_min, data_max)
    base = index_date or view.index_at
    shaped = []
    decimals: dict[str, int | None] = {}
    for ref, sid, key, df in raw:
        info = snap.info(sid)
        df_src = df
        df, unit, shape_notes, extra = _shaped(snap, sid, key, df, info, view, memo=as_of is None)
        if extra is None:
            decimals[ref] = None
        else:
            values = df_src["value"]
            src = (source_decimals(values) if as_of is not None
                   else snap.memo.keep(("decimals", sid, key), functools.partial(source_decimals, values)))
            decimals[ref] = export_decimals(src, extra)
        shaped.append((ref, sid, key, info, df, unit, list(shape_notes)))
    base_date, refused = None, None
    base_values: dict[str, float] = {}
    if base is not None:
        # One base date for every series (``common_base``), or none: lines indexed at different dates on one
        # axis would not be comparable.
        frames = []
        for ref, _, _, info, df, _, _ in shaped:
            if len(df):
                df = df if df["date"].is_monotonic_increasing else df.sort_values("date", kind="mergesort")
                frames.append((ref, df, covered_until(df, flow=cdata.is_flow(info), carry=carry_days(info["frequency"]))))
        found, values, missing = common_base(frames, pd.Timestamp(base)) if frames else (None, {}, [])
        missing += [ref for ref, _, _, _, df, _, _ in shaped if not len(df)]
        if found is not None and not missing:
            base_date, base_values = found.date(), values
            decimals = dict.fromkeys(decimals, INDEX_DECIMALS)
            shaped = [(ref, sid, key, info, rebase(df, values[ref]), "index (100 at base date)",
                       notes + [f"indexed to 100 at {base_date.isoformat()}"])
                      for ref, sid, key, info, df, unit, notes in shaped]
        else:
            refused = (base if isinstance(base, dt.date) else pd.Timestamp(base).date(), tuple(missing))
            note = (f"not indexed to 100 at {refused[0].isoformat()}: no value on a date at or before it for "
                    + "; ".join(missing))
            shaped = [(ref, sid, key, info, df, unit, notes + [note]) for ref, sid, key, info, df, unit, notes in shaped]
    for ref, sid, key, info, df, unit, notes in shaped:
        df = df[(df["end"] >= pd.Timestamp(lo)) & (df["date"] <= pd.Timestamp(hi))].reset_index(drop=True)
        label = info["title"] + (f": {key}" if key else "")
        band, why = (_band(snap, sid, key, info, df, view, base_value=base_values.get(ref) if base_date else None)
                     if view.band else (None, ""))
        if band is not None and decimals[ref] is not None:
            band = band.assign(low=band["low"].round(decimals[ref]), high=band["high"].round(decimals[ref]))
        prepared.append(Prepared(ref, sid, key, label, unit, info["source"], df, list(notes), base_date, refused,
                                 decimals[ref], band, why))
    return prepared, lo, hi


def _band(snap: cdata.Snapshot, sid: str, key: str, info, drawn: pd.DataFrame, view: View, *,
          base_value: float | None) -> tuple[pd.DataFrame | None, str]:
    """The revision band behind one drawn line, for the periods drawn (``drawn``: the line's rows), or None
    and why not. A band is the figures the releases printed for a period, so it is drawn where the line's
    points are such figures (as published or per day, indexed or not), not where the view made new ones
    from several periods (weekly or monthly sums of daily figures, rolling averages)."""
    rows = chosen_rows(snap, f"{sid}|{key}" if key else sid, view.as_of)
    if rows is None or not len(rows) or rows["release"].isna().all():
        return None, "unversioned"
    if regrouped(rows, view.granularity):
        return None, "regrouped"
    if view.rolling and is_daily(rows):
        return None, "rolling"
    per_day_ = view.per_day and cdata.is_flow(info)
    if view.as_of is None:
        band = snap.memo.keep(("band", sid, key, per_day_), lambda: revision_band(snap, sid, key, per_day=per_day_))
    else:
        band = revision_band(snap, sid, key, as_of=view.as_of, per_day=per_day_)
    band = band[band["date"].isin(drawn["date"])]
    if base_value:
        band = band.assign(low=band["low"] / base_value * 100, high=band["high"] / base_value * 100)
    return band.reset_index(drop=True), ""


# A series' shape for a view (per day, resampled, rolling) does not depend on the date range, which is what
# readers change most: like its rows (``chosen_rows``), it is kept on the read-only snapshot (``Snapshot.memo``)
# and only the cut to the range is made per view. Kept only for the latest figures (not as published on a date),
# so what is kept is bounded by the series and the view's few options; an index is applied after, on a copy.
# Shared: never mutate it.
def _shaped(snap: cdata.Snapshot, sid: str, key: str, df: pd.DataFrame, info, view: View, *,
            memo: bool) -> tuple[pd.DataFrame, str, tuple[str, ...], int | None]:
    if not memo:
        return _shape(snap, df, info, view)
    return snap.memo.keep(("shaped", sid, key, view.per_day, view.granularity, view.rolling),
                          lambda: _shape(snap, df, info, view))


def _shape(snap: cdata.Snapshot, df: pd.DataFrame, info, view: View) -> tuple[pd.DataFrame, str, tuple[str, ...], int | None]:
    notes = []
    unit = info["unit"]
    flow = cdata.is_flow(info)
    extra = None  # the decimals the transforms add to the published values' own (None: values as published)
    if view.per_day and flow:
        spans = cdata.coverage_spans(snap, str(info["source"]))
        days = cdata.days_covered(df, spans)
        df = per_day(df, spans)
        unit = f"{unit} per day"
        extra = digits_for(float(np.max(days)) if len(days) else 1.0)
    if view.granularity != "native" and len(df):
        if regrouped(df, view.granularity):
            how = "mean" if (not flow or view.per_day) else "sum"
            df = resample(df, view.granularity, how)
            extra = (extra or 0) + (digits_for(7 if view.granularity == "weekly" else 31) if how == "mean" else 0)
            notes.append(f"{GRANULARITIES[view.granularity].lower()} {'averages' if how == 'mean' else 'totals'}")
        else:
            notes.append(f"{info['title']}: already {info['frequency']}; shown as published")
    if view.rolling:
        if is_daily(df):
            df = rolling_mean(df, view.rolling)
            extra = (extra or 0) + digits_for(view.rolling)
            notes.append(f"{view.rolling}-day rolling average")
        else:
            notes.append(f"rolling average applies to daily series only; {info['frequency']} shown as published")
    return (df, unit, tuple(notes), extra)


# Decimals for values a view derives from the published ones (per day, averages, index). Enough that nothing in
# the source is lost: a value per day keeps enough decimals that multiplying it back by the days it covers gives
# the published total (1 decimal for a week, 2 for a month: 10 ** decimals >= days), an average of n values
# likewise; never fewer than the published values' own decimals, and no more than 4 beyond those (a source's
# binary noise, 50.0776584262733 days, is not precision). An index (100 at the base date) has 1 decimal.
INDEX_DECIMALS = 1
MAX_EXTRA_DECIMALS = 4
MAX_SOURCE_DECIMALS = 6


def digits_for(n: float) -> int:
    """The decimals that keep an n-th of a whole number recoverable: 0 for 1, 1 up to 10, 2 up to 100..."""
    return int(math.ceil(math.log10(n))) if n > 1 else 0


def source_decimals(values) -> int:
    """The decimals the published values are written with (at most ``MAX_SOURCE_DECIMALS``): 0 for counts."""
    v = np.asarray(values, dtype="float64")
    v = v[np.isfinite(v)]
    for d in range(MAX_SOURCE_DECIMALS):
        if np.all(np.abs(v - np.round(v, d)) <= 1e-9 * np.maximum(1.0, np.abs(v))):
            return d
    return MAX_SOURCE_DECIMALS


def export_decimals(src: int, extra: int) -> int:
    """The decimals a derived value is written with: the published values' own plus what the transform adds."""
    return src + min(extra, MAX_EXTRA_DECIMALS)


def _iso_days(col: pd.Series, missing_ok: bool = False) -> pd.Series:
    """A date column as YYYY-MM-DD text (``loaders.data.iso_days``); ``missing_ok``: a missing date stays missing."""
    out = cdata.iso_days(col.to_numpy(dtype="datetime64[ns]"))
    if missing_ok:
        out = out.astype(object)
        out[out == "NaT"] = None
    return pd.Series(out, index=col.index, dtype="str")


BAND_TABLE_COLUMNS = ["band_low", "band_high", "band_releases", "first_release", "last_revised"]


BAND_NUMBERS = ("band_low", "band_high")


def _with_band(table: pd.DataFrame, p: Prepared) -> pd.DataFrame:
    """The revision band beside each point of a view that draws it (``View.band``): the lowest and highest
    figure the releases printed for the period, how many releases printed it, the first of them and the last
    that changed it (blank where the point has no band). The lowest and highest stay numbers (NaN where there is
    none), so the CSV writes them as it writes ``value`` ("50922", not "50922.0") and a table shows them as
    numbers."""
    out = table.assign(**{c: np.nan if c in BAND_NUMBERS else "" for c in BAND_TABLE_COLUMNS})
    if p.band is None or not len(p.band):
        return out
    b = p.band
    by_date = pd.DataFrame({"date": _iso_days(b["date"]), "band_low": b["low"].to_numpy(), "band_high": b["high"].to_numpy(),
                            "band_releases": b["releases"].astype("int64").astype(str).to_numpy(),
                            "first_release": _iso_days(b["first_release"], missing_ok=True),
                            "last_revised": _iso_days(b["last_revised"], missing_ok=True)})
    merged = out.drop(columns=BAND_TABLE_COLUMNS).merge(by_date, on="date", how="left")
    for c in BAND_TABLE_COLUMNS:
        if c in BAND_NUMBERS:
            merged[c] = merged[c].astype("float64")
        else:
            merged[c] = merged[c].astype(object).where(merged[c].notna(), "")
    return merged


def displayed_table(prepared: list[Prepared]) -> pd.DataFrame:
    """The numbers drawn, one row per point: what the CSV export writes. Values as published are written as
    published; values the view derived (per day, averages, index) are rounded to ``Prepared.decimals``."""
    frames = []
    for p in prepared:
        f = p.frame
        frames.append(pd.DataFrame({
            "series": p.series_id, "key": p.key, "label": p.label, "unit": p.unit,
            "date": _iso_days(f["date"]), "end": _iso_days(f["end"]),
            "value": f["value"].to_numpy() if p.decimals is None else np.round(f["value"].to_numpy(), p.decimals),
            "release": _iso_days(f["release"], missing_ok=True) if "release" in f else "",
            "flag": f["flag"].to_numpy(), "source": p.source,
        }))
        if any(q.band is not None for q in prepared):
            frames[-1] = _with_band(frames[-1], p)
    if not frames:
        return pd.DataFrame(columns=["series", "key", "label", "unit", "date", "end", "value", "release", "flag", "source"])
    return pd.concat(frames, ignore_index=True)
