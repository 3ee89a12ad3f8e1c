"""The in-memory match index, built once per knowledge-base load.

Candidate selection: every signature's most selective required literal (its
anchor) goes into one RE2 Set (a DFA; an Aho-Corasick automaton, built only
if the DFA ever gives up, stands in).  A query scans its text once for
them; a signature is run only on the lines where its anchor
occurs and that also contain its other required literals, with RE2 (linear
time, no catastrophic backtracking).  Signatures without a usable literal are
screened together by RE2 Sets.  The per-query cost grows with the size of the
log and the number of anchors that really occur, not with the number of
entries.

Memory stays small as the knowledge base grows: the index keeps only what
matching needs (patterns, anchors, roles, word postings); RE2 programs are
compiled on first use and kept in a bounded LRU cache; full entries are
fetched through ``entry()`` (a dict for small in-process indexes, SQLite with
a cache in the service).
"""
from __future__ import annotations

import dataclasses
import heapq
import json
import math
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Iterable

import ahocorasick
import re2

from faultline.entry import Entry
from faultline.matching.budget import spent
from faultline.matching.literals import anchor, required_literals, specificity
from faultline.matching.lines import line_indices
from faultline.matching.logparse import Line, ParsedLog, parse_log
from faultline.matching.mask import mask_light, source_files, tokens

MIN_SPECIFICITY = 14  # letters/digits a signature must insist on (lint)
MAX_ANCHOR = 16  # any substring of a required literal is itself required: keep anchors short
REGEX_CACHE = 4096  # compiled RE2 programs kept (about 10 KB each once used; at 25k entries 1024 made pastes 1.4x slower)
_AUTOMATON_LOCK = threading.Lock()
# the anchors are found by one RE2 Set (a DFA over the text, several times faster than walking the
# Aho-Corasick automaton from Python); its DFA cache is bounded by this, and where the DFA runs out of
# it (a text that visits too many states) the automaton answers instead: same anchors, slower.  The
# automaton is built the first time it is needed (10 MB at 25,000 entries: most indexes never need it)
ANCHOR_SET_MEM = 32 << 20


class SignatureError(ValueError):
    pass


@dataclass(slots=True)
class SigSpec:
    entry_id: str
    name: str
    pattern: str
    ignore_case: bool
    anchor: str | None
    others: tuple[str, ...]  # the other required literals (lowercased), checked before RE2
    specificity: int
    context: tuple[str, ...] = ()  # one of these (lowercased) must occur somewhere in the log


@dataclass(slots=True)
class Hit:
    sig: SigSpec
    line: Line


def _options(ignore_case: bool, max_mem: int = 8 << 20):
    opts = re2.Options()
    opts.case_sensitive = not ignore_case
    opts.max_mem = max_mem
    opts.log_errors = False
    return opts


def compile_regex(entry_id: str, name: str, pattern: str, ignore_case: bool):
    try:
        return re2.compile(pattern, _options(ignore_case))
    except re2.error as exc:  # type: ignore[attr-defined]
        raise SignatureError(f"{entry_id} signature {name!r} does not compile (RE2): {exc}") from exc


def make_spec(entry_id: str, name: str, pattern: str, ignore_case: bool, context=(),
              pool: dict | None = None) -> SigSpec:
    """``pool``: the strings and tuples of the specs made so far, by value; an equal one is shared, not
    held twice (an index holds tens of thousands of specs whose names, literals and anchors repeat)."""
    lits = required_literals(pattern)
    a = anchor(lits)
    others = tuple(sorted({x for x in lits if x != a and len(x.strip()) >= 2}, key=len, reverse=True))
    if a and len(a) > MAX_ANCHOR:
        others = (a,) + others
        a = a[:MAX_ANCHOR]
    ctx = tuple(c.lower() for c in context if c.strip())
    if pool is not None:
        share = pool.setdefault
        name, pattern = share(name, name), share(pattern, pattern)
        a = share(a, a) if a else a
        others = tuple(share(x, x) for x in others)
        others, ctx = share(others, others), share(ctx, ctx)
    return SigSpec(entry_id, name, pattern, ignore_case, a, others, specificity(lits), ctx)


class CompiledSignature:
    """A signature compiled eagerly (lint, validation): its spec and its RE2 program."""

    def __init__(self, entry_id: str, name: str, pattern: str, ignore_case: bool):
        self.regex = compile_regex(entry_id, name, pattern, ignore_case)
        self.spec = make_spec(entry_id, name, pattern, ignore_case)
        self.specificity = self.spec.specificity


def compile_signature(entry_id: str, name: str, pattern: str, ignore_case: bool) -> CompiledSignature:
    return CompiledSignature(entry_id, name, pattern, ignore_case)


class Probe:
    """Whether a signature's pattern occurs in a text, and nothing more (the matcher never reads a match's
    groups or span): the pattern in an RE2 Set of its own.  A Set answers with RE2's forward DFA alone,
    where a search for a match also compiles and runs the pattern backwards to find where it starts and
    then finds its groups; a Set so costs about a fifth of the memory of a compiled pattern that matched
    (20 KB, kept for thousands of signatures at 25,000 entries) and less time per line.  A second pattern
    that matches every text at its end tells a real "no" from a DFA that gave up (RE2 then answers
    "none"): then the pattern is searched for as before."""

    __slots__ = ("_match", "_spec")

    def __init__(self, spec: SigSpec):
        try:
            self._match = _set_with_end([spec.pattern], _options(spec.ignore_case)).Match
        except re2.error as exc:  # type: ignore[attr-defined]
            raise SignatureError(f"{spec.entry_id} signature {spec.name!r} does not compile (RE2): {exc}") from exc
        self._spec = spec

    def __call__(self, text: str) -> bool:
        found = self._match(text.encode("utf-8", "surrogatepass"))  # bytes: the Set reads them as they are
        if found is not None:  # the end sentinel at least: the DFA answered
            return len(found) == 2
        s = self._spec  # the DFA ran out of memory
        return compile_regex(s.entry_id, s.name, s.pattern, s.ignore_case).search(text) is not None


class MatchIndex:
    def __init__(self, specs: list[SigSpec], roles: dict[str, str], entry_lookup: Callable[[str], Entry],
                 texts: Iterable[tuple[str, str]]):
        self.signatures = specs
        self.contexts: dict[str, list[tuple[str, ...]]] = {}  # per entry: the context words of each signature
        for spec in specs:
            self.contexts.setdefault(spec.entry_id, []).append(spec.context)
        self.roles = roles
        self.benign_ids = frozenset(eid for eid, role in roles.items() if role == "benign")  # once, not per match
        self.signal_entries: dict[tuple, list[str]] = {}  # app/matching/exits.py: a signal's explaining entries
        self._lookup = entry_lookup
        self._rx: OrderedDict[int, Probe] = OrderedDict()
        self.unanchored_sets: list[tuple[object, list[int]]] = []
        self.automaton = None
        self._anchor_set = None
        self._anchors: list[str] = []  # group -> its anchor text
        self._anchor_groups: list[list[int]] = []
        self._anchor_len: list[int] = []
        self._build_anchors()
        self._build_unanchored_sets()
        self._build_text_index(texts)

    # -- construction ------------------------------------------------------
    @classmethod
    def build(cls, entries: list[Entry], validate: bool = True) -> "MatchIndex":
        """An index over in-memory entries; every signature is compiled once when ``validate``."""
        specs: list[SigSpec] = []
        pool: dict = {}
        for e in entries:
            for s in e.signatures:
                if validate:
                    compile_regex(e.id, s.name, s.pattern, s.ignore_case)
                specs.append(make_spec(e.id, s.name, s.pattern, s.ignore_case, s.context, pool))
        by_id = {e.id: e for e in entries}
        texts = [(e.id, _entry_text(e.error_text, e.title.en, [x for s in e.signatures for x in s.examples])) for e in entries]
        return cls(specs, {e.id: e.role for e in entries}, by_id.__getitem__, texts)

    @classmethod
    def from_documents(cls, docs: Iterable[tuple[str, str | dict]], entry_lookup: Callable[[str], Entry]) -> "MatchIndex":
        """An index from stored documents, JSON text or parsed (already validated when they were loaded)."""
        specs: list[SigSpec] = []
        roles: dict[str, str] = {}
        texts: list[tuple[str, str]] = []
        pool: dict = {}
        for eid, doc in docs:
            d = json.loads(doc) if isinstance(doc, str) else doc
            roles[eid] = d.get("role", "cause")
            sigs = d.get("signatures", [])
            for s in sigs:
                specs.append(make_spec(eid, s["name"], s["pattern"], bool(s.get("ignore_case")), s.get("context") or (),
                                       pool))
            texts.append((eid, _entry_text(d.get("error_text", ""), (d.get("title") or {}).get("en", ""),
                                           [x for s in sigs for x in s.get("examples", [])])))
        return cls(specs, roles, entry_lookup, texts)

    def _build_anchors(self) -> None:
        groups: dict[str, int] = {}
        for i, s in enumerate(self.signatures):
            if not s.anchor:
                continue
            g = groups.get(s.anchor)
            if g is None:
                g = groups[s.anchor] = len(self._anchor_groups)
                self._anchor_groups.append([])
                self._anchor_len.append(len(s.anchor))
                self._anchors.append(s.anchor)
            self._anchor_groups[g].append(i)
        if groups:
            self._anchor_set = _literal_set(self._anchors)

    def _automaton(self):
        with _AUTOMATON_LOCK:
            if self.automaton is None:
                auto = ahocorasick.Automaton(ahocorasick.STORE_INTS)
                for g, a in enumerate(self._anchors):
                    auto.add_word(a, g)
                auto.make_automaton()
                self.automaton = auto
        return self.automaton

    def _anchor_starts(self, haystack: str) -> Iterable[tuple[int, int]]:
        """(start offset, anchor group) of every occurrence of every anchor in the (lowercased) text."""
        found = self._anchor_set.Match(haystack) if self._anchor_set is not None else None
        sentinel = len(self._anchors)
        if not found or sentinel not in found:  # no sentinel: the DFA gave up; walk the automaton
            lens = self._anchor_len
            return [(end - lens[g] + 1, g) for end, g in self._automaton().iter(haystack)]
        out = []
        for g in found:
            if g == sentinel:
                continue
            a = self._anchors[g]
            i = haystack.find(a)
            while i >= 0:
                out.append((i, g))
                i = haystack.find(a, i + 1)
        return out

    def _build_unanchored_sets(self) -> None:
        """Signatures without a usable literal are screened together by RE2 Sets (one pass per Set)."""
        unanchored = [i for i, s in enumerate(self.signatures) if not s.anchor]
        for ci in (True, False):
            ids = [i for i in unanchored if self.signatures[i].ignore_case == ci]
            if not ids:
                continue
            rset = re2.Set.SearchSet(_options(ci, 64 << 20))
            try:
                for i in ids:
                    rset.Add(self.signatures[i].pattern)
                rset.Compile()
            except re2.error:  # type: ignore[attr-defined]
                self.unanchored_sets.append((None, ids))
                continue
            self.unanchored_sets.append((rset, ids))

    # -- entries -------------------------------------------------------------
    def entry(self, entry_id: str) -> Entry:
        return self._lookup(entry_id)

    @property
    def entry_ids(self) -> list[str]:
        return self._ids

    def regex(self, sid: int) -> Probe:
        """Signature ``sid``'s test (compiled on first use, kept in an LRU cache)."""
        rx = self._rx.get(sid)
        if rx is None:
            rx = Probe(self.signatures[sid])
            self._rx[sid] = rx
            if len(self._rx) > REGEX_CACHE:
                self._rx.popitem(last=False)
        else:
            self._rx.move_to_end(sid)
        return rx

    # -- fuzzy side index, only for the "related" list ---------------------
    def _build_text_index(self, texts: Iterable[tuple[str, str]]) -> None:
        self._ids: list[str] = []
        self._masked: list[str] = []  # masked, lowercased message texts (for truncated pastes)
        same: dict[str, str] = {}  # entries whose masked texts are equal share one string
        # each word's entries, in one pass (a word's document frequency is the length of its list): no
        # entry's set of words is kept for a second pass (at 25,000 entries those sets, made between the
        # lists that are kept, left about 60 MB of the service's memory behind them)
        post: dict[str, array] = {}
        for k, (eid, text) in enumerate(texts):
            self._ids.append(eid)
            masked = mask_light(text).lower()
            self._masked.append(same.setdefault(masked, masked))
            for t in set(tokens(text)) | source_files(text):  # a kernel's file name is a word of its own
                arr = post.get(t)
                if arr is None:
                    arr = post[t] = array("I")
                arr.append(k)
        n = max(len(self._ids), 1)
        self.idf = {t: math.log(1 + n / len(arr)) for t, arr in post.items()}
        squares: list[list[float]] = [[] for _ in self._ids]
        for t, arr in post.items():
            w = self.idf[t] ** 2
            for k in arr:
                squares[k].append(w)
        self._norm = array("f", (math.sqrt(math.fsum(sq)) or 1.0 for sq in squares))
        self.postings = post

    def similar(self, text: str, limit: int = 5, exclude: set[str] | None = None) -> list[tuple[str, float]]:
        q = {t: self.idf[t] for t in set(tokens(text)) if t in self.idf}
        if not q:
            return []
        qn = math.sqrt(sum(v * v for v in q.values())) or 1.0
        scores: dict[int, float] = {}
        get = scores.get
        for t, w in q.items():
            ww = w * w
            for k in self.postings.get(t, ()):
                scores[k] = get(k, 0.0) + ww
        norm, ids = self._norm, self._ids
        want = limit + len(exclude or ())
        keys = list(scores)
        values = [s / (qn * norm[k]) for k, s in scores.items()]
        # the best few, as sorting them all by (value, id) would give them (ties: the greater id first); only a
        # candidate whose value reaches the want-th largest value can be one of them (at 25,000 entries a
        # paste's common words reach thousands of entries: they are compared as plain numbers first)
        least = heapq.nlargest(want, values)[-1] if 0 < want < len(values) else -math.inf
        ranked = heapq.nlargest(want, [(v, ids[k]) for k, v in zip(keys, values) if v >= least])
        out = [(eid, round(s, 3)) for s, eid in ranked if not exclude or eid not in exclude]
        return out[:limit]

    def containing(self, line: str, limit: int = 20, whole: bool = False) -> list[str]:
        """Entries whose message text contains this (masked) line: a truncated paste of a known message.
        ``whole``: only where the text does not go on before it with a name ("X.__init__() ..." does not
        contain a bare "__init__() ..." as a whole)."""
        needle = mask_light(line).lower().strip()
        toks = [t for t in set(tokens(line)) if t in self.idf]
        if len(needle) < 30 or len(toks) < 4:
            return []
        lists = sorted((self.postings.get(t, array("I")) for t in toks), key=len)
        cand = set(lists[0])
        for arr in lists[1:3]:
            cand &= set(arr)
            if not cand:
                return []
        out = [self._ids[k] for k in sorted(cand) if (_whole_in if whole else str.__contains__)(self._masked[k], needle)]
        return out[:limit]

    def containing_rare(self, line: str, min_chars: int = 12, max_df: int = 2) -> str | None:
        """The one entry whose message text contains this short (masked) fragment, when the fragment has a
        word few entries use ("IndexKernel.cu:92", a title's key words); None when none or several do."""
        needle = mask_light(line).lower().strip()
        files = source_files(line)
        toks = [t for t in set(tokens(line)) | files if t in self.idf]
        if len(needle) < min_chars or not toks or (len(toks) < 2 and not files):  # one word is not a fragment
            return None
        lists = sorted((self.postings[t] for t in toks), key=len)
        if len(lists[0]) > max_df:
            return None
        found = [k for k in lists[0] if needle in self._masked[k]]
        return self._ids[found[0]] if len(found) == 1 else None

    # -- exact side: literal prefilter, then RE2 ---------------------------
    def hits(self, parsed: ParsedLog) -> list[Hit]:
        lines = parsed.messages
        if not lines:
            return []
        out = self._hits_on(lines)
        joined = _rejoined_messages(lines)
        if joined:
            seen = {(h.sig.entry_id, h.line.no) for h in out}
            out += [h for h in self._hits_on(joined) if (h.sig.entry_id, h.line.no) not in seen]
        return out

    def _hits_on(self, lines: list[Line]) -> list[Hit]:
        joined = "\n".join([ln.text for ln in lines])
        haystack = joined.lower()
        lowered = haystack.split("\n")
        if len(lowered) != len(lines) or len(haystack) != len(joined):  # lowercasing changed lengths
            lowered = [ln.text.lower() for ln in lines]
            haystack = "\n".join(lowered)
        # the lines each anchor group occurs on; a signature belongs to one group, so walking the groups in
        # the order they were found, and each group's signatures in turn, tries them in the order (and on
        # the lines) a per-signature map would
        by_group: dict[int, set[int]] = {}
        found = self._anchor_starts(haystack) if self._anchors else ()
        if found:
            line_of = line_indices(haystack, [start for start, _ in found])
            for start, g in found:
                li = line_of[start]
                seen = by_group.get(g)
                if seen is None:
                    by_group[g] = {li}
                else:
                    seen.add(li)
        groups = self._anchor_groups
        todo: list[tuple[list[int], list[int]]] = [(groups[g], sorted(lis)) for g, lis in by_group.items()]
        for rset, ids in self.unanchored_sets:
            found = ids if rset is None else [ids[k] for k in (rset.Match(joined) or ())]
            if found:
                todo.append((found, range(len(lines))))
        out: list[Hit] = []
        tried = 0
        in_text: dict[str, bool] = {}  # a context word searched for once per text, whatever shares it
        signatures = self.signatures
        for sids, line_ids in todo:
            for sid in sids:
                sig = signatures[sid]
                if sig.context and not any(in_text[c] if c in in_text else in_text.setdefault(c, c in haystack)
                                           for c in sig.context):
                    continue
                rx = None
                others = sig.others
                for li in line_ids:
                    tried += 1
                    if tried & 255 == 0 and spent(0.95, "signatures"):  # the CPU budget (app/matching/budget.py)
                        return out
                    if others:
                        low = lowered[li]
                        if not all(lit in low for lit in others):
                            continue
                    if rx is None:
                        rx = self.regex(sid)
                    if rx(lines[li].text):
                        out.append(Hit(sig, lines[li]))
        return out

    def parse(self, text: str) -> ParsedLog:
        return parse_log(text)


def _set_with_end(patterns: Iterable[str], opts):
    """An RE2 Set of the patterns, in order, and one last pattern that matches every text (its end): a Match
    without it means the DFA ran out of memory (RE2 then answers "no match"), not that none occurs.  Raises
    re2.error when a pattern does not compile."""
    rset = re2.Set.SearchSet(opts)
    for p in patterns:
        rset.Add(p)
    rset.Add(r"\z")
    rset.Compile()
    return rset


def _literal_set(literals: list[str]):
    """The literals as text, in a Set with the end sentinel (_set_with_end); None when RE2 refuses them."""
    try:
        return _set_with_end((re2.escape(lit) for lit in literals), _options(False, ANCHOR_SET_MEM))
    except re2.error:  # type: ignore[attr-defined]
        return None


def _whole_in(text: str, needle: str) -> bool:
    i = text.find(needle)
    while i >= 0:
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "._"):
            return True
        i = text.find(needle, i + 1)
    return False


def _rejoined_messages(lines: list[Line]) -> list[Line]:
    """An exception's message wrapped onto the next line by a terminal or a console (rich wraps at its
    width): each long message line joined with the line after it, so a signature can match across
    the break.  Only message lines (an exception line and the lines of its message block)."""
    out: list[Line] = []
    for a, b in zip(lines, lines[1:]):
        if a.block is None or len(a.raw) < 60 or b.no != a.no + 1 or b.kind != "text" or len(out) >= 200:
            continue
        out.append(dataclasses.replace(a, text=f"{a.text} {b.text}"))
    return out


def _entry_text(error_text: str, title: str, examples: list[str]) -> str:
    return " ".join([error_text, title, *examples])
