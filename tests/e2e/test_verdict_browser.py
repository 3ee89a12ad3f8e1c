"""End-to-end, in headless Chromium: the verdict (who must act, whether to retry) on the result page
and on the entry page, in English and Chinese.  Same server and browser as test_browser.py."""
from __future__ import annotations

import yaml

from test_browser import KB, browser, en_page, server, zh_page, pytestmark  # noqa: F401 - fixtures and marks

ECC_ID = "pytorch/cuda-ecc-error"
ECC_LOG = "step 310 loss 1.92\n[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
UNKNOWN_LOG = """\
Traceback (most recent call last):
  File "/home/ana/proj/train.py", line 40, in <module>
    main(cfg)
  File "/home/ana/proj/train.py", line 12, in main
    raise ValueError(f"bad warmup {w}")
ValueError: bad warmup -3 for schedule cosine_restarts_custom
"""


def entry_doc(entry_id: str) -> dict:
    return yaml.safe_load((KB / "entries" / f"{entry_id}.yaml").read_text(encoding="utf-8"))


def paste(page, log: str, label: str, button: str) -> None:
    page.goto("/")
    page.get_by_label(label).fill(log)
    with page.expect_navigation():
        page.get_by_role("button", name=button).click()


def test_result_page_shows_the_entrys_verdict_in_english(en_page):
    page = en_page
    doc = entry_doc(ECC_ID)
    paste(page, ECC_LOG, "Traceback or log", "Find the known error")
    box = page.locator("#verdict")
    assert box.get_by_role("heading", name="Verdict").is_visible()
    blame = box.locator(".verdict-blame")
    assert blame.locator("dt").inner_text() == "Who must act"
    assert blame.locator(".verdict-kind").get_attribute("data-kind") == doc["blame"]["kind"]
    retry = box.locator(".verdict-retry")
    assert retry.locator(".verdict-kind").get_attribute("data-kind") == "transient"
    assert retry.locator(".verdict-kind").inner_text() == "transient: retry as is"
    assert retry.locator(".verdict-reason").inner_text() == " ".join(doc["retry"]["reason"]["en"].split())
    assert "from the entry" in box.locator(".verdict-source").inner_text()


def test_result_page_shows_a_derived_verdict_in_chinese(zh_page):
    page = zh_page
    paste(page, UNKNOWN_LOG, "Traceback 或日志", "查找已知错误")
    box = page.locator("#verdict")
    assert box.get_by_role("heading", name="判定").is_visible()
    assert box.locator(".verdict-blame dt").inner_text() == "由谁处理"
    assert box.locator(".verdict-blame .verdict-kind").inner_text() == "你的代码"
    assert "train.py 第 12 行" in box.locator(".verdict-blame .verdict-reason").inner_text()
    assert box.locator(".verdict-retry .verdict-kind").inner_text() == "修复之后才能重试"
    assert "由日志推断" in box.locator(".verdict-source").inner_text()


def test_entry_page_shows_blame_and_retry_in_both_languages(en_page, zh_page):
    doc = entry_doc(ECC_ID)
    en_page.goto(f"/errors/{ECC_ID}")
    box = en_page.locator("#verdict")
    assert box.locator(".verdict-blame .verdict-reason").inner_text() == " ".join(doc["blame"]["reason"]["en"].split())
    assert box.locator(".verdict-retry .verdict-kind").get_attribute("data-kind") == doc["retry"]["kind"]
    zh_page.goto(f"/errors/{ECC_ID}")
    box = zh_page.locator("#verdict")
    assert box.get_by_role("heading", name="判定").is_visible()
    assert box.locator(".verdict-retry dt").inner_text() == "是否重试"
    assert box.locator(".verdict-retry .verdict-reason").inner_text() == doc["retry"]["reason"]["zh"].replace("\n", "")
