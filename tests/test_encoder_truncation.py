"""Nothing the encoder does to its input is silent: texts cut at the token limit and zero-width-only texts are
counted, warned about and recorded in the chapter's results; huge vectors do not normalise to zero."""

import json
import warnings

import numpy as np
import pytest

from xalign.book.results import ChapterRun
from xalign.core.text_checks import count_truncated, is_blank
from xalign.measures import neighbours as N
from xalign.measures import retrieval as R

pytestmark = pytest.mark.slow  # loads the real offline encoder (seconds once it is converted)

LONG = "word " * 10_000  # about 10,000 tokens; the model takes 512


def test_texts_cut_at_max_length_are_counted_and_warned(encoder):
    before = encoder.n_truncated_texts
    with pytest.warns(RuntimeWarning, match=r"2 of 3 texts are longer than max_length=512 tokens and were cut"):
        v = encoder.encode_sentences([LONG + "alpha", LONG + "beta", "Haus"], layers=[12])
    assert encoder.n_truncated_texts == before + 2
    assert np.allclose(v[0], v[1])  # why it matters: different tails, one vector


def test_texts_within_the_limit_are_not_counted(encoder):
    before = encoder.n_truncated_texts
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no truncation warning
        encoder.encode_sentences(["Ein kurzer Satz.", "x" * 300], layers=[12])
    assert encoder.n_truncated_texts == before
    tok = encoder.tokenizer
    n = len(tok("passage: " + "Haus " * 50)["input_ids"])
    assert count_truncated(tok, ["Haus " * 50], "passage: ", n) == 0
    assert count_truncated(tok, ["Haus " * 50], "passage: ", n - 1) == 1


def test_zero_width_only_text_counts_as_blank(encoder):
    before = encoder.n_blank_texts
    with pytest.warns(RuntimeWarning, match="1 of 2 texts are empty, whitespace-, control- or zero-width-only"):
        encoder.encode_sentences(["\u200b\u200d\ufeff", "Haus"], layers=[12])
    assert encoder.n_blank_texts == before + 1
    assert is_blank("\u200b \u2060") and is_blank("") and not is_blank("\u200bHaus")


def test_the_counts_reach_the_results_file(encoder):
    run = ChapterRun("01_weak_strong_alignment", "gaschi2022", "smoke", {})
    run.use_encoder(encoder)
    with pytest.warns(RuntimeWarning):
        encoder.encode_sentences([LONG + "x", ""], layers=[12])
    saved = json.loads(run.save().read_text())
    assert saved["encoder_counts"]["n_truncated_texts"] == encoder.n_truncated_texts >= 1
    assert saved["encoder_counts"]["n_blank_texts"] == encoder.n_blank_texts >= 1


def test_a_released_word_encoder_keeps_its_counts():
    class Inner:
        n_truncated_texts, n_blank_texts = 3, 1

    class Outer:
        def __init__(self):
            self.encoder, self.name, self.revision = Inner(), "m", "r"

    outer = Outer()
    run = ChapterRun("04_bli_pruning_stemming", "wickramasinghe", "smoke", {})
    run.use_encoder(outer)
    outer.n_truncated_texts, outer.n_blank_texts, outer.encoder = 3, 1, None  # as WordEncoder.release does
    assert run.encoder_counts() == {"n_truncated_texts": 3, "n_blank_texts": 1}


@pytest.mark.parametrize("scale", [1e37, 1e20, 1e-30])
def test_huge_and_tiny_vectors_score_as_their_directions(scale):
    # squares beyond float32's range made every norm inf and every row zero: S_weak 0.0 instead of 1.0
    rng = np.random.default_rng(0)
    U = rng.normal(size=(40, 16)).astype(np.float32)
    V = U + 0.3 * rng.normal(size=(40, 16)).astype(np.float32)
    assert R.s_weak(U * np.float32(scale), V * np.float32(scale)) == R.s_weak(U, V) == 1.0
    ids, sims = N.cosine_topk(U * np.float32(scale), V, topn=1)
    ref_ids, ref_sims = N.cosine_topk(U, V, topn=1)
    assert np.array_equal(ids, ref_ids) and np.allclose(sims, ref_sims, atol=1e-6)


def test_ordinary_rows_are_normalised_bit_for_bit_as_before_and_inputs_are_not_changed():
    import torch

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 8)).astype(np.float32)
    X[3] *= np.float32(1e30)
    keep = X.copy()
    unit = N.unit_rows(X, "cpu")
    assert np.array_equal(X, keep)  # the huge row is scaled in a copy
    rows = np.arange(30) != 3
    assert torch.equal(unit[rows], torch.nn.functional.normalize(torch.from_numpy(keep[rows]), dim=1))
    assert np.allclose(unit[3].numpy(), keep[3] / np.linalg.norm(keep[3].astype(np.float64)), atol=1e-6)


def test_an_infinite_entry_is_still_an_error():
    U = np.ones((3, 4), np.float32)
    U[1, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        R.s_weak(U, np.ones((3, 4), np.float32))
