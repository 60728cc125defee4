"""Where the text of an exported SVG sits, read back from the file (issue 26: labels over labels, over event
markers, ticks over the footer's first line).

Kaleido's SVG places text with nested ``translate`` transforms and ``x``/``y`` attributes; a multi-line text is
``<tspan class="line">`` elements each with its own ``dy``. An annotation has a background ``rect`` whose size
Plotly measured in the browser: that rect is its box. Any other text's box is estimated from its position, its
font size and its characters (an average glyph width per kind of character, calibrated on the annotations'
measured rects; a little generous, so an estimate errs towards finding an overlap).
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

NS = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Box:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    font: float
    kind: str  # "text", "annotation", "marker", "point" (a reported figure's marker), "line" (an event line)
    opaque: bool = False  # an annotation drawn on a white ground: a line under it is hidden, not crossed

    def overlaps(self, other: "Box", tol: float = 1.0) -> bool:
        return (min(self.x1, other.x1) - max(self.x0, other.x0) > tol
                and min(self.y1, other.y1) - max(self.y0, other.y0) > tol)


def glyph_em(c: str) -> float:
    """An average advance for the sans fonts Chromium draws the export with (Open Sans, else DejaVu/Arial)."""
    if c in " ":
        return 0.27
    if c in "il.,:;'|!()[]jtfrI1":
        return 0.32
    if c.isdigit():
        return 0.56
    if c.isupper() or c in "mwMW@%":
        return 0.66
    return 0.53


def text_width(text: str, font: float) -> float:
    return sum(glyph_em(c) for c in text) * font


def _translate(el) -> tuple[float, float]:
    t = el.get("transform") or ""
    x = y = 0.0
    for m in re.finditer(r"translate\(\s*([-\d.e]+)(?:[ ,]+([-\d.e]+))?\s*\)", t):
        x += float(m[1])
        y += float(m[2] or 0)
    return x, y


def _font(el) -> float:
    m = re.search(r"font-size:\s*([\d.]+)px", el.get("style") or "")
    return float(m[1]) if m else 12.0


def _num(v, default=0.0) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def _turn(px: float, py: float, cx: float, cy: float, sign: int) -> tuple[float, float]:
    """The point (px, py) turned a quarter about (cx, cy): clockwise for sign 1, anticlockwise for -1."""
    return cx - sign * (py - cy), cy + sign * (px - cx)


def _text_boxes(el, ox, oy, font) -> list[Box]:
    rotated = re.search(r"rotate\(\s*(-?90)[ ,]+([-\d.e]+)[ ,]+([-\d.e]+)", el.get("transform") or "")
    anchor = el.get("text-anchor") or "start"
    lines = [t for t in el.iter(NS + "tspan") if "line" in (t.get("class") or "")] or [el]
    out = []
    for ln in lines:
        text = "".join(ln.itertext()) if ln is not el else "".join(el.itertext())
        text = text.strip("\u200b")
        if not text.strip():
            continue
        x = _num(ln.get("x"), _num(el.get("x")))
        y = _num(ln.get("y"), _num(el.get("y")))
        dy = ln.get("dy") or "0"
        y += float(dy[:-2]) * font if dy.endswith("em") else _num(dy)
        # a line's own size (a subtitle is a <span style="font-size:...">, drawn as a styled tspan in the line)
        sized = [t for t in ln.iter(NS + "tspan") if "font-size" in (t.get("style") or "")] if ln is not el else []
        font_here = _font(sized[0]) if sized else font
        w = text_width(text, font_here)
        x0 = x - (w if anchor == "end" else w / 2 if anchor == "middle" else 0)
        box = (x0, y - 0.8 * font_here, x0 + w, y + 0.22 * font_here)
        if rotated:  # a y-axis title, turned a quarter about the transform's centre: the box turns with it
            cx, cy = float(rotated[2]), float(rotated[3])
            sign = -1 if rotated[1].startswith("-") else 1
            (ax, ay), (bx, by) = _turn(box[0], box[1], cx, cy, sign), _turn(box[2], box[3], cx, cy, sign)
            box = (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
        out.append(Box(text, box[0] + ox, box[1] + oy, box[2] + ox, box[3] + oy, font_here, "text"))
    return out


def layout_boxes(svg: str) -> list[Box]:
    """Every text box in the SVG (annotations by their measured rect) and every event marker (white-filled
    circles: the numbered markers in the strip above the panels)."""
    root = ET.fromstring(svg)
    out: list[Box] = []

    def walk(el, ox, oy):
        dx, dy = _translate(el)
        ox, oy = ox + dx, oy + dy
        cls = el.get("class") or ""
        tag = el.tag.replace(NS, "")
        if tag == "g" and "annotation-text-g" in cls:
            for g in el:
                gx, gy = _translate(g)
                rect = next((r for r in g if r.tag == NS + "rect" and "bg" in (r.get("class") or "")), None)
                text = next((t for t in g.iter(NS + "text")), None)
                if rect is not None and text is not None and "".join(text.itertext()).strip():
                    x0, y0 = ox + gx + _num(rect.get("x")), oy + gy + _num(rect.get("y"))
                    style = rect.get("style") or ""
                    fill = re.search(r"fill-opacity:\s*([\d.]+)", style)
                    opaque = "fill: rgb(255, 255, 255)" in style and fill is not None and float(fill[1]) >= 0.85
                    out.append(Box(" / ".join(t for t in ("".join(s.itertext()) for s in text.iter(NS + "tspan"))
                                              if t) or "".join(text.itertext()),
                                   x0, y0, x0 + _num(rect.get("width")), y0 + _num(rect.get("height")),
                                   _font(text), "annotation", opaque))
            return
        if tag == "text":
            out.extend(_text_boxes(el, ox, oy, _font(el)))
            return
        style = el.get("style") or ""
        if tag == "path" and "point" in cls.split() and "fill: rgb(255, 255, 255)" in style:
            m = re.match(r"M([\d.]+),0A", el.get("d") or "")
            if m:
                r = float(m[1])
                out.append(Box("marker", ox - r, oy - r, ox + r, oy + r, 0, "marker"))
            return
        if tag == "path" and "point" in cls.split() and re.search(r"(^|;)\s*opacity:\s*0\s*(;|$)", style):
            return  # a marker not drawn (one of several on one spot that share the one drawn)
        if tag == "path" and "point" in cls.split() and "stroke: rgb(0, 0, 0)" in style:
            # a reported figure's marker (black: figures.core.REPORTED_STYLE), filled or hollow
            coords = [abs(float(v)) for v in re.findall(r"-?[\d.]+", el.get("d") or "")]
            if coords:
                r = max(coords)
                out.append(Box("reported marker", ox - r, oy - r, ox + r, oy + r, 0, "point"))
            return
        if tag == "path" and "js-line" in cls.split():
            out.extend(Box("event line", ox + x - 0.5, oy + min(y, y2), ox + x + 0.5, oy + max(y, y2), 0, "line")
                       for x, y, y2 in vertical_segments(el.get("d") or ""))
            return
        for child in el:
            walk(child, ox, oy)

    walk(root, 0.0, 0.0)
    return out


def vertical_segments(d: str) -> list[tuple[float, float, float]]:
    """The vertical segments (x, y0, y1) of a path drawn with M and L only: the events' lines over the panels
    (a data line is never vertical: two values of one date are drawn as a break)."""
    out = []
    for part in re.findall(r"M[^M]+", d):
        pts = [(float(a), float(b)) for a, b in re.findall(r"(-?[\d.]+),(-?[\d.]+)", part)]
        out += [(x, y, y2) for (x, y), (x2, y2) in zip(pts, pts[1:]) if abs(x - x2) < 0.5 and abs(y - y2) > 10]
    return out


def collisions(boxes: list[Box]) -> list[tuple[Box, Box]]:
    """Pairs that overlap: text over text, text over an event marker that is not the marker's own number (a
    number drawn inside its own circle is the marker), text over a reported figure's marker, two reported
    figures' markers over each other (one hides the other), and an event line through text that has no white
    ground of its own (issue 38: target labels crossed by event lines)."""
    texts = [b for b in boxes if b.kind in ("text", "annotation")]
    markers = [b for b in boxes if b.kind == "marker"]
    points = [b for b in boxes if b.kind == "point"]
    lines = [b for b in boxes if b.kind == "line"]
    out = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a.overlaps(b):
                out.append((a, b))
        for m in markers:
            cx, cy = (a.x0 + a.x1) / 2, (a.y0 + a.y1) / 2
            own = m.x0 <= cx <= m.x1 and m.y0 <= cy <= m.y1 and a.x1 - a.x0 <= m.x1 - m.x0 + 2
            if not own and a.overlaps(m, tol=2.0):
                out.append((a, m))
        out += [(a, p) for p in points if a.overlaps(p, tol=2.0)]
        if not a.opaque:
            out += [(a, ln) for ln in lines if a.x0 + 1 < ln.x0 < a.x1 - 1 and a.overlaps(ln, tol=0.0)]
    for i, p in enumerate(points):
        # two markers on one spot: one hides the other (a one-day figure is drawn as one marker)
        out += [(p, q) for q in points[i + 1:] if p.overlaps(q, tol=p.x1 - p.x0 - 4)]
    return out


def smallest_font(svg: str) -> float:
    return min(float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", svg))
