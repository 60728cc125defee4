"""The release ledger: every release of every versioned source, what it held, what it changed.

A *release* is one value of the ``release`` column of a source's rows (ICE's workbook date, TRAC's snapshot
date, the month of CBP's file name, DDP's and DHS's publication dates). For each one the ledger gives the
files, how far each table's data run (its own latest ``end``), the key figures as that release printed them,
the change of each key figure against the previous release, the values it revised for earlier periods, and
the quality flags it raised. Everything is read from the snapshot (``loaders.data``), so corrections to a
loader reach the ledger with the next rebuild; nothing here parses a raw file.

"What's new" turns a source's latest release into a few short sentences, each number carried with the
series, period and release it came from (``Fact``), so a test can check every number against the snapshot.

Pure pandas: the command line (``python -m loaders releases``) uses it without plotly.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace

import pandas as pd

from loaders import asof, registry, tidy
from loaders import data as cdata
from wording import i18n

# (label, series, how). how: "latest" = the value of the last period the release covers (a headcount or a
# fiscal-year-to-date total); "complete" = the last period not flagged partial (a whole month).
KEY_FIGURES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "ice_detention_stats": (
        ("people detained", "ice_detention_stats.detained_total", "latest"),
        ("detained, arrested by ICE", "ice_detention_stats.detained_ice", "latest"),
        ("detained, arrested by CBP", "ice_detention_stats.detained_cbp", "latest"),
        ("book-ins after ICE arrests, last complete month", "ice_detention_stats.book_ins_ice", "complete"),
        ("book-ins, all agencies, last complete month", "ice_detention_stats.book_ins_total", "complete"),
        ("removals, fiscal year to date", "ice_detention_stats.removals_fytd", "latest"),
    ),
    "trac_detention": (
        ("people detained", "trac_detention.detained_total", "latest"),
        ("detained, arrested by ICE", "trac_detention.detained_ice", "latest"),
        ("detained, arrested by CBP", "trac_detention.detained_cbp", "latest"),
        ("book-ins after ICE arrests, last complete month", "trac_detention.book_ins_ice", "complete"),
        ("people in Alternatives to Detention", "trac_detention.atd_total", "latest"),
    ),
    "ddp_facility_daily": (
        ("people detained at midnight", "ddp_facility_daily.detained_midnight", "latest"),
        ("people detained during the day", "ddp_facility_daily.detained_24h", "latest"),
    ),
    "cbp_encounters": (
        ("southwest border encounters, last complete month", "cbp_encounters.swb_total", "complete"),
        ("nationwide encounters, last complete month", "cbp_encounters.nationwide_total", "complete"),
        # CBP's newest files hold encounters by state only: their sum over the states the file lists.
        ("encounters summed over the states in CBP's state file, last month", "cbp_encounters.nationwide_by_state",
         "sum"),
    ),
    "ohss_monthly_tables": (
        ("ICE ERO administrative arrests, last month", "ohss_monthly_tables.ero_arrests", "complete"),
        ("book-ins after ICE arrests, last month", "ohss_monthly_tables.book_ins_ice", "complete"),
        ("DHS removals, last month", "ohss_monthly_tables.dhs_removals_total", "complete"),
        ("CBP encounters, last month", "ohss_monthly_tables.cbp_encounters_total", "complete"),
    ),
    "ohss_khsm": (
        ("Border Patrol encounters, last month", "ohss_khsm.usbp_encounters", "complete"),
    ),
}
# Flags that describe how a period was published rather than a problem the release raised.
_NOT_RAISED = {"partial", "partial-coverage"} | set(tidy.INFO_FLAGS)


def versioned_sources(snap: cdata.Snapshot) -> list[str]:
    """Sources whose rows carry release dates, in the registry's order where known."""
    rel = snap.obs.loc[snap.obs["release"].notna(), "series"].str.split(".", n=1).str[0].unique()
    order = list(snap.manifest.get("sources", {}))
    return sorted(set(rel), key=lambda s: (order.index(s) if s in order else len(order), s))


def _source_rows(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    ids = [s for s in snap.by_series if s.split(".", 1)[0] == source]
    if not ids:
        return snap.obs.iloc[0:0]
    return pd.concat([snap.by_series[s] for s in ids], ignore_index=True)


def releases_of(snap: cdata.Snapshot, source: str) -> list[pd.Timestamp]:
    # A snapshot is read-only once loaded: the answer is kept on it (every chart with blackouts asks).
    hit = snap.memo.keep(("releases_of", source), lambda: sorted(
        pd.Timestamp(r) for r in _source_rows(snap, source)["release"].dropna().unique()))
    return list(hit)


def _by_release(snap: cdata.Snapshot, series: str) -> dict:
    """A series' rows split by release, once per snapshot."""
    def build() -> dict:
        df = snap.by_series.get(series)
        return {} if df is None else {pd.Timestamp(k): g for k, g in df.groupby("release", sort=False)}
    return snap.memo.keep(("by_release", series), build)


# ---------------------------------------------------------------- key figures

@dataclass(frozen=True)
class Figure:
    """One key figure as a release printed it."""
    label: str
    series: str
    key: str
    date: pd.Timestamp  # first day the value covers
    end: pd.Timestamp  # last day it covers (a headcount: the day itself)
    value: float
    release: pd.Timestamp
    flag: str = ""


def key_figure(snap: cdata.Snapshot, label: str, series: str, how: str, release: pd.Timestamp) -> Figure | None:
    """The figure as published in ``release`` itself (not the latest view of that period)."""
    return _figures(snap, label, series, how).get(pd.Timestamp(release))


def _figures(snap: cdata.Snapshot, label: str, series: str, how: str) -> dict:
    """The figure of every release of a series at once (vectorised: TRAC has over 160 releases), kept on the
    read-only snapshot."""
    return snap.memo.keep(("figures", label, series, how), lambda: _all_figures(snap, label, series, how))


def _all_figures(snap: cdata.Snapshot, label: str, series: str, how: str) -> dict:
    out: dict = {}
    df = snap.by_series.get(series)
    if df is not None and len(df):
        df = df[df["release"].notna()]
        if how in ("complete", "sum"):
            df = df[~df["flag"].str.contains("partial", regex=False)]
        if how == "sum":  # every breakdown member of the release's last complete period, added up; key "*"
            last = df.groupby("release")["date"].transform("max")
            part = df[df["date"] == last]
            agg = part.groupby("release").agg(date=("date", "first"), end=("end", "max"), value=("value", "sum"))
            for rel, r in agg.iterrows():
                out[rel] = Figure(label, series, "*", r["date"], r["end"], float(r["value"]), rel, "")
        else:
            # Fiscal-year-to-date series are keyed by fiscal year: the release's own (latest) year; others
            # use the series without breakdown ("").
            has_blank = df.assign(b=df["key"] == "").groupby("release")["b"].transform("any")
            top = df.groupby("release")["key"].transform("max")
            chosen = df[(has_blank & (df["key"] == "")) | (~has_blank & (df["key"] == top))]
            picked = chosen.sort_values(["release", "date"], kind="mergesort").drop_duplicates("release", keep="last")
            for r in picked.itertuples(index=False):
                out[r.release] = Figure(label, series, r.key, r.date, r.end, float(r.value), r.release, r.flag)
    return out


def key_figures(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    """Every key figure of every release, with the previous release's figure and the change.

    A change is given only when the two figures are the same kind of thing: the same breakdown member (a
    fiscal-year total is not compared across fiscal years).
    """
    out = []
    prev: dict[str, Figure] = {}
    for rel in releases_of(snap, source):
        for label, series, how in KEY_FIGURES.get(source, ()):
            f = key_figure(snap, label, series, how, rel)
            if f is None:
                continue
            p = prev.get(label)
            out.append(dict(source=source, release=rel.date(), figure=label, series=series, key=f.key,
                            date=f.date.date(), end=f.end.date(), value=f.value, flag=f.flag,
                            previous_release=p.release.date() if p else None,
                            previous_date=p.date.date() if p else None,
                            previous_end=p.end.date() if p else None,
                            previous_value=p.value if p else None,
                            change=(f.value - p.value) if p is not None and p.key == f.key else None))
            prev[label] = f
    return pd.DataFrame(out, columns=["source", "release", "figure", "series", "key", "date", "end", "value",
                                      "flag", "previous_release", "previous_date", "previous_end", "previous_value", "change"])


# ---------------------------------------------------------------- revisions and flags

def revisions(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    """Values a release changed for periods an earlier release had already published (``tidy.revisions``).

    ``completed`` is True where the earlier value was a partial period now filled in: that is the period
    finishing, not a revision of a complete figure.
    """
    rows = _source_rows(snap, source)
    rows = rows[rows["release"].notna()]
    cols = ["series", "key", "date", "previous_release", "previous", "release", "value", "change", "completed"]
    if rows.empty:
        return pd.DataFrame(columns=cols)
    s = rows.assign(date=rows["date"].dt.strftime("%Y-%m-%d"), release=rows["release"].dt.strftime("%Y-%m-%d"))
    rev = tidy.revisions(s[["series", "key", "date", "value", "release"]])
    if rev.empty:
        return pd.DataFrame(columns=cols)
    partial = s[s["flag"].str.contains("partial", regex=False)][["series", "key", "date", "release"]]
    was_partial = rev.merge(partial.rename(columns={"release": "previous_release"}).assign(completed=True),
                            on=["series", "key", "date", "previous_release"], how="left")
    rev = was_partial.assign(completed=was_partial["completed"].eq(True))
    return rev[cols].reset_index(drop=True)


MONTH_REVISION_COLUMNS = ["series", "key", "date", "end", "releases", "low", "high", "first_release", "last_revised",
                          "revisions"]


def revisions_by_month(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    """Every period of a source that a later release revised: how many releases printed it, the lowest and
    highest figure they printed (the revision band, ``loaders.asof.revision_band``), the release that first
    printed it, the last that changed it and how many times it changed. Dates as ``datetime.date``, latest
    periods first. Periods printed while still running, and known-wrong figures, are left out as in the band."""
    rows = _source_rows(snap, source)
    band = asof.band_table(asof.band_rows(rows), ["series", "key", "date"]) if len(rows) else \
        asof.band_table(rows.iloc[0:0], ["series", "key", "date"])
    band = band[band["revisions"] > 0]
    band = band.sort_values(["date", "series", "key"], ascending=[False, True, True], kind="mergesort")
    for c in ("date", "end", "first_release", "last_revised"):
        band[c] = band[c].dt.date
    band = band.assign(releases=band["releases"].astype("int64"), revisions=band["revisions"].astype("int64"))
    return band[MONTH_REVISION_COLUMNS].reset_index(drop=True)


RELEASE_REVISION_COLUMNS = ["release", "values_revised", "series_revised", "periods_revised", "periods_completed"]


def revisions_by_release(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    """For each release of a source: how many figures it changed that an earlier release had printed (in how
    many series, for how many distinct periods), and how many periods it completed (the earlier figure was
    for a period still running: not a revision). Every release appears, with zeros where it revised nothing."""
    rels = [r.date() for r in releases_of(snap, source)]
    rev = revisions(snap, source)
    completed = rev["completed"].astype(bool)
    real, done = rev[~completed], rev[completed]
    out = pd.DataFrame({
        "release": rels,
        "values_revised": [int((real["release"] == r.isoformat()).sum()) for r in rels],
        "series_revised": [real.loc[real["release"] == r.isoformat(), "series"].nunique() for r in rels],
        "periods_revised": [real.loc[real["release"] == r.isoformat(), "date"].nunique() for r in rels],
        "periods_completed": [int((done["release"] == r.isoformat()).sum()) for r in rels],
    })
    return out[RELEASE_REVISION_COLUMNS]


def raised_flags(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    """Quality flags each release raised: the integrity checks' findings (quality_flags.csv) and the flags
    on its rows, without the ones that only say how a period was published (partial, rounded...)."""
    parts = []
    fl = snap.flags
    if len(fl) and "source" in fl:
        f = fl[fl["source"] == source]
        if len(f):
            parts.append(pd.DataFrame({"release": f["release"], "flag": f["flag"], "message": f.get("message", "")}))
    rows = _source_rows(snap, source)
    rows = rows[rows["release"].notna() & (rows["flag"] != "")]
    if len(rows):
        ex = rows.assign(flag=rows["flag"].str.split(";")).explode("flag")
        ex = ex[~ex["flag"].isin(_NOT_RAISED) & (ex["flag"] != "")]
        if len(ex):
            parts.append(pd.DataFrame({"release": ex["release"].dt.strftime("%Y-%m-%d"), "flag": ex["flag"],
                                       "message": ex["series"]}))
    if not parts:
        return pd.DataFrame(columns=["release", "flag", "message"])
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------- the ledger

LEDGER_COLUMNS = ["source", "release", "files", "series", "rows", "data_through", "data_through_by_table",
                  "key_figures", "changed_since_previous", "revisions", "quality_flags", "release_table_dates"]
# Columns of a source's releases table (``data/snapshot/tables/<source>.releases.csv``) that are not dates of the data.
_RELEASE_TABLE_SKIP = {"file", "fiscal_year", "release_date", "release_date_from", "dated_from_contents", "release"}


def _n(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() or abs(v) >= 100 else f"{v:,.1f}"


def tables_through(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    """For each release and series: the last day its data cover in that release (each table's own date)."""
    rows = _source_rows(snap, source)
    rows = rows[rows["release"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=["release", "series", "data_through"])
    g = rows.groupby(["release", "series"], sort=True)["end"].max().reset_index()
    return g.rename(columns={"end": "data_through"})


def figure_key(label: str) -> str:
    """The catalogue key of a key figure's name (``ledger.figure.<key>``): its English label in snake case."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


class _Words:
    """The ledger's cells in a language, from the catalogue (``ledger.*``; the English is what the command
    line prints), with numbers written with the chosen separators."""

    def __init__(self, lang: str, separators: str):
        self.i18n, self.lang, self.sep = i18n, lang, i18n.check_separators(separators, lang)

    def t(self, key: str, **fields) -> str:
        return self.i18n.t("ledger." + key, self.lang, **fields)

    def n(self, v: float, signed: bool = False) -> str:
        text = f"{v:+,.0f}" if signed else _n(v)
        # A bare number (sign, digits and marks): swapped whole ("-7,978" -> "-7.978").
        return text.translate(str.maketrans(",.", ".,")) if self.sep == "." else text

    def figure(self, label: str) -> str:
        key = "figure." + figure_key(label)
        return self.t(key) if self.i18n.has("ledger." + key, self.lang) else label

    def span(self, a, b) -> str:
        return self.t("span_on", date=b.isoformat()) if a == b else self.t("span", start=a.isoformat(), end=b.isoformat())

    def period(self, r) -> str:
        key = {"": "", "*": self.t("summed")}.get(r.key, f", {r.key}")
        return self.span(r.date, r.end) + key

    def key_figures(self, f) -> str:
        return "; ".join(self.t("key_figure", figure=self.figure(r.figure), n=self.n(r.value), period=self.period(r))
                         for r in f)

    def changes(self, f) -> str:
        return "; ".join(self.t("change", figure=self.figure(r.figure), change=self.n(r.change, signed=True),
                                previous=self.n(r.previous_value), span=self.span(r.previous_date, r.previous_end),
                                release=r.previous_release.isoformat())
                         for r in f if pd.notna(r.change))

    def revisions(self, rv: pd.DataFrame) -> str:
        if rv.empty:
            return ""
        real = rv[~rv["completed"]]
        bits = []
        if len(real):
            big = real.loc[real["change"].abs().idxmax()]
            bits.append(self.t("revised_one" if len(real) == 1 else "revised_many", n=len(real),
                               series=real["series"].nunique(),
                               what=big["series"].split(".", 1)[1] + (" " + big["key"] if big["key"] else ""),
                               date=big["date"], before=self.n(big["previous"]), after=self.n(big["value"]),
                               release=big["previous_release"]))
        done = rv[rv["completed"]]
        if len(done):
            bits.append(self.t("completed_one" if len(done) == 1 else "completed_many", n=len(done)))
        return "; ".join(bits)

    def flags(self, counts) -> str:
        return "; ".join(self.t("flag_rows_one" if n == 1 else "flag_rows_many", flag=k, n=n) for k, n in counts)


def ledger(snap: cdata.Snapshot, source: str | None = None, lang: str = "en", separators: str = ",") -> pd.DataFrame:
    """One row per release of each versioned source (or of ``source``), oldest first within a source. In
    ``lang`` other than English the cells' words (figure names, "against", "in the release of", revisions,
    flag rows) are the catalogue's and numbers take ``separators``; codes, series ids, files and ISO dates
    stay as they are. The English is what the command line prints."""
    # The English ledger is the command line's, with its own marks whatever the page's choice (a test holds it).
    words = _Words(lang, separators if lang != "en" else ",")
    sources = [source] if source else versioned_sources(snap)
    out = []
    for src in sources:
        rows = _source_rows(snap, src)
        rows = rows[rows["release"].notna()]
        if rows.empty:
            continue
        figs = key_figures(snap, src)
        revs = revisions(snap, src)
        flags = raised_flags(snap, src)
        through = tables_through(snap, src)
        # Each part split by release once (TRAC has over 160 releases): no filtering inside the loop.
        t_by: dict = {}
        for rel_, day_, sid_ in zip(through["release"], through["data_through"], through["series"]):
            t_by.setdefault(rel_, []).append((day_, sid_))
        f_by: dict = {}
        for rec in figs.to_dict("records"):  # plain records: per-row pandas access cost seconds for TRAC
            f_by.setdefault(rec["release"], []).append(SimpleNamespace(**rec))
        r_by = {k: g for k, g in revs.groupby("release", sort=False)}
        fl_by = {k: g for k, g in flags.groupby("release", sort=False)}
        empty_r = revs.iloc[0:0]
        # The loader's own per-release dates (ICE: data pull, footnote and docket dates, header checks), every
        # column it writes, so new ones reach the ledger without a change here.
        rt = snap.tables.get(f"{src}.releases")
        rt_by: dict = {}
        if rt is not None and "file" in rt:
            cols = [c for c in rt.columns if c not in _RELEASE_TABLE_SKIP]
            for rec in rt.to_dict("records"):
                rt_by[rec["file"]] = "; ".join(f"{c} {rec[c]}" for c in cols if str(rec[c]).strip())
        for rel, g in rows.groupby("release", sort=True):
            d = rel.date()
            by_date: dict = {}
            for day_, sid in t_by.get(rel, ()):
                by_date.setdefault(day_, []).append(sid.split(".", 1)[1])
            by_table = "; ".join(f"{k.date().isoformat()}: {', '.join(v)}" for k, v in sorted(by_date.items(), reverse=True))
            f = f_by.get(d, [])
            rv = r_by.get(d.isoformat(), empty_r)
            fl = fl_by.get(d.isoformat())
            counts = list(fl["flag"].value_counts().sort_index().items()) if fl is not None else []
            out.append(dict(source=src, release=d, files="; ".join(sorted(g["file"].unique())),
                            series=g["series"].nunique(), rows=len(g),
                            data_through=g["end"].max().date(), data_through_by_table=by_table,
                            key_figures=words.key_figures(f), changed_since_previous=words.changes(f),
                            revisions=words.revisions(rv), quality_flags=words.flags(counts),
                            release_table_dates=" | ".join(f"{f}: {rt_by[f]}" for f in sorted(g["file"].unique())
                                                           if rt_by.get(f))))
    return pd.DataFrame(out, columns=LEDGER_COLUMNS)


# ---------------------------------------------------------------- what's new

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def day(d) -> str:
    d = pd.Timestamp(d)
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def month(d) -> str:
    d = pd.Timestamp(d)
    return f"{MONTHS[d.month - 1]} {d.year}"


@dataclass(frozen=True)
class Fact:
    """A number in a sentence and where it comes from. ``kind`` "value": the value of (series, key, date)
    in ``release``; "change": value minus the value of (series, key, other_date) in ``other_release``."""
    number: float
    kind: str
    series: str
    key: str
    date: pd.Timestamp
    release: pd.Timestamp
    other_date: pd.Timestamp | None = None
    other_release: pd.Timestamp | None = None


@dataclass
class Sentence:
    source: str
    release: pd.Timestamp
    text: str
    facts: list[Fact] = field(default_factory=list)


def _release_words(source: str, rel: pd.Timestamp, publisher: str, lang: str = "en",
                   through: pd.Timestamp | None = None) -> str:
    # CBP's release is an estimated publication day and DHS's KHSM one a data month (the sources' release_dated):
    # the file is named by the month its data run to (``through``, the release's latest end).
    if source in ("cbp_encounters", "ohss_khsm"):
        return i18n.t("news.in_file", lang, month=_month(through if through is not None else rel, lang))
    if source == "trac_detention":
        return i18n.t("news.in_table", lang, date=_day(rel, lang))
    return i18n.t("news.in_release", lang, date=_day(rel, lang))


def _day(d, lang: str) -> str:
    return day(d) if lang == "en" else i18n.date(pd.Timestamp(d), lang)


def _month(d, lang: str) -> str:
    return month(d) if lang == "en" else i18n.month(pd.Timestamp(d), lang)


SHORT_NAMES = {"ice_detention_stats": "ICE", "trac_detention": "TRAC", "ddp_facility_daily": "the Deportation Data Project",
               "cbp_encounters": "CBP", "ohss_monthly_tables": "DHS", "ohss_khsm": "DHS",
               "deaths_in_custody": "the list of deaths in ICE custody"}


def _more_fewer(change: float, lang: str = "en") -> str:
    return i18n.t("news.more" if change > 0 else "news.fewer", lang)


# What each key figure counts, in words, for the sentences of other languages (the English is the label).
WHAT_KEYS = {"southwest border encounters": "swb_encounters", "nationwide encounters": "nationwide_encounters",
             "ICE ERO administrative arrests": "ero_arrests", "book-ins after ICE arrests": "book_ins_ice",
             "DHS removals": "dhs_removals", "CBP encounters": "cbp_encounters",
             "Border Patrol encounters": "usbp_encounters"}


def whats_new(snap: cdata.Snapshot, source: str, lang: str = "en") -> list[Sentence]:
    """A few quotable sentences about a source's latest release, every number from the snapshot, in ``lang``
    (the words from the catalogue's ``news.*`` messages; numbers keep the "," thousands mark so that every one
    can be checked against the snapshot)."""
    rels = releases_of(snap, source)
    if not rels:
        return []
    rel = rels[-1]
    who = SHORT_NAMES.get(source, source)
    if lang != "en" and i18n.has(f"news.who.{source}", lang):
        who = i18n.t(f"news.who.{source}", lang)  # with its article where the language wants one ("la CBP")
    rows = _source_rows(snap, source)
    where = _release_words(source, rel, who, lang, through=rows.loc[rows["release"] == rel, "end"].max())
    figs = {label: key_figure(snap, label, series, how, rel) for label, series, how in KEY_FIGURES.get(source, ())}
    # The previous figure: from the latest earlier release that printed it (TRAC's tables date apart).
    prev = {label: next((p for r in reversed(rels[:-1]) if (p := key_figure(snap, label, series, how, r))), None)
            for label, series, how in KEY_FIGURES.get(source, ())}
    news = _News(snap, source, rel, who, where, lang, figs, prev)
    if source in ("ice_detention_stats", "trac_detention"):
        return news.detention()
    if source == "ddp_facility_daily":
        return news.headline("people detained at midnight", "counts_midnight")
    return [s for label, _series, _how in KEY_FIGURES.get(source, ()) if (s := news.monthly(label)) is not None]


def _fact(f: Figure) -> Fact:
    return Fact(f.value, "sum" if f.key == "*" else "value", f.series, f.key, f.date, f.release)


@dataclass(frozen=True)
class _News:
    """The sentences about one source's latest release ``rel``, from its key figures (``figs``) and each one's
    figure in the latest earlier release that printed it (``prev``)."""
    snap: cdata.Snapshot
    source: str
    rel: pd.Timestamp
    who: str  # the publisher as the sentences name it
    where: str  # the release, in words
    lang: str
    figs: dict[str, Figure | None]
    prev: dict[str, Figure | None]

    def t(self, key: str, **fields) -> str:
        return i18n.t("news." + key, self.lang, **fields)

    def headline(self, label: str, key: str) -> list[Sentence]:
        """The key figure ``label`` and how it changed since the previous release ([] when it has none)."""
        f, p = self.figs.get(label), self.prev.get(label)
        if f is None:
            return []
        text = self.t(key, who=f"{self.who[0].upper()}{self.who[1:]}", n=_n(f.value), date=_day(f.end, self.lang))
        facts = [_fact(f)]
        if p is not None and p.key == f.key and p.value != f.value:
            c = f.value - p.value
            text += self.t("than_on", n=_n(abs(c)), more=_more_fewer(c, self.lang), date=_day(p.end, self.lang))
            facts.append(Fact(c, "change", f.series, f.key, f.date, f.release, p.date, p.release))
        elif p is not None and p.value == f.value:
            text += self.t("same_as_on", date=_day(p.end, self.lang))
        return [Sentence(self.source, self.rel, text + f", {self.where}.", facts)]

    def detention(self) -> list[Sentence]:
        """ICE's and TRAC's detention tables: people detained, of them arrested by ICE and CBP, book-ins after
        ICE arrests, removals this fiscal year."""
        head = self.headline("people detained", "held" if self.source == "ice_detention_stats" else "counts_detained")
        return head + (self._of_them() if head else []) + self._book_ins() + self._removals()

    def _of_them(self) -> list[Sentence]:
        i, c = self.figs.get("detained, arrested by ICE"), self.figs.get("detained, arrested by CBP")
        if i is None or c is None:
            return []
        return [Sentence(self.source, self.rel, self.t("of_them", ice=_n(i.value), cbp=_n(c.value)),
                         [_fact(i), _fact(c)])]

    def _book_ins(self) -> list[Sentence]:
        """Last complete month's book-ins, against the month before as this same release prints it."""
        b = self.figs.get("book-ins after ICE arrests, last complete month")
        if b is None:
            return []
        text = self.t("book_ins", month=_month(b.date, self.lang), where=self.where, n=_n(b.value))
        facts = [_fact(b)]
        before = b.date - pd.DateOffset(months=1)
        same = _value_in(self.snap, b.series, b.key, before, self.rel)
        if same is not None and same != b.value:
            d = b.value - same
            text += self.t("than_in", n=_n(abs(d)), more=_more_fewer(d, self.lang), month=_month(before, self.lang))
            facts.append(Fact(d, "change", b.series, b.key, b.date, self.rel, before, self.rel))
        return [Sentence(self.source, self.rel, text + self.t("not_arrests"), facts)]

    def _removals(self) -> list[Sentence]:
        r = self.figs.get("removals, fiscal year to date")
        if r is None:
            return []
        return [Sentence(self.source, self.rel, self.t("removals_fytd", n=_n(r.value), fy=r.key.removeprefix('FY'),
                                                       date=_day(r.end, self.lang)), [_fact(r)])]

    def monthly(self, label: str) -> Sentence | None:
        """A monthly count (a state total when its key is "*"), against the month before in the same release."""
        f = self.figs.get(label)
        if f is None:
            return None
        what = label.split(",")[0]
        if self.lang != "en":
            what = self.t("what." + WHAT_KEYS[what]) if what in WHAT_KEYS else what
        who = self.who if self.lang == "en" else self.who[:1].upper() + self.who[1:]
        month_before = f.date - pd.DateOffset(months=1)
        if f.key == "*":
            text = self.t("counts_states", who=who, n=_n(f.value), month=_month(f.date, self.lang))
            before = _sum_in(self.snap, f.series, month_before, self.rel)
        else:
            text = self.t("counts_what", who=who, n=_n(f.value), what=what, month=_month(f.date, self.lang))
            before = _value_in(self.snap, f.series, f.key, month_before, self.rel)
        facts = [_fact(f)]
        if before is not None and before != f.value:
            d = f.value - before
            text += self.t("than_in", n=_n(abs(d)), more=_more_fewer(d, self.lang), month=_month(month_before, self.lang))
            facts.append(Fact(d, "change", f.series, f.key, f.date, self.rel, month_before, self.rel))
        return Sentence(self.source, self.rel, text + f", {self.where}.", facts)


def _value_in(snap: cdata.Snapshot, series: str, key: str, date: pd.Timestamp, release: pd.Timestamp) -> float | None:
    df = snap.by_series.get(series)
    if df is None:
        return None
    hit = df[(df["key"] == key) & (df["date"] == date) & (df["release"] == release)]
    return float(hit["value"].iloc[-1]) if len(hit) else None


def _sum_in(snap: cdata.Snapshot, series: str, date: pd.Timestamp, release: pd.Timestamp) -> float | None:
    df = snap.by_series.get(series)
    if df is None:
        return None
    hit = df[(df["date"] == date) & (df["release"] == release)]
    return float(hit["value"].sum()) if len(hit) else None


def whats_new_all(snap: cdata.Snapshot, lang: str = "en") -> dict[str, list[Sentence]]:
    return {s: v for s in versioned_sources(snap) if (v := whats_new(snap, s, lang))}


def citation_text(snap: cdata.Snapshot, sources: list[str] | None = None, lang: str = "en") -> str:
    """The what's-new sentences as a block to paste under a citation, each source's latest release named."""
    lines = []
    for src, sents in whats_new_all(snap, lang).items():
        if sources and src not in sources:
            continue
        entry = snap.source_entry(src)
        lines.append(" ".join(s.text for s in sents) + " " + i18n.t("figure.source", lang,
                     publisher=entry.get("publisher", src), title=entry.get("title", src)) + ".")
    return "\n".join(lines)


# ---------------------------------------------------------------- the catalogue and the snapshot

def catalogue_presence(snap: cdata.Snapshot) -> pd.DataFrame:
    """Every catalogue series and whether the snapshot holds any of its rows, in words."""
    rows = []
    # Series the loaders declare but the snapshot holds no rows of are not in its catalogue: listed after it,
    # with where their files would come from.
    declared = pd.DataFrame([{"id": s.id, "title": s.title, "source": s.source} for s in registry.catalogue()
                             if s.id not in snap.catalogue.index]).set_index("id") \
        if any(s.id not in snap.catalogue.index for s in registry.catalogue()) else snap.catalogue.iloc[:0]
    for sid, info in pd.concat([snap.catalogue, declared]).iterrows():
        df = snap.by_series.get(sid)
        if df is None or df.empty:
            state = "no data in this snapshot"
            if str(info.get("source", "")) == "ddp_records":
                state += " (DDP's record-level files are not downloaded; `python -m loaders update ddp_records`)"
            rows.append(dict(id=sid, title=info.get("title", ""), in_snapshot=False, data=state))
        else:
            rows.append(dict(id=sid, title=info.get("title", ""), in_snapshot=True,
                             data=f"{df['date'].min().date()} to {df['end'].max().date()}"))
    return pd.DataFrame(rows, columns=["id", "title", "in_snapshot", "data"])


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
