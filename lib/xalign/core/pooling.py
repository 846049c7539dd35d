"""Pooling of a batch's hidden states as one weights matrix (used by :mod:`xalign.core.encoders`)."""

from __future__ import annotations

import numpy as np


def pooling_matrix(batch, lengths, T, out, span_tokens, word_rows, own_tokens=None):
    """Pooling weights over a batch's B*T token rows: mean, first token, own tokens, then words.

    ``own_tokens`` (token indices per text) are the rows of the ``"tokens"`` pooling.

    Returns the (rows, B*T) float32 matrix and, per output, (first row, end row, output rows).
    """
    import torch

    B = len(batch)
    rows, cols, vals, slots, n = [], [], [], {}, 0
    if "mean" in out:
        r = np.repeat(np.arange(B), lengths)
        rows.append(n + r)
        cols.append(r * T + np.concatenate([np.arange(x) for x in lengths]))
        vals.append(1.0 / lengths[r])
        slots["mean"] = (n, n + B, batch)
        n += B
    if "first" in out:
        rows.append(n + np.arange(B))
        cols.append(np.arange(B) * T)
        vals.append(np.ones(B))
        slots["first"] = (n, n + B, batch)
        n += B
    if "tokens" in out:
        for r, b in enumerate(batch):
            toks = np.asarray(own_tokens[b], dtype=np.int64)
            if len(toks):
                rows.append(np.full(len(toks), n + r))
                cols.append(r * T + toks)
                vals.append(np.full(len(toks), 1.0 / len(toks)))
        slots["tokens"] = (n, n + B, batch)
        n += B
    if "words" in out:
        w_rows, w_cols, w_vals, targets = [], [], [], []
        w = n
        for r, b in enumerate(batch):
            for toks in span_tokens[b]:
                w_rows.append(np.full(len(toks), w))
                w_cols.append(r * T + np.asarray(toks))
                w_vals.append(np.full(len(toks), 1.0 / len(toks)))
                w += 1
            targets.append(np.arange(word_rows[b], word_rows[b + 1]))
        if w > n:
            rows += w_rows
            cols += w_cols
            vals += w_vals
        slots["words"] = (n, w, np.concatenate(targets).astype(np.int64))
        n = w
    mat = np.zeros((n, B * T), np.float32)
    if rows:
        mat[np.concatenate(rows), np.concatenate(cols)] = np.concatenate(vals)
    return torch.from_numpy(mat), slots
