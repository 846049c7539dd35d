"""XNLI and XED readers on hand-made lines: multi-label, CRLF, quoting, errors with file:line."""

import numpy as np
import pytest

from xalign.data.readers import DataFormatError
from xalign.data.taskdata import (
    class_distribution,
    premise_groups,
    read_xed,
    read_xed_neutral,
    read_xnli,
    sample_groups,
    single_labels,
    stratified_split,
)


def write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_xed_multilabel_and_crlf(tmp_path):
    p = write(tmp_path, "en.tsv", b"Get out!\t1\r\nWhat a day .\t1, 4, 7\r\nWe did it\t5,8\r\n")
    f = read_xed(p)
    assert f.line_ends == "crlf"
    assert [r.labels for r in f.records] == [(1,), (1, 4, 7), (5, 8)]
    assert [r.text for r in f.records] == ["Get out!", "What a day .", "We did it"]
    assert all("\r" not in r.text for r in f.records)
    assert [r.line for r in f.records] == [1, 2, 3]
    texts, y = single_labels(f.records, "single")
    assert texts == ["Get out!"] and y.tolist() == [0]
    texts, y = single_labels(f.records, "first")
    assert y.tolist() == [0, 0, 4]
    s = f.summary()
    assert s["single-label"] == 1 and s["multi-label"] == 2


def test_xed_lf_and_label_order_kept(tmp_path):
    f = read_xed(write(tmp_path, "x.tsv", "Älä!\t8, 1\n".encode()))
    assert f.line_ends == "lf" and f.records[0].labels == (8, 1) and f.records[0].text == "Älä!"


def test_xed_quoted_fields(tmp_path):
    data = (b'"Dijo ""hola""."\t2, 5\r\n'
            b'"Broken start\r\n'
            b'en/1.xml.gz\tes/1.xml.gz\t3\t4\tmeta row\r\n'
            b'en/1.xml.gz\tes/1.xml.gz\t5\t6\tend."""\t6\r\n'
            b'Fine.\t3\r\n')
    f = read_xed(write(tmp_path, "p.tsv", data))
    assert [r.text for r in f.records] == ['Dijo "hola".', "Fine."]
    assert [r.line for r in f.records] == [1, 5]
    assert len(f.skipped) == 1 and (f.skipped[0].first_line, f.skipped[0].last_line) == (2, 4)
    with pytest.raises(DataFormatError, match=r"p.tsv:2-4"):
        read_xed(tmp_path / "p.tsv", multiline="error")


@pytest.mark.parametrize("line, msg", [
    (b"no label column\r\n", r"bad.tsv:2: expected 2 tab-separated fields"),
    (b"text\t9\r\n", r"bad.tsv:2: emotion id\(s\) \[9\]"),
    (b"text\t1, 1\r\n", r"bad.tsv:2: repeated emotion id"),
    (b"text\tjoy\r\n", r"bad.tsv:2: expected emotion ids 1-8"),
    (b"text\t0\r\n", r"bad.tsv:2: emotion id\(s\) \[0\]"),
    (b"a\rb\t1\r\n", r"bad.tsv:2: stray carriage return"),
    (b"\t1\r\n", r"bad.tsv:2: empty text"),
    (b'"never closed\t1\r\n', r"bad.tsv:2: quoted text never closed"),
])
def test_xed_errors_name_file_and_line(tmp_path, line, msg):
    p = write(tmp_path, "bad.tsv", b"ok\t1\r\n" + line)
    with pytest.raises(DataFormatError, match=msg):
        read_xed(p)


def test_xed_bad_utf8_names_line(tmp_path):
    p = write(tmp_path, "enc.tsv", b"ok\t1\nbad \xff\t2\n")
    with pytest.raises(DataFormatError, match=r"enc.tsv:2: not valid UTF-8"):
        read_xed(p)


def test_xed_neutral_layouts(tmp_path):
    en = write(tmp_path, "neu_en.txt", b"9\tYeah.\n\t\t\t\t\n9\tNothing\t\t\t\n")
    lines, skipped = read_xed_neutral(en)
    assert [(x.text, x.code, x.line) for x in lines] == [("Yeah.", "9", 1), ("Nothing", "9", 3)]
    assert [(s.first_line, s.reason) for s in skipped] == [(2, "empty record")]
    fi = write(tmp_path, "neu_fi.txt", b"1620\tNiin voi kai sanoa.\t2\t428\tfi/1965/5.xml.gz\n")
    lines, _ = read_xed_neutral(fi)
    assert lines[0].text == "Niin voi kai sanoa." and lines[0].code == "2"
    with pytest.raises(DataFormatError, match=r"neu_x.txt:1: expected 'code<TAB>text'"):
        read_xed_neutral(write(tmp_path, "neu_x.txt", b"a\tb\tc\n"))


def test_xnli_reader(tmp_path):
    rows = ("P1\tH1\tneutral\r\nP1\tH2\tcontradictory\r\nP1\tH3\tentailment\r\n"
            "P2\tH4\tentailment\r\nP2\tH5\tneutral\r\nP2\tH6\tcontradiction\r\n")
    pairs = read_xnli(write(tmp_path, "dev-xx.tsv", rows.encode()))
    assert [p.label for p in pairs] == ["neutral", "contradiction", "entailment",
                                       "entailment", "neutral", "contradiction"]
    assert premise_groups(pairs).tolist() == [0, 0, 0, 1, 1, 1]
    # the same groups from (premise, hypothesis, label) tuples (chapter 3's XNLI Manual rows)
    assert premise_groups([(p.premise, p.hypothesis, p.label) for p in pairs]).tolist() == [0, 0, 0, 1, 1, 1]
    with pytest.raises(DataFormatError, match=r"t.tsv:1: label 'maybe'"):
        read_xnli(write(tmp_path, "t.tsv", b"P\tH\tmaybe\n"))
    with pytest.raises(DataFormatError, match=r"u.tsv:1: expected 3 tab-separated fields"):
        read_xnli(write(tmp_path, "u.tsv", b"P\tH\n"))
    assert read_xnli(tmp_path / "u.tsv", labelled=False)[0].label is None
    mixed = read_xnli(write(tmp_path, "m.tsv", b"P\tH\nP\tH2\tneutral\n"), labelled=None)
    assert [p.label for p in mixed] == [None, "neutral"]
    with pytest.raises(DataFormatError, match=r"v.tsv:1: expected premise<TAB>hypothesis"):
        read_xnli(write(tmp_path, "v.tsv", b"P\n"), labelled=None)
    # U+2028 inside a row is text, not a line break (the Greek XNLI test file has some)
    assert read_xnli(write(tmp_path, "w.tsv", "P\u2028x\tH\n".encode()), labelled=False)[0].premise == "P\u2028x"


def test_sample_groups_keeps_whole_groups():
    groups = np.repeat(np.arange(10), 3)
    idx = sample_groups(30, groups, 9, seed=1)
    assert len(idx) == 9 and all(np.sum(groups[idx] == g) == 3 for g in np.unique(groups[idx]))
    assert sample_groups(30, groups, 9, seed=1).tolist() == idx.tolist()
    assert len(sample_groups(30, groups, None, seed=1)) == 30


def test_stratified_split():
    y = np.repeat(np.arange(4), 25)
    tr, dv, te = stratified_split(y, None, 20, 20, seed=0)
    assert len(dv) == 20 and len(te) == 20 and len(tr) == 60
    assert not set(tr) & set(dv) and not set(tr) & set(te) and not set(dv) & set(te)
    assert np.bincount(y[te]).tolist() == [5, 5, 5, 5]
    tr2, _, _ = stratified_split(y, 40, 20, 20, seed=0)
    assert len(tr2) == 40
    with pytest.raises(ValueError, match="only 100 items"):
        stratified_split(y, 90, 20, 20, seed=0)
    d = class_distribution(np.array([0, 0, 1, 7]))
    assert d["anger"] == 50.0 and d["trust"] == 25.0 and abs(sum(d.values()) - 100) < 1e-9


def test_one_xnli_reader_and_one_language_list():
    from xalign.data import sentdata, taskdata
    from xalign.data import xnli_manual as manual
    from xalign.papers.calibrated2023 import transfer

    assert not hasattr(sentdata, "read_xnli") and not hasattr(sentdata, "XNLI_LANGS")
    assert taskdata.XNLI_LANGUAGES[0] == "en" and len(set(taskdata.XNLI_LANGUAGES)) == 15
    assert manual.premise_groups is taskdata.premise_groups  # no second copy
    assert transfer.pair_features.__module__ == "xalign.measures.probe"
