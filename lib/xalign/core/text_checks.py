"""What an encoder counts about the texts it is given: blank texts and texts cut at its token limit.

Both change numbers without failing: every blank text (empty, whitespace or invisible format
characters only, such as a zero-width space) gets one shared vector, and a text longer than the
model's token limit loses its tail, so texts that differ only there get identical vectors. The
encoder counts both and warns (:meth:`xalign.core.encoders.Encoder.encode`); a chapter's results
record the counts (:meth:`xalign.book.results.ChapterRun.use_encoder`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

#: tokens a tokenizer may add beyond one per UTF-8 byte (special tokens, a leading word-start piece)
EXTRA_TOKENS = 8


def is_blank(text: str) -> bool:
    """True for a text with nothing to encode: only whitespace, control characters (Unicode Cc: NUL, bell,
    escape, ...) and invisible format characters (Unicode Cf: zero-width space, joiners, byte-order mark,
    direction marks, soft hyphen)."""
    return all(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in text)


def count_unknown_only(tokenizer, texts: Sequence[str]) -> int:
    """How many of ``texts`` (not blank) the tokenizer reads as unknown tokens only (``[UNK]`` / ``<unk>``
    for every piece): they all get one shared vector, like blank texts. 0 for a tokenizer without an
    unknown token (byte-level ones read every text).

    Args:
        tokenizer: a Hugging Face tokenizer.
        texts: the texts as given to the encoder (without its prefix: the prefix is never unknown).
    """
    unk = getattr(tokenizer, "unk_token_id", None)
    # a text with an ASCII letter or digit has a known piece in any vocabulary: only the others are read
    todo = [t for t in texts if not is_blank(t) and not any(c.isascii() and c.isalnum() for c in t)]
    if unk is None or not todo:
        return 0
    ids = tokenizer(todo, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]
    # unknown pieces and nothing else but word-start pieces ("▁", "Ġ"), which decode to blanks
    return sum(unk in x and is_blank(tokenizer.decode([i for i in x if i != unk])) for x in ids)


def may_be_cut(text: str, prefix: str, max_length: int) -> bool:
    """Whether ``prefix + text`` could hold more than ``max_length`` tokens: a token covers at least one
    UTF-8 byte, apart from :data:`EXTRA_TOKENS`; a text for which this is False is never tokenised to check."""
    return len((prefix + text).encode("utf-8")) + EXTRA_TOKENS > max_length


def count_truncated(tokenizer, texts: Sequence[str], prefix: str, max_length: int) -> int:
    """How many of ``texts`` (each after ``prefix``) have more than ``max_length`` tokens, special tokens included.

    Only texts whose UTF-8 length could reach the limit are tokenised (a token covers at least one
    byte, apart from :data:`EXTRA_TOKENS`), so ordinary sentences cost nothing.

    Args:
        tokenizer: a Hugging Face tokenizer.
        texts: the texts as given to the encoder.
        prefix: the encoder's prefix (e5's ``"query: "``).
        max_length: the token limit the encoder truncates at.

    Returns:
        The number of texts cut.
    """
    long = [prefix + t for t in texts if may_be_cut(t, prefix, max_length)]
    if not long:
        return 0
    ids = tokenizer(long, add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
    return sum(len(x) > max_length for x in ids)
