"""What a player sends, checked before it is kept or read: one check for every text a player
types that is stored or shown (display names, editor titles and authors, pasted titles), a
display name's key up to confusables, and JSON bounded in size and nesting.

Flask-free: the web tier passes the text and turns ``Refused`` into a 400 naming the fault.
Why each: PostgreSQL stores no NUL (an editor title with one was a 500 with a stack trace);
bidirectional controls turn the text around them on a leaderboard; invisible letters (the
Hangul filler U+3164 is a letter to Unicode) made names that show as nothing or copy another
player's; and deeply nested JSON made the parser's recursion fail (a 500 on four routes, a
crashed socket handler).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from webapp.core.errors import Refused

#: Characters that show nothing, though Unicode files some of them as letters or marks: the
#: Hangul fillers, the Braille blank, the Mongolian vowel separator, the combining grapheme
#: joiner, the Khmer inherent vowels. (Zero-width spaces and joiners, word joiners and the
#: byte order mark are format characters, refused as such.)
INVISIBLE = frozenset("\u3164\u115f\u1160\uffa0\u2800\u180e\u034f\u17b4\u17b5")
#: The bidirectional controls (format characters too, named apart because they are the
#: ones that reorder what a page shows around them).
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: What each refused Unicode category is called in a message.
CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


def fault(character: str) -> str:
    """What is wrong with one character, in a player's words; "" when nothing is."""
    if character == "\x00":
        return "a NUL character"
    if character in BIDI:
        return "a bidirectional control"
    if character in INVISIBLE:
        return "an invisible character"
    return CATEGORIES.get(unicodedata.category(character), "")


def check_text(text: str, what: str) -> str:
    """``text`` as given; Refused naming ``what``, the first character at fault, its code
    point and its place, for one that holds a NUL, control, bidirectional or invisible
    character."""
    for place, character in enumerate(text, 1):
        wrong = fault(character)
        if wrong:
            raise Refused(
                f"The {what} holds {wrong} (U+{ord(character):04X}) at character {place}: "
                "only visible characters and spaces are kept."
            )
    return text


# -- display names up to confusables ------------------------------------------------------------
#: Letters that look alike, mapped to one of them (after NFKC and case folding): Cyrillic
#: and Greek letters drawn like Latin ones, and the Latin pairs a sans-serif font blurs.
#: A small table, not Unicode's whole confusables list: it covers what copies a name on a
#: leaderboard by eye, and a false match only means a name is refused as taken.
HOMOGLYPHS = str.maketrans(
    {
        "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "l", "ї": "l",
        "ј": "j", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s",
        "т": "t", "у": "y", "х": "x", "ԝ": "w", "ь": "b", "ӏ": "l",
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c",
        "ı": "l", "i": "l", "1": "l", "|": "l", "0": "o",
    }
)  # fmt: skip
#: Sequences drawn like one letter.
DIGRAPHS = (("rn", "m"), ("vv", "w"))
#: Signs that separate words in a name: "Ann", "A-nn" and "ann." are one name.
SEPARATORS = re.compile(r"[\s\-_.'’`]+")
#: Names nobody may take: what the leaderboards call a player without a name, and names
#: that would speak for the site.
RESERVED = ("anonymous", "admin", "administrator", "moderator", "puzzle lab", "system", "you")


def name_key(name: str) -> str:
    """A name up to confusables: two names with the same key look alike on a leaderboard
    (case, compatibility forms, common homoglyphs, the signs between words)."""
    key = unicodedata.normalize("NFKC", name).casefold().translate(HOMOGLYPHS)
    key = unicodedata.normalize("NFKD", key)
    key = "".join(c for c in key if not unicodedata.combining(c))  # é is drawn near e
    key = SEPARATORS.sub("", key)
    for pair, letter in DIGRAPHS:
        key = key.replace(pair, letter)
    return key


RESERVED_KEYS = frozenset(name_key(name) for name in RESERVED)


def is_reserved(name: str) -> bool:
    return name_key(name) in RESERVED_KEYS


# -- JSON from a page ---------------------------------------------------------------------------
#: The deepest JSON a page sends (a draft is 3 levels deep; a socket command 1).
MAX_JSON_DEPTH = 20
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(raw: str) -> int:
    """How deeply ``raw``'s arrays and objects nest, counted without recursion (strings'
    brackets left out), so a parser is never handed more than it can take."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', raw))
    depth = deepest = 0
    for bracket in brackets:
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def read_json(raw: str | bytes, what: str, most_bytes: int) -> Any:
    """The value ``raw`` holds; Refused naming ``what`` for one over ``most_bytes`` or
    nested deeper than MAX_JSON_DEPTH (checked before it is parsed), or not JSON."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > most_bytes:
        raise Refused(f"The {what} is too large (the most is {most_bytes:,} bytes).")
    try:
        text = raw.decode() if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise Refused(f"The {what} is not readable (UTF-8 JSON was expected).") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise Refused(
            f"The {what} is nested too deeply (the most is {MAX_JSON_DEPTH} levels of "
            "arrays and objects)."
        )
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise Refused(f"The {what} is not readable (JSON was expected).") from None
