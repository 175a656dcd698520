"""phenorules serve on a real uvicorn server at 127.0.0.1: the ``openai`` client's call for
JNLPBA's NER prompt, 50 concurrent requests, and the curation page in headless Chromium
(Debian's chromium and chromium-driver, which .ci/run installs) driven by Selenium. The
browser test writes docs/serve.png."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from phenorules.serve.app import create_app, listen  # noqa: E402
from phenorules.serve.engine import Engine  # noqa: E402
from phenorules.serve.guard import served_policy  # noqa: E402
from phenorules.tasks.jnlpba.io import read_standoff  # noqa: E402
from phenorules.tasks.jnlpba.model import learn_model_from, make_tagger  # noqa: E402
from test_serve import ARTICLES, FIXTURES, NER_PROMPT, NER_RESPONSE, TEXT  # noqa: E402

ROOT = Path(__file__).parent.parent
SCREENSHOT = ROOT / "docs" / "serve.png"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)


@pytest.fixture(scope="module")
def server(mini_nlp):
    """The app on uvicorn in a thread, on a free port of 127.0.0.1; its base URL."""
    engine = Engine(mini_nlp, make_tagger(learn_model_from(read_standoff(FIXTURES / "jnlpba_train"))))
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    instance = uvicorn.Server(uvicorn.Config(create_app(engine, served_policy("127.0.0.1", port)), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(10)
    sock.close()


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


def chromium_driver(download_dir: Path, profile_dir: Path):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} and {CHROMEDRIVER} are needed (.ci/run installs chromium and chromium-driver)")
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile_dir}",):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"download.default_directory": str(download_dir), "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)})
    return driver


def wait_for(condition, what: str, seconds: float = 20):
    """``condition()``'s first true value; an element replaced while it is read (the page
    re-renders an article after each decision) counts as not yet."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
        except (NoSuchElementException, StaleElementReferenceException):
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_page_highlights_rejects_downloads_and_shows_patients(server, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = chromium_driver(downloads, tmp_path / "profile")
    try:
        driver.get(server + "/")
        wait_for(lambda: "HPO hp/releases/test-mini" in driver.find_element(By.ID, "info").text, "the info line")
        driver.find_element(By.ID, "input-text").send_keys(TEXT)
        driver.find_element(By.ID, "annotate").click()
        marks = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "mark.mention"), "the highlighted phenotypes")
        assert [mark.text for mark in marks] == ["seizures", "microcephaly", "hypotonia"]
        assert [mark.get_attribute("data-hpo-id") for mark in marks] == ["HP:0001250", "HP:0000252", "HP:0001252"]
        assert marks[2].value_of_css_property("text-decoration-line") == "line-through"
        assert marks[0].value_of_css_property("text-decoration-line") == "none"

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
        driver.find_element(By.CSS_SELECTOR, "#row-0-3 button.reject").click()
        driver.execute_script("window.scrollTo(0, 0)")
        ActionChains(driver).move_to_element(driver.find_element(By.ID, "mark-0-4")).perform()
        SCREENSHOT.parent.mkdir(exist_ok=True)
        driver.save_screenshot(str(SCREENSHOT))
    finally:
        driver.quit()
    assert SCREENSHOT.stat().st_size > 10_000
