"""Tiny random decoder-only LLMs of three families, built offline (see :mod:`xalign.testing.tiny`).

Each family gets the kind of vocabulary its real checkpoints have, so the code paths the hub
models take (offsets, leading-space tokens, BOS, a missing pad token) are the ones tested:

- ``"llama"``: SentencePiece-style BPE with byte fallback and a ``▁`` word-start marker
  (Llama 2, Mistral); the tokenizer adds ``<s>`` (BOS) and has **no pad token**, as Llama's.
- ``"qwen2"``: byte-level BPE with GPT-style ``Ġ`` word starts whose offsets keep the leading
  space (Qwen2/Qwen2.5, Llama 3); no BOS, pad ``<|endoftext|>``.
- ``"gemma"``: SentencePiece-style BPE without a dummy word-start prefix; the tokenizer adds
  ``<bos>``, has ``<pad>`` and ``<mask>``, as Gemma's; the model is Gemma 2 (soft-capping,
  sliding windows, scaled embeddings).

Models are the ``*ForCausalLM`` classes (the checkpoints' ``architectures`` name them as the
hub's do), 2 layers of width 32, 512 positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

DECODER_FAMILIES = ("llama", "qwen2", "gemma")

# GPT-4 / Qwen2 pre-tokenization: contractions, letters, single digits, punctuation, spaces
_QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def _special_tokens(family: str) -> dict[str, str]:
    """The family's special tokens as ``PreTrainedTokenizerFast`` keyword arguments."""
    if family == "llama":
        return {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
    if family == "qwen2":
        return {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
                "additional_special_tokens": ["<|im_start|>", "<|im_end|>"]}
    return {"bos_token": "<bos>", "eos_token": "<eos>", "unk_token": "<unk>", "pad_token": "<pad>",
            "mask_token": "<mask>"}


def train_decoder_tokenizer(family: str, sentences: Sequence[str], vocab_size: int):
    """A ``tokenizers.Tokenizer`` of the family's kind, trained on ``sentences``.

    Args:
        family: one of :data:`DECODER_FAMILIES`.
        sentences: training text.
        vocab_size: the BPE vocabulary size (special tokens and the 256 byte pieces included).

    Returns:
        The trained tokenizer, with the family's post-processor (BOS or nothing) and decoder.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    specials = _special_tokens(family)
    names = list(dict.fromkeys([specials[k] for k in ("unk_token", "bos_token", "eos_token", "pad_token",
                                                      "mask_token") if k in specials]
                               + specials.get("additional_special_tokens", [])))
    if family == "qwen2":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(_QWEN2_SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=names,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tok.train_from_iterator(sentences, trainer)
        tok.post_processor = processors.ByteLevel(trim_offsets=False)  # "Ġword" offsets keep the space, as Qwen2's
        tok.decoder = decoders.ByteLevel()
        return tok
    # SentencePiece-style BPE: "▁" marks a word start; byte fallback for unseen characters
    byte_pieces = [f"<0x{b:02X}>" for b in range(256)]
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    scheme = "first" if family == "llama" else "never"  # Llama prepends "▁" to the text, Gemma does not
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=scheme)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=names + byte_pieces)
    tok.train_from_iterator(sentences, trainer)
    bos = specials["bos_token"]
    tok.post_processor = processors.TemplateProcessing(single=f"{bos} $A", pair=f"{bos} $A {bos} $B",
                                                       special_tokens=[(bos, tok.token_to_id(bos))])
    tok.decoder = decoders.Sequence([decoders.Metaspace(replacement="▁", prepend_scheme=scheme),
                                     decoders.ByteFallback(), decoders.Fuse()])
    return tok


def decoder_model(family: str, tokenizer, seed: int = 0):
    """A randomly initialised ``*ForCausalLM`` of ``family``: 2 layers, width 32, 512 positions.

    Args:
        family: one of :data:`DECODER_FAMILIES`.
        tokenizer: the ``PreTrainedTokenizerFast`` (vocabulary size and special token ids).
        seed: torch seed of the random weights.

    Returns:
        The model, in eval mode.
    """
    import torch

    torch.manual_seed(seed)
    ids = {"vocab_size": len(tokenizer), "bos_token_id": tokenizer.bos_token_id,
           "eos_token_id": tokenizer.eos_token_id, "pad_token_id": tokenizer.pad_token_id}
    size = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                intermediate_size=64, max_position_embeddings=512)
    if family == "llama":
        from transformers import LlamaConfig, LlamaForCausalLM

        model = LlamaForCausalLM(LlamaConfig(**size, **ids))
    elif family == "qwen2":
        from transformers import Qwen2Config, Qwen2ForCausalLM

        model = Qwen2ForCausalLM(Qwen2Config(**size, **ids, tie_word_embeddings=True))
    else:
        from transformers import Gemma2Config, Gemma2ForCausalLM

        model = Gemma2ForCausalLM(Gemma2Config(**size, **ids, head_dim=16, sliding_window=8,
                                               attn_implementation="eager"))
    return model.eval()


def build_tiny_decoder(family: str, out: Path, sentences: Sequence[str], vocab_size: int, seed: int) -> Path:
    """Write a tiny random decoder-only model of ``family`` (tokenizer, config, weights) into ``out``."""
    from transformers import PreTrainedTokenizerFast

    tok = train_decoder_tokenizer(family, sentences, vocab_size)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, model_max_length=512, **_special_tokens(family))
    model = decoder_model(family, fast, seed)
    model.save_pretrained(out)
    fast.save_pretrained(out)
    return out
