"""evalscope's own runner on JNLPBA and MedXpertQA against ``phenorules serve``, each score
beside phenorules' own evaluation of the same items (``make evalscope``).

1. Writes each benchmark in evalscope's local dataset layout (a ``dataset_id`` that is a
   folder is read by its ``LocalDataLoader`` as ``<subset>_<split>.jsonl``; nothing is
   fetched from a hub):
   - JNLPBA's test set (IOB2) as ``jnlpba/default_test.jsonl``, one ``{"tokens",
     "ner_tags"}`` a sentence (what its ``NERAdapter.record_to_sample`` reads);
   - the MedXpertQA sample as ``medxpertqa/Text_test.jsonl``, one question a line with
     ``options`` as ``{"A": text}`` and ``label`` a letter (what its
     ``MedXpertQAAdapter.record_to_sample`` reads). Its adapter loads a local folder with
     ``datasets.load_dataset(folder, name="Text", split="test")``, so a ``README.md``
     dataset card declares the ``Text`` config and its test file, as the hub's copy does.
   The run is offline (``HF_HUB_OFFLINE``, ``HF_DATASETS_OFFLINE``), with a fresh
   ``HF_DATASETS_CACHE`` under WORK_DIR.
2. Starts ``phenorules serve --port 0 --jnlpba-train DIR --enable measurements
   --request-timeout 600`` on 127.0.0.1 (``phenorules medxpertqa`` switches the
   measurements stage on; the JNLPBA tagger does not use the pipeline) and waits until
   ``GET /health`` answers 200 (503 while it loads).
3. Runs ``evalscope eval --model phenorules --api-url http://127.0.0.1:PORT/v1 --datasets
   jnlpba medxpertqa`` zero-shot (rules make no use of the prompt's examples).
4. Runs ``phenorules jnlpba evaluate --json`` and ``phenorules medxpertqa evaluate --json``
   on the same files, and prints one line per benchmark:
   ``<name> evalscope <score> phenorules <score> equal|DIFFERENT`` (JNLPBA: entity F1;
   MedXpertQA: accuracy, and the letter of every question must agree too; at the 4
   decimals evalscope's report keeps). Exits 1 if any line says DIFFERENT.

Usage: python benchmarks/evalscope_runs.py EVALSCOPE JNLPBA_DIR MEDXPERTQA.jsonl WORK_DIR [LIMIT]
A benchmark whose data is missing is skipped with a line saying so.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from phenorules.tasks.jnlpba.io import read_iob2

# The server answers /health at once, 200 once its pipeline and the JNLPBA tagger are
# loaded (a first start also builds the lexicon and learns the tagger).
READY_SECONDS = 600
NEAR_RANDOM = (
    "(near random: ten options, random 0.10; MedXpertQA asks mostly for mechanisms, tests and drugs, which no "
    "phenotype-knowledge answerer can tell apart; docs/medxpertqa.md)"
)

DATASET_CARD = """---
configs:
- config_name: Text
  data_files:
  - split: test
    path: Text_test.jsonl
---
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def write_jnlpba(test_path: Path, folder: Path, limit: int | None) -> tuple[Path, int]:
    sentences = read_iob2(str(test_path))[:limit]
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "default_test.jsonl", "w", encoding="utf-8") as out:
        for sentence in sentences:
            out.write(json.dumps({"tokens": list(sentence.tokens), "ner_tags": list(sentence.tags)}) + "\n")
    ours = folder / "test.iob2"  # the same sentences, for phenorules
    with open(ours, "w", encoding="utf-8") as out:
        out.writelines("".join(f"{t}\t{g}\n" for t, g in zip(s.tokens, s.tags)) + "\n" for s in sentences)
    log(f"jnlpba: {len(sentences)} sentences in {folder / 'default_test.jsonl'}")
    return ours, len(sentences)


def write_medxpertqa(sample: Path, folder: Path, limit: int | None) -> tuple[Path, int]:
    """The authors' layout (options a list of {letter, content}, label a one-letter list)
    in evalscope's; ``phenorules medxpertqa`` reads both."""
    records = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()][:limit]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "Text_test.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            options = {option["letter"]: option["content"] for option in record["options"]}
            label = record["label"][0] if isinstance(record["label"], list) else record["label"]
            out.write(json.dumps({**record, "options": options, "label": label, "images": []}, ensure_ascii=False) + "\n")
    (folder / "README.md").write_text(DATASET_CARD, encoding="utf-8")
    log(f"medxpertqa: {len(records)} questions in {path}")
    return path, len(records)


def start_server(jnlpba_train: Path | None) -> tuple[subprocess.Popen, str]:
    # A batch run: a request may wait for the three before it and for the knowledge build.
    command = [sys.executable, "-m", "phenorules", "serve", "--port", "0", "--enable", "measurements", "--request-timeout", "600"]
    if jnlpba_train is not None:
        command += ["--jnlpba-train", str(jnlpba_train)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()  # "phenorules: serving http://127.0.0.1:PORT/ (...)"
    if not line.startswith("phenorules: serving "):
        server.kill()
        sys.exit(f"evalscope: phenorules serve did not start: {line!r}")
    url = line.split()[2].rstrip("/")
    deadline = time.monotonic() + READY_SECONDS
    while server.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5):  # 200 once loaded; 503 (an OSError) before
                return server, url
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit(f"evalscope: phenorules serve did not get ready (GET /health 200) within {READY_SECONDS} s")


def report_scores(runs: Path, name: str, expected: int) -> dict:
    """Metric name -> score of evalscope's report; exits unless it scored ``expected`` items."""
    (report,) = sorted(runs.glob(f"**/reports/phenorules/{name}.json"))[-1:]
    metrics = json.loads(report.read_text())["metrics"]
    if any(metric["num"] != expected for metric in metrics):
        sys.exit(f"evalscope: its {name} report scored {metrics[0]['num']} items, not the {expected} written")
    return {metric["identity"]["name"]: metric["score"] for metric in metrics}


def evalscope_letters(runs: Path) -> dict[str, str]:
    """Question id -> the letter evalscope extracted from the server's response."""
    (reviews,) = sorted(runs.glob("**/reviews/phenorules/medxpertqa_Text.jsonl"))[-1:]
    scores = [json.loads(row)["sample_score"] for row in reviews.read_text(encoding="utf-8").splitlines() if row.strip()]
    return {score["sample_metadata"]["id"]: score["score"]["extracted_prediction"] for score in scores}


def ours(command: list[str]) -> dict:
    return json.loads(subprocess.run([sys.executable, "-m", "phenorules", *command, "--json"], check=True, capture_output=True, text=True).stdout)


def line(name: str, theirs: float, mine: float, note: str = "", agree: bool = True) -> tuple[str, bool]:
    equal = agree and round(mine, 4) == round(theirs, 4)  # evalscope's report keeps 4 decimals
    return f"{name} evalscope {theirs:.4f} phenorules {mine:.4f} {'equal' if equal else 'DIFFERENT'}{' ' + note if note else ''}", equal


def main() -> None:
    evalscope, jnlpba, sample, work = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    limit = int(sys.argv[5]) if len(sys.argv) > 5 else None
    test, train = jnlpba / "test" / "Genia4EReval1.iob2", jnlpba / "standoff" / "train"
    data, runs = work / "dataset", work / "runs"
    dataset_args, jnlpba_iob2, questions = {}, None, None
    if test.is_file() and train.is_dir():
        jnlpba_iob2, sentences = write_jnlpba(test, data / "jnlpba", limit)
        dataset_args["jnlpba"] = {"dataset_id": str((data / "jnlpba").resolve()), "few_shot_num": 0}
    else:
        log(f"jnlpba: skipped ({test} and {train} are the shared JNLPBA data)")
    if sample.is_file():
        questions, count = write_medxpertqa(sample, data / "medxpertqa", limit)
        dataset_args["medxpertqa"] = {"dataset_id": str((data / "medxpertqa").resolve()), "subset_list": ["Text"]}
    else:
        log(f"medxpertqa: skipped ({sample} is the shared MedXpertQA sample)")
    if not dataset_args:
        sys.exit("evalscope: no benchmark data found")
    server, url = start_server(train if jnlpba_iob2 else None)
    try:
        started = time.perf_counter()
        command = [str(evalscope), "eval", "--model", "phenorules", "--api-url", f"{url}/v1", "--api-key", "EMPTY",
                   "--datasets", *dataset_args, "--dataset-args", json.dumps(dataset_args), "--work-dir", str(runs),
                   "--eval-batch-size", "4"]
        log("$ " + shlex.join(command))
        # A fresh datasets cache: datasets keys a local folder's cache by folder and config
        # name, so a run over fewer items elsewhere would otherwise be read back.
        shutil.rmtree(work / "hf-datasets", ignore_errors=True)
        offline = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(work / "hf-datasets"))
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=offline)
        log(f"evalscope run: {time.perf_counter() - started:.0f} s")
    finally:
        server.terminate()
        server.wait(10)
    results = []
    if jnlpba_iob2:
        mine = ours(["jnlpba", "evaluate", "--test", str(jnlpba_iob2), "--train", str(train)])["overall"]["f1"]
        results.append(line("jnlpba", report_scores(runs, "jnlpba", sentences)["f1"], mine))
    if questions:
        answers = work / "medxpertqa_answers.jsonl"
        mine = ours(["medxpertqa", "evaluate", str(questions), "--answers", str(answers)])["overall"]["accuracy"]
        letters = {row["id"]: row["answer"] for row in map(json.loads, answers.read_text(encoding="utf-8").splitlines())}
        theirs = evalscope_letters(runs)
        same = sum(theirs.get(question) == letter for question, letter in letters.items())
        note = f"({same} of {len(letters)} answers the same letter) {NEAR_RANDOM}"
        results.append(line("medxpertqa", report_scores(runs, "medxpertqa", count)["accuracy"], mine, note, same == len(letters)))
    for text, _ in results:
        print(text, flush=True)
    if not all(equal for _, equal in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
