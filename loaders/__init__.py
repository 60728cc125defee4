"""Loaders: fetch, parse, validate and write the official and reported figures; read the snapshot back
(``data``), judge each source's freshness (``freshness``), keep the snapshot's record of its releases (the release
ledger ``ledger`` and the as-of reading ``asof``) and keep computed values (``memo``) for every layer. Below the
data side is only the wording catalogue (``wording``), which the release ledger prints in English.

``python -m loaders --help`` lists the commands. See docs/methods.md for the flow of a figure.
"""
