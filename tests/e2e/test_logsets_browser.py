"""End-to-end: the home page's file picker takes several logs of one job (a torchrun --log-dir's
files) or an archive of them, and the results page names the first failing rank and the file and
line each finding came from.  Same server and browser as tests/e2e/test_browser.py (a real uvicorn,
headless Chromium); the files are the real runs saved by tools/examples/logsets.py."""
from __future__ import annotations

import io
import re
import zipfile

from tests.e2e.test_browser import REPO, browser, en_page, pytestmark, server, zh_page  # noqa: F401 - fixtures

DATA = REPO / "tests" / "data" / "logsets"
TORCHRUN = DATA / "torchrun-4ranks-rank2-first"
SPAWN = DATA / "spawn-3ranks-rank1-first"


def submit(page) -> None:
    with page.expect_navigation():
        page.locator("button[type=submit]").click()
    assert re.search(r"/results/[A-Za-z0-9_-]{22}$", page.url)  # a kept result: its own address


def test_several_files_name_the_first_failing_rank_and_its_file(en_page):
    page = en_page
    page.goto("/")
    assert page.get_by_label("Or choose log files").get_attribute("multiple") is not None
    page.get_by_label("Or choose the log folder").set_input_files(TORCHRUN)  # the browser sends relative paths
    submit(page)
    box = page.locator(".root-cause-box")
    assert "rank 2" in box.inner_text()
    assert "attempt_0/2/error.json, line 20" in box.locator(".root-file").inner_text()
    assert "IndexError: index out of range in self" in box.locator("pre").inner_text()
    first = page.locator("ol.matches > li").first
    assert first.locator("h2 a").get_attribute("href") == "/errors/pytorch/embedding-index-out-of-range"
    assert "error.json, line 20" in first.locator(".matched-file").inner_text()
    assert "ranks 2 never reached the all_reduce that ranks 0, 1, 3 wait in" in page.locator(
        ".finding-missing_from_collective").inner_text()
    page.locator("#files summary").click()
    assert page.locator("#files li").count() == 12


def test_several_files_chosen_one_by_one(en_page):
    page = en_page
    page.goto("/")
    page.get_by_label("Or choose log files").set_input_files(sorted(str(p) for p in SPAWN.iterdir()))
    submit(page)
    box = page.locator(".root-cause-box")
    assert "rank 1" in box.inner_text() and "rank1.log, line 7" in box.inner_text()
    assert page.locator("ol.matches > li h2 a").first.get_attribute("href") == "/errors/pytorch/mat1-mat2-shape-mismatch"


def test_an_archive_in_chinese(zh_page, tmp_path):
    page = zh_page
    archive = tmp_path / "spawn-logs.zip"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(SPAWN.iterdir()):
            zf.write(p, f"logs/{p.name}")
    archive.write_bytes(buf.getvalue())
    page.goto("/")
    page.get_by_label("或选择日志文件").set_input_files(str(archive))
    submit(page)
    box = page.locator(".root-cause-box")
    assert "rank 1" in box.inner_text() and "spawn-logs.zip:logs/rank1.log 第 7 行" in box.inner_text()
    first = page.locator("ol.matches > li").first
    assert first.locator("h2 a").get_attribute("href") == "/errors/pytorch/mat1-mat2-shape-mismatch"
    assert "从未进入" in page.locator(".finding-missing_from_collective").inner_text()


def test_a_hostile_archive_gets_a_clear_page(en_page, tmp_path):
    page = en_page
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("../escape.log", "RuntimeError: x\n")
    page.goto("/")
    page.get_by_label("Or choose log files").set_input_files(str(bomb))
    with page.expect_navigation():
        page.locator("button[type=submit]").click()
    assert "The files could not be read" in page.locator("h1").inner_text()
    assert "'..' path" in page.locator("main").inner_text()
