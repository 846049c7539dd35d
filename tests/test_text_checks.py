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
