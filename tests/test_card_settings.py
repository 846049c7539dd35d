"""``xalign card --set NAME VALUE``: every setting has a declared range; a bad name or value exits 2 before any work."""

import pytest

from xalign.book.cli import main
from xalign.card import battery as card
from xalign.card.battery import CARD_RANGES, CardConfig, with_sizes
from xalign.core.profiles import ParameterError


@pytest.mark.parametrize("name,value,message", [
    ("tatoeba_n", "abc", r"card: parameter 'tatoeba_n' = 'abc' is outside its range: it must be an integer >= 1"),
    ("tatoeba_n", -5, r"'tatoeba_n' = -5 .* integer >= 1"),
    ("csls_k", 500, r"'csls_k' = 500 .* at most word_n = 200"),
    ("tatoeba_langs", "", r"'tatoeba_langs' = ''"),
    ("word_corpus", "wmt20", r"one of \['wmt19', 'wmt21'\]"),
    ("precision", "float16", r"'precision' = 'float16' .* one of \['auto', 'float32', 'bfloat16'\]"),
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


# ------------------------------------------------------------------ named size sets (--profile)
def test_the_quick_profile_is_todays_sizes_and_full_the_benchmark_sizes():
    from xalign.card.settings import profile_of, with_profile

    assert with_profile(CardConfig(), "quick") == CardConfig() and profile_of(CardConfig()) == "quick"
    full = with_profile(CardConfig(), "full")
    assert profile_of(full) == "full" and profile_of(CardConfig.tiny()) == "custom"
    assert len(full.tatoeba_langs) >= 100 and {"deu", "ara", "cmn", "swh"} <= set(full.tatoeba_langs)
    assert full.tatoeba_n is None and full.sts_n is None  # None: every pair
    assert len(full.xnli_langs) == 15 and full.xnli_n_test is None and full.xnli_n_train == 2000
    assert full.bli_queries == 1500 and full.bli_vocab >= 20000
    assert (full.word_n, full.word_runs, full.word_sentences) == (5000, 10, None)
    assert with_sizes(full) == full  # every size inside its declared range


def test_an_unknown_profile_or_a_bad_run_count_is_refused():
    from xalign.card.settings import with_profile

    with pytest.raises(ParameterError, match=r"unknown profile 'huge'; valid profiles: quick, full"):
        with_profile(CardConfig(), "huge")
    with pytest.raises(ParameterError, match=r"'word_runs' = 0 .* integer in \[1, 100\]"):
        with_sizes(CardConfig(), word_runs=0)
    assert with_sizes(CardConfig(), tatoeba_n=None).tatoeba_n is None  # --set tatoeba_n null: all pairs


def test_the_card_command_takes_a_profile_and_refuses_an_unknown_one(monkeypatch, capsys):
    from xalign.card.settings import profile_of

    class Ran(Exception):
        pass

    def run(model, cfg, *args, **kwargs):
        raise Ran(cfg)

    monkeypatch.setattr(card, "run_card", lambda *a, **k: pytest.fail("the card ran"))
    assert main(["card", "multilingual-e5-small", "--profile", "huge"]) == 2
    assert "valid profiles: quick, full" in capsys.readouterr().err
    monkeypatch.setattr(card, "run_card", run)
    with pytest.raises(Ran) as got:
        main(["card", "multilingual-e5-small", "--profile", "full", "--set", "word_runs", "3"])
    cfg = got.value.args[0]
    assert cfg.word_runs == 3 and cfg.word_n == 5000 and profile_of(cfg) == "custom"  # --set after --profile


def test_a_model_loaded_by_name_runs_in_the_cards_precision(tiny_models):
    """``--set precision bfloat16`` loads the model under bf16 autocast and the card records it; float32 is exact;
    the default, ``auto``, is bf16 only where the hardware computes it natively."""
    from xalign.book.card_page import _precision_words
    from xalign.card.battery import card_precision, wrap
    from xalign.core.precision import native_bf16

    name = str(tiny_models["mbert"])
    bf16, exact, auto = wrap(name, "bfloat16"), wrap(name, "float32"), wrap(name)
    assert bf16.enc.autocast == "bfloat16" and card_precision(bf16) == "bfloat16"
    assert exact.enc.autocast is None and card_precision(exact) == "torch.float32"
    assert CardConfig().precision == "auto"
    assert card_precision(auto) == ("bfloat16" if native_bf16("cpu") else "torch.float32")
    assert _precision_words(card_precision(bf16)).startswith("bfloat16") and _precision_words(None) == "float32"


def test_the_sts_title_names_the_tracks_that_ran():
    """A card that scored only en-en was titled "STS 2017 (ar, en, es)"."""
    from xalign.card.battery import CardConfig, measure_title

    assert measure_title("sts", CardConfig()) == "STS 2017 (ar, en, es)"
    assert measure_title("sts", CardConfig(sts_tracks=("en-en",))) == "STS 2017 (en)"
    assert measure_title("sts", CardConfig(sts_tracks=("en-de", "es-es"))) == "STS 2017 (en-de, es)"
    assert measure_title("mexa", CardConfig()) == "MEXA alignment (Tatoeba, mutual top-1)"
