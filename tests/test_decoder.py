"""Decoder-only LLMs as layer-by-layer encoders: poolings on known answers, padding on either side,
word spans through leading-space tokens, pad and mask tokens, and unchanged encoder cache keys.

Tiny Llama, Qwen2 and Gemma models are built once for the module from a few synthetic sentences
(no data mirror needed)."""
import re
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from xalign.core.cache import EmbeddingCache
from xalign.core.decoder import DecoderEncoder, is_decoder_only
from xalign.core.decoder_pooling import (
    content_range,
    decoder_pooling_matrix,
    sentence_weights,
    shift_to_left_padding,
)
from xalign.core.encoders import Encoder
from xalign.testing.tiny import build_tiny_model
from xalign.testing.tiny_decoders import DECODER_FAMILIES

SUBJECTS = ["The cat", "A dog", "Das Haus", "Der Garten", "这是房子", "Un gato", "The old man", "Die Katze"]
VERBS = ["sat on the mat", "is very big", "ist sehr schön", "läuft schnell", "很大", "come pescado", "reads a book"]
SENTENCES = [f"{s} {v}." for s in SUBJECTS for v in VERBS]  # 56 sentences
TEXTS = ["The cat sat on the mat.", "Das ist ein Haus.", "这是房子。", "A dog"]


# ------------------------------------------------------------------ poolings: known answers
def test_sentence_weights_known_answers():
    np.testing.assert_allclose(sentence_weights("mean", 5, (1, 5)), [0, 0.25, 0.25, 0.25, 0.25])
    np.testing.assert_allclose(sentence_weights("weighted", 5, (1, 5)), [0, 0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(sentence_weights("weighted", 3, (0, 3)), [1 / 6, 2 / 6, 3 / 6])
    np.testing.assert_allclose(sentence_weights("last", 4, (1, 3)), [0, 0, 0, 1])  # the last token, whatever it is
    np.testing.assert_allclose(sentence_weights("mean", 4, (1, 3)), [0, 0.5, 0.5, 0])


def test_content_range_drops_only_the_added_tokens():
    assert content_range([1, 5, 6, 7], [1], []) == (1, 4)  # BOS out
    assert content_range([5, 6, 2], [], [2]) == (0, 2)  # an appended EOS out
    assert content_range([1, 5, 1], [1], []) == (1, 3)  # a BOS id inside the text stays
    assert content_range([5, 6], [1], [2]) == (0, 2)  # nothing added: nothing dropped
    assert content_range([1], [1], []) == (0, 1)  # a blank text: its BOS is all there is


def test_pooling_weights_reject_bad_arguments():
    with pytest.raises(ValueError, match="pooling must be one of"):
        sentence_weights("max", 3, (0, 3))
    with pytest.raises(ValueError, match=r"content must be .*length=3"):
        sentence_weights("mean", 3, (1, 4))
    with pytest.raises(ValueError, match="length must be at least 1"):
        sentence_weights("mean", 0, (0, 0))


def test_pooling_matrix_on_a_hand_computed_batch():
    # two texts: 3 tokens (BOS + 2) and 2 tokens (BOS + 1), hidden size 2, padded to T = 3 on the right
    hidden = torch.tensor([[[100.0, 100.0], [1.0, 2.0], [3.0, 6.0]],
                           [[100.0, 100.0], [5.0, 7.0], [0.0, 0.0]]])
    lengths, contents = np.array([3, 2]), [(1, 3), (1, 2)]
    out = dict.fromkeys(("mean", "weighted", "last", "first"))
    mat, slots = decoder_pooling_matrix([0, 1], lengths, 3, contents, out)
    pooled = mat @ hidden.reshape(-1, 2)
    got = {k: pooled[lo:hi].numpy() for k, (lo, hi, _) in slots.items()}
    np.testing.assert_allclose(got["mean"], [[2.0, 4.0], [5.0, 7.0]])
    np.testing.assert_allclose(got["weighted"], [[(1 + 2 * 3) / 3, (2 + 2 * 6) / 3], [5.0, 7.0]])
    np.testing.assert_allclose(got["last"], [[3.0, 6.0], [5.0, 7.0]])
    np.testing.assert_allclose(got["first"], [[100.0, 100.0], [100.0, 100.0]])
    # the same batch padded on the left: the second text's tokens move one place right
    left = torch.tensor([[[100.0, 100.0], [1.0, 2.0], [3.0, 6.0]],
                         [[0.0, 0.0], [100.0, 100.0], [5.0, 7.0]]])
    mat_l, _ = decoder_pooling_matrix([0, 1], lengths, 3, contents, out, left_padded=True)
    np.testing.assert_allclose((mat_l @ left.reshape(-1, 2)).numpy(), pooled.numpy())


def test_shift_to_left_padding_moves_each_row_by_its_padding():
    mat = np.array([[1, 2, 0, 0, 3, 4, 5, 0]], np.float32)  # B = 2, T = 4: lengths 2 and 3
    np.testing.assert_array_equal(shift_to_left_padding(mat, [2, 3], 4), [[0, 0, 1, 2, 0, 3, 4, 5]])


def test_is_decoder_only_separates_causal_lms_from_encoders():
    from transformers import BertConfig, BloomConfig, LlamaConfig, MBartConfig, Qwen2Config, XLMRobertaConfig

    assert is_decoder_only(LlamaConfig()) and is_decoder_only(Qwen2Config()) and is_decoder_only(BloomConfig())
    assert not any(is_decoder_only(c) for c in (BertConfig(), XLMRobertaConfig(), MBartConfig()))


# ------------------------------------------------------------------ unchanged encoder keys
def test_encoder_cache_keys_are_unchanged():
    """The keys (and so the cache files) of the encoder families are the ones written before decoders came."""
    model = SimpleNamespace(config=SimpleNamespace(num_hidden_layers=2, hidden_size=4), dtype=torch.float32)
    enc = Encoder(name="tiny/xlmr", model=model, tokenizer=None, revision="local:abc123", prefix="passage: ",
                  cache=EmbeddingCache(enabled=False))
    keys = enc._chunk_keys(["a b", "c"], [[(0, 1)], [(0, 1)]], ("mean", "first", "tokens"), [0, 1, 2], False, False)
    assert keys["mean"] == {"inputs": "40921ad96938228180bfca0690874e8b8a066132b855665e1dcd2122a23d303b",
                            "layers": [0, 1, 2], "max_length": 512, "model": "tiny/xlmr", "pooling": "mean",
                            "precision": "torch.float32", "prefix": "passage: ", "revision": "local:abc123"}
    files = {k: EmbeddingCache(root="/nonexistent", enabled=False).path(v).name[:16] for k, v in keys.items()}
    assert files == {"mean": "bab79f6dce9405d0", "first": "8ac7dc522bd3709f", "tokens": "89e90daf89c8c9a4",
                     "words": "0c7e99f4d52e9c81"}
    keys = enc._chunk_keys(["a b"], [[(0, 1)]], ("mean",), [2], True, True)
    files = {k: EmbeddingCache(root="/nonexistent", enabled=False).path(v).name[:16] for k, v in keys.items()}
    assert files == {"mean": "e18c7537a11a2e12", "words": "57453f737a2d5017"}


# ------------------------------------------------------------------ tiny decoders
@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    from xalign.core.loading import load_encoder

    root = tmp_path_factory.mktemp("decoders")
    out = {}
    for family in DECODER_FAMILIES:
        path = build_tiny_model(family, root / family, SENTENCES, vocab_size=400)
        out[family] = load_encoder(str(path), progress=False, device="cpu", cache=EmbeddingCache(enabled=False))
    return out


def test_tiny_decoders_load_as_decoders(decoders):
    for family, enc in decoders.items():
        assert isinstance(enc, DecoderEncoder), family
        assert enc.n_layers == 3 and enc.dim == 32 and enc.prefix == "" and enc.max_length == 512
        assert enc.encode_sentences(TEXTS, pooling="weighted").shape == (4, 3, 32)
    assert decoders["llama"].pad_token_set == "</s>" and decoders["llama"].tokenizer.pad_token == "</s>"
    assert decoders["gemma"].pad_token_set is None  # Gemma has its own <pad>
    assert decoders["llama"].settings()["added_tokens"] == {"before": ["<s>"], "after": []}
    assert decoders["qwen2"].settings()["added_tokens"] == {"before": [], "after": []}
    line = decoders["llama"].describe()
    assert "prefix ''" in line and "'</s>' (set: the tokenizer had none)" in line and "<unk>" in line
    with pytest.raises(ValueError, match="pooling must be one of"):
        decoders["llama"].encode_sentences(TEXTS, pooling="cls")


@pytest.mark.parametrize("family", DECODER_FAMILIES)
def test_poolings_match_the_hidden_states_of_each_text_alone(decoders, family):
    """Batched (padded) poolings equal the hand-pooled hidden states of each text run alone."""
    enc = decoders[family]
    got = enc.encode(TEXTS, poolings=("mean", "weighted", "last", "first"))
    lead = len(enc.settings()["added_tokens"]["before"])
    for i, text in enumerate(TEXTS):
        ids = enc.tokenizer(text)["input_ids"]
        with torch.no_grad():
            hs = enc.model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
        for layer in range(3):
            h = hs[layer][0].numpy()
            content = h[lead:]  # BOS (Llama, Gemma) is not pooled
            w = np.arange(1, len(content) + 1)
            np.testing.assert_allclose(got["mean"][i, layer], content.mean(0), atol=1e-5)
            np.testing.assert_allclose(got["weighted"][i, layer], (w[:, None] * content).sum(0) / w.sum(), atol=1e-5)
            np.testing.assert_allclose(got["last"][i, layer], h[-1], atol=1e-5)
            np.testing.assert_allclose(got["first"][i, layer], h[0], atol=1e-5)


@pytest.mark.parametrize("family", DECODER_FAMILIES)
def test_left_and_right_padding_give_the_same_vectors(decoders, family):
    enc = decoders[family]
    spans = [[(4, 7), (12, 14)], [(4, 7)], [(2, 3)], [(2, 5)]]
    kinds = ("mean", "weighted", "last", "first", "tokens")
    right = enc.encode(TEXTS, spans=spans, poolings=kinds)
    enc.tokenizer.padding_side = "left"
    try:
        left = enc.encode(TEXTS, spans=spans, poolings=kinds)
    finally:
        enc.tokenizer.padding_side = "right"
    for k in (*kinds, "words"):
        assert np.isfinite(left[k]).all(), k
        np.testing.assert_allclose(left[k], right[k], atol=1e-5, err_msg=k)


@pytest.mark.parametrize("side", ["right", "left"])
def test_padding_on_the_tokenizers_side_and_a_nan_in_it_does_not_leak(decoders, side, monkeypatch):
    """A decoder's batches are padded on the tokenizer's side and its padding rows are zeroed before pooling, not
    only weighted 0 (0 * NaN is NaN): a model whose fully masked rows hold NaN (as some attention kernels give)
    still pools finite, unchanged vectors."""
    enc = decoders["llama"]
    spans = [[(4, 7), (12, 14)], [(4, 7)], [(2, 3)], [(2, 5)]]
    kinds = ("mean", "weighted", "last", "mexa", "first", "tokens")
    monkeypatch.setattr(enc.tokenizer, "padding_side", side)
    clean = enc.encode(TEXTS, spans=spans, poolings=kinds)
    forward = enc.model.forward

    def nan_in_padding(*args, attention_mask=None, **kwargs):
        res = forward(*args, attention_mask=attention_mask, **kwargs)
        pad = (attention_mask == 0)[..., None]
        assert not attention_mask[:, 0 if side == "left" else -1].all()  # padded, on the tokenizer's side
        res.hidden_states = tuple(h.masked_fill(pad, float("nan")) for h in res.hidden_states)
        return res

    monkeypatch.setattr(enc.model, "forward", nan_in_padding)
    got = enc.encode(TEXTS, spans=spans, poolings=kinds)
    for k in (*kinds, "words"):
        np.testing.assert_array_equal(got[k], clean[k], err_msg=k)
    monkeypatch.setattr(DecoderEncoder, "_zero_padding", False)  # the NaN does reach the pooling
    assert np.isnan(enc.encode(TEXTS, poolings=("mean",))["mean"]).any()


@pytest.mark.parametrize("family", DECODER_FAMILIES)
def test_word_spans_take_exactly_the_words_tokens(decoders, family, monkeypatch):
    """Leading-space tokens ('Ġcat', '▁cat') and byte pieces belong to the word they spell."""
    enc = decoders[family]
    text = "The old cat sat on the mat und das Haus 这是 房子 Bäumen"  # words between spaces: no token crosses them
    words = [m.span() for m in re.finditer(r"\S+", text)]
    seen = {}

    def spy(ids, poolings, layers, span_tokens=None, *rest, **kw):
        seen["ids"], seen["spans"] = ids, span_tokens
        return DecoderEncoder.forward_ids(enc, ids, poolings, layers, span_tokens, *rest, **kw)

    monkeypatch.setattr(enc, "forward_ids", spy)
    enc.encode_words([text], [words])
    for (s, e), toks in zip(words, seen["spans"][0]):
        assert enc.tokenizer.decode([seen["ids"][0][j] for j in toks]).strip() == text[s:e]


def test_masked_words_use_the_mask_or_unknown_token(decoders):
    llama, gemma = decoders["llama"], decoders["gemma"]
    assert llama.can_mask and llama.mask_stand_in == "<unk>" and llama.tokenizer.mask_token == "<unk>"
    assert gemma.can_mask and gemma.mask_stand_in is None and gemma.tokenizer.mask_token == "<mask>"
    v = llama.encode(["The cat sat."], spans=[[(4, 7)]], poolings=(), mask=True)["words"]
    assert v.shape == (1, 3, 32) and np.isfinite(v).all()
    keys = llama._chunk_keys(["x"], [[(0, 1)]], ("mean",), [0], True, False)
    assert keys["words"]["mask_token"] == "<unk>" and keys["mean"]["pooling_rules"] == "decoder-1"


def test_a_tokenizer_without_mask_or_unknown_token_cannot_mask(decoders):
    import dataclasses

    qwen = decoders["qwen2"]
    tok = qwen.tokenizer
    saved = tok.mask_token, tok.unk_token
    try:
        tok.mask_token, tok.unk_token = None, None
        bare = dataclasses.replace(qwen)
        assert not bare.can_mask and bare.mask_stand_in is None
        with pytest.raises(ValueError, match="mask=True needs a mask or unknown token"):
            bare.encode(["The cat sat."], spans=[[(4, 7)]], poolings=(), mask=True)
    finally:
        tok.mask_token, tok.unk_token = saved


def test_a_blank_text_gets_a_vector_without_added_tokens(decoders):
    with pytest.warns(RuntimeWarning, match="empty"):
        v = decoders["qwen2"].encode_sentences(["", "The cat."], pooling="last")
    assert v.shape == (2, 3, 32) and np.isfinite(v).all()



def test_chapter1_fig8_is_skipped_with_a_note_when_words_cannot_be_masked():
    from xalign.papers.gaschi2022.experiments import run_fig8

    run = SimpleNamespace(notes=[])
    enc = SimpleNamespace(name="some/llm", can_mask=False)
    got = run_fig8(run, enc, SimpleNamespace(word_pairs={"de-en": []}), None, [0], mask_pair="de-en", mask_pool=60,
                   k=10, n_pairs=150, runs=2, seed=0)
    assert got is None and run.notes == [("Fig. 8 not drawn: some/llm's tokenizer has no mask token, nor an unknown "
                                          "token to stand in for one")]


def test_card_receipts_say_how_a_decoder_pools(decoders):
    from dataclasses import asdict

    from xalign.card.battery import CardConfig
    from xalign.card.receipts import MEAN_POOLING, measure_receipt

    rc = measure_receipt("sts", ["0", "1", "2"], decoders["llama"], "2", asdict(CardConfig.tiny()), [])
    assert rc["pooling"] == [{"layers": ["0", "1", "2"], "pooling": (
        "mean over the text's tokens, prefix tokens included; the tokens the tokenizer adds (<s>) and padding "
        "left out (decoder-only model)")}]
    rc = measure_receipt("sts", ["0"], decoders["qwen2"], "0", asdict(CardConfig.tiny()), [])
    assert rc["pooling"][0]["pooling"].endswith("tokens, prefix tokens included; padding left out (decoder-only model)")
    assert rc["pooling"][0]["pooling"] != MEAN_POOLING


@pytest.mark.parametrize("family", ["mistral", "qwen3", "gemma3_text", "bloom", "gpt2"])
def test_other_decoder_architectures_pad_on_either_side(decoders, family):
    """Mistral, Qwen3, Gemma 3, BLOOM (ALiBi: no position ids) and GPT-2 (absolute positions: left padding is
    right only with position ids counted from the first real token), random 2-layer models."""
    from transformers import AutoConfig, AutoModel

    tok = decoders["llama"].tokenizer
    ids = dict(vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    size = (dict(hidden_size=32, n_layer=2, n_head=2) if family == "bloom" else
            dict(n_embd=32, n_layer=2, n_head=2, n_positions=512) if family == "gpt2" else
            dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                 intermediate_size=64, max_position_embeddings=512, head_dim=16))
    torch.manual_seed(0)
    model = AutoModel.from_config(AutoConfig.for_model(family, **size, **ids)).eval()
    assert is_decoder_only(model.config)
    enc = DecoderEncoder(name=family, model=model, tokenizer=tok, revision="r", cache=EmbeddingCache(enabled=False),
                         progress=False)
    kinds, spans = ("mean", "weighted", "last"), [[(4, 7)], [(4, 7)], [(2, 5)], [(0, 1)]]
    right = enc.encode(TEXTS, spans=spans, poolings=kinds)
    tok.padding_side = "left"
    try:
        left = enc.encode(TEXTS, spans=spans, poolings=kinds)
    finally:
        tok.padding_side = "right"
    alone = np.concatenate([enc.encode([t], poolings=("last",))["last"] for t in TEXTS])
    np.testing.assert_allclose(alone, right["last"], atol=1e-5)
    for k in (*kinds, "words"):
        np.testing.assert_allclose(left[k], right[k], atol=1e-5, err_msg=k)


PROMPT = 'This sentence: "{text}" means in one word: "'  # PromptEOL's template


def test_a_template_puts_the_text_in_the_middle_and_is_recorded(decoders):
    import dataclasses

    plain = decoders["qwen2"]
    enc = dataclasses.replace(plain, template=PROMPT)
    assert enc.prefix == 'This sentence: "' and "template" in enc.describe() and enc.settings()["template"] == PROMPT
    got = enc.encode(TEXTS[:2], spans=[[(4, 7)], [(4, 7)]], poolings=("last", "mean", "tokens"))
    for i, text in enumerate(TEXTS[:2]):  # the hidden states of the whole prompt, run alone
        ids = enc.tokenizer(PROMPT.replace("{text}", text))["input_ids"]
        with torch.no_grad():
            hs = enc.model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
        np.testing.assert_allclose(got["last"][i, 2], hs[2][0, -1].numpy(), atol=1e-5)
        np.testing.assert_allclose(got["mean"][i, 2], hs[2][0].numpy().mean(0), atol=1e-5)
    # the text's own tokens and words leave the template out: the same tokens, other contexts, other vectors
    bare = plain.encode(TEXTS[:2], spans=[[(4, 7)], [(4, 7)]], poolings=("tokens",))
    assert not np.allclose(got["tokens"], bare["tokens"]) and got["words"].shape == bare["words"].shape
    ids, offsets = enc._tokenize(["The cat"])
    tail = [j for j, (a, b) in enumerate(offsets[0]) if a == b]
    assert enc.tokenizer.decode([ids[0][j] for j in tail]) == '" means in one word: "'
    keys = enc._chunk_keys(["x"], None, ("last",), [0], False, False)
    assert keys["last"]["template"] == PROMPT and "template" not in plain._chunk_keys(["x"], None, ("last",), [0],
                                                                                       False, False)["last"]


def test_a_long_text_loses_its_end_not_the_templates_tail(decoders):
    import dataclasses

    text = "the cat sat on the mat"
    head = PROMPT.split("{text}")[0]
    n = len(decoders["qwen2"].tokenizer(PROMPT.replace("{text}", text))["input_ids"])  # two tokens too many
    enc = dataclasses.replace(decoders["qwen2"], template=PROMPT, max_length=n - 2, n_truncated_texts=0)
    with pytest.warns(RuntimeWarning, match="a template's tail included"):  # head + text alone would fit
        enc.encode([text], poolings=("last",))
    assert enc.n_truncated_texts == 1
    seq = enc._tokenize([text])[0][0]
    kept = enc.tokenizer.decode(seq)
    assert len(seq) == n - 2 and kept.endswith('" means in one word: "') and kept.startswith(head + "the cat")
    assert text not in kept  # the end of the text went


def test_a_bad_template_is_named(decoders):
    import dataclasses

    with pytest.raises(ValueError, match=r"template must be a string with exactly one '\{text\}'"):
        dataclasses.replace(decoders["qwen2"], template="no placeholder")
    with pytest.raises(ValueError, match="give a prefix or a template, not both"):
        dataclasses.replace(decoders["qwen2"], prefix="query: ", template=PROMPT)
    with pytest.raises(ValueError, match="nothing of the text would be left"):
        dataclasses.replace(decoders["qwen2"], template=PROMPT, max_length=5)._tokenize(["the cat " * 5])


def test_load_encoder_takes_a_template_for_a_decoder(decoders):
    from xalign.core.loading import load_encoder

    enc = load_encoder(decoders["gemma"].name, template=PROMPT, progress=False, device="cpu",
                       cache=EmbeddingCache(enabled=False))
    assert isinstance(enc, DecoderEncoder) and enc.template == PROMPT and enc.prefix == 'This sentence: "'


def test_half_precision_weights_become_bfloat16_where_native(decoders, monkeypatch):
    import dataclasses

    from xalign.core import precision

    llama = decoders["llama"]
    monkeypatch.setattr(precision, "native_bf16", lambda device="cpu": True)
    half = dataclasses.replace(llama, model=llama.model.__class__(llama.model.config).half())
    assert half.model.dtype == torch.bfloat16 and half.settings()["weights"] == "bfloat16"
    assert half._key("mean", [0], "d")["precision"] == "torch.bfloat16"
    monkeypatch.setattr(precision, "native_bf16", lambda device="cpu": False)
    kept = dataclasses.replace(llama, model=llama.model.__class__(llama.model.config).half())
    assert kept.model.dtype == torch.float16 and llama.model.dtype == torch.float32
