"""Names are not findings: a phenotype's words inside a disease name or a gene's description."""

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from phenorules.core.document import PHENOTYPES, make_text_doc
from phenorules.core.errors import InputError
from phenorules.stages.pipeline import build_pipeline
from phenorules.kb.resources import data_dir
from phenorules.stages.names import name_key, read_disease_names, read_name_guards

from conftest import MINI_OBO

HPOA = (
    "#description: a few diseases\n"
    "database_id\tdisease_name\tqualifier\thpo_id\treference\n"
    "OMIM:100001\tAtaxia, spastic, type 2\t\tHP:0001251\tPMID:1\n"
    "OMIM:100001\tAtaxia, spastic, type 2\t\tHP:0001250\tPMID:1\n"
    "OMIM:100002\tCleft palate, isolated\t\tHP:0000175\tPMID:2\n"
)


GENES = (
    "ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id\n"
    "9001\tSSH1\tHP:0004322\tShort stature\t-\tOMIM:100003\n"
    "9002\tHIC2\tHP:0000365\tHearing impairment\t-\tOMIM:100004\n"
    "9003\tCP\tHP:0001250\tSeizure\t-\tOMIM:100005\n"
    "9004\tLS3\tHP:0000365\tHearing impairment\t-\tOMIM:100006\n"
    "9005\tSPAX2\tHP:0001251\tAtaxia\t-\tOMIM:100001\n"
)


def _written(tmp_path_factory, name: str, text: str) -> str:
    path = tmp_path_factory.mktemp("data") / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def diseases(tmp_path_factory):
    return _written(tmp_path_factory, "phenotype.hpoa", HPOA)


@pytest.fixture(scope="module")
def genes(tmp_path_factory):
    return _written(tmp_path_factory, "genes_to_phenotype.txt", GENES)


@pytest.fixture(scope="module")
def names_nlp(diseases, genes):
    config = {"names": {"diseases_file": diseases, "genes_file": genes}}
    return build_pipeline(hpo=MINI_OBO, kb={"use_cache": False}, stage_config=config, profile="general")


def found(nlp, text):
    doc = nlp(make_text_doc(nlp, text))
    return [span.text for span in doc.spans[PHENOTYPES]], [(text[start:end], rule) for start, end, _, rule in doc._.dropped or []]


def test_a_phenotype_word_inside_a_disease_name_is_no_finding(names_nlp):
    guards = names_nlp.get_pipe("names").guards
    assert found(names_nlp, "She was diagnosed with spastic ataxia type 2.") == ([], [("ataxia", f"names:disease:{guards.disease}:OMIM:100001")])
    # OMIM's order or the text's: the same name
    assert found(names_nlp, "Ataxia, spastic, type 2 was suspected.")[0] == []


def test_a_disease_name_needs_a_mark_and_one_clause(names_nlp):
    # "Cleft palate, isolated" is a disease name too, but nothing marks the words as a name
    assert found(names_nlp, "He had an isolated cleft palate.") == (["cleft palate"], [])
    assert found(names_nlp, "She had ataxia. Spastic type 2 cells were seen.")[0] == ["ataxia"]
    assert found(names_nlp, "She had spastic ataxia.")[0] == ["ataxia"]


def test_a_phenotype_word_describing_a_gene_is_no_finding(names_nlp):
    gene_row = names_nlp.get_pipe("names").guards.after["gene"]
    assert found(names_nlp, "The hearing loss gene was sequenced; she had seizures.") == (["seizures"], [("hearing loss", f"names:after:{gene_row}")])
    assert found(names_nlp, "A hypotonia locus was mapped.")[0] == []


def test_the_patientphex_profile_keeps_names(mini_nlp):
    # its annotators mark a phenotype's words in names ("deafness genes", "Trigonocephaly 1")
    assert "names" not in mini_nlp.pipe_names
    assert found(mini_nlp, "The hearing loss gene was sequenced.")[0] == ["hearing loss"]


def test_the_disease_annotations_give_names_of_two_words_or_more(diseases, tmp_path):
    assert read_disease_names(Path(diseases)) == {("2", "ataxia", "spastic", "type"): "OMIM:100001", ("cleft", "isolated", "palate"): "OMIM:100002"}
    with pytest.raises(InputError, match="cannot read the disease annotations"):
        read_disease_names(tmp_path / "missing.hpoa")


def test_every_row_of_the_annotation_files_is_read_whatever_the_rows_before_it(tmp_path):
    """A file has a row per annotation, those of a disease or a gene together; a name or a
    symbol that changes inside a run, or an id that comes back, is read too."""
    from phenorules.stages.names import read_gene_symbols

    rows = [
        ("OMIM:1", "Ataxia type 1"), ("OMIM:1", "Ataxia type 1"), ("OMIM:1", "Ataxia type one"), ("OMIM:10", "Ataxia type 1"),
        ("OMIM:2", "Cleft palate isolated"), ("OMIM:1", "Ataxia type 1"), ("OMIM:3", "Short stature form"),
    ]
    hpoa = tmp_path / "phenotype.hpoa"
    hpoa.write_text("#a comment\ndatabase_id\tdisease_name\n" + "".join(f"{i}\t{name}\t\tHP:0000001\n" for i, name in rows), encoding="utf-8")
    assert read_disease_names(hpoa) == {
        ("1", "ataxia", "type"): "OMIM:1", ("ataxia", "one", "type"): "OMIM:1", ("cleft", "isolated", "palate"): "OMIM:2", ("form", "short", "stature"): "OMIM:3",
    }
    genes = tmp_path / "genes_to_phenotype.txt"
    symbols = [("10", "NAT2"), ("10", "NAT2"), ("100", "ADA"), ("10", "NAT2B"), ("2", "A2M")]
    genes.write_text("ncbi_gene_id\tgene_symbol\n" + "".join(f"{i}\t{symbol}\tHP:0000001\n" for i, symbol in symbols) + "3\tLAST", encoding="utf-8")
    assert read_gene_symbols(genes) == {"NAT2", "ADA", "NAT2B", "A2M"}


def test_a_guard_file_with_an_unknown_guard_is_refused(tmp_path):
    path = tmp_path / "guards.tsv"
    path.write_text("after\tgene\ninside\tgene\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"guards.tsv:2: unknown kind 'inside'"):
        read_name_guards(path)


def test_disease_names_are_read_once_then_from_the_cache(diseases, tmp_path, monkeypatch):
    from phenorules.stages.names import disease_names

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path / "cache"))
    disease_names.cache_clear()
    first = disease_names(diseases)
    (cached,) = (tmp_path / "cache").glob("disease-names-*.cache")
    disease_names.cache_clear()
    monkeypatch.setattr("phenorules.stages.names.read_disease_names", lambda path: pytest.fail("read again"))
    assert disease_names(diseases) == first == read_disease_names(Path(diseases))
    disease_names.cache_clear()


def test_a_phenotype_word_inside_the_name_a_gene_symbol_is_defined_with_is_no_finding(names_nlp):
    gene_row = names_nlp.get_pipe("names").guards.gene
    text = "Sequencing of SSH1 (short stature homolog 1) and of hearing impairment cluster 2 (HIC2) was normal; she had short stature."
    assert found(names_nlp, text) == (
        ["short stature"],
        [("short stature", f"names:gene:{gene_row}:SSH1"), ("hearing impairment", f"names:gene:{gene_row}:HIC2")],
    )
    # the alignment's long form is the shortest ("loss 3" for LS3): a mention begun before it ends inside it
    assert found(names_nlp, "Sequencing of hearing loss 3 (LS3) was normal.") == ([], [("hearing loss", f"names:gene:{gene_row}:LS3")])
    # a symbol that is a gene's and a phenotype's short form: the name is the mention itself
    assert found(names_nlp, "He had a cleft palate (CP) at birth.")[0] == ["cleft palate", "CP"]
    # a long form that is a disease's name too ("Ataxia, spastic, type 2"): the disease guard's to decide, and its
    # words are not the disease's as written ("type" is not written): kept
    assert found(names_nlp, "Spastic ataxia 2 (SPAX2) was suspected.") == (["ataxia"], [])
    # brackets beside no gene symbol, and a symbol beside brackets that do not define it
    assert found(names_nlp, "TEST1 (short stature homolog 1); SSH1 (see Table 2) and short stature.")[0] == ["short stature", "short stature"]


def test_a_phenotype_word_in_a_drug_class_or_a_precaution_is_no_finding(names_nlp):
    guards = names_nlp.get_pipe("names").guards
    text = "She takes anti-seizure drugs under seizure precautions; her brother has seizures."
    assert found(names_nlp, text) == (
        ["seizures"],
        [("seizure", f"names:before:{guards.before['anti']}"), ("seizure", f"names:after:{guards.after['precautions']}")],
    )


def test_gene_symbols_are_read_once_then_from_the_cache(genes, tmp_path, monkeypatch):
    from phenorules.stages.names import gene_symbols, read_gene_symbols

    monkeypatch.setenv("PHENORULES_CACHE", str(tmp_path / "cache"))
    gene_symbols.cache_clear()
    first = gene_symbols(genes)
    assert first == {"SSH1", "HIC2", "CP", "LS3", "SPAX2"}
    gene_symbols.cache_clear()
    monkeypatch.setattr("phenorules.stages.names.read_gene_symbols", lambda path: pytest.fail("read again"))
    assert gene_symbols(genes) == first == read_gene_symbols(Path(genes))
    gene_symbols.cache_clear()
    with pytest.raises(InputError, match="cannot read it"):
        gene_symbols(str(tmp_path / "missing.txt"))


def test_a_test_manoeuvre_named_with_its_test_is_no_finding(hpo_general_nlp):
    """Hyperventilation is the activation procedure of an EEG: with the test or a provocation
    named beside it, it is the test's, not the patient's breathing."""
    from conftest import hpo_mentions

    text = "Spike-wave bursts appeared on hyperventilation during the routine EEG. Hyperventilation induced absences. At rest she had hyperventilation."
    doc = hpo_general_nlp(make_text_doc(hpo_general_nlp, text))
    guards = hpo_general_nlp.get_pipe("names").guards
    manoeuvre = guards.manoeuvres["HP:0002883"]
    assert [(text[start:end], rule) for start, end, _, rule in doc._.dropped if rule.startswith("names:")] == [
        ("hyperventilation", f"names:manoeuvre:{manoeuvre}+{guards.tests['eeg']}"),
        ("Hyperventilation", f"names:manoeuvre:{manoeuvre}+{guards.tests['induced']}"),
    ]
    assert ("hyperventilation", ("HP:0002883",)) in hpo_mentions(hpo_general_nlp, text)


def _disease_around_whole_clause(stage, text, start, end):
    """Names.disease_around as read from every word of the clause: each run of words around
    the mention's, with a mark among the words it adds, looked up."""
    from itertools import accumulate

    from phenorules.stages.names import _WORD, MAX_NAME_WORDS, _clause, name_key

    words = [(found.start(), found.group()) for found in _WORD.finditer(text, *_clause(text, start, end))]
    inside = [i for i, (at, _) in enumerate(words) if start <= at < end]
    if not inside:
        return None
    first, last = inside[0], inside[-1]
    marks = list(accumulate((stage.mark(word) for _, word in words), initial=0))
    for i in range(max(0, last + 1 - MAX_NAME_WORDS), first + 1):
        for j in range(last, min(len(words), i + MAX_NAME_WORDS)):
            if (i, j) != (first, last) and marks[first] - marks[i] + marks[j + 1] - marks[last + 1]:
                disease_id = stage.diseases.get(name_key([word for _, word in words[i : j + 1]]))
                if disease_id is not None:
                    return disease_id
    return None


_NAME_WORDS = st.sampled_from(["x", "x", "x", "1", "tumor", "type", "ii", "wilms"])
_GAPS = st.sampled_from([" ", " ", " ", ", ", ". ", "-", ""])


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(_GAPS, _NAME_WORDS), max_size=16).map(lambda parts: "".join(gap + word for gap, word in parts)), st.integers(0, 60), st.integers(0, 60), st.booleans())
@example("x x x x x x x 1", 14, 1, False)  # a name of eight words around a mention of one
@example("x x x x x x x 1", 0, 1, False)
@example("xx x x x x x x 1", 1, 2, True)  # a mention that starts inside a word
def test_the_disease_guard_reads_the_names_the_whole_clause_holds(text, start_pick, end_pick, anywhere):
    """Names.disease_around reads only the words a name around the mention could take,
    from the mention outwards: it finds the disease the clause's words around it name."""
    from phenorules.stages.names import Names

    guards = read_name_guards(Path(data_dir("rules")) / "name_guards.tsv")
    names = ["wilms tumor 1", "tumor type ii", "x tumor type 1 x", "x x x x x x tumor 1", "x x x x x x x 1", "1 x x x x x x x", "xx x x x x x x 1"]
    stage = Names(guards, {name_key(name.split()): f"OMIM:{i}" for i, name in enumerate(names)})
    bounds = list(range(len(text) + 1)) if anywhere else sorted({0, len(text), *(i for found in re.finditer(r"\w+", text) for i in found.span())})
    start = bounds[start_pick % len(bounds)]
    ends = [bound for bound in bounds if bound >= start]
    end = ends[end_pick % len(ends)]
    assert stage.disease_around(text, start, end) == _disease_around_whole_clause(stage, text, start, end)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_GAPS, _NAME_WORDS), max_size=16).map(lambda parts: "".join(gap + word for gap, word in parts)), st.integers(0, 60), st.integers(0, 60), st.integers(1, 12))
@example("xx x x x x x x 1", 15, 1, 14)  # the first read cuts "xx": it is left out while there are more words than wanted
def test_the_words_around_a_mention_are_the_clause_s_however_far_the_first_read_reaches(text, start_pick, end_pick, reach):
    from unittest.mock import patch

    from phenorules.stages import names

    start = start_pick % (len(text) + 1)
    end = start + end_pick % (len(text) - start + 1)
    clause = names._clause(text, start, end)
    words = [(found.start(), found.group()) for found in names._WORD.finditer(text, *clause)]
    inside = [word for at, word in words if start <= at < end]
    first = next((i for i, (at, _) in enumerate(words) if at >= start), len(words))
    wanted = names.MAX_NAME_WORDS - len(inside)
    expected = ([word for _, word in words[max(0, first - wanted) : first]] if wanted > 0 else [], inside, [word for _, word in words[first + len(inside) :]][: max(0, wanted)])
    with patch.object(names, "_BEFORE_REACH", reach):
        assert names.words_around(text, start, end, *clause) == expected
