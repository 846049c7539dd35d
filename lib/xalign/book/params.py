"""Check a chapter's parameters before any work starts: names against its profile file, values against their ranges.

papermill ignores a misspelled parameter (one warning line), a wrong type fails deep in a cell and a
value outside its range can give a silently wrong number; :func:`check_parameters` turns each into an
immediate error that names the parameter and lists the valid names or the range.
"""

from __future__ import annotations

from xalign.core.model_checks import ModelFolderError, check_model_folder, layer_count
from xalign.core.profiles import PROFILE_NAMES, ParameterError, as_list
from xalign.papers import meta


def check_parameters(chapter: str, parameters: dict) -> None:
    """Raise :class:`ParameterError` for an unknown profile, an unknown name or a value outside its declared range.

    The ranges are those of the paper's ``profiles.yaml`` (:func:`xalign.papers.meta.checked_parameters`, the
    same check the notebook makes when papermill runs it directly). Layer parameters are also checked against
    the model's layer count where its ``config.json`` is on disk (a local folder, the converted offline model
    or the Hugging Face cache); otherwise the notebook checks them once the model is loaded. A model given as
    a local path that is missing, a file or an incomplete folder is refused here too.
    """
    paper = meta.chapter_paper(chapter)
    profiles = meta.profiles(paper)
    profile = parameters.get("profile", "default")
    if profile not in profiles:
        raise ParameterError(f"{chapter}: profile must be one of {list(PROFILE_NAMES)}, got {profile!r}")
    known = list(profiles[profile])
    unknown = sorted(set(parameters) - set(known) - {"profile"})
    if unknown:
        raise ParameterError(f"{chapter}: unknown parameter(s) {unknown}; valid names: {', '.join(known)}")
    values = meta.checked_parameters(paper, profile, {k: v for k, v in parameters.items() if k != "profile"})
    for name in meta.model_parameters(paper)[:1]:  # the encoder(s): layers are checked against each one's count
        for model in as_list(getattr(values, name, None)):
            try:
                check_model_folder(model)  # a local path that is no model: named now, not in the first cell
            except ModelFolderError as exc:
                raise ParameterError(f"{chapter}: parameter {name!r}: {exc}") from None
            n_layers = layer_count(model)
            if n_layers is not None:
                meta.check_model_layers(paper, values, n_layers, model)
