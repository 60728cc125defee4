"""loaders.memo, the project's one memo: by value, or by the identity of an object the entry holds, bounded.

Issue 41 found four ways of keeping values (the page's store, a dict poked on the snapshot, with ``hasattr``
checks where a caller might pass something else, a dict on each render, and ``lru_cache``s); they are now one
module. These tests build their own small snapshots: two snapshots with the same series and different figures
must each get their own answers, whether the value is kept in a shared store or on the snapshot itself.
"""
import dataclasses
import gc
import weakref

import pandas as pd
import pytest

from analysis import deaths as DV
from analysis.view import View, chosen_rows, prepare
from loaders import data as cdata
from loaders import memo
from views.compose import render

SID = "src.arrests"


def snapshot(values: list[float]) -> cdata.Snapshot:
    """A one-series snapshot: monthly figures from January 2025, one release."""
    dates = pd.date_range("2025-01-01", periods=len(values), freq="MS")
    obs = pd.DataFrame({"source": "src", "series": SID, "key": "", "date": dates,
                        "end": dates + pd.offsets.MonthEnd(0), "value": [float(v) for v in values], "flag": "",
                        "file": "f.csv", "release": pd.Timestamp("2025-12-01")})
    cat = pd.DataFrame([{"id": SID, "title": "Arrests", "unit": "arrests", "definition": "d", "source": "src",
                         "measure": "flow", "frequency": "monthly"}]).set_index("id")
    return cdata.Snapshot(obs, cat, {"sources": {"src": {"publisher": "P"}}}, pd.DataFrame(), {}, {SID: obs})


def test_a_store_keyed_by_held_identity_never_serves_another_object_s_entry():
    """The entry holds the object its key names by id: while it lives, that id cannot be given to another
    object, and a key that names an equal id with another object held is a miss, never a stale hit."""
    calls = []

    @memo.kept(4)
    def total(snap):
        calls.append(snap)
        return float(snap.obs["value"].sum())

    one = snapshot([1, 2, 3])
    assert total(one) == 6.0 and total(one) == 6.0 and len(calls) == 1
    gone = weakref.ref(one)
    del one
    gc.collect()
    assert gone() is not None  # held by the entry: its id stays taken
    two = snapshot([10, 20, 30])  # replaces it, same shape and series
    assert total(two) == 60.0 and len(calls) == 2

    store = memo.Store(4)
    a, b = snapshot([1]), snapshot([1])
    key, held = memo.key_of((a,), {})
    store.put(key, held, "a's")
    assert store.get(key, (a,)) == "a's"
    assert store.get(key, (b,)) is memo.MISSING  # same key (as if b had got a's id): not a's value


def test_each_snapshot_keeps_its_own_values_and_a_replaced_copy_starts_empty():
    one, two = snapshot([1, 2, 3]), snapshot([7, 8, 9])
    assert list(chosen_rows(one, SID)["value"]) == [1, 2, 3]
    assert list(chosen_rows(two, SID)["value"]) == [7, 8, 9]
    view = View(series=[SID], preset="all")
    a, b = render(one, view), render(two, view)
    days = (31, 28, 31)  # the view shows flows per day: back to monthly totals
    assert [round(v * d) for v, d in zip(a.table["value"], days)] == [1, 2, 3]
    assert [round(v * d) for v, d in zip(b.table["value"], days)] == [7, 8, 9]
    # The memo is not an argument of the dataclass: a copy with other rows does not inherit the first's values.
    obs = two.obs
    three = dataclasses.replace(one, obs=obs, by_series={SID: obs})
    assert three.memo is not one.memo and len(three.memo) == 0
    assert list(chosen_rows(three, SID)["value"]) == [7, 8, 9]
    assert prepare(three, view)[0][0].frame["value"].tolist() == prepare(two, view)[0][0].frame["value"].tolist()


def test_a_memo_is_bounded_least_recently_used_out_first_and_builds_once_per_key():
    m = memo.Memo(3)
    built = []
    for k in ("a", "b", "c"):
        m.keep(k, lambda k=k: built.append(k) or k.upper())
    assert m.keep("a", lambda: "other") == "A"  # kept: not built again, and now the most recent
    m.keep("d", lambda: "D")
    assert "b" not in m and {"a", "c", "d"} == {k for k, _ in m.items()} and len(m) == 3
    assert built == ["a", "b", "c"]
    # A falsy value ({} or an empty list) is a kept value like any other.
    empty = m.keep("e", dict)
    assert m.keep("e", lambda: {"not": "kept"}) is empty


def test_an_argument_that_cannot_be_hashed_is_refused_not_left_out_of_the_key():
    @memo.kept()
    def first(frame, cols):
        return frame[list(cols)].iloc[0].tolist()

    df = pd.DataFrame({"x": [1], "y": [2]})
    assert first(df, ("x",)) == [1] and first(df, ("y",)) == [2]
    with pytest.raises(TypeError, match="argument 1 \\(list\\)"):
        first(df, ["x"])


def test_the_deaths_records_are_kept_on_the_snapshot_they_came_from():
    one, two = snapshot([1]), snapshot([2])
    assert DV.records(one) is DV.records(one)
    assert DV.records(two) is not DV.records(one)

