"""Writes the English word lists of ``lexicons/`` from SCOWL, as Debian's ``scowl`` package
installs it (``apt-get install scowl``: /usr/share/dict/scowl, SCOWL 2020.12.07).

- ``lexicons/english_words.txt.gz``: every word of SCOWL up to size 95, of every spelling
  (American, British with -ise and -ize, Canadian, Australian, and their variants), its
  common words, upper-case words, proper names and abbreviations; the spelling stage never
  reads a word of it as a misspelling, and no generated spelling variant may become one
  of its words unless the British list holds it.
- ``lexicons/british_spellings.txt.gz``: the words SCOWL spells the British way only
  (categories british, british_variant_1, british_variant_2, up to size 95): the British
  forms the spelling rules of ``lexicons/spelling_rules.tsv`` marked ``listed`` may make.

Each word as the lexicon reads text (lower case, diacritics folded: normalize_key), without
a possessive 's; words with other characters (apostrophes, periods) left out; sorted by
their UTF-8 bytes, one a line, gzip without a time or a name in its header, so that the
same input gives the same bytes. SCOWL's copyright and permission notice:
``lexicons/SCOWL-LICENSE.txt``.

Usage: python benchmarks/word_lists.py [SCOWL_DIR] [--out lexicons]
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

from phenorules.kb.lexicon.normalize import normalize_key

SCOWL_DIR = "/usr/share/dict/scowl"
MAX_SIZE = 95
SUBCATEGORIES = ("words", "upper", "proper-names", "abbreviations")  # not contractions: they hold apostrophes
BRITISH = ("british", "british_variant_1", "british_variant_2")
_LIST = re.compile(r"(?P<category>[a-z_0-9]+)-(?P<sub>[a-z-]+)\.(?P<size>\d+)")


def scowl_words(folder: Path, categories: tuple[str, ...] | None = None) -> set[str]:
    """The normalised words of SCOWL's lists of size <= MAX_SIZE in ``categories`` (all
    when None) and SUBCATEGORIES."""
    words = set()
    for path in sorted(folder.iterdir()):
        name = _LIST.fullmatch(path.name)
        if not name or int(name["size"]) > MAX_SIZE or name["sub"] not in SUBCATEGORIES:
            continue
        if categories is not None and name["category"] not in categories:
            continue
        for line in path.read_text(encoding="utf-8", errors="strict").splitlines():
            word = normalize_key(line.removesuffix("'s"))
            if word.isalpha():
                words.add(word)
    return words


def write_list(path: Path, words: set[str]) -> None:
    data = b"".join(word.encode() + b"\n" for word in sorted(words, key=str.encode))
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as handle:
        handle.write(data)
    print(f"{path}: {len(words):,} words, {path.stat().st_size:,} bytes", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scowl", nargs="?", default=SCOWL_DIR)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "lexicons"))
    args = parser.parse_args()
    folder, out = Path(args.scowl), Path(args.out)
    if not folder.is_dir():
        print(f"word_lists: error: {folder}: no SCOWL lists (apt-get install scowl)", file=sys.stderr)
        sys.exit(2)
    write_list(out / "english_words.txt.gz", scowl_words(folder))
    write_list(out / "british_spellings.txt.gz", scowl_words(folder, BRITISH))


if __name__ == "__main__":
    main()
