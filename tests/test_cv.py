import json
import struct
import zlib

import pytest
from spacy.language import Language

from phenorules.evaluation.ablation import FULL, ablation_settings, contributions, markdown_table, write_ablation
from phenorules.evaluation.barchart import bar_chart
from phenorules.evaluation.crossval import Setting, cross_validate, lexicon_setup
from phenorules.evaluation.folds import assign_folds
from phenorules.lexicon.learn import LearnSettings

from conftest import MINI_OBO
from learn_corpus import CORPUS, make_article


def _articles(singles: int, multis: int) -> list[dict]:
    return [make_article(f"S{i}", "x") for i in range(singles)] + [make_article(f"M{i}", "x", patients=2) for i in range(multis)]


def test_folds_are_deterministic_whatever_the_input_order():
    articles = _articles(13, 19)
    assert assign_folds(articles, 5, seed=3) == assign_folds(list(reversed(articles)), 5, seed=3)
    assert assign_folds(articles, 5, seed=3) != assign_folds(articles, 5, seed=4)


@pytest.mark.parametrize("singles,multis,folds", [(27, 33, 5), (13, 19, 5), (3, 4, 2), (1, 9, 3)])
def test_folds_are_balanced_in_size_and_patient_mix(singles, multis, folds):
    fold_of = assign_folds(_articles(singles, multis), folds)
    for prefix in ("S", "M", ""):
        sizes = [sum(1 for i, f in fold_of.items() if f == k and i.startswith(prefix)) for k in range(folds)]
        assert max(sizes) - min(sizes) <= 1, (prefix, sizes)


def test_fold_count_must_fit_the_articles():
    with pytest.raises(ValueError, match="--folds"):
        assign_folds(_articles(2, 1), 4)


def test_cross_validation_learns_from_the_other_folds_only():
    # folds {A3, A4} and {A1, A2}; each learns "small jaw" from the other two articles
    settings = [Setting("learned"), Setting("not learned", learn=False)]
    learn_settings = LearnSettings(min_articles=1)
    scores = cross_validate(CORPUS, settings, folds=2, hpo=MINI_OBO, learn_settings=learn_settings)
    assert scores["learned"]["mention"]["tp"] > scores["not learned"]["mention"]["tp"]
    assert scores["learned"]["score"] == cross_validate(CORPUS, settings[:1], folds=2, hpo=MINI_OBO, learn_settings=learn_settings)["learned"]["score"]


def test_variants_switch_is_a_match_stage_setting():
    config, _ = lexicon_setup(Setting("variants", stage_config={"match": {"variant_rules": []}}))
    assert config.variant_rules == () and not any("learned" in name for name in config.extra_files + config.blocklist_files)


@Language.component("test_forget_phenotypes")
def forget_phenotypes(doc):
    """A stand-in optional stage that drops every phenotype span."""
    doc.spans["phenotypes"] = []
    return doc


@pytest.fixture
def forgetful_pipeline(monkeypatch):
    import phenorules.pipeline as pipeline

    stages = pipeline.STAGES + (("forget", "test_forget_phenotypes"),)
    monkeypatch.setattr(pipeline, "STAGES", stages)
    monkeypatch.setattr("phenorules.evaluation.ablation.STAGES", stages)


def pipeline_stages():
    import phenorules.pipeline as pipeline

    return pipeline.STAGES


def test_ablation_switches_off_every_optional_stage(forgetful_pipeline):
    settings = ablation_settings()
    assert settings[0].name == FULL and settings[0].learn
    optional = [(name,) for name, _ in pipeline_stages() if name not in ("sentences", "match", "measurements")]
    assert [s.disable for s in settings if s.disable] == optional
    assert [(s.name, s.enable) for s in settings if s.enable] == [("with measurements", ("measurements",))]  # off by default: switched on
    assert optional[-1] == ("forget",)
    assert [s.name for s in settings if not s.learn] == ["learned lexicon"]
    assert [s.stage_config for s in settings if s.stage_config] == [
        {"match": {"variant_rules": []}},
        {"match": {"morphology": []}},
        {"word_order": {"skip_one_word": False}},
        {"match": {"substitutions": ["synonyms", "mentions"]}},
    ]


def test_cross_validation_switches_stages_by_setting(forgetful_pipeline):
    settings = [Setting("with", learn=False), Setting("without", disable=("forget",), learn=False)]
    scores = cross_validate(CORPUS, settings, folds=2, hpo=MINI_OBO)
    assert scores["with"]["mention"]["tp"] == 0 < scores["without"]["mention"]["tp"]


def _result() -> dict:
    def score(value):
        return {"score": value, **{level: {"f1": value} for level in ("mention", "document", "micro", "macro")}}

    return {"articles": 4, "folds": 2, "seed": 0, "settings": [{"name": FULL, "score": score(0.6)}, {"name": "variants", "score": score(0.55)}, {"name": "negation", "score": score(0.62)}]}


def test_ablation_table_and_contributions():
    result = _result()
    assert contributions(result) == [("variants", pytest.approx(0.05)), ("negation", pytest.approx(-0.02))]
    table = markdown_table(result)
    assert "| without variants | 0.5500 | -0.0500 |" in table and f"| {FULL} | 0.6000 | +0.0000 |" in table


def test_a_part_off_by_default_is_a_with_row_and_not_in_the_chart():
    result = _result()
    result["settings"].append({"name": "with substitutions", "score": {"score": 0.59, **{k: {"f1": 0.59} for k in ("mention", "document", "micro", "macro")}}})
    assert "| with substitutions | 0.5900 | -0.0100 |" in markdown_table(result)
    assert [name for name, _ in contributions(result)] == ["variants", "negation"]


def test_ablation_files_are_written(tmp_path):
    paths = write_ablation(_result(), tmp_path)
    assert [p.name for p in paths] == ["ablation.md", "ablation.json", "ablation.png"]
    assert json.loads(paths[1].read_text())["settings"][1]["name"] == "variants"


def test_bar_chart_is_a_valid_png(tmp_path):
    path = tmp_path / "chart.png"
    bar_chart("Title", [("variants", 0.05), ("negation", -0.02)], path)
    blob = path.read_bytes()
    assert blob[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", blob[16:24])
    length = struct.unpack(">I", blob[33:37])[0]
    assert blob[37:41] == b"IDAT"
    raw = zlib.decompress(blob[41 : 41 + length])
    assert len(raw) == height * (1 + 3 * width)
    assert zlib.crc32(blob[37 : 41 + length]) & 0xFFFFFFFF == struct.unpack(">I", blob[41 + length : 45 + length])[0]


def test_unwritable_ablation_directory_is_one_clear_error(tmp_path):
    from phenorules.errors import InputError

    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(InputError, match="cannot write the ablation results"):
        write_ablation(_result(), blocker / "sub")
