"""medspaCy's ConText with its default rules on given entity spans (run in medspaCy's own
venv by benchmarks/assertion_bench.py; imports nothing of phenorules).

Reads JSON lines {"text": ..., "spans": [[start, end], ...]} on stdin and writes, per line,
the five flags of each span: medspaCy's PyRuSH sentence splitter, then the spans as
``doc.ents``, then ``medspacy_context`` with ``rules="default"``.
"""

import json
import sys

import medspacy

FLAGS = ("is_negated", "is_uncertain", "is_hypothetical", "is_historical", "is_family")


def main() -> None:
    nlp = medspacy.load(enable=["medspacy_pyrush", "medspacy_context"])
    splitter, context = nlp.get_pipe("medspacy_pyrush"), nlp.get_pipe("medspacy_context")
    for line in sys.stdin:
        item = json.loads(line)
        doc = splitter(nlp.make_doc(item["text"]))
        ents = [doc.char_span(start, end, label="PHENOTYPE", alignment_mode="expand") for start, end in item["spans"]]
        doc.ents = [span for span in ents if span is not None]
        doc = context(doc)
        by_offsets = {(span.start_char, span.end_char): span for span in doc.ents}
        flags = []
        for span in ents:
            found = by_offsets.get((span.start_char, span.end_char)) if span is not None else None
            flags.append({flag: bool(found is not None and getattr(found._, flag)) for flag in FLAGS})
        print(json.dumps(flags))


if __name__ == "__main__":
    main()
