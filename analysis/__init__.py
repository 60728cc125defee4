"""Analysis: plain pandas over the snapshot (the snapshot reader, views, latest and as-of figures, the release
ledger, publication status, the places join, the event study, coverage, headlines). No Plotly, no Streamlit."""
