"""Decoder-only LLMs (Llama, Mistral, Qwen2/3, Gemma, BLOOM, ...) as layer-by-layer encoders.

:func:`xalign.core.loading.load_encoder` returns a :class:`DecoderEncoder` for any causal-LM
checkpoint (:func:`is_decoder_only`). It is an :class:`~xalign.core.encoders.Encoder` (every
layer's hidden states, the cache, word spans by character offsets) with what decoders need:

- sentence poolings ``"mean"``, ``"weighted"`` (SGPT position weights over the text's tokens),
  ``"mexa"`` (the same weights over every real token, BOS included, as MEXA's extractor) and
  ``"last"`` (the last real token), see :mod:`xalign.core.decoder_pooling`; ``"first"`` (BOS where the
  tokenizer adds one) and ``"tokens"`` as for encoders;
- the tokenizer's padding side honoured (left or right: the same vectors), with the position
  ids counted from each text's first real token;
- a pad token where the tokenizer has none (Llama, Mistral: its EOS), recorded;
- half precision (``load_encoder(half=True)``, the GPU default) as bfloat16 where the device has it:
  LLM activations overflow float16;
- the masked-word experiment replaces a word by the tokenizer's mask token, or its unknown token
  where it has no mask token (Llama); a tokenizer with neither cannot mask (:attr:`can_mask`);
- a prompt: the encoder's ``prefix`` (none by default), or a ``template`` with the text in the
  middle (``'This sentence: "{text}" means in one word: "'``, PromptEOL's, for last-token pooling);
  either is recorded in the cache key, the card's receipts and :meth:`describe`. A text too long
  for ``max_length`` loses the end of the text, never the template's tail; the tail's tokens are
  pooled by ``"mean"``/``"weighted"`` (they are input) but are not the text's own (``"tokens"``,
  words).

Word spans need no special care: a leading-space token (``Ġword``, ``▁word``) overlaps its
word's characters and only the space before it, which belongs to no word.
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xalign.core.decoder_pooling import DECODER_POOLINGS, content_range, decoder_pooling_matrix
from xalign.core.encoders import Encoder, Span, _check_spans
from xalign.core.out_of_memory import named_out_of_memory
from xalign.core.precision import resolve_autocast
from xalign.core.text_checks import count_truncated, count_unknown_only, is_blank

#: the sentence poolings a decoder gives
DECODER_SENTENCE_POOLINGS = (*DECODER_POOLINGS, "first", "tokens")
#: the version of the decoder pooling rules, in every cache key (change it when they change)
POOLING_RULES = "decoder-1"


def is_decoder_only(config) -> bool:
    """True for a causal-LM checkpoint: a model type with a causal-LM head and no masked-LM one, not encoder-decoder.

    BERT and XLM-R also have causal-LM heads in transformers, but they are masked-LM models first
    (and stay :class:`~xalign.core.encoders.Encoder`).

    Args:
        config: a transformers ``PretrainedConfig``.

    Returns:
        Whether the model is decoder-only.
    """
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    kind = getattr(config, "model_type", "")
    return (kind in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and kind not in MODEL_FOR_MASKED_LM_MAPPING_NAMES
            and not getattr(config, "is_encoder_decoder", False))


def added_tokens(tokenizer) -> tuple[list[int], list[int]]:
    """The ids a tokenizer adds before and after every text (e.g. ``([bos], [])`` for Llama, ``([], [])`` for Qwen2)."""
    probe = "a b"
    bare = tokenizer(probe, add_special_tokens=False)["input_ids"]
    full = tokenizer(probe, add_special_tokens=True)["input_ids"]
    for i in range(len(full) - len(bare) + 1):
        if full[i: i + len(bare)] == bare:
            return list(full[:i]), list(full[i + len(bare):])
    raise ValueError(f"{type(tokenizer).__name__}: cannot tell the tokens it adds around a text "
                     f"({bare} without them, {full} with them)")


def ensure_pad_token(tokenizer) -> str | None:
    """Give a tokenizer without a pad token one (its EOS, else BOS, else unknown token).

    Padding is masked out, so the choice changes no vector.

    Returns:
        The token set, or None when the tokenizer had a pad token.

    Raises:
        ValueError: the tokenizer has none of pad, EOS, BOS and unknown tokens.
    """
    if tokenizer.pad_token_id is not None:
        return None
    for token in (tokenizer.eos_token, tokenizer.bos_token, tokenizer.unk_token):
        if token is not None:
            tokenizer.pad_token = token
            return token
    raise ValueError(f"{type(tokenizer).__name__}: no pad, EOS, BOS or unknown token to pad batches with")


@dataclass
class DecoderEncoder(Encoder):
    """A decoder-only LLM with per-layer poolings for causal attention (see the module docstring).

    Attributes, besides :class:`~xalign.core.encoders.Encoder`'s: ``pad_token_set`` (the pad token
    this encoder gave a tokenizer that had none, else None), ``mask_stand_in`` (the unknown
    token used to mask words when the tokenizer has no mask token, else None) and ``template`` (a
    prompt with one ``{text}``; its head becomes ``prefix``, the rest follows every text; None: no
    template).
    """

    pad_token_set: str | None = None
    mask_stand_in: str | None = None
    template: str | None = None

    def __post_init__(self):
        self._suffix = ""
        if self.template is not None:
            if not isinstance(self.template, str) or self.template.count("{text}") != 1:
                raise ValueError(f"template must be a string with exactly one '{{text}}', got {self.template!r}")
            head, self._suffix = self.template.split("{text}")
            if self.prefix not in ("", head):
                raise ValueError(f"give a prefix or a template, not both (prefix {self.prefix!r}, template "
                                 f"{self.template!r}): the template's text before '{{text}}' is the prefix")
            self.prefix = head
        self.pad_token_set = ensure_pad_token(self.tokenizer) or self.pad_token_set  # kept through replace()
        if self.tokenizer.mask_token_id is None:
            self.mask_stand_in = self.tokenizer.unk_token  # None too: then this encoder cannot mask
            if self.mask_stand_in is not None:
                self.tokenizer.mask_token = self.mask_stand_in  # what Encoder._forward masks with
        elif self.tokenizer.mask_token != self.mask_stand_in:
            self.mask_stand_in = None  # the tokenizer's own mask token
        self._lead, self._trail = added_tokens(self.tokenizer)
        self._fp16_to_bf16()
        params = inspect.signature(self.model.forward).parameters
        self._position_ids = "position_ids" in params

    def _fp16_to_bf16(self) -> None:
        """Half-precision weights as bfloat16 where the device computes it natively: LLMs' activations overflow
        float16's range (Gemma's in particular), not bfloat16's. The dtype is in every cache key."""
        import torch

        from xalign.core.precision import native_bf16

        if getattr(self.model, "dtype", None) == torch.float16 and native_bf16(self.device):
            self.model = self.model.to(torch.bfloat16)

    @property
    def n_layers(self) -> int:
        """Hidden-state layers, the embedding layer (0) included."""
        return self.model.config.get_text_config().num_hidden_layers + 1

    @property
    def dim(self) -> int:
        """Width of each vector (the model's hidden size)."""
        return self.model.config.get_text_config().hidden_size

    @property
    def can_mask(self) -> bool:
        """Whether words can be masked (the tokenizer has a mask token, or an unknown token standing in)."""
        return self.tokenizer.mask_token_id is not None

    @property
    def padding_side(self) -> str:
        """``"left"`` or ``"right"``: the tokenizer's padding side, which batches follow."""
        side = getattr(self.tokenizer, "padding_side", "right")
        if side not in ("left", "right"):
            raise ValueError(f"{self.name}: tokenizer.padding_side must be 'left' or 'right', got {side!r}")
        return side

    def settings(self) -> dict:
        """What decides this encoder's vectors besides the weights: family, prompt, poolings, padding, masking."""
        return {"architecture": "decoder-only", "model_type": self.model.config.model_type,
                "prefix": self.prefix, "template": self.template, "pooling_rules": POOLING_RULES,
                "poolings": {"mean": "mean of the text's tokens (prefix in, tokens the tokenizer adds out)",
                             "weighted": "position-weighted mean of the same tokens (SGPT)",
                             "mexa": "position-weighted mean of every real token, BOS included (MEXA's extractor)",
                             "last": "the last real token"},
                "added_tokens": {"before": self.tokenizer.convert_ids_to_tokens(self._lead),
                                 "after": self.tokenizer.convert_ids_to_tokens(self._trail)},
                "weights": str(self.model.dtype).removeprefix("torch."), "pad_token": self.tokenizer.pad_token, "pad_token_set": self.pad_token_set,
                "padding_side": self.padding_side,
                "mask_token": self.tokenizer.mask_token, "mask_stand_in": self.mask_stand_in}

    @property
    def mean_pooling_receipt(self) -> str:
        """How the ``"mean"`` sentence vector is made, in words (the card's receipts)."""
        added = self.tokenizer.convert_ids_to_tokens(self._lead + self._trail)
        left_out = f"the tokens the tokenizer adds ({', '.join(added)}) and padding" if added else "padding"
        return f"mean over the text's tokens, prefix tokens included; {left_out} left out (decoder-only model)"

    @property
    def mexa_pooling_receipt(self) -> str:
        """How the ``"mexa"`` sentence vector is made, in words (the card's MEXA receipt)."""
        added = self.tokenizer.convert_ids_to_tokens(self._lead + self._trail)
        kept = f", the tokens the tokenizer adds ({', '.join(added)}) included" if added else ""
        return (f"position-weighted mean over every real token (weight = 1-based position){kept}; padding left "
                "out, as MEXA's extractor pools (decoder-only model)")

    def describe(self) -> str:
        """One line naming the model and every setting that decides its vectors (for pages and notes)."""
        s = self.settings()
        pad = f"pad {s['pad_token']!r}" + (" (set: the tokenizer had none)" if s["pad_token_set"] else "")
        mask = (f"words masked with {s['mask_token']!r}" + (" (its unknown token: it has no mask token)"
                                                            if s["mask_stand_in"] else "")
                if s["mask_token"] else "no mask token")
        prompt = f"template {self.template!r}" if self.template is not None else f"prefix {self.prefix!r}"
        added = " ".join(s["added_tokens"]["before"] + s["added_tokens"]["after"]) or "added tokens"
        return (f"{self.name} ({s['model_type']} decoder, {self.n_layers - 1} layers + embeddings, width {self.dim}); "
                f"{prompt}; mean and position-weighted mean over the text's tokens without {added}, last = last "
                f"real token; {pad}, padded on the {s['padding_side']}; {mask}")

    # ---------------------------------------------------------------- internals
    def _key(self, kind: str, layers: list[int], texts_digest: str) -> dict:
        key = super()._key(kind, layers, texts_digest)
        key["pooling_rules"] = POOLING_RULES
        if self.template is not None:
            key["template"] = self.template
        if kind.startswith("masked-"):
            key["mask_token"] = self.tokenizer.mask_token
        return key

    def encode(self, texts: Sequence[str], spans: Sequence[Sequence[Span]] | None = None,
               poolings: Sequence[str] = ("mean",), layers=None, mask: bool = False,
               desc: str | None = None, layer_mean: bool = False) -> dict[str, np.ndarray]:
        """Run the model once per chunk and return every requested representation.

        :meth:`Encoder.encode <xalign.core.encoders.Encoder.encode>`'s steps, with the decoder's poolings
        accepted and a template's tail counted in truncation. (The steps are repeated here rather than
        the encoder's pooling check made overridable: the ``Encoder`` class is part of memo keys, and
        an edit of it would re-key every encoder's memoised values.)

        Args:
            texts: the n_texts sentences (cached per chunk of ``chunk_size`` texts).
            spans: per text, (start, end) character spans of words (adds ``"words"``).
            poolings: sentence poolings among :data:`DECODER_SENTENCE_POOLINGS`.
            layers: any :func:`xalign.core.layers.parse_layers` spec (None: all n_layers).
            mask: replace each span by one mask token (or the unknown token standing in for it).
            desc: progress bar label.
            layer_mean: average the selected layers before pooling and caching (L = 1).

        Returns:
            pooling -> (n_texts, L, dim) float32 per sentence pooling and, with ``spans``,
            ``"words"``: (n_spans_total, L, dim).

        Raises:
            ValueError: an unknown pooling, bad spans, or ``mask=True`` for a tokenizer with neither a mask
                nor an unknown token.
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
        cut = count_truncated(self.tokenizer, [t + self._suffix for t in texts], self.prefix, self.max_length)
        if cut:
            self.n_truncated_texts += cut
            warnings.warn(f"{self.name}: {cut} of {len(texts)} texts are longer than max_length={self.max_length} "
                          "tokens (a template's tail included) and were cut there, before the tail; texts differing "
                          "only after the cut get the same vector (counted in encoder.n_truncated_texts)",
                          RuntimeWarning, stacklevel=2)
        if spans is not None:
            spans = [list(s) for s in spans]
            if len(spans) != len(texts):
                raise ValueError(f"{len(spans)} span lists for {len(texts)} texts")
            _check_spans(texts, spans)
            if cut:
                self._check_spans_within_limit(texts, spans)
        if mask and spans is None:
            raise ValueError("mask=True needs spans to mask")
        if mask and not self.can_mask:
            raise ValueError(f"{self.name}: mask=True needs a mask or unknown token; this tokenizer has neither "
                             f"(check encoder.can_mask first)")
        layers = self._layers(layers)
        poolings = tuple(poolings)
        for p in poolings:
            if p not in DECODER_SENTENCE_POOLINGS:
                raise ValueError(f"pooling must be one of {DECODER_SENTENCE_POOLINGS}, got {p!r}")
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

    def encode_sentences(self, texts: Sequence[str], pooling: str = "mean", layers=None) -> np.ndarray:
        """Sentence vectors of one pooling among :data:`DECODER_SENTENCE_POOLINGS`: (n_texts, n_layers_selected, dim)."""
        if pooling not in DECODER_SENTENCE_POOLINGS:
            raise ValueError(f"pooling must be one of {DECODER_SENTENCE_POOLINGS}, got {pooling!r}")
        return self.encode(texts, poolings=(pooling,), layers=layers)[pooling]

    def _tokenize(self, texts: list[str]):
        if self._suffix:
            ids, offsets = self._tokenize_template(texts)
        else:
            ids, offsets = super()._tokenize(texts)
        stand_in = self.tokenizer.eos_token_id if self.tokenizer.eos_token_id is not None else self.tokenizer.pad_token_id
        for i, seq in enumerate(ids):
            if not seq:  # a blank text and a tokenizer that adds nothing (Qwen2): one EOS stands for it
                ids[i], offsets[i] = [stand_in], [(0, 0)]
        return ids, offsets

    def _tokenize_template(self, texts: list[str]):
        """Token ids and offsets of ``prefix + text + suffix``; the tail's tokens get empty offsets (not the
        text's own) and a sequence over ``max_length`` loses tokens from the end of the text, not the tail."""
        full = [self.prefix + t + self._suffix for t in texts]
        enc = self.tokenizer(full, add_special_tokens=True, truncation=False, return_offsets_mapping=True,
                             verbose=False)
        ids, offsets = [], []
        for text, seq, offs in zip(texts, enc["input_ids"], enc["offset_mapping"]):
            end = len(self.prefix) + len(text)
            tail = sum(1 for a, b in offs if b > a >= end) + len(self._trail)  # the template's tail, EOS
            offs = [(a, b) if not (b > a >= end) else (end, end) for a, b in offs]
            if len(seq) > self.max_length:
                keep = self.max_length - tail
                head = len(self._lead) + sum(1 for a, b in offs if b > a and b <= len(self.prefix))
                if keep <= head:
                    raise ValueError(f"{self.name}: the template takes {head + tail} tokens, max_length is "
                                     f"{self.max_length}: nothing of the text would be left")
                seq, offs = seq[:keep] + seq[len(seq) - tail:], offs[:keep] + offs[len(offs) - tail:]
            ids.append(list(seq))
            offsets.append(list(offs))
        return ids, offsets

    def forward_ids(self, ids: Sequence[Sequence[int]], poolings: Sequence[str], layers: list[int],
                    span_tokens: list[list[list[int]]] | None = None,
                    layer_mean: bool = False, own_tokens: list[list[int]] | None = None) -> dict[str, np.ndarray]:
        """The model on ready token ids (no cache), padded on the tokenizer's side.

        Args:
            ids: per text, its token ids (the tokens the tokenizer adds and a prefix included).
            poolings: among :data:`DECODER_SENTENCE_POOLINGS`.
            layers: layer indices, 0 to n_layers - 1.
            span_tokens: per text, per word, its token indices (adds ``"words"``).
            layer_mean: average the layers first (L = 1).
            own_tokens: per text, the indices of its own tokens (for ``"tokens"``).

        Returns:
            pooling -> (n, L, dim) float32, and ``"words"``: (n_words_total, L, dim).
        """
        import torch

        bad = [p for p in poolings if p not in DECODER_SENTENCE_POOLINGS]
        if bad:
            raise ValueError(f"pooling must be one of {DECODER_SENTENCE_POOLINGS}, got {bad}")
        empty = [i for i, x in enumerate(ids) if len(x) == 0]
        if empty:
            raise ValueError(f"ids: sequences {empty[:5]} are empty; each needs at least one token")
        want_words = span_tokens is not None
        order = np.argsort([len(x) for x in ids], kind="stable")[::-1]
        n_out = 1 if layer_mean else len(layers)
        out = {p: np.zeros((len(ids), n_out, self.dim), np.float32) for p in poolings}
        word_rows = np.cumsum([0] + [len(s) for s in span_tokens]) if want_words else None
        if want_words:
            out["words"] = np.zeros((int(word_rows[-1]), n_out, self.dim), np.float32)
        contents = [content_range(x, self._lead, self._trail) for x in ids]
        left = self.padding_side == "left"
        pad_id = self.tokenizer.pad_token_id
        dtype = resolve_autocast(self.autocast, self.device)
        device_kind = self.device.split(":")[0]
        autocast = torch.autocast(device_kind, dtype=getattr(torch, dtype)) if dtype else contextlib.nullcontext()
        pos = 0
        with torch.no_grad(), autocast, named_out_of_memory(self.name, self.batch_tokens):
            while pos < len(order):
                size = max(1, self.batch_tokens // max(len(ids[order[pos]]), 1))
                batch = order[pos: pos + size]
                pos += size
                lengths = np.array([len(ids[b]) for b in batch])
                T = int(lengths.max())
                flat = np.full((len(batch), T), pad_id, dtype=np.int64)
                real = np.zeros((len(batch), T), dtype=bool)
                for r, b in enumerate(batch):
                    cols = slice(T - lengths[r], T) if left else slice(0, lengths[r])
                    flat[r, cols], real[r, cols] = ids[b], True
                attn = torch.from_numpy(real.astype(np.int64)).to(self.device)
                extra = {"position_ids": (attn.cumsum(1) - 1).clamp(min=0)} if self._position_ids else {}
                res = self.model(input_ids=torch.from_numpy(flat).to(self.device), attention_mask=attn,
                                 output_hidden_states=True, use_cache=False, **extra)
                pool, slots = decoder_pooling_matrix(batch, lengths, T, contents, out, span_tokens, word_rows,
                                                     own_tokens, left_padded=left)
                pool = pool.to(self.device)
                keep = torch.from_numpy(real.reshape(-1, 1)).to(self.device)
                with torch.autocast(device_kind, enabled=False):
                    # padding rows are zeroed, not only weighted 0: a fully masked row may hold NaN
                    pooled = torch.stack([pool @ torch.where(keep, res.hidden_states[li].reshape(-1, self.dim).float(),
                                                             0.0) for li in layers], 1)  # (rows, L, H)
                if layer_mean:
                    pooled = pooled.mean(1, keepdim=True)
                pooled = pooled.cpu().numpy()
                for name, (lo, hi, target) in slots.items():
                    out[name][target] = pooled[lo:hi]
        return out
