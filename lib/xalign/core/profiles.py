"""Run profiles: named sets of parameter values a chapter can run with.

Each paper package ships ``profiles.yaml`` (``smoke``: CI-sized, about a
minute on 2 cores; ``default``: the embedded model and the mirrored data;
``paper``: the paper's own models, for a GPU). A notebook declares each
parameter once, in its papermill ``parameters`` cell, defaulting to ``None``
("the profile's value"); :func:`resolve` fills them from the profile file and
anything given explicitly wins; :mod:`xalign.core.param_types` makes the chapter's
typed parameters object of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml

PROFILE_NAMES = ("smoke", "default", "paper")
#: the key of ``profiles.yaml`` that declares each parameter's range (see :mod:`xalign.core.param_ranges`)
RANGES_KEY = "ranges"
#: the key of ``profiles.yaml`` that gives each parameter a one-line doc (see :mod:`xalign.core.param_types`)
DOCS_KEY = "docs"
#: the keys of ``profiles.yaml`` that are no profile
NOT_PROFILES = (RANGES_KEY, DOCS_KEY)


class ParameterError(ValueError):
    """A parameter name or value that the chapter's profile does not admit."""


def load_profiles(path: str | Path) -> dict[str, dict]:
    """Read and validate a profile file: every profile of :data:`PROFILE_NAMES`, all with the same names.

    The file's :data:`RANGES_KEY` and :data:`DOCS_KEY` entries (the parameters' ranges and docs) are no
    profiles: they are left out here and read by :func:`xalign.core.param_ranges.load_ranges` and
    :func:`xalign.core.param_types.load_docs`.
    """
    path = Path(path)
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ParameterError(f"{path}: expected a mapping of profile name -> parameters, got {type(raw).__name__}")
    raw = {k: v for k, v in raw.items() if k not in NOT_PROFILES}
    missing = [p for p in PROFILE_NAMES if p not in raw]
    if missing:
        raise ParameterError(f"{path}: profiles {missing} missing (every paper has {list(PROFILE_NAMES)})")
    names = set(raw[PROFILE_NAMES[0]])
    for name, values in raw.items():
        if not isinstance(values, dict):
            raise ParameterError(f"{path}: profile {name!r} must be a mapping, got {type(values).__name__}")
        if set(values) != names:
            raise ParameterError(f"{path}: profile {name!r} has names {sorted(set(values) ^ names)} "
                                 f"that profile {PROFILE_NAMES[0]!r} does not (or lacks them)")
    return raw


def resolve(profiles: Mapping[str, dict], profile: str, **overrides) -> dict:
    """Profile values with the non-None overrides applied, and ``profile`` last; unknown names are errors."""
    if profile not in profiles:
        raise ParameterError(f"profile must be one of {sorted(profiles)}, got {profile!r}")
    base = dict(profiles[profile])
    unknown = sorted(set(overrides) - set(base))
    if unknown:
        raise ParameterError(f"parameters {unknown} are not known to profile {profile!r} "
                             f"(known: {sorted(base)})")
    base.update({k: v for k, v in overrides.items() if v is not None})
    base["profile"] = profile
    return base


#: a list parameter as the profiles and papermill give it: a list, or a comma string "a,b,c" (read with :func:`as_list`)
CommaList = list[str] | str


def as_list(value) -> list:
    """A parameter that may be given as "a,b,c" (papermill -p) or as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)
