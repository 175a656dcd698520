"""The command's stand-in for spaCy's command-line modules (phenorules.core.spacy_cli), each
check in a new interpreter: the stand-in is put in place before spaCy is imported."""

import subprocess
import sys
from pathlib import Path

from conftest import MINI_OBO


def _python(code: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, **kwargs)


def test_spacy_imports_without_its_commands_and_info_still_answers():
    done = _python(
        "import sys\n"
        "from phenorules.core.spacy_cli import defer_spacy_commands\n"
        "defer_spacy_commands()\n"
        "import spacy\n"
        "spacy.blank('en')\n"
        "assert not any(name == 'spacy.cli' or name.startswith(('weasel', 'httpx', 'typer')) for name in sys.modules), sorted(sys.modules)\n"
        "found = spacy.info(markdown=False, silent=True)\n"
        "assert found['spacy_version'] == spacy.__version__, found\n"
        "real = sys.modules['spacy.cli.info']\n"
        "assert type(real) is type(sys) and hasattr(real, 'info_spacy') and 'spacy.cli' in sys.modules\n"
    )
    assert done.returncode == 0, done.stderr


def test_importing_spacy_cli_loads_every_command_the_info_command_included():
    """spaCy's command group as a process without the stand-in has it."""
    commands = (
        "import sys\n"
        "from spacy.cli import app, info\n"
        "assert sys.modules['spacy.cli.info'].info is info\n"
        "print(sorted(command.name or command.callback.__name__ for command in app.registered_commands))\n"
    )
    deferred = _python("from phenorules.core.spacy_cli import defer_spacy_commands\ndefer_spacy_commands()\nimport spacy\n" + commands)
    plain = _python("import spacy\n" + commands)
    assert deferred.returncode == plain.returncode == 0, deferred.stderr + plain.stderr
    assert deferred.stdout == plain.stdout and "'info'" in deferred.stdout


def test_a_process_that_imported_spacy_first_is_left_as_it_is():
    done = _python(
        "import sys, spacy\n"
        "from phenorules.core.spacy_cli import defer_spacy_commands\n"
        "before = dict(sys.modules), list(sys.meta_path)\n"
        "defer_spacy_commands()\n"
        "assert (dict(sys.modules), list(sys.meta_path)) == before\n"
    )
    assert done.returncode == 0, done.stderr


def test_the_command_annotates_without_importing_spacys_commands(tmp_path):
    """``python -m phenorules predict``: the same bytes as the library's, and no module of
    spaCy's command line in ``-X importtime``'s list."""
    example = Path(__file__).parent.parent / "examples" / "example_article.jsonl"
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "phenorules", "predict", str(example), "-o", str(out), "--hpo", MINI_OBO, "-q"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "spacy.language" in imported and not [name for name in imported if name.startswith("spacy.cli")]
    assert out.read_text(encoding="utf-8").count("entities") >= 1
