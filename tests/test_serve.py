"""phenorules serve's HTTP API through Starlette's test client, on the mini ontology and the
JNLPBA fixtures: /annotate in its four input forms, the errors, the term search, the
curated export and the OpenAI-compatible chat endpoint."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from phenorules.serve.app import create_app  # noqa: E402
from phenorules.serve.engine import Engine  # noqa: E402
from phenorules.serve.guard import served_policy  # noqa: E402
from phenorules.serve.loading import ARRIVAL, Loading  # noqa: E402
from phenorules.tasks.jnlpba.evalscope_adapter import respond  # noqa: E402
from phenorules.tasks.jnlpba.io import read_standoff  # noqa: E402
from phenorules.tasks.jnlpba.model import learn_model_from, make_tagger  # noqa: E402
from phenorules.formats.patientphex.articles import to_article  # noqa: E402
from phenorules.core.annotated import annotated_articles  # noqa: E402
from phenorules.core.errors import PhenorulesError  # noqa: E402
from phenorules.formats.patientphex.records import full_record  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
ARTICLES = FIXTURES / "patientphex_annotated.jsonl"
JSON = {"content-type": "application/json"}
TEXT = "The proband had seizures and microcephaly but no hypotonia."

# evalscope 1.14.1's NER prompt (evalscope/utils/ner.py PROMPT_TEMPLATE) as its jnlpba
# adapter fills it in.
JNLPBA_ENTITIES = (
    "protein (Names of proteins, protein families, or protein complexes), dna (Names of DNA molecules, domains, or regions), "
    "rna (Names of RNA molecules), cell_line (Names of specific, cultured cell lines), cell_type (Names of naturally occurring cell types)"
)
NER_PROMPT = f"""You are a named entity recognition system that identifies the following entity types:
{JNLPBA_ENTITIES}

Process the provided text and mark all named entities with XML-style tags.

For example:
<person>John Smith</person> works at <organization>Google</organization> in <location>Mountain View</location>.

Available entity tags: <protein>, <dna>, <rna>, <cell_line>, <cell_type>

INSTRUCTIONS:
1. Wrap your entire response in <response>...</response> tags.
2. Inside these tags, include the original text with entity tags inserted.
3. Do not change the original text in any way (preserve spacing, punctuation, case, etc.).
4. Tag ALL entities you can identify using the exact tag names provided.
5. Do not include explanations, just the tagged text.
6. If entity spans overlap, choose the most specific entity type.
7. Ensure every opening tag has a matching closing tag.

Text to process:
Jurkat cells express IL-2 .
"""
NER_RESPONSE = "<response><cell_line>Jurkat cells</cell_line> express <protein>IL-2</protein> .</response>"


@pytest.fixture(scope="module")
def engine(mini_nlp):
    return Engine(mini_nlp, make_tagger(learn_model_from(read_standoff(FIXTURES / "jnlpba_train"))))


PORT = 8000  # the test client's requests say Host: 127.0.0.1:8000


def served(engine, **options) -> TestClient:
    """A test client of the app as ``phenorules serve`` builds it on 127.0.0.1:8000."""
    policy = served_policy("127.0.0.1", PORT, **{key: options.pop(key) for key in ("allow_hosts", "allow_origins", "max_request_bytes", "body_seconds") if key in options})
    return TestClient(create_app(engine, policy, **options), base_url=f"http://127.0.0.1:{PORT}", raise_server_exceptions=False)


@pytest.fixture(scope="module")
def client(engine):
    return served(engine, max_request_bytes=50_000)


def articles():
    return [json.loads(line) for line in ARTICLES.read_text().splitlines() if line.strip()]


def assert_error(response, status: int, *words: str, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str)
    assert code is None or error["code"] == code
    assert "Traceback" not in response.text
    for word in words:
        assert word in error["message"]
    return error


def test_health_and_info(client, mini_nlp):
    assert client.get("/health").json() == {"status": "ready"}
    info = client.get("/info").json()
    assert info["hpo_release"] == "hp/releases/test-mini"
    assert info["stages"] == mini_nlp.pipe_names
    assert info["jnlpba"] is True and "jsonl" in info["exports"]
    assert info["max_request_bytes"] == 50_000
    assert info["ontology"] == "mini_hp.obo"


def loading(build, request_seconds: float = 30) -> TestClient:
    """A test client of the app ``phenorules serve`` runs while ``build()`` (in a thread of its own) makes the real one."""
    app = Loading(build, served_policy("127.0.0.1", PORT), request_seconds)
    app.start()
    return TestClient(app, base_url=f"http://127.0.0.1:{PORT}", raise_server_exceptions=False)


def test_health_answers_while_the_pipeline_loads_and_requests_wait_for_it(engine):
    released = threading.Event()

    def build():
        released.wait(60)
        return create_app(engine, served_policy("127.0.0.1", PORT))

    client = loading(build)
    starting = client.get("/health")
    assert (starting.status_code, starting.json(), starting.headers["retry-after"]) == (503, {"status": "starting"}, "1")
    assert_error(client.get("/health", headers={"host": "attacker.example"}), 403, code="host_not_allowed")  # checked as ever
    with ThreadPoolExecutor(2) as pool:
        waiting = [pool.submit(client.post, "/annotate", json={"text": TEXT}), pool.submit(client.get, "/info")]
        time.sleep(0.3)
        assert not any(request.done() for request in waiting)  # they wait for the pipeline ...
        released.set()
        annotated, info = (request.result(60) for request in waiting)
    assert len(annotated.json()["articles"][0]["mentions"]) == 3  # ... and are answered once it is there
    assert info.json()["hpo_release"] == "hp/releases/test-mini"
    assert client.get("/health").json() == {"status": "ready"}


def test_waiting_for_the_pipeline_to_load_counts_against_the_budget(engine):
    released = threading.Event()
    client = loading(lambda: released.wait(60) and create_app(engine, served_policy("127.0.0.1", PORT)), request_seconds=0.2)
    try:
        assert_error(client.post("/annotate", json={"text": TEXT}), 503, "still loading", "0.2 s", code="over_time_budget")
    finally:
        released.set()

    async def arrived_long_ago(scope, receive, send):  # as Loading passes on a request that waited
        scope.setdefault("state", {})[ARRIVAL] = time.monotonic() - 61
        await create_app(engine, served_policy("127.0.0.1", PORT))(scope, receive, send)

    late = TestClient(arrived_long_ago, base_url=f"http://127.0.0.1:{PORT}", raise_server_exceptions=False)
    assert_error(late.post("/annotate", json={"text": TEXT}), 503, code="over_time_budget")
    assert late.get("/health").json() == {"status": "ready"}


def test_a_pipeline_that_fails_to_load_stops_the_server():
    failed = []

    def build():
        raise PhenorulesError("mini.obo: no such ontology file")

    app = Loading(build, served_policy("127.0.0.1", PORT), 30)
    app.start(on_failure=lambda: failed.append(True)).join(30)
    assert failed == [True] and str(app.failure) == "mini.obo: no such ontology file"
    client = TestClient(app, base_url=f"http://127.0.0.1:{PORT}", raise_server_exceptions=False)
    error = assert_error(client.post("/annotate", json={"text": TEXT}), 503, code="not_ready")
    assert "mini.obo" not in error["message"]


def test_serve_reports_a_pipeline_that_fails_to_load_in_one_line(tmp_path):
    from click.testing import CliRunner

    from phenorules.cli import main

    result = CliRunner().invoke(main, ["serve", "--port", "0", "--quiet", "--hpo", str(tmp_path / "missing.obo")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"phenorules: error: {tmp_path / 'missing.obo'}: no such ontology file"]


def test_what_answers_before_the_pipeline_imports_no_spacy():
    """``phenorules serve`` answers as soon as it listens: the server, its connection limits
    and the loading app import neither spaCy nor the app's modules."""
    check = "import sys, phenorules.cli, phenorules.serve.server; print([m for m in ('spacy', 'phenorules.serve.app') if m in sys.modules])"
    assert subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def test_no_response_shows_a_file_path(client):
    """/info names the ontology by file name and release, never by its directory."""
    answers = [client.get("/info").text, client.get("/v1/models").text, client.post("/annotate", json={"text": TEXT}).text]
    assert not any(str(FIXTURES) in answer or str(FIXTURES.parent) in answer for answer in answers)


def test_the_page_shares_the_views_colours_and_flags_and_builds_with_text_only(client):
    """The page is the template with the view's config as JSON (never run: the CSP allows
    only the page's own script); its script puts data into the page as text only."""
    from phenorules.serve.app import STATIC_DIR
    from phenorules.formats.view import page_config

    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == "default-src 'self'"
    config = re.search(r'<script id="config" type="application/json">(.*?)</script>', page.text).group(1)
    assert json.loads(config) == page_config() and page_config()["flags"] == ["negated", "uncertain", "hypothetical", "historical", "family"]
    icon = re.search(r'<link rel="icon" href="([^"]+)"', page.text).group(1)
    assert client.get(icon).status_code == 200
    script = (STATIC_DIR / "curation.js").read_text(encoding="utf-8")
    assert not re.findall(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function", script)


def test_annotate_text_gives_ids_labels_negation_and_provenance(client):
    (article,) = client.post("/annotate", json={"text": TEXT, "id": "note-1"}).json()["articles"]
    assert article["id"] == "note-1" and article["text"] == TEXT
    found = [(m["text"], m["hpo_id"], m["label"], m["negated"]) for m in article["mentions"]]
    assert found == [
        ("seizures", "HP:0001250", "Seizure", False),
        ("microcephaly", "HP:0000252", "Microcephaly", False),
        ("hypotonia", "HP:0001252", "Hypotonia", True),
    ]
    assert all(m["provenance"] for m in article["mentions"])
    assert any(rule.startswith("context:NEGATED_EXISTENCE:") for rule in article["mentions"][2]["provenance"])
    assert [m["flags"] for m in article["mentions"]] == [[], [], [{"field": "negated", "cue": "no"}]]
    assert article["mentions"][0]["start"] == TEXT.index("seizures")


def test_annotate_an_article_attributes_patients_and_returns_the_task_record(client, mini_nlp):
    article = articles()[0]
    (result,) = client.post("/annotate", json=article).json()["articles"]
    (expected,) = map(full_record, annotated_articles(mini_nlp, [to_article(article)]))
    assert result["record"] == expected
    assert result["patients"] == ["OII-1", "OII-2"]
    attributed = {m["text"]: m["patients"] for m in result["mentions"] if m["patients"]}
    assert attributed["microcephaly"] == ["OII-1"]
    assert [p["section_type"] for p in result["passages"]] == ["TITLE", "ABSTRACT", "CASE"]


def test_annotate_a_bioc_collection_and_an_uploaded_file(client):
    bioc = json.loads((FIXTURES / "bioc_article.json").read_text())
    from_bioc = client.post("/annotate", json=bioc).json()["articles"]
    assert [a["id"] for a in from_bioc] == [document["id"] for collection in (bioc if isinstance(bioc, list) else [bioc]) for document in collection["documents"]]
    uploaded = client.post("/annotate", json={"document": ARTICLES.read_text(), "name": "cases.jsonl"}).json()["articles"]
    assert [a["id"] for a in uploaded] == [a["pmc_id"] for a in articles()]
    from_xml = client.post("/annotate", json={"document": (FIXTURES / "bioc_article.xml").read_text(), "name": "a.xml"}).json()["articles"]
    assert from_xml and all(a["passages"] for a in from_xml)
    as_text = client.post("/annotate", json={"document": TEXT, "name": "note.txt"}).json()["articles"]
    assert as_text[0]["id"] == "note" and len(as_text[0]["mentions"]) == 3


def test_a_document_is_content_never_a_path(client):
    (article,) = client.post("/annotate", json={"document": str(ARTICLES), "name": str(ARTICLES)}).json()["articles"]
    assert article["text"] == str(ARTICLES) and article["mentions"] == []


def test_bad_requests_get_a_json_error_and_the_server_keeps_serving(client):
    assert_error(client.post("/annotate", content=b'{"text": ', headers=JSON), 400, "malformed JSON", "line 1")
    assert_error(client.post("/annotate", content=b"\xff\xfe", headers=JSON), 400, "UTF-8")
    assert_error(client.post("/annotate", json={"txt": TEXT}), 422, "expected")
    assert_error(client.post("/annotate", json={"text": 3}), 422, "text")
    broken = dict(articles()[0], full_text=[{"section_type": "TITLE", "type": "front", "offset": "0", "text": "x"}])
    assert_error(client.post("/annotate", json=broken), 422, "9000001", "offset")
    assert_error(client.post("/annotate", json={"document": "x", "format": "pdf"}), 422, "format")
    assert_error(client.post("/annotate", content=b"<a/>", headers={"content-type": "application/xml"}), 415, code="unsupported_media_type")
    assert_error(client.get("/nowhere"), 404)
    assert_error(client.get("/annotate"), 405)
    assert client.get("/health").json() == {"status": "ready"}
    assert len(client.post("/annotate", json={"text": TEXT}).json()["articles"][0]["mentions"]) == 3


def test_oversize_requests_get_413_with_or_without_a_length(client):
    big = json.dumps({"text": "seizures " * 10_000}).encode()
    assert_error(client.post("/annotate", content=big, headers=JSON), 413, "50000 bytes")
    chunks = (big[i : i + 4096] for i in range(0, len(big), 4096))  # chunked: no Content-Length
    assert_error(client.post("/annotate", content=chunks, headers=JSON), 413)
    assert_error(client.post("/annotate", content=b"{}", headers={**JSON, "content-length": "x"}), 400)
    assert client.get("/health").status_code == 200


def test_an_internal_failure_is_a_500_without_details(engine):
    def broken(prompt, engine):
        raise RuntimeError("secret detail")

    client = served(engine, answerers=(broken,))
    error = assert_error(chat(client, "hi"), 500, code="internal_error")
    assert "secret" not in error["message"]
    assert client.get("/health").status_code == 200


def test_term_search_ranks_prefixes_and_finds_ids(client):
    terms = client.get("/terms", params={"q": "seiz"}).json()["terms"]
    assert terms[0] == {"id": "HP:0001250", "label": "Seizure", "match": "Seizure", "source": "name"}
    assert client.get("/terms", params={"q": "hp:0000252"}).json()["terms"][0]["label"] == "Microcephaly"
    assert client.get("/terms", params={"q": "HP:9999999"}).json()["terms"] == []
    assert client.get("/terms", params={"q": " "}).json()["terms"] == []
    palate = [t["label"] for t in client.get("/terms", params={"q": "palate"}).json()["terms"]]
    assert palate and all("palate" in label.lower() for label in palate)
    assert_error(client.get("/terms", params={"q": "a", "limit": "many"}), 400, "limit")


def curation_payload(result: dict, decisions: dict[int, tuple[str, str | None]]) -> dict:
    """The page's export request: every mention, with the decisions by mention index."""
    mentions = []
    for i, m in enumerate(result["mentions"]):
        status, new_id = decisions.get(i, ("unreviewed", None))
        fields = ("start", "end", "text", "label", "negated", "uncertain", "hypothetical", "historical", "family", "assertion_cues", "patients", "provenance")
        kept = {k: m[k] for k in fields}
        mentions.append({**kept, "hpo_id": new_id or m["hpo_id"], "predicted_id": m["hpo_id"], "status": status})
    return {"articles": [{"id": result["id"], "pmid": result["pmid"], "patient": result["record"]["patient"], "mentions": mentions}]}


def exported(response) -> list[dict]:
    assert response.status_code == 200, response.text
    assert "attachment" in response.headers["content-disposition"]
    return [json.loads(line) for line in response.text.splitlines()]


def test_untouched_curation_exports_the_predicted_record(client):
    (result,) = client.post("/annotate", json=articles()[0]).json()["articles"]
    (record,) = exported(client.post("/export/jsonl", json=curation_payload(result, {})))
    assert {entity.pop("curation") for entity in record["entities"]} == {"unreviewed"}
    assert record == result["record"]


def test_rejected_and_changed_mentions_change_the_export(client):
    (result,) = client.post("/annotate", json=articles()[0]).json()["articles"]
    index = {m["text"]: i for i, m in enumerate(result["mentions"])}
    decisions = {index["microcephaly"]: ("rejected", None), index["cleft lip"]: ("changed", "HP:0000175"), 0: ("accepted", None)}
    (record,) = exported(client.post("/export/jsonl", json=curation_payload(result, decisions)))
    texts = [e["text"] for e in record["entities"]]
    assert "microcephaly" in texts  # the title's mention is kept ...
    assert len(texts) == len(result["mentions"]) - 1  # ... the case report's is rejected
    changed = next(e for e in record["entities"] if e["text"] == "cleft lip")
    assert (changed["identifier"], changed["label"], changed["curation"]) == ("HP:0000175", "Cleft palate", "changed")
    assert changed["provenance"][-1] == f"curation:changed_from:{result['mentions'][index['cleft lip']]['hpo_id']}"
    assert record["entities"][0]["curation"] == "accepted"
    association = {a["patient_id"]: a["phenotype"] for a in record["association"]}
    assert "HP:0000252" not in association["OII-1"] and "HP:0000175" in association["OII-1"]


def test_phenopackets_export_follows_the_curation(client, engine):
    from phenorules.formats.patientphex.records import record_result
    from phenorules.formats.phenopackets import phenopackets_of

    (result,) = client.post("/annotate", json=articles()[0]).json()["articles"]
    untouched = exported(client.post("/export/phenopackets", json=curation_payload(result, {})))
    assert untouched == phenopackets_of(record_result(result["record"]), engine.ontology)
    features = {p["subject"]["id"]: {(f["type"]["id"], f.get("excluded", False)) for f in p["phenotypicFeatures"]} for p in untouched}
    assert ("HP:0000252", False) in features["PMID_31000001_OII-1"] and ("HP:0001252", True) in features["PMID_31000001_OII-1"]
    case_microcephaly = next(i for i, m in enumerate(result["mentions"]) if m["text"] == "microcephaly" and m["patients"])
    curated = exported(client.post("/export/phenopackets", json=curation_payload(result, {case_microcephaly: ("rejected", None)})))
    assert "HP:0000252" not in {f["type"]["id"] for f in curated[0]["phenotypicFeatures"]}


def test_phenopackets_export_takes_an_age_the_browser_sends_as_a_whole_number(client):
    """JavaScript writes the age 3.0 of /annotate back as 3."""
    (result,) = client.post("/annotate", json=articles()[1]).json()["articles"]
    payload = curation_payload(result, {})
    patient = payload["articles"][0]["patient"][0]
    assert patient["subject"]["age"] == [3.0, "year"]
    patient["subject"]["age"] = [3, "year"]
    body = json.dumps(payload)
    assert '"age": [3, "year"]' in body
    packets = exported(client.post("/export/phenopackets", content=body, headers=JSON))
    assert packets[0]["subject"]["timeAtLastEncounter"] == {"age": {"iso8601duration": "P3Y"}}
    for age, problem in ((["3", "year"], "'3' is no number"), ([3, "decade"], "unit 'decade'"), ([-1, "year"], "-1 is no number"), ([3], "expected [number, unit]")):
        patient["subject"]["age"] = age
        assert_error(client.post("/export/phenopackets", json=payload), 422, "articles[0].patient[0].subject.age", problem)
    patient["subject"] = {"sex": "unknown", "age": None}
    assert_error(client.post("/export/phenopackets", json=payload), 422, "articles[0].patient[0].subject.sex")


def test_export_errors(client):
    (result,) = client.post("/annotate", json={"text": TEXT}).json()["articles"]
    assert_error(client.post("/export/jsonl", json=curation_payload(result, {0: ("changed", "HP:1234567")})), 422, "HP:1234567", "mentions[0]")
    assert_error(client.post("/export/jsonl", json=curation_payload(result, {0: ("maybe", None)})), 422, "status")
    assert_error(client.post("/export/jsonl", json={"articles": [{"id": "x"}]}), 422, "articles[0].mentions")
    assert_error(client.post("/export/jsonl", json={"articles": [{"id": "x", "patient": [{"id": "P1"}], "mentions": []}]}), 422, "articles[0].patient[0].patient_id")
    assert_error(client.post("/export/pdf", json={"articles": []}), 404, "jsonl")


def chat(client, content, **extra):
    payload = {"model": "phenorules", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": content}]}
    return client.post("/v1/chat/completions", json={**payload, **extra})


def test_chat_answers_the_jnlpba_prompt_with_the_tagged_response(client, engine):
    body = chat(client, NER_PROMPT).json()
    assert body["object"] == "chat.completion" and body["model"] == "phenorules"
    (choice,) = body["choices"]
    assert choice["message"] == {"role": "assistant", "content": NER_RESPONSE}
    assert choice["finish_reason"] == "stop"
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
    assert NER_RESPONSE == respond(engine.jnlpba_tagger, NER_PROMPT)


def test_chat_lists_the_phenotypes_of_any_other_prompt(client):
    reply = chat(client, [{"type": "text", "text": TEXT}]).json()["choices"][0]["message"]["content"]
    assert reply.splitlines()[1:] == [
        '- HP:0001250 Seizure: "seizures" at 16-24',
        '- HP:0000252 Microcephaly: "microcephaly" at 29-41',
        '- HP:0001252 Hypotonia: "hypotonia" at 49-58 (negated)',
    ]



def test_chat_says_what_it_serves_for_a_prompt_it_cannot_serve(client, mini_nlp):
    other_tags = NER_PROMPT.replace("<protein>, <dna>, <rna>, <cell_line>, <cell_type>", "<person>, <location>")
    reply = chat(client, other_tags).json()["choices"][0]["message"]["content"]
    assert "<response>" not in reply and "<location>, <person>" in reply and "only JNLPBA's" in reply
    unrelated = chat(client, "What is the capital of France?").json()["choices"][0]["message"]["content"]
    assert unrelated.startswith("No phenotypes found") and "not a chat model" in unrelated
    without_tagger = served(Engine(mini_nlp))
    assert "--jnlpba-train" in chat(without_tagger, NER_PROMPT).json()["choices"][0]["message"]["content"]


def test_chat_answers_a_medxpertqa_prompt_with_a_letter(monkeypatch):
    from phenorules.stages.pipeline import build_pipeline
    from test_medxpertqa import HPOA, OBO, PROMPT

    monkeypatch.setenv("PHENORULES_HPOA", HPOA)
    nlp = build_pipeline(hpo=OBO, kb={"use_cache": False})
    client = served(Engine(nlp))
    reply = chat(client, PROMPT).json()["choices"][0]["message"]["content"]
    assert reply.splitlines()[-1] == "ANSWER: B"


def test_chat_errors_and_models(client):
    assert_error(chat(client, "x", stream=True), 400, "stream")
    assert_error(client.post("/v1/chat/completions", json={"messages": [{"role": "system", "content": "x"}]}), 400, "user")
    assert_error(client.post("/v1/chat/completions", json={"messages": []}), 400, "messages")
    assert_error(chat(client, 5), 400, "content")
    assert_error(client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "x"}]}), 400, "model")


def test_models_lists_what_is_served_and_an_unknown_model_is_404(client):
    assert [model["id"] for model in client.get("/v1/models").json()["data"]] == ["phenorules"]
    error = assert_error(chat(client, TEXT, model="gpt-4"), 404, "gpt-4", code="model_not_found")
    assert error["type"] == "invalid_request_error"
    assert chat(client, TEXT).json()["model"] == "phenorules"


def test_a_taken_port_is_one_line_and_exit_2():
    import socket

    from click.testing import CliRunner

    from phenorules.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--port", str(port), "--hpo", str(FIXTURES / "mini_hp.obo")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"phenorules: error: 127.0.0.1:{port}: cannot listen (Address already in use)"]


def test_a_bad_source_date_epoch_is_refused_before_the_server_starts_and_by_the_export(client, monkeypatch):
    from click.testing import CliRunner

    from phenorules.cli import main

    result = CliRunner().invoke(main, ["serve", "--port", "0", "--hpo", str(FIXTURES / "mini_hp.obo")], env={"SOURCE_DATE_EPOCH": "-1"})
    assert result.exit_code == 2 and result.output.startswith("phenorules: error: SOURCE_DATE_EPOCH: ") and result.output.count("\n") == 1
    (result,) = client.post("/annotate", json=articles()[1]).json()["articles"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "99999999999999999")
    assert_error(client.post("/export/phenopackets", json=curation_payload(result, {})), 422, "SOURCE_DATE_EPOCH")
