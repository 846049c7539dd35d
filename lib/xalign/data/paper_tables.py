"""The papers' own numbers, transcribed as CSV and shipped as package data.

``xalign/papers/<paper>/tables/<table>.csv`` in long format: key columns, ``value`` and
sometimes ``std``; ``#`` lines cite where in the paper each value stands.
"""

from __future__ import annotations

import pandas as pd

from xalign.core.paths import paper_tables_dir


def paper_table(paper: str, table: str) -> pd.DataFrame:
    """The paper's own values for one table (long format: key columns, ``value``, maybe ``std``)."""
    path = paper_tables_dir(paper) / f"{table}.csv"
    if not path.exists():
        raise FileNotFoundError(f"no transcription of {paper} {table}: {path}")
    return pd.read_csv(path, comment="#", keep_default_na=False, na_values=[""])
