"""``xalign card --set NAME VALUE``: every setting has a declared range; a bad name or value exits 2 before any work."""

import pytest

from xalign.book import card
from xalign.book.card import CARD_RANGES, CardConfig, with_sizes
from xalign.book.cli import main
from xalign.core.profiles import ParameterError


@pytest.mark.parametrize("name,value,message", [
    ("tatoeba_n", "abc", r"card: parameter 'tatoeba_n' = 'abc' is outside its range: it must be an integer >= 1"),
    ("tatoeba_n", -5, r"'tatoeba_n' = -5 .* integer >= 1"),
    ("csls_k", 500, r"'csls_k' = 500 .* at most word_n = 200"),
    ("tatoeba_langs", "", r"'tatoeba_langs' = ''"),
    ("word_corpus", "wmt20", r"one of \['wmt19', 'wmt21'\]"),
])
def test_a_setting_outside_its_range_is_refused(name, value, message):
    with pytest.raises(ParameterError, match=message):
        with_sizes(CardConfig(), **{name: value})


def test_an_unknown_setting_is_refused_with_the_valid_names():
    with pytest.raises(ParameterError, match=r"unknown setting\(s\) \['bogus'\]; valid names: tatoeba_langs, tatoeba_n"):
        with_sizes(CardConfig(), bogus=5)


def test_every_field_has_a_range_and_good_settings_pass():
    assert set(CARD_RANGES) == set(CardConfig.__dataclass_fields__)
    cfg = with_sizes(CardConfig(), tatoeba_n=50, tatoeba_langs="de,ar", bli_prune="")
    assert (cfg.tatoeba_n, cfg.tatoeba_langs, cfg.bli_prune) == (50, ("de", "ar"), ())
    with_sizes(CardConfig.tiny())


@pytest.mark.parametrize("setting", [["tatoeba_n", "abc"], ["tatoeba_n", "-5"], ["bogus", "5"]])
def test_the_card_command_exits_2_before_any_work(setting, monkeypatch, capsys):
    monkeypatch.setattr(card, "run_card", lambda *a, **k: pytest.fail("the card ran"))
    assert main(["card", "multilingual-e5-small", "--set", *setting]) == 2
    assert setting[0] in capsys.readouterr().err
