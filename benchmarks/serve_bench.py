"""Speed and robustness of ``phenorules serve``: start-up with a warm cache (until /health
answers, and until it answers 200 with the pipeline loaded), /annotate latency for a
one-page text, and 50 concurrent requests of which none may be lost or answered wrong.
Targets: start-up < 3 s, one page < 100 ms (median), 50 of 50 right.

Usage: python benchmarks/serve_bench.py [ARTICLES.jsonl]
The one-page text (3,000 characters, cut at a sentence end) is taken from the first
article of ARTICLES.jsonl, or from the bundled example repeated. The server runs on one
core (taskset) on 127.0.0.1, with the cache of this environment (warmed by a first,
untimed start).
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"
PAGE_CHARS = 3000
STARTS = 3
LATENCY_REQUESTS = 20
CONCURRENT = 50


def one_page_text(path: Path) -> str:
    article = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
    text = "\n".join(passage["text"] for passage in article["full_text"])
    while len(text) < PAGE_CHARS:
        text = f"{text}\n{text}"
    end = text.rfind(". ", 0, PAGE_CHARS)
    return text[: end + 1 if end > 0 else PAGE_CHARS]


def start_server() -> tuple[subprocess.Popen, int, float, float]:
    """A server process, its port, and the seconds until /health first answered (503
    while the pipeline loads) and until it answered 200 (loaded)."""
    pin = ["taskset", "-c", "0"] if subprocess.run(["sh", "-c", "command -v taskset"], capture_output=True).returncode == 0 else []
    started = time.perf_counter()
    server = subprocess.Popen(pin + [sys.executable, "-m", "phenorules", "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    line = server.stdout.readline()
    if not line.startswith("phenorules: serving "):
        server.kill()
        sys.exit(f"serve bench: the server did not start: {line!r}")
    port = int(line.split()[2].rstrip("/").rsplit(":", 1)[1])
    answered = None
    while True:
        try:
            status, _ = request(port, "GET", "/health")
            answered = answered or time.perf_counter() - started
            if status == 200:
                return server, port, answered, time.perf_counter() - started
        except OSError:
            pass
        if time.perf_counter() - started > 120:
            server.kill()
            sys.exit("serve bench: /health did not answer within 120 s")
        time.sleep(0.01)


def request(port: int, method: str, path: str, body: bytes | None = None, connection: http.client.HTTPConnection | None = None) -> tuple[int, bytes]:
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"} if body is not None else {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        if own:
            connection.close()


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(10)


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 and Path(sys.argv[1]).exists() else EXAMPLE
    page = one_page_text(source)
    stop(start_server()[0])  # builds the cache if it is cold
    answers, starts = [], []
    for _ in range(STARTS):
        server, port, answered, seconds = start_server()
        answers.append(answered)
        starts.append(seconds)
        if len(starts) < STARTS:
            stop(server)
    try:
        body = json.dumps({"text": page}).encode()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        status, answer = request(port, "POST", "/annotate", body, connection)  # warm-up
        mentions = len(json.loads(answer)["articles"][0]["mentions"])
        latencies = []
        for _ in range(LATENCY_REQUESTS):
            t0 = time.perf_counter()
            status, _ = request(port, "POST", "/annotate", body, connection)
            latencies.append(time.perf_counter() - t0)
            assert status == 200
        connection.close()

        texts = [f"Case {i}: {page}" for i in range(CONCURRENT)]
        bodies = [json.dumps({"text": text}).encode() for text in texts]
        expected = [request(port, "POST", "/annotate", b) for b in bodies]
        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=CONCURRENT) as pool:
            replies = list(pool.map(lambda b: request(port, "POST", "/annotate", b), bodies))
        concurrent_s = time.perf_counter() - t0
        right = sum(answer == want and answer[0] == 200 for answer, want in zip(replies, expected))

        bad = [request(port, "POST", "/annotate", b'{"text": '), request(port, "POST", "/annotate", b"x" * (11 * 1024 * 1024))]
        bad_ok = [status for status, _ in bad] == [400, 413] and all("error" in json.loads(text) for _, text in bad)
        still = request(port, "GET", "/health")[0] == 200 and request(port, "POST", "/annotate", body)[0] == 200
    finally:
        stop(server)

    median = statistics.median(latencies)
    rows = [
        ("serve: start-up, warm cache", f"{min(answers):.2f} s best of {STARTS} ({', '.join(f'{s:.2f}' for s in answers)}; until /health answers)   target < 3 s: {'ok' if min(answers) < 3 else 'MISSED'}"),
        ("serve: ready, warm cache", f"{min(starts):.2f} s best of {STARTS} ({', '.join(f'{s:.2f}' for s in starts)}; until /health answers 200, the pipeline loaded)"),
        ("serve: /annotate, one page", f"{median * 1000:.0f} ms median, {max(latencies) * 1000:.0f} ms max of {LATENCY_REQUESTS} ({len(page):,} chars, {mentions} mentions)   target < 100 ms: {'ok' if median < 0.1 else 'MISSED'}"),
        ("serve: 50 concurrent /annotate", f"{right} of {CONCURRENT} answered right in {concurrent_s:.2f} s   target 50: {'ok' if right == CONCURRENT else 'MISSED'}"),
        ("serve: malformed + oversize", f"{' and '.join(str(s) for s, _ in bad)} JSON errors, still serving: {'ok' if bad_ok and still else 'MISSED'}"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"serve bench: one page from {source}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
