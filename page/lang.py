"""The page's language and number separators: chosen at the top of the page, kept in the address bar
(``lang=es``, ``sep=.``) with the rest of the view, and read by every piece that writes words or numbers."""
from __future__ import annotations

import streamlit as st

from wording import i18n

# The switch's own label is in both languages, so a reader who does not read the current one finds it.
SWITCH_LABEL = "Idioma / Language"


def seed() -> None:
    """On a session's first run: the link's language and separators (anything else: English, ",")."""
    ss = st.session_state
    if "w_lang" in ss:
        return
    q = st.query_params
    ss["w_lang"] = q.get("lang") if q.get("lang") in i18n.LANGS else "en"
    ss["w_sep"] = q.get("sep") if q.get("sep") in i18n.SEPARATORS else i18n.DEFAULT_SEPARATORS[ss["w_lang"]]


def lang() -> str:
    return st.session_state.get("w_lang", "en")


def sep() -> str:
    return st.session_state.get("w_sep", ",")


def t(key: str, **fields) -> str:
    """A page message in the reader's language."""
    return i18n.t(key, lang(), **fields)


def plural(key: str, count, **fields) -> str:
    """A counted page message ("1 event", "2 events") in the reader's language."""
    return i18n.plural(key, count, lang(), **fields)


def number(value, decimals: int = 0) -> str:
    return i18n.number(value, lang(), sep(), decimals)


def switch() -> None:
    """The language switch (English / Español) and the separators choice."""
    c1, c2 = st.columns(2)
    c1.radio(SWITCH_LABEL, list(i18n.LANGS), key="w_lang", format_func=i18n.LANG_NAMES.get, horizontal=True,
             help=t("page.language_help"))
    c2.radio(t("common.separators"), list(i18n.SEPARATORS), key="w_sep", horizontal=True,
             format_func=lambda s: t("common.separators_comma" if s == "," else "common.separators_point"),
             help=t("page.separators_help"))
