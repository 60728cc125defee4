"""Integrity checks over every ICE detention-statistics release in a snapshot: findings are flagged, never corrected.

Each check returns findings (series, key, date, release, file, flag, message); the pipeline marks the rows a
finding points at (an empty field matches any) and writes every finding, with its reason in words, to
``quality_flags.csv``, which the page and the exports list.

- ``sum-mismatch``: ICE + CBP != the printed total; criminality rows not adding up to their agency's row.
- ``decreased``: a fiscal-year-to-date removals figure falling between releases of one year.
- ``transposed``: ICE and CBP columns swapped (ICE's 2025-02-27 release).
- ``facility-mismatch``: the facility list's FYTD ADPs far from the national FYTD ADP (2025-07-17).
- ``fy-adp-mismatch``: ICE's printed "FY Overall" average daily population does not follow from its monthly ADPs
  weighted by the days each month covers (the month holding the footnote date counted to that date). ICE's own
  arithmetic agrees to 0.0001 in every release we hold, so a disagreement means the figures or the dates this
  project gave them are wrong.
- ``stale-header``: the file's IIDS header date disagrees with its own data (2025-02-14), or a new release
  repeats the previous one's IIDS date with changed figures, or the IIDS date lies weeks before the release.
- ``stale-release``: the detention tables' own data-through date falls well before the file's date
  (FY21-detentionstats.xlsx, dated 2021-09-27 by its IIDS line, holds tables through 2021-09-11).
- ``listed-twice``: a facility printed more than once on one release's facility list (NASSAU COUNTY
  CORRECTIONAL CENTER in the 2025-07-07 release), every listing kept.
- ``out-of-range``: a value breaking a rule its series declares (``loaders.series_rules``): a fraction above 1
  (the 2026-04-09 bond share printed as 33.4), a count below 0 or not whole, a part above its total, a share
  that is not its parts' ratio.
- ``repeated``: a release whose headcount and fiscal-year removals equal an earlier release's (the same
  FY21 file repeats the 2021-09-16 release's figures).
"""
from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from . import series_rules

ID = "ice_detention_stats"
AGENCIES = {"ice": "ICE", "cbp": "CBP", "total": "ICE+CBP"}
FACILITY_RATIO = (0.94, 1.02)
SWAP_TOLERANCE = 0.01
# ICE prints FY Overall to 5+ decimals from the same unrounded monthly means it prints: 0.05 of a person is
# far above rounding and far below any day-count error (one day in a 31-day month moves it by tens).
ADP_TOLERANCE = 0.05
# Days from the detention tables' data-through date to the file's date: 0-7 in every regular release
# (end-of-year files are dated after September 30; mid-year files a few days after the pull).
STALE_RELEASE_DAYS = 14


def _finding(series, key, date, release, file, flag, message) -> dict:
    return {"series": series, "key": key, "date": date, "release": release, "file": file, "flag": flag, "message": message}


def _sum_checks(obs: pd.DataFrame) -> list[dict]:
    out = []
    idx = ["date", "release", "file"]
    for base in ("detained", "book_ins", "adp"):
        parts = {}
        for a in AGENCIES:
            s = obs[(obs.series == f"{ID}.{base}_{a}") & (obs.key == "")]
            parts[a] = s.set_index(idx)["value"]
        both = pd.concat(parts, axis=1).dropna()
        gap = (both["ice"] + both["cbp"] - both["total"]).abs()
        bad = gap > 0.5 + 1e-4 * both["total"].abs()
        for (d, r, f), row in both[bad].iterrows():
            out.append(_finding(f"{ID}.{base}_total", "", d, r, f, "sum-mismatch",
                                f"{base}: ICE {row.ice:g} + CBP {row.cbp:g} != total {row.total:g}"))
        if base == "book_ins":
            continue
        for a in AGENCIES:
            tot = parts[a]
            crim = obs[obs.series == f"{ID}.{base}_{a}_by_criminality"].groupby(idx)["value"].sum()
            j = pd.concat([tot.rename("total"), crim.rename("parts")], axis=1).dropna()
            bad = (j["parts"] - j["total"]).abs() > 0.5 + 1e-4 * j["total"].abs()
            for (d, r, f), row in j[bad].iterrows():
                out.append(_finding(f"{ID}.{base}_{a}_by_criminality", "", d, r, f, "sum-mismatch",
                                    f"{base} {AGENCIES[a]}: criminality rows sum to {row.parts:g}, total says {row.total:g}"))
    return out


def _decrease_checks(obs: pd.DataFrame) -> list[dict]:
    out = []
    for sid in ("removals_fytd", "removals_famu_fytd", "removals_family_detention_fytd"):
        s = obs[obs.series == f"{ID}.{sid}"].sort_values(["key", "date", "release", "file"])
        for _, g in s.groupby("key"):
            best = None
            for row in g.itertuples():
                if best is not None and row.date > best.date and row.value < best.value:
                    out.append(_finding(row.series, row.key, row.date, row.release, row.file, "decreased",
                                        f"{sid} fell from {best.value:g} (data date {best.date}, release {best.release}) "
                                        f"to {row.value:g}"))
                if best is None or row.value >= best.value:
                    best = row
    return out


def _detained_frame(obs: pd.DataFrame) -> pd.DataFrame:
    """One row per release: ICE, CBP, total detained and the convicted share of each agency."""
    def get(sid: str, key: str = "") -> pd.Series:
        picked = obs[(obs.series == f"{ID}.{sid}") & (obs.key == key)]
        return picked.set_index(["release", "file", "date"])["value"]

    d = pd.concat({"ice": get("detained_ice"), "cbp": get("detained_cbp"),
                   "ice_conv": get("detained_ice_by_criminality", "Convicted criminal"),
                   "cbp_conv": get("detained_cbp_by_criminality", "Convicted criminal")}, axis=1)
    d = d.dropna(subset=["ice", "cbp"]).reset_index().sort_values(["release", "file"]).reset_index(drop=True)
    d["inverted"] = (d["ice_conv"] / d["ice"]) < (d["cbp_conv"] / d["cbp"])
    return d


def _transposition_checks(obs: pd.DataFrame) -> list[dict]:
    """ICE and CBP swapped: consecutive releases whose ICE and CBP counts trade places (within 1%).

    Which of the two is wrong is decided by the criminality mix: people ICE arrests are mostly convicted or
    charged, people CBP hands over mostly are not, so the release whose 'ICE' column has the smaller convicted
    share is the transposed one. A release with that inverted mix is flagged even without a swapping neighbour.
    """
    d = _detained_frame(obs)
    hits: dict[int, str] = {}
    def close(x: float, y: float) -> bool:
        return abs(x - y) <= SWAP_TOLERANCE * max(abs(x), abs(y), 1)

    for i in range(len(d) - 1):
        a, b = d.iloc[i], d.iloc[i + 1]
        if close(a.ice, a.cbp) or not (close(a.ice, b.cbp) and close(a.cbp, b.ice)):
            continue
        pair = f"ICE/CBP detained {a.ice:g}/{a.cbp:g} in release {a.release} and {b.ice:g}/{b.cbp:g} in {b.release}"
        guilty = [j for j, r in ((i, a), (i + 1, b)) if r.inverted is True or r.inverted == np.True_]
        for j in guilty or (i, i + 1):
            hits[j] = pair + (" swap; this release's ICE column has the criminality mix of CBP arrests"
                              if guilty else " swap; one of the two has ICE and CBP transposed")
    for j, r in d.iterrows():
        if bool(r.inverted) and j not in hits:
            hits[j] = (f"ICE column has a smaller convicted share ({r.ice_conv / r.ice:.0%}) than CBP's "
                       f"({r.cbp_conv / r.cbp:.0%}): ICE and CBP look transposed")
    out = []
    for j, msg in sorted(hits.items()):
        r = d.iloc[j]
        for sid in ("detained_ice", "detained_cbp", "detained_ice_by_criminality", "detained_cbp_by_criminality"):
            out.append(_finding(f"{ID}.{sid}", "", r.date, r.release, r.file, "transposed", msg))
    return out


def _facility_checks(obs: pd.DataFrame) -> list[dict]:
    # Facility rows carry the IIDS date, the national figures their tables' footnote dates: join per release.
    idx = ["release", "file"]
    fac_rows = obs[obs.series == f"{ID}.facility_adp_fytd"]
    fac = fac_rows.groupby(idx)["value"].sum()
    fac_date = fac_rows.groupby(idx)["date"].first()
    nat = obs[obs.series == f"{ID}.adp_total_fytd"].groupby(idx)["value"].first()
    det = obs[(obs.series == f"{ID}.detained_total") & (obs.key == "")].groupby(idx)["value"].first()
    j = pd.concat({"fac": fac, "nat": nat, "det": det, "date": fac_date}, axis=1).dropna(subset=["fac", "nat"])
    out = []
    lo, hi = FACILITY_RATIO
    for (r, f), row in j.iterrows():
        ratio = row.fac / row.nat if row.nat else np.inf
        if not lo <= ratio <= hi:
            extra = f"; {row.det:g} detained on the docket date" if pd.notna(row.det) else ""
            out.append(_finding(f"{ID}.facility_adp_fytd", "", row.date, r, f, "facility-mismatch",
                                f"facility FYTD ADPs sum to {row.fac:,.0f}, {ratio:.1%} of the national FYTD ADP "
                                f"{row.nat:,.0f} (expected {lo:.0%}-{hi:.0%}){extra}"))
    return out


def _listed_twice_checks(obs: pd.DataFrame) -> list[dict]:
    # The parser keeps every listing of a facility printed more than once (flag ``listed-twice``, the further
    # listings keyed "<name> (listing 2 of 2)"); say so once per listing, with every listing's figure.
    rows = obs[(obs.series == f"{ID}.facility_adp_fytd") & obs.flag.str.contains("listed-twice", regex=False)]
    out = []
    for (release, file), g in rows.groupby(["release", "file"], sort=True):
        name = g.key.str.replace(r" \(listing \d+ of \d+\)$", "", regex=True)
        for facility, listings in g.groupby(name, sort=True):
            figures = ", ".join(f"{v:,.1f}" for v in listings.value)
            msg = (f"{facility} is listed {len(listings)} times on the release's facility list with different "
                   f"figures (FYTD ADP {figures}); every listing is kept as printed and counted in the facility sum")
            out += [_finding(f"{ID}.facility_adp_fytd", k, d, release, file, "listed-twice", msg)
                    for k, d in zip(listings.key, listings.date)]
    return out


def _per_release(obs: pd.DataFrame, sid: str, key: str | None = "") -> pd.DataFrame:
    s = obs[obs.series == f"{ID}.{sid}"]
    if key is not None:
        s = s[s.key == key]
    return s


def _iids_dates(obs: pd.DataFrame) -> pd.Series:
    """Each release's IIDS (Facilities sheet) date: the date of its facility rows; for frames without facility
    rows (DDP's history in the tests), the headcount's date."""
    fac = obs[obs.series == f"{ID}.facility_adp_fytd"].groupby(["release", "file"])["date"].first()
    det = _per_release(obs, "detained_total").groupby(["release", "file"])["date"].first()
    if det.empty:
        det = _per_release(obs, "detained_ice").groupby(["release", "file"])["date"].first()
    return fac.combine_first(det)


def _adp_overall_checks(obs: pd.DataFrame) -> list[dict]:
    """Recompute each release's FY Overall ADP from its monthly ADPs weighted by the days each covers."""
    out = []
    for a, who in AGENCIES.items():
        m = _per_release(obs, f"adp_{a}")
        fy = _per_release(obs, f"adp_{a}_fytd", None)
        if m.empty or fy.empty:
            continue
        start, end = pd.to_datetime(m.date), pd.to_datetime(m.end)
        w = (end - start).dt.days + 1
        t = pd.DataFrame({"release": m.release, "file": m.file, "w": w, "vw": m.value * w, "v": m.value,
                          "start": m.date, "end": m.end})
        g = t.groupby(["release", "file"])
        rec = g["vw"].sum() / g["w"].sum()
        for r in fy.itertuples():
            k = (r.release, r.file)
            if k not in rec.index:
                continue
            got = float(rec[k])
            if abs(got - r.value) <= ADP_TOLERANCE + 1e-6 * abs(r.value):
                continue
            rows = t[(t.release == r.release) & (t.file == r.file)].sort_values("start")
            last = rows.iloc[-1]
            full_w, full_vw = rows.w.iloc[:-1].sum(), rows.vw.iloc[:-1].sum()
            hint = ""
            if r.value != last.v:
                n = (full_vw - r.value * full_w) / (r.value - last.v)
                if 0.5 <= n <= 31.5:
                    implied = dt.date.fromisoformat(last.start) + dt.timedelta(days=round(n) - 1)
                    hint = (f"; the printed figure fits if the last month ran {round(n)} days, to {implied}, "
                            f"not to {last.end}")
            msg = (f"{who} FY Overall ADP printed {r.value:,.2f}, but the monthly ADPs weighted by the days each "
                   f"month covers (the last month counted {last.start} to {last.end}) give {got:,.2f}{hint}")
            for sid in (f"adp_{a}_fytd", f"adp_{a}"):
                out.append(_finding(f"{ID}.{sid}", "", "", r.release, r.file, "fy-adp-mismatch", msg))
    return out


def _snapshot_frame(obs: pd.DataFrame) -> pd.DataFrame:
    """One row per release: its dates and the figures a repeat would share."""
    idx = ["release", "file"]
    def get(sid: str, col: str = "value", key: str = "") -> pd.Series:
        return _per_release(obs, sid, key).groupby(idx)[col].first()

    rem = obs[obs.series == f"{ID}.removals_fytd"].groupby(idx).agg(removals=("value", "first"),
                                                                   removals_date=("date", "first"), fy=("key", "first"))
    through = pd.concat([get("detained_total", "date"), get("adp_total_fytd", "date"), rem["removals_date"]],
                        axis=1).max(axis=1)
    d = pd.concat({"ice": get("detained_ice"), "cbp": get("detained_cbp"), "total": get("detained_total"),
                   "removals": rem["removals"], "fy": rem["fy"], "through": through}, axis=1)
    return d.dropna(subset=["ice", "cbp", "removals"]).reset_index().sort_values(idx).reset_index(drop=True)


def _stale_release_checks(obs: pd.DataFrame) -> list[dict]:
    """Stale releases: detention tables far older than the file's date (one file's own dates)."""
    out = []
    for r in _snapshot_frame(obs).itertuples():
        if isinstance(r.through, str) and r.through:
            gap = (dt.date.fromisoformat(r.release) - dt.date.fromisoformat(r.through)).days
            if gap > STALE_RELEASE_DAYS:
                out.append(_finding("", "", "", r.release, r.file, "stale-release",
                                    f"the release dated {r.release} holds detention tables that run only to "
                                    f"{r.through}, {gap} days earlier (a regular release is 0-7 days after its data): "
                                    f"its figures are older than its date says"))
    return out


def _repeated_checks(obs: pd.DataFrame) -> list[dict]:
    """Releases repeating an earlier one's figures (headcount and fiscal-year removals)."""
    out = []
    seen: dict[tuple, tuple[str, str]] = {}  # the figures -> the first release (date, file) that printed them
    for r in _snapshot_frame(obs).itertuples():
        sig = (r.fy, r.ice, r.cbp, r.removals)
        prev = seen.get(sig)
        if prev is not None and prev[0] != r.release:
            out.append(_finding("", "", "", r.release, r.file, "repeated",
                                f"its headcount (ICE {r.ice:,.0f}, CBP {r.cbp:,.0f}) and {r.fy} removals "
                                f"({r.removals:,.0f}) are exactly those of the earlier release {prev[0]} "
                                f"({prev[1]}): it repeats that release's figures rather than adding new ones"))
        else:
            seen[sig] = (r.release, r.file)
    return out


def _header_stale_checks(obs: pd.DataFrame) -> list[dict]:
    """One file's own dates: the findings its parser made (footnotes, Header sheet, data past the header date),
    and an IIDS date weeks before the release date."""
    out = []
    for (r, f), g in obs[obs.flag.str.contains("stale-header", regex=False)].groupby(["release", "file"]):
        out.append(_finding("", "", "", r, f, "stale-header",
                            f"{len(g)} rows: the file's header date disagrees with its own data"))
    iids = _iids_dates(obs)
    for r in _detained_frame(obs).itertuples():
        date = iids.get((r.release, r.file), r.date)
        lag = (dt.date.fromisoformat(r.release) - dt.date.fromisoformat(date)).days
        if lag > 21:
            out.append(_finding("", "", "", r.release, r.file, "stale-header",
                                f"IIDS data date {date} is {lag} days before the release date {r.release} "
                                "(usually 5-14)"))
    return out


def _repeated_iids_checks(obs: pd.DataFrame) -> list[dict]:
    """Across releases: a new release that repeats the previous IIDS date while its figures changed."""
    out = []
    d = _detained_frame(obs)
    iids = _iids_dates(obs)
    prev = None
    for r in d.itertuples():
        date = iids.get((r.release, r.file), r.date)
        if prev is not None and date == prev[1] and r.release != prev[0].release and \
                (r.ice, r.cbp) != (prev[0].ice, prev[0].cbp) and (r.ice, r.cbp) != (prev[0].cbp, prev[0].ice):
            out.append(_finding("", "", "", r.release, r.file, "stale-header",
                                f"release {r.release} repeats the IIDS data date {date} of release "
                                f"{prev[0].release} but its figures changed (detained ICE {prev[0].ice:g} -> {r.ice:g})"))
        prev = (r, date)
    return out


FINDING_COLUMNS = ["series", "key", "date", "release", "file", "flag", "message"]
# What the checks across releases read: each release's headcount and its criminality mix, fiscal-year removals,
# the national FYTD ADP and the facility rows' IIDS date. ``check_across`` looks at these series only, so that a
# rebuild can hand it every release's rows without first copying 250,000 of them.
ACROSS_SERIES = tuple(f"{ID}.{s}" for s in (
    "detained_ice", "detained_cbp", "detained_total", "detained_ice_by_criminality", "detained_cbp_by_criminality",
    "removals_fytd", "removals_famu_fytd", "removals_family_detention_fytd", "adp_total_fytd", "facility_adp_fytd"))


def _frame(found: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(found, columns=FINDING_COLUMNS).drop_duplicates().reset_index(drop=True)


def check_file(obs: pd.DataFrame, series=()) -> pd.DataFrame:
    """The checks that read one release's rows at a time (sums, facility list, FY Overall ADP, a listing printed
    twice, the series' declared rules, a file's own dates). Every finding names its release and file, and the
    findings over several files are those over each file on its own, so a rebuild may keep them per file."""
    obs = obs[obs.series.str.startswith(ID + ".")]
    return _frame(_sum_checks(obs) + _facility_checks(obs) + _header_stale_checks(obs) + _adp_overall_checks(obs)
                  + _stale_release_checks(obs) + _listed_twice_checks(obs) + series_rules.check(obs, series))


def check_across(obs: pd.DataFrame) -> pd.DataFrame:
    """The checks that compare releases with each other: a fiscal-year-to-date removals figure falling, ICE and
    CBP swapped between neighbours, a repeated IIDS date, a release repeating an earlier one's figures."""
    obs = obs[obs.series.isin(ACROSS_SERIES)]
    return _frame(_decrease_checks(obs) + _transposition_checks(obs) + _repeated_iids_checks(obs)
                  + _repeated_checks(obs))


def check(obs: pd.DataFrame, series=()) -> pd.DataFrame:
    """Integrity checks over every release: findings are flagged, never corrected. ``series``: the catalogue
    whose declared range and identity rules (``loaders.series_rules``: a fraction in 0-1, a whole count not below
    0, a part not above its total, a share equal to its parts' ratio) are checked too; ``ice_detention_stats``
    passes its own (handed in, so that this module need not import the one that imports it). The checks of
    one file (``check_file``) and those across releases (``check_across``) together."""
    return _frame(check_file(obs, series).to_dict("records") + check_across(obs).to_dict("records"))
