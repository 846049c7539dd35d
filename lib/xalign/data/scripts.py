"""Which writing system a word is in, and vocabulary pruning by script.

Wickramasinghe and de Silva (Sec. 3.5) prune the candidate vocabulary of a
non-Latin-script language by "eliminat[ing] the characters in the ASCII
range". Their released code (``not_ASCII`` in
``contrastive_bli_content/C1/evaluate_c1.py`` of
kasunw22/sinhala-word-embedding-alignment) drops a word only when *all* its
characters are below U+0100 (ASCII and Latin-1), so mixed tokens such as
"3月" survive and "café" does not: :func:`authors_ascii_keep`, rule
``"ascii"``. :func:`in_script` is *our* rule (``"script"``), a Unicode-aware
alternative that is not the authors': a word belongs to a language's script(s) when every
character is a character of one of those scripts (Unicode ``Script_Extensions``,
so shared marks such as the Japanese prolonged-sound mark count for both
kana scripts), a combining mark of the ``Inherited`` script, or an invisible
format character (ZWJ / ZWNJ, which Sinhala and the Indic scripts use inside
conjuncts); and at least one character is a letter of the script. Digits,
punctuation and letters of any other script make the word foreign.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import regex

# ISO 639-1 code -> the Unicode scripts (long names) its ordinary words are written in.
LANGUAGE_SCRIPTS: dict[str, tuple[str, ...]] = {
    **{lang: ("Latin",) for lang in (
        "en", "es", "fr", "de", "it", "pt", "nl", "da", "sv", "nb", "no", "fi", "et", "hu", "pl", "cs",
        "sk", "sl", "hr", "ro", "ca", "tr", "id", "ms", "vi", "lt", "lv", "is", "sq", "tl", "fil", "sw")},
    **{lang: ("Cyrillic",) for lang in ("ru", "uk", "bg", "mk", "be", "kk", "sr")},
    "el": ("Greek",), "he": ("Hebrew",), "ar": ("Arabic",), "fa": ("Arabic",), "ur": ("Arabic",),
    "hi": ("Devanagari",), "mr": ("Devanagari",), "ne": ("Devanagari",), "bn": ("Bengali",),
    "si": ("Sinhala",), "ta": ("Tamil",), "te": ("Telugu",), "kn": ("Kannada",), "ml": ("Malayalam",),
    "gu": ("Gujarati",), "pa": ("Gurmukhi",), "th": ("Thai",), "ka": ("Georgian",), "hy": ("Armenian",),
    "zh": ("Han",), "ja": ("Han", "Hiragana", "Katakana"), "ko": ("Hangul", "Han"),
}

#: How each pruning rule is labelled in the book.
RULE_LABELS = {"ascii": "the authors' rule (drop words with every character below U+0100)",
               "script": "our rule (keep words written in the language's Unicode scripts; not the authors')"}
#: Each pruning rule's short name, for sentences.
RULE_NAMES = {"ascii": "the authors' not_ASCII rule", "script": "our Unicode-script rule"}


def scripts_of(lang: str) -> tuple[str, ...]:
    """The scripts of language ``lang`` (ISO 639-1); KeyError lists the known codes."""
    try:
        return LANGUAGE_SCRIPTS[lang]
    except KeyError:
        raise KeyError(f"no script known for language {lang!r}; pass scripts=(...) explicitly "
                       f"(known: {', '.join(sorted(LANGUAGE_SCRIPTS))})") from None


_PATTERNS: dict[tuple[str, ...], tuple] = {}


def _patterns(scripts: tuple[str, ...]):
    if scripts not in _PATTERNS:
        for s in scripts:
            try:
                regex.compile(rf"\p{{scx={s}}}")
            except regex.error:
                raise ValueError(f"unknown Unicode script {s!r}") from None
        cls = "".join(rf"\p{{scx={s}}}" for s in scripts)
        # plus combining marks of the Inherited script and format characters (ZWJ, ZWNJ, ...)
        member = regex.compile(rf"[{cls}\p{{Script=Inherited}}\p{{Cf}}]+")
        letter = regex.compile(rf"[{cls}&&\p{{L}}]", flags=regex.V1)
        _PATTERNS[scripts] = (member, letter)
    return _PATTERNS[scripts]


def in_script(word: str, scripts: Sequence[str] | str) -> bool:
    """True if ``word`` is written entirely in ``scripts`` (see the module docstring)."""
    scripts = (scripts,) if isinstance(scripts, str) else tuple(scripts)
    member, letter = _patterns(scripts)
    if not word or not letter.search(word):
        return False
    return member.fullmatch(word) is not None


def authors_ascii_keep(word: str) -> bool:
    """The authors' ``not_ASCII``: keep ``word`` unless every character is below U+0100 (empty: dropped)."""
    return any(ord(c) >= 0x100 for c in word)


def script_mask(words: Iterable[str], lang: str | None = None, scripts: Sequence[str] | None = None,
                rule: str = "script") -> np.ndarray:
    """Boolean mask (n_words,): which words survive pruning for ``lang`` (or explicit ``scripts``).

    ``rule="script"``: :func:`in_script` (ours); ``rule="ascii"``: the
    authors' rule (:func:`authors_ascii_keep`; ``lang`` is not needed).
    """
    words = list(words)
    if rule == "ascii":
        return np.fromiter((authors_ascii_keep(w) for w in words), bool, len(words))
    if rule != "script":
        raise ValueError(f"rule must be 'script' (ours) or 'ascii' (the authors'), got {rule!r}")
    if scripts is None:
        if lang is None:
            raise ValueError("give lang or scripts")
        scripts = scripts_of(lang)
    scripts = tuple(scripts)
    return np.fromiter((in_script(w, scripts) for w in words), bool, len(words))
