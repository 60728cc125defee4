"""Every source says what its ``release`` dates are (a publication day, an estimate of one, or only a data date),
and the manifest and the researchers' export carry it (issue 39: CBP's release was its data month)."""
import pandas as pd

from loaders import data as cdata
from loaders import registry
from loaders.base import RELEASE_DATED
from tests.conftest import ROOT


def test_every_source_declares_what_its_release_dates_are():
    snap = cdata.load_snapshot(ROOT / "data")
    for src in registry.SOURCES.values():
        assert src.release_dated in RELEASE_DATED, src.id
        assert src.release_rule.strip(), src.id
        rows = snap.obs[snap.obs["series"].str.startswith(src.id + ".")]
        if src.release_dated == "none":
            assert rows["release"].isna().all(), src.id
        assert snap.source_entry(src.id).get("release_dated", src.release_dated) == src.release_dated, src.id


def test_cbp_releases_in_the_snapshot_fall_after_their_data():
    snap = cdata.load_snapshot(ROOT / "data")
    cbp = snap.obs[snap.obs["series"].str.startswith("cbp_encounters.")]
    through = cbp.groupby("file")["end"].max()
    release = cbp.groupby("file")["release"].first()
    # The 15th of the month after each file's last month: never on or before the data's last day.
    assert ((release - through).dt.days == 15).all()
    assert (release > through).all() and (release.dt.day == 15).all()
    assert snap.source_entry("cbp_encounters")["release_dated"] == "estimated"
    assert pd.Timestamp(snap.source_entry("cbp_encounters")["latest_release"]) == release.max()
