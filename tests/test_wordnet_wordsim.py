"""Readers: WordNet data.* and OMW tabs, BCWS and SCWS (tiny hand-written fixtures)."""

import numpy as np
import pytest

from xalign.data.readers import DataFormatError
from xalign.data.wordnet import lemma_index, read_omw, read_wordnet_data
from xalign.data.wordsim import read_bcws, read_scws, sample
from xalign.measures.sts import spearman

WN = """  1 This software and database is being provided to you, the LICENSEE, by
  2 Princeton University under the following license.
00001740 03 n 02 bank 0 depository_financial_institution 0 001 @ 00001930 n 0000 | a financial institution
00001930 17 n 01 bank 1 000 | sloping land beside a body of water
"""
WN_ADJ = """00002098 00 s 02 able(a) 0 capable 0 000 | having the means
"""


def test_read_wordnet_data(tmp_path):
    (tmp_path / "data.noun").write_text(WN)
    (tmp_path / "data.adj").write_text(WN_ADJ)
    syn = read_wordnet_data([tmp_path / "data.noun", tmp_path / "data.adj"])
    assert syn["00001740-n"].lemmas == ("bank", "depository_financial_institution")
    assert syn["00002098-a"].lemmas == ("able", "capable")  # satellite keyed as "a", marker dropped
    assert lemma_index(syn)["bank"] == ["00001740-n", "00001930-n"]


def test_read_wordnet_data_rejects_bad_lines(tmp_path):
    (tmp_path / "data.noun").write_text("00001740 03 n 03 bank 0 | too few words\n")
    with pytest.raises(DataFormatError, match="data.noun:1: w_cnt says 3"):
        read_wordnet_data([tmp_path / "data.noun"])
    (tmp_path / "data.verb").write_text("hello world\n")
    with pytest.raises(DataFormatError, match="data.verb:1"):
        read_wordnet_data([tmp_path / "data.verb"])


def test_read_omw(tmp_path):
    p = tmp_path / "wn-data-spa.tab"
    p.write_text("# Multilingual Central Repository\tspa\turl\tlicense\n00001740-n\tlemma\tbanco\n"
                 "00001740-n\tspa:def\tuna institución\n00001930-s\tspa:lemma\torilla\n00001740-n\tlemma\tbanco\n")
    assert read_omw(p) == {"00001740-n": ["banco"], "00001930-a": ["orilla"]}
    p.write_text("00001740-n lemma banco\n")
    with pytest.raises(DataFormatError, match="wn-data-spa.tab:1"):
        read_omw(p)


BCWS = """n n
我去<銀行>存錢。
I went to the <bank> to deposit money.
9.0 8.0 9.0 9.0 8.0 9.0 9.0 8.0 9.0 9.0 8.0 8.64
n v
他們在<河岸>散步。
Planes <bank> when they turn.
1.0 1.0 2.0 1.0 1.0 1.0 1.0 2.0 1.0 1.0 1.0 1.09
"""


def test_read_bcws(tmp_path):
    p = tmp_path / "bcws.txt"
    p.write_text(BCWS)
    d = read_bcws(p)
    assert len(d) == 2 and d.word_a == ["bank", "bank"] and d.word_b == ["銀行", "河岸"]
    assert d.text_a[0] == "I went to the bank to deposit money."
    s, e = d.span_a[1]
    assert d.text_a[1][s:e] == "bank" and d.text_b[0][slice(*d.span_b[0])] == "銀行"
    assert np.allclose(d.rating, [8.64, 1.09])


def test_read_bcws_errors(tmp_path):
    p = tmp_path / "bcws.txt"
    p.write_text(BCWS.replace("<bank> to", "bank to"))
    with pytest.raises(DataFormatError, match="bcws.txt:3: expected exactly one <word> marker"):
        read_bcws(p)
    p.write_text(BCWS.replace(" 8.64", ""))
    with pytest.raises(DataFormatError, match="bcws.txt:4: expected 11 ratings"):
        read_bcws(p)
    p.write_text("\n".join(BCWS.splitlines()[:3]) + "\n")
    with pytest.raises(DataFormatError, match="blocks of 4"):
        read_bcws(p)


SCWS = ("he sat on the bank of the river\t4\t6.5\n"
        "she robbed a bank yesterday\t3\t6.5\n"
        "the plant grows fast\t1\t2.0\n"
        "the power plant closed\t2\t2.0\n")


def test_read_scws(tmp_path):
    p = tmp_path / "scws.txt"
    p.write_text(SCWS)
    d = read_scws(p)
    assert len(d) == 2 and d.word_a == ["bank", "plant"] and d.word_b == ["bank", "plant"]
    assert d.text_b[1][slice(*d.span_b[1])] == "plant" and d.text_a[0][slice(*d.span_a[0])] == "bank"
    assert np.allclose(d.rating, [6.5, 2.0])
    sub = sample(d, 1, seed=0)
    assert len(sub) == 1 and sub.word_a[0] in ("bank", "plant")


def test_read_scws_errors(tmp_path):
    p = tmp_path / "scws.txt"
    p.write_text(SCWS.replace("\t4\t", "\t9\t"))
    with pytest.raises(DataFormatError, match="scws.txt:1: target index 9"):
        read_scws(p)
    p.write_text(SCWS.replace("yesterday\t3\t6.5", "yesterday\t3\t5.0"))
    with pytest.raises(DataFormatError, match="different ratings"):
        read_scws(p)
    p.write_text(SCWS.splitlines()[0] + "\n")
    with pytest.raises(DataFormatError, match="two lines per pair"):
        read_scws(p)


def test_spearman():
    assert spearman(np.array([1, 2, 3, 4.0]), np.array([10, 20, 30, 40.0])) == pytest.approx(1.0)
    assert spearman(np.array([1, 2, 3, 4.0]), np.array([4, 3, 2, 1.0])) == pytest.approx(-1.0)
