"""evalscope's own jnlpba benchmark against ``phenorules serve``, compared with
``phenorules jnlpba evaluate`` (``make evalscope``).

1. Writes the JNLPBA test set (IOB2) as evalscope's local dataset layout: ``default_test.jsonl``,
   one ``{"tokens": [...], "ner_tags": [...]}`` a sentence, the fields its jnlpba adapter
   reads (``NERAdapter.record_to_sample``); a ``dataset_id`` that is a folder is read by
   its ``LocalDataLoader`` as ``<subset>_<split>.jsonl``.
2. Starts ``phenorules serve --jnlpba-train`` on a free port of 127.0.0.1.
3. Runs ``evalscope eval --model phenorules --api-url http://127.0.0.1:PORT/v1 --api-key
   EMPTY --datasets jnlpba`` zero-shot (rules make no use of the prompt's examples).
4. Prints evalscope's precision, recall, F1 and accuracy beside ``phenorules jnlpba
   evaluate --json``'s and exits 1 if the F1s differ (the report rounds to 4 decimals).

Usage: python benchmarks/evalscope_jnlpba.py EVALSCOPE_EXECUTABLE JNLPBA_DIR WORK_DIR [LIMIT]
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from phenorules.tasks.jnlpba.io import read_iob2

METRICS = ("precision", "recall", "f1", "accuracy")


def write_dataset(test_path: Path, folder: Path, limit: int | None) -> int:
    sentences = read_iob2(str(test_path))[:limit]
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "default_test.jsonl", "w", encoding="utf-8") as out:
        for sentence in sentences:
            out.write(json.dumps({"tokens": list(sentence.tokens), "ner_tags": list(sentence.tags)}) + "\n")
    with open(folder / "test.iob2", "w", encoding="utf-8") as out:  # the same sentences, for phenorules
        out.writelines("".join(f"{t}\t{g}\n" for t, g in zip(s.tokens, s.tags)) + "\n" for s in sentences)
    return len(sentences)


def start_server(train: Path) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "phenorules", "serve", "--port", "0", "--jnlpba-train", str(train)],
        stdout=subprocess.PIPE, text=True,
    )
    line = server.stdout.readline()  # "phenorules: serving http://127.0.0.1:PORT/ (...)"
    if not line.startswith("phenorules: serving "):
        server.kill()
        sys.exit(f"evalscope: phenorules serve did not start: {line!r}")
    url = line.split()[2].rstrip("/")
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5):
                return server, url
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit("evalscope: phenorules serve does not answer /health")


def evalscope_report(work: Path) -> dict:
    (report,) = sorted(work.glob("**/reports/phenorules/jnlpba.json"))[-1:]
    return {metric["identity"]["name"]: metric["score"] for metric in json.loads(report.read_text())["metrics"]}


def main() -> None:
    evalscope, jnlpba, work = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
    test, train = jnlpba / "test" / "Genia4EReval1.iob2", jnlpba / "standoff" / "train"
    if not test.is_file() or not train.is_dir():
        sys.exit(f"evalscope: {test} and {train} are needed (the shared JNLPBA data)")
    data = work / "dataset"
    count = write_dataset(test, data, limit)
    print(f"wrote {count} sentences to {data / 'default_test.jsonl'}", flush=True)
    server, url = start_server(train)
    try:
        started = time.perf_counter()
        dataset_args = {"jnlpba": {"dataset_id": str(data.resolve()), "few_shot_num": 0}}
        command = [str(evalscope), "eval", "--model", "phenorules", "--api-url", f"{url}/v1", "--api-key", "EMPTY",
                   "--datasets", "jnlpba", "--dataset-args", json.dumps(dataset_args), "--work-dir", str(work / "runs"),
                   "--eval-batch-size", "4"]
        print("$ " + shlex.join(command), flush=True)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(10)
    ours_command = [sys.executable, "-m", "phenorules", "jnlpba", "evaluate", "--test", str(data / "test.iob2"), "--train", str(train), "--json"]
    result = json.loads(subprocess.run(ours_command, check=True, capture_output=True, text=True).stdout)
    ours = {**result["overall"], "accuracy": result["accuracy"]}
    theirs = evalscope_report(work / "runs")
    print(f"{'metric':<10} {'evalscope':>10} {'phenorules':>10}")
    for metric in METRICS:
        print(f"{metric:<10} {theirs[metric]:>10.4f} {ours[metric]:>10.4f}")
    print(f"evalscope run over {count} sentences: {seconds:.0f} s")
    if round(ours["f1"], 4) != theirs["f1"]:  # evalscope's report keeps 4 decimals
        sys.exit("evalscope: F1 differs")
    print("F1 equal (at the report's 4 decimals): ok")


if __name__ == "__main__":
    main()
