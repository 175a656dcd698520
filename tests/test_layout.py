"""The layout the README and docs/architecture.md draw is the package's tree: every folder
and root module of phenorules/ has its row in the README's layout table, every module a row
names exists, the architecture picture runs the stages of rules/stages.tsv, and docs/context.md has
the settings of each."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "phenorules"


def layout_rows() -> list[tuple[str, str]]:
    """(path cell, what cell) of each row of the README's layout table."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("| layer | path | what |", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip().strip("|").split(" | ") for line in table.splitlines()[2:]]
    return [(cells[1], cells[2]) for cells in rows if len(cells) == 3]


def test_the_readme_layout_lists_every_folder_and_root_module_of_the_package():
    named = {name for path, _ in layout_rows() for name in re.findall(r"`([^`]+)`", path)}
    folders = {f"{path.name}/" for path in PACKAGE.iterdir() if path.is_dir() and path.name != "__pycache__"}
    modules = {path.name for path in PACKAGE.glob("*.py")} - {"__init__.py"}
    tasks = {f"tasks/{path.name}/" for path in (PACKAGE / "tasks").iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert (folders - {"tasks/"}) | modules | tasks <= named, sorted(((folders - {"tasks/"}) | modules | tasks) - named)


def test_every_module_the_readme_layout_names_exists():
    missing = []
    for path_cell, what in layout_rows():
        folders = [PACKAGE / name for name in re.findall(r"`([a-z_]+(?:/[a-z_]+)*)/`", path_cell) if (PACKAGE / name).is_dir()]
        for module in re.findall(r"`([a-z_/]+\.py)`", what):
            if folders and not any((folder / module).exists() or (PACKAGE / module).exists() or any(folder.rglob(module)) for folder in folders):
                missing.append(module)
    assert missing == []


def test_the_architecture_picture_runs_the_stages_in_their_order():
    stages = [line.split("\t")[0] for line in (ROOT / "rules" / "stages.tsv").read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    picture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("```", 2)[1]
    chain = " ".join(line for line in picture.splitlines() if "→" in line)
    chain = re.sub(r"rules/stages\.tsv|\([^)]*\)|──►", " ", chain)
    assert re.findall(r"[a-z_]+", chain) == stages, chain


def test_the_stage_settings_table_has_a_row_for_every_stage():
    stages = [line.split("\t")[0] for line in (ROOT / "rules" / "stages.tsv").read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    context = (ROOT / "docs" / "context.md").read_text(encoding="utf-8")
    table = context.split("| stage | module | data files | settings (`stage_config`) |", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("| ").split(" ", 1)[0] for line in table.splitlines()[2:]]
    assert sorted(rows) == sorted(stages)


MAX_ROOT_MODULES = 12  # the package root holds the entry points; the layers are folders


def test_the_package_root_holds_only_a_few_modules():
    assert len(list(PACKAGE.glob("*.py"))) <= MAX_ROOT_MODULES
