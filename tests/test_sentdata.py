import pytest

from xalign.data.readers import DataFormatError
from xalign.data.sentdata import (
    read_nli_columns,
    read_sts,
    read_stsbenchmark,
    read_tatoeba,
    tatoeba_iso3,
)


def _write(path, text, newline="\n"):
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def test_tatoeba_codes_and_reader(tmp_path):
    assert tatoeba_iso3("zh") == "cmn" and tatoeba_iso3("fa") == "pes" and tatoeba_iso3("sw") == "swh"
    with pytest.raises(KeyError):
        tatoeba_iso3("xx")
    a = _write(tmp_path / "t.deu", "Hallo Welt.\nGuten Morgen.\n")
    b = _write(tmp_path / "t.eng", "Hello world.\nGood morning.\n")
    assert read_tatoeba(a, b) == [("Hallo Welt.", "Hello world."), ("Guten Morgen.", "Good morning.")]
    c = _write(tmp_path / "short.eng", "Hello world.\n")
    with pytest.raises(DataFormatError, match="line-aligned"):
        read_tatoeba(a, c)


def test_sts_reader_refuses_mismatched_gold(tmp_path):
    inp = _write(tmp_path / "in.txt", "A cat.\tA dog.\nA man runs.\tA man is running.\n")
    gold = _write(tmp_path / "gs.txt", "1.2\n4.8\n")
    assert read_sts(inp, gold) == [("A cat.", "A dog.", 1.2), ("A man runs.", "A man is running.", 4.8)]
    half = _write(tmp_path / "half.txt", "1.2\n")
    with pytest.raises(DataFormatError, match="2 sentence pairs but .* 1 scores"):
        read_sts(inp, half)
    bad = _write(tmp_path / "bad.txt", "1.2\nfive\n")
    with pytest.raises(DataFormatError, match=r"bad.txt:2: expected a number"):
        read_sts(inp, bad)


def test_stsbenchmark_reader_handles_extra_columns(tmp_path):
    rows = ("main-captions\tMSRvid\t2012test\t0001\t5.000\tA man plays.\tA man is playing.\n"
            "main-news\theadlines\t2016\t0012\t4\tDriver backs up\tDriver reverses\tsrc1\tsrc2\n")
    path = _write(tmp_path / "sts-train.csv", rows)
    assert read_stsbenchmark(path) == [("A man plays.", "A man is playing.", 5.0),
                                       ("Driver backs up", "Driver reverses", 4.0)]
    bad = _write(tmp_path / "bad.csv", "a\tb\tc\td\tx\ts1\ts2\n")
    with pytest.raises(DataFormatError, match=r"bad.csv:1: field 5"):
        read_stsbenchmark(bad)


def test_nli_columns_reader(tmp_path):
    s1 = _write(tmp_path / "s1", "A b .\nC d .\n")
    s2 = _write(tmp_path / "s2", "E f .\nG h .\n")
    lab = _write(tmp_path / "labels", "entailment\ncontradiction\n")
    assert read_nli_columns(s1, s2, lab)[1] == ("C d .", "G h .", "contradiction")
