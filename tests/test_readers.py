"""Readers fail on malformed input with the file, the line and what was expected."""

import numpy as np
import pytest

from xalign.data.readers import DataFormatError, dictionary_map, read_dictionary, read_gold_alignment, read_parallel
from xalign.data.static import read_vec


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_dictionary_tab_and_space_separated(tmp_path):
    path = write(tmp_path, "d.txt", "Haus\thouse\nhaus house\n\nkatze cat\n")
    pairs = read_dictionary(path)
    assert pairs == [("haus", "house"), ("katze", "cat")]
    assert dictionary_map(pairs) == {"haus": {"house"}, "katze": {"cat"}}


def test_dictionary_wrong_column_count_names_file_and_line(tmp_path):
    path = write(tmp_path, "d.txt", "haus house\nkatze cat mouse\n")
    with pytest.raises(DataFormatError, match=r"d\.txt:2: expected 2 columns"):
        read_dictionary(path)
    path = write(tmp_path, "e.txt", "haus\t\n")
    with pytest.raises(DataFormatError, match=r"e\.txt:1"):
        read_dictionary(path)


def test_empty_files_are_errors(tmp_path):
    with pytest.raises(DataFormatError, match="empty file"):
        read_dictionary(write(tmp_path, "d.txt", "\n  \n"))
    a = write(tmp_path, "a.txt", "")
    b = write(tmp_path, "b.txt", "x\n")
    with pytest.raises(DataFormatError, match="empty file"):
        read_parallel(a, b)


def test_parallel_files_must_be_line_aligned(tmp_path):
    a = write(tmp_path, "a.de", "eins\nzwei\ndrei\n")
    b = write(tmp_path, "b.en", "one\ntwo\n")
    with pytest.raises(DataFormatError, match=r"a\.de has 3 lines but .*b\.en has 2"):
        read_parallel(a, b)
    b = write(tmp_path, "b.en", "one\n\nthree\n")
    assert read_parallel(a, b) == [("eins", "one"), ("drei", "three")]


def test_gold_alignment_sure_possible_and_reverse(tmp_path):
    text = write(tmp_path, "t.txt", "a b c ||| x y\n")
    gold = write(tmp_path, "g.txt", "1-1 2p2 3-2\n")
    g = read_gold_alignment(text, gold)
    assert g.src == [["a", "b", "c"]] and g.tgt == [["x", "y"]]
    assert g.sure == [{(0, 0), (2, 1)}] and g.possible == [{(0, 0), (1, 1), (2, 1)}]
    r = read_gold_alignment(text, gold, reverse=True)
    assert r.src == [["x", "y"]] and r.sure == [{(0, 0), (1, 2)}]


def test_gold_alignment_errors(tmp_path):
    text = write(tmp_path, "t.txt", "a b ||| x y\n")
    with pytest.raises(DataFormatError, match=r"g\.txt:1: link '3-1' outside"):
        read_gold_alignment(text, write(tmp_path, "g.txt", "3-1\n"))
    with pytest.raises(DataFormatError, match=r"g\.txt:1: bad link"):
        read_gold_alignment(text, write(tmp_path, "g.txt", "1x1\n"))
    with pytest.raises(DataFormatError, match="has 1 lines"):
        read_gold_alignment(text, write(tmp_path, "g.txt", "1-1\n2-2\n"))


def test_read_vec(tmp_path):
    path = write(tmp_path, "w.vec", "3 2\nHaus 1 0\nhaus 9 9\nkatze 0 1\n")
    v = read_vec(path)
    assert v.words == ["haus", "katze"]
    np.testing.assert_array_equal(v.lookup(["katze"]), [[0, 1]])
    np.testing.assert_array_equal(v.sentence(["haus", "unknown", "katze"]), [0.5, 0.5])
    with pytest.raises(KeyError, match="'hund'"):
        v.lookup(["hund"])
    with pytest.raises(DataFormatError, match=r"x\.vec:3: expected a word and 2 numbers"):
        read_vec(write(tmp_path, "x.vec", "2 2\na 1 2\nb 1\n"))
    with pytest.raises(DataFormatError, match="header"):
        read_vec(write(tmp_path, "y.vec", "a 1 2\n"))
