"""Every line-based reader shares one path: names the file and line, drops a BOM, splits on LF/CRLF only."""

import pytest

from xalign.data.lines import DataFormatError, read_lines
from xalign.data.readers import read_dictionary, read_parallel


def test_non_utf8_names_the_file_and_line(tmp_path):
    f = tmp_path / "de.txt"
    f.write_bytes(b"eins\nzwei\n" + "drei\xe4\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match=r"de.txt:3: not valid UTF-8"):
        read_lines(f)
    with pytest.raises(DataFormatError, match=r"de.txt:3"):
        read_parallel(f, f)


def test_byte_order_mark_is_dropped(tmp_path):
    f = tmp_path / "dict.txt"
    f.write_text("\ufeffhaus house\nbuch book\n", encoding="utf-8")
    assert read_dictionary(f)[0] == ("haus", "house")


def test_unicode_line_separators_do_not_split_parallel_text(tmp_path):
    src, tgt = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("Ein Satz\u2028mit Trenner.\nZwei.\n", encoding="utf-8")
    tgt.write_text("One sentence\x85with a separator.\nTwo.\n", encoding="utf-8")
    pairs = read_parallel(src, tgt)
    assert len(pairs) == 2 and pairs[1] == ("Zwei.", "Two.")


def test_crlf_is_a_line_end_and_a_stray_cr_is_named(tmp_path):
    f = tmp_path / "x.txt"
    f.write_bytes(b"a\r\nb\r\n")
    assert read_lines(f) == ["a", "b"]
    f.write_bytes(b"a\rb\n")
    with pytest.raises(DataFormatError, match=r"x.txt:1: stray carriage return"):
        read_lines(f)


def test_empty_file_says_what_was_expected(tmp_path):
    f = tmp_path / "e.txt"
    f.write_text("\n \n")
    with pytest.raises(DataFormatError, match="empty file .expected word pairs"):
        read_lines(f, "word pairs")
    assert read_lines(f, allow_empty=True) == ["", " "]
