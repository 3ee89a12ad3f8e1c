"""The web pages: server-rendered HTML in English and Chinese, against a real SQLite file
built from the repository's kb/."""
from __future__ import annotations

import html
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from faultline.main import create_app
from faultline.store.load import load_into_db

REPO = Path(__file__).resolve().parent.parent
KB = Path(os.environ.get("FAULTLINE_TEST_KB") or REPO / "kb")  # override: test another copy of kb/
SEED = "pytorch/nccl-timeout-allreduce"
SEED_LINE = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2.  Original reason for failure was: "
    "AllReduce timed out after 600000 ms"
)
HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def web_app(tmp_path_factory):
    db = tmp_path_factory.mktemp("web") / "t.db"
    load_into_db(KB, db)
    return create_app(db_path=str(db), kb_root=str(KB))


@pytest.fixture()
def web(web_app):
    """A fresh browser-like client (empty cookie jar) for every test."""
    with TestClient(web_app) as c:
        yield c


def page(c: TestClient, url: str, status: int = 200, **headers: str):
    r = c.get(url, headers={**HTML, **headers})
    assert r.status_code == status, (url, r.status_code, r.text[:500])
    assert r.headers["content-type"].startswith("text/html")
    return r


class _Doc(HTMLParser):
    """Collects what the structural checks need: tags with attributes, and label targets."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())]


def assert_common_page(text: str, lang_tag: str) -> _Doc:
    doc = _Doc(text)
    assert doc.find("html")[0]["lang"] == lang_tag
    assert doc.find("meta", name="viewport")
    hreflangs = {a["hreflang"]: a["href"] for a in doc.find("link", rel="alternate")}
    assert {"en", "zh-Hans", "x-default"} <= set(hreflangs)
    assert "lang=en" in hreflangs["en"] and "lang=zh" in hreflangs["zh-Hans"]
    # the visible language switch
    assert any(a.get("href", "").startswith("/lang/") for a in doc.find("a"))
    # no scripts, no assets from other sites
    assert not doc.find("script")
    for a in doc.find("link", rel="stylesheet"):
        assert a["href"].startswith("/static/")
    for tag in ("img", "iframe", "audio", "video", "source"):
        assert not [a for a in doc.find(tag) if "//" in a.get("src", "")]
    # every form control has a label
    labelled = {a["for"] for a in doc.find("label") if a.get("for")}
    for tag in ("textarea", "select", "input"):
        for a in doc.find(tag):
            if a.get("type") in ("hidden", "submit"):
                continue
            assert a.get("id") in labelled or a.get("aria-label"), (tag, a)
    return doc


# ----------------------------------------------------------------------------- entry page


def test_entry_page_english(web):
    r = page(web, f"/errors/{SEED}?lang=en")
    assert r.headers["content-language"] == "en"
    assert "Accept-Language" in r.headers["vary"] and "Cookie" in r.headers["vary"]
    doc = assert_common_page(r.text, "en")
    t = html.unescape(r.text)
    for label in ("Root cause", "Workarounds", "Dead ends", "Version compatibility", "Fix rate", "Confidence",
                  "Reproduced logs", "First seen", "Official documentation", "Also available as:"):
        assert label in t, label
    assert "NCCL collective (all-reduce) timed out" in t
    assert SEED in t and "Watchdog caught collective operation timeout" in t
    assert "June 15, 2023" in t and "75%" in t and "85%" in t
    hrefs = {a.get("href") for a in doc.find("a")}
    assert f"/errors/{SEED}.json?lang=en" in hrefs
    assert f"/errors/{SEED}.md?lang=en" in hrefs
    assert f"/errors/{SEED}?lang=zh" in hrefs
    # workarounds ranked, with bars
    rates = [int(x) for x in re.findall(r'class="rate-fill" style="width: (\d+)%"', r.text)]
    assert rates[:4] == [80, 70, 60, 50]
    assert "/guides/distributed-hangs" in " ".join(h for h in hrefs if h)


def test_entry_page_chinese_ui_and_content(web):
    r = page(web, f"/errors/{SEED}?lang=zh")
    assert r.headers["content-language"] == "zh"
    assert_common_page(r.text, "zh-Hans")
    t = html.unescape(r.text)
    for label in ("根本原因", "解决办法", "无效做法", "版本兼容性", "修复率", "置信度", "首次出现", "官方文档", "其他格式："):
        assert label in t, label
    assert "NCCL 集合通信（all-reduce）在 ProcessGroupNCCL 看门狗中超时" in t
    assert "在调整超时之前，先找出最早失败或最慢的那个 rank" in t
    assert "2023年6月15日" in t
    assert "Root cause" not in t and "Workarounds" not in t
    # folded YAML lines leave no space between Chinese characters
    assert "10 分钟，较旧版本" in t


def test_accept_language_zh_cn_gives_chinese(web):
    r = page(web, f"/errors/{SEED}", **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert r.headers["content-language"] == "zh"
    assert '<html lang="zh-Hans">' in r.text and "根本原因" in r.text
    r = page(web, f"/errors/{SEED}", **{"Accept-Language": "en-US,en;q=0.9"})
    assert '<html lang="en">' in r.text
    # ?lang= wins over Accept-Language
    r = page(web, f"/errors/{SEED}?lang=en", **{"Accept-Language": "zh-CN"})
    assert '<html lang="en">' in r.text


def test_language_switch_sets_cookie_and_is_remembered(web):
    r = web.get(f"/lang/zh?next=/errors/{SEED}", headers=HTML, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/errors/{SEED}"
    assert "lang=zh" in r.headers["set-cookie"] and "Path=/" in r.headers["set-cookie"]
    for url in (f"/errors/{SEED}", "/", "/errors", "/guides", "/guides/distributed-hangs"):
        r = page(web, url, **{"Accept-Language": "en-US"})
        assert r.headers["content-language"] == "zh", url
        assert '<html lang="zh-Hans">' in r.text, url
    # switching back
    web.get("/lang/en?next=/", headers=HTML, follow_redirects=False)
    assert '<html lang="en">' in page(web, f"/errors/{SEED}", **{"Accept-Language": "zh-CN"}).text


def test_language_switch_only_redirects_to_local_paths(web):
    for bad in ("//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", ""):
        r = web.get("/lang/zh", params={"next": bad}, headers=HTML, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/", bad
    r = web.get("/lang/en", params={"next": "/errors?q=nccl&lang=zh"}, headers=HTML, follow_redirects=False)
    assert r.headers["location"] == "/errors?q=nccl"  # the explicit ?lang= would override the new choice
    r = web.get("/lang/fr?next=/", headers=HTML, follow_redirects=False)
    assert r.status_code == 404 and "set-cookie" not in r.headers


def test_switch_links_point_back_to_the_same_page(web):
    r = page(web, "/errors?q=nccl&lang=en")
    assert "/lang/zh?next=/errors%3Fq%3Dnccl" in r.text
    assert 'href="/errors?q=nccl&amp;lang=zh"' in r.text  # hreflang alternate
    # the client's Host header never makes the page's links (FAULTLINE_PUBLIC_URL does)
    r = web.get("/errors?q=nccl&lang=en", headers={**HTML, "Host": "evil.example"})
    assert "evil.example" not in r.text


def test_export_links_of_the_entry_page_work(web):
    j = web.get(f"/errors/{SEED}.json?lang=zh")
    assert j.status_code == 200 and j.json()["id"] == SEED and j.json()["lang"] == "zh"
    md = web.get(f"/errors/{SEED}.md?lang=en", headers=HTML)
    assert md.headers["content-type"].startswith("text/markdown") and md.text.startswith("# ")


# ----------------------------------------------------------------------------- home and results


def test_home_page_has_a_labelled_paste_box(web):
    r = page(web, "/")
    doc = assert_common_page(r.text, "en")
    form = doc.find("form", method="post")[0]
    assert form["action"] in ("/", "/results")
    assert doc.find("textarea", name="text") and doc.find("textarea", name="environment")
    assert doc.find("button", type="submit")


@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
def test_form_post_finds_the_entry_for_its_error_line(web, encoding):
    log = "step 10 loss 2.1\n" + SEED_LINE + "\n"
    if encoding == "urlencoded":
        r = web.post("/results", data={"text": log, "environment": "torch==2.3.1"}, headers=HTML)
    else:
        r = web.post("/results", files={"text": (None, log), "environment": (None, "torch==2.3.1")}, headers=HTML)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    doc = assert_common_page(r.text, "en")
    first = [a["href"] for a in doc.find("a") if a.get("href", "").startswith("/errors/")][0]
    assert first == f"/errors/{SEED}"
    t = html.unescape(r.text)
    assert "80%" in t and "success" in t and "fail" in t  # workarounds and dead ends with rates
    assert "Raising the timeout" in t  # a dead end


def test_a_log_file_can_be_uploaded_instead(web):
    files = {"text": (None, ""), "logfile": ("train.log", ("step 1\n" + SEED_LINE + "\n").encode(), "text/plain")}
    r = web.post("/results", files=files, headers=HTML)
    assert r.status_code == 200
    assert f'href="/errors/{SEED}"' in r.text


def test_form_post_on_root_url_and_in_chinese(web):
    r = web.post("/?lang=zh", data={"text": SEED_LINE}, headers=HTML)
    assert r.status_code == 200 and r.headers["content-language"] == "zh"
    t = html.unescape(r.text)
    assert "匹配结果" in t and "NCCL 集合通信" in t and "失败率" in t
    assert f'href="/errors/{SEED}?lang=zh"' in r.text


def test_results_show_the_root_cause_rank_and_line(web):
    log = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "train.py", line 42, in <module>\n'
        "[rank1]: ValueError: bad batch shape\n"
        "[rank0]: " + SEED_LINE + "\n"
    )
    api = web.post("/match", json={"text": log}).json()
    assert api["root_cause"] is not None
    r = web.post("/results", data={"text": log}, headers=HTML)
    t = html.unescape(r.text)
    assert "First failure (the root cause)" in t
    assert api["root_cause"]["line"] in t
    assert f"rank {api['root_cause']['rank']}" in t


def test_results_show_ranks_stuck_in_different_collectives(web):
    log = (
        "[rank0]:[E0814 05:41:19.006734112 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600049 "
        "milliseconds before timing out.\n"
        "[rank1]:[E0814 05:41:19.107734112 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=813, OpType=BROADCAST, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for "
        "600012 milliseconds before timing out.\n"
    )
    t = html.unescape(web.post("/results", data={"text": log}, headers=HTML).text)
    assert "different collective sequence numbers" in t and "SeqNum=813, OpType=BROADCAST" in t
    assert "/errors/pytorch/uneven-inputs-epoch-end-hang" in t
    tz = html.unescape(web.post("/results?lang=zh", data={"text": log}, headers=HTML).text)
    assert "集合通信序号不同" in tz


def test_results_of_a_run_stopped_by_its_user_show_where_each_rank_was(web):
    log = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/workspace/train.py", line 41, in <module>\n'
        "[rank1]:     time.sleep(5)\n"
        "[rank1]: KeyboardInterrupt\n"
    )
    r = web.post("/results", data={"text": log}, headers=HTML)
    assert r.status_code == 200, r.text[-500:]
    t = html.unescape(r.text)
    assert 'class="note finding-interrupted"' in t and "/workspace/train.py, line 41" in t and "time.sleep(5)" in t
    r = web.get(r.url.path + "?lang=zh", headers=HTML)
    assert r.status_code == 200 and "finding-interrupted" in r.text


def test_results_show_one_answer_with_its_consequences_collapsed_and_the_fix_that_fits_first(web):
    """A real 2-rank torchrun log where only rank 1 got an odd batch: one match (not three), the other
    rank's lost peer and torchrun's report under it in a collapsed list, and the fix for one rank's
    data first, marked as fitting this log; in Chinese too."""
    log = (KB / "examples" / "pytorch" / "mat1-mat2-shape-mismatch" / "one-rank-odd-batch-torchrun.real.log").read_text()
    r = web.post("/results", data={"text": log}, headers=HTML)
    assert r.status_code == 200, r.text[-500:]
    t = html.unescape(r.text)
    assert "1 known error matched." in t and t.count('class="match card"') == 1
    box = t[t.index('<details class="consequences">'):]
    box = box[:box.index("</details>")]
    assert "2 consequences of it in this log" in box
    assert "pytorch/gloo-collective-timeout" in box and "pytorch/elastic-child-failed" in box
    fixes = t[t.index('<ol class="workarounds">'):]
    assert fixes.index("Only some ranks raised it") < fixes.index("This log shows the case this fix is for.")
    tz = html.unescape(web.get(r.url.path + "?lang=zh", headers=HTML).text)
    assert "本日志中由它造成的后果（2 个）" in tz and "这份日志正是这个解决办法针对的情况。" in tz


def test_empty_post_is_422_with_the_form_and_a_message(web):
    for data in ({"text": ""}, {"text": "   \n  "}, {}):
        r = web.post("/results", data=data, headers=HTML)
        assert r.status_code == 422
        assert r.headers["content-type"].startswith("text/html")
        assert 'role="alert"' in r.text and "The log is empty" in r.text
        assert '<textarea id="text"' in r.text and 'aria-invalid="true"' in r.text
    r = web.post("/results?lang=zh", data={"text": ""}, headers=HTML)
    assert r.status_code == 422 and "日志为空" in r.text


def test_oversized_post_is_413_page(web):
    big = "x" * ((1 << 20) + 10)
    r = web.post("/results", content=("text=" + big).encode(), headers={
        **HTML, "Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413
    assert r.headers["content-type"].startswith("text/html") and "too large" in r.text


def test_get_results_goes_back_to_the_form(web):
    r = web.get("/results", headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"


# ----------------------------------------------------------------------------- a result kept for a link

KEPT = re.compile(r"^/results/[A-Za-z0-9_-]{22}(\?lang=zh)?$")


def test_a_posted_result_is_kept_under_its_own_address(web):
    log = "step 10 loss 2.1\n" + SEED_LINE + "\n"
    r = web.post("/results", data={"text": log, "environment": "torch==2.3.1"}, headers=HTML, follow_redirects=False)
    assert r.status_code == 303 and KEPT.match(r.headers["location"]), r.headers.get("location")
    here = r.headers["location"]
    for _ in range(2):  # a reload, or someone else with the link
        r = page(web, here)
        assert f'href="/errors/{SEED}"' in r.text and 'id="kept"' in r.text
        assert r.headers["x-robots-tag"] == "noindex" and "private" in r.headers["cache-control"]
        assert "torch==2.3.1" in r.text  # the edit form holds the environment too
    assert f'href="/lang/zh?next={here}"' in r.text  # the switch comes back to the result
    r = web.get(f"/lang/zh?next={here}", headers=HTML)
    assert r.url.path == here and r.headers["content-language"] == "zh" and "NCCL 集合通信" in html.unescape(r.text)
    r = page(web, here + "?lang=en")
    assert r.headers["content-language"] == "en"
    # a language the form chose travels with the redirect
    r = web.post("/results", data={"text": log, "lang": "zh"}, headers=HTML, follow_redirects=False)
    assert KEPT.match(r.headers["location"]) and r.headers["location"].endswith("?lang=zh")
    r = web.post("/?lang=zh", files={"text": (None, log)}, headers=HTML, follow_redirects=False)
    assert r.headers["location"].endswith("?lang=zh")


def test_a_kept_result_expires_and_the_store_is_capped(web, web_app):
    from faultline.api.pages import KEEP_MAX
    from faultline.store.written import store_for_app

    store = store_for_app(web_app)
    r = page(web, "/results/" + "A" * 22, status=404)
    assert "no longer kept" in r.text and "7 days" in r.text
    page(web, "/results/not-an-id", status=404)
    gone = store.keep(b"x", -1.0, KEEP_MAX)  # expired at once
    assert store.kept(gone) is None
    page(web, f"/results/{gone}", status=404)
    first = [store.keep(b"x", 60.0, 3) for _ in range(5)]  # a cap of 3: the oldest make room
    assert [store.kept(k) is not None for k in first] == [False, False, True, True, True]
    assert store.kept(first[-1]) == (b"x", store.kept(first[-1])[1], False)  # the first view was the one above


def test_a_result_too_large_to_keep_is_answered_without_a_link(web):
    import random

    from faultline.api.pages import KEEP_MAX_BYTES

    rnd = random.Random(7)
    noise = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
                    for _ in range(KEEP_MAX_BYTES * 2))  # does not compress below the limit
    r = web.post("/results", data={"text": noise + "\n" + SEED_LINE + "\n"}, headers=HTML, follow_redirects=False)
    assert r.status_code == 200 and 'id="kept"' not in r.text
    assert f'href="/errors/{SEED}"' in r.text


def test_an_unknown_error_is_counted_once_however_often_its_link_is_viewed(web, web_app, monkeypatch):
    from faultline.store.written import store_for_app

    monkeypatch.setenv("FAULTLINE_INBOX", "1")
    log = 'Traceback (most recent call last):\n  File "/workspace/t.py", line 9, in <module>\n' \
          "ValueError: kept-result-probe 81f3 is not a known error\n"
    before = {g.fingerprint: g.count for g in store_for_app(web_app).inbox(10_000)}
    r = web.post("/results", data={"text": log}, headers=HTML, follow_redirects=False)
    for _ in range(3):
        page(web, r.headers["location"])
    after = {g.fingerprint: g.count for g in store_for_app(web_app).inbox(10_000)}
    grown = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    assert list(grown.values()) == [1], grown


# ----------------------------------------------------------------------------- browse, guides


def test_browse_lists_searches_filters_and_pages(web):
    r = page(web, "/errors")
    assert_common_page(r.text, "en")
    assert 'id="q"' in r.text and 'id="domain"' in r.text and 'id="tag"' in r.text
    assert 1 <= len(re.findall(r'class="card entry-card"', r.text)) <= 20
    pages = [page(web, f"/errors?per_page=200&page={n}").text for n in range(1, 5)]  # the KB outgrows one page
    assert any(f'href="/errors/{SEED}"' in t for t in pages)
    r = page(web, "/errors?q=watchdog+allreduce")
    assert f'href="/errors/{SEED}"' in r.text
    r = page(web, "/errors?q=no-such-words-anywhere-xyz")
    assert "No entries match." in r.text
    r = page(web, "/errors?tag=allreduce&domain=pytorch")
    assert f'href="/errors/{SEED}"' in r.text
    total = len(web.get("/errors?per_page=200").json()["items"])
    r = page(web, "/errors?per_page=1&page=1")
    assert len(re.findall(r'class="card entry-card"', r.text)) == 1
    if total > 1:
        assert 'rel="next"' in r.text and "page=2" in r.text
    r = page(web, "/errors?lang=zh")
    assert "浏览错误" in r.text and "全部领域" in r.text
    r = page(web, "/errors?page=9999")
    assert "There is no page 9999" in r.text and 'href="/errors"' in r.text


def test_guides_pages(web):
    r = page(web, "/guides")
    assert_common_page(r.text, "en")
    assert 'href="/guides/distributed-hangs"' in r.text
    r = page(web, "/guides/distributed-hangs?lang=zh")
    assert_common_page(r.text, "zh-Hans")
    t = html.unescape(r.text)
    assert "排查手册：分布式训练卡住或超时" in t and "目录" in t
    assert "/guides/distributed-hangs.json?lang=zh" in t and "/guides/distributed-hangs.md?lang=zh" in t
    assert f"/errors/{SEED}" in t
    r = page(web, "/guides/distributed-hangs?lang=en")
    assert "<em>where</em>" in r.text  # the KB's *emphasis*


# ----------------------------------------------------------------------------- errors, static, catalogs


def test_browsers_get_html_errors_api_clients_keep_json(web):
    r = page(web, "/errors/pytorch/no-such-entry", status=404)
    assert "Not found" in r.text
    r = page(web, "/errors/pytorch/no-such-entry?lang=zh", status=404)
    assert "未找到" in r.text
    r = page(web, f"/errors/{SEED}?lang=fr", status=422)
    assert "English" in r.text and "中文" in r.text
    j = web.get("/errors/pytorch/no-such-entry")
    assert j.status_code == 404 and j.json()["error"]["code"] == "not_found"
    j = web.get(f"/errors/{SEED}", headers={"Accept": "application/json"})
    assert j.status_code == 200 and j.json()["id"] == SEED


def test_static_css_is_served(web):
    r = web.get("/static/style.css")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/css")
    assert "@media" in r.text and ":focus-visible" in r.text
    assert "http://" not in r.text and "https://" not in r.text and "@import" not in r.text


def test_zh_catalog_translates_every_ui_string():
    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    try:
        from babel.messages.frontend import parse_mapping_cfg as parse_mapping
    except ImportError:  # Babel < 2.14
        from babel.messages.frontend import parse_mapping
    cfg = REPO / "app" / "i18n" / "babel.cfg"
    with cfg.open() as f:
        method_map, options_map = parse_mapping(f)
    ids = set()
    for _file, _line, msg, _comments, _ctx in extract_from_dir(str(REPO / "app"), method_map, options_map):
        ids.add(msg if isinstance(msg, str) else msg[0])
    assert len(ids) > 50
    for lang in ("en", "zh"):
        po = REPO / "app" / "i18n" / "locales" / lang / "LC_MESSAGES" / "messages.po"
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang)
        have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog if m.id}
        assert ids <= set(have), f"{lang}: run `make i18n-update`: {sorted(ids - set(have))[:5]}"
        if lang == "zh":
            for mid in ids:
                m = have[mid]
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                assert all(strings) and not m.fuzzy, f"zh: untranslated {mid!r}"


def test_lang_cookie_is_secure_behind_tls_and_links_use_the_public_url(web_app, monkeypatch):
    with TestClient(web_app, base_url="https://testserver") as c:
        r = c.get("/lang/zh?next=/", headers=HTML, follow_redirects=False)
        assert "secure" in r.headers["set-cookie"].lower()
    with TestClient(web_app) as c:  # plain HTTP: a Secure cookie would never come back
        r = c.get("/lang/zh?next=/", headers=HTML, follow_redirects=False)
        assert "secure" not in r.headers["set-cookie"].lower()
        monkeypatch.setenv("FAULTLINE_PUBLIC_URL", "https://faultline.example.org/")
        r = page(c, "/errors?q=nccl&lang=en")
        assert 'href="https://faultline.example.org/errors?q=nccl&amp;lang=zh"' in r.text
