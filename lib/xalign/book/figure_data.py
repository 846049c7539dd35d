"""A matplotlib figure's data as a table: what the book offers as the CSV beside each figure.

:func:`figure_data` reads the drawn artists back (so every chapter's figure gets its data without
handing it over separately): each line's points, each scatter's points, each bar's height and each
heatmap's cells, one row per point, named by panel (the axes' title) and series (the artist's label).
Confidence bands (filled areas) are left out: their lines' points are the values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["panel", "series", "x", "y", "value"]


def _label(artist) -> str:
    label = str(artist.get_label() or "")
    return "" if label.startswith("_") else label  # matplotlib's own names (_child0, _nolegend_)


def _ticks(ax, axis: str) -> dict[float, str]:
    get = ax.get_xticks if axis == "x" else ax.get_yticks
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    return {float(t): lab.get_text() for t, lab in zip(get(), labels) if lab.get_text()}


def _named(value: float, ticks: dict[float, str]):
    """A categorical axis's label for a position (a bar's centre, a heatmap's cell), else the number."""
    for t, name in ticks.items():
        if abs(t - value) < 1e-9:
            try:
                float(name.replace("−", "-"))
            except ValueError:
                return name
    return value


def figure_data(fig) -> pd.DataFrame:
    """Every panel's drawn values, one row per point: panel, series, x, y (and value, for a heatmap).

    Args:
        fig: a matplotlib figure.

    Returns:
        A frame with columns :data:`COLUMNS` (no rows for a figure with nothing drawn).
    """
    from matplotlib.collections import PathCollection
    from matplotlib.patches import Rectangle

    rows = []
    for i, ax in enumerate(fig.axes):
        panel = ax.get_title() or f"panel {i + 1}"
        xt, yt = _ticks(ax, "x"), _ticks(ax, "y")
        for line in ax.get_lines():
            xs, ys = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
            if len(xs) == 2 and len(set(map(str, ys))) == 1 and not _label(line):
                continue  # a reference line (axhline), not data
            rows += [(panel, _label(line), _named(float(x), xt) if np.isscalar(x) and isinstance(x, (int, float,
                      np.number)) else x, y, None) for x, y in zip(xs, ys)]
        for coll in ax.collections:
            if isinstance(coll, PathCollection):
                rows += [(panel, _label(coll), float(x), float(y), None) for x, y in np.asarray(coll.get_offsets())]
        for patch in ax.patches:
            if isinstance(patch, Rectangle) and patch.get_height() and ax.patches:
                x = patch.get_x() + patch.get_width() / 2
                rows.append((panel, _label(patch), _named(float(x), xt), float(patch.get_height()), None))
        for image in ax.images:
            cells = np.asarray(image.get_array())
            if cells.ndim != 2:  # a picture (RGB), not a heatmap of values
                continue
            for r in range(cells.shape[0]):
                for c in range(cells.shape[1]):
                    rows.append((panel, "cell", _named(float(c), xt), _named(float(r), yt), float(cells[r, c])))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.drop(columns="value") if frame["value"].isna().all() else frame
