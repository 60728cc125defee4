"""Event study: the mean per day in a window before and after a date, and the same windows a year earlier.

Descriptive, not causal: a change after an event can have many causes, and the page says so.

Every series is first turned into one value per calendar day:
- a flow published as period totals (monthly book-ins, weekly arrests) becomes its per-day rate spread over
  the days each period covers, so a window that cuts a month in half takes half a month's days;
- a daily flow is used as is;
- a level (people detained, average daily population) is carried forward from each observation to the next,
  so the mean is the average level over the window; but for no longer than the source's usual spacing
  (``CARRY_DAYS``: 14 days for a biweekly count, 31 for a monthly one), so months without a release are a gap,
  not a flat line that would report "no change" across an event.
Days with no value (before the first or after the last observation) are left out, and the window reports
how many days it actually covers.

A monthly or weekly series has one number per period: spreading it over days and cutting windows in days
would compare a January value with a February one while reporting "14/14 days with data". Those series are
compared in whole periods instead (``study``): the N whole months (or weeks) before the period holding the date
against the N whole periods after it; the period holding the date mixes days before and after, so it is left
out and the result says so (unless the date is its first day, when it is wholly "after").
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wording import i18n

# How many days (the observation's own included) a level may stand for, by catalogue frequency.
CARRY_DAYS = {"daily": 1, "weekly": 7, "biweekly": 14, "monthly": 31}
DEFAULT_CARRY_DAYS = 31


def carry_days(frequency: str) -> int:
    return CARRY_DAYS.get(str(frequency), DEFAULT_CARRY_DAYS)


def daily_values(df: pd.DataFrame, *, flow: bool, max_carry_days: int = DEFAULT_CARRY_DAYS) -> pd.Series:
    """One value per day, indexed by date (see the module docstring for flows vs levels). A level stands for
    at most ``max_carry_days`` days from its observation (or to its ``end``, if that is later)."""
    if df.empty:
        return pd.Series(dtype="float64")
    df = df.sort_values("date")
    if flow:
        days = ((df["end"] - df["date"]).dt.days + 1).to_numpy()
        rate = df["value"].to_numpy() / days
        idx = np.concatenate([pd.date_range(s, e, freq="D").to_numpy() for s, e in zip(df["date"], df["end"])])
        vals = np.repeat(rate, days)
        return pd.Series(vals, index=pd.DatetimeIndex(idx)).groupby(level=0).last()
    d = df.drop_duplicates("date", keep="last")
    full = pd.date_range(d["date"].min(), d["end"].max(), freq="D")
    # Each observation's last valid day: its own end, or the carry limit, whichever is later.
    until = np.maximum(d["end"].to_numpy(), (d["date"] + pd.Timedelta(days=max(1, max_carry_days) - 1)).to_numpy())
    pos = np.searchsorted(d["date"].to_numpy(), full.to_numpy(), side="right") - 1
    ok = full.to_numpy() <= until[pos]
    return pd.Series(np.where(ok, d["value"].to_numpy()[pos], np.nan), index=full).dropna()


@dataclass
class Window:
    start: dt.date | None  # None (and end None): no rows in the window
    end: dt.date | None
    days_with_data: int
    mean_per_day: float | None


@dataclass
class StudyResult:
    event_date: dt.date
    days: int
    before: Window
    after: Window
    change: float | None
    change_pct: float | None
    year_earlier_before: Window
    year_earlier_after: Window
    year_earlier_change: float | None
    year_earlier_change_pct: float | None
    unit: str = "days"  # what the windows count: days, or whole weeks or months
    periods: int = 0  # whole periods each side, when ``unit`` is weeks or months
    note: str = ""  # how the comparison was made, in words (English; ``note_in`` gives another language)
    note_parts: tuple = ()  # the note as catalogue keys and their fields, for ``note_in``

    @property
    def window_label(self) -> str:
        return self.window_in("en")

    def window_in(self, lang: str = "en") -> str:
        """The windows' length in words: "30 days", "4 whole weeks" / "30 días", "4 semanas completas"."""
        if self.unit == "days":
            return i18n.t("study.window_days", lang, n=self.days)
        return i18n.t("study.window_periods", lang, n=self.periods, word=_word(self.unit, self.periods, lang))

    def note_in(self, lang: str = "en") -> str:
        """``note`` in ``lang``, from the same parts (the English is ``note`` itself, byte for byte)."""
        if i18n.check_lang(lang) == "en" or not self.note_parts:
            return self.note
        return "".join(_part(k, lang, f) for k, f in self.note_parts)

    def table(self, lang: str = "en") -> pd.DataFrame:
        """The two comparisons; headers and words in ``lang`` (the English ones are the CSV's and scripts')."""
        c = lambda k, **f: i18n.t(f"study.col_{k}", lang, **f)  # noqa: E731
        rows = []
        for label, b, a, ch, pct in (
            (i18n.t("study.around", lang), self.before, self.after, self.change, self.change_pct),
            (i18n.t("study.year_earlier", lang), self.year_earlier_before, self.year_earlier_after,
             self.year_earlier_change, self.year_earlier_change_pct),
        ):
            span = lambda w: i18n.t("study.span", lang, start=w.start, end=w.end)  # noqa: E731
            rows.append({c("comparison"): label, c("before"): span(b), c("mean_before"): b.mean_per_day,
                         c("after"): span(a), c("mean_after"): a.mean_per_day,
                         c("change"): ch, c("change_pct"): pct,
                         c("with_data", unit=i18n.t(f"study.unit_{self.unit}", lang)):
                             f"{b.days_with_data}/{a.days_with_data}"})
        return pd.DataFrame(rows)


def _word(unit: str, n: int, lang: str) -> str:
    """"week"/"weeks" (English, after "whole") or "semana completa"/"semanas completas"."""
    return i18n.t(f"study.{unit}_{'one' if n == 1 else 'many'}", lang)


def _part(key: str, lang: str, fields: dict) -> str:
    f = dict(fields)
    if "unit" in f and "n" in f and key == "study.note_period":
        f["word"] = _word(f.pop("unit"), f["n"], lang)
        f["adj"] = i18n.t(f"study.adj_{fields['unit']}", lang)
        f["how"] = i18n.t("study.how_flow" if f.pop("flow") else "study.how_level", lang)
    if key == "study.note_left_out":
        d = f.pop("date")
        what = (i18n.month(d, lang) if f.pop("unit") == "months" else i18n.t("study.week_of", lang, date=f"{d:%Y-%m-%d}"))
        f["what"] = what[:1].upper() + what[1:]
    return i18n.t(key, lang, **f)


def x_title_in(unit: str, lang: str = "en") -> str:
    """The study chart's x-axis title for windows counted in ``unit`` ("days", "weeks" or "months")."""
    if unit == "days":
        return i18n.t("study.x_days", lang)
    return i18n.t("study.x_periods", lang, unit=i18n.t(f"study.unit_{unit}", lang),
                  word=i18n.t(f"study.{unit}_one_bare", lang))


def _window(daily: pd.Series, start: dt.date, end: dt.date) -> Window:
    part = daily[(daily.index >= pd.Timestamp(start)) & (daily.index <= pd.Timestamp(end))].dropna()
    return Window(start, end, int(len(part)), float(part.mean()) if len(part) else None)


def _change(b: Window, a: Window) -> tuple[float | None, float | None]:
    if b.mean_per_day is None or a.mean_per_day is None:
        return None, None
    ch = a.mean_per_day - b.mean_per_day
    return ch, (ch / b.mean_per_day * 100 if b.mean_per_day else None)


def event_study(df: pd.DataFrame, event_date: dt.date, days: int, *, flow: bool,
                max_carry_days: int = DEFAULT_CARRY_DAYS) -> StudyResult:
    """``days`` before the date (excluding it) against ``days`` from the date on (including it)."""
    if days < 1:
        raise ValueError("the window must be at least one day")
    daily = daily_values(df, flow=flow, max_carry_days=max_carry_days)

    def pair(d: dt.date):
        b = _window(daily, d - dt.timedelta(days=days), d - dt.timedelta(days=1))
        a = _window(daily, d, d + dt.timedelta(days=days - 1))
        return b, a

    b, a = pair(event_date)
    try:
        earlier = event_date.replace(year=event_date.year - 1)
    except ValueError:  # 29 February
        earlier = event_date - dt.timedelta(days=365)
    yb, ya = pair(earlier)
    ch, pct = _change(b, a)
    ych, ypct = _change(yb, ya)
    return StudyResult(event_date, days, b, a, ch, pct, yb, ya, ych, ypct)


def window_series(df: pd.DataFrame, event_date: dt.date, days: int, *, flow: bool,
                  max_carry_days: int = DEFAULT_CARRY_DAYS) -> pd.DataFrame:
    """Daily values around the date and a year earlier, on a shared axis of days from the date (for the chart)."""
    daily = daily_values(df, flow=flow, max_carry_days=max_carry_days)
    out = []
    for label, d in (("around the date", event_date), ("a year earlier", event_date - dt.timedelta(days=365))):
        lo, hi = pd.Timestamp(d - dt.timedelta(days=days)), pd.Timestamp(d + dt.timedelta(days=days - 1))
        part = daily[(daily.index >= lo) & (daily.index <= hi)].dropna()
        out.append(pd.DataFrame({"days_from_date": (part.index - pd.Timestamp(d)).days, "value": part.to_numpy(),
                                 "date": part.index, "window": label}))
    return pd.concat(out, ignore_index=True)


# ---------------------------------------------------------------- whole periods (weekly and monthly series)

PERIOD_DAYS = {"weeks": 7, "months": 30.44}


def period_unit(df: pd.DataFrame) -> str | None:
    """"weeks" or "months" when the rows are whole weeks or months (by the days each covers), else None."""
    if df.empty:
        return None
    span = float(np.median(((df["end"] - df["date"]).dt.days + 1).to_numpy()))
    return "weeks" if 6 <= span <= 8 else "months" if 27 <= span <= 32 else None


def _period_window(rows: pd.DataFrame, flow: bool) -> Window:
    if rows.empty:
        return Window(None, None, 0, None)
    days = ((rows["end"] - rows["date"]).dt.days + 1).to_numpy()
    vals = rows["value"].to_numpy(dtype="float64")
    mean = float(vals.sum() / days.sum()) if flow else float(vals.mean())
    return Window(rows["date"].iloc[0].date(), rows["end"].iloc[-1].date(), int(len(rows)), mean)


def _period_pair(df: pd.DataFrame, d: dt.date, n: int, flow: bool):
    t = pd.Timestamp(d)
    holding = df[(df["date"] <= t) & (df["end"] >= t)]
    if len(holding) and holding["date"].iloc[0] != t:
        cut_lo, cut_hi = holding["date"].iloc[0], holding["end"].iloc[0]  # mixed period: left out
        left_out = holding.iloc[0]
    else:
        cut_lo = cut_hi = t - pd.Timedelta(days=1)
        left_out = None
    before = df[df["end"] < cut_lo].tail(n) if left_out is not None else df[df["end"] < t].tail(n)
    after = df[df["date"] > cut_hi].head(n) if left_out is not None else df[df["date"] >= t].head(n)
    return _period_window(before, flow), _period_window(after, flow), left_out


def study(df: pd.DataFrame, event_date: dt.date, days: int, *, flow: bool,
          max_carry_days: int = DEFAULT_CARRY_DAYS) -> StudyResult:
    """The event study a series allows: whole periods for weekly and monthly series (``days`` turned into the
    nearest whole number of periods, at least one), days otherwise. ``note`` says which, and why."""
    df = df.sort_values("date").reset_index(drop=True)
    unit = period_unit(df)
    if unit is None:
        res = event_study(df, event_date, days, flow=flow, max_carry_days=max_carry_days)
        res.note = (f"{days} days before the date against {days} days from the date on; "
                    + ("period totals are spread evenly over the days they cover." if flow else
                       f"each count stands for up to {max_carry_days} days after it."))
        res.note_parts = (("study.note_days_flow", {"days": days}),) if flow else \
            (("study.note_days_level", {"days": days, "carry": max_carry_days}),)
        return res
    n = max(1, round(days / PERIOD_DAYS[unit]))
    b, a, left_out = _period_pair(df, event_date, n, flow)
    try:
        earlier = event_date.replace(year=event_date.year - 1)
    except ValueError:
        earlier = event_date - dt.timedelta(days=365)
    yb, ya, _ = _period_pair(df, earlier, n, flow)
    ch, pct = _change(b, a)
    ych, ypct = _change(yb, ya)
    word = unit[:-1] if n == 1 else unit
    note = (f"A {unit[:-1]}ly series: {n} whole {word} before against {n} whole {word} after, "
            f"{'mean per day of the totals' if flow else 'mean of the values'}.")
    parts = [("study.note_period", {"n": n, "unit": unit, "flow": flow})]
    if left_out is not None:
        what = f"{left_out['date']:%B %Y}" if unit == "months" else f"the week of {left_out['date']:%Y-%m-%d}"
        note += f" {what[:1].upper() + what[1:]} holds the date and mixes days before and after it, so it is left out."
        parts.append(("study.note_left_out", {"unit": unit, "date": left_out["date"]}))
    return StudyResult(event_date, days, b, a, ch, pct, yb, ya, ych, ypct, unit=unit, periods=n, note=note,
                       note_parts=tuple(parts))


def study_window_series(df: pd.DataFrame, event_date: dt.date, days: int, *, flow: bool,
                        max_carry_days: int = DEFAULT_CARRY_DAYS) -> tuple[pd.DataFrame, str]:
    """The chart's data and its x-axis title: days from the date, or for weekly and monthly series whole
    periods counted from the one holding the date (which is 0), per day for flows."""
    df = df.sort_values("date").reset_index(drop=True)
    unit = period_unit(df)
    if unit is None:
        return (window_series(df, event_date, days, flow=flow, max_carry_days=max_carry_days),
                "days from the date (0 = the date)")
    n = max(1, round(days / PERIOD_DAYS[unit]))
    out = []
    for label, d in (("around the date", event_date), ("a year earlier", event_date - dt.timedelta(days=365))):
        t = pd.Timestamp(d)
        pos = int(np.searchsorted(df["date"].to_numpy(), t.to_datetime64(), side="right")) - 1
        lo, hi = max(0, pos - n), min(len(df), pos + n + 1)
        part = df.iloc[lo:hi]
        per = part["value"].to_numpy(dtype="float64") / (((part["end"] - part["date"]).dt.days + 1).to_numpy() if flow else 1)
        out.append(pd.DataFrame({"days_from_date": np.arange(lo, hi) - pos, "value": per,
                                 "date": part["date"].to_numpy(), "window": label}))
    word = unit[:-1]
    return pd.concat(out, ignore_index=True), f"{unit} from the {word} holding the date (0 = that {word})"
