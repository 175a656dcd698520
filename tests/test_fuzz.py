"""Property-based fuzzing of read -> predict -> write through the command line.

Generated inputs: PatientPheX JSONL (Unicode passages at increasing offsets, patients with
mentions, optional pmid, BOM, blank and CRLF lines), some with one defect of a known kind
(a wrong type, a missing field, a negative, overlapping or huge offset, a lone surrogate,
bad UTF-8, truncation, deep nesting, a 5,000-digit number, a duplicate, a mention that is
not the text), and plain text files. Asserted for every input: no traceback; a valid one
gives exit 0, one record per article and ``text == article[offset:offset+length]`` for
every entity, and the same bytes on a second run; a bad one gives exit 2 with one line
naming the file (and the line), and the previous output file untouched.

``make test`` runs the ``ci`` profile (a few dozen inputs); ``make fuzz`` the ``fuzz``
profile (conftest.py: 10,000 JSONL files and 2,000 texts), which counts every kind of
failure and prints the counts instead of stopping at the first.
"""

from __future__ import annotations

import functools
import json
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phenorules.options import PipelineSettings
from phenorules.cli import main
from phenorules.formats.patientphex.io import article_text

from conftest import MINI_OBO

WORDS = [
    "seizures", "Seizures", "microcephaly", "cleft palate", "hypotonia", "ataxia", "short stature", "ASD",
    "no seizures", "without hypotonia", "developmental delay", "hearing loss", "II-1", "the proband",
    "patient 1", "her brother", ".", ",", "(", ")", "and", "or",
]
ODD = ["\u0301", "\u200d", "\U0001F469\u200d\u2695\ufe0f", "\u2028", "\x00", "\r\n", "\ufb01", "\u0130", "\u00df", "\u01c5", "\u202e", "\t", "\n"]
PREVIOUS = b"previous output\n"
COUNTS: Counter = Counter()

unicode_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
fragment = st.one_of(st.sampled_from(WORDS), unicode_text, st.sampled_from(ODD))
passage_text = st.lists(fragment, max_size=12).map(" ".join)


@st.composite
def articles(draw, pmc_id: str) -> dict:
    passages, offset = [], draw(st.integers(0, 30))
    for text in draw(st.lists(passage_text, min_size=1, max_size=4)):
        section = draw(st.sampled_from(["TITLE", "ABSTRACT", "INTRO", "CASE", "METHODS", "DISCUSS"]))
        passages.append({"section_type": section, "type": "paragraph", "offset": offset, "text": text})
        offset += len(text) + draw(st.integers(0, 6))
    text = article_text({"full_text": passages})
    patients = []
    for number in range(draw(st.integers(0, 2))):
        mentions = []
        if text:
            for _ in range(draw(st.integers(0, 2))):
                start = draw(st.integers(0, len(text) - 1))
                length = draw(st.integers(1, min(20, len(text) - start)))
                mentions.append({"text": text[start : start + length], "offset": start, "length": length})
        patients.append({"patient_id": f"P{number}", "mention": mentions})
    record = {"pmc_id": pmc_id, "patient": patients, "full_text": passages}
    pmid = draw(st.sampled_from(["absent", None, "12345"]))
    if pmid != "absent":
        record["pmid"] = pmid
    return record


def _set(path: list, value):
    def change(record: dict) -> dict:
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return record

    return change


def _delete(path: list):
    def change(record: dict) -> dict:
        target = record
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return record

    return change


# (name, change of the record, change of its JSON line): each always makes the article bad.
DEFECTS = {
    "not an object": lambda draw, r, n: ("line", draw(st.sampled_from(["null", "[1, 2]", '"x"', "42", "true"]))),
    "missing field": lambda draw, r, n: ("record", _delete([draw(st.sampled_from(["pmc_id", "full_text", "patient"]))])),
    "missing passage field": lambda draw, r, n: ("record", _delete(["full_text", 0, draw(st.sampled_from(["offset", "text", "type", "section_type"]))])),
    "wrong offset type": lambda draw, r, n: ("record", _set(["full_text", 0, "offset"], draw(st.sampled_from(["7", 1.5, True, None, [], {}])))),
    "wrong text type": lambda draw, r, n: ("record", _set(["full_text", 0, "text"], draw(st.sampled_from([7, 1.5, False, None, ["x"], {}])))),
    "wrong pmid type": lambda draw, r, n: ("record", _set(["pmid"], draw(st.sampled_from([123, 1.5, [], {}])))),
    "empty pmc_id": lambda draw, r, n: ("record", _set(["pmc_id"], "")),
    "negative offset": lambda draw, r, n: ("record", _set(["full_text", 0, "offset"], draw(st.integers(-(10**20), -1)))),
    "huge offset": lambda draw, r, n: ("record", _set(["full_text", -1, "offset"], draw(st.integers(10**8, 10**40)))),
    "overlapping passage": lambda draw, r, n: ("overlap", None),
    "lone surrogate": lambda draw, r, n: ("record", _set(["full_text", 0, "text"], draw(passage_text) + "\ud800" + draw(passage_text))),
    "bad mention": lambda draw, r, n: ("mention", None),
    "negative mention offset": lambda draw, r, n: ("record", lambda rec: {**rec, "patient": [{"patient_id": "Q", "mention": [{"text": "x", "offset": -1, "length": 1}]}]}),
    "bad utf-8": lambda draw, r, n: ("bytes", draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80"]))),
    "truncated": lambda draw, r, n: ("truncate", None),
    "deep nesting": lambda draw, r, n: ("line", '{"pmc_id": "deep", "x": ' + "[" * 50_000 + "]" * 50_000 + "}"),
    "long number": lambda draw, r, n: ("line", json.dumps(r).replace('"offset": ', '"offset": ' + "9" * 5000, 1)),
    "duplicate": lambda draw, r, n: ("duplicate", None),
}


@st.composite
def jsonl_files(draw):
    """(file bytes, records, line number of the defect or None)."""
    records = [draw(articles(f"PMC{i}")) for i in range(draw(st.integers(1, 4)))]
    defect = draw(st.one_of(st.none(), st.sampled_from(sorted(DEFECTS))))
    bad_index = draw(st.integers(0, len(records) - 1))
    lines: list[bytes] = []
    bad_line = None
    crlf = draw(st.booleans())
    for i, record in enumerate(records):
        if draw(st.integers(0, 5)) == 0:
            lines.append(b"\n")  # a blank line is allowed
        line = json.dumps(record, ensure_ascii=draw(st.booleans())).encode("utf-8")
        if defect is not None and i == bad_index:
            kind, value = DEFECTS[defect](draw, json.loads(json.dumps(record)), i)
            line = _damaged(draw, record, records, kind, value, line)
            bad_line = len(lines) + 1
        lines.append(line + (b"\r\n" if crlf else b"\n"))
    data = b"".join(lines)
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data, records, bad_line


def _damaged(draw, record, records, kind, value, line: bytes) -> bytes:
    copy = json.loads(json.dumps(record))
    if kind == "line":
        return value.encode("utf-8")
    if kind == "record":
        return json.dumps(value(copy)).encode("utf-8")
    if kind == "bytes":
        cut = draw(st.integers(0, len(line)))
        return line[:cut] + value + line[cut:]
    if kind == "truncate":
        return line[: draw(st.integers(1, len(line) - 1))]
    if kind == "duplicate":
        copy["pmc_id"] = records[0]["pmc_id"] if record is not records[0] else "PMC-dup"
        return json.dumps(copy).encode("utf-8") + (b"\n" + json.dumps(copy).encode("utf-8") if record is records[0] else b"")
    if kind == "overlap":
        copy["full_text"].insert(0, {"section_type": "X", "type": "paragraph", "offset": 0, "text": "xx"})
        copy["full_text"][1]["offset"] = draw(st.integers(0, 1))
        return json.dumps(copy).encode("utf-8")
    if kind == "mention":
        copy["patient"] = [{"patient_id": "Q", "mention": [{"text": "\u2603not there", "offset": 0, "length": 10}]}]
        return json.dumps(copy).encode("utf-8")
    raise AssertionError(kind)


@pytest.fixture(scope="module")
def fuzz_nlp():
    from phenorules.stages.pipeline import build_pipeline

    return build_pipeline(hpo=MINI_OBO)


@pytest.fixture(scope="module", autouse=True)
def report():
    COUNTS.clear()
    yield
    if COUNTS["inputs"] >= 1000:  # the fuzz profile: print what it counted
        kinds = ", ".join(f"{kind} {COUNTS[f'FAIL {kind}']}" for kind in FAILURES)
        others = ", ".join(f"{kind} {count}" for kind, count in sorted(COUNTS.items()) if kind.startswith("FAIL") and kind[5:] not in FAILURES)
        print(f"\nfuzz: {COUNTS['inputs']} inputs ({COUNTS['valid']} valid, {COUNTS['bad']} bad, the rest empty texts); failures: {kinds}" + (f", {others}" if others else ""))
    failures = {kind: count for kind, count in COUNTS.items() if kind.startswith("FAIL")}
    assert not failures, failures


def _counting() -> bool:
    return settings().max_examples >= 1000


FAILURES = (
    "traceback", "wrong offset", "lost file", "lost or reordered articles", "different bytes on a second run",
    "refused a valid input", "accepted a bad input", "error not one line naming the file", "error names the wrong line",
    "empty text not zero articles",
)


def _problem(kind: str, detail: str) -> None:
    """Stop (CI: hypothesis shrinks to the smallest input) or count (make fuzz)."""
    COUNTS[f"FAIL {kind}"] += 1
    if not _counting():
        raise AssertionError(f"{kind}: {detail}")


def _predict(tmp_path, monkeypatch, nlp, name: str, data: bytes, *options: str):
    source, out = tmp_path / name, tmp_path / "out.jsonl"
    source.write_bytes(data)
    out.write_bytes(PREVIOUS)
    monkeypatch.setattr(PipelineSettings, "build", lambda *_: nlp)
    result = CliRunner().invoke(main, ["predict", str(source), "-o", str(out), "--hpo", MINI_OBO, *options])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        _problem("traceback", f"{type(result.exception).__name__}: {result.exception}")
    return source, out, result


def _check_valid(source, out, result, texts: list[str], ids: list[str], rerun) -> None:
    if result.exit_code != 0:
        _problem("refused a valid input", result.stderr)
        return
    lines = out.read_bytes().decode("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    if [r["pmc_id"] for r in records] != ids:
        _problem("lost or reordered articles", f"{[r['pmc_id'] for r in records]} != {ids}")
        return
    for record, text in zip(records, texts):
        for entity in record["entities"]:
            if text[entity["offset"] : entity["offset"] + entity["length"]] != entity["text"]:
                _problem("wrong offset", f"{entity} in {text!r}")
    first = out.read_bytes()
    out.write_bytes(PREVIOUS)
    rerun()
    if out.read_bytes() != first:
        _problem("different bytes on a second run", str(source))


def _check_refused(source, out, result, bad_line) -> None:
    if result.exit_code != 2:
        _problem("accepted a bad input", f"exit {result.exit_code}: {result.output[:300]}")
        return
    lines = result.stderr.splitlines()
    if len(lines) != 1 or not lines[0].startswith(f"phenorules: error: {source}"):
        _problem("error not one line naming the file", result.stderr[:300])
    elif bad_line is not None and f", line {bad_line}" not in lines[0] and f", line {bad_line + 1}" not in lines[0]:
        _problem("error names the wrong line", f"line {bad_line}: {lines[0][:300]}")
    if out.read_bytes() != PREVIOUS:
        _problem("lost file", "the previous output changed")


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(jsonl_files())
def test_jsonl_read_predict_write(tmp_path, monkeypatch, fuzz_nlp, generated):
    data, records, bad_line = generated
    COUNTS["inputs"] += 1
    source, out, result = _predict(tmp_path, monkeypatch, fuzz_nlp, "in.jsonl", data)
    if bad_line is None:
        COUNTS["valid"] += 1
        texts = [article_text(r) for r in records]
        rerun = functools.partial(_predict, tmp_path, monkeypatch, fuzz_nlp, "in.jsonl", data)
        _check_valid(source, out, result, texts, [r["pmc_id"] for r in records], rerun)
    else:
        COUNTS["bad"] += 1
        _check_refused(source, out, result, bad_line)


@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=max(40, settings.default.max_examples // 5))
@given(st.lists(fragment, max_size=40).map(" ".join), st.booleans(), st.sampled_from(["note.txt", "note"]))
def test_text_read_predict_write(tmp_path, monkeypatch, fuzz_nlp, text, bom, name):
    COUNTS["inputs"] += 1
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    options = () if name.endswith(".txt") else ("--format", "text")
    source, out, result = _predict(tmp_path, monkeypatch, fuzz_nlp, name, data, *options)
    if not text.encode("utf-8").strip():  # ASCII whitespace only: no article
        if result.exit_code != 0 or out.read_bytes() != b"":
            _problem("empty text not zero articles", result.output[:300])
        return
    COUNTS["valid"] += 1
    rerun = functools.partial(_predict, tmp_path, monkeypatch, fuzz_nlp, name, data, *options)
    _check_valid(source, out, result, [text], ["note"], rerun)
