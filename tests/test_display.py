"""The book's one table formatter and the folding of code cells."""

import nbformat
import numpy as np
import pandas as pd

from xalign.book.display import MISSING, table_html
from xalign.book.publish import collapse_code


def test_table_has_no_index_no_nan_and_integers_as_integers():
    frame = pd.DataFrame({"pair": ["de-en", "zh-en"], "pairs": [6465.0, 120.0],
                          "P@1 (%)": [45.25, np.nan]}, index=[7, 9])
    out = table_html(frame)
    assert "nan" not in out.lower() and MISSING in out
    assert ">6465<" in out and "6465.0" not in out  # a count stays a count
    assert ">45.2<" in out or ">45.3<" in out
    assert ">7<" not in out and ">9<" not in out  # the index is not shown
    assert out.startswith('<div class="xa-table">')  # its own scroll box


def test_table_digits_per_column_and_large_integers():
    frame = pd.DataFrame({"n": [288662], "x": [0.12345], "y": [1.5]})
    out = table_html(frame, digits={"x": 3})
    assert ">288,662<" in out and ">0.123<" in out and ">1.5<" in out


def test_every_code_cell_folded_but_show_input():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("a = 1", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("a = 2", metadata={"tags": ["injected-parameters"]}),
                nbformat.v4.new_code_cell("import x"),
                nbformat.v4.new_markdown_cell("text"),
                nbformat.v4.new_code_cell("x.run()", metadata={"tags": ["show-input"]}),
                nbformat.v4.new_code_cell("loop()"),
                nbformat.v4.new_code_cell("prose()", metadata={"tags": ["remove-input"]})]
    assert collapse_code(nb) == 4
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    # the parameters cell folds too: the page's "Run it" section lists every parameter
    assert "hide-input" not in tags[4] and "hide-input" not in tags[6]
    assert all("hide-input" in tags[i] for i in (0, 1, 2, 5))


def test_show_functions_return_nothing_so_a_cell_shows_once():
    from xalign.book.display import prose, table

    assert table(pd.DataFrame({"a": [1]})) is None  # a returned object would be shown a second time
    assert prose("text") is None
