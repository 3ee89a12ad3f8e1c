"""What each file of a set of logs is: its rank or host, and its kind, from its path and first lines.

Layouts known:

- torchrun ``--log-dir``: ``<run>/attempt_<n>/<local rank>/stdout.log|stderr.log|error.json``
- torchelastic error files (``TORCHELASTIC_ERROR_FILE``): JSON, ``error.json`` or ``*error*.json``
- one file per rank or Slurm task: ``rank3.log``, ``rank_3.txt``, ``slurm-1234-3.out`` (``%j-%t``),
  ``train.1234.3.err``, ``task-3.log``
- one file per host or pod: ``worker-1.log``, ``node-03.out``, ``trainer-master-0.log`` (a host, not
  a rank: the rank comes from the lines' own ``[rankN]:`` prefixes when they have them)
- ``py-spy dump`` output (any name): ``Process <pid>: ...`` then ``Thread <tid> (...)`` stacks

Every pattern runs under RE2 on names and first lines (linear time).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

import re2

_TORCHRUN = re2.compile(r"(?:^|/)attempt_(\d{1,4})/(\d{1,5})/(stdout\.log|stderr\.log|error\.json)$")
_RANK_NAME = re2.compile(r"(?i)(?:^|[^a-z])(?:global[-_]?rank|local[-_]?rank|rank|task|proc|process)[-_.]?(\d{1,5})(?:\D|$)")
_SLURM = re2.compile(r"^slurm-\d{1,12}[-_.](\d{1,5})\.(?:out|err|log|txt)$")
_JOB_TASK = re2.compile(r"^[A-Za-z][\w-]{0,80}\.\d{1,12}\.(\d{1,5})\.(?:out|err|log|txt)$")  # %x.%j.%t.out
_RANK_DIR = re2.compile(r"(?i)(?:^|/)(?:rank[-_]?)?(\d{1,5})/[^/]+$")
_HOSTISH = re2.compile(r"(?i)(?:master|worker|node|host|pod|launcher|trainer|server|gpu)[-_]?\d{0,5}")
_PYSPY_HEAD = re2.compile(r"^Process \d{1,10}: ")
_PYSPY_THREAD = re2.compile(r"^Thread (?:0x[0-9A-Fa-f]{1,16}|\d{1,10}) \(")


@dataclass
class FileInfo:
    name: str
    kind: str  # stdout, stderr, error_file, pyspy, log
    rank: int | None = None
    host: str | None = None
    attempt: int | None = None
    local_rank: bool = False  # the rank is torchrun's local rank (the folder name)


def _stem(path: str) -> str:
    name = PurePosixPath(path).name
    for ext in (".log", ".out", ".err", ".txt", ".json"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def is_pyspy(head: str) -> bool:
    lines = [ln for ln in head.splitlines()[:12] if ln.strip()]
    return bool(lines) and _PYSPY_HEAD.search(lines[0]) is not None and any(
        _PYSPY_THREAD.search(ln) for ln in lines[1:])


def recognise(name: str, head: str) -> FileInfo:
    """The kind, rank and host of the file ``name`` (an archive member as ``archive:path``), whose first
    characters are ``head``."""
    path = name.split(":", 1)[1] if ":" in name and not name[1:3] == ":\\" else name
    path = path.replace("\\", "/")
    base = PurePosixPath(path).name
    kind = "log"
    if is_pyspy(head):
        kind = "pyspy"
    elif base.endswith(".json") and head.lstrip().startswith("{") and '"message"' in head:
        kind = "error_file"
    m = _TORCHRUN.search(path)
    if m:
        kinds = {"stdout.log": "stdout", "stderr.log": "stderr", "error.json": "error_file"}
        return FileInfo(name, kind if kind == "pyspy" else kinds[m.group(3)], int(m.group(2)), None,
                        int(m.group(1)), local_rank=True)
    if base in ("stdout.log", "stderr.log"):
        kind = base[:-4]
    for rx in (_SLURM, _JOB_TASK, _RANK_NAME):
        m = rx.search(base)
        if m:
            return FileInfo(name, kind, int(m.group(1)))
    if kind in ("error_file", "stdout", "stderr") and (m := _RANK_DIR.search(path)):
        return FileInfo(name, kind, int(m.group(1)))
    stem = _stem(path)
    if _HOSTISH.search(stem):
        return FileInfo(name, kind, None, stem[:100])
    return FileInfo(name, kind)


__all__ = ["FileInfo", "recognise", "is_pyspy"]
