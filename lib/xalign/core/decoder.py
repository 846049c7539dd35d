"""Decoder-only LLMs (Llama, Mistral, Qwen2/3, Gemma, BLOOM, ...) as layer-by-layer encoders.

:func:`xalign.core.loading.load_encoder` returns a :class:`DecoderEncoder` for any causal-LM
checkpoint (:func:`is_decoder_only`). It is an :class:`~xalign.core.encoders.Encoder` (every
layer's hidden states, the cache, word spans by character offsets; the same ``encode`` and
``forward_ids``, through the encoder's hooks) with what decoders need:

- sentence poolings ``"mean"``, ``"weighted"`` (SGPT position weights over the text's tokens),
  ``"mexa"`` (the same weights over every real token, BOS included, as MEXA's extractor) and
  ``"last"`` (the last real token), see :mod:`xalign.core.decoder_pooling`; ``"first"`` (BOS where the
  tokenizer adds one) and ``"tokens"`` as for encoders;
- the tokenizer's padding side honoured (left or right: the same vectors), with the position
  ids counted from each text's first real token, no key-value cache, and padding rows zeroed
  before pooling (a fully masked row may hold NaN);
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

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from xalign.core.decoder_pooling import DECODER_POOLINGS, content_range, decoder_pooling_matrix
from xalign.core.encoders import Encoder

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

    What differs from an encoder's encoding is in the :class:`~xalign.core.encoders.Encoder` hooks overridden
    here: ``sentence_poolings``, ``_counted_texts`` and ``_cut_note``, ``_check_can_mask``, ``padding_side``,
    ``_model_inputs``, ``_pooling_matrix`` and ``_zero_padding``; the pad id is the tokenizer's (one is always set).
    """

    pad_token_set: str | None = None
    mask_stand_in: str | None = None
    template: str | None = None

    sentence_poolings: ClassVar[tuple[str, ...]] = DECODER_SENTENCE_POOLINGS
    _cut_note: ClassVar[str] = ("(a template's tail included) and were cut there, before the tail; texts differing "
                                "only after the cut get the same vector")
    _zero_padding: ClassVar[bool] = True  # a fully masked padding row may hold NaN: zeroed, not only weighted 0

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

    # ---------------------------------------------------------------- Encoder's hooks
    def _counted_texts(self, texts: list[str]) -> list[str]:
        return [t + self._suffix for t in texts]  # the template's tail counts against max_length

    def _check_can_mask(self) -> None:
        if not self.can_mask:
            raise ValueError(f"{self.name}: mask=True needs a mask or unknown token; this tokenizer has neither "
                             f"(check encoder.can_mask first)")

    def _model_inputs(self, attention_mask) -> dict:
        # position ids counted from each text's first real token (left padding: the same vectors as right
        # padding, absolute position tables included); ALiBi models (BLOOM) take none
        extra = {"position_ids": (attention_mask.cumsum(1) - 1).clamp(min=0)} if self._position_ids else {}
        return {"use_cache": False, **extra}

    def _pooling_matrix(self, ids, batch, lengths, T: int, out, span_tokens, word_rows, own_tokens, left_padded: bool):
        contents = {b: content_range(ids[b], self._lead, self._trail) for b in batch}
        return decoder_pooling_matrix(batch, lengths, T, contents, out, span_tokens, word_rows, own_tokens,
                                      left_padded=left_padded)

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
        """:meth:`Encoder.forward_ids <xalign.core.encoders.Encoder.forward_ids>`, padded on the tokenizer's side,
        with the poolings among :data:`DECODER_SENTENCE_POOLINGS` and every sequence at least one token long."""
        bad = [p for p in poolings if p not in DECODER_SENTENCE_POOLINGS]
        if bad:
            raise ValueError(f"pooling must be one of {DECODER_SENTENCE_POOLINGS}, got {bad}")
        empty = [i for i, x in enumerate(ids) if len(x) == 0]
        if empty:
            raise ValueError(f"ids: sequences {empty[:5]} are empty; each needs at least one token")
        return super().forward_ids(ids, poolings, layers, span_tokens, layer_mean, own_tokens)
