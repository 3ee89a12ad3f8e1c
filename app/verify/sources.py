"""Where released texts come from: the package index, or a C library's source at its release tags.

The release list comes from ``pip index versions NAME`` and one release's wheel from ``pip download
--no-deps NAME==V`` (any platform pip can name).  When no wheel fits, the release's sdist is taken
straight from the index's JSON page (PEP 691) and checked against its sha256: ``pip download`` of an
sdist would first build its metadata, which runs its ``setup.py`` (DeepSpeed's needs torch and fails),
and nothing of a package is ever run here.  A downloaded file is turned into its searchable text (``search.archive_text``),
which is kept compressed in the cache; the wheel itself is deleted at once, so the cache stays small
and a second run downloads nothing.  A source at tags (NCCL) is read from a local git mirror of its
repository with ``git archive``.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import httpx
from packaging.version import InvalidVersion, Version

from faultline.verify.choose import finals
from faultline.verify.search import archive_text

RELEASES_TTL = 7 * 24 * 3600  # a release list older than this is asked for again
# the last few release texts read are kept decompressed, up to this many characters in all: the
# signatures of one package ask for the same releases in turn
TEXT_MEMORY = 512 * 1024 * 1024
PY_TRIES = ("3.10", "3.8", "3.12", "3.6")
# manylinux_2_24: bitsandbytes 0.43 on ships only wheels tagged so (without it every release from 0.43 was
# "unavailable" and its sdist cannot be fetched either)
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64")
# packages whose Linux wheels are too big to fetch per release: the platform whose wheel holds the same
# texts in less.  torch's macOS wheels (60-80 MB, CPU only) carry its Python sources and the strings of
# libtorch_cpu / libc10 / libtorch_python; not the CUDA-only libraries (libtorch_cuda, ProcessGroupNCCL,
# c10_cuda), whose texts are therefore not found there.  arm64 from 1.12, x86_64 up to 2.2.
WHEEL_PLATFORMS: dict[str, tuple[str, ...]] = {
    "torch": ("macosx_14_0_arm64", "macosx_10_15_x86_64"),
}


class Unavailable(Exception):
    """The release cannot be read (no file on the index this machine can fetch, or no such tag)."""


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "faultline" / "verify"


class Cache:
    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root else default_cache()
        self.root.mkdir(parents=True, exist_ok=True)
        self._results_path = self.root / "results.json"
        try:
            self.results: dict[str, bool | None] = json.loads(self._results_path.read_text())
        except (OSError, ValueError):
            self.results = {}
        self.dirty = False  # answers not yet written

    def put(self, key: str, found: bool | None) -> None:
        self.results[key] = found
        self.dirty = True

    def save(self) -> None:
        """Write the answers, merged with what another run may have written meanwhile (nothing to do
        when no answer was added since the last save)."""
        if not self.dirty:
            return
        try:
            on_disk = json.loads(self._results_path.read_text())
        except (OSError, ValueError):
            on_disk = {}
        self.results = {**on_disk, **self.results}
        tmp = self._results_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.results, sort_keys=True))
        tmp.replace(self._results_path)
        self.dirty = False

    def text_path(self, source: str, package: str, version: str) -> Path:
        return self.root / "text" / re.sub(r"[^\w.-]", "_", source) / package / f"{version}.txt.gz"

    def releases_path(self, source: str, package: str) -> Path:
        return self.root / "releases" / re.sub(r"[^\w.-]", "_", source) / f"{package}.json"


def _pip(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
                          capture_output=True, text=True, timeout=timeout)


def pypi_releases(package: str) -> list[str]:
    """Every final release pip can see.  For a package read from one platform's wheels (torch) the list
    is the union over the Python versions pip is asked to download for: pip lists only the releases
    with a wheel for the interpreter it is told about, so this Python alone would hide torch 1.x."""
    if package in WHEEL_PLATFORMS:
        plats = [a for p in WHEEL_PLATFORMS[package] for a in ("--platform", p)]
        asks = [["--only-binary=:all:", "--python-version", py, "--implementation", "cp", *plats] for py in PY_TRIES]
    else:
        asks = [[]]
    found: list[str] = []
    err = ""
    for extra in asks:
        out = _pip("index", "versions", package, *extra, timeout=120)
        m = re.search(r"Available versions:\s*(.+)", out.stdout)
        if out.returncode == 0 and m:
            found += [v.strip() for v in m.group(1).split(",")]
        else:
            err = (out.stderr or out.stdout).strip()[-300:]
    if not found:
        raise Unavailable(f"pip index versions {package}: {err}")
    return finals(found)


def pypi_download(package: str, version: str, dest: Path) -> Path:
    """One release's file (a wheel when one can be fetched, else its sdist) into ``dest``."""
    plats = [a for p in WHEEL_PLATFORMS.get(package, PLATFORMS) for a in ("--platform", p)]
    tries = [["--only-binary=:all:", "--python-version", py, "--implementation", "cp", *plats] for py in PY_TRIES]
    err = ""
    for extra in tries:
        out = _pip("download", "--no-deps", "--no-cache-dir", "-q", f"{package}=={version}", "-d", str(dest), *extra)
        files = [p for p in dest.iterdir() if p.is_file()]
        if files:
            return files[0]
        err = (out.stderr or out.stdout).strip()[-300:]
    if package in WHEEL_PLATFORMS:
        raise Unavailable(f"pip download {package}=={version}: {err}")
    try:
        return index_sdist(package, version, dest)
    except Unavailable as e:
        raise Unavailable(f"pip download {package}=={version}: {err}; {e}") from None


SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
SDIST = re.compile(r"(?P<name>.+)-(?P<version>[^-]+)\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|zip)")


def index_urls() -> list[str]:
    """The http(s) index pip is set to use (``PIP_INDEX_URL``, else pip's configuration), else PyPI."""
    url = os.environ.get("PIP_INDEX_URL", "").strip()
    if not url:
        out = _pip("config", "get", "global.index-url", timeout=60)
        url = out.stdout.strip() if out.returncode == 0 else ""
    urls = [u for u in url.split() if u.startswith(("http://", "https://"))]
    return urls or ["https://pypi.org/simple/"]


def _same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def index_sdist(package: str, version: str, dest: Path) -> Path:
    """The release's sdist, read from the index's JSON page and checked against the sha256 it gives.
    Nothing in it is built or run (``archive_text`` reads it member by member)."""
    name = re.sub(r"[-_.]+", "-", package).lower()
    errs = []
    for base in index_urls():
        page = f"{base.rstrip('/')}/{name}/"
        try:
            with httpx.Client(timeout=120, follow_redirects=True) as client:
                r = client.get(page, headers={"Accept": SIMPLE_JSON})
                if r.status_code != 200 or not r.headers.get("content-type", "").startswith(SIMPLE_JSON):
                    errs.append(f"{page}: HTTP {r.status_code} {r.headers.get('content-type', '')}")
                    continue
                for f in r.json().get("files", []):
                    m = SDIST.fullmatch(f.get("filename", ""))
                    if not (m and re.sub(r"[-_.]+", "-", m["name"]).lower() == name
                            and _same_version(m["version"], version)):
                        continue
                    out = dest / Path(f["filename"]).name
                    digest = hashlib.sha256()
                    with client.stream("GET", httpx.URL(page).join(f["url"])) as resp:
                        resp.raise_for_status()
                        with out.open("wb") as fh:
                            for chunk in resp.iter_bytes(1 << 20):
                                digest.update(chunk)
                                fh.write(chunk)
                    want = (f.get("hashes") or {}).get("sha256")
                    if want and digest.hexdigest() != want:
                        out.unlink()
                        errs.append(f"{f['filename']}: sha256 differs from the index's")
                        continue
                    return out
                errs.append(f"{page}: no sdist of {version}")
        except (httpx.HTTPError, ValueError, OSError) as e:
            errs.append(f"{page}: {e}")
    raise Unavailable("; ".join(errs)[-300:])


def git_tags(mirror: Path) -> dict[str, str]:
    """Release version -> tag for tags named like v2.18.1-1 (the highest build number kept)."""
    out = subprocess.run(["git", "-C", str(mirror), "tag", "-l", "v*"], capture_output=True, text=True, check=True)
    tags: dict[str, tuple[int, str]] = {}
    for t in out.stdout.split():
        m = re.fullmatch(r"v(\d+\.\d+\.\d+)(?:-(\d+))?", t)
        if m:
            build = int(m.group(2) or 0)
            if m.group(1) not in tags or tags[m.group(1)][0] < build:
                tags[m.group(1)] = (build, t)
    return {v: t for v, (_b, t) in tags.items()}


def mirror_path(source: str) -> Path:
    """The local mirror of ``git:<owner>/<repo>``: $FAULTLINE_MIRRORS/<owner>+<repo>[/repo]."""
    owner_repo = source.split(":", 1)[1]
    base = Path(os.environ.get("FAULTLINE_MIRRORS", default_cache().parent / "mirrors"))
    p = base / owner_repo.replace("/", "+")
    if (p / "repo").is_dir():
        p = p / "repo"
    if not p.is_dir():
        raise Unavailable(f"no git mirror of {owner_repo} at {p} (git clone --mirror it there, or set FAULTLINE_MIRRORS)")
    return p


class Releases:
    """Release lists and release texts of every source, through the cache."""

    def __init__(self, cache: Cache, offline: bool = False, memory: int = TEXT_MEMORY):
        self.cache = cache
        self.offline = offline
        self.downloads = 0
        self.memory = memory
        self._texts: OrderedDict[tuple[str, str, str], str] = OrderedDict()  # least recently used first
        self._held = 0

    def _remember(self, key: tuple[str, str, str], text: str) -> None:
        if len(text) > self.memory:
            return
        self._texts[key] = text
        self._held += len(text)
        while self._held > self.memory:
            _k, old = self._texts.popitem(last=False)
            self._held -= len(old)

    def versions(self, source: str, package: str) -> list[str]:
        p = self.cache.releases_path(source, package)
        try:
            data = json.loads(p.read_text())
            if self.offline or time.time() - data["at"] < RELEASES_TTL:
                return data["versions"]
        except (OSError, ValueError, KeyError):
            if self.offline:
                raise Unavailable(f"no cached release list for {package} (offline)")
        if source == "pypi":
            vs = pypi_releases(package)
        else:
            vs = finals(list(git_tags(mirror_path(source))))
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"at": time.time(), "versions": vs}))
        return vs

    def text(self, source: str, package: str, version: str) -> str:
        key = (source, package, version)
        if key in self._texts:
            self._texts.move_to_end(key)
            return self._texts[key]
        p = self.cache.text_path(source, package, version)
        if p.exists():
            text = gzip.decompress(p.read_bytes()).decode("utf-8")
            self._remember(key, text)
            return text
        if self.offline:
            raise Unavailable(f"{package} {version} is not in the cache (offline)")
        with tempfile.TemporaryDirectory(dir=self.cache.root) as tmp:
            tmpd = Path(tmp)
            if source == "pypi":
                f = pypi_download(package, version, tmpd)
            else:
                mirror = mirror_path(source)
                tag = git_tags(mirror).get(version)
                if not tag:
                    raise Unavailable(f"{source}: no tag for {version}")
                f = tmpd / "src.tar"
                with f.open("wb") as fh:
                    subprocess.run(["git", "-C", str(mirror), "archive", "--format=tar", tag],
                                   stdout=fh, check=True)
            self.downloads += 1
            text = archive_text(f)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(gzip.compress(text.encode("utf-8"), 6))
        self._remember(key, text)
        return text


def clear_texts(cache: Cache) -> None:
    shutil.rmtree(cache.root / "text", ignore_errors=True)
