"""The organisers' PatientPheX scoring (TASK.md), so local numbers mean what the board means.

Where TASK.md leaves a point open, the choice made here (numbers from the 60-article
train.jsonl):

* Everything is compared as sets. A mention unit is (offset, length, id); gold has 5 exact
  duplicate mentions, and gold association lists repeat 149 phenotypes, which count once.
  Predicted duplicates count once too.
* Only note "NO" means negated; any other note (gold has one "D") is an ordinary mention.
* A gold '-1' unit (82 mentions, one inside the compound 'HP:0000201;-1') is matched by
  span alone, by at most one predicted unit on that span that no exact match has used.
  Further predicted units on that span are false positives: "one predicted mention ...
  counts", and stacking ids on an unknown phenotype must not be free.
* Document level: negated mentions enter neither set. 65 (article, id) pairs occur only
  negated; counting them as gold would make each a false negative for a system that
  correctly predicts them with "NO" (which is not scored).
* Association: an element made only of ';'-joined ids is split like a compound mention
  (gold holds 22 such elements, e.g. 'HP:0000470;HP:0000475'); other strings (29 distinct
  patient-text pairs for '-1' phenotypes) are matched exactly. Gold patients are those of the gold article's
  ``patient`` list (9 of 157 have no phenotype); predicted patients not among them are
  ignored.
* Empty denominators: precision with no prediction (or recall with no gold) is 1 when the
  other side is empty as well, else 0; F1 is 2TP / (2TP + FP + FN), 1 when all are 0.
  Macro precision and recall are per-patient averages like macro F1; only F1 enters Score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from phenorules.core.errors import InputError
from phenorules.formats.patientphex.identifiers import NO_ID
from phenorules.formats.patientphex.io import ID_PART, article_text

NEGATED = "NO"

Unit = tuple[int, int, str]


@dataclass(frozen=True)
class Outcome:
    """Sorted items a comparison got right (tp), added (fp) and missed (fn)."""

    tp: tuple
    fp: tuple
    fn: tuple


@dataclass(frozen=True)
class ArticleResult:
    """One gold article's outcomes; ``patients`` follows the gold patient order."""

    pmc_id: str
    mention: Outcome
    document: Outcome
    patients: tuple[tuple[str, Outcome], ...]


def score(gold_articles: list[dict], pred_records: list[dict]) -> dict:
    """Mention, document, micro and macro precision/recall/F1 and the official Score."""
    results = per_article(gold_articles, pred_records)
    patients = [outcome for result in results for _, outcome in result.patients]
    mention = _summed([result.mention for result in results])
    document = _summed([result.document for result in results])
    micro = _summed(patients)
    macro = _averaged(patients)
    return {
        "mention": mention,
        "document": document,
        "micro": micro,
        "macro": macro,
        "score": 0.25 * (mention["f1"] + document["f1"] + micro["f1"] + macro["f1"]),
        "negation": negation_agreement(gold_articles, pred_records),
        "by_shape": by_shape(results),
    }


def by_shape(results: list[ArticleResult]) -> dict:
    """Association figures apart for single- and multi-patient articles, with the number of
    patients whose F1 is 0 (nothing right)."""
    shapes = {}
    for shape, wanted in (("single", lambda n: n == 1), ("multi", lambda n: n > 1)):
        outcomes = [outcome for result in results if wanted(len(result.patients)) for _, outcome in result.patients]
        shapes[shape] = {
            "patients": len(outcomes),
            "micro": _summed(outcomes)["f1"],
            "macro": _averaged(outcomes)["f1"],
            "zero_f1": sum(1 for o in outcomes if _prf(len(o.tp), len(o.fp), len(o.fn))["f1"] == 0),
        }
    return shapes


def negation_agreement(gold_articles: list[dict], pred_records: list[dict]) -> dict:
    """How well "NO" notes agree on the spans both sides have (not part of Score).

    precision: of the predicted "NO" mentions on a gold span, the share negated in the gold;
    recall: of the gold-negated mentions whose span is predicted, the share predicted "NO";
    recall_all: the same over every gold-negated mention;
    strict_precision: of all predicted "NO" mentions, the share on a gold-negated span.
    """
    predictions = _by_pmc_id(pred_records, "predictions")
    agreed = predicted_on_gold = found = gold_negated = predicted_all = 0
    for gold in gold_articles:
        gold_spans = {(e["offset"], e["length"]): e.get("note") == NEGATED for e in gold.get("entities", [])}
        pred_spans: dict[tuple[int, int], bool] = {}
        for entity in predictions.get(gold["pmc_id"], {}).get("entities", []):
            span = (entity["offset"], entity["length"])
            pred_spans[span] = pred_spans.get(span, False) or entity.get("note") == NEGATED
        negated = {span for span, is_negated in gold_spans.items() if is_negated}
        predicted_negated = {span for span, is_negated in pred_spans.items() if is_negated}
        agreed += len(negated & predicted_negated)
        predicted_on_gold += len(predicted_negated & gold_spans.keys())
        found += len(negated & pred_spans.keys())
        gold_negated += len(negated)
        predicted_all += len(predicted_negated)
    return {
        "precision": agreed / predicted_on_gold if predicted_on_gold else 1.0,
        "recall": agreed / found if found else 1.0,
        "recall_all": agreed / gold_negated if gold_negated else 1.0,
        "strict_precision": agreed / predicted_all if predicted_all else 1.0,
        "predicted": predicted_all,
        "agreed": agreed,
        "predicted_on_gold": predicted_on_gold,
        "found": found,
        "gold_negated": gold_negated,
    }


def per_article(gold_articles: list[dict], pred_records: list[dict]) -> list[ArticleResult]:
    """Outcomes per gold article, for error analysis; a missing prediction is empty."""
    predictions = _by_pmc_id(pred_records, "predictions")
    _by_pmc_id(gold_articles, "gold")  # only refuses duplicates: each article scores once
    return [
        _compare_article(gold, predictions.get(gold["pmc_id"], {}))
        for gold in gold_articles
    ]


def coverage_warnings(gold_articles: list[dict], pred_records: list[dict], pred_name: str = "predictions") -> list[str]:
    """What a score would not show: gold articles without a prediction (scored as empty),
    predictions for articles not in the gold (not scored)."""
    gold_ids = [article["pmc_id"] for article in gold_articles]
    pred_ids = [record["pmc_id"] for record in pred_records]
    predicted = set(pred_ids)
    missing = [pmc_id for pmc_id in gold_ids if pmc_id not in predicted]
    known = set(gold_ids)
    extra = [pmc_id for pmc_id in pred_ids if pmc_id not in known]
    messages = []
    if gold_ids and len(missing) == len(gold_ids):
        messages.append(f"{pred_name}: no pmc_id matches a gold article: every article scores as predicted empty (is it the right file?)")
    elif missing:
        messages.append(f"{pred_name}: no prediction for {len(missing)} of {len(gold_ids)} gold articles ({_listed(missing)}): scored as empty")
    if extra:
        messages.append(f"{pred_name}: {len(extra)} articles not in the gold file ({_listed(extra)}): not scored")
    return messages


def span_text_warnings(gold_articles: list[dict], pred_records: list[dict], pred_name: str = "predictions") -> list[str]:
    """Predicted mentions whose ``text`` is not the gold article's text at their offset:
    predictions of another version of the articles, or offsets counted in other units
    (bytes, UTF-16), which would score as misses without saying why."""
    texts = {article["pmc_id"]: article for article in gold_articles}
    messages = []
    for record in pred_records:
        article = texts.get(record["pmc_id"])
        if article is None:
            continue
        text = article_text(article)
        wrong = [
            entity for entity in record.get("entities") or []
            if isinstance(entity.get("text"), str) and text[entity["offset"] : entity["offset"] + entity["length"]] != entity["text"]
        ]
        if wrong:
            first = wrong[0]
            found = text[first["offset"] : first["offset"] + first["length"]]
            messages.append(
                f"{pred_name}, article {record['pmc_id']}: {len(wrong)} predicted mentions whose text is not the gold text at their offset "
                f"(first: {first['text']!r} at {first['offset']}, the gold text there is {found!r})"
            )
    return messages


def _listed(ids: list[str], shown: int = 3) -> str:
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown} more" if len(ids) > shown else "")


def _by_pmc_id(records: list[dict], what: str) -> dict[str, dict]:
    index: dict[str, dict] = {}
    for record in records:
        if record["pmc_id"] in index:
            raise InputError(f"{what}: duplicate pmc_id {record['pmc_id']}")
        index[record["pmc_id"]] = record
    return index


def _compare_article(gold: dict, pred: dict) -> ArticleResult:
    gold_units = mention_units(gold.get("entities", []))
    pred_units = mention_units(pred.get("entities", []))
    return ArticleResult(
        pmc_id=gold["pmc_id"],
        mention=compare_mentions(gold_units, pred_units),
        document=_compare(document_ids(gold_units), document_ids(pred_units)),
        patients=compare_patients(gold, pred),
    )


# --- subtask 1 -----------------------------------------------------------------------


def mention_units(entities: Iterable[dict]) -> set[Unit]:
    """The scored units: one per id of every mention not noted "NO"."""
    return {
        (entity["offset"], entity["length"], identifier)
        for entity in entities
        if entity.get("note") != NEGATED
        for identifier in entity["identifier"].split(";")
    }


def compare_mentions(gold_units: set[Unit], pred_units: set[Unit]) -> Outcome:
    """Exact (span, id) matches first; then each gold '-1' takes one leftover on its span.

    Gold-negated mentions are not in ``gold_units``, so predicting one without "NO" is left
    over and counted as a false positive, and it can never be a false negative.
    """
    exact = gold_units & pred_units
    leftover_by_span: dict[tuple[int, int], list[Unit]] = {}
    for unit in sorted(pred_units - exact):
        leftover_by_span.setdefault(unit[:2], []).append(unit)
    by_span: list[Unit] = []
    missed: list[Unit] = []
    for unit in sorted(gold_units - exact):
        candidates = leftover_by_span.get(unit[:2], []) if unit[2] == NO_ID else []
        if candidates:
            by_span.append(candidates.pop(0))
        else:
            missed.append(unit)
    false_positives = [unit for units in leftover_by_span.values() for unit in units]
    return Outcome(
        tp=tuple(sorted(exact | set(by_span))),
        fp=tuple(sorted(false_positives)),
        fn=tuple(missed),
    )


def document_ids(units: set[Unit]) -> set[str]:
    """The article's HPO ids; '-1' is not an id."""
    return {identifier for _, _, identifier in units if identifier != NO_ID}


# --- subtask 2 -----------------------------------------------------------------------


def compare_patients(gold: dict, pred: dict) -> tuple[tuple[str, Outcome], ...]:
    """(patient_id, outcome) for every gold patient; other predicted patients are ignored."""
    listed = {patient["patient_id"]: set() for patient in gold.get("patient", [])}
    gold_sets = listed | _phenotypes_by_patient(gold.get("association", []))
    pred_sets = _phenotypes_by_patient(pred.get("association", []))
    return tuple(
        (patient_id, _compare(phenotypes, pred_sets.get(patient_id, set())))
        for patient_id, phenotypes in gold_sets.items()
    )


def _phenotypes_by_patient(association: list[dict]) -> dict[str, set[str]]:
    """Phenotype units per patient id; repeated entries for one patient are merged."""
    sets: dict[str, set[str]] = {}
    for entry in association:
        sets.setdefault(entry["patient_id"], set()).update(phenotype_units(entry["phenotype"]))
    return sets


def phenotype_units(phenotypes: Iterable[str]) -> set[str]:
    """Split ';'-joined id lists like compound mentions; keep '-1' texts as they are."""
    units: set[str] = set()
    for phenotype in phenotypes:
        parts = phenotype.split(";")
        is_id_list = all(ID_PART.fullmatch(part) for part in parts)
        units.update(parts if is_id_list else [phenotype])
    return units


# --- arithmetic ----------------------------------------------------------------------


def _compare(gold: set, pred: set) -> Outcome:
    return Outcome(
        tp=tuple(sorted(gold & pred)),
        fp=tuple(sorted(pred - gold)),
        fn=tuple(sorted(gold - pred)),
    )


def _prf(tp: int, fp: int, fn: int) -> dict:
    """Precision, recall and F1 with the empty-denominator conventions above."""
    precision = tp / (tp + fp) if tp + fp else float(fn == 0)
    recall = tp / (tp + fn) if tp + fn else float(fp == 0)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def _summed(outcomes: list[Outcome]) -> dict:
    """Micro figures: counts summed before dividing."""
    return _prf(
        sum(len(o.tp) for o in outcomes),
        sum(len(o.fp) for o in outcomes),
        sum(len(o.fn) for o in outcomes),
    )


def _averaged(outcomes: list[Outcome]) -> dict:
    """Macro figures: each outcome's precision, recall and F1 averaged (1 when none)."""
    figures = [_prf(len(o.tp), len(o.fp), len(o.fn)) for o in outcomes]
    result = {
        key: sum(f[key] for f in figures) / len(figures) if figures else 1.0
        for key in ("precision", "recall", "f1")
    }
    result["patients"] = len(outcomes)
    return result


def format_table(result: dict) -> str:
    """A fixed-width table of a ``score`` result, 4 decimals, ending with the Score line."""
    lines = [f"{'':<10}{'P':>8}{'R':>8}{'F1':>8}{'TP':>8}{'FP':>8}{'FN':>8}"]
    for level in ("mention", "document", "micro", "macro"):
        row = result[level]
        figures = "".join(f"{row[key]:>8.4f}" for key in ("precision", "recall", "f1"))
        counts = "".join(f"{row[key]:>8d}" for key in ("tp", "fp", "fn") if key in row)
        lines.append(f"{level:<10}{figures}{counts}")
    lines.append(f"{'Score':<10}{result['score']:>8.4f}")
    negation = result.get("negation")
    if negation:
        lines.append(
            f"negation (not in Score): precision {negation['precision']:.4f} ({negation['agreed']}/{negation['predicted_on_gold']}), "
            f"recall {negation['recall']:.4f} ({negation['agreed']}/{negation['found']}) on the gold-negated spans found, "
            f"{negation['recall_all']:.4f} ({negation['agreed']}/{negation['gold_negated']}) on all; "
            f"strict precision {negation['strict_precision']:.4f} ({negation['agreed']}/{negation['predicted']}) over every predicted NO"
        )
    for shape, row in result.get("by_shape", {}).items():
        if not row["patients"]:
            lines.append(f"{shape:<10}association in {shape}-patient articles: no such article")
            continue
        lines.append(
            f"{shape:<10}association in {shape}-patient articles: {row['patients']} patients, "
            f"micro F1 {row['micro']:.4f}, macro F1 {row['macro']:.4f}, {row['zero_f1']} with F1 = 0"
        )
    return "\n".join(lines)
