"""The page's pieces, laid out by ``dashboard.py``: each takes the page's data (``context.Page``) and the view,
draws one part, and returns what it drew or chose. Computation lives in the layers below: the page imports only
the view layer (``views``), the outputs (``charts``) and the wording (docs/contributing.md, "The layers"; an import
contract forbids the rest). A piece here only reads widgets, calls those, and writes to the page. Its words come
from the wording catalogue (locales/, ``wording.i18n``), in every language the page offers.
"""
