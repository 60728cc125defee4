"""Range and identity rules declared on each series (``Series.bounds``, ``part_of``, ``share_of``), checked on
every row of every release. A row that breaks one gets an ``out-of-range`` finding saying which rule and with
which figures; the row is kept as printed (``tidy.KNOWN_WRONG``: the "latest" view does not let it replace an
earlier release's figure for the same period).

- ``bounds="fraction"``: 0 <= value <= 1 (ICE's bond share, printed as a fraction: 0.03 = 3%).
- ``bounds="count"``: a whole number not below 0 (people, book-ins, removals, hearings, placements).
- ``part_of=<total id>``: the value is not above the total's value for the same key, date, release and file.
- ``share_of="<part id> / <whole id>"``: the value equals part / whole for the same key, date, release and file
  (to ``SHARE_TOLERANCE``: ICE rounds its shares to two decimals or prints them in full).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

# ICE prints shares rounded to 2 decimals (0.03) or unrounded: half a hundredth is rounding, more is not.
SHARE_TOLERANCE = 0.0051
_JOIN = ["key", "date", "release", "file"]


def _finding(r, message: str) -> dict:
    return {"series": r.series, "key": r.key, "date": r.date, "release": r.release, "file": r.file,
            "flag": "out-of-range", "message": message}


def check(obs: pd.DataFrame, series) -> list[dict]:
    """``out-of-range`` findings for the rows of ``obs`` that break a rule of their series (``series``: the
    ``Series`` declarations to check)."""
    out: list[dict] = []
    groups = {sid: g for sid, g in obs.groupby("series", sort=False)}
    for s in series:
        g = groups.get(s.id)
        if g is None or g.empty:
            continue
        out += _bounds_findings(g, s.bounds)
        out += _part_findings(g, s.part_of, groups)
        out += _share_findings(g, s.share_of, groups)
    return out


def _bounds_findings(g: pd.DataFrame, bounds: str) -> list[dict]:
    """Rows of a series outside what it declares: a fraction outside 0-1, a count below 0 or not whole."""
    v = g["value"]
    if bounds == "fraction":
        return [_finding(r, f"{r.value:g} is a fraction outside 0-1 (its series declares a fraction)")
                for r in g[(v < 0) | (v > 1)].itertuples()]
    if bounds == "count":
        bad = (v < 0) | ((v - np.round(v)).abs() > 1e-6)
        return [_finding(r, f"{r.value:g} is not a whole count of at least 0 (its series declares a count)")
                for r in g[bad].itertuples()]
    return []


def _part_findings(g: pd.DataFrame, part_of: str, groups: dict[str, pd.DataFrame]) -> list[dict]:
    """Rows above the total of the series they are part of, for the same date and key."""
    if not (part_of and part_of in groups):
        return []
    tot = groups[part_of][_JOIN + ["value"]].rename(columns={"value": "total"})
    j = g.merge(tot, on=_JOIN, how="inner")
    return [_finding(r, f"{r.value:,.0f} is above its total {r.total:,.0f} ({part_of}, {r.total:,.0f})")
            for r in j[j["value"] > j["total"] + 0.5].itertuples()]


def _share_findings(g: pd.DataFrame, share_of: str, groups: dict[str, pd.DataFrame]) -> list[dict]:
    """Rows of a share that is not its part over its whole ("part / whole" series), where the whole is above 0."""
    if not share_of:
        return []
    part_id, whole_id = (x.strip() for x in share_of.split("/"))
    if part_id not in groups or whole_id not in groups:
        return []
    j = g.merge(groups[part_id][_JOIN + ["value"]].rename(columns={"value": "part"}), on=_JOIN)
    j = j.merge(groups[whole_id][_JOIN + ["value"]].rename(columns={"value": "whole"}), on=_JOIN)
    j = j[j["whole"] > 0]
    ratio = j["part"] / j["whole"]
    bad = (j["value"] - ratio).abs() > SHARE_TOLERANCE + 1e-3 * ratio.abs()
    return [_finding(r, f"{r.value:g} is not the ratio of its parts: {r.part:,.0f} / {r.whole:,.0f} = {q:.4f}")
            for r, q in zip(j[bad].itertuples(), ratio[bad])]
