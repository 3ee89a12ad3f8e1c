"""Reading several logs safely: files, directories and archives (.zip, .tar, .tar.gz, a .gz log).

Archives are read in memory, never extracted to disk.  Every limit is checked before a member's
bytes are read: the number of members, each member's and the total uncompressed size, the
compression ratio, and the member's kind and path (links, devices, absolute and ``..`` paths are
refused).  Reads are bounded too, so an archive whose headers lie about sizes still stops at the
limit.  Nothing is unpickled: a pickle (a Flight Recorder dump) is skipped, with a note that says
what to give instead.
"""
from __future__ import annotations

import gzip
import io
import os
import re
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from faultline.settings import Settings, settings


@dataclass(frozen=True)
class Limits:
    max_files: int  # files (archive members included) in one request
    max_file_bytes: int  # one file, uncompressed
    max_total_bytes: int  # all files together, uncompressed
    max_ratio: int  # uncompressed / compressed size of one archive member

    @classmethod
    def from_settings(cls, s: Settings | None = None) -> "Limits":
        s = s or settings()
        return cls(s.logset_max_files, s.logset_max_file_bytes, s.logset_max_total_bytes, s.logset_max_ratio)


# the setting that raises each limit (named in the refusal)
LIMIT_VARS = {"max_files": "FAULTLINE_LOGSET_MAX_FILES", "max_file_bytes": "FAULTLINE_LOGSET_MAX_FILE_BYTES",
              "max_total_bytes": "FAULTLINE_LOGSET_MAX_TOTAL_BYTES", "max_ratio": "FAULTLINE_LOGSET_MAX_RATIO"}


class LogSetError(Exception):
    """Input that is refused: ``status`` 413 (a limit, named by ``limit``) or 422 (unsafe or unreadable)."""

    def __init__(self, status: int, code: str, message: str, limit: str | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.limit = status, code, message, limit


def over_limit(limit: str, value: int, allowed: int, what: str) -> LogSetError:
    return LogSetError(413, "limit_exceeded",
                       f"{what}: {value:,} is over the limit {limit} of {allowed:,} (set {LIMIT_VARS[limit]} to change it)",
                       limit)


@dataclass
class LogFile:
    name: str  # the path as the user gave it (inside an archive: "archive.zip:dir/file.log")
    data: bytes


_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Collected:
    files: list[LogFile] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"name", "why"}: files not read, and why
    total: int = 0


_PICKLE_MAGIC = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")


def _kind_of(data: bytes) -> str:
    """'zip', 'gzip', 'tar', 'pickle', 'binary' or 'text', from the first bytes."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[257:262] == b"ustar":
        return "tar"
    if data[:2] in _PICKLE_MAGIC:
        return "pickle"
    head = data[:8192]
    if b"\x00" in head and head[:2] not in (b"\xff\xfe", b"\xfe\xff") and not _utf16_like(head):
        return "binary"
    return "text"


def _utf16_like(head: bytes) -> bool:
    """UTF-16 without a BOM: every other byte is NUL (the paste decoder reads it)."""
    return len(head) >= 4 and (head[1::2].count(0) > len(head) // 4 or head[0::2].count(0) > len(head) // 4)


class _Reader:
    def __init__(self, limits: Limits):
        self.limits = limits
        self.out = Collected()
        self.count = 0

    # --------------------------------------------------------------- bookkeeping

    def _count(self) -> None:
        self.count += 1
        if self.count > self.limits.max_files:
            raise over_limit("max_files", self.count, self.limits.max_files, "the number of files")

    def _reserve(self, name: str, size: int) -> None:
        """Check one file's size and the running total before its bytes are read."""
        if size > self.limits.max_file_bytes:
            raise over_limit("max_file_bytes", size, self.limits.max_file_bytes, f"the size of {name} in bytes")
        if self.out.total + size > self.limits.max_total_bytes:
            raise over_limit("max_total_bytes", self.out.total + size, self.limits.max_total_bytes,
                             "the total size of the files in bytes")

    def add(self, name: str, data: bytes, nested: bool = False) -> None:
        # a name that is not UTF-8 (a tar member or a file on disk: Python keeps its bytes as lone surrogates)
        # is shown with U+FFFD where they were: it is matched, reported and written as JSON like any other
        name = _SURROGATE.sub("\ufffd", name)
        kind = _kind_of(data)
        if kind in ("zip", "tar", "gzip") and not nested:
            self._archive(name, data, kind)
            return
        if kind in ("zip", "tar", "gzip"):
            self._count()
            self.out.skipped.append({"name": name, "why": "an archive inside an archive is not opened"})
            return
        self._count()
        if kind == "pickle":
            self.out.skipped.append({"name": name, "why": "a pickle (e.g. a Flight Recorder dump) is never loaded; "
                                                          "give the text or JSON its analyzer prints instead"})
            return
        if kind == "binary":
            self.out.skipped.append({"name": name, "why": "not text"})
            return
        if not data.strip():
            self.out.skipped.append({"name": name, "why": "empty"})
            return
        self._reserve(name, len(data))
        self.out.total += len(data)
        self.out.files.append(LogFile(name, data))

    # --------------------------------------------------------------- archives

    def _archive(self, name: str, data: bytes, kind: str) -> None:
        if kind == "zip":
            self._zip(name, data)
            return
        if kind == "gzip":
            data = self._gunzip(name, data)
            if _kind_of(data) != "tar":  # a single gzipped log (rank0.log.gz)
                self.add(name[:-3] if name.endswith(".gz") else name, data, nested=True)
                return
        self._tar(name, data)

    def _gunzip(self, name: str, data: bytes) -> bytes:
        """The decompressed stream, stopped at what the limits allow (tar headers included)."""
        cap = self.limits.max_total_bytes - self.out.total + 1024 * (self.limits.max_files + 2)
        d = zlib.decompressobj(wbits=47)
        try:
            out = d.decompress(data, cap + 1)
        except zlib.error as exc:
            raise LogSetError(422, "bad_archive", f"{name} is not a readable gzip file: {exc}")
        if len(out) > cap:
            raise over_limit("max_total_bytes", len(out), self.limits.max_total_bytes,
                             f"the uncompressed size of {name} in bytes (at least)")
        if len(out) > 64 * 1024 and len(out) > self.limits.max_ratio * len(data):
            raise over_limit("max_ratio", len(out) // max(len(data), 1), self.limits.max_ratio,
                             f"the compression ratio of {name}")
        return out

    def _member_name(self, archive: str, member: str) -> str:
        p = member.replace("\\", "/")
        parts = PurePosixPath(p).parts
        if p.startswith("/") or (len(p) > 1 and p[1] == ":") or ".." in parts:
            raise LogSetError(422, "unsafe_archive",
                              f"{archive} holds a member with an absolute or '..' path ({member[:200]!r}); it is refused")
        return f"{archive}:{p.lstrip('./') or p}"

    def _zip(self, name: str, data: bytes) -> None:
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
            infos = zf.infolist()
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise LogSetError(422, "bad_archive", f"{name} is not a readable zip file: {exc}")
        files = [i for i in infos if not i.is_dir()]
        if self.count + len(files) > self.limits.max_files:
            raise over_limit("max_files", self.count + len(files), self.limits.max_files,
                             f"the number of files (with the members of {name})")
        total = 0
        for info in files:  # every check on every member before any member is read
            member = self._member_name(name, info.filename)
            kind = stat.S_IFMT(info.external_attr >> 16)  # Unix file type bits (0: not recorded)
            if kind and kind != stat.S_IFREG:
                raise LogSetError(422, "unsafe_archive", f"{member} is a link or a special file; links are refused")
            if info.flag_bits & 0x1:
                raise LogSetError(422, "bad_archive", f"{member} is encrypted")
            if info.file_size > 64 * 1024 and info.file_size > self.limits.max_ratio * max(info.compress_size, 1):
                raise over_limit("max_ratio", info.file_size // max(info.compress_size, 1), self.limits.max_ratio,
                                 f"the compression ratio of {member}")
            self._reserve(member, info.file_size)
            total += info.file_size
        if self.out.total + total > self.limits.max_total_bytes:
            raise over_limit("max_total_bytes", self.out.total + total, self.limits.max_total_bytes,
                             f"the total uncompressed size in bytes (with {name})")
        for info in files:
            member = self._member_name(name, info.filename)
            try:
                with zf.open(info) as fh:
                    body = fh.read(self.limits.max_file_bytes + 1)  # bounded: sizes in headers can lie
            except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, zlib.error) as exc:
                raise LogSetError(422, "bad_archive", f"{member} cannot be read: {exc}")
            if len(body) > info.file_size:
                raise LogSetError(422, "bad_archive", f"{member} is larger than its archive header says")
            self.add(member, body, nested=True)

    def _tar(self, name: str, data: bytes) -> None:
        try:
            tf = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
        except (tarfile.TarError, OSError) as exc:
            raise LogSetError(422, "bad_archive", f"{name} is not a readable tar file: {exc}")
        members: list[tarfile.TarInfo] = []
        try:
            while (m := tf.next()) is not None:  # headers only; the data is in memory already (bounded)
                if m.isdir():
                    continue
                member = self._member_name(name, m.name)
                if m.issym() or m.islnk():
                    raise LogSetError(422, "unsafe_archive", f"{member} is a link; links are refused")
                if not m.isfile():
                    raise LogSetError(422, "unsafe_archive", f"{member} is a special file (a device or a pipe); refused")
                members.append(m)
                if self.count + len(members) > self.limits.max_files:
                    raise over_limit("max_files", self.count + len(members), self.limits.max_files,
                                     f"the number of files (with the members of {name})")
                self._reserve(member, m.size)
        except tarfile.TarError as exc:
            raise LogSetError(422, "bad_archive", f"{name} is not a readable tar file: {exc}")
        if self.out.total + sum(m.size for m in members) > self.limits.max_total_bytes:
            raise over_limit("max_total_bytes", self.out.total + sum(m.size for m in members),
                             self.limits.max_total_bytes, f"the total uncompressed size in bytes (with {name})")
        for m in members:
            fh = tf.extractfile(m)
            body = fh.read(self.limits.max_file_bytes + 1) if fh else b""
            self.add(self._member_name(name, m.name), body, nested=True)

    # --------------------------------------------------------------- the file system

    def path(self, path: str) -> None:
        p = Path(path)
        if p.is_symlink() and p.is_dir():
            p = p.resolve()  # a link the user named on the command line is followed; links inside are not
        if p.is_dir():
            self._dir(p, path)
            return
        try:
            size = p.stat().st_size
        except OSError as exc:
            raise LogSetError(422, "unreadable", f"cannot read {path}: {exc.strerror or exc}")
        if looks_like_archive(p.name):
            cap = self.limits.max_total_bytes  # compressed size: never more than what it may expand to
            if size > cap:
                raise over_limit("max_total_bytes", size, cap, f"the size of {path} in bytes")
        else:
            self._reserve(path, size)
        with open(p, "rb") as fh:
            data = fh.read(max(self.limits.max_file_bytes, self.limits.max_total_bytes) + 1)
        self.add(path, data)

    def _dir(self, root: Path, shown: str) -> None:
        for dirpath, dirnames, filenames in os.walk(root):  # links to folders are not followed
            dirnames.sort()
            for fn in sorted(filenames):
                full = Path(dirpath) / fn
                rel = os.path.join(shown, os.path.relpath(full, root))
                if full.is_symlink():
                    self.out.skipped.append({"name": rel, "why": "a link: not followed"})
                    continue
                if fn.startswith("."):
                    continue
                if self.count >= self.limits.max_files:
                    raise over_limit("max_files", self.count + 1, self.limits.max_files, "the number of files")
                self._reserve(rel, full.stat().st_size)
                with open(full, "rb") as fh:
                    data = fh.read(self.limits.max_file_bytes + 1)
                self.add(rel, data)


def looks_like_archive(name: str) -> bool:
    return name.endswith((".zip", ".tar", ".tar.gz", ".tgz", ".gz"))


def read_paths(paths: list[str], limits: Limits | None = None) -> Collected:
    """The text files under ``paths`` (files, folders, archives), or a LogSetError that says why not."""
    r = _Reader(limits or Limits.from_settings())
    for p in paths:
        r.path(p)
    return r.out


def read_uploads(items: list[tuple[str, bytes]], limits: Limits | None = None) -> Collected:
    """Uploaded files (name, bytes); archives among them are opened in memory."""
    r = _Reader(limits or Limits.from_settings())
    for name, data in items:
        r.add(name, data)
    return r.out


__all__ = ["Limits", "LogSetError", "LogFile", "Collected", "read_paths", "read_uploads", "LIMIT_VARS"]
