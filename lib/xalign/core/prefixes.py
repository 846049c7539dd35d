"""Input prefixes as each model family documents them, per kind of task.

Some encoders are trained with an instruction prefix and expect it at test
time. The multilingual-e5 model card (intfloat/multilingual-e5-small, "FAQ"):
use ``"query: "`` for *symmetric* tasks (semantic similarity, bitext mining,
paraphrase retrieval) and for classification-style uses of the embeddings;
use ``"query: "`` / ``"passage: "`` on the two sides of *asymmetric* retrieval
(questions against documents). MTEB encodes e5 the same way (``query: `` on
Tatoeba, STS and classification).

Everything the five papers measure compares texts of the same kind across
languages (words with their translations, sentences with their translations,
classification of sentences), so the book's task is ``"symmetric"`` throughout;
``"query"`` and ``"passage"`` are there for asymmetric retrieval.

The prefix an encoder used is part of its description (``Encoder.describe()``),
so every result and every cache key records it.
"""

from __future__ import annotations

TASKS = ("symmetric", "query", "passage")

# family test -> prefix per task (the family's model card)
_E5 = {"symmetric": "query: ", "query": "query: ", "passage": "passage: "}


def is_e5(name: str) -> bool:
    """Whether ``name`` (a hub id, a local path or the offline alias) is a multilingual-e5 model."""
    from xalign.core.offline_model import _OFFLINE_ALIASES

    return name in _OFFLINE_ALIASES or "e5" in str(name).lower()


def documented_prefix(name: str, task: str = "symmetric") -> str:
    """The prefix the model family's documentation asks for on ``task``.

    Args:
        name: the model's name (hub id, local directory or offline alias).
        task: ``"symmetric"`` (similarity, bitext mining, classification: the book's
            tasks), ``"query"`` or ``"passage"`` (the two sides of asymmetric retrieval).

    Returns:
        The prefix string (``""`` for families that document none).

    Raises:
        ValueError: ``task`` is not one of :data:`TASKS`.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    return _E5[task] if is_e5(name) else ""
