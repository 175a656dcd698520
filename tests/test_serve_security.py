"""phenorules serve against a hostile web page and a hostile client, on 127.0.0.1 only.

A page of another site may POST to the server (a text/plain or type-less body needs no
CORS preflight) or rebind its own name to 127.0.0.1 (then its requests say ``Host:
attacker.example``); a client may send a body that breaks Python's JSON reader (deep
nesting, a 5,000-digit number, a lone surrogate), send its body slowly, or leave while a
long request holds the pipeline. Each case is a few requests: through Starlette's test
client, or a uvicorn server on a free port of 127.0.0.1 for what needs a real socket.
"""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from phenorules.serve.app import create_app  # noqa: E402
from phenorules.serve.body import MAX_DEPTH  # noqa: E402
from phenorules.serve.connections import ConnectionLimits  # noqa: E402
from phenorules.serve.engine import Budget, Engine  # noqa: E402
from phenorules.serve.guard import RequestError, served_policy  # noqa: E402
from phenorules.serve.server import listen, server_config  # noqa: E402
from test_serve import FIXTURES, JSON, PORT, TEXT, assert_error, chat, served  # noqa: E402

SAME_ORIGIN = f"http://127.0.0.1:{PORT}"


@pytest.fixture(scope="module")
def engine(mini_nlp):
    return Engine(mini_nlp)


@pytest.fixture(scope="module")
def client(engine):
    return served(engine)


# Cross-site requests and DNS rebinding


def test_a_cross_site_text_plain_post_is_refused(client):
    """The form a page of any site can send without a preflight."""
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        headers = {"content-type": content_type, "origin": "http://attacker.example"}
        assert_error(client.post("/annotate", content=json.dumps({"text": TEXT}), headers=headers), 403, code="origin_not_allowed")
        assert_error(client.post("/annotate", content=json.dumps({"text": TEXT}), headers={"content-type": content_type}), 415, code="unsupported_media_type")
    assert_error(client.post("/v1/chat/completions", content=b"{}"), 415, "(none)")  # a Blob body has no type


def test_another_origin_is_refused_even_with_json(client):
    for origin in ("http://attacker.example", "null", f"http://127.0.0.1:{PORT + 1}", f"https://127.0.0.1:{PORT}"):
        assert_error(client.post("/annotate", json={"text": TEXT}, headers={"origin": origin}), 403, code="origin_not_allowed")
        assert_error(client.get("/info", headers={"origin": origin}), 403)
    for origin in (SAME_ORIGIN, f"http://localhost:{PORT}", f"http://[::1]:{PORT}"):
        assert client.post("/annotate", json={"text": TEXT}, headers={"origin": origin}).status_code == 200


def test_a_rebound_host_name_is_refused(client):
    """DNS rebinding: the browser sends the attacker's name as Host."""
    for host in ("attacker.example", f"attacker.example:{PORT}", f"127.0.0.1:{PORT + 1}", f"127.0.0.1.attacker.example:{PORT}", ""):
        assert_error(client.get("/", headers={"host": host}), 403, code="host_not_allowed")
        assert_error(client.post("/annotate", json={"text": TEXT}, headers={"host": host}), 403, code="host_not_allowed")
    for host in (f"localhost:{PORT}", f"LOCALHOST:{PORT}", f"[::1]:{PORT}"):
        assert client.get("/health", headers={"host": host}).status_code == 200


def test_allow_host_and_allow_origin_add_exactly_what_they_name(engine):
    client = served(engine, allow_hosts=("mybox.lan", "other.lan:9000"), allow_origins=("http://localhost:3000",))
    assert client.get("/health", headers={"host": f"mybox.lan:{PORT}"}).status_code == 200
    assert client.get("/health", headers={"host": "other.lan:9000"}).status_code == 200
    assert_error(client.get("/health", headers={"host": "other.lan:9001"}), 403)
    allowed = client.post("/annotate", json={"text": TEXT}, headers={"origin": "http://localhost:3000"})
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
    preflight = client.options("/annotate", headers={"origin": "http://localhost:3000", "access-control-request-method": "POST", "access-control-request-headers": "content-type"})
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert_error(client.post("/annotate", json={"text": TEXT}, headers={"origin": "http://localhost:3001"}), 403)
    anyone = served(engine, allow_hosts=("*",))
    assert anyone.get("/health", headers={"host": "whatever.example"}).status_code == 200


def test_a_server_bound_elsewhere_answers_its_own_address():
    policy = served_policy("192.168.1.5", 8000)
    assert policy.host_allowed("192.168.1.5:8000") and policy.host_allowed("localhost:8000")
    assert not policy.host_allowed("192.168.1.6:8000")
    assert not served_policy("0.0.0.0", 8000).host_allowed("0.0.0.0:8000")  # a wildcard names no host
    assert served_policy("::1", 80).host_allowed("[::1]") and served_policy("127.0.0.1", 80).host_allowed("localhost")


def test_no_response_shows_a_file_path(client):
    """/info names the ontology by its file's name and release, never by a directory."""
    info = client.get("/info").json()
    assert info["ontology"] == "mini_hp.obo" and info["hpo_release"] == "hp/releases/test-mini"
    answers = [client.get("/info").text, client.get("/v1/models").text, client.post("/annotate", json={"text": TEXT}).text]
    answers.append(client.post("/annotate", json={"document": "x", "format": "pdf"}).text)
    assert not any(str(FIXTURES.parent) in answer for answer in answers)


# Bodies that break a JSON reader: a 400 JSON error from every endpoint that reads one

HOSTILE_BODIES = {
    "nested a thousand deep": b"[" * 100_000 + b"]" * 100_000,
    "nested past the limit": b'{"text": "x", "x": ' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}",
    "a 5,000-digit number": b'{"text": "x", "id": ' + b"9" * 5000 + b"}",
    "a lone surrogate": b'{"text": "seizures \\ud800", "messages": [{"role": "user", "content": "\\udc00"}], "model": "phenorules", "articles": ["\\ud800"]}',
    "NaN": b'{"text": NaN}',
    "not UTF-8": b'{"text": "\xff"}',
    "truncated": b'{"text": "seiz',
}


@pytest.mark.parametrize("path", ["/annotate", "/v1/chat/completions", "/export/jsonl"])
@pytest.mark.parametrize("body", list(HOSTILE_BODIES), ids=list(HOSTILE_BODIES))
def test_every_parse_failure_is_a_400_json_error(client, path, body):
    error = assert_error(client.post(path, content=HOSTILE_BODIES[body], headers=JSON), 400, "request body", code="invalid_json")
    assert "Traceback" not in error["message"]


def test_a_lone_surrogate_in_a_chat_prompt_is_refused_and_the_server_keeps_serving(client):
    payload = {"model": "phenorules", "messages": [{"role": "user", "content": "seizures \ud800"}]}
    assert_error(client.post("/v1/chat/completions", content=json.dumps(payload), headers=JSON), 400, "surrogate")  # sent as \\ud800
    assert chat(client, TEXT).status_code == 200


# Time budget, a client that leaves, slow senders


def test_a_request_past_its_budget_is_stopped_before_the_next_stage(engine):
    stages_run = []

    def slow(prompt, engine):
        time.sleep(0.3)  # past the budget, holding the pipeline
        for _ in range(50):  # the first stage check raises
            engine.pipeline(TEXT)
            stages_run.append(1)
        return "done"

    client = served(engine, request_seconds=0.2, answerers=(slow,))
    assert_error(chat(client, TEXT), 503, "time budget of 0.2 s", code="over_time_budget")
    assert stages_run == []
    assert engine._lock.acquire(blocking=False)  # freed
    engine._lock.release()
    assert served(engine).post("/annotate", json={"text": TEXT}).status_code == 200


def test_waiting_for_the_pipeline_counts_against_the_budget(engine):
    held, release = threading.Event(), threading.Event()

    def hold():
        with engine.holding(Budget(None)):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    try:
        with pytest.raises(RequestError) as refused:
            engine.annotate([], Budget(0.2))
        assert refused.value.status == 503 and "time budget of 0.2 s" in str(refused.value)
    finally:
        release.set()
        holder.join(30)
    assert engine.annotate([]) == []


@contextmanager
def live(app_for_port, limits: ConnectionLimits = ConnectionLimits()):
    """``app_for_port(port)`` on uvicorn in a thread, on a free port of 127.0.0.1, as
    ``phenorules serve`` runs it."""
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app_for_port(port), limits))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def raw_request(port: int, head: str, body: bytes = b"") -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=20)
    connection.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
    return connection


def read_response(connection: socket.socket) -> tuple[int, dict]:
    """The status and JSON body of one HTTP/1.1 response with a Content-Length."""
    data = b""
    while True:
        head, found, body = data.partition(b"\r\n\r\n")
        if found:
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
            if len(body) >= length:
                return int(head.split()[1]), json.loads(body[:length])
        chunk = connection.recv(65536)
        assert chunk, "the server closed the connection without a response"
        data += chunk


def chat_head(port: int, body: bytes) -> str:
    return f"POST /v1/chat/completions HTTP/1.1\nHost: 127.0.0.1:{port}\nContent-Type: application/json\nContent-Length: {len(body)}\n"


def test_a_client_that_leaves_frees_the_pipeline(engine):
    """The request's work stops at its next stage once its client has disconnected, so
    the next request does not wait for work nobody will read."""
    started, stopped = threading.Event(), []

    def endless(prompt, engine):
        started.set()
        try:
            while True:
                engine.pipeline(TEXT)
        except RequestError as error:
            stopped.append(error.code)
            raise

    with live(lambda port: create_app(engine, served_policy("127.0.0.1", port), answerers=(endless,))) as port:
        body = json.dumps({"model": "phenorules", "messages": [{"role": "user", "content": TEXT}]}).encode()
        leaving = raw_request(port, chat_head(port, body), body)
        assert started.wait(20)
        leaving.close()
        with socket.create_connection(("127.0.0.1", port), timeout=20) as probe:
            probe.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert read_response(probe)[0] == 200
        deadline = time.monotonic() + 20
        while not stopped and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stopped == ["client_left"]
        assert engine.annotate([]) == []  # the lock is free


def test_a_slow_sender_gets_408(engine):
    with live(lambda port: create_app(engine, served_policy("127.0.0.1", port, body_seconds=0.5))) as port:
        body = json.dumps({"text": TEXT}).encode()
        connection = raw_request(port, chat_head(port, body).replace("/v1/chat/completions", "/annotate"), body[:5])
        with connection:
            status, answer = read_response(connection)
        assert status == 408 and answer["error"]["code"] == "request_timeout"
        with raw_request(port, chat_head(port, body).replace("/v1/chat/completions", "/annotate"), body) as whole:
            assert read_response(whole)[0] == 200


# Slow clients below the app: request heads that never end, connections piling up


def partial_heads(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that each send part of a request head and stop, one at a time
    (each answered by its connection's accept before the next)."""
    connections = []
    for i in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=20)
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1" if i % 2 else b"GET /hea")
        connections.append(connection)
    return connections


def closed_by_server(connection: socket.socket) -> bool:
    """Whether the server closed it (end of stream or reset) within the socket's timeout."""
    try:
        return connection.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def health(port: int) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=20) as probe:
        probe.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        return read_response(probe)[0]


def test_unfinished_request_heads_are_closed_after_the_header_deadline(engine):
    with live(lambda port: create_app(engine, served_policy("127.0.0.1", port)), ConnectionLimits(header_seconds=0.5)) as port:
        slow = partial_heads(port, 40)
        trickling = socket.create_connection(("127.0.0.1", port), timeout=20)
        assert health(port) == 200
        closed = []
        for byte in b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" * 4:  # a byte every 0.05 s: never idle, never done
            try:
                trickling.sendall(bytes([byte]))
            except OSError:
                closed.append(True)
                break
            time.sleep(0.05)
        assert closed or closed_by_server(trickling)  # the deadline is for the whole head
        for connection in slow:
            assert closed_by_server(connection)
            connection.close()
        assert health(port) == 200
        with raw_request(port, f"GET /health HTTP/1.1\nHost: 127.0.0.1:{port}\n") as whole:  # a head in time is served
            assert read_response(whole)[0] == 200


def test_connections_beyond_the_cap_close_the_longest_waiting_and_health_answers(engine):
    limits = ConnectionLimits(header_seconds=60, max_connections=10)
    with live(lambda port: create_app(engine, served_policy("127.0.0.1", port)), limits) as port:
        slow = partial_heads(port, 30)
        for connection in slow:
            connection.settimeout(0.5)
        assert health(port) == 200  # closes the longest waiting of the ten left
        assert [closed_by_server(connection) for connection in slow] == [True] * 21 + [False] * 9
        for connection in slow:
            connection.close()


def test_slow_clients_beyond_the_open_file_limit_leave_health_answering():
    """``phenorules serve`` with 256 open files (ulimit -n): 400 connections that never end
    their heads would take every descriptor, after which no connection is accepted; the
    default cap (half the limit) closes the longest waiting instead, long before the
    header deadline."""

    def few_files():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    command = [sys.executable, "-m", "phenorules", "serve", "--port", "0", "--header-timeout", "60", "--hpo", str(FIXTURES / "mini_hp.obo")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=few_files)
    slow = []
    try:
        url = server.stdout.readline().split()[2]  # phenorules: serving http://127.0.0.1:PORT/ (...)
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        deadline = time.monotonic() + 120
        while not ready(url):
            assert server.poll() is None and time.monotonic() < deadline, "phenorules serve did not get ready"
            time.sleep(0.1)
        slow = partial_heads(port, 400)
        assert health(port) == 200
    finally:
        for connection in slow:
            connection.close()
        server.terminate()
        server.wait(20)


def ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "health", timeout=20) as answer:
            return json.loads(answer.read()) == {"status": "ready"}
    except urllib.error.HTTPError as error:  # 503 while the pipeline loads
        assert json.loads(error.read()) == {"status": "starting"}
        return False
