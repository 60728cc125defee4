"""Figures for the page and for command-line export.

``charts.data`` reads the processed snapshot; ``charts.figures`` turns series into Plotly figures that carry
their title, date range, sources and notes inside them. Nothing here imports Streamlit.
"""
