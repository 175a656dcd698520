import json
from xml.etree import ElementTree

import pytest
from spacy.language import Language

from phenorules.tasks.patientphex.ablation import FULL, ablation_settings, contributions, markdown_table, write_ablation
from phenorules.tasks.patientphex.barchart import NEGATIVE, POSITIVE, bar_chart
from phenorules.tasks.patientphex.crossval import Setting, cross_validate, lexicon_setup
from phenorules.tasks.patientphex.folds import assign_folds
from phenorules.kb.learn import LearnSettings
from phenorules.formats.patientphex.records import predict

from conftest import MINI_OBO
from learn_corpus import CORPUS, make_article

SVG = "http://www.w3.org/2000/svg"


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


def test_each_fold_predicts_with_a_pipeline_and_knowledge_base_of_its_own(monkeypatch):
    import phenorules.tasks.patientphex.crossval as crossval

    seen = []  # (pipeline, its knowledge base, the learned rows of its config) as each fold predicts

    def recording(nlp, articles):
        seen.append((nlp, nlp.get_pipe("match").kb, nlp.get_pipe_config("match")["kb"]["learned"]))
        return predict(nlp, articles)

    monkeypatch.setattr(crossval, "predict", recording)
    settings = [Setting("learned"), Setting("not learned", learn=False)]
    cross_validate(CORPUS, settings, folds=2, hpo=MINI_OBO, learn_settings=LearnSettings(min_articles=1))
    assert len({id(nlp) for nlp, _, _ in seen}) == len(seen) == 4
    for nlp, kb, _ in seen:
        assert nlp.get_pipe("match").kb is kb  # not rewired by a later fold
        assert all(component.kb is kb for _, component in nlp.pipeline if hasattr(component, "kb"))
    learned = [rows for _, _, rows in seen if rows["rows"]]
    assert len(learned) == 2 and all(any(row[0] == "small jaw" for row in rows["rows"]) for rows in learned)
    not_learned = [kb for _, kb, rows in seen if not rows["rows"]]
    assert len(not_learned) == 2 and all(kb not in {k for _, k, r in seen if r["rows"]} for kb in not_learned)


def test_variants_switch_is_a_knowledge_base_setting():
    config, _ = lexicon_setup(Setting("variants", kb={"variant_rules": []}))
    assert config.variant_rules == () and not any("learned" in name for name in config.extra_files + config.blocklist_files)


@Language.component("test_forget_phenotypes")
def forget_phenotypes(doc):
    """A stand-in optional stage that drops every phenotype mention."""
    from phenorules.core.document import working

    working(doc).mentions = []
    return doc


@pytest.fixture
def forgetful_pipeline(monkeypatch):
    import phenorules.stages.pipeline as pipeline

    stages = pipeline.STAGES + (("forget", "test_forget_phenotypes"),)
    monkeypatch.setattr(pipeline, "STAGES", stages)
    monkeypatch.setattr("phenorules.tasks.patientphex.ablation.STAGES", stages)


def pipeline_stages():
    import phenorules.stages.pipeline as pipeline

    return pipeline.STAGES


def test_ablation_switches_off_every_optional_stage(forgetful_pipeline):
    settings = ablation_settings()
    assert settings[0].name == FULL and settings[0].learn
    optional = [(name,) for name, _ in pipeline_stages() if name not in ("sentences", "match", "predicative", "names", "measurements", "growth", "nested")]
    assert [s.disable for s in settings if s.disable] == optional
    # off by default or in the PatientPheX profile: switched on
    assert [(s.name, s.enable) for s in settings if s.enable] == [
        ("with predicative", ("predicative",)), ("with names", ("names",)), ("with measurements", ("measurements",)), ("with growth", ("growth",)), ("with nested", ("nested",))
    ]
    assert optional[-1] == ("forget",)
    assert [s.name for s in settings if not s.learn] == ["learned lexicon"]
    assert [s.kb for s in settings if s.kb] == [
        {"variant_rules": []},
        {"morphology": []},
        {"substitutions": ["synonyms", "mentions"]},
    ]
    assert [s.stage_config for s in settings if s.stage_config] == [{"word_order": {"skip_one_word": False}}]


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
    assert [p.name for p in paths] == ["ablation.md", "ablation.json", "ablation.svg"]
    assert json.loads(paths[1].read_text())["settings"][1]["name"] == "variants"


def test_bar_chart_is_an_svg_with_one_bar_per_value():
    root = ElementTree.fromstring(bar_chart("Title <&>", [("variants", 0.05), ("negation", -0.02)]))
    assert root.tag == f"{{{SVG}}}svg"
    texts = [element.text for element in root.iter(f"{{{SVG}}}text")]
    assert texts == ["Title <&>", "variants", "+0.0500", "negation", "-0.0200"]
    bars = [element for element in root.iter(f"{{{SVG}}}rect") if element.get("fill") in (POSITIVE, NEGATIVE)]
    assert [bar.get("fill") for bar in bars] == [POSITIVE, NEGATIVE]
    positive, negative = (int(bar.get("width")) for bar in bars)
    assert positive + negative == 420 and positive > negative > 0
    assert int(bars[0].get("x")) == int(bars[1].get("x")) + negative  # both grow from the zero line


def test_unwritable_ablation_directory_is_one_clear_error(tmp_path):
    from phenorules.core.errors import InputError

    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(InputError, match="cannot write the ablation results"):
        write_ablation(_result(), blocker / "sub")


def test_cv_writes_the_pooled_out_of_fold_predictions(tmp_path):
    from click.testing import CliRunner

    from phenorules.cli import main
    from phenorules.tasks.patientphex.score import score

    train, out = tmp_path / "train.jsonl", tmp_path / "oof.jsonl"
    train.write_text("".join(json.dumps(article) + "\n" for article in CORPUS))
    result = CliRunner().invoke(main, ["cv", str(train), "--folds", "2", "--min-articles", "1", "--json", "--predictions", str(out), "--hpo", MINI_OBO])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["pmc_id"] for r in records] == [a["pmc_id"] for a in CORPUS]  # the input's order, not the folds'
    assert score(CORPUS, records)["score"] == json.loads(result.stdout[result.stdout.index("{"):])["score"]
    assert any(e["text"] == "small jaw" for r in records for e in r["entities"])  # learned in the other fold


def test_cv_refuses_to_write_its_predictions_over_the_training_file(tmp_path):
    from click.testing import CliRunner

    from phenorules.cli import main

    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps(article) + "\n" for article in CORPUS))
    result = CliRunner().invoke(main, ["cv", str(train), "--folds", "2", "--predictions", str(train), "--hpo", MINI_OBO])
    assert result.exit_code == 2 and "predictions" in result.output and "Traceback" not in result.output
