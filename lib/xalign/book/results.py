"""Machine-readable chapter results, and our numbers next to the paper's.

A chapter creates one :class:`ChapterRun`, compares each reproduced table with
the paper's own values (``xalign/papers/<paper>/tables/<table>.csv``, transcribed
from the paper), stores the series each redrawn figure plots (:meth:`ChapterRun.figure`)
and saves ``results/<chapter>/<profile>/<model>.json``: the model and its
revision, the data files and their sha256, the parameters, the package version,
the git commit and a hash of the library code, the wall time, and every table
(paper, ours, difference). Runs with different models sit side by side. The
book's front page (:mod:`xalign.book.ledger`, :mod:`xalign.book.status`) and
``xalign check`` (:mod:`xalign.book.check`) read these files.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from xalign import __version__
from xalign.book.result_files import (  # noqa: F401 (the reading half, re-exported)
    RESULT_FIELDS,
    load_results,
    plain_name,
    read_result,
    result_files,
)
from xalign.core.atomic import write_json
from xalign.core.gemma_model import terms_field
from xalign.core.names import case_safe, unique_name
from xalign.core.paths import PACKAGE_ROOT, PROJECT_ROOT, results_dir
from xalign.data.paper_tables import paper_table
from xalign.papers.meta import params_model

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
    #: "table" (compared or recorded) or "figure" (the series a figure plots)
    kind: str = "table"
    #: whether the run that compared this table used the paper's own setup
    paper_setup: bool = False


@dataclass
class ChapterRun:
    """Collects one chapter run's results; ``save()`` writes them atomically."""

    chapter: str
    paper: str
    profile: str
    params: dict
    model: str | None = None
    model_revision: str | None = None
    #: what the encoder computes in ("bfloat16", "torch.float32", ...), recorded by use_encoder
    precision: str | None = None
    #: the input prefix every text was given (the model family's documented one, e.g. e5's "query: ")
    model_prefix: str | None = None
    tables: dict[str, TableResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    #: True only when the run uses the paper's own model(s) and data; otherwise a
    #: table with every paper cell matched is still only "partly" reproduced.
    paper_setup: bool = False
    #: the chapter's result in one sentence, generated from its numbers (the book's front page shows it)
    headline: str = ""
    #: the glue name of the chapter's key figure (the front page shows it as a thumbnail)
    key_figure: str = ""
    #: the encoders given to use_encoder, read again at save() for what they counted while encoding
    encoders: list = field(default_factory=list, repr=False)

    def set_headline(self, sentence: str, key_figure: str = "") -> None:
        """Record the chapter's result in one sentence (with its interval) and the glue name of its key figure."""
        self.headline, self.key_figure = sentence, key_figure or self.key_figure

    def model_name(self) -> str:
        """The model the numbers come from: the encoder recorded by :meth:`use_encoder`,
        else the one its parameters name (:func:`xalign.papers.meta.params_model`)."""
        return self.model or params_model(self.params) or "unknown-model"

    def use_encoder(self, encoder) -> None:
        """Record the encoder the numbers come from: name, revision and the precision it computes in.

        :meth:`save` also records what the encoder counted while the chapter ran: ``n_blank_texts``,
        the empty or whitespace-only texts it encoded (they all share one vector).
        """
        from xalign.core.precision import precision_of

        self.model, self.model_revision = encoder.name, encoder.revision
        inner = getattr(encoder, "encoder", None) or encoder  # a WordEncoder wraps an Encoder
        self.model_prefix = getattr(inner, "prefix", None)
        self.precision = precision_of(inner) if hasattr(inner, "model") else None
        if not any(e is encoder or e is inner or getattr(e, "encoder", None) is inner for e in self.encoders):
            self.encoders.append(encoder)  # the object given: a released WordEncoder keeps its counts, not its model

    def encoder_counts(self) -> dict[str, int]:
        """What the recorded encoders counted so far: ``n_truncated_texts`` (cut at their token limit) and
        ``n_blank_texts`` (empty, whitespace- or zero-width-only), summed over the encoders."""
        def count(e, name: str) -> int:
            inner = getattr(e, "encoder", None) or e
            return int(getattr(inner, name, None) or getattr(e, name, 0) or 0)

        return {name: sum(count(e, name) for e in self.encoders) for name in ("n_truncated_texts", "n_blank_texts")}

    def n_blank_texts(self) -> int:
        """Empty, whitespace- or zero-width-only texts the recorded encoders have encoded so far."""
        return self.encoder_counts()["n_blank_texts"]

    def compare(self, table: str, ours: pd.DataFrame, keys: list[str], title: str = "",
                value: str = "value", paper: pd.DataFrame | None = None, note: str = "",
                status: str | None = None) -> pd.DataFrame:
        """Side-by-side table: the key columns, ``paper``, ``ours``, ``diff`` (ours - paper).

        Paper rows without a counterpart in ``ours`` stay, with ``ours`` empty;
        our rows the paper has no value for are kept too. The status is
        ``reproduced`` when every paper cell has ours and the run uses the
        paper's own setup (``paper_setup``), ``partly`` when some cells (or
        all, with another model or data) do, ``not run here`` when none do
        (or as given). Rows whose ``collapsed`` column is True (a classifier
        that predicts one class for every test item) are kept and flagged,
        but left out of ``max_abs_diff``, as the ledger leaves them out.
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
        judged = has_paper & merged["ours"].notna()
        if "collapsed" in merged.columns:  # a collapsed classifier's agreement says nothing: not summarised
            judged &= ~merged["collapsed"].eq(True)
        diffs = merged.loc[judged, "diff"].abs()
        self.tables[table] = TableResult(
            table=table, title=title or table, status=status,
            max_abs_diff=float(diffs.max()) if len(diffs) else None,
            n_paper=n_paper, n_matched=matched,
            rows=_records(merged), note=note, paper_setup=bool(self.paper_setup))
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

    def figure(self, item: str, data: pd.DataFrame | dict, title: str = "", note: str = "") -> pd.DataFrame:
        """Store the series a figure plots (``item``: the paper's label, "Fig. 4").

        ``data`` is a long data frame (one row per plotted point) or a dict
        ``{series name: {x: y}}`` / ``{series name: [y, ...]}``. The ledger
        compares it with the paper where the paper gives numbers, and
        ``xalign check`` compares it with the reference run. Returns ``data``
        as a frame.
        """
        frame = _figure_frame(item, data)
        self.tables[item] = TableResult(table=item, title=title or item, status="redrawn",
                                        max_abs_diff=None, n_paper=0, n_matched=0,
                                        rows=_records(frame), note=note, kind="figure")
        return frame

    def not_run(self, table: str, title: str, why: str) -> None:
        """Declare a paper table this run could not reproduce, and why."""
        self.tables[table] = TableResult(table=table, title=title, status="not run here",
                                         max_abs_diff=None, n_paper=0, n_matched=0, rows=[], note=why)

    def overrides(self) -> dict:
        """The parameters this run sets differently from its profile (``-p name value``), model parameters
        aside (the model is in the file name already): :func:`profile_overrides`."""
        return profile_overrides(self.paper, self.profile, self.params)

    def path(self) -> Path:
        """``results/<chapter>/<profile>/<model>.json`` (model name made filesystem-safe); a run with
        overrides goes beside it, ``<model>.<name>-<value>.json`` (:func:`overrides_suffix`), never over it."""
        name = safe_name(self.model_name()) + overrides_suffix(self.overrides())
        folder = results_dir() / self.chapter / self.profile
        return folder / f"{case_safe(folder, name, self.model_name())}.json"

    def device(self) -> str | None:
        """The device the recorded encoders ran on ("cpu", "cuda:0"); None when no encoder says."""
        for e in self.encoders:
            inner = getattr(e, "encoder", None) or e
            if isinstance(getattr(inner, "device", None), str):
                return inner.device
        return None

    def save(self) -> Path:
        from xalign.core.machine import machine_record, package_versions
        from xalign.data.datasets import provenance

        blank = self.n_blank_texts()
        blank_note = f"{blank} empty or whitespace-only texts were encoded; they all share one vector"
        out = {
            "chapter": self.chapter, "paper": self.paper, "profile": self.profile,
            "model": self.model_name(), "model_revision": self.model_revision, **terms_field(self.model_revision),
            "precision": self.precision,
            "model_prefix": self.model_prefix, "paper_setup": bool(self.paper_setup),
            "params": self.params, "xalign_version": __version__,
            "git_commit": git_commit(), "code_hash": code_hash(),
            "python": platform.python_version(), "packages": package_versions(),
            "data": provenance(), "wall_time_s": round(time.time() - self.started, 1),
            **kernel_usage(), "machine": machine_record(self.device()),  # provenance: in no table, no cache key
            "perturbation": os.environ.get("XALIGN_PERTURB") or None,  # the variation harness's reruns only
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "overrides": self.overrides(),
            "notes": self.notes + ([blank_note] if blank else []),
            "headline": self.headline, "key_figure": self.key_figure,
            "n_blank_texts": blank, "encoder_counts": self.encoder_counts(),
            "tables": {k: vars(v) for k, v in self.tables.items()},
        }
        path = self.path()
        write_json(path, out)
        return path


def kernel_usage() -> dict[str, float | None]:
    """This process's peak resident memory (MiB), CPU seconds (user + system), system seconds and
    minor page faults so far: the chapter kernel's, where a chapter saves. (System time is mostly
    the kernel faulting in and zeroing freshly allocated pages: see :mod:`xalign.core.memory`.)"""
    try:
        import resource
    except ImportError:  # not on this platform
        return {"peak_rss_mib": None, "cpu_time_s": None, "system_time_s": None, "page_faults": None}
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {"peak_rss_mib": round(ru.ru_maxrss / 1024, 1), "cpu_time_s": round(ru.ru_utime + ru.ru_stime, 1),
            "system_time_s": round(ru.ru_stime, 1), "page_faults": int(ru.ru_minflt)}


def profile_overrides(paper: str, profile: str, params: dict) -> dict:
    """The parameters in ``params`` whose value differs from the profile's (the parameters naming the
    encoder aside: :func:`xalign.papers.meta.model_parameters`).

    Args:
        paper: the paper package ("gaschi2022").
        profile: the profile the run was started with ("default"); an unknown profile has no overrides.
        params: the run's parameters (the profile's values with the ``-p`` overrides applied).

    Returns:
        ``{name: value}`` of the overridden parameters, sorted by name; empty for the profile's own run.
    """
    from xalign.papers import meta

    try:
        declared = meta.profiles(paper)[profile]
    except (KeyError, ValueError):
        return {}
    models = meta.model_parameters(paper)
    same = lambda a, b: json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
    return {k: params[k] for k in sorted(params)
            if k in declared and k not in models and not same(_plain(params[k]), _plain(declared[k]))}


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def overrides_suffix(overrides: dict, limit: int = 80) -> str:
    """The file-name part that names a run's overrides: ``{"seed": 1, "n": 50}`` -> ``".n-50.seed-1"``
    (values made filesystem-safe; past ``limit`` characters, a hash of the overrides stands for the tail)."""
    if not overrides:
        return ""
    parts = []
    for k, v in overrides.items():
        text = ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
        parts.append(f"{k}-{_file_part(text) or 'empty'}")  # readable; the file's own name is the model's
    out = "." + ".".join(parts)
    if len(out) > limit:
        digest = hashlib.sha256(json.dumps(overrides, sort_keys=True, default=str).encode()).hexdigest()[:10]
        out = out[:limit - 11] + "." + digest
    return out


def safe_name(name: str) -> str:
    """A model name usable as a file name ("sentence-transformers/LaBSE" -> "sentence-transformers--LaBSE");
    one per model: a name that cannot be read back from it, or a long one, gets a short hash of the full
    name (:func:`xalign.core.names.unique_name`)."""
    out = _file_part(name.replace("/", "--")) or "unknown-model"
    return unique_name(name, out, out.replace("--", "/") == name)


def _file_part(text: str) -> str:
    """``text`` with every run of characters a file name should not hold made ``-`` (ends trimmed)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip(".-")


@functools.cache
def code_hash() -> str:
    """sha256 (first 16 hex digits) of the library code: every ``xalign/**/*.py``, by relative path and content."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(PACKAGE_ROOT).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def git_commit() -> str | None:
    """The checkout's commit (with "+dirty" when the work tree differs), or None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=PROJECT_ROOT, capture_output=True,
                              text=True, timeout=10)
        if head.returncode:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], check=False, cwd=PROJECT_ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def _figure_frame(item: str, data) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        frame = data.reset_index() if not isinstance(data.index, pd.RangeIndex) else data
        return frame.copy()
    if isinstance(data, pd.Series):
        return data.reset_index()
    if isinstance(data, dict):
        rows = []
        for series, values in data.items():
            points = values.items() if isinstance(values, dict) else enumerate(values)
            rows += [{"series": str(series), "x": x, "y": y} for x, y in points]
        return pd.DataFrame(rows, columns=["series", "x", "y"])
    raise TypeError(f"figure {item!r}: data must be a data frame or a dict of series, not {type(data).__name__}")


def _records(frame: pd.DataFrame) -> list[dict]:
    clean = frame.replace({np.nan: None})
    return [{str(k): (v.item() if isinstance(v, np.generic) else v) for k, v in row.items()}
            for row in clean.to_dict(orient="records")]
