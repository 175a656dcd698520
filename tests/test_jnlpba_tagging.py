"""Learning the JNLPBA lexicon, the rules, the CLI and the evalscope adapter, on hand-made fixtures."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from phenorules.cli import main
from phenorules.tasks.jnlpba.evalscope_adapter import respond, sentence_tokens
from phenorules.tasks.jnlpba.holdout import split_by_dev_file, text_signature
from phenorules.tasks.jnlpba.io import read_iob2_documents, read_standoff
from phenorules.tasks.jnlpba.learn import LearnConfig, learn_lexicon, learn_modifiers
from phenorules.tasks.jnlpba.model import learn_model_from, make_tagger, rules_dir
from phenorules.tasks.jnlpba.response import response_to_tags
from phenorules.tasks.jnlpba.tag import TagConfig, Tagger, read_head_rules, read_shape_rules
from phenorules.tasks.jnlpba.variants import GreekLetters, generate_variants, spaced, surface_keys

FIXTURES = Path(__file__).parent / "fixtures"
TRAIN = FIXTURES / "jnlpba_train"
TEST = FIXTURES / "jnlpba_test.iob2"


@pytest.fixture(scope="module")
def documents():
    return read_standoff(TRAIN)


@pytest.fixture(scope="module")
def greek():
    return GreekLetters.from_file(rules_dir() / "greek_letters.tsv")


@pytest.fixture(scope="module")
def tagger(documents):
    return make_tagger(learn_model_from(documents))


def found(tagger, text):
    return [(text[t.start : t.end], t.label) for t in tagger(text)]


def test_keys_follow_the_test_set_tokenisation():
    assert spaced("Ro(SSA) and La(SSB);") == "Ro ( SSA ) and La ( SSB ) ;"
    assert surface_keys("Ro(SSA)") == ["ro(ssa)", "ro ( ssa )"]


def test_greek_variants(greek):
    variants = generate_variants("nf kappa b", greek)
    assert {"nf kappab", "nf κb", "nf kb"} <= set(variants)
    assert variants["nf kb"] == "greek_abbreviation"
    assert "tnfα" in generate_variants("tnf alpha", greek)


def test_a_variant_records_the_shortest_chain_that_makes_it(greek):
    """'nf kb' is made by the abbreviation alone and after a spacing rule; the shorter
    chain is its provenance, as in the phenotype lexicon (they share chain_rules)."""
    variants = generate_variants("3' nf kappab binding site", greek)
    assert variants["3' nf kb binding site"] == "greek_abbreviation"
    assert variants["3' nf kb binding sites"] == "greek_abbreviation+number"


def test_lexicon_keeps_counts_and_drops_unreliable_strings(documents, greek):
    lexicon = learn_lexicon(documents, greek, LearnConfig(min_precision=0.4))
    (il2,) = lexicon.entries["il 2"]
    assert (il2.hpo_ids[0], il2.surface, il2.source, il2.case_sensitive) == ("PROTEIN", "IL-2", "train:2/2", True)
    # 'Binding' is annotated once but occurs four times: 1/4 < 0.4
    assert "binding" not in lexicon.entries
    assert "binding" in learn_lexicon(documents, greek, LearnConfig(min_precision=0.25)).entries


def test_symbols_match_in_their_case_only(tagger):
    assert found(tagger, "IL-2 and il-2") == [("IL-2", "PROTEIN")]


def test_variants_match_with_provenance(tagger):
    (entity,) = tagger("NF-kB was active")
    assert entity.label == "PROTEIN"
    assert entity.provenance == ("lexicon:nf kappa b=PROTEIN|train:1/1|greek_abbreviation",)


def test_head_word_rule_extends_over_learned_modifiers(tagger):
    # 'activated' and 'human' sit inside training entities; 'B cells' was never seen.
    text = "in activated human B cells"
    (entity,) = tagger(text)
    assert (text[entity.start : entity.end], entity.label) == ("activated human B cells", "CELL_TYPE")
    assert entity.provenance[0] == "rule:head_cells"


def test_head_word_type_follows_the_modifiers(tagger):
    # 'Jurkat' was seen only inside a CELL_LINE, so '... cells' after it is a cell line.
    assert found(tagger, "Jurkat B cells") == [("Jurkat B cells", "CELL_LINE")]


def test_head_rules_and_shape_rules_can_be_switched_off(documents):
    model = learn_model_from(documents)
    bare = Tagger(model.matcher, model.modifiers, (), (), TagConfig(head_rules=False, shape_rules=False))
    assert found(bare, "in activated human B cells") == []


def test_shape_rule_tags_an_unseen_symbol(tagger):
    (entity,) = tagger("Stat5 binds")
    assert (entity.label, entity.provenance) == ("PROTEIN", ("rule:shape_mixed_digits",))


def test_rule_files_are_data(tmp_path):
    heads = read_head_rules(rules_dir() / "head_words.tsv")
    assert any(rule.words == ("cell", "lines") and rule.types == ("CELL_LINE",) for rule in heads)
    assert read_shape_rules(rules_dir() / "shape_rules.tsv")
    bad = tmp_path / "heads.tsv"
    bad.write_text("head_x\tcells\tCELLS\n")
    with pytest.raises(Exception, match="unknown type 'CELLS'"):
        read_head_rules(bad)


def test_tagging_is_deterministic(documents):
    text = "IL-2 gene expression requires NF-kappa B in human T cells"
    first = [t for t in make_tagger(learn_model_from(documents))(text)]
    assert first == make_tagger(learn_model_from(documents))(text)


def test_cli_evaluate_prints_per_type_table():
    result = CliRunner().invoke(main, ["jnlpba", "evaluate", "--test", str(TEST), "--train", str(TRAIN), "--no-cache"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["type", "P", "R", "F1", "gold", "pred", "tp"]
    assert any(line.startswith("overall") for line in lines)
    assert "token accuracy" in result.output


def test_cli_evaluate_uses_the_cache(tmp_path):
    args = ["jnlpba", "evaluate", "--test", str(TEST), "--train", str(TRAIN), "--json"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert any(p.name.startswith("jnlpba-") for p in Path(__import__("os").environ["PHENORULES_CACHE"]).iterdir())
    second = CliRunner().invoke(main, args)
    assert second.output.split('"seconds"')[0] == first.output.split('"seconds"')[0]


def test_cli_predict_writes_evalscope_responses(tmp_path):
    out = tmp_path / "pred.jsonl"
    result = CliRunner().invoke(main, ["jnlpba", "predict", "--test", str(TEST), "--train", str(TRAIN), "--no-cache", "-o", str(out)])
    assert result.exit_code == 0, result.output
    import json

    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3
    for record in records:
        assert response_to_tags(record["response"], record["tokens"]) == record["tags"]
        assert all(entity["provenance"] for entity in record["entities"])


def test_cli_bad_input_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["jnlpba", "evaluate", "--test", str(tmp_path / "missing.iob2"), "--train", str(TRAIN)])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "no such file" in result.output


def test_dev_split_finds_the_abstracts_of_an_iob2_file(documents, tmp_path):
    assert text_signature("IL-2 binds ``x''.") == text_signature("IL-2 binds 'x'")
    dev = tmp_path / "dev.iob2"
    dev.write_text("-DOCSTART-\tO\n\nBinding\tB-protein\nof\tO\nGATA-1\tB-protein\nto\tO\nthe\tO\nglobin\tB-DNA\nenhancer\tI-DNA\nwas\tO\n"
                   "weak\tO\nin\tO\nhuman\tB-cell_type\nmonocytes\tI-cell_type\n.\tO\n\nBinding\tO\nagain\tO\n.\tO\n\n-DOCSTART-\tO\n\nunknown\tO\n")
    split = split_by_dev_file(documents, read_iob2_documents(dev))
    assert (split.matched, split.unmatched, len(split.sentences)) == (1, 1, 2)
    assert [d.doc_id for d in split.learn] == ["doc1", "doc2"]


def test_evalscope_adapter_answers_the_prompt_sentence(tagger):
    prompt = "You are a named entity recognition system ...\n\nText to process:\nJurkat cells express IL-2 .\n"
    assert sentence_tokens(prompt) == ["Jurkat", "cells", "express", "IL-2", "."]
    assert respond(tagger, prompt) == "<response><cell_line>Jurkat cells</cell_line> express <protein>IL-2</protein> .</response>"


def test_modifier_counts(documents):
    modifiers = learn_modifiers(documents)
    assert modifiers.before_head["human"] == {"CELL_TYPE": 2}
    assert modifiers.share_inside("human") == 1.0
    assert modifiers.share_closing("cells") == pytest.approx(4 / 4)


def test_bracketed_abbreviation_takes_the_type_of_its_long_form(tagger):
    text = "the globin enhancer ( GE ) and GE again"
    assert found(tagger, text) == [("globin enhancer", "DNA"), ("GE", "DNA"), ("GE", "DNA")]
    assert tagger(text)[1].provenance == ("rule:bracketed_abbreviation", "defined_by:globin enhancer")


def test_right_extension_over_closing_words(tagger):
    # 'B' closes 'NF-kappa B' in training, so it extends 'GATA-1' too.
    text = "GATA-1 B binds"
    (entity,) = tagger(text)
    assert (text[entity.start : entity.end], entity.provenance[-1]) == ("GATA-1 B", "rule:extend_right")
