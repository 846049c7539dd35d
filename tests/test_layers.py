"""One parser for layer specifications."""

import pytest

from xalign.core.layers import parse_layers


@pytest.mark.parametrize("spec, want", [
    (None, list(range(13))), ("all", list(range(13))), ("transformer", list(range(1, 13))),
    ("last", [12]), (-1, [12]), (6, [6]), ("1,6,12", [1, 6, 12]), ("1-3", [1, 2, 3]),
    ([0, -1], [0, 12]), ("10-12,0", [10, 11, 12, 0]),
])
def test_layer_specs(spec, want):
    assert parse_layers(spec, 13) == want


def test_default_can_skip_the_embedding_layer():
    assert parse_layers(None, 13, default="transformer") == list(range(1, 13))


@pytest.mark.parametrize("spec, msg", [([], "empty"), ([13], r"\[13\] out of range \(0..12"), ({"a": 1}, "expected")])
def test_bad_layer_specs_are_named(spec, msg):
    with pytest.raises(ValueError, match=msg):
        parse_layers(spec, 13)


def test_encoders_declare_the_protocol():
    from xalign.core.encoders import Encoder
    from xalign.core.protocol import SentenceEncoder, WordEncoder, has_words, is_layered
    from xalign.core.sentvec import USEEncoder

    for cls, proto in ((Encoder, WordEncoder), (USEEncoder, SentenceEncoder)):
        members = ["n_layers", "dim", "encode_sentences"] + (["encode_words"] if proto is WordEncoder else [])
        assert all(hasattr(cls, m) for m in members), (cls, members)
    assert not hasattr(USEEncoder, "encode_words")

    class One:
        name, revision, n_layers, dim = "x", "r", 1, 4

        def encode_sentences(self, texts, pooling="mean", layers=None):
            return None

    assert isinstance(One(), SentenceEncoder) and not is_layered(One()) and not has_words(One())
