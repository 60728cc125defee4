"""The outputs: exports (PNG, SVG, HTML, CSV, citation), the static site and its embeds, and the command line
``python -m charts {export,site}``.

The snapshot is read by ``analysis``; ``figures`` turns series into Plotly figures that carry their title,
date range, sources and notes inside them; ``compose`` puts the two together for the page and the command line
alike. Nothing here imports Streamlit (the import contract in pyproject.toml checks it).
"""
