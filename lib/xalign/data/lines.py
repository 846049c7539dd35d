"""One way to read a line-based text file, shared by every reader.

- UTF-8 only: a file that is not names itself, the line and the byte offset;
- a byte-order mark at the start is dropped (it would stay glued to the first word);
- lines end at LF or CRLF only. Unicode line separators (U+2028, U+0085, ...) are text, not
  line ends, so parallel files stay line-aligned (``str.splitlines`` would split them);
- a stray CR inside a line is an error with its place.
"""

from __future__ import annotations

from pathlib import Path


class DataFormatError(ValueError):
    """A data file does not have the expected format (the message names the file and line)."""


def read_lines(path: str | Path, what: str = "text", allow_empty: bool = False) -> list[str]:
    """Lines of a UTF-8 file without their LF / CRLF ends.

    ``what`` says what the file should hold, for the empty-file error; ``allow_empty``
    accepts a file with no non-blank line.
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataFormatError(f"{path}:{line}: not valid UTF-8 ({exc.reason} at byte {exc.start}); "
                              f"expected a UTF-8 file of {what}") from None
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    out = []
    for n, line in enumerate(lines, 1):
        line = line.removesuffix("\r")
        if "\r" in line:
            raise DataFormatError(f"{path}:{n}: stray carriage return inside the line: {line[:80]!r}")
        out.append(line)
    if not allow_empty and not any(line.strip() for line in out):
        raise DataFormatError(f"{path}: empty file (expected {what})")
    return out
