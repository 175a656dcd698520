"""Format plugins (the ``phenorules_formats`` entry point) load each on its own: one that
fails to import, or whose object is no Format, is left out with one warning line and every
command works without it; naming it in --from/--to is one error line. A plugin's reader,
check or writer that raises at run time is one line naming the format and the file or the
article, exit 2, and no output file changes.

The plugins are a distribution made in the test (a ``.dist-info`` with its
``entry_points.txt`` on ``sys.path``), found by importlib.metadata as an installed one is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import catalogue
import pytest
from click.testing import CliRunner

from phenorules.formats import registry
from phenorules.cli import main

from conftest import MINI_OBO

GROUP = "phenorules_formats"  # the entry point of format plugins
ENTRY_POINTS = {
    "broken": "plugin_broken:FORMAT",
    "notformat": "plugin_notformat:FORMAT",
    "misnamed": "plugin_runtime:MISNAMED",
    "jsonl": "plugin_runtime:SHADOW",
    "badread": "plugin_runtime:BAD_READ",
    "badcheck": "plugin_runtime:BAD_CHECK",
    "badwrite": "plugin_runtime:BAD_WRITE",
    "nowrite": "plugin_runtime:NO_TEXT",
    "surrogate": "plugin_runtime:SURROGATE",
    "idlist": "plugin_runtime:ID_LIST",
}
MODULES = {
    "plugin_broken": 'raise RuntimeError("no module named\\nsomething")\n',
    "plugin_notformat": 'FORMAT = {"name": "notformat"}\n',
    "plugin_runtime": textwrap.dedent(
        """
        from phenorules.formats.registry import Format


        def read(name, data, text_id, on_error):
            raise ValueError("unreadable " + name)


        def check(articles):
            if any(article.id == "A2" for article in articles):
                raise KeyError("A2")


        def write(results):
            if any(result.article.id == "A2" for result in results):
                raise ZeroDivisionError("division by zero")
            return "written\\n"


        def id_list(results):
            return "".join(result.article.id + "\\n" for result in results)


        MISNAMED = Format("other", "another name", "x", write=id_list)
        SHADOW = Format("jsonl", "a second jsonl", "x", write=id_list)
        BAD_READ = Format("badread", "raises reading", "x", read=read)
        BAD_CHECK = Format("badcheck", "raises checking", "x", write=id_list, check=check)
        BAD_WRITE = Format("badwrite", "raises writing", "x", write=write)
        NO_TEXT = Format("nowrite", "writes no text", "x", write=lambda results: None)
        SURROGATE = Format("surrogate", "writes no Unicode text", "surrogates", write=lambda results: "\\ud800\\n")
        ID_LIST = Format("idlist", "an id a line", "ids", write=id_list)
        """
    ),
}
WARNINGS = [
    "phenorules: warning: format plugin broken (plugin_broken:FORMAT): RuntimeError: no module named\\nsomething; left out",
    "phenorules: warning: format plugin jsonl (plugin_runtime:SHADOW): jsonl is a built-in format; left out",
    "phenorules: warning: format plugin misnamed (plugin_runtime:MISNAMED): its Format is named 'other'; left out",
    "phenorules: warning: format plugin notformat (plugin_notformat:FORMAT): a dict, not a phenorules.formats.registry.Format; left out",
]
PREVIOUS = b"previous output\n"


def make_distribution(root) -> str:
    """A distribution of the plugins under ``root``, as pip would install it."""
    info = root / "phenorules_test_plugins-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: phenorules-test-plugins\nVersion: 1.0\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in ENTRY_POINTS.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}", encoding="utf-8")
    for module, source in MODULES.items():
        (root / f"{module}.py").write_text(source, encoding="utf-8")
    return str(root)


def forget_plugins(monkeypatch) -> None:
    """The registry as a new process finds it: no plugin loaded, registered or warned of."""
    for name in set(ENTRY_POINTS) - {"jsonl"}:
        if name in registry.FORMATS:
            catalogue._remove([*registry.FORMATS.namespace, name])
    for module in MODULES:
        sys.modules.pop(module, None)
    for state, empty in (("_known", dict), ("_plugins", dict), ("_warned", set)):
        monkeypatch.setattr(registry, state, empty(), raising=False)


@pytest.fixture(autouse=True)
def _built_lexicon(_isolated_cache):
    """The lexicon cache built before each command, whose log lines would come first."""
    from phenorules.kb.resources import load_knowledge_base

    load_knowledge_base(MINI_OBO)


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(make_distribution(tmp_path / "site"))
    forget_plugins(monkeypatch)
    yield
    forget_plugins(monkeypatch)


@pytest.fixture
def articles(tmp_path):
    source = tmp_path / "in.jsonl"
    passages = [{"section_type": "ABSTRACT", "type": "abstract", "offset": 0, "text": "A girl had seizures."}]
    source.write_text("".join(json.dumps({"pmc_id": i, "patient": [], "full_text": passages}) + "\n" for i in ("A1", "A2")), encoding="utf-8")
    return source


def run(*args):
    return CliRunner().invoke(main, [*args, "--hpo", MINI_OBO] + (["-q"] if args[0] != "info" else []))


def assert_one_error(result, message):
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2 and result.stderr == f"phenorules: error: {message}\n", result.stderr


def test_broken_plugins_are_left_out_with_one_warning_each_and_every_command_works(plugins, articles, tmp_path, monkeypatch):
    """Each command a process of its own: the registry forgets the plugins between them."""
    info = run("info")
    assert info.exit_code == 0 and info.stderr.splitlines() == WARNINGS, info.stderr
    listed = [line.split(":")[0].strip() for line in info.stdout.split("formats:", 1)[1].splitlines()[1:]]
    assert listed == ["badcheck", "badread", "badwrite", "bioc", "bioc-xml", "docbin", "evidence", "idlist", "nowrite", "patientphex", "pubtator", "surrogate", "text"]
    assert "  patientphex: PatientPheX JSONL, read and written, .jsonl .ndjson" in info.stdout
    out = tmp_path / "out.jsonl"
    forget_plugins(monkeypatch)
    predicted = run("predict", str(articles), "-o", str(out))
    assert predicted.exit_code == 0 and predicted.stderr.splitlines() == WARNINGS, predicted.stderr
    assert [json.loads(line)["pmc_id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["A1", "A2"]
    forget_plugins(monkeypatch)
    annotated = run("annotate", str(articles))
    assert annotated.exit_code == 0 and annotated.stderr.splitlines() == WARNINGS and "HP:0001250" in annotated.stdout
    listed_ids = run("predict", str(articles), "--to", "idlist")
    assert listed_ids.exit_code == 0 and listed_ids.stdout == "A1\nA2\n"


def test_a_format_named_by_its_option_loads_only_its_own_plugin(plugins, articles):
    done = run("predict", str(articles), "--from", "jsonl", "--to", "idlist")
    assert done.exit_code == 0 and done.stderr == "" and done.stdout == "A1\nA2\n"
    assert "plugin_broken" not in sys.modules and "plugin_notformat" not in sys.modules


@pytest.mark.parametrize(
    "option, name, problem",
    [
        ("--to", "broken", "format plugin broken (plugin_broken:FORMAT): RuntimeError: no module named\\nsomething"),
        ("--from", "broken", "format plugin broken (plugin_broken:FORMAT): RuntimeError: no module named\\nsomething"),
        ("--to", "notformat", "format plugin notformat (plugin_notformat:FORMAT): a dict, not a phenorules.formats.registry.Format"),
        ("--from", "misnamed", "format plugin misnamed (plugin_runtime:MISNAMED): its Format is named 'other'"),
    ],
)
def test_naming_a_broken_plugin_is_one_error_line(plugins, articles, option, name, problem):
    assert_one_error(run("predict", str(articles), option, name), f"{option} {name}: {problem}")


def test_a_plugin_that_raises_reading_is_one_line_naming_the_format_and_the_file(plugins, articles):
    assert_one_error(run("predict", str(articles), "--from", "badread"), f"{articles}: format badread: cannot read: ValueError: unreadable {articles}")


@pytest.mark.parametrize(
    "name, message",
    [
        ("badwrite", "format badwrite: cannot write article A2: ZeroDivisionError: division by zero"),
        ("badcheck", "format badcheck: cannot check article A2: KeyError: 'A2'"),
        ("nowrite", "format nowrite: its writer gave NoneType, not text or bytes"),
        ("surrogate", "{out}: cannot write the surrogates: '\\ud800' is a lone UTF-16 surrogate, not Unicode text"),
    ],
)
def test_a_plugin_that_raises_checking_or_writing_is_one_line_naming_the_article_and_no_file_changes(plugins, articles, tmp_path, name, message):
    out = tmp_path / "out.txt"
    out.write_bytes(PREVIOUS)
    assert_one_error(run("predict", str(articles), "--from", "jsonl", "--to", name, "-o", str(out)), message.format(out=out))
    assert out.read_bytes() == PREVIOUS and sorted(os.listdir(tmp_path)) == ["in.jsonl", "out.txt", "site"]


def test_a_broken_plugin_installed_with_the_package_leaves_a_fresh_process_working(tmp_path, articles):
    site = make_distribution(tmp_path / "site")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([site, *sys.path]))
    done = subprocess.run([sys.executable, "-m", "phenorules", "predict", str(articles), "--from", "jsonl", "--to", "idlist", "--hpo", MINI_OBO, "-q"], env=environment, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "A1\nA2\n" and done.stderr == "", done.stderr
    done = subprocess.run([sys.executable, "-m", "phenorules", "info", "--hpo", MINI_OBO], env=environment, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.splitlines()[-len(WARNINGS) :] == WARNINGS and "Traceback" not in done.stderr
