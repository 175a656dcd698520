"""The on-disk cache: within its budget, least recently used first; shared by checkouts whose
inputs are the same; an entry is read only under its own key, only from a regular file of
this user, and only when it holds what it should; a first build says so on stderr."""

import os
import shutil
import socket
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import srsly

from phenorules.kb import resources
from phenorules.core.errors import SettingError
from phenorules.kb.knowledge_base import without_learned_files
from phenorules.kb.lexicon import LexiconConfig

from conftest import FIXTURES, MINI_OBO, finishing

PATIENTPHEX = LexiconConfig()  # the patientphex profile's lexicon config
GENERAL = without_learned_files(LexiconConfig())  # the general profile's
SHORTER_KEYS = replace(LexiconConfig(), min_key_length=4)  # a kb setting of the spaCy component
MEGABYTE = 1 << 20  # the unit of PHENORULES_CACHE_MB, as du -h counts
GENES = "ncbi_gene_id\tgene_symbol\thpo_id\n9001\tSSH1\tHP:0004322\n9002\tHIC2\tHP:0000365\n"
HPOA = "#description: two diseases\nOMIM:100001\tAtaxia, spastic, type 2\t\tHP:0001251\tPMID:1\nOMIM:100002\tCleft palate, isolated\t\tHP:0000175\tPMID:2\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder, and nothing loaded in memory."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("PHENORULES_CACHE", str(folder))
    monkeypatch.setattr(resources, "_LOADED", {})
    return folder


@pytest.fixture
def builds(monkeypatch):
    """The lexicon config of each lexicon built."""
    built = []
    lexicon_parts = resources.lexicon_parts
    monkeypatch.setattr(resources, "lexicon_parts", lambda *args: built.append(args[2]) or lexicon_parts(*args))
    return built


def load(monkeypatch, config, checkout=None):
    """A fresh process's load: nothing in memory."""
    monkeypatch.setattr(resources, "_LOADED", {})
    return resources.load_knowledge_base(str(checkout / "hp.obo") if checkout else MINI_OBO, checkout / "lexicons" if checkout else None, config)



def test_the_store_in_a_process_of_its_own_takes_its_large_blocks_fresh(cache, monkeypatch):
    """The cache file's bytes are the same at every build: pyahocorasick leaves bytes of
    its 16 MB blocks unwritten, zero in memory fresh from the system."""
    done = []
    store = resources.store
    monkeypatch.setattr(resources, "BACKGROUND_CACHE_ROWS", 0)
    monkeypatch.setattr(resources, "in_background", lambda work: work() or True)  # the forked process's work, here
    monkeypatch.setattr(resources, "large_blocks_from_the_system", lambda: done.append("fresh blocks"))
    monkeypatch.setattr(resources, "store", lambda *args: done.append("stored") or store(*args))
    resources.load_knowledge_base(MINI_OBO)
    assert done == ["fresh blocks", "stored"]
    assert len(list(cache.glob("resources-*.cache"))) == 1

def checkout(root: Path) -> Path:
    """A checkout's own lexicon folder and ontology file, the same as this one's."""
    shutil.copytree(resources.data_dir("lexicons"), root / "lexicons")
    shutil.copyfile(MINI_OBO, root / "hp.obo")
    return root


def entries(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_size for path in folder.glob("*.cache")}


def test_three_configs_from_two_checkouts_share_three_entries_and_keep_to_the_budget(cache, builds, tmp_path, monkeypatch):
    first, second = checkout(tmp_path / "first"), checkout(tmp_path / "second")
    for config in (PATIENTPHEX, GENERAL, SHORTER_KEYS):
        assert load(monkeypatch, config, first).ontology.path == str(first / "hp.obo")
    sizes = entries(cache)
    assert len(sizes) == 3 and len(builds) == 3
    for config in (PATIENTPHEX, GENERAL, SHORTER_KEYS):
        assert load(monkeypatch, config, second).ontology.path == str(second / "hp.obo")
    assert entries(cache).keys() == sizes.keys() and len(builds) == 3  # the second checkout built nothing

    # A budget that holds any two entries but not the three: after each run, the entries fit it.
    budget = sum(sizes.values()) - min(sizes.values()) // 2
    monkeypatch.setenv("PHENORULES_CACHE_MB", str(budget / MEGABYTE))
    shutil.rmtree(cache)
    for config in (PATIENTPHEX, GENERAL, SHORTER_KEYS, GENERAL):
        for source in (first, second):
            load(monkeypatch, config, source)
            assert sum(entries(cache).values()) <= budget
    assert len(entries(cache)) == 2


def test_the_least_recently_used_entry_goes_first(cache, builds, monkeypatch):
    load(monkeypatch, PATIENTPHEX)
    (patientphex,) = entries(cache)
    load(monkeypatch, GENERAL)
    (general,) = set(entries(cache)) - {patientphex}
    sizes = entries(cache)
    monkeypatch.setenv("PHENORULES_CACHE_MB", str((sum(sizes.values()) + min(sizes.values()) // 2) / MEGABYTE))
    os.utime(cache / patientphex, (1000, 1000))  # written long ago, the patientphex entry first
    os.utime(cache / general, (1001, 1001))
    load(monkeypatch, PATIENTPHEX)  # read: the patientphex entry is now the more recently used
    load(monkeypatch, SHORTER_KEYS)
    assert len(builds) == 3
    load(monkeypatch, PATIENTPHEX)
    assert len(builds) == 3  # kept; the general entry went
    load(monkeypatch, GENERAL)
    assert builds[-1] == GENERAL and len(builds) == 4


def test_the_key_is_the_lexicon_files_contents_and_names_not_their_folder(tmp_path):
    first, second = checkout(tmp_path / "first"), checkout(tmp_path / "second")
    key = resources.resources_key(MINI_OBO, first / "lexicons", PATIENTPHEX)
    assert resources.resources_key(MINI_OBO, second / "lexicons", PATIENTPHEX) == key
    (second / "lexicons" / "extra_terms.tsv").write_text("small head\tHP:0000252\n", encoding="utf-8")
    assert resources.resources_key(MINI_OBO, second / "lexicons", PATIENTPHEX) != key
    shutil.copyfile(first / "lexicons" / "extra_terms.tsv", second / "lexicons" / "extra_terms.tsv")
    (second / "lexicons" / "spelling_rules.tsv").rename(second / "lexicons" / "spellings.tsv")
    assert resources.resources_key(MINI_OBO, second / "lexicons", PATIENTPHEX) != key


@pytest.mark.parametrize("given", ["abc", "-1", "nan", "inf", "1e400"])
def test_a_budget_that_is_not_a_number_of_megabytes_is_refused_naming_the_variable(given, cache, builds, monkeypatch):
    monkeypatch.setenv("PHENORULES_CACHE_MB", given)
    with pytest.raises(SettingError, match=f"^PHENORULES_CACHE_MB: '{given}' is not a number of megabytes"):
        load(monkeypatch, PATIENTPHEX)
    assert builds == []


def test_a_budget_of_nothing_keeps_nothing(cache, monkeypatch):
    load(monkeypatch, GENERAL)
    monkeypatch.setenv("PHENORULES_CACHE_MB", "0")
    assert load(monkeypatch, PATIENTPHEX).matcher("seizures")
    assert entries(cache) == {}


def test_info_says_where_the_cache_is_what_it_holds_and_how_to_clear_it(cache):
    from click.testing import CliRunner

    from phenorules.cli import main

    done = CliRunner().invoke(main, ["info", "--hpo", MINI_OBO], env={"PHENORULES_CACHE_MB": "50"})
    (line,) = [line for line in done.output.splitlines() if line.startswith("cache:")]
    size = sum(entries(cache).values()) / MEGABYTE
    assert line == f"cache:     {cache}: {size:.1f} MB in 1 entry, at most 50 MB (PHENORULES_CACHE_MB); clear: rm -r {cache}"


def test_an_entry_copied_under_another_entrys_name_is_not_read_as_that_entry(cache, builds, monkeypatch):
    general = load(monkeypatch, GENERAL).matcher.rows
    (general_entry,) = entries(cache)
    patientphex = load(monkeypatch, PATIENTPHEX).matcher.rows
    assert list(general) != list(patientphex)
    (patientphex_entry,) = set(entries(cache)) - {general_entry}
    shutil.copyfile(cache / patientphex_entry, cache / general_entry)
    again = load(monkeypatch, GENERAL).matcher.rows
    assert builds[-1] == GENERAL and len(builds) == 3  # absent, so rebuilt
    assert [again[i] for i in range(len(again))] == list(general)


def _resources_entry(monkeypatch, tmp_path):
    return lambda: sorted(load(monkeypatch, PATIENTPHEX).ontology.names.items())


def _disease_names_entry(monkeypatch, tmp_path):
    from phenorules.stages.names import disease_names

    hpoa = tmp_path / "phenotype.hpoa"
    hpoa.write_text(HPOA, encoding="utf-8")
    return lambda: disease_names.cache_clear() or sorted(disease_names(str(hpoa)).items())


def _gene_symbols_entry(monkeypatch, tmp_path):
    from phenorules.stages.names import gene_symbols

    genes = tmp_path / "genes_to_phenotype.txt"
    genes.write_text(GENES, encoding="utf-8")
    return lambda: gene_symbols.cache_clear() or sorted(gene_symbols(str(genes)))


def _jnlpba_entry(monkeypatch, tmp_path):
    from phenorules.tasks.jnlpba.model import load_model

    return lambda: sorted(load_model(FIXTURES / "jnlpba_train").matcher.automaton.items())


def _socket(path):
    here = os.getcwd()
    os.chdir(path.parent)  # a socket's path is at most 107 bytes: bound by its name alone
    try:
        socket.socket(socket.AF_UNIX).bind(path.name)
    finally:
        os.chdir(here)


NOT_REGULAR = {
    "fifo": os.mkfifo,
    "directory": os.mkdir,
    "socket": _socket,
    "symlink to /dev/zero": lambda path: path.symlink_to("/dev/zero"),
    "symlink to /dev/null": lambda path: path.symlink_to("/dev/null"),
    "symlink to a fifo": lambda path: (os.mkfifo(path.with_name("fifo")), path.symlink_to(path.with_name("fifo"))),
    "symlink to the entry moved aside": lambda path: path.symlink_to(path.with_name("moved")),
    "dangling symlink": lambda path: path.symlink_to(path.with_name("nowhere")),
}


@pytest.mark.parametrize("kind", NOT_REGULAR)
@pytest.mark.parametrize(
    "cached", [_resources_entry, _disease_names_entry, _gene_symbols_entry, _jnlpba_entry], ids=["lexicon", "disease names", "gene symbols", "jnlpba model"]
)
def test_a_cache_file_that_is_not_a_regular_file_is_absent(cached, kind, cache, tmp_path, monkeypatch):
    run = cached(monkeypatch, tmp_path)
    expected = run()
    (entry,) = cache.glob("*.cache")
    entry.rename(entry.with_name("moved"))
    NOT_REGULAR[kind](entry)
    with finishing():
        assert run() == expected
        assert run() == expected  # and again, from what the first run wrote
    if kind != "directory":  # replaced by the rebuilt entry; a directory stays, and the entry is built each time
        assert stat.S_ISREG(os.lstat(entry).st_mode)


@pytest.mark.parametrize(
    "contents",
    [
        {"a": 1},
        "names",
        None,
        [["ataxia", "OMIM:1"]],
        [[["ataxia"], 1]],
        [[["ataxia", 2], "OMIM:1"]],
        [[["ataxia"], "OMIM:1", "extra"]],
        [[{"ataxia": 1}, "OMIM:1"]],
    ],
)
def test_a_disease_names_entry_of_well_formed_wrong_contents_is_read_again(contents, cache, tmp_path):
    from phenorules.stages.names import disease_names, read_disease_names

    hpoa = tmp_path / "phenotype.hpoa"
    hpoa.write_text(HPOA, encoding="utf-8")
    _rewritten_entry_is_read_again(cache, "disease-names", "names", contents, disease_names, read_disease_names, hpoa)


@pytest.mark.parametrize("contents", [{"a": 1}, "symbols", None, [1], ["SSH1", 2]])
def test_a_gene_symbols_entry_of_well_formed_wrong_contents_is_read_again(contents, cache, tmp_path):
    from phenorules.stages.names import gene_symbols, read_gene_symbols

    genes = tmp_path / "genes_to_phenotype.txt"
    genes.write_text(GENES, encoding="utf-8")
    _rewritten_entry_is_read_again(cache, "gene-symbols", "symbols", contents, gene_symbols, read_gene_symbols, genes)
    assert read_gene_symbols(genes) == {"SSH1", "HIC2"}


def _rewritten_entry_is_read_again(cache, kind, section, contents, cached, read, path):
    """The cache entry of ``cached(path)`` rewritten whole with its section holding
    ``contents``: it is read from the file again, as ``read`` reads it."""
    from phenorules.kb.cache_file import cache_budget, read_cache_file, store_entry

    cached.cache_clear()
    cached(str(path))
    (entry,) = cache.glob(f"{kind}-*.cache")
    key = entry.stem.removeprefix(f"{kind}-")
    store_entry(entry, key, {section: srsly.msgpack_dumps(contents)}, cache_budget())
    assert read_cache_file(entry, key) is not None  # a whole entry of this key: only its contents are wrong
    cached.cache_clear()
    assert cached(str(path)) == read(path)
    cached.cache_clear()


@pytest.mark.parametrize(
    "setup, lines",
    [
        ("pass", ["phenorules: building the lexicon from {obo} (cached for later runs)"]),
        (
            "logging.basicConfig(level=logging.INFO, format='%(name)s: %(message)s')",
            ["phenorules.kb.resources: building the lexicon from {obo} (cached for later runs)", "phenorules.kb.resources: built the lexicon in "],
        ),
        ("logging.getLogger('phenorules').setLevel(logging.WARNING)", []),
    ],
    ids=["no logging set up", "logging set up", "silenced"],
)
def test_a_first_build_through_add_pipe_says_so_on_stderr_and_a_cached_load_says_nothing(setup, lines, tmp_path):
    code = f"import logging, spacy; {setup}; spacy.blank('en').add_pipe('phenorules', config={{'hpo': {MINI_OBO!r}, 'profile': 'patientphex'}})"
    env = {**os.environ, "PHENORULES_CACHE": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    said = first.stderr.splitlines()
    assert len(said) == len(lines) and all(line.startswith(start.format(obo=MINI_OBO)) for line, start in zip(said, lines)), first.stderr
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert again.stderr == ""


def test_a_large_file_s_digest_is_kept_until_the_file_is_written(cache, tmp_path, monkeypatch):
    """The digest of a file of a megabyte or more is read from its entry while the file's
    status stays; a write of the same length, even with the old modification time put
    back, changes the change time and the digest is taken again. A smaller file, or a
    budget of 0, keeps nothing."""
    from phenorules.kb import cache_file
    from phenorules.kb.cache_file import REMEMBERED_DIGEST_BYTES, remembered_digest
    from phenorules.kb.ontology import file_digest

    big = tmp_path / "big.obo"
    big.write_bytes(b"a" * REMEMBERED_DIGEST_BYTES)
    taken = []
    monkeypatch.setattr(cache_file, "_SETTLED_NS", -1)  # the file counts as settled at once

    def digest_of(path):
        taken.append(path)
        return file_digest(path)

    first = remembered_digest(str(big), digest_of, 1 << 30)
    assert remembered_digest(str(big), digest_of, 1 << 30) == first and len(taken) == 1
    assert [entry.name.startswith("file-digest-") for entry in cache.iterdir()] == [True]
    before = big.stat()
    big.write_bytes(b"b" * REMEMBERED_DIGEST_BYTES)
    os.utime(big, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert remembered_digest(str(big), digest_of, 1 << 30) == file_digest(str(big)) != first and len(taken) == 2
    small = tmp_path / "small.obo"
    small.write_bytes(b"a" * 10)
    remembered_digest(str(small), digest_of, 1 << 30)
    shutil.rmtree(cache)
    remembered_digest(str(big), digest_of, 0)
    assert len(taken) == 4 and not cache.exists()
    monkeypatch.setattr(cache_file, "_SETTLED_NS", 3_000_000_000)  # a file written just now is hashed each time
    remembered_digest(str(big), digest_of, 1 << 30)
    assert len(taken) == 5 and not cache.exists()
