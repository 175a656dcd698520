"""A dependency-free PNG bar chart: pixels in Python, compressed with zlib (PNG, RFC 2083).

Labels are drawn with a 5x7 bitmap font (upper case, digits and a little punctuation),
doubled in size; bars grow right of a zero line for positive values and left for negative.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

# 5x7 glyphs, each row five pixels ('#' ink), rows joined by '/'.
_GLYPHS = {
    "A": ".###./#...#/#...#/#####/#...#/#...#/#...#", "B": "####./#...#/#...#/####./#...#/#...#/####.",
    "C": ".###./#...#/#..../#..../#..../#...#/.###.", "D": "####./#...#/#...#/#...#/#...#/#...#/####.",
    "E": "#####/#..../#..../####./#..../#..../#####", "F": "#####/#..../#..../####./#..../#..../#....",
    "G": ".###./#...#/#..../#.###/#...#/#...#/.####", "H": "#...#/#...#/#...#/#####/#...#/#...#/#...#",
    "I": ".###./..#../..#../..#../..#../..#../.###.", "J": "..###/...#./...#./...#./...#./#..#./.##..",
    "K": "#...#/#..#./#.#../##.../#.#../#..#./#...#", "L": "#..../#..../#..../#..../#..../#..../#####",
    "M": "#...#/##.##/#.#.#/#.#.#/#...#/#...#/#...#", "N": "#...#/#...#/##..#/#.#.#/#..##/#...#/#...#",
    "O": ".###./#...#/#...#/#...#/#...#/#...#/.###.", "P": "####./#...#/#...#/####./#..../#..../#....",
    "Q": ".###./#...#/#...#/#...#/#.#.#/#..#./.##.#", "R": "####./#...#/#...#/####./#.#../#..#./#...#",
    "S": ".####/#..../#..../.###./....#/....#/####.", "T": "#####/..#../..#../..#../..#../..#../..#..",
    "U": "#...#/#...#/#...#/#...#/#...#/#...#/.###.", "V": "#...#/#...#/#...#/#...#/#...#/.#.#./..#..",
    "W": "#...#/#...#/#...#/#.#.#/#.#.#/#.#.#/.#.#.", "X": "#...#/#...#/.#.#./..#../.#.#./#...#/#...#",
    "Y": "#...#/#...#/.#.#./..#../..#../..#../..#..", "Z": "#####/....#/...#./..#../.#.../#..../#####",
    "0": ".###./#...#/#..##/#.#.#/##..#/#...#/.###.", "1": "..#../.##../..#../..#../..#../..#../.###.",
    "2": ".###./#...#/....#/...#./..#../.#.../#####", "3": "#####/...#./..#../...#./....#/#...#/.###.",
    "4": "...#./..##./.#.#./#..#./#####/...#./...#.", "5": "#####/#..../####./....#/....#/#...#/.###.",
    "6": "..##./.#.../#..../####./#...#/#...#/.###.", "7": "#####/....#/...#./..#../.#.../.#.../.#...",
    "8": ".###./#...#/#...#/.###./#...#/#...#/.###.", "9": ".###./#...#/#...#/.####/....#/...#./.##..",
    " ": "...../...../...../...../...../...../.....", ".": "...../...../...../...../...../.##../.##..",
    ",": "...../...../...../...../.##../..#../.#...", "-": "...../...../...../#####/...../...../.....",
    "+": "...../..#../..#../#####/..#../..#../.....", ":": "...../.##../.##../...../.##../.##../.....",
    "(": "...#./..#../.#.../.#.../.#.../..#../...#.", ")": ".#.../..#../...#./...#./...#./..#../.#...",
    "/": "...../....#/...#./..#../.#.../#..../.....", "_": "...../...../...../...../...../...../#####",
    "=": "...../...../#####/...../#####/...../.....", "%": "##..#/##..#/...#./..#../.#.../#..##/#..##",
}
SCALE = 2
ADVANCE = 6 * SCALE  # glyph width plus one column of space
LINE = 7 * SCALE
WHITE, BLACK, GREY = (255, 255, 255), (40, 40, 40), (160, 160, 160)
POSITIVE, NEGATIVE = (66, 114, 176), (204, 85, 68)


class Canvas:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.pixels = [bytearray(bytes(WHITE) * width) for _ in range(height)]

    def fill(self, x0: int, y0: int, x1: int, y1: int, colour: tuple[int, int, int]) -> None:
        for y in range(max(y0, 0), min(y1, self.height)):
            row = self.pixels[y]
            for x in range(max(x0, 0), min(x1, self.width)):
                row[3 * x : 3 * x + 3] = bytes(colour)

    def text(self, x: int, y: int, text: str, colour: tuple[int, int, int] = BLACK) -> None:
        for i, char in enumerate(text.upper()):
            rows = _GLYPHS.get(char, _GLYPHS[" "]).split("/")
            for gy, row in enumerate(rows):
                for gx, ink in enumerate(row):
                    if ink == "#":
                        left, top = x + i * ADVANCE + gx * SCALE, y + gy * SCALE
                        self.fill(left, top, left + SCALE, top + SCALE, colour)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(row) for row in self.pixels)
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def bar_chart(title: str, bars: list[tuple[str, float]], path: str | Path, bar_area: int = 420) -> None:
    """Horizontal bars ``(label, value)`` with the value printed beside each, as a PNG file."""
    row_height, margin = LINE + 12, 16
    label_width = max([len(label) for label, _ in bars] + [1]) * ADVANCE + margin
    value_width = 9 * ADVANCE
    width = margin + label_width + bar_area + value_width
    height = margin * 2 + LINE + 12 + row_height * len(bars)
    canvas = Canvas(width, height)
    canvas.text(margin, margin, title)
    positive = max([value for _, value in bars if value > 0] + [0.0])
    negative = max([-value for _, value in bars if value < 0] + [0.0])
    span = (positive + negative) or 1.0
    zero = margin + label_width + round(bar_area * negative / span)
    top = margin + LINE + 12
    for i, (label, value) in enumerate(bars):
        y = top + i * row_height
        canvas.text(margin, y + 6, label)
        length = round(bar_area * abs(value) / span)
        if value >= 0:
            canvas.fill(zero, y + 4, zero + length, y + row_height - 4, POSITIVE)
        else:
            canvas.fill(zero - length, y + 4, zero, y + row_height - 4, NEGATIVE)
        canvas.text(margin + label_width + bar_area + ADVANCE, y + 6, f"{value:+.4f}")
    canvas.fill(zero, top, zero + 1, top + row_height * len(bars), GREY)
    Path(path).write_bytes(canvas.png())
