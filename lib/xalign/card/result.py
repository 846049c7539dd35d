"""A model card's result: one typed record with a format version, written and read by one function each.

:class:`CardResult` checks what :func:`xalign.card.battery.run_card` computes, what :func:`write_card` puts in
``<cards>/<model>.json`` and what :func:`read_card` reads; its fields say what a card holds. ``run_card``
and ``read_card`` hand on the JSON object it checked (:meth:`CardResult.to_dict`), so every page reads a
card the same way whether it was just computed or read from a file.

The file carries ``card_format`` (:data:`CARD_FORMAT`). A file without one was written before the field
existed; it holds the same fields and is read as format 1. A file of a newer format, one that is not a JSON
object, or one missing a required field is refused with an error that names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

from xalign.core.atomic import write_json
from xalign.core.jsonfile import JSONFileError, read_json_object
from xalign.core.paths import results_dir

#: the version of the card file's layout; raise it when a field changes meaning or is removed
CARD_FORMAT = 1


@dataclass(frozen=True)
class CardResult:
    """One model's card. Every field but ``model`` and ``measures`` is None where a card lacks it (a card
    from an older xalign, a test's small card); such a field is also absent from :meth:`to_dict`.

    Fields (units as the measures give them: % for accuracies and shares, x100 for correlations):
        model: the name the card was run for (a hub id or a path, as given).
        revision: the model's revision or content digest; precision: the compute precision it ran in.
        layered: whether the model exposes layers (False: one output vector only).
        layers: the layer labels scored, in order (``"0"`` = embeddings, ``"out"`` = the model's own output).
        dim: the vector width.
        config: the card's settings (:class:`xalign.card.battery.CardConfig` as a dict).
        scores: measure id -> its main score (at the best layer).
        measures: measure id -> its summary: title, level, unit, per-layer values with 95% intervals,
            the best layer and how firmly it is chosen, the receipt (what it was computed on).
        not_available: measure id -> why the model cannot have it.
        data: the data files read (data set, file, checksum, origin).
        xalign_version, python, packages: the software that made it.
        step_seconds: seconds per step; wall_time_s: the whole card's seconds.
        machine: the machine that made it (provenance only: in no score and no cache key).
        finished: ISO 8601 UTC time the card was finished.
        model_terms: the model's terms of use, where it has any (Gemma); absent otherwise.
        items_left_out: why a committed card holds no per-item outcomes (absent in a card as run).
        card_format: :data:`CARD_FORMAT`.
    """

    model: str
    measures: dict[str, dict]
    revision: str | None = None
    precision: str | None = None
    layered: bool | None = None
    layers: list[str] | None = None
    dim: int | None = None
    config: dict[str, Any] | None = None
    scores: dict[str, float] | None = None
    not_available: dict[str, str] | None = None
    data: list[dict] | None = None
    xalign_version: str | None = None
    python: str | None = None
    packages: dict[str, str] | None = None
    step_seconds: dict[str, float] | None = None
    wall_time_s: float | None = None
    machine: dict | None = None
    finished: str | None = None
    model_terms: dict[str, str] | None = None
    items_left_out: str | None = None
    card_format: int = CARD_FORMAT

    def to_dict(self) -> dict[str, Any]:
        """The JSON object the file holds (an optional field that is not set is left out)."""
        return {k: v for k, v in asdict(self).items() if not (k in _OPTIONAL and v is None)}


_NAMES = tuple(f.name for f in fields(CardResult))
#: every field but the required ones: a card holds them where they apply (``model_terms``) or where its
#: version of xalign wrote them; one not set is absent from the file and from :meth:`CardResult.to_dict`
_OPTIONAL = tuple(f.name for f in fields(CardResult) if f.default is None)
#: the fields every card file holds, as the pages read them (``model``, ``measures``)
REQUIRED = tuple(f.name for f in fields(CardResult) if f.default is MISSING and f.default_factory is MISSING)


def card_result(record: Mapping, source: str = "a card") -> CardResult:
    """A :class:`CardResult` from a JSON object (a file's, or a test's dictionary).

    Raises:
        JSONFileError: a required field is missing, a field is unknown, or the format is newer than this
            version of xalign reads; the message names ``source``.
    """
    version = record.get("card_format", 1)
    if not isinstance(version, int) or version > CARD_FORMAT:
        raise JSONFileError(f"{source}: card format {version!r}; this xalign reads format {CARD_FORMAT} or older "
                            "(update xalign, or run `xalign card` for that model again)")
    missing = [k for k in REQUIRED if k not in record]
    unknown = sorted(set(record) - set(_NAMES))
    if missing or unknown:
        raise JSONFileError(f"{source}: not a card result: "
                            + "; ".join(x for x in (f"missing {', '.join(missing)}" if missing else "",
                                                    f"unknown field(s) {', '.join(unknown)}" if unknown else "")
                                        if x))
    return CardResult(**{**dict(record), "card_format": CARD_FORMAT})


def write_card(card: CardResult | Mapping, path: str | Path) -> Path:
    """Write ``card`` (a :class:`CardResult`, or a dictionary with its fields) to ``path`` atomically."""
    result = card if isinstance(card, CardResult) else card_result(card, str(path))
    write_json(Path(path), result.to_dict())
    return Path(path)


def read_card(path: str | Path) -> dict:
    """The card in ``path``, checked as a :class:`CardResult` (the JSON object, with ``card_format``).

    Raises:
        JSONFileError: the file cannot be read, is not a JSON object, or is not a card result (names the file).
    """
    return card_result(read_json_object(Path(path), "card result file", ("model", "measures")), str(path)).to_dict()


class CardsDirError(ValueError):
    """A cards folder (``--out``) that cannot be used: its parent folder does not exist, or it is not there to read."""


def cards_dir(root: str | Path | None = None, create: bool = True) -> Path:
    """The cards folder: ``root`` (``--out``) or ``results/cards``; created when ``create`` (for writing).

    Raises:
        CardsDirError: ``root``'s parent folder does not exist (a typo in ``--out`` is not silently made
            into a new tree of folders), or ``root`` is a file.
    """
    if not root:
        path = results_dir() / "cards"
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return path
    path = Path(root)
    if not path.parent.is_dir():
        raise CardsDirError(f"--out {path}: its folder {path.parent} does not exist (a typo?); create it first")
    if path.exists() and not path.is_dir():
        raise CardsDirError(f"--out {path}: a file, not a folder")
    if create:
        path.mkdir(exist_ok=True)
    return path


def load_cards(root: str | Path | None = None) -> list[dict]:
    """Every card result file in the cards folder (:func:`xalign.card.result.read_card`); one that cannot be
    used (cut short, a JSON list, not a card, a newer card format) is skipped with a warning naming it."""
    import warnings

    out = []
    for path in sorted(cards_dir(root, create=False).glob("*.json")):  # reading creates no folder
        try:
            out.append(read_card(path))
        except JSONFileError as exc:
            warnings.warn(f"xalign: skipped {exc}; run `xalign card` for that model again (or remove the file)",
                          RuntimeWarning, stacklevel=2)
    return out
