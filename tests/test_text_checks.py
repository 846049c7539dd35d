"""Texts that all get one shared vector are counted: blank ones (whitespace, control and format characters
only) and ones the tokenizer reads as unknown pieces only."""

import warnings

import pytest

from xalign.core.text_checks import count_unknown_only, is_blank


@pytest.mark.parametrize("text", ["", "  \n", "\u200b", "\x00\x00", "\x07\x1b", "\x00 \u200b"])
def test_blank_texts(text):
    assert is_blank(text)


@pytest.mark.parametrize("text", ["a", "\x00a", "词", "𓀀"])
def test_texts_with_something_to_encode(text):
    assert not is_blank(text)


def test_unknown_only_texts_are_counted(encoder):
    tok = encoder.tokenizer  # XLM-R's sentencepiece: "▁" then <unk> for a character it has never seen
    assert count_unknown_only(tok, ["𓀀𓀁", "ꙮ ꙮ", "hello", "ok 𓀀", "", "词"]) == 2


def test_the_encoder_counts_control_only_and_unknown_only_texts(encoder):
    before = encoder.n_blank_texts
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        encoder.encode(["\x00\x00", "𓀀𓀁", "a house"], layers=-1)
    assert encoder.n_blank_texts - before == 2
    assert any("2 of 3 texts" in str(w.message) for w in seen)


def test_a_word_beyond_the_token_limit_is_named_before_any_forward_pass(encoder, monkeypatch):
    """A character-level tokenizer (or a long sentence) used to fail after the whole forward pass with
    "span maps to no token"; now the encoder names the text and the word before running the model."""
    text = "house " * 600 + "target"
    spans = [[(0, 5), (len(text) - 6, len(text))]]

    def no_forward(*args, **kwargs):
        raise AssertionError("the model ran before the check")

    monkeypatch.setattr(encoder, "forward_ids", no_forward)
    monkeypatch.setattr(encoder.cache, "get", lambda key: None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"text 0: 1 of its 2 word spans lie beyond the model's limit of "
                                             r"max_length=512 tokens .*'target'"):
            encoder.encode([text], spans=spans, layers=-1)


def test_out_of_memory_is_named(encoder, monkeypatch):
    """oneDNN's "could not create a primitive" at 1.5 GB was a bare RuntimeError naming nothing."""
    def starved(*args, **kwargs):
        raise RuntimeError("could not create a primitive")

    monkeypatch.setattr(encoder.model, "forward", starved)
    monkeypatch.setattr(encoder.cache, "get", lambda key: None)
    with pytest.raises(MemoryError, match=r"multilingual-e5-small: out of memory while encoding up to .* tokens at "
                                          r"once .*could not create a primitive.*batch_tokens"):
        encoder.encode(["a house"], layers=-1)


def test_other_runtime_errors_pass_unchanged(encoder, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("shape mismatch")

    monkeypatch.setattr(encoder.model, "forward", broken)
    monkeypatch.setattr(encoder.cache, "get", lambda key: None)
    with pytest.raises(RuntimeError, match="^shape mismatch$"):
        encoder.encode(["a house"], layers=-1)
