"""Run profiles: named sets of parameter values a chapter can run with.

Each notebook declares a ``PROFILES`` dict (``smoke``: CI-sized, about a
minute on 2 cores; ``default``: the embedded model and the mirrored data;
``paper``: the paper's own models, for a GPU). Its papermill parameters
default to ``None``, meaning "the profile's value"; anything given
explicitly wins.
"""

from __future__ import annotations

from types import SimpleNamespace

PROFILE_NAMES = ("smoke", "default", "paper")


def resolve(profiles: dict[str, dict], profile: str, **overrides) -> SimpleNamespace:
    """Profile values with the non-None overrides applied; unknown names are errors."""
    if profile not in profiles:
        raise ValueError(f"profile must be one of {sorted(profiles)}, got {profile!r}")
    base = dict(profiles[profile])
    unknown = sorted(set(overrides) - set(base))
    if unknown:
        raise ValueError(f"parameters {unknown} are not known to profile {profile!r} "
                         f"(known: {sorted(base)})")
    base.update({k: v for k, v in overrides.items() if v is not None})
    base["profile"] = profile
    return SimpleNamespace(**base)


def as_list(value) -> list:
    """A parameter that may be given as "a,b,c" (papermill -p) or as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)
