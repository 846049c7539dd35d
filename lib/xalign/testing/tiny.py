"""Tiny random models of the papers' families, built offline, to prove the hub code paths without a network.

Readers with a network pass mBERT (WordPiece, cased), XLM-R (SentencePiece unigram), mBART
(encoder-decoder) and LaBSE (sentence-transformers: BERT + Pooling + Dense + Normalize).
:func:`build_tiny_model` trains a small tokenizer of the right kind with ``tokenizers`` on a few
hundred sentences, builds a randomly initialised model of that family with 2 layers of width 32 and the families' real position tables (512 tokens),
and saves config, weights and tokenizer to a directory that ``load_encoder`` (or
sentence-transformers) opens like a hub checkpoint. Numbers from such models mean nothing; the
point is that every chapter runs through the same code paths (offsets, special tokens, the
encoder of an encoder-decoder, sentence-transformers modules).

Decoder-only LLMs (Llama, Qwen2, Gemma: :data:`DECODER_FAMILIES`) are built by the same function
(:mod:`xalign.testing.tiny_decoders`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xalign.testing.tiny_decoders import DECODER_FAMILIES, build_tiny_decoder

FAMILIES = ("mbert", "xlmr", "mbart", "labse")  # the papers' encoder families


def _train_tokenizer(family: str, sentences: Sequence[str], vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    if family in ("mbert", "labse"):
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=special,
                                            continuing_subword_prefix="##")
        tok.train_from_iterator(sentences, trainer)
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
        tok.decoder = decoders.WordPiece()
        return tok
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=special, unk_token="<unk>")
    tok.train_from_iterator(sentences, trainer)
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    if family == "mbart":  # mBART: tokens then </s> (language codes omitted in the tiny model)
        tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                           special_tokens=[("</s>", eos)])
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)])
    tok.decoder = decoders.Metaspace()
    return tok


def build_tiny_model(family: str, out_dir: str | Path, sentences: Sequence[str], vocab_size: int = 4000,
                     seed: int = 0) -> Path:
    """Write a tiny random model of ``family`` into ``out_dir``.

    Args:
        family: an encoder family (:data:`FAMILIES`) or a decoder-only one (:data:`DECODER_FAMILIES`).
        out_dir: the folder to save config, weights and tokenizer in (created).
        sentences: at least 50 tokenizer training sentences.
        vocab_size: the tokenizer's vocabulary size.
        seed: torch seed of the random weights.

    Returns:
        ``out_dir``, loadable by :func:`xalign.core.loading.load_encoder`.
    """
    import torch
    from transformers import PreTrainedTokenizerFast

    if family not in FAMILIES + DECODER_FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES + DECODER_FAMILIES}, got {family!r}")
    if len(sentences) < 50:
        raise ValueError(f"need at least 50 sentences to train a tokenizer, got {len(sentences)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if family in DECODER_FAMILIES:
        return build_tiny_decoder(family, out, sentences, vocab_size, seed)
    torch.manual_seed(seed)
    tok = _train_tokenizer(family, sentences, vocab_size)
    if family in ("mbert", "labse"):
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                       cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
                                       model_max_length=512)
    else:
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                       pad_token="<pad>", mask_token="<mask>", cls_token="<s>", sep_token="</s>",
                                       model_max_length=512)
    size = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    if family in ("mbert", "labse"):
        from transformers import BertConfig, BertModel

        model = BertModel(BertConfig(vocab_size=len(fast), max_position_embeddings=512,
                                     pad_token_id=fast.pad_token_id, **size), add_pooling_layer=False)
    elif family == "xlmr":
        from transformers import XLMRobertaConfig, XLMRobertaModel

        model = XLMRobertaModel(XLMRobertaConfig(vocab_size=len(fast), max_position_embeddings=514,
                                                 pad_token_id=fast.pad_token_id, bos_token_id=fast.bos_token_id,
                                                 eos_token_id=fast.eos_token_id, **size), add_pooling_layer=False)
    else:
        from transformers import MBartConfig, MBartModel

        model = MBartModel(MBartConfig(vocab_size=len(fast), d_model=32, encoder_layers=2, decoder_layers=1,
                                       encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                                       decoder_ffn_dim=64, max_position_embeddings=1024,
                                       pad_token_id=fast.pad_token_id, bos_token_id=fast.bos_token_id,
                                       eos_token_id=fast.eos_token_id))
    model.eval()
    if family == "labse":
        from sentence_transformers import SentenceTransformer

        from xalign.core.st_encoder import st_modules

        st_models = st_modules()

        hf_dir = out / "0_Transformer"
        model.save_pretrained(hf_dir)
        fast.save_pretrained(hf_dir)
        from xalign.core.pretrained import st_transformer_kwargs

        word = st_models.Transformer(str(hf_dir), max_seq_length=512, **st_transformer_kwargs())
        pool = st_models.Pooling(32, pooling_mode="cls")
        dense = st_models.Dense(32, 24, activation_function=torch.nn.Tanh())
        st = SentenceTransformer(modules=[word, pool, dense, st_models.Normalize()], device="cpu")
        st.save(str(out))
        return out
    model.save_pretrained(out)
    fast.save_pretrained(out)
    return out
