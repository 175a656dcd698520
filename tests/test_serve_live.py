"""phenorules serve on a real uvicorn server at 127.0.0.1: the ``openai`` client's call for
JNLPBA's NER prompt, 50 concurrent requests, and the curation page in headless Chromium
(Debian's chromium and chromium-driver, which .ci/run installs) driven by Selenium
(``make pictures`` takes the docs' picture of it: benchmarks/pictures.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from phenorules.serve.app import create_app  # noqa: E402
from phenorules.serve.engine import Engine  # noqa: E402
from phenorules.serve.guard import served_policy  # noqa: E402
from phenorules.tasks.jnlpba.io import read_standoff  # noqa: E402
from phenorules.tasks.jnlpba.model import learn_model_from, make_tagger  # noqa: E402
from chromium import HOSTILE, chromium_driver, injected, require_chromium, wait_for  # noqa: E402
from test_serve import ARTICLES, FIXTURES, NER_PROMPT, NER_RESPONSE, TEXT  # noqa: E402
from test_serve_security import live  # noqa: E402

@pytest.fixture(scope="module")
def server(general_nlp):
    """The app on uvicorn in a thread, on a free port of 127.0.0.1; its base URL."""
    engine = Engine(general_nlp, make_tagger(learn_model_from(read_standoff(FIXTURES / "jnlpba_train"))))
    with live(lambda port: create_app(engine, served_policy("127.0.0.1", port))) as port:
        yield f"http://127.0.0.1:{port}"


def post_json(url: str, payload: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(payload).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_openai_client_gets_the_tagged_ner_response(server):
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=f"{server}/v1", api_key="EMPTY", max_retries=0, timeout=30)
    assert [model.id for model in client.models.list()] == ["phenorules"]
    completion = client.chat.completions.create(model="phenorules", messages=[{"role": "user", "content": NER_PROMPT}], temperature=0)
    assert completion.choices[0].message.content == NER_RESPONSE
    assert completion.choices[0].finish_reason == "stop"
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="phenorules", messages=[{"role": "system", "content": "no user message"}])


def test_fifty_concurrent_requests_lose_nothing(server):
    texts = [f"Patient {i} had {'seizures' if i % 2 else 'microcephaly'} and no hypotonia. " * (1 + i % 5) for i in range(50)]
    serial = {text: post_json(f"{server}/annotate", {"text": text})[1] for text in set(texts)}
    with ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(lambda text: post_json(f"{server}/annotate", {"text": text}), texts))
    assert [status for status, _ in answers] == [200] * 50
    assert all(body == serial[text] for text, (_, body) in zip(texts, answers))
    status, body = post_json(f"{server}/annotate", {"txt": "malformed"})
    assert status == 422 and "error" in body
    assert post_json(f"{server}/annotate", {"text": TEXT})[0] == 200


def test_the_page_highlights_rejects_downloads_and_shows_patients(server, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    downloads = tmp_path / "downloads"
    screenshot = tmp_path / "serve.png"
    downloads.mkdir()
    driver = chromium_driver(downloads, tmp_path / "profile")
    try:
        driver.get(server + "/")
        wait_for(lambda: "HPO hp/releases/test-mini" in driver.find_element(By.ID, "info").text, "the info line")
        # Before anything is annotated: no download buttons; an empty box is nothing to annotate.
        assert driver.find_element(By.ID, "download-jsonl") and not driver.find_element(By.ID, "downloads").is_displayed()
        driver.find_element(By.ID, "annotate").click()
        assert driver.find_element(By.ID, "status").text == "Nothing to annotate: paste a text or upload a file."
        assert not driver.find_elements(By.CSS_SELECTOR, "article") and not driver.find_element(By.ID, "downloads").is_displayed()

        driver.find_element(By.ID, "input-text").send_keys(TEXT)
        driver.find_element(By.ID, "annotate").click()
        marks = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "mark.mention"), "the highlighted phenotypes")
        assert [mark.text for mark in marks] == ["seizures", "microcephaly", "hypotonia"]
        assert [mark.get_attribute("data-hpo-id") for mark in marks] == ["HP:0001250", "HP:0000252", "HP:0001252"]
        assert marks[2].value_of_css_property("text-decoration-line") == "line-through"
        assert marks[0].value_of_css_property("text-decoration-line") == "none"
        assert driver.find_element(By.ID, "downloads").is_displayed()
        # The legend lists what occurs (no patient was given: the text's subject is its proband); the negated flag shows its cue.
        assert [chip.text for chip in driver.find_elements(By.CSS_SELECTOR, "#article-0 .legend span")] == ["proband", "negated"]
        assert [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#article-0 td.flags")] == ["", "", "negated “no”"]
        assert all(len(driver.execute_script("return arguments[0].getClientRects()", mark)) == 1 for mark in marks)

        ActionChains(driver).move_to_element(marks[0]).perform()
        tooltip = driver.find_element(By.ID, "tooltip")
        wait_for(tooltip.is_displayed, "the hover details")
        assert "HP:0001250 Seizure" in tooltip.text and "synonym:EXACT" in tooltip.text

        driver.find_element(By.CSS_SELECTOR, "#row-0-1 button.reject").click()
        wait_for(lambda: "rejected" in driver.find_element(By.ID, "mark-0-1").get_attribute("class"), "the rejected mark")
        change = driver.find_element(By.ID, "change-0-0")
        change.send_keys("HP:0001252")
        driver.find_element(By.CSS_SELECTOR, "#row-0-0 button.change").click()
        wait_for(lambda: driver.find_element(By.ID, "mark-0-0").get_attribute("data-hpo-id") == "HP:0001252", "the changed id")

        driver.find_element(By.ID, "download-jsonl").click()
        path = downloads / "curated-jsonl.jsonl"
        wait_for(lambda: path.exists() and path.stat().st_size > 0, "the download")
        (record,) = [json.loads(line) for line in path.read_text().splitlines()]
        assert [(e["text"], e["identifier"], e["curation"]) for e in record["entities"]] == [
            ("seizures", "HP:0001252", "changed"),
            ("hypotonia", "HP:0001252", "unreviewed"),
        ]

        # An uploaded PatientPheX file: phenotypes coloured by patient; the screenshot.
        driver.find_element(By.ID, "upload").send_keys(str(ARTICLES))
        wait_for(lambda: "in 2 articles" in driver.find_element(By.ID, "status").text, "the uploaded articles")
        colours = {m.text: m.value_of_css_property("background-color") for m in driver.find_elements(By.CSS_SELECTOR, "#article-0 mark.mention")}
        assert colours["microcephaly"] != colours["Seizures"]  # patient OII-1's colour, and no patient's
        legends = [[chip.text for chip in legend.find_elements(By.TAG_NAME, "span")] for legend in driver.find_elements(By.CSS_SELECTOR, ".legend")]
        assert legends == [["OII-1", "several patients", "no patient", "negated"], []]  # OII-2 only beside OII-1
        assert "PMID 31000001" in driver.find_element(By.CSS_SELECTOR, "#article-0 h2").text
        driver.find_element(By.CSS_SELECTOR, "#row-0-3 button.reject").click()
        driver.execute_script("window.scrollTo(0, 0)")
        ActionChains(driver).move_to_element(driver.find_element(By.ID, "mark-0-4")).perform()
        driver.save_screenshot(str(screenshot))
        # The page's own requests all succeeded (a favicon among them).
        assert [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"] == []
    finally:
        driver.quit()
    assert screenshot.stat().st_size > 10_000


def test_hostile_fields_stay_text_in_the_page(server, tmp_path):
    """An uploaded article with markup in every field: the page shows it as text, and
    nothing of it runs."""
    from selenium.webdriver.common.by import By

    article = {
        "pmc_id": HOSTILE,
        "pmid": HOSTILE,
        "patient": [{"patient_id": HOSTILE, "mention": []}],
        "full_text": [
            {"section_type": HOSTILE, "type": HOSTILE, "offset": 0, "text": f"{HOSTILE} The proband had seizures, {HOSTILE} and no hypotonia."},
            {"section_type": "CASE", "type": "paragraph", "offset": 2 * len(HOSTILE) + 50, "text": "Both had hypotonia."},
        ],
    }
    upload = tmp_path / "hostile.jsonl"
    upload.write_text(json.dumps(article) + "\n", encoding="utf-8")
    driver = chromium_driver(tmp_path, tmp_path / "profile")
    try:
        driver.get(server + "/")
        driver.find_element(By.ID, "upload").send_keys(str(upload))
        wait_for(lambda: "in 1 article" in driver.find_element(By.ID, "status").text, "the uploaded article")
        for mark in driver.find_elements(By.CSS_SELECTOR, "mark.mention"):
            mark.click()
        time.sleep(0.5)  # an injected onerror would have fired
        assert injected(driver) == []
        assert driver.find_element(By.CSS_SELECTOR, "#article-0 h2").text == f"{HOSTILE} (PMID {HOSTILE})"
        assert driver.execute_script("return document.querySelector('#article-0 h3').textContent") == HOSTILE
        assert [mark.text for mark in driver.find_elements(By.CSS_SELECTOR, "mark.mention")] == ["seizures", "hypotonia", "hypotonia"]
    finally:
        driver.quit()


@contextmanager
def page(server: str, tmp_path, width: int = 1280):
    """The curation page in a fresh headless Chromium, once it has the server's info."""
    from selenium.webdriver.common.by import By

    (tmp_path / "downloads").mkdir(exist_ok=True)
    driver = chromium_driver(tmp_path / "downloads", tmp_path / "profile", width=width)
    try:
        driver.get(server + "/")
        wait_for(lambda: "HPO hp/releases/test-mini" in driver.find_element(By.ID, "info").text, "the info line")
        yield driver
    finally:
        driver.quit()


def annotate_text(driver, text: str) -> list:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "input-text")
    box.clear()
    box.send_keys(text)
    driver.find_element(By.ID, "annotate").click()
    return wait_for(lambda: "phenotype mention" in driver.find_element(By.ID, "status").text and driver.find_elements(By.CSS_SELECTOR, "mark.mention"), "the highlights")


# The characters after which each line of a cell ends (a space that ends a line is there,
# with no width).
LINE_ENDS = """
const cell = arguments[0], ends = [];
const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
let last = null;
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  for (let i = 0; i < node.data.length; i++) {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const box = range.getClientRects()[0];
    if (!box) continue;
    if (last && box.top > last.top + 1) ends.push(last.char);
    last = { char: node.data[i], top: box.top };
  }
}
return ends;
"""


def test_a_provenance_breaks_between_its_tokens(server, tmp_path):
    """A narrow table: the provenance column wraps, at a separator or a space only."""
    from selenium.webdriver.common.by import By

    with page(server, tmp_path, width=900) as driver:
        annotate_text(driver, SHORT_FORMS)
        cells = driver.find_elements(By.CSS_SELECTOR, "td.provenance")
        ends = [end for cell in cells for end in driver.execute_script(LINE_ENDS, cell)]
        assert ends, "no provenance wrapped: nothing was checked"
        assert set(ends) <= set(";:+>|,/= ·"), ends


def test_a_bad_id_is_said_at_its_row(server, tmp_path):
    from selenium.webdriver.common.by import By

    with page(server, tmp_path) as driver:
        annotate_text(driver, TEXT)
        driver.find_element(By.ID, "change-0-2").send_keys("no such finding")
        driver.find_element(By.CSS_SELECTOR, "#row-0-2 button.change").click()
        error = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "#row-0-2 .row-error"), "the row's error")
        assert error.text == 'no term of HPO hp/releases/test-mini matches "no such finding"'
        assert "no such finding" not in driver.find_element(By.ID, "status").text
        assert driver.find_element(By.ID, "change-0-2").get_attribute("value") == "no such finding"  # to be mended
        assert not driver.find_elements(By.CSS_SELECTOR, "#row-0-1 .row-error")
        driver.find_element(By.ID, "change-0-2").clear()
        driver.find_element(By.ID, "change-0-2").send_keys("HP:0001250")
        driver.find_element(By.CSS_SELECTOR, "#row-0-2 button.change").click()
        wait_for(lambda: driver.find_element(By.ID, "mark-0-2").get_attribute("data-hpo-id") == "HP:0001250", "the changed id")
        assert not driver.find_elements(By.CSS_SELECTOR, ".row-error")


def test_an_upload_replaces_the_pasted_text_and_a_paste_the_upload(server, tmp_path):
    from selenium.webdriver.common.by import By

    def upload():
        driver.find_element(By.ID, "upload").send_keys(str(ARTICLES))
        wait_for(lambda: "in 2 articles" in driver.find_element(By.ID, "status").text, "the uploaded articles")

    with page(server, tmp_path) as driver:
        annotate_text(driver, TEXT)
        upload()
        assert driver.find_element(By.ID, "input-text").get_attribute("value") == ""  # what is shown is the file's
        assert driver.find_element(By.ID, "status").text.startswith("patientphex_annotated.jsonl: ")
        marks = annotate_text(driver, TEXT)
        assert [mark.text for mark in marks] == ["seizures", "microcephaly", "hypotonia"]
        assert driver.find_element(By.ID, "upload").get_attribute("value") == ""
        assert driver.find_element(By.ID, "input-text").get_attribute("value") == TEXT
        upload()  # the same file again is read again
        assert len(driver.find_elements(By.CSS_SELECTOR, "article")) == 2


SHORT_FORMS = "The proband had global developmental delay (GDD) and no hypotonia. GDD was evident by 9 months, and GDD persisted. Her brother had seizures."


def test_changing_the_id_of_a_short_form_changes_its_every_use(server, tmp_path):
    from selenium.webdriver.common.by import By

    with page(server, tmp_path) as driver:
        marks = annotate_text(driver, SHORT_FORMS)
        texts = [mark.text for mark in marks]
        assert texts == ["global developmental delay", "GDD", "hypotonia", "GDD", "GDD", "seizures"]
        assert driver.find_element(By.CSS_SELECTOR, "#row-0-3 label.uses").text == "for all 3 uses of “GDD”"
        assert not driver.find_elements(By.CSS_SELECTOR, "#row-0-0 label.uses")  # the long form is no use of it
        driver.find_element(By.ID, "change-0-3").send_keys("HP:0001249")
        driver.find_element(By.CSS_SELECTOR, "#row-0-3 button.change").click()
        ids = lambda: [mark.get_attribute("data-hpo-id") for mark in driver.find_elements(By.CSS_SELECTOR, "mark.mention")]  # noqa: E731
        wait_for(lambda: ids()[3] == "HP:0001249", "the changed id")
        assert ids() == ["HP:0001263", "HP:0001249", "HP:0001252", "HP:0001249", "HP:0001249", "HP:0001250"]
        assert "mention 4 and 2 other uses of “GDD”" in driver.find_element(By.ID, "status").text
        # One use alone, when the box is unticked.
        driver.find_element(By.CSS_SELECTOR, "#row-0-4 input.every-use").click()
        driver.find_element(By.ID, "change-0-4").send_keys("HP:0001263")
        driver.find_element(By.CSS_SELECTOR, "#row-0-4 button.change").click()
        wait_for(lambda: ids()[4] == "HP:0001263", "the one changed use")
        assert ids()[1:5] == ["HP:0001249", "HP:0001252", "HP:0001249", "HP:0001263"]
        driver.find_element(By.ID, "download-jsonl").click()
        path = tmp_path / "downloads" / "curated-jsonl.jsonl"
        wait_for(lambda: path.exists() and path.stat().st_size > 0, "the download")
        (record,) = [json.loads(line) for line in path.read_text().splitlines()]
        uses = [(e["identifier"], e["curation"], e["provenance"][-1]) for e in record["entities"] if e["text"] == "GDD"]
        assert uses == [
            ("HP:0001249", "changed", "curation:changed_from:HP:0001263"),
            ("HP:0001249", "changed", "curation:changed_from:HP:0001263"),
            ("HP:0001263", "accepted", "patient:focus:proband>focus"),
        ]


def test_make_pictures_takes_the_docs_pictures(tmp_path):
    """benchmarks/pictures.py (``make pictures``), here on the mini ontology: the whole
    HTML view 1,200 pixels wide, the curation page 1,280 by 1,400."""
    import struct

    require_chromium()
    script = Path(__file__).parent.parent / "benchmarks" / "pictures.py"
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path), "--hpo", str(FIXTURES / "mini_hp.obo")], check=True, capture_output=True)
    sizes = {}
    for name in ("html_view.png", "serve.png"):
        head = (tmp_path / name).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        sizes[name] = struct.unpack(">II", head[16:24])
    assert sizes["html_view.png"][0] == 1200 and sizes["html_view.png"][1] > 600
    assert sizes["serve.png"] == (1280, 1400)
