"""Reported figures drawn by what they are (issue 26): counts and estimates in their own measure's panel,
bounds with their direction, targets as labelled reference lines, never as data points, and "unverified"
visible without hovering, on the chart and in the CSV."""
from __future__ import annotations

import datetime as dt

import pytest

from analysis.view import View
from charts import export
from loaders import reported_figures
from tests import bundled
from views.compose import render

SNAP = bundled.snapshot()
HEADER = ",".join(reported_figures.COLUMNS + reported_figures.KIND_COLUMNS) + "\n"
ROWS = [
    "2025-03-01,2025-03-31,ice_arrests_per_day,911,arrests/day,Paper A,https://e.org/a,primary news,a count,count,",
    "2025-04-01,2025-04-30,ice_arrests_per_day,622,arrests/day (upper bound: fewer than),Paper B,https://e.org/b,"
    "primary news,fewer than 622,bound,upper",
    "2025-05-01,2025-05-31,ice_arrests_per_day,1433,arrests/day (lower bound: more than),Paper C,https://e.org/c,"
    "primary news,more than 1433,bound,lower",
    "2025-05-21,2025-05-21,target_per_day,3111,arrests/day (target),Officials (reported by Outlet D),"
    "https://e.org/d,primary news,a goal,target,",
    "2025-03-01,2025-03-31,ice_book_ins_per_day,777,book-ins/day,Paper E,https://e.org/e,primary news,book-ins,count,",
    "2025-06-01,2025-06-30,ice_arrests_per_day,888,arrests/day,Outlet F,,unverified,original not found,count,",
]
ARRESTS = list(View().series)  # the default view: arrests per day
BOOK_INS = "ice_detention_stats.book_ins_ice"


def made(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text(HEADER + "\n".join(ROWS) + "\n")
    return reported_figures.load_reported(p)


def draw(reported, series, lang="en"):
    v = View(series=series, preset="since-2025-01-20", lang=lang, sep="." if lang == "es" else ",")
    return render(SNAP, v, events=None, reported=reported, generated_on=dt.date(2026, 12, 1))


def reported_traces(r):
    return [t for t in r.figure.data if (t.legendgroup or "").startswith("reported")]


def footer(r) -> str:
    return " ".join((a.text or "").replace("<br>", " ") for a in r.figure.layout.annotations)  # as read, unwrapped


def point_labels(r) -> list[str]:
    """The labels drawn beside reported figures and targets (figures.core.reported_labels), one per spot."""
    return [a.text for a in r.figure.layout.annotations if a.name == "point-label"]


def points(t):
    """(y, hover) of every drawn point of a trace that draws markers."""
    hover = t.text if t.hovertext is None else t.hovertext
    return [(y, h) for y, h in zip(t.y, hover) if y is not None]


def test_made_view_draws_each_kind_in_its_own_style(tmp_path):
    r = draw(made(tmp_path), ARRESTS)
    by_name = {t.name: t for t in reported_traces(r)}
    assert set(by_name) == {"Reported counts and estimates (not official series)",
                            "Reported bounds (▼ fewer than, ▲ more than)", "Targets and quotas (goals, not counts)"}
    counts, bounds = by_name["Reported counts and estimates (not official series)"], \
        by_name["Reported bounds (▼ fewer than, ▲ more than)"]
    target = by_name["Targets and quotas (goals, not counts)"]
    # no target is a data point: no marker trace holds it, and the target line has no markers at all
    for t in (counts, bounds):
        assert 3111 not in {y for y, _ in points(t)} and "markers" in t.mode
    assert "markers" not in target.mode and target.line.dash == "dot" and {y for y, _ in points(target)} == {3111}
    labels = point_labels(r)
    assert "Target 3,111 a day (Officials)" in labels and not target.text
    assert str(target.x[-2]) == r.hi.isoformat()  # drawn to the end of the view: a goal has no end date
    # bounds carry their direction: the marker points the way, the hover says it
    sym = dict(zip([y for y in bounds.y], bounds.marker.symbol))
    assert sym[622] == "triangle-down" and sym[1433] == "triangle-up"
    hover = dict(points(bounds))
    assert hover[622].startswith("Fewer than: 622") and hover[1433].startswith("More than: 1,433")
    assert {y for y, _ in points(counts)} == {911, 888}
    # the book-in figure is not in the arrests panel, and the footer says one was left off
    assert all(777 not in [y for y in t.y] for t in reported_traces(r))
    assert "1 reported figure of book-ins left off" in footer(r)
    # unverified is seen without hovering: a hollow marker, named in the footer
    csym = dict(zip(counts.y, counts.marker.symbol))
    assert csym[888] == "diamond-open" and csym[911] == "diamond"
    assert "Hollow markers: unverified" in footer(r) and "888" in footer(r).split("Hollow markers")[1]
    assert "grey dotted lines, targets (not counts)" in footer(r) and "triangles, bounds (▼ fewer than" in footer(r)


def test_targets_count_in_the_axis_range_only_where_drawn(tmp_path):
    rep = made(tmp_path)
    r = draw(rep, [BOOK_INS])
    # a book-ins panel: the book-in figure is drawn there, the arrest target and arrest figures are not
    drawn = {y for t in reported_traces(r) for y, _ in points(t)}
    assert drawn == {777}
    assert max(r.figure.layout.yaxis.range) < 3111
    assert "5 reported figures of arrests left off" in footer(r)


def test_a_book_in_figure_goes_to_the_book_ins_panel_when_one_is_drawn(tmp_path):
    r = draw(made(tmp_path), ARRESTS[:1] + [BOOK_INS])
    axis = {y: t.yaxis for t in reported_traces(r) for y, _ in points(t)}
    assert axis[777] != axis[911] and axis[3111] == axis[911]
    assert "left off" not in footer(r)


def test_exported_csv_notes_carry_kind_and_unverified(tmp_path):
    r = draw(made(tmp_path), ARRESTS)
    tab = export.export_table(r)
    note = tab[tab["kind"] == "reported"].set_index("value")["note"]
    assert note[622] == "bound: fewer than; primary news; fewer than 622"
    assert note[1433].startswith("bound: more than")
    assert note[3111].startswith("target;") and note[911].startswith("count;")
    assert note[888] == "count; unverified; original not found"
    assert tab[tab["kind"] == "series"]["note"].eq("").all()


def test_spanish_labels_for_every_kind(tmp_path):
    r = draw(made(tmp_path), ARRESTS, lang="es")
    names = {t.name for t in reported_traces(r)}
    assert "Metas y cuotas (objetivos, no recuentos)" in names and "Límites declarados (▼ menos de, ▲ más de)" in names
    target = next(t for t in reported_traces(r) if t.name.startswith("Metas"))
    assert "Meta de 3.111 al día (Officials)" in point_labels(r) and not target.text
    assert "ingresos en detención" in footer(r) and "Marcadores vacíos" in footer(r)


@pytest.mark.parametrize("series", [ARRESTS, ARRESTS[:1] + [BOOK_INS]])
def test_bundled_arrests_panel_since_inauguration(series):
    """The real case: the arrests-per-day panel since 2025-01-20 with the bundled reported figures."""
    r = draw(SNAP.reported, series)
    rep = SNAP.reported
    targets = set(rep[rep.kind == "target"]["value"])
    arrests_axis = "y"
    for t in reported_traces(r):
        for _, h in points(t):
            if "markers" in (t.mode or ""):
                assert not h.startswith("Target"), h  # no target drawn as a data point
            if t.yaxis == arrests_axis:
                assert "book-ins" not in h, h  # no book-in figure in the arrests panel
    target = next(t for t in reported_traces(r) if t.name.startswith("Targets"))
    assert {y for y, _ in points(target)} == targets and target.yaxis == arrests_axis
    assert any(x.startswith("Target ") for x in point_labels(r))
    bounds = next(t for t in reported_traces(r) if t.name.startswith("Reported bounds"))
    assert "triangle-down" in bounds.marker.symbol  # the Post's "fewer than 600 a day"
    if len(series) == 1:
        assert "of book-ins left off" in footer(r)


def test_each_reported_figure_is_labelled_with_its_value_and_who_reported_it(tmp_path):
    """Issue 38: the markers carried no label in an image. Each figure now says its value and its reporter,
    a bound its side, an unverified one that it is."""
    labels = point_labels(draw(made(tmp_path), ARRESTS))
    for text in ("911 (Paper A)", "fewer than 622 (Paper B)", "more than 1,433 (Paper C)", "888 (Outlet F; unverified)",
                 "Target 3,111 a day (Officials)"):
        assert text in labels, labels
    assert not any("777" in x for x in labels)  # the book-in figure is not drawn here, nor labelled


SPOT_ROWS = [  # two figures over one period and an unverified one a day shorter: their markers meet at its end
    "2025-03-01,2025-03-31,ice_arrests_per_day,800,arrests/day (approximate),Paper A,https://e.org/a,primary news,x,"
    "estimate,",
    "2025-03-05,2025-03-31,ice_arrests_per_day,800,arrests/day,Paper B,https://e.org/b,primary news,x,count,",
    "2025-03-06,2025-03-31,ice_arrests_per_day,787,arrests/day,Outlet C,,unverified,x,count,",
] + [f"2025-04-{d:02d},2025-04-{d:02d},ice_arrests,{v},arrests,Agency (daily post),https://e.org/p{d},primary news,x,"
     "count," for d, v in ((1, 500), (2, 900), (3, 700))]


def test_figures_on_one_spot_share_a_label_and_daily_posts_one_label(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text(HEADER + "\n".join(SPOT_ROWS) + "\n")
    r = draw(reported_figures.load_reported(p), ARRESTS)
    labels = point_labels(r)
    shared = [x for x in labels if "787" in x]
    # one label, a line each, for the three figures whose end markers meet (the hollow 787 under two 800s)
    assert len(shared) == 1, labels
    assert sorted(shared[0].split("<br>")) == ["787 (Outlet C; unverified)", "800 (Paper B)", "800, estimate (Paper A)"]
    assert "500–900, 3 daily counts (Agency)" in labels  # three days of posts: one label with their range
    assert "share a label, a line each" in footer(r)
    # a one-day figure is one marker, not two on one spot
    counts = next(t for t in reported_traces(r) if t.name.startswith("Reported counts"))
    xs = [str(x) for x in counts.x if x is not None]
    assert xs.count("2025-04-02") == 1
