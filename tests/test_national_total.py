"""Every series says where its national figure is (``loaders.totals``, the catalogue's ``national_total``):
its member with key "", a named member (ICE's Total rows), another series, each member, or none. Checked
against the bundled snapshot's rows as stored (what a researcher reads: fiscal-year-to-date series keyed by
their member alone), so a rule that names a member or a series that is not there fails."""
from types import SimpleNamespace

import pandas as pd
import pytest

from loaders import pipeline, registry, totals
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def snap():
    files = sorted((ROOT / "data/snapshot/observations").glob("*.csv"))
    obs = pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files], ignore_index=True)
    obs["value"] = obs["value"].astype(float)
    return SimpleNamespace(by_series={sid: g for sid, g in obs.groupby("series")})


def test_every_series_without_a_total_row_declares_where_its_national_figure_is(snap):
    declared = {s.id for s in registry.catalogue()}
    for sid, rows in snap.by_series.items():
        rule = totals.national_total(sid)
        keys = sorted(rows["key"].unique())
        if "" in keys:
            assert rule == "", f"{sid} has a total row (key '') and a rule {rule!r}"
            continue
        assert rule.startswith(totals.KINDS), f"{sid}: no total row and no national_total rule"
        if rule.startswith("member:"):
            wanted = totals.total_keys(rule, keys)
            assert wanted and set(wanted) <= set(keys), (sid, rule, sorted(set(wanted) - set(keys))[:3])
        elif rule.startswith("series:"):
            other = rule[len("series:"):]
            assert other in declared and other != sid, (sid, other)
            if other in snap.by_series:  # the series named has a national figure of its own, by its own rule
                assert (snap.by_series[other]["key"] == "").any() or totals.national_total(other).startswith(
                    "member:"), (sid, other)
    assert set(totals.NATIONAL_TOTAL) <= declared


def test_a_member_rule_names_one_member():
    keys = ["Adult", "Total", "Total | Total"]
    assert totals.total_keys("member:Total | Total", keys) == ["Total | Total"]
    assert totals.total_keys("series:x.y", keys) == []


@pytest.mark.parametrize("sid", ["ice_detention_stats.atd_by_technology",
                                 "ice_detention_stats.segregation_placements_by_reason",
                                 "ice_detention_stats.detained_with_fear_decision"])
def test_a_total_member_is_what_the_other_members_add_up_to(snap, sid):
    # The rule's meaning, checked where the members are parts of one whole: ICE's printed Total row equals the
    # sum of the other rows in the latest release. (Not true of every table: book-outs by reason list
    # "Bonded Out" beside the two kinds of bond it is made of, which is why a Total row is declared, not summed.)
    df = snap.by_series[sid]
    last = df[df["release"] == df["release"].max()]
    rule_keys = totals.total_keys(totals.national_total(sid), list(last["key"].unique()))
    total = last[last["key"].isin(rule_keys)].set_index("date")["value"]
    parts = last[~last["key"].isin(rule_keys)].groupby("date")["value"].sum()
    assert len(total) and (parts.reindex(total.index) - total).abs().max() < 0.01


def test_the_catalogue_and_the_snapshot_carry_the_rule(snap):
    frame = pipeline.catalogue_frame()
    assert frame.set_index("id")["national_total"].to_dict() == {
        s.id: totals.national_total(s.id) for s in registry.catalogue()}
    cat = pd.read_csv(ROOT / "data/snapshot/series.csv", dtype=str, keep_default_na=False).set_index("id")
    assert cat["national_total"].to_dict() == {sid: totals.national_total(sid) for sid in cat.index}
