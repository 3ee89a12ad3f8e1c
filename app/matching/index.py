"""The in-memory match index, built once per knowledge-base load.

Candidate selection: every signature's most selective required literal goes
into one Aho-Corasick automaton.  A query scans its text once through the
automaton; only signatures whose anchor occurs are run, with RE2 (linear
time, no catastrophic backtracking), and only on the lines where the anchor
occurs.  The per-query cost grows with the size of the log and the number
of anchors that really occur, not with the number of entries.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field

import ahocorasick
import re2

from app.entry import Entry
from app.matching.literals import anchor, required_literals, specificity
from app.matching.logparse import Line, ParsedLog, parse_log
from app.matching.mask import tokens

MIN_SPECIFICITY = 14  # letters/digits a signature must insist on (lint)


class SignatureError(ValueError):
    pass


@dataclass
class CompiledSignature:
    entry_id: str
    name: str
    pattern: str
    regex: object
    anchor: str | None
    specificity: int


@dataclass
class Hit:
    sig: CompiledSignature
    line: Line


def compile_signature(entry_id: str, name: str, pattern: str, ignore_case: bool) -> CompiledSignature:
    opts = re2.Options()
    opts.case_sensitive = not ignore_case
    opts.max_mem = 8 << 20
    opts.log_errors = False
    try:
        rx = re2.compile(pattern, opts)
    except re2.error as exc:  # type: ignore[attr-defined]
        raise SignatureError(f"{entry_id} signature {name!r} does not compile (RE2): {exc}") from exc
    lits = required_literals(pattern)
    return CompiledSignature(entry_id, name, pattern, rx, anchor(lits), specificity(lits))


@dataclass
class MatchIndex:
    entries: dict[str, Entry]
    signatures: list[CompiledSignature] = field(default_factory=list)
    unanchored: list[int] = field(default_factory=list)
    automaton: object = None
    idf: dict[str, float] = field(default_factory=dict)
    entry_tokens: dict[str, dict[str, float]] = field(default_factory=dict)
    postings: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, entries: list[Entry]) -> "MatchIndex":
        idx = cls(entries={e.id: e for e in entries})
        auto = ahocorasick.Automaton()
        by_anchor: dict[str, list[int]] = {}
        for e in entries:
            for s in e.signatures:
                cs = compile_signature(e.id, s.name, s.pattern, s.ignore_case)
                i = len(idx.signatures)
                idx.signatures.append(cs)
                if cs.anchor:
                    by_anchor.setdefault(cs.anchor, []).append(i)
                else:
                    idx.unanchored.append(i)
        for lit, ids in by_anchor.items():
            auto.add_word(lit, (len(lit), ids))
        if by_anchor:
            auto.make_automaton()
            idx.automaton = auto
        idx._build_text_index(entries)
        return idx

    # -- fuzzy side index, only for the "related" list --------------------
    def _build_text_index(self, entries: list[Entry]) -> None:
        df: dict[str, int] = {}
        docs: dict[str, set[str]] = {}
        for e in entries:
            text = " ".join([e.error_text, e.title.en] + [x for s in e.signatures for x in s.examples])
            toks = set(tokens(text))
            docs[e.id] = toks
            for t in toks:
                df[t] = df.get(t, 0) + 1
        n = max(len(entries), 1)
        self.idf = {t: math.log(1 + n / c) for t, c in df.items()}
        for eid, toks in docs.items():
            vec = {t: self.idf[t] for t in toks}
            norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
            self.entry_tokens[eid] = {t: v / norm for t, v in vec.items()}
            for t in toks:
                self.postings.setdefault(t, []).append(eid)

    def similar(self, text: str, limit: int = 5, exclude: set[str] | None = None) -> list[tuple[str, float]]:
        q = {t: self.idf[t] for t in set(tokens(text)) if t in self.idf}
        if not q:
            return []
        norm = math.sqrt(sum(v * v for v in q.values())) or 1.0
        scores: dict[str, float] = {}
        for t, w in q.items():
            for eid in self.postings.get(t, ()):
                scores[eid] = scores.get(eid, 0.0) + (w / norm) * self.entry_tokens[eid][t]
        ranked = sorted(((s, e) for e, s in scores.items() if not exclude or e not in exclude), reverse=True)
        return [(e, round(s, 3)) for s, e in ranked[:limit]]

    # -- exact side: literal prefilter, then RE2 ---------------------------
    def hits(self, parsed: ParsedLog) -> list[Hit]:
        lines = [ln for ln in parsed.lines if ln.kind not in ("frame", "code", "cppframe") and ln.text]
        if not lines:
            return []
        starts: list[int] = []
        pos = 0
        for ln in lines:
            starts.append(pos)
            pos += len(ln.text) + 1
        haystack = "\n".join(ln.text for ln in lines).lower()
        todo: dict[int, set[int]] = {}
        if self.automaton is not None:
            for end, (length, ids) in self.automaton.iter(haystack):
                li = bisect.bisect_right(starts, end - length + 1) - 1
                for sid in ids:
                    todo.setdefault(sid, set()).add(li)
        for sid in self.unanchored:
            todo[sid] = set(range(len(lines)))
        out: list[Hit] = []
        for sid, line_ids in todo.items():
            sig = self.signatures[sid]
            for li in sorted(line_ids):
                if sig.regex.search(lines[li].text):
                    out.append(Hit(sig, lines[li]))
        return out

    def parse(self, text: str) -> ParsedLog:
        return parse_log(text)


_WS = re.compile(r"\s+")
