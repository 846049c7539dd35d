"""A chapter's parameters as one typed, frozen object, generated from its ``profiles.yaml``.

The profile file declares every parameter three times over: its value in each profile, its range
(``ranges:``, :mod:`xalign.core.param_ranges`) and a one-line doc (``docs:``, :func:`load_docs`).
:func:`parameters_class` turns them into a frozen dataclass (:func:`dataclasses.make_dataclass`) whose
fields are the parameters in the profiles' order, then ``profile``; each field's type is read off its range
(:func:`annotation`) and its range and doc travel in the field's ``metadata``. The class docstring lists
name, type, range and doc.

Constructing an instance is the one check of a chapter's values (:func:`xalign.core.param_ranges.check_values`,
on the values as given, so the messages name the value the user typed) followed by one normalisation
(:func:`normalise`): a list of numbers given as a comma string (papermill ``-p xnli_Cs 0.25,1``) becomes
``[0.25, 1.0]``. Every other value is kept as given: a list of names may stay a comma string, as the profiles
hold some (``pairs: 'de-en,zh-en'``), and results record the parameters as given (:meth:`to_dict`).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import yaml

from xalign.core.param_ranges import check_values, describe
from xalign.core.profiles import DOCS_KEY, ParameterError, as_list, load_profiles

#: the field every parameters object ends with: the profile its values were filled from
PROFILE_FIELD = "profile"
PROFILE_DOC = "the run profile the other values come from: smoke, default or paper"


def load_docs(path: str | Path) -> dict[str, str]:
    """The ``docs:`` of a profile file (parameter -> one-line doc), validated against its profiles.

    Raises:
        ParameterError: no ``docs:`` mapping, a parameter without a doc, a doc of no parameter, or a doc
            that is not one non-empty line.
    """
    path = Path(path)
    names = next(iter(load_profiles(path).values()))
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    docs = raw.get(DOCS_KEY)
    if not isinstance(docs, dict):
        raise ParameterError(f"{path}: '{DOCS_KEY}' must map each parameter to a one-line doc, "
                             f"got {type(docs).__name__}")
    missing, extra = sorted(set(names) - set(docs)), sorted(set(docs) - set(names))
    if missing or extra:
        raise ParameterError(f"{path}: '{DOCS_KEY}' must document every parameter and no other: "
                             f"missing {missing}, not a parameter {extra}")
    for name, doc in docs.items():
        if not isinstance(doc, str) or not doc.strip() or "\n" in doc.strip():
            raise ParameterError(f"{path}: {DOCS_KEY}.{name} must be one non-empty line, got {doc!r}")
    return {name: docs[name].strip() for name in names}


def _number_type(entry: dict) -> type | None:
    """``int`` / ``float`` for an item entry that admits numbers only, else None."""
    if entry.get("nullable"):
        return None
    return int if "int" in entry else float if "float" in entry else None


def _typed(entry: dict) -> tuple[object, str]:
    """(annotation, its text) of a range entry (see :func:`annotation`)."""
    if "int" in entry or "float" in entry:
        kind, text = (int, "int") if "int" in entry else (float, "float")
    elif "choice" in entry:
        kind, text = Literal[tuple(entry["choice"])], f"Literal[{', '.join(map(repr, entry['choice']))}]"
    elif "pattern" in entry or "str" in entry:
        kind, text = str, "str"
    elif "bool" in entry:
        kind, text = bool, "bool"
    elif "dict" in entry:
        kind, text = dict, "dict"
    elif "list" in entry:
        item, item_text = _typed(entry["list"])
        kind, text = list[item], f"list[{item_text}]"
        if _number_type(entry["list"]) is None:  # a comma string is kept as given
            kind, text = kind | str, f"{text} | str"
    else:
        alternatives = [_typed(alt) for alt in entry["or"]]
        kind = functools.reduce(operator.or_, [a for a, _ in alternatives])
        text = " | ".join(t for _, t in alternatives)
    if entry.get("nullable"):
        kind, text = kind | None, f"{text} | None"
    return kind, text


def annotation(entry: dict) -> object:
    """The Python type of the values a range entry admits, after :func:`normalise`.

    ``int`` / ``float`` / ``str`` (``pattern``, ``str``) / ``bool`` / ``dict``; ``choice`` -> ``Literal[...]``;
    ``list`` of numbers -> ``list[int]`` / ``list[float]``; any other ``list`` -> ``list[X] | str`` (a comma
    string is kept as given); ``or`` -> the union of its alternatives; ``nullable`` adds ``| None``.
    """
    return _typed(entry)[0]


def type_text(entry: dict) -> str:
    """:func:`annotation` as the docs write it: ``list[float]``, ``int | None``, ``Literal['cosine', 'csls']``."""
    return _typed(entry)[1]


def normalise(entry: dict, value):
    """A checked value in the form the chapter reads: a list of numbers (``list`` of ``int`` / ``float``
    items, given as a list or a comma string "0.25,1") as a list of ``int`` / ``float``; anything else,
    and ``None``, unchanged."""
    convert = _number_type(entry["list"]) if "list" in entry else None
    if value is None or convert is None:
        return value
    return [convert(v) for v in as_list(value)]


def parameters_class(class_name: str, names: Sequence[str], ranges: Mapping[str, dict],
                     docs: Mapping[str, str], where: str = "", module: str | None = None) -> type:
    """A frozen dataclass of one chapter's parameters.

    Args:
        class_name: the class's name ("Nyholm2020Parameters").
        names: the parameters in the profiles' order (the order results record them in).
        ranges: name -> declared range (:func:`xalign.core.param_ranges.parse_ranges`).
        docs: name -> one-line doc (:func:`load_docs`).
        where: the chapter, for the messages of the range check.
        module: the ``__module__`` the class reports.

    Returns:
        The class: keyword-only fields ``names`` and ``profile``; constructing an instance checks every value
        against its range (raising :class:`~xalign.core.profiles.ParameterError` with the message of
        :func:`~xalign.core.param_ranges.check_value`) and normalises it (:func:`normalise`);
        ``instance.to_dict()`` is the parameters as results record them.
    """
    names = list(names)

    def __post_init__(self) -> None:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        check_values(ranges, values, where)
        for name in names:
            object.__setattr__(self, name, normalise(ranges[name], values[name]))

    def to_dict(self) -> dict:
        """The parameters as a plain dict, in field order (``profile`` last): what results record."""
        return dataclasses.asdict(self)

    lines = [f"{where or class_name}'s parameters (frozen; generated from its profiles.yaml).", "", "Fields:"]
    fields = []
    for name in names:
        entry, doc = ranges[name], docs[name]
        lines.append(f"    {name} ({type_text(entry)}): {doc}. Range: {describe(entry)}.")
        fields.append((name, annotation(entry), dataclasses.field(metadata={"range": entry, "doc": doc})))
    lines.append(f"    {PROFILE_FIELD} (str): {PROFILE_DOC}.")
    fields.append((PROFILE_FIELD, str, dataclasses.field(metadata={"range": None, "doc": PROFILE_DOC})))
    cls = dataclasses.make_dataclass(class_name, fields, frozen=True, kw_only=True,
                                     namespace={"__post_init__": __post_init__, "to_dict": to_dict,
                                                "__doc__": "\n".join(lines) + "\n"})
    if module:
        cls.__module__ = module
    return cls
