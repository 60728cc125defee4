"""Figures: Plotly figure building only (trend, totals and study figures, event layers, shaded blackouts,
continuity charts, maps, alt text). A view and its numbers in, a figure out; no Streamlit."""
