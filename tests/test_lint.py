"""The code passes the linters configured in pyproject.toml: ruff (pyflakes, bugbear,
syntax) and import-linter (imports flow one way: core -> stages -> tasks -> application)."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_ruff_finds_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "phenorules", "tests", "benchmarks", "setup.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_imports_keep_the_layers():
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_module_of_the_package_is_in_a_layer():
    from importlinter.api import read_configuration

    (contract,) = read_configuration(str(ROOT / "pyproject.toml"))["contracts_options"]
    layered = {name.strip() for layer in contract["layers"] for name in layer.split(":")}
    package = ROOT / "phenorules"
    modules = {path.stem for path in package.glob("*.py") if path.name != "__init__.py"}
    modules |= {path.parent.name for path in package.glob("*/__init__.py")}
    assert modules == layered


def test_no_function_is_of_complexity_rank_d_or_worse():
    """radon's ranks: A-C up to 20 paths through a function, D from 21 (``radon cc -n D phenorules`` prints nothing)."""
    from radon.complexity import cc_rank, cc_visit

    ranked = []
    for path in sorted((ROOT / "phenorules").rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if cc_rank(block.complexity) >= "D":
                ranked.append(f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname} {cc_rank(block.complexity)} ({block.complexity})")
    assert ranked == []


MAX_MODULE_LINES = 500


def test_no_module_is_over_500_lines():
    long = {str(path.relative_to(ROOT)) for path in (ROOT / "phenorules").rglob("*.py") if len(path.read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES}
    assert long == set(), sorted(long)


def _import_graph():
    import grimp

    return grimp.build_graph("phenorules")


def test_only_the_command_line_uses_the_patientphex_task_and_the_registry_imports_formats_only():
    """The engine speaks Article, Phenotype and AnnotatedArticle; PatientPheX JSONL is one
    format of formats/, and the task's scorer, cross-validation and ablation are commands of
    the command line. The registry imports its built-in formats by name (they import it):
    each is a module of formats/, none of a layer import-linter would have to see."""
    from phenorules.formats import registry

    graph, task = _import_graph(), "phenorules.tasks.patientphex"
    importers = {
        module
        for module in graph.modules
        if not module.startswith(task) and any(imported.startswith(task) for imported in graph.find_modules_directly_imported_by(module))
    }
    assert importers == {"phenorules.cli"}
    assert all(module.startswith("phenorules.formats.") and module in graph.modules for module in registry.BUILT_IN)


def test_no_import_circle():
    import networkx as nx

    graph = _import_graph()
    edges = nx.DiGraph((module, imported) for module in graph.modules for imported in graph.find_modules_directly_imported_by(module))
    assert next(nx.simple_cycles(edges), None) is None


# Names that meant different things in different modules, each now defined by one module
# (coordination.read_rules is renamed where stages/coordination.py is split).
ONE_MEANING = {
    "read_rules": {"phenorules/kb/lexicon/tsv.py", "phenorules/stages/coordination.py"},
    "non_overlapping": {"phenorules/kb/matcher.py"},
    "load_knowledge_base": {"phenorules/kb/resources.py"},
    "load_resources": set(),
    "Article": {"phenorules/core/article.py"},
    "PatientMention": {"phenorules/patients/mentions.py"},
    "PatientShape": {"phenorules/formats/patientphex/io.py"},
    "passages_problem": {"phenorules/core/article.py"},
}


def test_a_public_name_of_several_meanings_is_defined_once():
    defined: dict[str, set[str]] = {name: set() for name in ONE_MEANING}
    for path in sorted((ROOT / "phenorules").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in defined:
                defined[node.name].add(str(path.relative_to(ROOT)))
    assert defined == ONE_MEANING
