"""The outputs: exports (PNG, SVG, HTML, CSV, citation), the static site and its embeds, and the command line
``python -m charts {export,site}``.

The snapshot is read by ``loaders.data``; ``figures`` turns series into Plotly figures that carry their title,
date range, sources and notes inside them; the view layer (``views``) reads a link and composes the two for the
page, the command line and the site alike. Nothing here imports Streamlit (the import contract in pyproject.toml
checks it).
"""
