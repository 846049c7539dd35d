"""What every paper package ships: its profiles (``profiles.yaml``) and metadata (``paper.yaml``).

``paper.yaml`` holds the title, citation, chapter and the list of the paper's
tables and figures; ``profiles.yaml`` the chapter's run profiles and every
parameter's declared range and one-line doc. Both are package data, read relative to this file,
so an installed wheel finds them.

:func:`checked_parameters` is the one place a chapter's parameters are resolved and checked
(names, ranges); ``xalign run`` (:func:`xalign.book.params.check_parameters`), the notebook's
first cell (:func:`parameters`, papermill used directly) and the Python API all go through it.
It returns an instance of the paper's :func:`parameters_class` (frozen; ``to_dict()`` is what
results record).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from pathlib import Path

import yaml

from xalign.core import param_types
from xalign.core.param_ranges import check_layers, load_ranges
from xalign.core.profiles import ParameterError, load_profiles, resolve

HERE = Path(__file__).resolve().parent
#: paper packages in book order
PAPERS = ("gaschi2022", "liu2020", "calibrated2023", "wickramasinghe", "nyholm2020")


def paper_dir(paper: str) -> Path:
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    return HERE / paper


@functools.cache
def profiles(paper: str) -> dict[str, dict]:
    """The paper's run profiles (validated on load)."""
    return load_profiles(paper_dir(paper) / "profiles.yaml")


@functools.cache
def metadata(paper: str) -> dict:
    """The paper's ``paper.yaml``: title, authors, year, venue, chapter, items (tables and figures), with
    two derived fields every page uses: ``label`` (:func:`citation_label`, "Gaschi et al. 2022") and
    ``short``, the heading "LABEL: TOPIC".

    Raises:
        ValueError: ``authors`` (a list of family names), ``year`` (an int) or ``topic`` missing or malformed.
    """
    path = paper_dir(paper) / "paper.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    authors, year = data.get("authors"), data.get("year")
    if not isinstance(authors, list) or not authors or not all(isinstance(a, str) and a for a in authors):
        raise ValueError(f"{path}: 'authors' must be a non-empty list of family names, not {authors!r}")
    if isinstance(year, bool) or not isinstance(year, int) or not 1900 <= year <= 2100:
        raise ValueError(f"{path}: 'year' must be the year of publication (1900-2100), not {year!r}")
    if not data.get("topic"):
        raise ValueError(f"{path}: 'topic' (what the chapter is about, shown after the citation label) is missing")
    data["label"] = citation_label(authors, year)
    data["short"] = f"{data['label']}: {data['topic']}"
    return data


def citation_label(authors: list[str], year: int) -> str:
    """How the pages cite a paper in words: "Nyholm 2020", "Wickramasinghe and de Silva 2025",
    "Gaschi et al. 2022" (three or more authors).

    Args:
        authors: family names in the paper's order (a name particle included: "de Silva").
        year: the year of publication.
    """
    names = authors[0] if len(authors) == 1 else " and ".join(authors) if len(authors) == 2 else f"{authors[0]} et al."
    return f"{names} {year}"


def citation(paper: str) -> str:
    """The paper's reference in one line: "Gaschi, Plesse, Rastin, Toussaint (2022). TITLE. VENUE."."""
    md = metadata(paper)
    title = md["title"] if md["title"][-1] in ".?!" else md["title"] + "."
    return f"{', '.join(md['authors'])} ({md['year']}). {title} {md['venue']}."


@functools.cache
def ranges(paper: str) -> dict[str, dict]:
    """The declared range of each of the paper's parameters (``ranges:`` of its ``profiles.yaml``)."""
    return load_ranges(paper_dir(paper) / "profiles.yaml")


@functools.cache
def docs(paper: str) -> dict[str, str]:
    """The one-line doc of each of the paper's parameters (``docs:`` of its ``profiles.yaml``)."""
    return param_types.load_docs(paper_dir(paper) / "profiles.yaml")


@functools.cache
def parameters_class(paper: str) -> type:
    """The paper's parameters as a frozen dataclass (:func:`xalign.core.param_types.parameters_class`):
    one typed field per parameter, in the profiles' order, then ``profile``; its docstring lists each
    parameter's name, type, range and doc. ``Gaschi2022Parameters``, ``Liu2020Parameters``, ...."""
    names = list(next(iter(profiles(paper).values())))
    name = "".join(part.capitalize() for part in paper.split("_")) + "Parameters"
    return param_types.parameters_class(name, names, ranges(paper), docs(paper), where=metadata(paper)["chapter"],
                                        module=f"{__package__}.{paper}")


def checked_parameters(paper: str, profile: str, overrides: Mapping):
    """The profile's values with the non-None ``overrides`` applied, every value checked against its range.

    Args:
        paper: the paper package.
        profile: smoke | default | paper.
        overrides: parameter name -> value (``None``: the profile's value).

    Returns:
        An instance of :func:`parameters_class` (``profile`` included): every value checked against its
        range once, a list of numbers given as a comma string made a list of numbers.

    Raises:
        ParameterError: an unknown profile or name, or a value outside its declared range (the message
            names the chapter, the parameter, the value and the range).
    """
    chapter = metadata(paper)["chapter"]
    try:
        values = resolve(profiles(paper), profile, **dict(overrides))
    except ParameterError as exc:
        raise ParameterError(f"{chapter}: {exc}") from None
    return parameters_class(paper)(**values)


def injected_names(namespace: Mapping) -> list[str]:
    """Names papermill injected into a running notebook (its ``# Parameters`` cell), read from IPython's ``In``.

    papermill writes the ``-p`` values as a cell of assignments headed ``# Parameters`` after the
    parameters cell; a misspelt name there is a new global the chapter never reads. Outside IPython
    (no ``In`` list) nothing is known: an empty list.
    """
    names = []
    history = namespace.get("In")
    if not isinstance(history, list):
        return names
    for source in history:
        if not isinstance(source, str) or not source.lstrip().startswith("# Parameters"):
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        names += [t.id for node in tree.body if isinstance(node, ast.Assign)
                  for t in node.targets if isinstance(t, ast.Name)]
    return names


def parameters(paper: str, profile: str, namespace: dict):
    """A chapter's parameters: the profile's values, overridden by the non-None names in ``namespace``.

    Called in each notebook's first code cell with ``globals()``: the same checks as ``xalign run``
    (:func:`checked_parameters`), and a name papermill injected that the chapter does not declare is an
    error (papermill itself only logs a warning for it).
    """
    known = profiles(paper).get(profile) or next(iter(profiles(paper).values()))
    unknown = sorted({n for n in injected_names(namespace) if n not in known and n != "profile"})
    if unknown:
        raise ParameterError(f"{metadata(paper)['chapter']}: unknown parameter(s) {unknown}; "
                             f"valid names: {', '.join(known)}")
    return checked_parameters(paper, profile, {k: namespace[k] for k in known if k in namespace})


def check_model_layers(paper: str, values, n_layers: int, model: str) -> None:
    """Check the layer parameters (``layer: true`` in the ranges) against a model with ``n_layers`` hidden states.

    Args:
        paper: the paper package.
        values: the chapter's parameters (a :func:`parameters_class` instance or a mapping).
        n_layers: the model's hidden-state count, the embedding layer included (12 layers -> 13).
        model: the model's name, for the message.
    """
    values = values if isinstance(values, Mapping) else values.to_dict()
    check_layers(ranges(paper), values, n_layers, model, metadata(paper)["chapter"])


def chapters() -> dict[str, str]:
    """Every chapter (notebook stem) -> its heading ("LABEL: TOPIC"), in book order."""
    return {metadata(p)["chapter"]: metadata(p)["short"] for p in PAPERS}


def model_parameters(paper: str) -> tuple[str, ...]:
    """The profile parameters that name or map the paper's encoder(s): ``paper.yaml``'s ``model_parameter``
    (``model``, ``multi_model``, ``models``) and, where it has one, its ``model_map`` (``table1_models``).
    A result's file name holds them already; they are no override of the profile."""
    md = metadata(paper)
    return (md["model_parameter"],) + ((md["model_map"],) if md.get("model_map") else ())


def model_overrides(paper: str, model: str, profile: str = "default") -> dict:
    """The parameters that put ``model`` in the paper's chapter (``xalign run --model``).

    Args:
        paper: the paper package.
        model: a model name or folder.
        profile: the profile whose values show the parameter's shape (a list stays a list).

    Returns:
        ``{model_parameter: model}`` (``[model]`` where the profile holds a list) and, for a ``model_map``
        the profile fills, ``{model_map: {model: the paper model the profile's first entry stands beside}}``.

    Raises:
        ValueError: the profile has no ``model_parameter``.
    """
    md, values = metadata(paper), profiles(paper)[profile]
    name, mapping = md["model_parameter"], md.get("model_map")
    if name not in values:
        raise ValueError(f"chapter {md['chapter']}: no model parameter ({name}) in its profile")
    out = {name: [model] if isinstance(values[name], list) else model}
    if mapping and isinstance(values.get(mapping), dict) and values[mapping]:
        out[mapping] = {model: next(iter(values[mapping].values()))}
    return out


def params_model(params: Mapping) -> str | None:
    """The model a chapter's parameters name: the first of the papers' ``model_parameter`` names (in book
    order: ``model``, ``multi_model``, ``models``) that they hold; of a list of models (a list, or a
    comma-separated string where the profiles hold a list), the first. None: no model named."""
    lists = {metadata(p)["model_parameter"] for p in PAPERS
             if isinstance(profiles(p)["default"].get(metadata(p)["model_parameter"]), list)}
    for name in dict.fromkeys(metadata(p)["model_parameter"] for p in PAPERS):
        value = params.get(name)
        if isinstance(value, str) and value:
            return value.split(",")[0].strip() if name in lists else value
        if name in lists and isinstance(value, (list, tuple)) and value:
            return str(value[0])
    return None


def chapter_paper(chapter: str) -> str:
    """The paper a chapter (notebook stem) reproduces."""
    for p in PAPERS:
        if metadata(p)["chapter"] == chapter:
            return p
    raise ValueError(f"no paper declares chapter {chapter!r}")
