"""Check a chapter's parameters before any work starts: names against its profile file, types against its values.

papermill ignores a misspelled parameter (one warning line) and a wrong type fails deep in a
cell; :func:`check_parameters` turns both into an immediate error that lists the valid names.
"""

from __future__ import annotations

from xalign.core.profiles import PROFILE_NAMES, ParameterError
from xalign.papers import meta


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__


#: a value of kind K is accepted where the profile holds kinds ACCEPTS[K]
ACCEPTS = {"bool": {"bool"}, "int": {"int", "float"}, "float": {"float"}, "str": {"str", "list"},
           "list": {"list", "str"}, "dict": {"dict"}}


def check_parameters(chapter: str, parameters: dict) -> None:
    """Raise :class:`ParameterError` for an unknown profile, an unknown name or a value of the wrong type."""
    profiles = meta.profiles(meta.chapter_paper(chapter))
    profile = parameters.get("profile", "default")
    if profile not in profiles:
        raise ParameterError(f"{chapter}: profile must be one of {list(PROFILE_NAMES)}, got {profile!r}")
    known = list(profiles[profile])
    unknown = sorted(set(parameters) - set(known) - {"profile"})
    if unknown:
        raise ParameterError(f"{chapter}: unknown parameter(s) {unknown}; valid names: {', '.join(known)}")
    for name, value in parameters.items():
        if name == "profile" or value is None:
            continue
        seen = {_kind(p[name]) for p in profiles.values()} - {"null"}
        if seen and not (ACCEPTS.get(_kind(value), {_kind(value)}) & seen):
            examples = ", ".join(f"{p}: {profiles[p][name]!r}" for p in profiles)
            raise ParameterError(f"{chapter}: parameter {name!r} must be {' or '.join(sorted(seen))} "
                                 f"(profiles have {examples}), got {_kind(value)} {value!r}")
