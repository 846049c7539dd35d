"""The card's result record (xalign.card.result): typed fields, a format version, one writer, one reader."""

import json
import re
from pathlib import Path

import pytest

from xalign.card.result import CARD_FORMAT, REQUIRED, CardResult, card_result, read_card, write_card
from xalign.core.jsonfile import JSONFileError

COMMITTED = Path(__file__).resolve().parents[1] / "reference" / "cards"


def committed_cards() -> list[Path]:
    return sorted(COMMITTED.rglob("*.json"))


def test_every_committed_card_reads_as_a_card_result_and_back_to_the_same_object():
    assert len(committed_cards()) >= 5
    for path in committed_cards():
        raw = json.loads(path.read_text(encoding="utf-8"))
        typed = card_result(raw, str(path))
        assert isinstance(typed, CardResult) and typed.model == raw["model"] and typed.card_format == CARD_FORMAT
        # what the reader gives is the file's object, plus the format stamp; nothing else added or lost
        card = read_card(path)
        assert card == typed.to_dict() == {**raw, "card_format": CARD_FORMAT}
        assert ("model_terms" in card) == ("model_terms" in raw)


def test_write_then_read_gives_the_same_card(tmp_path):
    card = read_card(COMMITTED / "multilingual-e5-small.json")
    path = write_card(card, tmp_path / "card.json")
    again = read_card(path)
    assert again == card
    assert json.loads(path.read_text(encoding="utf-8"))["card_format"] == CARD_FORMAT
    assert {**again, "model": "x"}["model"] == "x" and again.get("nothing") is None


def test_a_file_that_is_not_a_card_is_refused_with_its_name(tmp_path):
    raw = json.loads((COMMITTED / "multilingual-e5-small.json").read_text(encoding="utf-8"))
    cases = {
        "newer.json": ({**raw, "card_format": CARD_FORMAT + 1}, "card format"),
        "missing.json": ({k: v for k, v in raw.items() if k != "measures"}, "lacks measures"),
        "unknown.json": ({**raw, "colour": "red"}, "unknown field(s) colour"),
        "list.json": ([raw], "holds a JSON list, expected an object"),
    }
    for name, (obj, words) in cases.items():
        (tmp_path / name).write_text(json.dumps(obj), encoding="utf-8")
        with pytest.raises(JSONFileError, match=re.escape(words)) as err:
            read_card(tmp_path / name)
        assert name in str(err.value)


def test_a_dictionary_is_checked_before_anything_is_written(tmp_path):
    with pytest.raises(JSONFileError, match="missing measures"):
        write_card({"model": "m", "scores": {}}, tmp_path / "half.json")
    assert not (tmp_path / "half.json").exists()
    assert REQUIRED == ("model", "measures")
    small = card_result({"model": "m", "measures": {}})  # an older or smaller card: the rest is not set
    assert small.layers is None and small.to_dict() == {"model": "m", "measures": {}, "card_format": CARD_FORMAT}


def test_a_card_result_is_a_record_not_a_mapping():
    """Its fields are attributes; the JSON object is :meth:`CardResult.to_dict` (one face, not two)."""
    card = card_result({"model": "m", "measures": {}, "dim": 8})
    assert card.dim == 8 and card.to_dict()["dim"] == 8
    with pytest.raises(TypeError):
        card["dim"]


def test_the_card_page_gives_the_finish_time_as_a_reader_reads_it():
    from xalign.book.card_page import card_markdown

    card = read_card(COMMITTED / "multilingual-e5-small.json")
    page = card_markdown(card)
    day = card["finished"].split("T")[0]
    assert card["finished"] not in page and day not in page  # no raw ISO stamp
    assert re.search(r"finished \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC\.", page)
