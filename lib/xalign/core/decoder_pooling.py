"""Sentence poolings of decoder-only LLMs, as pooling weights over a padded batch.

A causal LM's token ``i`` has seen tokens ``0..i`` only, so the studies of LLM alignment pool
differently from encoders:

- ``"mean"``: the plain mean over the text's tokens;
- ``"weighted"``: the position-weighted mean of SGPT (Muennighoff 2022) and MEXA (Kargaran et
  al. 2025): token ``i`` (1-based, counted over the pooled tokens) gets weight ``i / (1 + 2 + ... + n)``,
  so the later tokens, which have read more of the sentence, count more;
- ``"mexa"``: the same position weights as MEXA's own extractor computes them (cisnlp/MEXA,
  ``embed_extractor.py``, ``weighted_embeddings``): over every real (non-padding) token, the
  tokens the tokenizer adds (BOS) included, so BOS has weight 1 and the text's first token 2;
- ``"last"``: the last real (non-padding) token, which has read the whole input.

"The text's tokens" are the content range of each sequence: everything but the tokens the
tokenizer adds around every text (BOS such as Llama's ``<s>`` and Gemma's ``<bos>``, an EOS where
a tokenizer appends one). BOS in particular is an attention sink with outsized activations in
trained LLMs, so it is kept out of the means as an encoder's special tokens are kept out of its
``"tokens"`` pooling; a prefix or prompt, being part of the input the encoder was asked to
encode, is pooled. ``"last"`` takes the last token whatever it is.

Padding may be on either side: weights are built in right-padded coordinates, then each row of
a left-padded batch is shifted right by its padding, so both give the same vectors.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xalign.core.pooling import pooling_matrix

#: the sentence poolings defined here (the others, "first" and "tokens", are the encoders')
DECODER_POOLINGS = ("mean", "weighted", "last", "mexa")


def content_range(ids: Sequence[int], lead: Sequence[int], trail: Sequence[int]) -> tuple[int, int]:
    """The text's tokens in one sequence: ``[start, end)`` without the tokens the tokenizer added.

    Args:
        ids: one sequence's token ids.
        lead: the ids the tokenizer puts before every text (e.g. ``[bos_id]``; may be empty).
        trail: the ids it puts after every text (e.g. ``[eos_id]``; usually empty for LLMs).

    Returns:
        (start, end) token indices; the whole sequence when nothing is left once the added
        tokens are taken away (a blank text: its vector is then the added tokens').
    """
    ids, start, end = list(ids), 0, len(ids)
    if lead and ids[: len(lead)] == list(lead):
        start = len(lead)
    if trail and end - len(trail) >= start and ids[end - len(trail):] == list(trail):
        end -= len(trail)
    return (start, end) if end > start else (0, len(ids))


def sentence_weights(pooling: str, length: int, content: tuple[int, int]) -> np.ndarray:
    """Weights of one sequence's tokens for one decoder pooling (they sum to 1).

    Args:
        pooling: one of :data:`DECODER_POOLINGS`.
        length: the sequence's real tokens (no padding), at least 1.
        content: (start, end) of the text's tokens (:func:`content_range`).

    Returns:
        (length,) float64 weights.
    """
    if pooling not in DECODER_POOLINGS:
        raise ValueError(f"pooling must be one of {DECODER_POOLINGS}, got {pooling!r}")
    if length < 1:
        raise ValueError(f"length must be at least 1, got {length}")
    start, end = content
    if not 0 <= start < end <= length:
        raise ValueError(f"content must be a (start, end) range with 0 <= start < end <= length={length}, "
                         f"got {content}")
    w = np.zeros(length)
    if pooling == "last":
        w[length - 1] = 1.0
    elif pooling == "mean":
        w[start:end] = 1.0 / (end - start)
    elif pooling == "mexa":  # MEXA's weighted_embeddings: 1-based positions over every real token, BOS included
        rank = np.arange(1, length + 1, dtype=np.float64)
        w[:] = rank / rank.sum()
    else:
        rank = np.arange(1, end - start + 1, dtype=np.float64)
        w[start:end] = rank / rank.sum()
    return w


def decoder_pooling_matrix(batch, lengths, T: int, contents, out, span_tokens=None, word_rows=None,
                           own_tokens=None, left_padded: bool = False):
    """Pooling weights over a decoder batch's B*T token rows.

    Args:
        batch: the B text indices of the batch's rows (into ``contents``, ``span_tokens``...).
        lengths: (B,) real tokens per row.
        T: the padded length.
        contents: per text, its (start, end) content range (:func:`content_range`).
        out: the wanted outputs (any of :data:`DECODER_POOLINGS`, ``"first"``, ``"tokens"``, ``"words"``).
        span_tokens, word_rows, own_tokens: as for :func:`xalign.core.pooling.pooling_matrix`.
        left_padded: the batch's padding is on the left (row r's tokens are its last ``lengths[r]``).

    Returns:
        The (rows, B*T) float32 torch matrix and, per output, (first row, end row, output rows).
    """
    import torch

    B = len(batch)
    mine = [p for p in DECODER_POOLINGS if p in out]
    blocks, slots, n = [], {}, 0
    for p in mine:
        block = np.zeros((B, B * T), np.float32)
        for r, b in enumerate(batch):
            block[r, r * T: r * T + lengths[r]] = sentence_weights(p, int(lengths[r]), contents[b])
        blocks.append(block)
        slots[p] = (n, n + B, batch)
        n += B
    rest = {k: v for k, v in out.items() if k not in mine}
    if rest:
        mat, more = pooling_matrix(batch, lengths, T, rest, span_tokens, word_rows, own_tokens)
        blocks.append(mat.numpy())
        slots.update({k: (lo + n, hi + n, target) for k, (lo, hi, target) in more.items()})
    mat = np.concatenate(blocks) if blocks else np.zeros((0, B * T), np.float32)
    if left_padded:
        mat = shift_to_left_padding(mat, lengths, T)
    return torch.from_numpy(np.ascontiguousarray(mat)), slots


def shift_to_left_padding(mat: np.ndarray, lengths, T: int) -> np.ndarray:
    """Weights built for a right-padded batch, moved to the same tokens of the left-padded batch.

    Args:
        mat: (rows, B*T) weights; row r's tokens at columns ``r*T .. r*T + lengths[r] - 1``.
        lengths: (B,) real tokens per row.
        T: the padded length.

    Returns:
        (rows, B*T) weights with row r's tokens at columns ``r*T + T - lengths[r] .. r*T + T - 1``.
    """
    cube = mat.reshape(mat.shape[0], len(lengths), T).copy()
    for r, length in enumerate(lengths):
        cube[:, r] = np.roll(cube[:, r], T - int(length), axis=1)
    return cube.reshape(mat.shape)
