"""Pure figure builders: prepared series in, a Plotly figure out, with everything that matters inside it.

Whatever lives only outside a figure is lost when someone downloads the PNG, so the title, the date range,
the source line (with release and data dates) and the generated-on line are drawn into the figure itself.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

# Okabe-Ito: distinguishable with the common colour-vision deficiencies; no alarm red.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#56B4E9", "#CC79A7", "#D55E00", "#F0E442", "#000000"]
NEUTRAL = "#6b6b6b"


@dataclass
class Line:
    label: str
    x: np.ndarray  # datetime64
    y: np.ndarray  # float
    unit: str = ""
    hover: list[str] | None = None
    flagged: np.ndarray | None = None  # bool mask of points to mark (partial, quality flags)
    flag_notes: list[str] = field(default_factory=list)


def build_trend_figure(lines: list[Line], *, title: str, subtitle: str, sources: list[str],
                       y_title: str = "", log_y: bool = False, notes: list[str] | None = None,
                       generated_on: dt.date | None = None, height: int = 560) -> go.Figure:
    fig = go.Figure()
    for i, ln in enumerate(lines):
        colour = PALETTE[i % len(PALETTE)]
        fig.add_trace(go.Scatter(
            x=ln.x, y=ln.y, name=ln.label, mode="lines+markers" if len(ln.x) < 80 else "lines",
            line=dict(color=colour, width=2), marker=dict(size=5),
            hovertemplate="%{x|%Y-%m-%d}: %{y:,.0f}" + (f" {ln.unit}" if ln.unit else "") + "<extra>" + ln.label[:60] + "</extra>",
        ))
        if ln.flagged is not None and ln.flagged.any():
            fig.add_trace(go.Scatter(
                x=ln.x[ln.flagged], y=ln.y[ln.flagged], mode="markers", showlegend=False,
                name=ln.label + " (flagged)", marker=dict(symbol="circle-open", size=11, color=colour, line=dict(width=2)),
                hovertemplate="%{x|%Y-%m-%d}: %{y:,.0f} (partial or flagged)<extra></extra>",
            ))
    footer = list(sources)
    if notes:
        footer += notes
    footer.append(f"Generated on {(generated_on or dt.date.today()).isoformat()} with the open-source "
                  "immigration-enforcement dashboard.")
    n_footer = len(footer)
    bottom = 70 + 16 * n_footer
    fig.update_layout(
        title=dict(text=f"<b>{_esc(title)}</b><br><span style='font-size:13px;color:{NEUTRAL}'>{_esc(subtitle)}</span>",
                   x=0.01, xanchor="left", y=0.97, yanchor="top"),
        height=height + 16 * n_footer,
        margin=dict(l=60, r=20, t=90, b=bottom),
        template="plotly_white",
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, xanchor="left"),
        yaxis=dict(title=y_title, type="log" if log_y else "linear", rangemode="tozero" if not log_y else None),
        xaxis=dict(title=None),
        hovermode="x unified",
    )
    fig.add_annotation(
        text="<br>".join(_esc(t) for t in footer), xref="paper", yref="paper", x=0, y=0, xanchor="left",
        yanchor="top", yshift=-40, showarrow=False, align="left", font=dict(size=11, color=NEUTRAL),
    )
    return fig


def _esc(text: str) -> str:
    """Plotly renders a small HTML subset in text; data-derived strings must show as plain text."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
