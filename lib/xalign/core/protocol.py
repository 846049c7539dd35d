"""The encoder interface every measure relies on, declared once.

Three encoders implement it: :class:`xalign.core.encoders.Encoder` (any Hugging Face
encoder, every layer), :class:`xalign.core.sentvec.USEEncoder` (one output "layer") and
whatever a reader brings. Code asks :func:`is_layered` instead of probing with ``getattr``.

Shapes: ``encode_sentences`` returns (n_texts, n_layers_selected, dim) float32;
``encode_words`` returns (n_spans_total, n_layers_selected, dim) float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class SentenceEncoder(Protocol):
    """Sentence vectors per layer. ``n_layers`` is 1 for encoders without layers."""

    name: str
    revision: str
    n_layers: int
    dim: int

    def encode_sentences(self, texts: Sequence[str], pooling: str = "mean", layers=None) -> np.ndarray: ...


@runtime_checkable
class WordEncoder(SentenceEncoder, Protocol):
    """Sentence vectors plus word vectors located by character spans (the transformer encoders)."""

    def encode_words(self, texts: Sequence[str], spans, layers=None, mask: bool = False,
                     layer_mean: bool = False) -> np.ndarray: ...


def is_layered(encoder: SentenceEncoder) -> bool:
    """True when the encoder exposes more than one layer (layer indices mean something)."""
    return int(encoder.n_layers) > 1


def has_words(encoder) -> bool:
    """True when the encoder gives word vectors in context (``encode_words``)."""
    return isinstance(encoder, WordEncoder)
