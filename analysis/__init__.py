"""Analysis: plain pandas over the snapshot (views, latest figures, publication status and blackouts, the places
join, the event study, coverage, headlines). The snapshot reader (``loaders.data``), the freshness rule and its
status words (``loaders.freshness``), the release ledger (``loaders.ledger``) and the as-of reading
(``loaders.asof``) belong to the data side. No Plotly, no Streamlit."""
