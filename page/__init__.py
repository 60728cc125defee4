"""The page's pieces, laid out by ``dashboard.py``: each takes the page's data (``context.Page``) and the view,
draws one part, and returns what it drew or chose. Computation lives in the layers below (``charts``,
``figures``, ``analysis``, ``loaders``: docs/contributing.md, "The layers"); a piece
here only reads widgets, calls those, and writes to the page. User-facing text stays as plain literals in
these modules, one sentence in one place.
"""
