"""Analysis: plain pandas over the snapshot (views, latest and as-of figures, the release ledger, publication
status, the places join, the event study, coverage, headlines). The snapshot reader (``loaders.data``) and the
freshness rule (``loaders.freshness``) belong to the data side. No Plotly, no Streamlit."""
