"""Read and validate the files under ``kb/``: entries, guides and example logs.

Nothing here touches the database: a knowledge base is either valid as a
whole (every file parses and validates, every cross-reference resolves) or it
is rejected with one message per problem, naming the file and the field.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from faultline.entry import Entry, Guide, untranslated

ENTRY_SUFFIXES = (".yaml", ".yml", ".json")
MAX_FILE_BYTES = 1 << 20


@dataclass
class Problem:
    file: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f" [{self.field}]" if self.field else ""
        return f"{self.file}{where}: {self.message}"


class KBError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class Example:
    entry_id: str | None  # None for a negative example
    path: Path
    composed: bool

    def read(self) -> str:
        return self.path.read_bytes().decode("utf-8", errors="replace")


@dataclass
class KB:
    root: Path
    entries: list[Entry] = field(default_factory=list)
    guides: list[Guide] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # id -> relative file
    problems: list[Problem] = field(default_factory=list)  # only filled when loaded leniently


# libyaml's safe loader when PyYAML was built with it: the same documents, a tenth of the time (the whole
# KB parses in about 0.5 s instead of 5.5 s); the pure-Python one otherwise
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_structured(path: Path) -> object:
    raw = path.read_bytes()
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"file is larger than {MAX_FILE_BYTES} bytes")
    text = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if path.suffix == ".json":
        return json.loads(text)
    return yaml.load(text, Loader=_SAFE_LOADER)


def _loc(err: dict) -> str:
    return ".".join(str(p) for p in err.get("loc", ()))


def _parse(path: Path, model, rel: str, problems: list[Problem]):
    try:
        data = _read_structured(path)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else ""
        problems.append(Problem(rel, where, f"malformed YAML: {getattr(exc, 'problem', exc)}"))
        return None
    except (ValueError, OSError) as exc:
        problems.append(Problem(rel, "", f"cannot read: {exc}"))
        return None
    except RecursionError:
        problems.append(Problem(rel, "", "cannot read: the document is nested too deeply"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(rel, "", "the file must hold one mapping (an object)"))
        return None
    try:
        obj = model.model_validate(data)
    except RecursionError:
        problems.append(Problem(rel, "", "the document is nested too deeply"))
        return None
    except ValidationError as exc:
        for err in exc.errors():
            problems.append(Problem(rel, _loc(err), err["msg"]))
        return None
    missing = untranslated(obj)
    for loc in missing:
        problems.append(Problem(rel, loc, "the zh text contains no Chinese characters (translate it)"))
    return None if missing else obj


def load_kb(root: str | Path, lenient: bool = False) -> KB:
    """Parse and validate every entry and guide under ``root``; raise KBError on any problem.

    ``lenient`` (for drafting) keeps the valid files and lists the problems in ``kb.problems``.
    """
    root = Path(root)
    if not root.is_dir():
        raise KBError([Problem(str(root), "", "knowledge-base directory not found")])
    kb = KB(root=root)
    problems: list[Problem] = []
    for path in sorted((root / "entries").rglob("*")):
        if path.suffix not in ENTRY_SUFFIXES or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        entry = _parse(path, Entry, rel, problems)
        if entry is None:
            continue
        expected = path.relative_to(root / "entries").with_suffix("").as_posix()
        if entry.id != expected:
            problems.append(Problem(rel, "id", f"id {entry.id!r} does not match the file path (expected {expected!r})"))
        if entry.id in kb.files:
            problems.append(Problem(rel, "id", f"duplicate id, already defined in {kb.files[entry.id]}"))
            continue
        kb.files[entry.id] = rel
        kb.entries.append(entry)
    for path in sorted((root / "guides").glob("*")):
        if path.suffix not in ENTRY_SUFFIXES:
            continue
        rel = path.relative_to(root).as_posix()
        guide = _parse(path, Guide, rel, problems)
        if guide is not None:
            if guide.id != path.stem:
                problems.append(Problem(rel, "id", f"guide id {guide.id!r} does not match the file name"))
            kb.guides.append(guide)
    _attach_verification(kb)
    guide_ids = {g.id for g in kb.guides}
    for e in kb.entries:
        for i, gid in enumerate(e.guides):
            if gid not in guide_ids:
                problems.append(Problem(kb.files[e.id], f"guides.{i}", f"unknown guide {gid!r}"))
    if problems and not lenient:
        raise KBError(problems)
    kb.problems = problems
    return kb


def _attach_verification(kb: KB) -> None:
    """Each signature's record from kb/verification/ (`faultline verify`), as the pages and the JSON show it."""
    from faultline.verification import records

    for e in kb.entries:
        try:
            recs = records.by_name(records.load(kb.root, e.id))
        except (OSError, ValueError):
            recs = {}  # an unreadable record file: `faultline lint` reports it
        for s in e.signatures:
            s.verification = records.display(recs.get(s.name))


def examples(root: str | Path) -> list[Example]:
    """Example logs: kb/examples/<domain>/<slug>/*.log (positive) and kb/examples/negative/*.log."""
    base = Path(root) / "examples"
    found: list[Example] = []
    for path in sorted(base.rglob("*.log")):
        parts = path.relative_to(base).parts
        if parts[0] == "negative":
            found.append(Example(None, path, composed=".composed." in path.name))
        elif len(parts) == 3:
            found.append(Example(f"{parts[0]}/{parts[1]}", path, composed=".composed." in path.name))
    return found
