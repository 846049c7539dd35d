"""Reading the JSON files xalign writes (results, references, cards): a bad file is named, never a bare traceback."""

from __future__ import annotations

import json
from pathlib import Path


class JSONFileError(ValueError):
    """A JSON file that cannot be used: unreadable, cut short, not an object, or lacking a field."""


def read_json_object(path: str | Path, what: str = "JSON file", required: tuple[str, ...] = ()) -> dict:
    """The JSON object stored in ``path``.

    Args:
        path: the file.
        what: what the file is ("results file", "reference"), for the error message.
        required: keys the object must have.

    Returns:
        The decoded object (a dict).

    Raises:
        JSONFileError: the file cannot be read, is not valid JSON (the message gives the line and
            column, e.g. of a file cut short), is not a JSON object (a list, a number) or lacks one of
            ``required``; the message names the file.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JSONFileError(f"{what} {path}: cannot be read ({type(exc).__name__}: {exc})") from exc
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (the file looks cut short)" if exc.pos >= len(text.rstrip()) else ""
        raise JSONFileError(f"{what} {path}: line {exc.lineno}, column {exc.colno}: not valid JSON: "
                            f"{exc.msg}{cut}") from exc
    if not isinstance(value, dict):
        raise JSONFileError(f"{what} {path}: holds a JSON {type(value).__name__}, expected an object")
    missing = [k for k in required if k not in value]
    if missing:
        raise JSONFileError(f"{what} {path}: lacks {', '.join(missing)}")
    return value
