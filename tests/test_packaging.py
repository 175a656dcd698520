"""After ``pip install phenorules``, spaCy finds the component with no import, and the data
folders, the HTML pages' templates and the curation page's assets ship inside the wheel.

Builds the sdist from a copy of the source tree, the wheel from the sdist (as a release
would), installs the wheel into a fresh venv and runs the three-line spaCy usage and the
command line there, in subprocesses outside the checkout. The venv sees this
environment's packages through a .pth file, so nothing is downloaded: only phenorules
itself is installed. Deselect with ``-m "not packaging"``.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import MINI_OBO

ROOT = Path(__file__).parent.parent
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "out", "*.egg-info", "__pycache__", ".pytest_cache")

USAGE = """
import json, sys
import spacy

nlp = spacy.blank("en")
nlp.add_pipe("phenorules", config={"hpo": sys.argv[1]})
doc = nlp("She had a cleft palate; her brother had seizures.")

stages = spacy.blank("en")
stages.add_pipe("phenorules_sentences")
stages.add_pipe("phenorules_match", config={"kb": {"hpo": sys.argv[1]}})
staged = stages(doc.text)
nlp.to_disk(sys.argv[2])
loaded = spacy.load(sys.argv[2])

import phenorules
from phenorules.kb.resources import data_dir
from phenorules.formats.patientphex.identifiers import task_identifier

print(json.dumps({
    "ents": [[ent.text, ent.label_, task_identifier(ent._.hpo_ids)] for ent in doc.ents],
    "stages": [[span.text, task_identifier(span._.hpo_ids)] for span in staged.spans["phenotypes"]],
    "loaded": [ent.text for ent in loaded(doc.text).ents],
    "package": phenorules.__file__,
    "data": [str(data_dir("lexicons")), str(data_dir("rules"))],
}))
"""


def run(*args, **kwargs):
    done = subprocess.run([str(arg) for arg in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{args[:3]} failed:\n{done.stderr}"
    return done.stdout


def build_wheel(work: Path) -> Path:
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    dist = work / "dist"
    sdist = run(sys.executable, "-c", f"from setuptools import build_meta; print(build_meta.build_sdist({str(dist)!r}))", cwd=source).split()[-1]
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", dist / sdist, "-w", dist, cwd=work)
    (wheel,) = dist.glob("phenorules-*.whl")
    return wheel


def fresh_venv(work: Path) -> Path:
    """A venv without pip or packages of its own, that sees this environment's packages."""
    venv = work / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site_packages = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages / "parent_environment.pth").write_text("".join(f"{path}\n" for path in ours), encoding="utf-8")
    return python


@pytest.mark.packaging
def test_wheel_installs_and_spacy_finds_phenorules_without_an_import(tmp_path):
    wheel = build_wheel(tmp_path)
    python = fresh_venv(tmp_path)
    # --ignore-installed: a checkout installed in this environment (pip install -e) is not
    # uninstalled, only shadowed.
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed", "--no-index", wheel)
    venv = python.parent.parent.resolve()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PHENORULES_CACHE"] = str(tmp_path / "cache")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    result = json.loads(run(python, "-c", USAGE, MINI_OBO, tmp_path / "model", cwd=elsewhere, env=env))
    assert result["ents"] == [["cleft palate", "PHENOTYPE", "HP:0000175"], ["seizures", "PHENOTYPE", "HP:0001250"]]
    assert result["stages"] == [["cleft palate", "HP:0000175"], ["seizures", "HP:0001250"]]
    assert result["loaded"] == ["cleft palate", "seizures"]
    assert Path(result["package"]).is_relative_to(venv)
    assert all(Path(folder).is_relative_to(venv) and any(Path(folder).iterdir()) for folder in result["data"])

    info = run(venv / "bin" / "phenorules", "info", "--hpo", MINI_OBO, cwd=elsewhere, env=env)
    assert f"from {venv}" in info

    # The HTML pages' templates and the curation page's assets ship with the package (no CDN).
    static = Path(run(python, "-c", "from phenorules.serve.app import STATIC_DIR; print(STATIC_DIR)", cwd=elsewhere, env=env).strip())
    assert static.is_relative_to(venv)
    assert {path.name for path in static.iterdir()} >= {"curation.js", "curation.css", "favicon.svg"}
    templates = static.parent.parent / "templates"
    assert {path.name for path in templates.iterdir()} >= {"view.html.j2", "curation.html.j2"}
    page = tmp_path / "view.html"
    run(venv / "bin" / "phenorules", "annotate", ROOT / "examples" / "example_article.jsonl", "--html", page, "--quiet", "--hpo", MINI_OBO, cwd=elsewhere, env=env)
    assert '<a href="#article-1">EXAMPLE1</a>' in page.read_text(encoding="utf-8")
    curation = run(python, "-c", "from phenorules.formats.view import page_config, render_template; print(render_template('curation.html.j2', config=page_config()))", cwd=elsewhere, env=env)
    assert '<script id="config" type="application/json">' in curation
