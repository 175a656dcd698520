"""The docs' two pictures, taken from the code of this tree in headless Chromium (``make pictures``):

- ``html_view.png``: ``phenorules annotate examples/example_article.jsonl --html``, the
  whole page;
- ``serve.png``: the curation page of ``phenorules serve`` with the example article
  uploaded, one mention accepted, one rejected and a negated one's details on hover.

Both run the default pipeline on the default ontology (``--hpo`` another), with this
environment's cache. Chromium is Debian's chromium and chromium-driver, driven by
Selenium as the browser tests drive it (tests/chromium.py).

Usage: python benchmarks/pictures.py [--out DIR] [--hpo PATH]   (DIR: docs/)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "example_article.jsonl"
VIEW_WIDTH = 1200
PAGE_SIZE = (1280, 1400)  # the text and the table's first rows
READY_SECONDS = 300  # a first start builds the lexicon
sys.path.insert(0, str(ROOT / "tests"))

from chromium import CHROMEDRIVER, CHROMIUM, chromium_driver, wait_for  # noqa: E402


def phenorules(*args: str) -> list[str]:
    return [sys.executable, "-m", "phenorules", *args]


def screenshot(driver, path: Path, width: int, height: int | None = None) -> None:
    """The page at ``width`` CSS pixels, ``height`` high (None: the whole page)."""
    if height is None:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1, "deviceScaleFactor": 1, "mobile": False})
        height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.save_screenshot(str(path))


def html_view_picture(path: Path, hpo: list[str], work: Path) -> None:
    view = work / "view.html"
    # The path as the page's title shows it: relative to the tree, as in the README.
    subprocess.run(phenorules("annotate", str(EXAMPLE.relative_to(ROOT)), "--html", str(view), "--quiet", *hpo), check=True, cwd=ROOT)
    driver = chromium_driver(work, work / "profile-view")
    try:
        driver.get(view.as_uri())
        screenshot(driver, path, VIEW_WIDTH)
    finally:
        driver.quit()


def curation_picture(path: Path, hpo: list[str], work: Path) -> None:
    server = subprocess.Popen(phenorules("serve", "--port", "0", *hpo), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().split()[2]  # phenorules: serving http://127.0.0.1:PORT/ (...)
        deadline = time.monotonic() + READY_SECONDS
        while not ready(url):
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit("pictures: phenorules serve did not get ready")
            time.sleep(0.2)
        driver = chromium_driver(work, work / "profile-page", *PAGE_SIZE)
        try:
            curate_the_example(driver, url)
            screenshot(driver, path, *PAGE_SIZE)
        finally:
            driver.quit()
    finally:
        server.terminate()
        server.wait(20)


def ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "health", timeout=10) as answer:
            return json.loads(answer.read()) == {"status": "ready"}
    except urllib.error.HTTPError:  # 503 while it loads
        return False


def curate_the_example(driver, url: str) -> None:
    """Upload the example; accept the first mention of a patient, reject the last one of
    no patient before it, and hover the first negated one."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver.get(url)
    wait_for(lambda: "HPO" in driver.find_element(By.ID, "info").text, "the info line")
    driver.find_element(By.ID, "upload").send_keys(str(EXAMPLE))
    wait_for(lambda: "in 1 article" in driver.find_element(By.ID, "status").text, "the annotated example")
    mentions = driver.execute_script("return state.articles[0].mentions.map((m) => ({patients: m.patients, negated: m.negated}))")
    with_patient = next(i for i, m in enumerate(mentions) if m["patients"] and not m["negated"])
    driver.find_element(By.CSS_SELECTOR, f"#row-0-{with_patient} button.accept").click()
    without = max(i for i, m in enumerate(mentions[:with_patient]) if not m["patients"])
    driver.find_element(By.CSS_SELECTOR, f"#row-0-{without} button.reject").click()
    negated = next(i for i, m in enumerate(mentions) if m["negated"])
    driver.execute_script("window.scrollTo(0, 0)")
    ActionChains(driver).move_to_element(driver.find_element(By.ID, f"mark-0-{negated}")).perform()
    wait_for(driver.find_element(By.ID, "tooltip").is_displayed, "the hover details")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="where html_view.png and serve.png go (default: docs/)")
    parser.add_argument("--hpo", default=None, help="HPO release in OBO format (default: phenorules' own)")
    options = parser.parse_args()
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        sys.exit(f"pictures: {CHROMIUM} and {CHROMEDRIVER} are needed (Debian: apt-get install chromium chromium-driver)")
    hpo = ["--hpo", options.hpo] if options.hpo else []
    with tempfile.TemporaryDirectory() as work:
        html_view_picture(options.out / "html_view.png", hpo, Path(work))
        curation_picture(options.out / "serve.png", hpo, Path(work))
    print(f"wrote {options.out / 'html_view.png'} and {options.out / 'serve.png'}")


if __name__ == "__main__":
    main()
