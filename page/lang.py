"""The page's language and number separators: chosen at the top of the page, kept in the address bar
(``lang=es``, ``sep=.``) with the rest of the view, and read by every piece that writes words or numbers."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from views.link import lang_from_query, lang_to_query
from wording import i18n

# The switch's own label is in both languages, so a reader who does not read the current one finds it.
SWITCH_LABEL = "Idioma / Language"


def seed() -> None:
    """On a session's first run: the link's language and separators (anything else: English, ",")."""
    ss = st.session_state
    if "w_lang" in ss:
        return
    ss["w_lang"], ss["w_sep"] = lang_from_query(st.query_params.to_dict())


def lang() -> str:
    return st.session_state.get("w_lang", "en")


def sep() -> str:
    return st.session_state.get("w_sep", ",")


def t(key: str, **fields) -> str:
    """A page message in the reader's language."""
    return i18n.t(key, lang(), **fields)


def words(prefix: str, options) -> Callable[[Any], str]:
    """A choice's ``format_func``: each option's words (``prefix.option``) in the language the choice is drawn
    in, looked up once (a function reading the session's language at each call would, in Streamlit's test
    client, format outside the session, in English)."""
    table = {o: t(f"{prefix}.{o}") for o in options}
    return lambda o: table.get(o, str(o))


def plural(key: str, count, **fields) -> str:
    """A counted page message ("1 event", "2 events") in the reader's language."""
    return i18n.plural(key, count, lang(), **fields)


def number(value, decimals: int = 0) -> str:
    return i18n.number(value, lang(), sep(), decimals)


def switch(folded: bool = False) -> None:
    """The language switch (English / Español) and the separators choice; ``folded`` (a phone): in a closed
    expander whose label names the choices made, one line instead of two stacked choices."""
    if folded:
        # One line on a phone: the language and a number written with the separators chosen.
        label = f"{SWITCH_LABEL}: {i18n.LANG_NAMES[lang()]} · {number(75000)}"
        with st.expander(label, expanded=False, key="x_language"):
            _choices()
        return
    _choices()


def _choices() -> None:
    c1, c2 = st.columns(2)
    c1.radio(SWITCH_LABEL, list(i18n.LANGS), key="w_lang", format_func=i18n.LANG_NAMES.get, horizontal=True,
             help=t("page.language_help"))
    # The options' words bound to the language they are drawn in (not read again from the session whenever the
    # label is formatted: Streamlit's test client formats them outside the session, in English).
    words = {s: t("common.separators_comma" if s == "," else "common.separators_point") for s in i18n.SEPARATORS}
    c2.radio(t("common.separators"), list(i18n.SEPARATORS), key="w_sep", horizontal=True, format_func=words.get,
             help=t("page.separators_help"))


def link_params() -> dict[str, str]:
    """The language and separators as a link carries them (nothing for the defaults, English and ",")."""
    return lang_to_query(lang(), sep())


def sync_link() -> dict[str, str]:
    """Write the language and separators into the address bar, whatever room wrote the rest of it (the Places
    room writes its own view, which knows nothing of the language): a copied link opens the page as the reader
    sees it. Return what was written."""
    q = link_params()
    for k in ("lang", "sep"):
        if k in q and st.query_params.get(k) != q[k]:
            st.query_params[k] = q[k]
        elif k not in q and k in st.query_params:
            del st.query_params[k]
    return q
