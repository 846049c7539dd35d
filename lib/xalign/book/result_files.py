"""Reading saved chapter results: the files of a chapter and profile, one result checked field by field.

A result file comes from anywhere (a rerun, another machine, a hand edit): every field the book reads is
checked here, and a name read from a file resolves inside its folder, never outside it.
"""

from __future__ import annotations

import json
from pathlib import Path

from xalign.core.jsonfile import JSONFileError, read_json_object
from xalign.core.paths import results_dir


def result_files(chapter: str, profile: str, root: Path | None = None) -> list[Path]:
    """Every saved result of one chapter and profile (one per model; the pre-ledger
    ``<chapter>/<profile>.json`` too), newest first."""
    root = Path(root) if root else results_dir()
    files = list((root / plain_name(chapter, "chapter") / plain_name(profile, "profile")).glob("*.json"))
    legacy = root / chapter / f"{profile}.json"
    if legacy.exists():
        files.append(legacy)
    return sorted(files, key=lambda p: (_finished(p), p.name), reverse=True)


#: the fields every saved result has (a file without them is not a chapter result)
RESULT_FIELDS = ("chapter", "profile", "tables")


def plain_name(value, what: str) -> str:
    """``value`` when it is one plain folder or file name part (a chapter id, a profile): a non-empty string
    without ``/``, ``\\``, a leading ``.`` (so no ``..``) or NUL; else ValueError naming ``what``. Names read
    from a file (a reference's ``"chapter"``) so resolve inside their folder, never outside it."""
    if (not isinstance(value, str) or not value or value.startswith(".") or value != value.strip()
            or any(c in value for c in "/\\\0")):
        raise ValueError(f"{what} {value!r}: must be one plain name (no '/', '\\', leading '.')")
    return value


def read_result(path: str | Path, what: str = "results file") -> dict:
    """One saved result (``_path`` added).

    Raises:
        JSONFileError: naming the file, when it is cut short, not a JSON object, lacks
            :data:`RESULT_FIELDS`, or a field has the wrong type: ``chapter``/``profile`` not one plain name
            (:func:`plain_name`: ``"../../outside"`` would reach out of the results folder), ``tables`` not an
            object of objects, a table's ``rows`` not a list of objects, ``finished`` not text.
    """
    res = read_json_object(path, what, RESULT_FIELDS)
    if not isinstance(res["tables"], dict):
        raise JSONFileError(f"{what} {path}: 'tables' is a JSON {type(res['tables']).__name__}, expected an object")
    for field_ in ("chapter", "profile"):
        try:
            plain_name(res[field_], f"'{field_}'")
        except ValueError as exc:
            raise JSONFileError(f"{what} {path}: {exc}") from None
    for name, table in res["tables"].items():
        rows = table.get("rows", []) if isinstance(table, dict) else None
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise JSONFileError(f"{what} {path}: table {name!r} must be an object whose 'rows' is a list of "
                                f"objects, got {type(table).__name__ if rows is None else type(rows).__name__}"
                                f"{'' if rows is None or not isinstance(rows, list) else ' with other items'}")
    if res.get("finished") is not None and not isinstance(res["finished"], str):
        raise JSONFileError(f"{what} {path}: 'finished' is a JSON {type(res['finished']).__name__}, expected a "
                            "time as text")
    res["_path"] = str(path)
    return res


def load_results(chapter: str, profile: str, root: Path | None = None) -> list[dict]:
    """The saved results of one chapter and profile, newest first (``_path`` names each file).

    A file that cannot be used (cut short, a JSON list, ...) is skipped with a warning naming it:
    one damaged result of one model does not stop the status page, ``xalign check`` or the end of
    a chapter run that only needs the others.
    """
    import warnings

    out = []
    for path in result_files(chapter, profile, root):
        try:
            out.append(read_result(path))
        except JSONFileError as exc:
            warnings.warn(f"xalign: skipped {exc}; rerun its chapter (or remove the file)", RuntimeWarning,
                          stacklevel=2)
    return out


def _finished(path: Path) -> str:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    finished = value.get("finished") if isinstance(value, dict) else None
    return finished if isinstance(finished, str) else ""  # a number there is named by read_result


def finished_text(finished) -> str:
    """A result's ``finished`` time as a reader reads it: ``"2 December 2026, 07:20 UTC"`` from
    ``"2026-12-02T07:20:46+00:00"`` (times with another offset are converted); ``"?"`` when absent, and an
    unparseable value as it is."""
    from datetime import datetime, timezone

    if not finished:
        return "?"
    try:
        t = datetime.fromisoformat(str(finished))
    except ValueError:
        return str(finished)
    if t.tzinfo is not None:
        t = t.astimezone(timezone.utc)
    return f"{t.day} {t:%B %Y, %H:%M}" + (" UTC" if t.tzinfo is not None else "")
