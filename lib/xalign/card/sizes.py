"""Sample sizes in words, for every page that states one.

A card's settings give each sample's size as a count, or as ``None`` for "all of it" (``xalign card
--profile full`` reads every Tatoeba pair, every STS pair, every XNLI test row). :func:`sample_size` is the
one place such a size becomes words, so that no page prints Python's ``None``; where the number of items
behind "all" is known (a measure's ``n``), it is given beside it.
"""

from __future__ import annotations

#: how a card's settings (and older pages) spell "all of it"
ALL = (None, "all")


def sample_size(n, noun: str, *, first: bool = False, total: int | None = None) -> str:
    """A sample size as a reader reads it.

    Args:
        n: how many items were drawn (a non-negative int), or None / ``"all"``: every item there is.
        noun: what is counted, plural ("pairs", "test rows", "sentences"), with any qualifier after it
            ("pairs per language").
        first: the sample is the first ``n`` items (a prefix, not a random draw): "the first 150 pairs".
        total: how many items "all" came to (e.g. a measure's ``n``), shown beside "all" when given.

    Returns:
        ``"150 pairs"``, ``"the first 150 pairs"``, ``"all pairs"`` or ``"all pairs (88,877 in all)"``.

    Raises:
        ValueError: ``n`` is neither None, ``"all"`` nor a non-negative int; ``total`` not a non-negative int.
    """
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        raise ValueError(f"sample_size: total must be a non-negative int or None, not {total!r}")
    if n in ALL:
        return f"all {noun}" + (f" ({total:,} in all)" if total is not None else "")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"sample_size: n must be a non-negative int, None or 'all' (every item), not {n!r}")
    return f"the first {n} {noun}" if first else f"{n} {noun}"
