"""End-to-end: a real uvicorn server with a temporary database, driven by headless Chromium
through Playwright (Debian's /usr/bin/chromium; nothing is downloaded).

These tests are skipped only when /usr/bin/chromium or the playwright package is missing.
Screenshots of the entry page: `python tests/e2e/screenshots.py` (writes docs/screenshot-entry-*.png).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra is not installed
    sync_playwright = None

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # `app` is importable without `pip install -e .` too
    sys.path.insert(0, str(REPO))
KB = Path(os.environ.get("FAULTLINE_TEST_KB") or REPO / "kb")  # override: test another copy of kb/
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SEED = "pytorch/nccl-timeout-allreduce"
LOG = """\
[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] some NCCL operations have failed or timed out.
step 1200 loss 1.83
RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2.  Original reason for failure was: AllReduce timed out after 600000 ms
"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None, reason="the playwright package is not installed"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


# ----------------------------------------------------------------------------- server and browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(workdir: Path, kb: Path = KB):
    """`uvicorn faultline.main:app` in a subprocess on a free port, with its own database; yields the base URL."""
    from faultline.store.load import load_into_db

    db = workdir / "e2e.db"
    load_into_db(kb, db)
    port = free_port()
    env = {**os.environ, "FAULTLINE_DB": str(db), "FAULTLINE_KB": str(kb), "PYTHONUNBUFFERED": "1"}
    log = (workdir / "uvicorn.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "faultline.main:app", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning"],
        cwd=str(REPO), env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited with {proc.returncode}: "
                                   + (workdir / "uvicorn.log").read_text(errors="replace")[-2000:])
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not answer /healthz within 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@contextlib.contextmanager
def chromium():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("e2e")) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def en_page(browser, server):
    ctx = browser.new_context(base_url=server, locale="en-US", viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(30000)
    yield ctx.new_page()
    ctx.close()


@pytest.fixture()
def zh_page(browser, server):
    ctx = browser.new_context(base_url=server, locale="zh-CN", viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(30000)
    yield ctx.new_page()
    ctx.close()


def html_lang(page) -> str:
    return page.locator("html").get_attribute("lang")


# ----------------------------------------------------------------------------- tests


def test_paste_a_log_and_see_the_right_entry_first(en_page):
    page = en_page
    page.goto("/")
    assert html_lang(page) == "en"
    page.get_by_label("Traceback or log").fill(LOG)
    page.get_by_label("Environment (optional)").fill("torch==2.3.1\nnvidia-nccl-cu12==2.20.5")
    with page.expect_navigation():
        page.get_by_role("button", name="Find the known error").click()
    assert re.search(r"/results/[A-Za-z0-9_-]{22}$", page.url)  # a kept result: its own address
    assert page.get_by_role("heading", level=1).inner_text() == "Results"
    first = page.locator("ol.matches > li").first
    link = first.locator("h2 a")
    assert link.get_attribute("href") == f"/errors/{SEED}"
    assert "NCCL collective" in link.inner_text()
    assert first.locator(".workaround").count() >= 2 and first.locator(".dead-end").count() >= 1
    assert "%" in first.locator(".workaround .rate-value").first.inner_text()
    with page.expect_navigation():
        link.click()
    assert page.url.endswith(f"/errors/{SEED}")
    assert page.locator("h1").inner_text().startswith("NCCL collective")


def test_empty_submit_shows_the_error_message(en_page):
    page = en_page
    page.goto("/")
    with page.expect_navigation():
        page.get_by_role("button", name="Find the known error").click()
    alert = page.get_by_role("alert")
    assert "The log is empty" in alert.inner_text()
    assert page.locator("#text").get_attribute("aria-invalid") == "true"


def test_entry_in_chinese_shows_chinese_ui_and_content(zh_page):
    page = zh_page
    resp = page.goto(f"/errors/{SEED}")
    assert resp.status == 200 and resp.headers["content-language"] == "zh"
    assert html_lang(page) == "zh-Hans"
    assert page.locator("h1").inner_text() == "NCCL 集合通信（all-reduce）在 ProcessGroupNCCL 看门狗中超时"
    headings = page.locator("h2").all_inner_texts()
    for h in ("根本原因", "解决办法", "无效做法", "版本兼容性", "官方文档"):
        assert h in headings, headings
    assert "先找出最早失败或最慢的那个 rank" in page.locator(".root-cause").inner_text()
    assert page.locator(".stat dd time").inner_text() == "2023年6月15日"
    assert page.locator("nav.lang-switch [aria-current]").inner_text() == "中文"


def test_switch_language_and_the_choice_is_remembered(en_page):
    page = en_page
    page.goto(f"/errors/{SEED}")
    assert html_lang(page) == "en"
    assert page.locator("h2#h-root").inner_text() == "Root cause"
    with page.expect_navigation():
        page.locator("nav.lang-switch").get_by_role("link", name="中文").click()
    assert page.url.endswith(f"/errors/{SEED}")
    assert html_lang(page) == "zh-Hans"
    assert page.locator("h2#h-root").inner_text() == "根本原因"
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies.get("lang") == "zh"
    page.goto("/guides")  # another page, no ?lang=: the cookie decides
    assert html_lang(page) == "zh-Hans" and page.locator("h1").inner_text() == "指南"
    with page.expect_navigation():
        page.locator("nav.lang-switch").get_by_role("link", name="English").click()
    assert html_lang(page) == "en" and page.locator("h1").inner_text() == "Guides"


def test_follow_the_json_and_markdown_links(en_page):
    page = en_page
    page.goto(f"/errors/{SEED}")
    formats = page.locator("p.formats")
    with page.expect_response(lambda r: ".json" in r.url) as info:
        formats.get_by_role("link", name="JSON").click()
    resp = info.value
    assert resp.status == 200 and resp.headers["content-type"].startswith("application/json")
    doc = json.loads(resp.text())
    assert doc["id"] == SEED and doc["lang"] == "en"
    page.goto(f"/errors/{SEED}")
    with page.expect_response(lambda r: ".md" in r.url) as info:
        page.locator("p.formats").get_by_role("link", name="Markdown").click()
    resp = info.value
    assert resp.status == 200 and resp.headers["content-type"].startswith("text/markdown")
    assert resp.text().startswith("# NCCL collective")
    # the other language, from the same line
    page.goto(f"/errors/{SEED}")
    with page.expect_navigation():
        page.locator("p.formats").get_by_role("link", name="中文").click()
    assert html_lang(page) == "zh-Hans"


def test_keyboard_skip_link_and_visible_focus(en_page):
    page = en_page
    page.goto("/")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.className")
    assert "skip-link" in focused
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    # the paste box is reachable with the keyboard
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "text":
            break
    assert page.evaluate("document.activeElement.id") == "text"


def test_readable_on_a_phone(browser, server):
    ctx = browser.new_context(base_url=server, locale="en-US", viewport={"width": 375, "height": 740},
                              is_mobile=True, has_touch=True)
    try:
        page = ctx.new_page()
        for url in ("/", f"/errors/{SEED}", "/errors", "/guides/distributed-hangs"):
            page.goto(url)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, (url, overflow)
    finally:
        ctx.close()


def test_no_requests_leave_the_site(en_page, server):
    page = en_page
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    for url in ("/", f"/errors/{SEED}", "/errors", "/guides", "/guides/distributed-hangs"):
        page.goto(url)
    assert seen and all(u.startswith(server) for u in seen), [u for u in seen if not u.startswith(server)]
    assert any(u.endswith("/static/style.css") for u in seen)


def test_api_docs_render_offline(en_page, server):
    """/docs renders the OpenAPI document with Swagger UI's files served by the app itself."""
    page = en_page
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(server) else None)
    page.goto("/docs")
    page.wait_for_selector(".opblock-summary", timeout=15000)
    assert page.locator(".opblock-summary-path", has_text="/match").count() >= 1
    assert outside == []
