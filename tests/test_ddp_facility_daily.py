import datetime as dt
import io

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from loaders import ddp_facility_daily, pipeline
from loaders.errors import ParseError

SRC = ddp_facility_daily.SOURCE
NAME = "facilities-daily-population-latest.parquet"


def facility_parquet(rows: list[tuple]) -> bytes:
    """A facility-day parquet with DDP's column names and types (int32 counts, date32 dates)."""
    cols = list(zip(*rows))
    table = pa.table({
        "detention_facility_code": pa.array(cols[0], pa.string()),
        "date": pa.array(cols[1], pa.date32()),
        "n_detained": pa.array(cols[2], pa.int32()),
        "n_detained_at_midnight": pa.array(cols[3], pa.int32()),
        "n_detained_male": pa.array(cols[4], pa.int32()),
        "n_detained_female": pa.array(cols[5], pa.int32()),
        "n_detained_convicted_criminal": pa.array(cols[6], pa.int32()),
        "n_detained_possibly_under_18": pa.array(cols[7], pa.int32()),
        "detention_facility": pa.array(cols[8], pa.string()),
    })
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


@pytest.fixture
def facility_days() -> bytes:
    """Three facilities over 2025-01-30 .. 2025-02-02: two share a name, one is empty all January."""
    days = [dt.date(2025, 1, 30) + dt.timedelta(days=i) for i in range(4)]
    rows = []
    for i, d in enumerate(days):
        rows.append(("POLKJFL", d, 10 + i, 8 + i, 9 + i, 1, 3, 0, "POLK COUNTY JAIL"))
        rows.append(("POLKJIA", d, 5, 4, 5, 0, 1, 1, "POLK COUNTY JAIL"))
        jan = d.month == 1
        rows.append(("ADAMSMS", d, 0 if jan else 20, 0 if jan else 18, 0 if jan else 20, 0, 2, 0,
                     "ADAMS COUNTY CORRECTIONAL CENTER"))
    return facility_parquet(rows)


def test_national_sums_and_breakdowns(facility_days):
    parsed = pipeline.parse_file(SRC, facility_days, NAME)
    df = parsed.obs
    mid = df[df.series == "ddp_facility_daily.detained_midnight"].set_index("date")["value"]
    assert mid.to_dict() == {"2025-01-30": 12, "2025-01-31": 13, "2025-02-01": 32, "2025-02-02": 33}
    h24 = df[df.series == "ddp_facility_daily.detained_24h"].set_index("date")["value"]
    assert h24["2025-02-01"] == 12 + 5 + 20
    sex = df[(df.series == "ddp_facility_daily.detained_24h_by_sex") & (df.date == "2025-02-01")].set_index("key")
    assert sex.loc["male", "value"] == 11 + 5 + 20 and sex.loc["female", "value"] == 1
    assert (df["release"] == "2025-02-02").all()


def test_facility_monthly_keys_partial_and_zero_months(facility_days):
    parsed = pipeline.parse_file(SRC, facility_days, NAME)
    fac = parsed.obs[parsed.obs.series == "ddp_facility_daily.facility_midnight_monthly"]
    got = {(r.key, r.date): (r.value, r.end, r.flag) for r in fac.itertuples()}
    # a shared name gets its code appended so the two jails never collide
    assert got[("POLK COUNTY JAIL [POLKJFL]", "2025-01-01")] == (8.5, "2025-01-31", "")
    assert got[("POLK COUNTY JAIL [POLKJIA]", "2025-02-01")] == (4.0, "2025-02-02", "partial")
    assert got[("ADAMS COUNTY CORRECTIONAL CENTER", "2025-02-01")] == (18.0, "2025-02-02", "partial")
    # a month with nobody held at midnight is left out
    assert ("ADAMS COUNTY CORRECTIONAL CENTER", "2025-01-01") not in got
    ref = parsed.tables["facilities"].set_index("code")
    assert ref.loc["ADAMSMS", "first_held"] == "2025-02-01"
    assert ref.loc["POLKJIA", "key"] == "POLK COUNTY JAIL [POLKJIA]"


def test_missing_column_named():
    table = pa.table({"detention_facility_code": ["A"], "date": pa.array([dt.date(2025, 1, 1)], pa.date32())})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    with pytest.raises(ParseError, match="missing column") as e:
        ddp_facility_daily.parse(buf.getvalue(), NAME)
    assert NAME in str(e.value)


def test_not_parquet_named():
    with pytest.raises(ParseError, match="not a readable parquet"):
        ddp_facility_daily.parse(b"<html>oops</html>", NAME)


def test_duplicate_facility_day_rejected():
    d = dt.date(2025, 1, 1)
    body = facility_parquet([("X", d, 1, 1, 1, 0, 0, 0, "X JAIL"), ("X", d, 2, 2, 2, 0, 0, 0, "X JAIL")])
    with pytest.raises(ParseError, match="more than one row"):
        ddp_facility_daily.parse(body, NAME)


@pytest.mark.shared
def test_real_file_matches_published_sums(shared_data):
    path = shared_data / "ddp-facility-daily-population" / NAME
    parsed = pipeline.parse_file(SRC, path.read_bytes(), NAME)
    df = parsed.obs
    mid = df[df.series == "ddp_facility_daily.detained_midnight"].set_index("date")["value"]
    assert len(mid) == 1257 and mid.index.min() == "2022-10-01" and mid.index.max() == "2026-03-10"
    assert mid["2025-01-20"] == 39175 and mid["2025-09-21"] == 59478 and mid["2026-01-25"] == 70456
    assert mid.max() == 71387 and mid.idxmax() == "2026-01-14"
    # the research's independent national sums agree on every day
    ref = pd.read_csv(shared_data / "ddp-facility-daily-population" / "national_daily_detained_derived.csv")
    ref = ref.set_index(ref["date"].astype(str))
    h24 = df[df.series == "ddp_facility_daily.detained_24h"].set_index("date")["value"]
    assert (mid == ref["n_detained_at_midnight"].reindex(mid.index)).all()
    assert (h24 == ref["n_detained"].reindex(h24.index)).all()
    # the monthly facility means average back to the national midnight mean of a full month
    fac = df[(df.series == "ddp_facility_daily.facility_midnight_monthly") & (df.date == "2025-06-01")]
    june = mid[(mid.index >= "2025-06-01") & (mid.index <= "2025-06-30")]
    assert fac["value"].sum() == pytest.approx(june.mean(), abs=1)
    assert len(parsed.tables["facilities"]) == 707
    assert parsed.tables["facilities"]["key"].is_unique
