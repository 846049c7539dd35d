"""The front page's "Cite this book" block, generated from the project's ``CITATION.cff``.

One source for how to cite the project: ``CITATION.cff`` (Citation File Format 1.2.0) gives the
title, authors, version, release date, license and addresses; the block shows them as a sentence and
as a BibTeX entry, and repeats the file's ``message``. The addresses (``repository-code``, ``url``)
appear only while the project is public (``_config.yml``'s ``xalign.public``): before that they point
at a future home and would not resolve.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from xalign.core.paths import PROJECT_ROOT

#: the project's citation file
CITATION = PROJECT_ROOT / "CITATION.cff"
#: the fields the block needs
REQUIRED = ("title", "authors", "version", "date-released")


def read_citation(path: Path = CITATION) -> dict:
    """``CITATION.cff`` as a dict, with its :data:`REQUIRED` fields checked.

    Raises:
        FileNotFoundError: no such file.
        TypeError: not a YAML mapping.
        ValueError: a required field missing or empty, an author without a name.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no citation file (the front page's 'Cite this book' reads it)")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TypeError(f"{path}: not a YAML mapping of Citation File Format fields")
    missing = [k for k in REQUIRED if not data.get(k)]
    if missing:
        raise ValueError(f"{path}: missing or empty field(s) {missing}; 'Cite this book' needs {list(REQUIRED)}")
    for i, author in enumerate(data["authors"]):
        if not author_name(author):
            raise ValueError(f"{path}: authors[{i}] has neither 'name' nor 'family-names': {author!r}")
    return data


def author_name(author: dict) -> str:
    """An author as cited: ``name`` (an organisation, a collective), or ``given-names name-particle
    family-names``; empty when it has none of them."""
    if not isinstance(author, dict):
        return ""
    if author.get("name"):
        return str(author["name"]).strip()
    parts = [author.get("given-names"), author.get("name-particle"), author.get("family-names")]
    return " ".join(str(p).strip() for p in parts if p) if author.get("family-names") else ""


def _bib_author(author: dict) -> str:
    # a collective name in braces, so that BibTeX keeps it whole; a person as "particle family, given"
    if author.get("name"):
        return "{" + str(author["name"]).strip() + "}"
    family = " ".join(str(p).strip() for p in (author.get("name-particle"), author.get("family-names")) if p)
    return f"{family}, {author['given-names']}" if author.get("given-names") else family


def cite_markdown(path: Path = CITATION, public: bool | None = None) -> str:
    """The "Cite this book" block (Markdown, MyST): a sentence, a BibTeX entry and the file's message.

    Args:
        path: the ``CITATION.cff`` to read.
        public: whether the project's addresses are live (default: ``_config.yml``'s ``xalign.public``);
            while they are not, the block names no address.

    Returns:
        The block, without a heading (the page that includes it has one).
    """
    if public is None:
        from xalign.book.publish import PUBLIC as public
    cff = read_citation(path)
    names = [author_name(a) for a in cff["authors"]]
    year = str(cff["date-released"])[:4]
    address = (cff.get("url") or cff.get("repository-code")) if public else None
    license_ = f", {cff['license']} license" if cff.get("license") else ""
    sentence = (f"{', '.join(names)} ({year}). *{cff['title']}* (software, version {cff['version']}{license_})."
                + (f" <{address}>" if address else ""))
    fields = [("author", " and ".join(_bib_author(a) for a in cff["authors"])), ("title", "{" + cff["title"] + "}"),
              ("year", year), ("version", str(cff["version"]))]
    if cff.get("license"):
        fields.append(("license", str(cff["license"])))
    if address:
        fields.append(("url", address))
    key = "".join(ch for ch in cff["title"].split(":")[0].lower() if ch.isalnum()) or "software"
    bib = [f"@software{{{key}{year},"] + [f"  {k} = {{{v}}}," for k, v in fields] + ["}"]
    out = [sentence, "", "```bibtex", *bib, "```", ""]
    if cff.get("message"):
        out += [f"{str(cff['message']).strip()} The papers are in the {{doc}}`bibliography </book/bibliography>`.", ""]
    return "\n".join(out)
