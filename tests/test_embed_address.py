"""The page's embed code uses the deployment's configured public address and refuses this machine's own, with the
same check the static-site builder applies to ``--live-url`` (issue 37: the page offered an embed of the local
address it ran on, which no reader of a page the frame is pasted into can open)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from charts import site
from tests.conftest import ROOT

LOCAL = ["http://localhost:8501/", "http://127.0.0.1:8501/?x=1", "http://[::1]:8501/", "http://0.0.0.0:8501/",
         "http://127.0.1.1/", "http://dash.localhost/"]


@pytest.mark.parametrize("url", LOCAL)
def test_the_builder_and_the_embed_code_refuse_the_same_local_addresses(url):
    assert site.public_url_problem(url) == "loopback"
    with pytest.raises(site.SiteError, match="own address"):
        site.check_live_url(url)
    with pytest.raises(site.SiteError, match="own address"):
        site.live_embeds(url, {"series": "a"})


def test_a_public_address_passes_both_and_junk_is_refused():
    assert site.public_url_problem("https://dash.example.org/") == ""
    assert site.check_live_url("https://dash.example.org") == "https://dash.example.org/"
    for junk in ("dash.example.org", "ftp://dash.example.org/", "https://"):
        assert site.public_url_problem(junk) == "not_http"
        with pytest.raises(site.SiteError):
            site.live_embeds(junk, {})
    assert site.public_url({}) == ("", "unset")
    assert site.public_url({site.PUBLIC_URL_SETTING: " http://localhost:8501/ "}) == ("http://localhost:8501/",
                                                                                        "loopback")
    assert site.public_url({site.PUBLIC_URL_SETTING: "https://dash.example.org/"}) == ("https://dash.example.org/", "")


def _embed_box(monkeypatch, value: str | None, lang: str = ""):
    if value is None:
        monkeypatch.delenv(site.PUBLIC_URL_SETTING, raising=False)
    else:
        monkeypatch.setenv(site.PUBLIC_URL_SETTING, value)
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=90)
    at.query_params["series"] = "ice_detention_stats.detained_total"
    if lang:
        at.query_params["lang"] = lang
    at.session_state["x_exports"] = True
    at.run()
    assert not at.exception, at.exception
    codes = [c.value for c in at.code if c.value.startswith("<iframe")]
    return codes, " ".join(i.value for i in at.info).replace("\\", "")  # the Markdown escapes off


@pytest.mark.slow
def test_without_a_public_address_the_page_says_how_to_set_one_and_prints_no_local_embed(monkeypatch):
    codes, info = _embed_box(monkeypatch, None)
    assert codes == [] and "DASHBOARD_PUBLIC_URL" in info and "public address" in info
    codes, info = _embed_box(monkeypatch, "http://localhost:8501/")
    assert codes == [] and "own address" in info and "localhost:8501" in info
    codes, info = _embed_box(monkeypatch, None, "es")
    assert codes == [] and "DASHBOARD_PUBLIC_URL" in info and "dirección pública" in info
    codes, _ = _embed_box(monkeypatch, "https://dash.example.org/")
    assert len(codes) == 2 and all("https://dash.example.org/?" in c for c in codes)
    assert not any("localhost" in c or "127.0.0.1" in c for c in codes)
