"""`faultline lint`: the knowledge base checks itself.

Schema, RE2 compilation and specificity of every signature, every inline
example and example log matching its own entry at rank 1, negative logs
matching nothing, cross-references resolving, content minimums.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from faultline.kbfiles import KB, KBError, examples, load_kb
from faultline.matching.index import MIN_SPECIFICITY, MatchIndex, SignatureError, compile_signature
from faultline.render.match import match_text
from faultline.scaffold import covered, placeholder_fields

MIN_EXAMPLE_LOGS = 3


@dataclass
class LintReport:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checked_examples: int = 0
    checked_negatives: int = 0
    entries: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def lint(root: str | Path, strict: bool = True, only: str | None = None) -> LintReport:
    """Lint the KB under ``root``; with ``only`` (an entry id, or a domain), lint that entry or domain
    alone (matched against the whole KB, as the service would; negative logs are not checked)."""
    rep = LintReport()
    dom = (only or "").strip("/")
    mine = (lambda eid: eid == dom or eid.startswith(dom + "/")) if only else (lambda eid: True)  # noqa: E731
    named = re.compile(rf"(?<![\w-]){re.escape(dom)}(?![\w-])")  # the id or domain as a whole word, in a problem
    about = (lambda text: bool(named.search(text))) if only else (lambda text: True)  # noqa: E731
    todo = {f: v for f, v in placeholder_fields(root).items() if about(str(f))}  # `faultline new` scaffolds
    for f, fields in todo.items():
        (rep.errors if strict else rep.warnings).extend(
            f"{f} [{loc}]: still holds a placeholder (TODO...) from `faultline new`; fill it in" for loc in fields)
    unfilled = lambda p: covered(todo.get(p.file, []), p.field)  # noqa: E731 (schema noise of a placeholder)
    try:
        kb: KB = load_kb(root, lenient=not strict)
    except KBError as exc:
        rep.errors.extend(str(p) for p in exc.problems if not unfilled(p) and about(str(p)))
        return rep
    rep.errors.extend(str(p) for p in kb.problems if not unfilled(p) and about(str(p)))
    rep.entries = sum(1 for e in kb.entries if mine(e.id))
    ids = {e.id for e in kb.entries}
    compiled_ok = True
    broken: set[str] = set()
    for e in kb.entries:
        f = kb.files[e.id]
        if not mine(e.id):
            continue
        for s in e.signatures:
            try:
                cs = compile_signature(e.id, s.name, s.pattern, s.ignore_case)
            except SignatureError as exc:
                rep.errors.append(f"{f}: {exc}")
                compiled_ok = strict is False and compiled_ok
                broken.add(e.id)
                continue
            if cs.specificity < MIN_SPECIFICITY:
                rep.errors.append(
                    f"{f} [signatures.{s.name}]: too generic: only {cs.specificity} required letters/digits "
                    f"(at least {MIN_SPECIFICITY}); it would match unrelated logs"
                )
            for ex in s.examples:
                if s.context and not any(c.lower() in ex.lower() for c in s.context):
                    continue  # an example line alone cannot show its context; the example logs do
                if not cs.regex.search(ex):
                    rep.errors.append(f"{f} [signatures.{s.name}]: does not match its own example: {ex[:120]!r}")
        for rid in e.related:
            if rid not in ids:
                (rep.errors if strict else rep.warnings).append(f"{f} [related]: unknown entry {rid!r}")
        for part, what in (("blame", "who must act on this error"), ("retry", "whether a retry as is can help")):
            if getattr(e, part) is None:
                (rep.errors if strict else rep.warnings).append(
                    f"{f} [{part}]: missing: {what} (`{part}: {{kind, reason: {{en, zh}}}}`, kinds in app/entry.py)")
        if not e.seen_in and not e.seen_in_none:
            (rep.errors if strict else rep.warnings).append(
                f"{f} [seen_in]: missing: the public threads read for this entry (URLs), "
                "or seen_in_none saying how you looked and found none")
        if strict:
            if len(e.workarounds) < 2:
                rep.errors.append(f"{f} [workarounds]: at least 2 workarounds are required")
            if len(e.dead_ends) < 1:
                rep.errors.append(f"{f} [dead_ends]: at least 1 dead end is required")
            if not e.versions:
                rep.errors.append(f"{f} [versions]: at least 1 version row is required")
    if not compiled_ok:
        return rep
    index = MatchIndex.build([e for e in kb.entries if e.id not in broken])
    for e in filter(lambda e: mine(e.id), kb.entries):
        for s in e.signatures:
            for ex in s.examples:
                if s.context and not any(c.lower() in ex.lower() for c in s.context):
                    continue
                _expect(rep, index, ex, e.id, f"{kb.files[e.id]} [signatures.{s.name}] example")
    per_entry: dict[str, int] = {}
    for ex in examples(root):
        rel = ex.path.relative_to(Path(root)).as_posix()
        if only and (ex.entry_id is None or not mine(ex.entry_id)):
            continue
        if ex.entry_id is None:
            rep.checked_negatives += 1
            res = match_text(index, ex.read())
            if res["matches"]:
                rep.errors.append(f"{rel}: negative example matched {res['matches'][0]['id']}")
            continue
        if ex.entry_id not in ids:
            rep.errors.append(f"{rel}: example for unknown entry {ex.entry_id!r}")
            continue
        per_entry[ex.entry_id] = per_entry.get(ex.entry_id, 0) + 1
        rep.checked_examples += 1
        _expect(rep, index, ex.read(), ex.entry_id, rel)
    from faultline.verification.records import lint_kb as verification_problems  # kb/verification/ (`faultline verify`)

    v_errors, v_warnings = verification_problems(kb, root, strict)
    rep.errors.extend(filter(about, v_errors))
    rep.warnings.extend(filter(about, v_warnings))
    for e in filter(lambda e: mine(e.id), kb.entries):
        n = per_entry.get(e.id, 0)
        if n < MIN_EXAMPLE_LOGS:
            (rep.errors if strict else rep.warnings).append(
                f"{kb.files[e.id]}: {n} example logs under kb/examples/{e.id}/ (at least {MIN_EXAMPLE_LOGS})"
            )
    return rep


def _expect(rep: LintReport, index: MatchIndex, text: str, want: str, where: str) -> None:
    res = match_text(index, text)
    if index.roles.get(want) == "benign":  # a benign line is listed apart from the matches, never ranked
        if want not in {b["id"] for b in res.get("benign", [])}:
            rep.errors.append(f"{where}: expected the benign line of {want} to be recognised, it was not")
        return
    got = [m["id"] for m in res["matches"]]
    if not got or got[0] != want:
        rep.errors.append(f"{where}: expected {want} at rank 1, got {got[:3] or 'no match'}")
