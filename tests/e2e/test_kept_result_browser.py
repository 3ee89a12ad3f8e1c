"""End-to-end, in headless Chromium: a result has an address that can be shared.  A log posted from the
form lands on /results/<id>; that address, opened in a fresh browser (no cookies, another language),
shows the same result, and the language switch comes back to it.  Same server and browser as
test_browser.py."""
from __future__ import annotations

import re

from test_browser import LOG, SEED, browser, server, pytestmark  # noqa: F401 - fixtures and marks

KEPT = re.compile(r"/results/[A-Za-z0-9_-]{22}$")


def fresh_page(browser, server, locale: str):
    ctx = browser.new_context(base_url=server, locale=locale, viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(30000)
    return ctx, ctx.new_page()


def first_match(page):
    return page.locator("ol.matches > li").first.locator("h2 a")


def test_a_posted_result_can_be_shared_and_switched_to_the_other_language(browser, server):
    ctx, page = fresh_page(browser, server, "en-US")
    try:
        page.goto("/")
        page.get_by_label("Traceback or log").fill(LOG)
        with page.expect_navigation():
            page.get_by_role("button", name="Find the known error").click()
        assert KEPT.search(page.url), page.url
        shared = page.url
        assert first_match(page).get_attribute("href") == f"/errors/{SEED}"
        kept = page.locator("#kept")
        assert "can be shared" in kept.inner_text()
        assert shared.endswith(kept.get_by_role("link").get_attribute("href"))
        page.reload()  # a reload shows the result again (no form re-post)
        assert first_match(page).get_attribute("href") == f"/errors/{SEED}"
    finally:
        ctx.close()

    # someone else opens the link: no cookie, a Chinese browser
    ctx, page = fresh_page(browser, server, "zh-CN")
    try:
        page.goto(shared)
        assert page.locator("html").get_attribute("lang") == "zh-Hans"
        assert page.get_by_role("heading", level=1).inner_text() == "匹配结果"
        assert first_match(page).get_attribute("href") == f"/errors/{SEED}"
        assert "看门狗" in first_match(page).inner_text()
        assert "本页地址可以分享" in page.locator("#kept").inner_text()
        # the language switch comes back to the same result, in English
        with page.expect_navigation():
            page.locator("nav.lang-switch").get_by_role("link", name="English").click()
        assert page.url == shared
        assert page.locator("html").get_attribute("lang") == "en"
        assert page.get_by_role("heading", level=1).inner_text() == "Results"
        assert "NCCL collective" in first_match(page).inner_text()
        # and back to Chinese with ?lang=zh on the same address
        page.goto(shared + "?lang=zh")
        assert "看门狗" in first_match(page).inner_text()
        # the Edit form still holds the log
        assert "NCCL communicator was aborted" in page.locator("#text").input_value()
    finally:
        ctx.close()


def test_an_unknown_or_expired_link_says_so(browser, server):
    ctx, page = fresh_page(browser, server, "en-US")
    try:
        r = page.goto("/results/" + "A" * 22)
        assert r.status == 404
        assert page.get_by_role("heading", level=1).inner_text() == "This result is no longer kept"
        assert "kept for 7 days" in page.locator("main").inner_text()
    finally:
        ctx.close()
