"""Loaders: fetch, parse, validate and write the official and reported figures; read the snapshot back
(``data``), judge each source's freshness (``freshness``) and keep computed values (``memo``) for every layer.

``python -m loaders --help`` lists the commands. See docs/methods.md for the flow of a figure.
"""
