"""Declared ranges of a chapter's parameters, and the one check of a value against them.

Each paper's ``profiles.yaml`` holds, next to its profiles, a ``ranges:`` mapping with one
entry per parameter. An entry is a small mapping; its keys say what a value may be:

- ``int: [lo, hi]``: an integer (not a bool) with ``lo <= v <= hi``; ``null`` is unbounded.
- ``float: [lo, hi]``: a number in ``[lo, hi]``.
- ``choice: [a, b, ...]``: one of these values.
- ``pattern: REGEX``: a string the regular expression matches in full (e.g. a language pair).
- ``str: true``: any string (a path, a model id; ``""`` too).
- ``bool: true`` / ``dict: true``: a boolean / any mapping.
- ``list: ITEM``: a list, or a comma string ``"a,b,c"`` (papermill ``-p``), each item checked against
  the entry ITEM (items of a comma string may be integer text: ``"0,6,12"``); ``min_items`` (default 1:
  ``""`` is an error, not "use the profile") and ``unique`` (default true: ``de-en,de-en`` is an error).
- ``or: [ENTRY, ...]``: the first alternative that admits the value.
- ``nullable: true``: ``None`` is admitted (the profiles' "all" / "not set").
- ``layer: true``: the integers are layer indices (0 = embeddings); :func:`check_layers` checks them
  against the model's layer count once that is known.
- ``at_most: [NAME, ...]``: at most the values of those parameters (e.g. CSLS ``k`` <= ``n_pairs``).

:func:`check_values` is the one place a value is checked: ``xalign run`` (before papermill
starts), the notebook's own parameter resolution (papermill used directly) and the Python API
all call it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from xalign.core.profiles import RANGES_KEY, ParameterError, as_list, load_profiles

#: the keys an entry may hold
ENTRY_KEYS = {"int", "float", "choice", "pattern", "str", "bool", "dict", "list", "or", "nullable", "layer",
              "at_most", "min_items", "unique"}
#: the keys that say what kind of value an entry admits (each entry has exactly one)
KIND_KEYS = ("int", "float", "choice", "pattern", "str", "bool", "dict", "list", "or")


def load_ranges(path: str | Path) -> dict[str, dict]:
    """The ``ranges:`` of a profile file, validated against its profiles (every parameter, well formed)."""
    path = Path(path)
    profiles = load_profiles(path)
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if RANGES_KEY not in raw:
        raise ParameterError(f"{path}: no '{RANGES_KEY}:' mapping (every parameter needs a declared range)")
    names = next(iter(profiles.values()))
    ranges = parse_ranges(raw[RANGES_KEY], names, str(path))
    for profile, values in profiles.items():
        check_values(ranges, values, f"{path}: profile {profile!r}")
    return ranges


def parse_ranges(raw, names, where: str) -> dict[str, dict]:
    """Validate a ``ranges:`` mapping: one well-formed entry for every parameter name, no others.

    Args:
        raw: the mapping read from ``profiles.yaml``.
        names: the parameter names of the profiles.
        where: the file, for messages.

    Returns:
        ``raw`` (name -> entry), unchanged.
    """
    if not isinstance(raw, dict):
        raise ParameterError(f"{where}: 'ranges' must map each parameter to its range, got {type(raw).__name__}")
    missing, extra = sorted(set(names) - set(raw)), sorted(set(raw) - set(names))
    if missing or extra:
        raise ParameterError(f"{where}: 'ranges' must declare every parameter and no other: "
                             f"missing {missing}, not a parameter {extra}")
    for name, entry in raw.items():
        _check_entry(entry, f"{where}: ranges.{name}")
    return raw


def _check_entry(entry, where: str) -> None:
    if not isinstance(entry, dict):
        raise ParameterError(f"{where}: expected a mapping such as {{int: [1, null]}}, got {entry!r}")
    unknown = sorted(set(entry) - ENTRY_KEYS)
    kinds = [k for k in KIND_KEYS if k in entry]
    if unknown or len(kinds) != 1:
        raise ParameterError(f"{where}: needs exactly one of {list(KIND_KEYS)} and only keys of "
                             f"{sorted(ENTRY_KEYS)}; got {sorted(entry)}")
    kind = kinds[0]
    if kind in ("int", "float") and not (isinstance(entry[kind], list) and len(entry[kind]) == 2):
        raise ParameterError(f"{where}: {kind} must be [lo, hi] (null: unbounded), got {entry[kind]!r}")
    if kind == "choice" and not isinstance(entry[kind], list):
        raise ParameterError(f"{where}: choice must be a list, got {entry[kind]!r}")
    if kind == "list":
        _check_entry(entry["list"], where + ".list")
    if kind == "or":
        if not isinstance(entry["or"], list) or not entry["or"]:
            raise ParameterError(f"{where}: or must be a list of entries")
        for i, alt in enumerate(entry["or"]):
            _check_entry(alt, f"{where}.or[{i}]")


def describe(entry: dict) -> str:
    """An entry in words, e.g. ``an integer >= 1``, ``one of ['cosine', 'csls']``."""
    parts = [_describe_kind(entry)]
    if entry.get("at_most"):
        parts.append(f"at most {' and '.join(as_list(entry['at_most']))}")
    if entry.get("layer"):
        parts.append("a layer of the model (0 = embeddings)")
    text = ", ".join(parts)
    return text + (" or null" if entry.get("nullable") else "")


def _bounds(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f"in [{lo}, {hi}]"
    if lo is not None:
        return f">= {lo}"
    return f"<= {hi}" if hi is not None else ""


def _describe_kind(entry: dict) -> str:
    if "int" in entry:
        return f"an integer {_bounds(*entry['int'])}".strip()
    if "float" in entry:
        return f"a number {_bounds(*entry['float'])}".strip()
    if "choice" in entry:
        return f"one of {entry['choice']}"
    if "pattern" in entry:
        return f"a string matching {entry['pattern']!r}"
    if "str" in entry:
        return "a string"
    if "bool" in entry:
        return "true or false"
    if "dict" in entry:
        return "a mapping"
    if "list" in entry:
        lo = entry.get("min_items", 1)
        unique = ", no repeats" if entry.get("unique", True) else ""
        return f"a list or comma string of at least {lo} item(s){unique}, each {describe(entry['list'])}"
    return " or ".join(describe(alt) for alt in entry["or"])


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _admits(entry: dict, value, in_list: bool = False) -> bool:
    """Whether ``value`` lies in ``entry`` (``at_most`` and ``layer`` aside)."""
    if value is None:
        return bool(entry.get("nullable"))
    if "int" in entry:
        if in_list and isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
            value = int(value)
        lo, hi = entry["int"]
        return _is_int(value) and (lo is None or value >= lo) and (hi is None or value <= hi)
    if "float" in entry:
        if in_list and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return False
        lo, hi = entry["float"]
        return (isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)
                and (lo is None or value >= lo) and (hi is None or value <= hi))
    if "choice" in entry:
        return any(value == c and type(value) is type(c) for c in entry["choice"])
    if "pattern" in entry:
        return isinstance(value, str) and re.fullmatch(entry["pattern"], value) is not None
    if "str" in entry:
        return isinstance(value, str)
    if "bool" in entry:
        return isinstance(value, bool)
    if "dict" in entry:
        return isinstance(value, dict)
    if "list" in entry:
        if not isinstance(value, (str, list, tuple)):
            return False
        items = as_list(value)
        if len(items) < entry.get("min_items", 1):
            return False
        if entry.get("unique", True) and len({repr(i) for i in items}) != len(items):
            return False
        return all(_admits(entry["list"], i, in_list=True) for i in items)
    return any(_admits(alt, value, in_list) for alt in entry["or"])


def check_value(name: str, value, entry: dict, values: Mapping | None = None, where: str = "") -> None:
    """Raise :class:`ParameterError` naming ``name``, ``value`` and the range when ``value`` is outside ``entry``.

    Args:
        name: the parameter.
        value: its value (a resolved one: ``None`` is the profile's "not set", admitted where ``nullable: true``).
        entry: its declared range (see the module docstring).
        values: every parameter's value, for ``at_most``.
        where: a prefix for the message (the chapter).
    """
    prefix = f"{where}: " if where else ""
    if not _admits(entry, value):
        raise ParameterError(f"{prefix}parameter {name!r} = {value!r} is outside its range: "
                             f"it must be {describe(entry)}{_why(entry, value)}")
    for other in as_list(entry.get("at_most")):
        bound = (values or {}).get(other)
        if _is_int(value) and _is_int(bound) and value > bound:
            raise ParameterError(f"{prefix}parameter {name!r} = {value!r} is outside its range: it must be at "
                                 f"most {other} = {bound} (a value beyond it would be clipped silently)")


def _why(entry: dict, value) -> str:
    """A hint for the common mistakes: an empty value, a repeated item."""
    if "list" in entry and isinstance(value, (str, list, tuple)):
        items = as_list(value)
        if not items:
            return " (an empty value is not \"use the profile\": leave the parameter out for that)"
        seen = [i for n, i in enumerate(items) if i in items[:n]]
        if seen and entry.get("unique", True):
            return f" ({seen[0]!r} is given twice)"
    return ""


def check_values(ranges: Mapping[str, dict], values: Mapping, where: str = "") -> None:
    """Check every value that has a declared range (see :func:`check_value`)."""
    for name, value in values.items():
        if name in ranges:
            check_value(name, value, ranges[name], values, where)


def layer_values(entry: dict, value) -> list[int]:
    """The layer indices a value of a ``layer: true`` entry names (strings such as ``"all"`` name none)."""
    if _is_int(value):
        return [value]
    if isinstance(value, (str, list, tuple)):
        out = []
        for item in as_list(value):
            if _is_int(item):
                out.append(item)
            elif isinstance(item, str) and re.fullmatch(r"\s*-?\d+\s*", item):
                out.append(int(item))
        return out
    return []


def check_layers(ranges: Mapping[str, dict], values: Mapping, n_layers: int, model: str, where: str = "") -> None:
    """Check the ``layer: true`` parameters against a model with ``n_layers`` hidden states (embeddings included).

    A layer index ``i`` is valid when ``-n_layers <= i < n_layers`` (negative ones count from the
    last, where the entry's own range admits them).
    """
    prefix = f"{where}: " if where else ""
    for name, entry in ranges.items():
        if not entry.get("layer") or name not in values:
            continue
        for i in layer_values(entry, values[name]):
            if not -n_layers <= i < n_layers:
                raise ParameterError(f"{prefix}parameter {name!r} = {values[name]!r}: layer {i} is beyond model "
                                     f"{model!r}, whose layers are 0..{n_layers - 1} (0 = embeddings): give {name} within them")
