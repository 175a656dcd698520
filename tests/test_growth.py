"""The growth stage: a growth measure's centile, SD score or BMI value as the HPO finding
``rules/growth.tsv`` gives it (the grammar on text alone, then the stage in the pipeline on
the full ontology), and the rows' checks."""

from __future__ import annotations

import re

import pytest
import spacy
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.core.document import PHENOTYPES
from phenorules.core.errors import InputError
from phenorules.growth.grammar import SAME_LENGTH, Grammar
from phenorules.growth.rules import Interval, Value, read_growth_rules
from phenorules.kb.resources import data_file

from conftest import MINI_OBO

ORDINALS, NUMBERS = data_file("rules", "ordinals.tsv"), data_file("rules", "number_words.tsv")
MICROCEPHALY, MILD_MICROCEPHALY, MACROCEPHALY = "HP:0000252", "HP:0040196", "HP:0000256"
SHORT, MILD_SHORT, MODERATE_SHORT, SEVERE_SHORT, TALL = "HP:0004322", "HP:0003502", "HP:0008848", "HP:0003510", "HP:0000098"
LOW_WEIGHT, SGA, BIRTH_LENGTH_LOW, PRIMARY_MICROCEPHALY = "HP:0004325", "HP:0001518", "HP:0003561", "HP:0011451"
IUGR, MILD_IUGR = "HP:0001511", "HP:0008883"
OBESITY, CLASS_II, CLASS_III, LOW_BMI = "HP:0001513", "HP:0025500", "HP:0025501", "HP:0045082"


class EveryId:
    """Known ids: all of them (the grammar's tests need no ontology)."""

    def __contains__(self, hpo_id):
        return True


@pytest.fixture(scope="module")
def rules():
    return read_growth_rules(data_file("rules", "growth.tsv"), EveryId(), ORDINALS, NUMBERS)


@pytest.fixture(scope="module")
def grammar(rules):
    return Grammar(rules)


def findings(grammar, rules, text):
    """(the text read, the ids of its measures) of every value of ``text``."""
    text = text.translate(SAME_LENGTH)
    found = []
    for reading in grammar.readings(text):
        ids = [rules.finding(hit.group, reading.value) for hit in reading.measures if hit.group]
        found.append((text[reading.start : reading.end], list(dict.fromkeys(finding.hpo_id for finding in ids if finding))))
    return found


@pytest.mark.parametrize(
    "text, hpo_id",
    [
        ("Head circumference was 42 cm (-2.8 SD).", MILD_MICROCEPHALY),  # [-3,-2): the grade
        ("The OFC was 2.5 SD below the mean.", MILD_MICROCEPHALY),
        ("OFC 40 cm (\u22123.6 SDS)", MICROCEPHALY),  # no grade of HPO's below -3 SD
        ("His height SDS was -3.2 at 9 years.", MODERATE_SHORT),
        ("height 102 cm (- 4.3 SD)", SEVERE_SHORT),
        ("Her height was 92,5 cm (\u22122,7 SD).", MILD_SHORT),  # decimal commas
        ("Stature: 95 cm (-4 SD)", MODERATE_SHORT),  # -4 belongs to [-4,-3)
        ("Height was more than 2 SD below the mean.", SHORT),  # a bound: no grade holds all of it
        ("Her weight was below the 3rd percentile.", LOW_WEIGHT),
        ("weight 6 kg (P<5), height 64 cm (P<3)", SHORT),
        ("Head circumference 52 cm (>97th percentile).", MACROCEPHALY),
        ("He was at the 98th percentile for height.", TALL),
        ("At 3 years height was below the 3rd centile.", SHORT),
        ("BMI 36 kg/m2", CLASS_II),
        ("Her BMI was > 40.", CLASS_III),
        ("BMI of 17.2", LOW_BMI),
        ("BMI SDS +2.3", OBESITY),
        ("estimated fetal weight 1,250 g (-2.4 SD)", MILD_IUGR),
        ("EFW below the 10th centile", IUGR),
        ("EFW -1.5 SD", IUGR),
        ("Her birth weight was 2,150 g (-1.5 SD).", SGA),  # read as a centile, as SGA is defined
        ("At birth, weight was 2.1 kg (<3rd centile).", SGA),
        ("She was born at 38 weeks; her length was 44 cm (<3rd centile).", SHORT),
        ("Born at 38 weeks, her length was 44 cm (<3rd centile).", BIRTH_LENGTH_LOW),
        ("The newborn's OFC was 30 cm (< 3d percentile).", PRIMARY_MICROCEPHALY),
        ("OFC -2 to -3 SD", MILD_MICROCEPHALY),  # a range spanning the grade
        ("height 2 to 3 standard deviations below the mean", MILD_SHORT),
        ("height 0.4th-2nd centile", SHORT),
        ("Head circumference (OFC) 44 cm (<3rd centile).", MICROCEPHALY),
    ],
)
def test_a_value_gives_the_most_specific_finding_it_supports(grammar, rules, text, hpo_id):
    assert [ids for _, ids in findings(grammar, rules, text) if ids] == [[hpo_id]]


@pytest.mark.parametrize(
    "text",
    [
        "Height -1.5 to -2 SD.",  # a range reaching the threshold at its normal end
        "Her weight was between the 3rd and 10th centiles.",
        "OFC at the 3rd centile.",  # the thresholds themselves are normal
        "Her height was 104 cm (-2 SDS).",
        "head circumference 49.6 cm (just above the 2nd percentile)",
        "Her height was <10th centile.",  # a bound that passes no threshold
        "Height within 3 SD of the mean.",
        "Her height was less than 2 SD below the mean.",
        "His IQ was 2.5 SD below the mean.",
        "Femur length was below the 3rd centile.",
        "His mother's height was 147 cm (-2.5 SD).",
        "Target height -2.4 SD.",
        "The mean height of the cohort was -2.5 SD.",
        "Her weight-for-height z-score was -2.8.",
        "The weight was 2.5 SD below the mean for height.",  # weight-for-height, neither measure's own value
        "Height and weight were -2.5 and -1 SD, respectively.",
        "height and weight were at the 3rd and 10th centiles, respectively",
        "Her height was not below the 3rd centile.",
        "P2 had seizures. Her weight was 12 kg (P2).",  # P2 is a patient's label here
        "Height 158 cm (50th centile), arm span 175 cm, upper-to-lower segment ratio 0.85 (>2 SD below the mean).",
    ],
)
def test_no_finding_from_normal_values_or_other_measures(grammar, rules, text):
    assert [ids for _, ids in findings(grammar, rules, text) if ids] == []


def test_measures_joined_by_a_conjunction_share_the_value(grammar, rules):
    assert findings(grammar, rules, "Her weight, height, and head circumference were all <1st percentile.") == [
        ("weight, height, and head circumference were all <1st percentile", [LOW_WEIGHT, SHORT, MICROCEPHALY])
    ]
    assert findings(grammar, rules, "He was below the 3rd centile for height and weight.") == [("below the 3rd centile for height and weight", [SHORT, LOW_WEIGHT])]


def test_a_value_belongs_to_the_measure_named_last(grammar, rules):
    text = "At 4 years his height was 92 cm (-3.4 SDS), weight 12.1 kg (-2.9 SDS) and OFC 48 cm (-1.8 SDS)."
    assert findings(grammar, rules, text) == [("height was 92 cm (-3.4 SDS", [MODERATE_SHORT]), ("weight 12.1 kg (-2.9 SDS", [LOW_WEIGHT]), ("OFC 48 cm (-1.8 SDS", [])]


def test_a_prefixed_centile_is_read_in_brackets_or_with_a_comparison(grammar, rules):
    assert [ids for _, ids in findings(grammar, rules, "Her weight was 12 kg (P2).")] == [[LOW_WEIGHT]]
    assert findings(grammar, rules, "Her weight was 12 kg, P2.") == []


def test_intervals_and_values():
    mild = Interval(-3, -2, True, False)
    assert mild.holds(-3) and not mild.holds(-2)
    assert Value("sd", Interval(-3, -2), False).satisfies(mild)  # a range reaches the bound it names
    assert not Value("sd", Interval(-2, -2), True).satisfies(mild)


def test_a_value_in_a_scale_without_rows_is_read_in_the_other(rules):
    # birth weight has centile rows only: -1.5 SD is the 6.7th centile, below SGA's 10th
    assert rules.finding("birth weight", Value("sd", Interval(-1.5, -1.5), True)).hpo_id == SGA
    assert rules.finding("birth weight", Value("sd", Interval(-1.2, -1.2), True)) is None
    # height has rows of both scales: an SD score is read as one
    assert rules.finding("height", Value("sd", Interval(-1.95, -1.95), True)) is None


@pytest.mark.parametrize(
    "row, message",
    [
        ("sizes\tbig", r"growth.tsv:1: unknown kind 'sizes'"),
        ("measure\theight\theight\t-", r"growth.tsv:1: a measure row has 5 tab-separated columns"),
        ("measure\theight\theight\tcm\t-", r"growth.tsv:1: bare 'cm'; expected one of \['-', 'sd', 'value'\]"),
        ("measure\theight\theight\t-\t-\nmeasure\tweight\tHeight\t-\t-", r"growth.tsv:2: the name 'Height' is another row's \(growth.tsv:1\)"),
        ("measure\theight\theight\t-\tbirth length", r"growth.tsv:1: at birth: 'birth length' is no measure's group"),
        ("finding\theight\tz\t(-inf,-2)\tHP:0004322\tsource", r"growth.tsv:1: scale 'z'; expected one of"),
        ("finding\theight\tsd\t(-inf;-2)\tHP:0004322\tsource", r"growth.tsv:1: interval '\(-inf;-2\)'; expected one like"),
        ("finding\theight\tsd\t(-2,-3)\tHP:0004322\tsource", r"growth.tsv:1: interval '\(-2,-3\)' is empty"),
        ("finding\theight\tsd\t(-inf,-2)\tshort\tsource", r"growth.tsv:1: 'short' is not an HPO id"),
    ],
)
def test_a_bad_row_names_its_line(tmp_path, row, message):
    path = tmp_path / "growth.tsv"
    path.write_text(row + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_growth_rules(path, EveryId(), ORDINALS, NUMBERS)


def test_a_bad_rules_file_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "growth.tsv"
    path.write_text("finding\theight\tsd\t(-inf,-2)\tshort\tsource\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["annotate", "--hpo", MINI_OBO, "--set", f"growth.rules_file={path}", "-"], input="Her height was -2.5 SD.\n")
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].endswith(f"{path}:1: 'short' is not an HPO id")


def test_the_general_profile_reads_growth_values_and_patientphex_does_not(general_nlp, mini_nlp):
    from phenorules.core.document import make_text_doc

    text = "Her height was below the 3rd centile."
    general = general_nlp(make_text_doc(general_nlp, text))
    (span,) = general.spans[PHENOTYPES]
    assert (span.text, span._.hpo_ids) == ("height was below the 3rd centile", (SHORT,))
    assert [re.sub(r":\d+:", ":LINE:", step) for step in span._.provenance[:2]] == ["rules/growth.tsv:LINE:height", "rules/growth.tsv:LINE:centile (-inf,3)"]
    assert "growth" not in mini_nlp.pipe_names
    assert list(mini_nlp(make_text_doc(mini_nlp, text)).spans[PHENOTYPES]) == []


# --- the stage in the spaCy component, on the full default ontology -----------------


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phenorules")
    return nlp


def mentions(nlp, text):
    doc = nlp(text)
    return [(span.text, span._.hpo_ids) for span in doc.spans[PHENOTYPES]]


def line_of(prefix: str) -> int:
    """The line of rules/growth.tsv that starts with ``prefix``."""
    lines = data_file("rules", "growth.tsv").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(prefix))


def test_a_measurement_is_a_mention_with_its_rows(nlp):
    doc = nlp("On examination at 2 years, her OFC was 42 cm (-2.8 SD).")
    (span,) = doc.spans[PHENOTYPES]
    assert (span.text, span.kb_id_, span._.hpo_label) == ("OFC was 42 cm (-2.8 SD", MILD_MICROCEPHALY, "Mild microcephaly")
    measure, finding = line_of("measure\thead\t"), line_of("finding\thead\tsd\t[-3,-2)")
    assert span._.provenance[:2] == [f"rules/growth.tsv:{measure}:head", f"rules/growth.tsv:{finding}:sd [-3,-2)"]


def test_coordinated_measures_are_one_compound_mention_with_a_part_each(nlp):
    doc = nlp("Height and weight were both below the 3rd centile.")
    (span,) = doc.spans[PHENOTYPES]
    assert span._.hpo_ids == (SHORT, LOW_WEIGHT)
    assert [(doc.text[start:end], ids) for start, end, ids in span._.parts] == [
        ("Height and weight were both below the 3rd centile", (SHORT,)),
        ("weight were both below the 3rd centile", (LOW_WEIGHT,)),
    ]


def test_a_finding_the_text_names_is_not_repeated_by_its_value(nlp):
    # Short stature named: its grade adds nothing; Microcephaly named: Mild microcephaly's
    # base (its row holds the grade's interval), so the grade adds nothing either
    assert mentions(nlp, "She had short stature; her height was -2.5 SD.") == [("short stature", (SHORT,))]
    assert mentions(nlp, "She had microcephaly. Her OFC was 42 cm (-2.5 SD).") == [("microcephaly", (MICROCEPHALY,))]
    # a value over a mention the dictionary found is left to it
    assert mentions(nlp, "Stature below 3rd percentile.") == [("Stature below 3rd percentile", (SHORT,))]


def test_bmi_values_are_the_growth_stages_also_beside_the_measurements_stage():
    from phenorules.stages.pipeline import build_pipeline

    nlp = build_pipeline(enable=["measurements"])
    doc = nlp("Her BMI was 34 kg/m2 and her temperature was 102 F.")
    found = [(span.text, span._.hpo_ids, span._.provenance[0].split(":")[0]) for span in doc.spans[PHENOTYPES]]
    assert found == [("BMI was 34 kg/m2", ("HP:0025499",), "rules/growth.tsv"), ("temperature was 102 F", ("HP:0001945",), "rules/measurements.tsv")]
