"""`faultline verify` (app/verify/): choosing releases, searching wheels, records, lint and display.

No test touches the network: the release texts come from wheels and sdists built here, put into the
verifier's cache exactly as a download would put them, and read with ``offline=True``."""
from __future__ import annotations

import gzip
import io
import json
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from faultline.entry import Signature
from faultline.kbfiles import load_kb
from faultline.lint import lint
from faultline.main import create_app
from faultline.store.load import load_into_db
from faultline.verify import choose
from faultline.verification import records
from faultline.verification import claims
from faultline.verification.claims import Claim, bound, disagreement, parse_claim
from faultline.verify.run import verify_kb, verify_signature
from faultline.verify.search import archive_text, contains, message_literals
from faultline.verify.sources import Cache, Releases, Unavailable

MSG_MODULE = '''
def load(cfg):
    raise ValueError(
        f"The checkpoint you are trying to load has model type `{cfg['model_type']}` "
        "but Transformers does not recognize this architecture. This could be because of an issue "
        'with the checkpoint, or because your version of Transformers is out of date.'
    )
'''
OLD_MODULE = '''
def load(cfg):
    return CONFIG_MAPPING[cfg["model_type"]]
'''
PATTERN = ("The checkpoint you are trying to load has model type `[^`]+` but Transformers does not recognize "
           "this architecture")


def build_wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def build_sdist(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


# -- claims --------------------------------------------------------------------------------------

@pytest.mark.parametrize("note, package, spec", [
    ("transformers>=4.31 (AutoConfig.from_pretrained)", "transformers", ">=4.31"),
    ("accelerate ~0.15-1.16 (checked 0.15, 0.20)", "accelerate", "0.15-1.16"),
    ("datasets 2.16 to about 4.6 (raised when ...)", "datasets", "2.16-4.6"),
    ("trl 0.7.11-0.27.x (0.7.11 without ...)", "trl", "0.7.11-0.27.x"),
    ("bitsandbytes<=0.45: a CUDA-only function", "bitsandbytes", "<=0.45"),
    ("transformers<4.22 file_utils and huggingface_hub<0.17", "transformers", "<4.22"),
    ("setuptools >= 70, < 71", "setuptools", ">=70,<71"),
    ("huggingface_hub 0.12-0.36 (file_download.http_get)", "huggingface_hub", "0.12-0.36"),
    ("pytorch_lightning / lightning_fabric >= 1.8", "lightning-fabric", ">=1.8"),  # the mention with a range
    ("NCCL >= 2.18 (ncclGetErrorString)", "nccl", ">=2.18"),
    ("'internal error, NCCL version x' (NCCL<2.18)", "nccl", "<2.18"),  # the mention with a range wins
    ("pytorch_lightning 1.9+, lightning 2.x", "pytorch-lightning", ">=1.9"),
])
def test_claims_are_read_from_the_versions_note(note, package, spec):
    c = parse_claim(note)
    assert (c.package, c.spec) == (package, spec)


def test_a_note_naming_no_checkable_package_has_no_claim():
    assert parse_claim("glibc's loader message; any release linked against CUDA") is None
    assert parse_claim(None) is None


def test_bounds_keep_the_precision_they_were_written_at():
    assert [str(v) for v in bound("4.31")] == ["4.31", "4.32"]
    assert [str(v) for v in bound("4.3x")] == ["4.30", "4.40"]
    assert [str(v) for v in bound("5.x")] == ["5", "6"]
    assert [str(v) for v in bound("0.7.11")] == ["0.7.11", "0.7.12"]


def test_disagreement_of_first_last_and_open_ends():
    c = parse_claim("transformers>=4.31")
    assert "first in 4.37.0" in disagreement(c, "4.37.0", "5.25.0", "4.36.2", None)
    assert disagreement(c, "4.31.0", "5.25.0", "4.30.2", None) is None
    # ">=" claims the text is still there in the newest release
    assert "gone in 5.0.0" in disagreement(c, "4.31.0", "4.57.1", "4.30.2", "5.0.0")
    below = parse_claim("setuptools >= 70, < 71")
    assert disagreement(below, "70.0.0", "70.3.0", "69.5.1", "71.0.0") is None
    assert "below 71" in disagreement(below, "70.0.0", "81.0.0", "69.5.1", "82.0.0")
    assert disagreement(parse_claim("peft 0.3-0.5"), None, None, None, None) == \
        "the text was found in none of the releases checked"


# -- choosing releases ---------------------------------------------------------------------------

RELEASES = ["4.29.0", "4.30.0", "4.30.2", "4.31.0", "4.32.0", "4.33.0", "4.34.0", "4.35.0", "4.36.0",
            "4.37.0", "4.38.0", "4.39.0", "4.40.0"]


def test_finals_drop_pre_and_dev_releases_and_sort():
    assert choose.finals(["4.10.0", "4.9.0", "4.10.0rc1", "4.11.0.dev0", "bogus", "4.2.0"]) == \
        ["4.2.0", "4.9.0", "4.10.0"]


def test_first_sample_takes_the_ends_the_claimed_boundaries_and_their_neighbours():
    s = choose.first_sample(parse_claim("transformers 4.31-4.36"), RELEASES)
    for v in ("4.29.0", "4.40.0", "4.31.0", "4.36.0", "4.30.2", "4.37.0"):
        assert v in s
    assert 0 < len([v for v in s if "4.31.0" < v < "4.36.0"]) <= choose.INSIDE


def test_bisection_finds_the_exact_boundary():
    truth = {v: v >= "4.37.0" for v in RELEASES}
    seen = {v: truth[v] for v in choose.first_sample(parse_claim("transformers>=4.31"), RELEASES)}
    for _ in range(10):
        nxt = choose.next_to_check(RELEASES, seen)
        if not nxt:
            break
        seen.update({v: truth[v] for v in nxt})
    s = choose.summary(RELEASES, seen)
    assert (s["first_present"], s["absent_before"], s["last_present"], s["absent_after"]) == \
        ("4.37.0", "4.36.0", "4.40.0", None)
    assert len(seen) < len(RELEASES)


# -- searching a wheel or an sdist ---------------------------------------------------------------

def test_message_literals_drop_the_exception_prefix_and_reprs():
    assert message_literals("ValueError: " + PATTERN) == [
        "the checkpoint you are trying to load has model type `",
        "` but transformers does not recognize this architecture"]
    assert message_literals(r"Unrecognized configuration class <class .[\w.]+.> for this kind") == [
        "unrecognized configuration class ", "class ", " for this kind"]
    # a list's repr in the message is an f-string field in the source: "columns {bad_cols} have length"
    assert message_literals(r"Column lengths mismatch: columns \[.*\] have length \[[\d, ]+\] while") == [
        "column lengths mismatch: columns ", " have length ", " while"]
    # a tuple's repr: the source formats "{supported_device}", so the text is searched without the "("
    assert message_literals(r"fp16 mixed precision requires a device in \(") == [
        "fp16 mixed precision requires a device in "]
    # a package's own exception class is searched too (its sentence may be shared with another class)
    assert message_literals(r"DatasetGenerationCastError: An error occurred while generating") == [
        "datasetgenerationcasterror", "an error occurred while generating"]
    assert message_literals(r"datasets\.table\.CastError: Couldn't cast") == ["casterror", "couldn", "t cast"]


def test_a_message_split_over_string_literals_is_found_in_a_wheel(tmp_path):
    whl = build_wheel(tmp_path / "demo-1.0-py3-none-any.whl", {
        "demo/__init__.py": b"", "demo/auto.py": MSG_MODULE.encode(),
        "demo-1.0.dist-info/METADATA": b"Name: demo\nVersion: 1.0\n"})
    assert contains(archive_text(whl), message_literals(PATTERN))
    old = build_wheel(tmp_path / "demo-0.9-py3-none-any.whl", {"demo/auto.py": OLD_MODULE.encode()})
    assert not contains(archive_text(old), message_literals(PATTERN))


def test_strings_of_a_shared_object_and_an_sdist_are_searched(tmp_path):
    so = b"\x7fELF\x02\x01\x00" + b"\x00" * 40 + b"internal error - please report this issue to the NCCL developers\x00" \
         + b"\x01\x02" * 20 + b"ncclInvalidUsage\x00"
    whl = build_wheel(tmp_path / "nccl-2.18.1-py3-none-manylinux1_x86_64.whl", {"nvidia/nccl/lib/libnccl.so.2": so})
    text = archive_text(whl)
    assert contains(text, message_literals("internal error - please report this issue to the NCCL developers"))
    sdist = build_sdist(tmp_path / "demo-1.0.tar.gz", {"demo-1.0/demo/auto.py": MSG_MODULE.encode(),
                                                     "demo-1.0/README.md": b"does not recognize this architecture"})
    assert contains(archive_text(sdist), message_literals(PATTERN))
    readme_only = build_sdist(tmp_path / "demo-0.1.tar.gz", {"demo-0.1/README.md": MSG_MODULE.encode()})
    assert not contains(archive_text(readme_only), message_literals(PATTERN))  # prose, not code


# -- a whole verification over a cache of built releases -----------------------------------------

def seeded_cache(tmp_path: Path, package: str, present: set[str], all_versions: list[str]) -> Cache:
    """The cache as `faultline verify` leaves it after downloading these releases of ``package``."""
    cache = Cache(tmp_path / "cache")
    rp = cache.releases_path("pypi", package)
    rp.parent.mkdir(parents=True, exist_ok=True)
    rp.write_text(json.dumps({"at": 0, "versions": all_versions}))
    for v in all_versions:
        whl = build_wheel(tmp_path / f"{package}-{v}-py3-none-any.whl",
                          {f"{package}/auto.py": (MSG_MODULE if v in present else OLD_MODULE).encode()})
        tp = cache.text_path("pypi", package, v)
        tp.parent.mkdir(parents=True, exist_ok=True)
        tp.write_bytes(gzip.compress(archive_text(whl).encode()))
    return cache


def test_verify_signature_bisects_to_the_first_and_last_release(tmp_path):
    present = {v for v in RELEASES if "4.37.0" <= v <= "4.39.0"}
    rel = Releases(seeded_cache(tmp_path, "transformers", present, RELEASES), offline=True)
    sig = Signature(name="arch", pattern=PATTERN, examples=["x"], versions="transformers>=4.31")
    o = verify_signature("t/x", sig, None, rel, "2026-12-04")
    assert o.status == "disagrees" and "first in 4.37.0" in o.detail
    r = o.record
    assert (r["first_present"], r["last_present"], r["absent_before"], r["absent_after"]) == \
        ("4.37.0", "4.39.0", "4.36.0", "4.40.0")
    assert r["versions"]["4.36.0"] is False and r["versions"]["4.37.0"] is True
    assert len(rel.cache.results) == len(r["versions"])  # every answer is cached for the next run
    again = verify_signature("t/x", Signature(name="arch", pattern=PATTERN, examples=["x"],
                                              versions="transformers 4.37-4.39"), None, rel, "2026-12-04")
    assert again.status == "agrees"


def test_a_hand_written_claim_names_the_package_that_prints_the_text(tmp_path):
    rel = Releases(seeded_cache(tmp_path, "demo", {"1.1.0", "1.2.0"}, ["1.0.0", "1.1.0", "1.2.0"]), offline=True)
    sig = Signature(name="arch", pattern=PATTERN, examples=["x"], versions="datasets with demo (all versions)")
    old = {"name": "arch", "claim_from": "record", "source": "pypi", "package": "demo", "lo": "1.1", "hi": None,
           "below": None}
    o = verify_signature("t/x", sig, old, rel, "2026-12-04")
    assert o.status == "agrees" and o.record["first_present"] == "1.1.0" and o.record["claim_from"] == "record"


# -- lint and display on a copy of the KB --------------------------------------------------------

ENTRY = "transformers/unrecognized-model-type"


def only_entry(kb: Path) -> None:
    """Keep only ENTRY in the copy: these tests need no other entry (and no other's unfinished edit)."""
    for p in (kb / "entries").rglob("*.yaml"):
        if p.relative_to(kb / "entries").with_suffix("").as_posix() != ENTRY:
            p.unlink()


def record_for(kb: Path, first: str, before: str) -> None:
    e = next(x for x in load_kb(kb, lenient=True).entries if x.id == ENTRY)
    recs = []
    for s in e.signatures:
        if s.name == "does-not-recognize-architecture":
            c = parse_claim(s.versions)
            recs.append({"name": s.name, "source": "pypi", "package": c.package, "claim": c.spec,
                         "claim_from": "note", "literals": message_literals(s.pattern),
                         "pattern_sha": records.pattern_sha(s.pattern),
                         "versions": {before: False, first: True, "5.25.0": True},
                         "first_present": first, "last_present": "5.25.0", "absent_before": before,
                         "absent_after": None, "gaps": [], "date": "2026-12-04"})
        else:
            recs.append({"name": s.name, "uncheckable": {"en": "a test reason", "zh": "测试用的理由"}})
    records.save(kb, ENTRY, recs)


def set_note(kb: Path, text: str) -> None:
    p = kb / "entries" / f"{ENTRY}.yaml"
    doc = yaml.safe_load(p.read_text())
    doc["signatures"][0]["versions"] = text
    p.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))


def verification_errors(kb: Path) -> list[str]:
    return [m for m in lint(kb).errors if "verification" in m or ENTRY in m and "signatures." in m]


def test_lint_refuses_a_range_that_disagrees_with_its_record(kb_copy):
    only_entry(kb_copy)
    set_note(kb_copy, "transformers>=4.31 (AutoConfig.from_pretrained)")
    record_for(kb_copy, "4.37.0", "4.36.2")
    errs = verification_errors(kb_copy)
    assert any("disagrees with the verification record" in m and "first in 4.37.0" in m for m in errs), errs
    set_note(kb_copy, "transformers>=4.37 (AutoConfig.from_pretrained)")
    errs = verification_errors(kb_copy)
    assert any("the versions note now claims transformers >=4.37" in m for m in errs), errs  # stale record
    record_for(kb_copy, "4.37.0", "4.36.2")
    assert verification_errors(kb_copy) == []


def test_lint_refuses_a_record_file_missing_a_signature(kb_copy):
    only_entry(kb_copy)
    set_note(kb_copy, "transformers>=4.37")
    record_for(kb_copy, "4.37.0", "4.36.2")
    p = records.record_path(kb_copy, ENTRY)
    doc = json.loads(p.read_text())
    doc["signatures"] = doc["signatures"][:1]
    p.write_text(json.dumps(doc))
    errs = verification_errors(kb_copy)
    assert any("no verification record and no stated reason" in m for m in errs), errs


def test_verify_kb_keeps_stated_reasons(kb_copy, tmp_path):
    only_entry(kb_copy)
    record_for(kb_copy, "4.37.0", "4.36.2")
    rel = Releases(Cache(tmp_path / "empty-cache"), offline=True)
    kb = load_kb(kb_copy, lenient=True)
    summ = verify_kb(kb, kb_copy, rel, only=ENTRY)
    kept = records.by_name(records.load(kb_copy, ENTRY))
    assert kept["unrecognized-configuration-class"]["uncheckable"]["en"] == "a test reason"
    assert summ.count("uncheckable") == 1 and summ.count("unavailable") == 1  # offline, nothing cached


def test_the_record_is_shown_in_the_json_and_on_the_page(kb_copy, tmp_path):
    only_entry(kb_copy)
    set_note(kb_copy, "transformers>=4.37")
    record_for(kb_copy, "4.37.0", "4.36.2")
    db = tmp_path / "v.db"
    load_into_db(kb_copy, db)
    with TestClient(create_app(db_path=str(db), kb_root=str(kb_copy))) as c:
        j = c.get(f"/errors/{ENTRY}").json()
        sigs = {s["name"]: s for s in j["signatures"]}
        v = sigs["does-not-recognize-architecture"]["verification"]
        assert v["summary"] == "message checked in transformers 4.37.0\u20135.25.0" and v["releases_checked"] == 3
        assert sigs["unrecognized-configuration-class"]["verification"] == \
            {"status": "uncheckable", "reason": "a test reason"}
        assert c.get(f"/errors/{ENTRY}?lang=zh").json()["signatures"][1]["verification"]["reason"] == "测试用的理由"
        en = c.get(f"/errors/{ENTRY}", headers={"Accept": "text/html"}).text
        assert "Message checked in transformers 4.37.0\u20135.25.0 (3 releases searched on 2026-12-04)" in en
        zh = c.get(f"/errors/{ENTRY}?lang=zh", headers={"Accept": "text/html"}).text
        assert "已在 transformers 4.37.0\u20135.25.0 中核对过这条消息" in zh and "测试用的理由" in zh


def record_with_one_release_unfetchable(tmp_path, versions: list[str], present: set[str], gone: str) -> dict:
    """The record of a claim on every release of "demo" when ``gone``'s wheel could not be downloaded."""
    cache = seeded_cache(tmp_path, "demo", present, versions)
    cache.text_path("pypi", "demo", gone).unlink()
    sig = Signature(name="arch", pattern=PATTERN, examples=["x"], versions="demo (all)")
    old = {"name": "arch", "claim_from": "record", "source": "pypi", "package": "demo", "lo": None, "hi": None,
           "below": None}
    return verify_signature("t/x", sig, old, Releases(cache, offline=True), "2026-12-04").record


def test_a_release_that_cannot_be_fetched_is_stood_in_for_by_the_next(tmp_path):
    r = record_with_one_release_unfetchable(tmp_path, ["1.0.0", "1.1.0", "1.2.0", "1.3.0"],
                                            {"1.1.0", "1.2.0", "1.3.0"}, "1.0.0")
    assert r["first_present"] == "1.1.0" and r["unavailable"] == ["1.0.0"]


def test_an_unfetchable_newest_release_is_stood_in_for_by_the_next_older(tmp_path):
    """The newest release missing from this machine's index (a pip constraint) must not leave the top of an
    open range unsearched: the next older release stands in for it."""
    versions = [f"1.{i}.0" for i in range(10)]
    r = record_with_one_release_unfetchable(tmp_path, versions, set(versions[:-1]), "1.9.0")
    assert r["last_present"] == "1.8.0" and r["unavailable"] == ["1.9.0"]


def test_a_platform_wheel_package_lists_releases_of_every_python_it_downloads_for(monkeypatch):
    """torch is read from its macOS wheels; pip lists only releases with a wheel for the Python it is told
    about, so the release list is the union over the Python versions tried (torch 1.x has no cp310 wheel)."""
    from faultline.verify import sources

    asked = []

    def fake_pip(*args, timeout=0):
        py = args[args.index("--python-version") + 1] if "--python-version" in args else None
        asked.append((args[2], py, "--platform" in args))
        vs = {"3.6": "1.4.0, 1.0.0", "3.8": "1.13.1, 1.4.0", "3.10": "2.5.1, 1.13.1"}.get(py, "")
        out = f"torch ({vs.split(',')[0]})\nAvailable versions: {vs}\n" if vs else ""
        return type("P", (), {"returncode": 0 if vs else 1, "stdout": out, "stderr": ""})()

    monkeypatch.setattr(sources, "_pip", fake_pip)
    assert sources.pypi_releases("torch") == ["1.0.0", "1.4.0", "1.13.1", "2.5.1"]
    assert all(plat for _pkg, _py, plat in asked) and {py for _p, py, _x in asked} == set(sources.PY_TRIES)


# -- a warm run: answers saved once per entry, release texts decompressed once ---------------------

def test_answers_are_saved_once_per_entry_and_merged_with_another_runs(kb_copy, tmp_path, monkeypatch):
    only_entry(kb_copy)
    set_note(kb_copy, "transformers 4.37-4.39")
    cache = seeded_cache(tmp_path, "transformers", {v for v in RELEASES if "4.37.0" <= v <= "4.39.0"}, RELEASES)
    rel = Releases(cache, offline=True)
    sig = Signature(name="arch", pattern=PATTERN, examples=["x"], versions="transformers 4.37-4.39")
    verify_signature("t/x", sig, None, rel, "2026-12-04")
    assert cache.results and not cache._results_path.exists()  # one signature writes nothing yet
    other = Cache(cache.root)  # another process's answer, written meanwhile
    other.put("pypi|demo|1.0.0|abc", True)
    other.save()
    writes = []
    real_save = Cache.save
    monkeypatch.setattr(Cache, "save", lambda self: (writes.append(self.dirty), real_save(self)))
    verify_kb(load_kb(kb_copy, lenient=True), kb_copy, rel, only=ENTRY)
    assert writes.count(True) == 1  # one entry: one write (the final save finds nothing new)
    on_disk = json.loads(cache._results_path.read_text())
    assert on_disk["pypi|demo|1.0.0|abc"] is True and len(on_disk) == len(cache.results) > 1


def test_release_texts_are_kept_decompressed_within_a_bound(tmp_path):
    versions = ["1.0.0", "1.1.0", "1.2.0"]
    cache = seeded_cache(tmp_path, "demo", set(versions), versions)
    size = len(Releases(cache, offline=True).text("pypi", "demo", "1.0.0"))
    rel = Releases(cache, offline=True, memory=2 * size)
    first = rel.text("pypi", "demo", "1.0.0")
    cache.text_path("pypi", "demo", "1.0.0").unlink()
    assert rel.text("pypi", "demo", "1.0.0") == first  # from memory, not from the (gone) file
    rel.text("pypi", "demo", "1.1.0")
    rel.text("pypi", "demo", "1.2.0")  # over the bound: the least recently used text (1.0.0) is dropped
    with pytest.raises(Unavailable):
        rel.text("pypi", "demo", "1.0.0")


# -- a claim whose bound names no release ----------------------------------------------------------

def test_a_bound_that_names_no_release_is_an_unreadable_claim_not_a_crash(tmp_path):
    claim = parse_claim("transformers<4.3x (the old loader)")
    assert claim.below == "4.3x"
    why = claims.unreadable(claim)
    assert why.startswith("claim unreadable: transformers <4.3x") and "<4.30" in why and "<=4.3x" in why
    with pytest.raises(claims.UnreadableClaim):
        choose.claimed_span(claim, RELEASES)
    assert disagreement(claim, "4.29.0", "4.35.0", None, "4.36.0") == why  # lint reads it, no crash
    assert claims.unreadable(parse_claim("transformers<=4.3x")) is None
    rel = Releases(seeded_cache(tmp_path, "transformers", set(RELEASES), RELEASES), offline=True)
    sig = Signature(name="arch", pattern=PATTERN, examples=["x"], versions="transformers<4.3x (the old loader)")
    o = verify_signature("t/x", sig, None, rel, "2026-12-05")
    assert (o.status, o.detail, o.record) == ("unreadable", why, None) and not rel.cache.results  # nothing searched


def test_lint_names_an_unreadable_claim(kb_copy):
    only_entry(kb_copy)
    set_note(kb_copy, "transformers>=4.37")
    record_for(kb_copy, "4.37.0", "4.36.2")
    set_note(kb_copy, "transformers<4.3x")
    errs = verification_errors(kb_copy)
    assert any("claim unreadable: transformers <4.3x" in m and "rewrite the versions note" in m for m in errs), errs


def test_lint_refuses_an_entry_without_a_record_file(kb_copy):
    only_entry(kb_copy)
    assert not records.record_path(kb_copy, ENTRY).exists()
    errs = verification_errors(kb_copy)
    assert any(f"{ENTRY}.yaml [verification]: no record file verification/{ENTRY}.json" in m for m in errs), errs
    assert any("[verification]: no record file" in w for w in lint(kb_copy, strict=False).warnings)  # drafting
    set_note(kb_copy, "transformers>=4.37")
    record_for(kb_copy, "4.37.0", "4.36.2")
    assert verification_errors(kb_copy) == []


def test_a_long_run_of_unfetchable_oldest_releases_does_not_stop_the_bisection(tmp_path):
    """pip's oldest releases are sdists that cannot be fetched here: walking past them to a stand-in must not
    use up the bisection's rounds (pip>=22.1 was recorded as first in 22.0.4, the release sampled just below
    the claim, with no absent release before it)."""
    versions = [f"0.{i}.0" for i in range(40)] + [f"1.{i}.0" for i in range(40)]
    cache = seeded_cache(tmp_path, "demo", set(versions[55:]), versions)
    for v in versions[:35]:
        cache.text_path("pypi", "demo", v).unlink()
    sig = Signature(name="arch", pattern=PATTERN, examples=["x"], versions="demo (all)")
    old = {"name": "arch", "claim_from": "record", "source": "pypi", "package": "demo", "lo": "1.20", "hi": None,
           "below": None}
    r = verify_signature("t/x", sig, old, Releases(cache, offline=True), "2026-12-05").record
    assert (r["first_present"], r["absent_before"]) == ("1.15.0", "1.14.0")
    assert r["unavailable"] == versions[:35] and r["versions"]["0.35.0"] is False


def test_a_release_that_cannot_be_fetched_is_asked_for_once_not_once_per_signature(tmp_path, monkeypatch):
    cache = seeded_cache(tmp_path, "demo", {"1.1.0", "1.2.0"}, ["1.0.0", "1.1.0", "1.2.0"])
    cache.text_path("pypi", "demo", "1.0.0").unlink()
    rp = cache.releases_path("pypi", "demo")
    rp.write_text(json.dumps({**json.loads(rp.read_text()), "at": time.time()}))  # a fresh release list
    rel = Releases(cache)  # online: a missing text is downloaded
    asked = []

    def no_file(package, version, dest):
        asked.append(version)
        raise Unavailable(f"pip download {package}=={version}: no file")

    monkeypatch.setattr("faultline.verify.sources.pypi_download", no_file)
    old = {"claim_from": "record", "source": "pypi", "package": "demo", "lo": None, "hi": None, "below": None}
    for name, pattern in (("a", PATTERN), ("b", "but Transformers does not recognize this architecture")):
        r = verify_signature("t/x", Signature(name=name, pattern=pattern, examples=["x"], versions="demo"),
                             {"name": name, **old}, rel, "2026-12-05").record
        assert r["unavailable"] == ["1.0.0"] and r["first_present"] == "1.1.0"
    assert asked == ["1.0.0"]


# -- an sdist is read from the index's JSON page, never built ---------------------------------------

class _Index:
    """A package index on loopback that serves one PEP 691 page and the files it lists."""

    def __init__(self, files: dict[str, bytes], listed_hash: dict[str, str] | None = None):
        import hashlib
        import http.server
        import threading

        index = self
        self.asked: list[str] = []
        entries = [{"filename": n, "url": f"../../files/{n}",
                    "hashes": {"sha256": (listed_hash or {}).get(n, hashlib.sha256(d).hexdigest())}}
                   for n, d in files.items()]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                index.asked.append(self.path)
                if self.path == "/simple/demo-pkg/":
                    body, ctype = json.dumps({"meta": {"api-version": "1.0"}, "name": "demo-pkg",
                                              "files": entries}).encode(), "application/vnd.pypi.simple.v1+json"
                elif self.path.startswith("/files/") and self.path[7:] in files:
                    body, ctype = files[self.path[7:]], "application/octet-stream"
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def sdist_bytes(tmp_path: Path, name: str, files: dict[str, bytes]) -> bytes:
    build_sdist(tmp_path / name, files)
    return (tmp_path / name).read_bytes()


def test_an_sdist_whose_setup_cannot_run_is_read_from_the_index_without_building_it(tmp_path, monkeypatch):
    """DeepSpeed's old sdists need torch to build their metadata, so ``pip download`` fails on them; the
    verifier takes the file from the index's JSON page instead, and nothing in it is run."""
    from faultline.verify import sources

    marker = tmp_path / "setup-was-run"
    setup = f"open({str(marker)!r}, 'w').write('ran')\nimport torch  # not installed\n".encode()
    data = sdist_bytes(tmp_path, "demo_pkg-1.0.tar.gz", {"demo_pkg-1.0/setup.py": setup,
                                                         "demo_pkg-1.0/demo_pkg/auto.py": MSG_MODULE.encode()})
    other = sdist_bytes(tmp_path, "demo_pkg-1.1.tar.gz", {"demo_pkg-1.1/demo_pkg/auto.py": OLD_MODULE.encode()})
    index = _Index({"demo_pkg-1.0.tar.gz": data, "demo_pkg-1.1.tar.gz": other, "demo_pkg-1.0-py3-none-any.whl.metadata": b""})
    try:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        monkeypatch.setattr(sources, "_pip", lambda *a, timeout=0: type("P", (), {
            "returncode": 1, "stdout": "", "stderr": "ERROR: No matching distribution found"})())
        rel = Releases(Cache(tmp_path / "cache"))
        assert contains(rel.text("pypi", "Demo.Pkg", "1.0"), message_literals(PATTERN))
        assert not contains(rel.text("pypi", "demo_pkg", "1.1"), message_literals(PATTERN))
        assert not marker.exists() and rel.downloads == 2
        with pytest.raises(Unavailable, match="no sdist of 2.0"):
            rel.text("pypi", "demo-pkg", "2.0")
    finally:
        index.close()


def test_an_sdist_whose_bytes_differ_from_the_index_hash_is_refused(tmp_path, monkeypatch):
    from faultline.verify import sources

    data = sdist_bytes(tmp_path, "demo-pkg-1.0.tar.gz", {"demo-pkg-1.0/demo_pkg/auto.py": MSG_MODULE.encode()})
    index = _Index({"demo-pkg-1.0.tar.gz": data}, listed_hash={"demo-pkg-1.0.tar.gz": "0" * 64})
    try:
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        dest = tmp_path / "dest"
        dest.mkdir()
        with pytest.raises(Unavailable, match="sha256 differs"):
            sources.index_sdist("demo-pkg", "1.0", dest)
        assert not list(dest.iterdir())  # the refused file is not left where a text would be read from
    finally:
        index.close()
