"""How the book shows tables, figures and generated prose: one formatter for every chapter.

Chapters call these instead of printing pandas frames or matplotlib figures:

- :func:`table` renders a frame as a clean HTML table: no index column, "–" for a
  missing value, integers as integers, a fixed number of decimals, optionally a
  short set of columns with the full table in a dropdown, always inside its own
  horizontal scroll box (``div.xa-table``) so a wide table never widens the page.
- :func:`figure` stores a matplotlib figure under a name with ``myst_nb.glue`` (not
  shown where it is made); a Markdown cell places it with a number, a caption and a
  label::

      ```{glue:figure} ch01-fig5
      :name: fig-ch01-fig5

      **Paper's Fig. 5.** Cosine similarity of ...
      ```

  and ``{numref}`fig-ch01-fig5``` refers to it.
- :func:`prose` shows Markdown built from results (in a cell tagged
  ``remove-input``, so the reader sees the sentence, not the code that made it).
  Every value from outside that it interpolates (a model's name, a path, a line of
  data) goes through :func:`text` (or :func:`code` for a code span; both
  :mod:`xalign.core.markup`'s, re-exported here for the chapters) first, so that a name
  shows as text and starts no markup.

The chapters' code cells are folded by :func:`xalign.book.publish.collapse_code`;
a cell tagged ``show-input`` stays open.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.core.markup import code, inert, text  # noqa: F401 - code and text re-exported for the chapters

#: what a missing cell shows
MISSING = "–"
#: a table longer than this many rows is folded (its first PREVIEW_ROWS shown, every row in a dropdown): 25 rows
#: keep a default-profile chapter page under 20,000 px at 1280 px (the browser check)
FOLD_ROWS = 25
PREVIEW_ROWS = 10
#: a text cell longer than this many characters wraps (``td.long``); shorter ones stay on one line
LONG_TEXT = 30
#: resolution of the book's figures (dots per inch)
FIGURE_DPI = 160
#: the smallest text of a figure (ticks, legends), in points: 8 pt at FIGURE_DPI is about 18 image pixels, so a
#: figure shown at under 45% of its size has text under 8 px (the browser check asks for a full-size link then)
SMALLEST_PT = 8


def book_style() -> None:
    """Matplotlib settings for the book: >= 150 dpi, readable fonts, no top/right spines."""
    import matplotlib as mpl

    mpl.rcParams.update({
        "figure.dpi": FIGURE_DPI, "savefig.dpi": FIGURE_DPI, "savefig.bbox": "tight",
        "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": SMALLEST_PT,
        "xtick.labelsize": SMALLEST_PT, "ytick.labelsize": SMALLEST_PT,
        "axes.spines.top": False, "axes.spines.right": False,
    })


def _is_integral(col: pd.Series) -> bool:
    values = pd.to_numeric(col, errors="coerce").dropna()
    return bool(len(values)) and pd.api.types.is_numeric_dtype(col) and bool(
        np.all(np.isfinite(values)) and np.all(np.mod(values, 1) == 0))


def _cell(value, digits: int, integral: bool) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}" if abs(int(value)) >= 10_000 else str(int(value))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            return MISSING if math.isnan(float(value)) else ("∞" if value > 0 else "−∞")
        if integral:
            v = round(float(value))
            return f"{v:,}" if abs(v) >= 10_000 else str(v)
        return f"{float(value):.{digits}f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


#: a compared column's header: the paper's (or thesis') value, ours, their difference ("paper model" and
#: "our model" name models: labels, not values)
COMPARED = re.compile(r"^(paper|ours|diff|thesis)\b(?!.*\bmodel\b)", re.IGNORECASE)


def compared_first(frame: pd.DataFrame) -> pd.DataFrame:
    """The columns reordered so that paper, ours and difference come right after the leading label columns
    (the text columns before them), the other columns after them, each group in its own order: in a wide
    table they are then in the first screen of its scroll box."""
    cols = list(frame.columns)
    keys = [c for c in cols if COMPARED.match(str(c))]
    if not keys:
        return frame
    labels = []
    for c in cols:
        if c in keys or pd.api.types.is_numeric_dtype(frame[c]):
            break
        labels.append(c)
    return frame[labels + keys + [c for c in cols if c not in labels and c not in keys]]


def table_html(frame: pd.DataFrame, digits: int | dict[str, int] = 1, caption: str | None = None,
               more: bool = False) -> str:
    """A frame as an HTML table string: no index, "–" for missing values, integers as integers.

    Args:
        frame: the table; its column names are the headers (put units in them, "P@1 (%)").
        digits: decimals for float columns: one number for all, or ``{column: decimals}``
            (columns not named get 1).
        caption: an optional caption above the table (plain text).
        more: the full table in a dropdown below its short view (``table.xa-more``: the same table, so the
            book does not number it again; :mod:`xalign.book.numbering`).

    Paper, ours and difference columns come right after the row labels (:func:`compared_first`).
    Every header, cell and the caption is text, never markup: written through
    :func:`xalign.core.markup.text` (HTML, Markdown and MyST syntax inert, on one line), so the table is
    safe both as a notebook's HTML output and inside a generated Markdown page.

    Returns:
        ``<div class="xa-table"><table>...</table></div>``.
    """
    frame = frame.reset_index(drop=True) if not isinstance(frame.index, pd.RangeIndex) else frame
    frame = compared_first(frame)
    per_col = digits if isinstance(digits, dict) else {}
    default = 1 if isinstance(digits, dict) else digits
    cols = list(frame.columns)
    integral = {c: _is_integral(frame[c]) for c in cols}
    head = "".join(f"<th>{text(c)}</th>" for c in cols)
    body = []
    for row in frame.itertuples(index=False, name=None):
        cells = []
        for c, v in zip(cols, row):
            shown = _cell(v, per_col.get(c, default), integral[c])
            numeric = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            kind = "num" if numeric else ("txt long" if len(shown) > LONG_TEXT else "txt")
            cells.append(f'<td class="{kind}">{text(shown)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{text(caption)}</caption>" if caption else ""
    cls = "xa xa-more" if more else "xa"
    return (f'<div class="xa-table"><table class="{cls}">{cap}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def csv_link(frame: pd.DataFrame, name: str, label: str = "CSV") -> str:
    """A download link holding ``frame`` as CSV (a ``data:`` URL, so the page needs no file beside it).

    Args:
        frame: the data (its index is dropped unless it is named).
        name: the file's name without ``.csv`` (letters, digits and dashes are kept).
        label: the link's text.
    """
    import base64

    named = any(n is not None for n in frame.index.names)
    data = base64.b64encode(frame.to_csv(index=named).encode("utf-8")).decode("ascii")
    stem = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()[:60] or "data"
    return (f'<a class="xa-csv" download="{stem}.csv" href="data:text/csv;charset=utf-8;base64,{data}">'
            f"{text(label)}</a>")


def _summary(frame: pd.DataFrame) -> str:
    """One line above a folded table: how many rows, and how many of them miss a number ("–")."""
    numbers = frame.select_dtypes("number")
    gaps = int(numbers.isna().any(axis=1).sum()) if numbers.shape[1] else 0
    blank = f", {gaps} of them with a number missing ({MISSING})" if gaps else ""
    return (f"{len(frame)} rows{blank}; the first {PREVIEW_ROWS} below, every row in the dropdown "
            "and in the CSV file.")


def table(frame: pd.DataFrame, columns: Sequence[str] | None = None, digits: int | dict[str, int] = 1,
          caption: str | None = None, full_label: str = "Full table") -> None:
    """Show a table the book's way (see :func:`table_html`). Returns nothing, so a cell that ends with
    this call shows the table once.

    A table of more than :data:`FOLD_ROWS` rows is folded: a one-line summary, its first
    :data:`PREVIEW_ROWS` rows, every row in a dropdown. A folded or shortened table comes with the whole
    of it as a CSV download beside it.

    Args:
        frame: the table to show.
        columns: a short default set of columns shown first; the full table then follows in a
            dropdown (``<details>``). ``None`` shows every column.
        digits: decimals for float columns (one number, or per column).
        caption: caption above the table.
        full_label: the dropdown's summary line.
    """
    from IPython.display import HTML, display

    if columns is not None:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise KeyError(f"table: columns {missing} not in the frame (it has {list(frame.columns)})")
    short = frame if columns is None else frame[list(columns)]
    folded = len(frame) > FOLD_ROWS
    narrowed = columns is not None and list(columns) != list(frame.columns)
    out = ""
    if folded:
        out += f'<p class="xa-summary">{text(_summary(frame))}</p>'
        short = short.head(PREVIEW_ROWS)
    out += table_html(short, digits, caption)
    if folded or narrowed:
        label = full_label if narrowed or full_label != "Full table" else f"All {len(frame)} rows"
        out += (f'<details class="xa-full"><summary>{text(label)}</summary>'
                f"{table_html(frame, digits, more=True)}</details>"
                f'<p class="xa-download">{csv_link(frame, caption or "table", "The full table as CSV")}</p>')
    display(HTML(out))


def figure(name: str, fig) -> None:
    """Store ``fig`` for a ``{glue:figure}`` directive named ``name`` and close it (not shown here).

    Its drawn data (:func:`xalign.book.figure_data.figure_data`) is shown as a CSV download link, which
    the book moves into the figure named ``fig-<name>`` (:mod:`xalign.book.numbering`)."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML, display
    from myst_nb import glue

    from xalign.book.figure_data import figure_data

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", str(name)):
        raise ValueError(f"figure: name must be letters, digits, '-' or '_' (a figure's label), got {name!r}")
    data = figure_data(fig)
    glue(name, fig, display=False)
    plt.close(fig)
    if len(data):
        link = csv_link(data, name, "Data of this figure (CSV)")
        display(HTML(f'<p class="xa-figdata" data-figure="{name}">{link}</p>'))


def prose(markdown: str, before: str = "") -> None:
    """Show Markdown built from results (use in a cell tagged ``remove-input``); returns nothing.

    The values it interpolates are page text already (:func:`xalign.core.markup.text`); as a safety net
    the whole of it goes through :func:`xalign.core.markup.inert`, so that a value that did not still
    shows as text: raw HTML, MyST roles and directives, links, tables and math are not prose's to use
    (emphasis, lists and code spans are). ``before``: structured MyST shown first (:func:`myst`)."""
    from IPython.display import Markdown, display

    if before:
        myst(before)
    display(Markdown(inert(markdown)))


def myst(markdown: str) -> None:
    """Show MyST whose structure (a ``{table}`` directive, its Markdown table, ``{ref}`` links) the library
    wrote and whose every cell from results already went through :func:`xalign.core.markup.text` (as
    :func:`xalign.book.claims.claims_markdown` does); unlike :func:`prose`, the structure is kept."""
    from IPython.display import Markdown, display

    display(Markdown(markdown))
