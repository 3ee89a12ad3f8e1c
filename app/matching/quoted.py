"""An error message quoted inside a sentence, or retyped without its variable parts, in a short paste.

A title or a sentence often carries the message the user saw, inside quotes ("Training crash with
\"uncorrectable ECC error\" and NCCL timeout?") or retyped without the parts that vary from run to
run: "DataLoader worker exited unexpectedly" for "DataLoader worker (pid(s) 4743) exited
unexpectedly".  The quoted span, and a whole line with the message's parenthesised details left out
on both sides, are looked up in the entries' message texts as the short-paste tier does with a whole
line (``MatchIndex.containing_rare``: one entry only, through a word few entries use), and answer at
the capped short-paste confidence.

Every pattern is RE2 (linear time).
"""
from __future__ import annotations

import math
import weakref

import re2

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.index import Hit, MatchIndex, SigSpec
from faultline.matching.logparse import ParsedLog
from faultline.matching.mask import mask_light, tokens

NAME = "short-paste"
SHORT_LINES = 8
MIN_CHARS = 12
_QUOTED = re2.compile(r"\"([^\"\n]{12,200})\"|“([^”\n]{12,200})”|`([^`\n]{12,200})`|「([^」\n]{12,200})」")
_PARENS = re2.compile(r"\s*\([^()]*\)")
_SPACES = re2.compile(r"\s+")
_elided_texts: "weakref.WeakKeyDictionary[MatchIndex, list[str]]" = weakref.WeakKeyDictionary()


def elide(text: str) -> str:
    """A message without its parenthesised details (two levels: "(pid(s) 4743)"), spaces collapsed."""
    for _ in range(2):
        if "(" not in text:
            break
        text = _PARENS.sub("", text)
    return _SPACES.sub(" ", text).strip()


def _elided(index: MatchIndex) -> list[str]:
    texts = _elided_texts.get(index)
    if texts is None:
        texts = _elided_texts[index] = [elide(t) for t in index._masked]
    return texts


def containing_elided(index: MatchIndex, line: str, max_df: int = 2) -> str | None:
    """The one entry whose message text, details left out, contains this line, details left out."""
    needle = elide(mask_light(line).lower()).strip(" .:;!?")
    toks = [t for t in set(tokens(line)) if t in index.idf]
    if len(needle) < MIN_CHARS or len(toks) < 3:
        return None
    # the entries whose texts hold all of the line's words: few, or the line names nothing specific
    # (the words together, not the rarest alone: a KB that grows uses each word in more entries)
    lists = sorted((index.postings[t] for t in toks), key=len)
    common = set(lists[0]).intersection(*lists[1:])
    if len(common) > max_df:
        return None
    texts = _elided(index)
    found = [k for k in sorted(common) if needle in texts[k]]
    return index._ids[found[0]] if len(found) == 1 else None


def _has_context(index: MatchIndex, eid: str, parsed: ParsedLog) -> bool:
    """Every wording of the entry needs context words: so does a quote of one (as in rank.truncated_hits)."""
    contexts = index.contexts.get(eid, [])
    if not contexts or not all(contexts):
        return True
    haystack = "\n".join(x.text for x in parsed.lines).lower()
    return any(c in haystack for ctx in contexts for c in ctx)


def quoted_spans(text: str) -> list[str]:
    if not any(q in text for q in ('"', "“", "`", "「")):
        return []
    spans = [next(g for g in m if g) for m in _QUOTED.findall(text)]
    return [s for s in spans if s.strip().count(" ") >= 2]  # a message of three words or more, not a name


def quoted_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    """In a short paste nothing else recognised: an entry's message quoted in a sentence, or a whole line
    that is an entry's message with its details left out."""
    if already - index.benign_ids:  # something was recognised: the paste is no bare title
        return []
    lines = parsed.texted
    if not lines or len(lines) > SHORT_LINES:
        return []
    spec = int(-math.log(1 - cfg.short_paste_confidence) * cfg.spec_scale) + 1
    for ln in lines:
        eid = None
        for span in quoted_spans(ln.text):
            eid = index.containing_rare(span.strip(" .:;!?")) or containing_elided(index, span)
            if eid:
                break
        if eid is None and ln.kind not in ("frame", "code", "cppframe") and "(" not in ln.text:
            eid = containing_elided(index, ln.text)
        if eid and eid not in already and _has_context(index, eid, parsed):
            already.add(eid)
            return [Hit(SigSpec(eid, NAME, "", True, None, (), spec), ln)]
    return []


__all__ = ["quoted_hits", "quoted_spans", "containing_elided", "elide"]
