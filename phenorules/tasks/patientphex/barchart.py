"""A horizontal bar chart as an SVG file, written with the standard library.

SVG is text: the browser (or GitHub's README view) draws the labels in its own font, and
the same bars give the same bytes. Bars grow right of a zero line for positive values
and left for negative.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

FONT_SIZE = 14
CHAR_WIDTH = 8  # a generous average advance of a 14 px sans-serif character
ROW_HEIGHT = 26
MARGIN = 16
WHITE, BLACK, GREY = "#ffffff", "#282828", "#a0a0a0"
POSITIVE, NEGATIVE = "#4272b0", "#cc5544"


def bar_chart(title: str, bars: list[tuple[str, float]], bar_area: int = 420) -> str:
    """Horizontal bars ``(label, value)`` with the value printed beside each, as SVG."""
    label_width = max([len(label) for label, _ in bars] + [1]) * CHAR_WIDTH + MARGIN
    value_width = 9 * CHAR_WIDTH
    width = MARGIN + label_width + bar_area + value_width
    top = MARGIN + FONT_SIZE + 12
    height = top + ROW_HEIGHT * len(bars) + MARGIN
    positive = max([value for _, value in bars if value > 0] + [0.0])
    negative = max([-value for _, value in bars if value < 0] + [0.0])
    span = (positive + negative) or 1.0
    zero = MARGIN + label_width + round(bar_area * negative / span)
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="sans-serif" font-size="{FONT_SIZE}">',
        f'<rect width="{width}" height="{height}" fill="{WHITE}"/>',
        f'<text x="{MARGIN}" y="{MARGIN + FONT_SIZE}" fill="{BLACK}" font-weight="bold">{escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(bars):
        y = top + i * ROW_HEIGHT
        baseline = y + ROW_HEIGHT // 2 + FONT_SIZE // 3
        length = round(bar_area * abs(value) / span)
        x, colour = (zero, POSITIVE) if value >= 0 else (zero - length, NEGATIVE)
        lines += [
            f'<text x="{MARGIN}" y="{baseline}" fill="{BLACK}">{escape(label)}</text>',
            f'<rect x="{x}" y="{y + 4}" width="{length}" height="{ROW_HEIGHT - 8}" fill="{colour}"/>',
            f'<text x="{MARGIN + label_width + bar_area + CHAR_WIDTH}" y="{baseline}" fill="{BLACK}">{value:+.4f}</text>',
        ]
    lines += [f'<rect x="{zero}" y="{top}" width="1" height="{ROW_HEIGHT * len(bars)}" fill="{GREY}"/>', "</svg>"]
    return "\n".join(lines) + "\n"
