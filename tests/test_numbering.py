"""Tables and figures numbered per chapter (Table 1.2, Figure 1.3) on a chapter's page (xalign.book.numbering),
folded long tables and CSV downloads (xalign.book.display), a figure's drawn data (xalign.book.figure_data)."""

from __future__ import annotations

import base64
import re

import matplotlib
import pandas as pd
import pytest

from xalign.book import display
from xalign.book.figure_data import figure_data
from xalign.book.numbering import chapter_of, number_page

matplotlib.use("Agg")

BODY = (
    '<p>See <a href="#fig-ch04-fig2"><span class="std std-numref">Fig. 17</span></a>.</p>'
    '<div class="xa-table"><table class="xa"><caption>Table II: P@1 (%)</caption><thead></thead></table></div>'
    '<details class="xa-full"><summary>All</summary><div class="xa-table"><table class="xa xa-more"><thead>'
    "</thead></table></div></details>"
    '<table class="table" id="claims"><caption><span class="caption-number">Table 3 </span>'
    '<span class="caption-text">Claims</span></caption></table>'
    '<table class="dataframe"><thead></thead></table>'
    '<figure class="align-default" id="fig-ch04-fig1"><div class="cell_output"><img alt="x" src="../../_images/a.png">'
    '</div><figcaption><p><span class="caption-number">Fig. 16 </span><span class="caption-text">Paper\'s Fig. 1.'
    "</span></p></figcaption></figure>"
    '<div class="output"><p class="xa-figdata" data-figure="ch04-fig2"><a class="xa-csv" href="data:,x">CSV</a></p>'
    "</div>"
    '<figure class="align-default" id="fig-ch04-fig2"><a href="../../_images/b.png"><img src="../../_images/b.png">'
    '</a><figcaption><p><span class="caption-number">Fig. 17 </span></p></figcaption></figure>')


def test_a_chapter_page_numbers_its_tables_and_figures_per_chapter():
    """Fails on the code before it: Sphinx's book-wide Fig. 16/17, the tables unnumbered."""
    assert chapter_of("book/chapters/04_bli_pruning_stemming") == 4 and chapter_of("book/ledger") is None
    out = number_page(BODY, 4)
    captions = re.findall(r'<span class="caption-number">([^<]*)</span>', out)
    assert captions == ["Table 4.1", "Table 4.2", "Table 4.3", "Figure 4.1 ", "Figure 4.2 "], captions
    assert "Table 4.1</span> (paper's Table II): P@1 (%)" in out  # the paper's number kept beside ours
    assert '<span class="std std-numref">Figure 4.2</span>' in out  # the reference follows its figure
    assert "Fig. 1" not in out.replace("Paper's Fig. 1", "")
    # the full table in the dropdown is the same table: no number of its own
    assert 'class="xa xa-more"><thead>' in out
    # every figure opens full size: one link around each image, none added to an image already linked
    assert out.count('class="xa-zoom" href="../../_images/a.png"') == 1 and out.count("b.png\"><img") == 1
    assert out.count("<a") == BODY.count("<a") + 1
    # the figure's CSV link moved into its figure, below the caption
    fig2 = re.search(r'<figure[^>]*id="fig-ch04-fig2".*?</figure>', out, re.DOTALL)[0]
    assert "xa-figdata" in fig2 and out.count("xa-figdata") == 1
    with pytest.raises(ValueError, match="chapter"):
        number_page(BODY, 0)


def test_a_long_table_folds_with_a_summary_and_a_csv_of_every_row(monkeypatch):
    """Fails on the code before it: 60 rows shown in full, no summary, no CSV."""
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj.data))
    frame = pd.DataFrame({"pair": [f"p{i}" for i in range(60)], "paper": [1.0] * 60,
                          "ours": [float("nan")] * 50 + [2.0] * 10})
    display.table(frame, caption="Table 2: P@1")
    html = shown[0]
    assert "60 rows, 50 of them with a number missing (–)" in html.split("<table", 1)[0]
    first = html.split("</table>", 1)[0]
    assert first.count("<tr>") == 1 + display.PREVIEW_ROWS
    assert "All 60 rows" in html and 'class="xa xa-more"' in html
    data = re.search(r'download="table-2-p-1\.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', html)
    assert data and base64.b64decode(data[1]).decode().count("\n") == 61
    shown.clear()
    display.table(frame.head(5), caption="short")
    assert "<details" not in shown[0] and "xa-csv" not in shown[0]


def test_a_figure_s_data_is_read_back_from_what_it_draws():
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2)
    a.plot([0, 1, 2], [10.0, 20.0, 30.0], label="ours")
    a.axhline(5.0)
    a.set_title("en-de")
    b.bar(["de", "fr"], [3.0, 4.0])
    data = figure_data(fig)
    plt.close(fig)
    assert data[data.panel == "en-de"][["series", "x", "y"]].values.tolist() == [
        ["ours", 0, 10.0], ["ours", 1, 20.0], ["ours", 2, 30.0]]
    assert data[data.panel == "panel 2"][["x", "y"]].values.tolist() == [["de", 3.0], ["fr", 4.0]]
    with pytest.raises(ValueError, match="name"):
        display.figure("a b", fig)


def test_paper_ours_and_difference_come_right_after_the_row_labels():
    """Fails on the code before it: the compared columns stayed last, beyond a wide table's first screen."""
    frame = pd.DataFrame({"pair": ["en-de"], "layer": ["best"], "n pairs": [5], "paper model": ["mBERT"],
                          "paper": [1.0], "ours 95% CI": ["[1, 2]"], "ours - paper": [0.5]})
    html = display.table_html(frame)
    heads = re.findall(r"<th>([^<]*)</th>", html)
    assert heads == ["pair", "layer", "paper", "ours 95% CI", "ours - paper", "n pairs", "paper model"], heads
    # a sentence in a cell wraps (td.long), a label does not
    said = display.table_html(pd.DataFrame({"split": ["dev"], "used as": ["training data: 90 pairs; the dev split: 90"]}))
    assert '<td class="txt">dev</td>' in said and '<td class="txt long">training data' in said
    plain = pd.DataFrame({"pair": ["en-de"], "n": [1]})
    assert display.compared_first(plain) is plain


def test_a_table_without_a_caption_is_captioned_with_its_section_title():
    from xalign.book.numbering import caption_tables, number_page

    body = ('<h2>Best layer<a class="headerlink" href="#b" title="Link">#</a></h2><table class="table"></table>'
            '<table class="table"><caption>Its own</caption></table><table class="xa-more"></table>'
            '<table class="table"></table><h3>Data &amp; files</h3><table></table><table class="highlighttable"></table>')
    out = caption_tables(body)
    assert re.findall(r"<caption>(.*?)</caption>", out) == ["Best layer", "Its own", "Best layer, continued",
                                                            "Data &amp; files"]
    assert '<table class="xa-more"></table>' in out and '<table class="highlighttable"></table>' in out
    numbered = number_page(out, 5)  # on a chapter's page the number comes first; code listings get none
    assert re.findall(r'caption-number">(Table [\d.]+)</span>: ([^<]*)', numbered)[0] == ("Table 5.1", "Best layer")
    assert '<table class="highlighttable"></table>' in numbered
