"""The page's one cache: values built from the page's read-only inputs, shared by every session and thread.

It is the project's one memo, ``loaders.memo.kept`` (handed to the page by the view layer as ``views.data.kept``),
whose module docstring states the keying rule every layer follows: the page's read-only objects (the snapshot, the
Places join, a data frame such as the events in force) count by identity and the entry holds on to the object
itself, so a later object that happens to get the same ``id`` can never match it; every other argument counts by
value (a dataclass such as a view by its fields), and one that cannot be hashed is refused, loudly, rather than left
out of the key. ``size`` bounds each store (least recently used out first).

Not ``st.cache_resource`` or ``st.cache_data``: ``st.cache_resource`` leaves arguments named with a leading
underscore out of the key (a snapshot passed as ``_snap`` matched whatever snapshot came before), and both need a
script run, which the background worker that builds the other presets of a view (``page.context.prefetch``) does
not have. No value of the page is kept by Streamlit's caches, so there is no second rule to follow.
"""
from __future__ import annotations

from views.data import kept

__all__ = ["kept"]
