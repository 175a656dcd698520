"""The on-disk cache: an entry is read only under its own key, only from a regular file of
this user, and only when it holds what it should."""

import os
import shutil
import socket
import stat
from pathlib import Path

import pytest
import srsly

from phenorules import resources
from phenorules.knowledge_base import without_learned_files
from phenorules.lexicon import LexiconConfig

from conftest import FIXTURES, MINI_OBO, finishing

PATIENTPHEX = LexiconConfig()  # the patientphex profile's lexicon config
GENERAL = without_learned_files(LexiconConfig())  # the general profile's
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


def load(monkeypatch, config):
    """A fresh process's load: nothing in memory."""
    monkeypatch.setattr(resources, "_LOADED", {})
    return resources.load_resources(MINI_OBO, config=config)


def entries(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_size for path in folder.glob("*.cache")}


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
@pytest.mark.parametrize("cached", [_resources_entry, _disease_names_entry, _jnlpba_entry], ids=["lexicon", "disease names", "jnlpba model"])
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
    from phenorules.resources import read_cache_file, write_cache_file
    from phenorules.stages.names import disease_names, read_disease_names

    hpoa = tmp_path / "phenotype.hpoa"
    hpoa.write_text(HPOA, encoding="utf-8")
    disease_names.cache_clear()
    disease_names(str(hpoa))
    (entry,) = cache.glob("disease-names-*.cache")
    key = entry.stem.removeprefix("disease-names-")
    write_cache_file(entry, key, {"names": srsly.msgpack_dumps(contents)})
    assert read_cache_file(entry, key) is not None  # a whole entry of this key: only its contents are wrong
    disease_names.cache_clear()
    assert disease_names(str(hpoa)) == read_disease_names(hpoa)
    disease_names.cache_clear()


