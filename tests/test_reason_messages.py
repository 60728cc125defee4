"""Why an uploaded events row was refused, in Spanish (charts.reason_messages): the validator's own reasons,
produced by running it on bad rows, are each read and rendered from the catalogue; the English stays as the
validator wrote it (the rejected rows are data)."""
import datetime as dt

import pandas as pd

from loaders import copies
from loaders import events as lev
from wording import i18n
from wording import reason_messages as rm

GOOD = ["", "2025-03-01", "exact", "Event", "policy", "Something.", "Agency", "https://example.org/a"]


def row(**change) -> list[str]:
    r = dict(zip(lev.COLUMNS, GOOD))
    r.update(change)
    return [r[c] for c in lev.COLUMNS]


BAD = [
    row(date="March 1"), row(date="2025-02-30"), row(date="1999-01-01"), row(date="2099-01-01"),
    row(date_precision="roughly"), row(title=""), row(category="gossip"), row(source_name=""),
    row(source_url=""), row(source_url="https://exa mple.org"), row(source_url="ftp://example.org/x"),
    row(source_url="https://"), row(source_url="https://user@example.org/"), row(source_url="https://example.org:99999/"),
    row(id="bad id!"), row(title="=SUM(A1)"), row(title="x" * 5000), row(title="Event\u200bhidden"),
]


def reasons() -> pd.DataFrame:
    lines = [",".join(lev.COLUMNS)]
    for i, r in enumerate(BAD):
        r = list(r)
        if r[1] == "2025-03-01":
            r[1] = f"2025-03-{i + 1:02d}"  # distinct dates: no duplicate among the bad rows
        lines.append(",".join(f'"{v}"' if "," in v else v for v in r))
    lines.append(",".join(row(date="2025-04-01", title="Twice")))
    lines.append(",".join(row(date="2025-04-01", title="Twice")))
    _, rejected = lev.validate_events(("\n".join(lines) + "\n").encode(), "e.csv", today=dt.date(2026, 11, 1))
    return rejected


def test_every_reason_the_validator_gives_is_read_in_spanish():
    rej = reasons()
    assert len(rej) >= len(BAD)  # every bad row refused, and the repeat
    unread = [r for r in rej["reason"] if rm.explain(r, "es").startswith("motivo en inglés")]
    assert unread == [], unread
    for r in rej["reason"]:
        assert rm.explain(r, "en") == r


def test_the_english_templates_are_the_validators_sentences():
    for r in reasons()["reason"]:
        for key, pat in rm.PATTERNS:
            m = pat.match(r)
            if m and key != "invisible":
                assert i18n.t(f"reason.{key}", "en", **{k: v or "" for k, v in m.groupdict().items()}) == r
                break


def test_the_page_table_in_spanish_keeps_the_english_data():
    rej = reasons()
    shown = rm.rejected_in(rej, "es")
    assert list(shown.columns[:3]) == ["fila", "campo", "motivo"]
    assert list(rej.columns[:3]) == ["row", "field", "reason"]  # the validator's frame is not changed
    assert any("no es una fecha ISO (AAAA-MM-DD)" in m for m in shown["motivo"])
    assert any(m.startswith("repite la fila") for m in shown["motivo"])
    assert rm.rejected_in(rej, "en") is rej


def test_an_unknown_reason_is_shown_and_said_to_be_english():
    assert rm.explain("something new", "es") == "motivo en inglés: something new"


def copy_reasons() -> pd.DataFrame:
    """The validator's reasons for the citation columns (loaders.copies.check_copy_fields), from real rows."""
    cols = lev.COLUMNS + list(copies.COPY_COLUMNS)
    host = sorted(copies.COPY_HOSTS)[0]
    bad = [("maybe", "", "", "", ""), ("not found", "", "", "", ""), ("original", "Outlet", "", "March 2", ""),
           ("original", "Outlet", "", "2025-02-30", ""), ("original", "Outlet", "", "2025-01-01", "")]
    lines = [",".join(cols)]
    for i, extra in enumerate(bad):
        lines.append(",".join(row(date=f"2025-03-{i + 1:02d}", title=f"Copy {i}") + list(extra)))
    lines.append(",".join(row(date="2025-03-20", title="On a copying site", source_url=f"https://www.{host}/a")
                          + ["original", "", "", "", ""]))
    same = row(date="2025-03-21", title="Read where it was published")
    lines.append(",".join(same + ["original", "", "", "", same[lev.COLUMNS.index("source_url")]]))
    _, rejected = lev.validate_events(("\n".join(lines) + "\n").encode(), "e.csv", today=dt.date(2026, 11, 1))
    return rejected


def test_the_citation_columns_reasons_are_read_in_spanish():
    rej = copy_reasons()
    assert set(rej["field"]) == {"link_status", "source_url", "original_outlet", "original_date", "read_at"}
    assert len(rej) == 8, rej[["field", "reason"]].to_string()
    spanish = [rm.explain(r, "es") for r in rej["reason"]]
    assert [s for s in spanish if s.startswith("motivo en inglés")] == []
    assert any(s.startswith("'maybe' no es «original» ni «not found»") for s in spanish)
    assert any("'unknown'" in s and "nombrar su medio" in s for s in spanish)
    assert any(s.startswith("debe quedar vacío cuando link_status es «not found»") for s in spanish)
    assert any(s.startswith(f"nunca se muestra como fuente (www.{sorted(copies.COPY_HOSTS)[0]}: ") for s in spanish)
    assert any(s.startswith("la misma dirección que la fuente") for s in spanish)
    assert any(s == "2025-01-01 es anterior al 2025-03-05, el comienzo de lo que informa" for s in spanish)
