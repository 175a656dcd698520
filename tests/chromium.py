"""Headless Chromium for the browser tests: Debian's chromium and chromium-driver (which
.ci/run installs) driven by Selenium; without them a test is skipped locally and fails
under CI. Also what the HTML security tests share: hostile strings and the parse of a page
into its elements."""

from __future__ import annotations

import os
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

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
)

# Markup, attribute breakouts, raw-text breakouts and a template expression in one field
# value (no ';', which would split an HPO id). Each would set window.pwned or the title if it ran.
HOSTILE = (
    "<img src=x onerror=\"window.pwned=1, document.title='pwned'\">"
    "\"><script>window.pwned=2</script>"
    "' onmouseover='window.pwned=3' x='"
    "</title></style></textarea><svg onload=\"window.pwned=4\">"
    "{{ 7*7 }}javascript:window.pwned=5"
)


def require_chromium() -> None:
    """Skips the test without Debian's chromium and chromium-driver (fails it under CI)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} and {CHROMEDRIVER} are needed (.ci/run installs chromium and chromium-driver)")
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    pytest.importorskip("selenium.webdriver")


def chromium_driver(download_dir: Path, profile_dir: Path, width: int = 1280, height: int = 1000):
    """A headless Chromium with a fresh profile, downloads into ``download_dir`` and the
    browser console's messages kept (``driver.get_log("browser")``)."""
    require_chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--window-size={width},{height}", f"--user-data-dir={profile_dir}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"download.default_directory": str(download_dir), "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
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


def injected(driver) -> list[str]:
    """What shows that a hostile string ran or became markup in the open page."""
    found = []
    if driver.execute_script("return window.pwned") is not None:
        found.append(f"window.pwned = {driver.execute_script('return window.pwned')}")
    if "pwned" in driver.title:
        found.append(f"title {driver.title!r}")
    count = driver.execute_script("return document.querySelectorAll('body img, body svg, body script, [onerror], [onload], [onmouseover]').length")
    if count:
        found.append(f"{count} injected elements or handlers")
    return found


class Elements(HTMLParser):
    """Each start tag of a page as (tag, its attribute names), in order, and the text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[str, ...]]] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(name for name, _ in attrs)))
        self.attributes += [(tag, name, value or "") for name, value in attrs]

    def handle_data(self, data):
        self.text.append(data)
