"""The HTTP contract: /match, /errors, /guides, /export, /healthz, bad input."""
from __future__ import annotations

import json

from tests.conftest import SEED_LINE

SEED = "pytorch/nccl-timeout-allreduce"


def test_match_json_finds_reference_entry_first(client):
    r = client.post("/match", json={"text": SEED_LINE})
    assert r.status_code == 200
    body = r.json()
    top = body["matches"][0]
    assert top["id"] == SEED
    assert top["url"] == f"/errors/{SEED}"
    assert 0.5 <= top["confidence"] <= 1
    assert top["matched"]["line"] == SEED_LINE
    assert top["matched"]["signature"]
    rates = [w["success_rate"] for w in top["workarounds"]]
    assert rates == sorted(rates, reverse=True) and len(rates) >= 2
    assert top["dead_ends"] and all(0 <= d["fail_rate"] <= 1 for d in top["dead_ends"])
    assert isinstance(body["took_ms"], float)


def test_match_plain_text_body_like_curl_data_binary(client):
    log = "step 10 loss 2.1\nstep 11 loss 2.0\n" + SEED_LINE + "\n"
    r = client.post("/match", content=log.encode(), headers={"Content-Type": "text/plain"})
    assert r.status_code == 200
    assert r.json()["matches"][0]["id"] == SEED


def test_match_in_chinese(client):
    r = client.post("/match", json={"text": SEED_LINE, "lang": "zh"})
    assert r.headers["content-language"] == "zh"
    m = r.json()["matches"][0]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in m["title"] + m["root_cause"])


def test_unknown_error_gives_no_match(client):
    text = 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    d["x"]\nKeyError: \'x\'\n'
    r = client.post("/match", json={"text": text})
    assert r.status_code == 200
    assert r.json()["matches"] == []


def test_match_limit(client):
    r = client.post("/match", json={"text": SEED_LINE, "limit": 1})
    assert len(r.json()["matches"]) == 1
    assert client.post("/match", json={"text": SEED_LINE, "limit": 0}).status_code == 422
    assert client.post("/match?limit=99", content=b"x", headers={"Content-Type": "text/plain"}).status_code == 422


def test_empty_text_is_422(client):
    for resp in (
        client.post("/match", json={"text": ""}),
        client.post("/match", json={"text": "   \n\t "}),
        client.post("/match", content=b"", headers={"Content-Type": "text/plain"}),
    ):
        assert resp.status_code == 422
        assert resp.json()["error"]["code"] == "empty_text"


def test_body_over_one_mib_is_413(client):
    big = b"x" * ((1 << 20) + 1)
    r = client.post("/match", content=big, headers={"Content-Type": "text/plain"})
    assert r.status_code == 413
    assert "1 MiB" in r.json()["error"]["message"]
    r = client.post("/match", content=json.dumps({"text": "y" * (1 << 20)}), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_body_just_under_limit_is_accepted(client):
    body = (SEED_LINE + "\n").encode() + b"z" * ((1 << 20) - 200)
    r = client.post("/match", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200
    assert r.json()["matches"][0]["id"] == SEED


def test_non_utf8_is_decoded_with_replacement(client):
    # invalid UTF-8 (but no leading FF FE: that would be a UTF-16 byte-order mark)
    raw = b"\xfa\xff garbage \x80\n" + SEED_LINE.encode() + b"\n\xc3\x28"
    r = client.post("/match", content=raw, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200
    assert r.json()["matches"][0]["id"] == SEED
    r = client.post("/match", content=b'{"text": "\xff\xfe ' + SEED_LINE.encode() + b'"}',
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 200


def test_malformed_json_is_422(client):
    for raw in (b"{not json", b"[1,2]", b'{"text": 5}', b'{"txt": "a"}', b'{"text": "a", "lang": "fr"}'):
        r = client.post("/match", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, raw
        assert r.json()["error"]["message"]


def test_hostile_input_does_not_hang(client):
    # inputs that make backtracking regex engines explode; RE2 stays linear
    for text in ("a" * 200000 + "!", "(" * 50000 + "x", "Watchdog caught " * 30000, "\n" * 300000):
        r = client.post("/match", content=text.encode(), headers={"Content-Type": "text/plain"})
        assert r.status_code in (200, 422)


def test_entry_json_en_and_zh(client):
    en = client.get(f"/errors/{SEED}")
    assert en.status_code == 200 and en.headers["content-language"] == "en"
    assert en.json()["id"] == SEED and en.json()["lang"] == "en"
    zh = client.get(f"/errors/{SEED}?lang=zh")
    assert zh.headers["content-language"] == "zh"
    assert zh.json()["root_cause"] != en.json()["root_cause"]
    assert "超时" in zh.json()["title"]


def test_accept_language_negotiation(client):
    for header in ("zh-CN", "zh-Hans", "zh", "zh-CN,zh;q=0.9,en;q=0.8", "fr, zh;q=0.5"):
        r = client.get(f"/errors/{SEED}", headers={"Accept-Language": header})
        assert r.headers["content-language"] == "zh", header
    for header in ("en-US", "de", "", "en;q=0.9, zh;q=0.1"):
        r = client.get(f"/errors/{SEED}", headers={"Accept-Language": header})
        assert r.headers["content-language"] == "en", header
    # ?lang= wins over the header
    r = client.get(f"/errors/{SEED}?lang=en", headers={"Accept-Language": "zh-CN"})
    assert r.headers["content-language"] == "en"


def test_unsupported_lang_is_422_naming_supported(client):
    r = client.get(f"/errors/{SEED}?lang=fr")
    assert r.status_code == 422
    err = r.json()["error"]
    assert "en" in err["message"] and "zh" in err["message"]
    assert client.get("/export?lang=klingon").status_code == 422


def test_unknown_id_is_404(client):
    for path in ("/errors/pytorch/does-not-exist", "/errors/nope", "/errors/pytorch/does-not-exist.md", "/guides/nope"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.json()["error"]["code"] == "not_found"


def test_json_export_of_one_entry(client):
    r = client.get(f"/errors/{SEED}.json?lang=zh")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    doc = r.json()
    assert doc["id"] == SEED and doc["lang"] == "zh"
    assert doc["versions"] and doc["docs"] and doc["signatures"]


def test_markdown_export_reads_as_a_document(client):
    r = client.get(f"/errors/{SEED}.md")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/markdown")
    md = r.text
    for heading in ("# ", "## Root cause", "## Workarounds", "## Dead ends", "## Version compatibility",
                    "## Official documentation", "## Signatures"):
        assert heading in md
    assert "% success" in md and "% fail" in md
    assert "| torch |" in md
    zh = client.get(f"/errors/{SEED}.md?lang=zh").text
    assert "## 根本原因" in zh and "## 解决办法" in zh and "## 无效做法" in zh


def test_list_search_filter_and_paging(client):
    r = client.get("/errors").json()
    assert r["total"] >= 1 and r["items"]
    ids = [i["id"] for i in r["items"]]
    assert ids == sorted(ids)
    assert SEED in [i["id"] for i in client.get("/errors?q=watchdog timeout").json()["items"]]
    assert client.get("/errors?q=zzzz-no-such-word").json()["total"] == 0
    # words of the Chinese text, alone and beside an English one, in any case; half a character finds nothing
    zh_title = client.get(f"/errors/{SEED}?lang=zh").json()["title"]
    word = next(w for w in zh_title.split() if any(ord(c) > 0x2e80 for c in w))
    assert SEED in [i["id"] for i in client.get("/errors", params={"q": f"{word} WATCHDOG"}).json()["items"]]
    assert client.get("/errors", params={"q": word.encode()[:-1].decode("utf-8", "replace")}).json()["total"] == 0
    assert all("nccl" in i["tags"] for i in client.get("/errors?tag=nccl").json()["items"])
    assert all(i["domain"] == "pytorch" for i in client.get("/errors?domain=pytorch").json()["items"])
    p1 = client.get("/errors?per_page=1&page=1").json()
    assert len(p1["items"]) == 1 and p1["total"] == r["total"]
    assert client.get("/errors?page=0").status_code == 422


def test_whole_kb_export(client):
    j = client.get("/export?format=json&lang=zh")
    assert j.status_code == 200 and j.json()["lang"] == "zh"
    assert j.json()["count"] == len(j.json()["entries"]) >= 1
    m = client.get("/export?format=md")
    assert m.status_code == 200 and m.text.count("\n# ") + 1 >= j.json()["count"]
    assert client.get("/export?format=xml").status_code == 422


def test_guides_served_in_both_languages_and_linked(client):
    g = client.get("/guides/distributed-hangs").json()
    assert g["sections"] and SEED in g["entries"]
    gz = client.get("/guides/distributed-hangs?lang=zh").json()
    assert gz["title"] != g["title"]
    assert client.get("/guides/distributed-hangs.md").text.startswith("# ")
    e = client.get(f"/errors/{SEED}").json()
    assert {"id": "distributed-hangs", "url": "/guides/distributed-hangs"} in e["guides"]
    m = client.post("/match", json={"text": SEED_LINE}).json()["matches"][0]
    assert m["guides"][0]["id"] == "distributed-hangs"


def test_health_and_openapi(client):
    h = client.get("/healthz").json()
    assert h["status"] == "ok" and h["entries"] >= 1
    spec = client.get("/openapi.json").json()
    assert "/match" in spec["paths"] and "/errors/{domain}/{slug}" in spec["paths"]
    assert "text/plain" in spec["paths"]["/match"]["post"]["requestBody"]["content"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "/docs-assets/swagger-ui-bundle.js" in docs.text
    assert "cdn" not in docs.text.lower()
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
