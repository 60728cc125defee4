import datetime as dt
import io
import random
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from loaders import ddp_records, pipeline, registry
from loaders.errors import ParseError

SRC = ddp_records.SOURCE
AORS = ["Miami Area of Responsibility", "Dallas Area of Responsibility", "Seattle Area of Responsibility"]
STATES = ["FLORIDA", "TEXAS", "WASHINGTON", None, ""]
CRIMS = ["1 Convicted Criminal", "2 Pending Criminal Charges", "3 Other Immigration Violator"]
METHODS = ["CAP Local Incarceration", "Located", "Non-Custodial Arrest", "287(g) Program"]
START = dt.date(2025, 1, 20)


def write_parquet(columns: dict, types: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({k: pa.array(v, types.get(k, pa.string())) for k, v in columns.items()}), buf,
                   compression="zstd")
    return buf.getvalue()


@pytest.fixture(scope="module")
def arrests_episodes():
    """(expected episodes, parquet bytes) in the layout of DDP's arrests-latest.parquet.

    Each episode is one real arrest; about one in six has a second row for the same person within 24 hours
    (an "ERO Reprocessed Arrest"), flagged as DDP flags it: duplicate_likely on both rows, duplicate_drop_row
    on the later one. Some rows have no person identifier (never duplicates) or no state.
    """
    rng = random.Random(4)
    episodes, rows = [], []
    for _ in range(3000):
        day = START + dt.timedelta(days=rng.randrange(40))
        when = dt.datetime.combine(day, dt.time(rng.randrange(24), rng.randrange(60)))
        person = None if rng.random() < 0.05 else f"P{rng.randrange(2500):05d}"
        ep = {"date": day, "aor": rng.choice(AORS), "state": rng.choice(STATES), "crim": rng.choice(CRIMS),
              "method": rng.choice(METHODS)}
        episodes.append(ep)
        dup = person is not None and rng.random() < 1 / 6
        rows.append({**ep, "when": when, "person": person, "likely": dup if person else None, "first": True,
                     "drop": False if person else None})
        if dup:
            later = when + dt.timedelta(hours=rng.randrange(1, 24))
            rows.append({**ep, "date": later.date(), "when": later, "method": "ERO Reprocessed Arrest",
                         "person": person, "likely": True, "first": False, "drop": True})
    rng.shuffle(rows)
    cols = {
        "apprehension_aor": [r["aor"] for r in rows],
        "apprehension_criminality": [r["crim"] for r in rows],
        "apprehension_date": [r["date"] for r in rows],
        "apprehension_method": [r["method"] for r in rows],
        "apprehension_state_filled_in": [r["state"] for r in rows],
        "apprehension_state_original": [r["state"] for r in rows],
        "citizenship_country": ["MEXICO"] * len(rows),
        "unique_identifier": [r["person"] for r in rows],
        "apprehension_date_time": [r["when"] for r in rows],
        "apprehension_method_simple": ["Other"] * len(rows),
        "duplicate_likely": [r["likely"] for r in rows],
        "duplicate_episode_first": [r["first"] for r in rows],
        "duplicate_drop_row": [r["drop"] for r in rows],
        "file_original": ["ERO Admin Arrests.xlsx"] * len(rows),
        "row_original": list(range(8, 8 + len(rows))),
    }
    types = {"apprehension_date": pa.date32(), "apprehension_date_time": pa.timestamp("us"),
             "duplicate_likely": pa.bool_(), "duplicate_episode_first": pa.bool_(), "duplicate_drop_row": pa.bool_(),
             "row_original": pa.int32()}
    return episodes, len(rows), write_parquet(cols, types)


def expected(episodes, field=None) -> Counter:
    def member(e):
        v = e[field]
        return v if v not in (None, "") else ddp_records.NOT_RECORDED
    return Counter((e["date"].isoformat(), member(e)) if field else e["date"].isoformat() for e in episodes)


def test_arrest_counts_exact_after_dropping_duplicates(arrests_episodes):
    episodes, n_rows, body = arrests_episodes
    df = ddp_records.aggregate_records(body, "arrests", label="arrests-latest.parquet")
    nat = df[df.series == "ddp_records.arrests_daily"]
    assert dict(zip(nat.date, nat.value)) == expected(episodes)
    assert nat["value"].sum() == 3000 < n_rows
    for b, field in (("aor", "aor"), ("state", "state"), ("criminality", "crim"), ("method", "method")):
        part = df[df.series == f"ddp_records.arrests_daily_by_{b}"]
        assert dict(zip(zip(part.date, part.key), part.value)) == expected(episodes, field), b
    # the reprocessed duplicates never count as arrests
    assert "ERO Reprocessed Arrest" not in set(df.key)
    assert df.attrs["columns_used"]["state"] == "apprehension_state_filled_in"
    assert df.attrs["counts"]["counted"] == 3000


def test_last_day_partial_and_release(arrests_episodes):
    episodes, _, body = arrests_episodes
    df = ddp_records.aggregate_records(body, ddp_records.ARRESTS, label="arrests-latest.parquet")
    last = max(e["date"] for e in episodes).isoformat()
    assert set(df.loc[df.date == last, "flag"]) == {"partial"}
    assert set(df.loc[df.date != last, "flag"]) == {""}
    assert set(df.release) == {last}


def test_path_and_bytes_agree(arrests_episodes, tmp_path):
    _, n_rows, body = arrests_episodes
    path = tmp_path / "arrests-latest.parquet"
    path.write_bytes(body)
    from_path = ddp_records.aggregate_records(path, "arrests")
    from_bytes = ddp_records.aggregate_records(body, "arrests", label="arrests-latest.parquet")
    assert from_path.equals(from_bytes)
    counts = from_path.attrs["counts"]
    assert counts["rows"] == n_rows and counts["undated"] == 0
    assert counts["dropped_duplicates"] == n_rows - 3000


def test_source_parse_validates(arrests_episodes):
    _, _, body = arrests_episodes
    df = pipeline.parse_bytes(SRC, body, "arrests-latest.parquet")
    assert df["series"].str.startswith("ddp_records.arrests_daily").all()
    assert "ddp_records" in registry.SOURCES


def test_removals_keep_one_row_per_person_and_day():
    """Removals carry only duplicate_likely (same person, same departure date): one row of each such group counts."""
    d1, d2 = dt.date(2025, 3, 1), dt.date(2025, 3, 2)
    cols = {
        "departed_date": [d1, d1, d1, d1, d2, d2, None],
        "case_aor": ["Miami", "Miami", "Dallas", None, "Dallas", "Dallas", "Dallas"],
        "apprehension_state": ["FLORIDA"] * 7,
        "case_criminality": CRIMS[:1] * 7,
        "unique_identifier": ["A", "A", "B", None, "C", "D", "E"],
        "duplicate_likely": [True, True, False, None, False, False, False],
    }
    body = write_parquet(cols, {"departed_date": pa.date32(), "duplicate_likely": pa.bool_()})
    df = ddp_records.aggregate_records(body, "removals", label="removals-latest.parquet")
    nat = df[df.series == "ddp_records.removals_daily"].set_index("date")["value"]
    assert nat.to_dict() == {"2025-03-01": 3, "2025-03-02": 2}  # A once, B, the row without an id; undated row out
    aor = df[(df.series == "ddp_records.removals_daily_by_aor") & (df.date == "2025-03-01")].set_index("key")["value"]
    assert aor.to_dict() == {"Miami": 1, "Dallas": 1, ddp_records.NOT_RECORDED: 1}
    assert set(df.flag) <= {"", "partial"}


def test_no_duplicate_fields_flags_every_row():
    cols = {"detainer_prepare_date": [dt.date(2025, 2, 1)] * 3 + [dt.date(2025, 2, 2)],
            "facility_aor": ["Miami"] * 4, "facility_state": ["FLORIDA"] * 4,
            "detainer_prepared_criminality": CRIMS[:1] * 4}
    body = write_parquet(cols, {"detainer_prepare_date": pa.date32()})
    df = ddp_records.aggregate_records(body, "detainers", label="detainers-latest.parquet")
    nat = df[df.series == "ddp_records.detainers_daily"].set_index("date")
    assert nat["value"].to_dict() == {"2025-02-01": 3, "2025-02-02": 1}
    assert nat.loc["2025-02-01", "flag"] == "with-duplicates"
    assert nat.loc["2025-02-02", "flag"] == "partial;with-duplicates"


def test_timestamp_date_column_and_missing_breakdown():
    """An older layout: only apprehension_date_time and apprehension_state; no AOR column -> no AOR series."""
    ts = [dt.datetime(2024, 5, 1, 23, 30), dt.datetime(2024, 5, 2, 0, 10)]
    body = write_parquet({"apprehension_date_time": ts, "apprehension_state": ["TEXAS", "TEXAS"],
                          "duplicate_drop_row": [False, False]},
                         {"apprehension_date_time": pa.timestamp("us"), "duplicate_drop_row": pa.bool_()})
    df = ddp_records.aggregate_records(body, "arrests", label="arrests-old.parquet")
    assert set(df.series) == {"ddp_records.arrests_daily", "ddp_records.arrests_daily_by_state"}
    assert df[df.series == "ddp_records.arrests_daily"]["date"].tolist() == ["2024-05-01", "2024-05-02"]


@pytest.mark.parametrize("name, body, what", [
    ("arrests-latest.parquet", b"not parquet", "not a readable parquet"),
    ("encounters-latest.parquet", b"PAR1", "cannot tell which DDP table"),
])
def test_bad_input_named(name, body, what):
    with pytest.raises(ParseError, match=what) as e:
        ddp_records.parse(body, name)
    assert name in str(e.value)


def test_missing_date_column_named():
    body = write_parquet({"apprehension_aor": ["Miami"]}, {})
    with pytest.raises(ParseError, match="no date column") as e:
        ddp_records.parse(body, "arrests-latest.parquet")
    assert "apprehension_date" in str(e.value)
