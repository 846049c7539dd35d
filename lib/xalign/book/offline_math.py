"""MathJax served from the built book itself (a Sphinx extension listed in ``_config.yml``).

The book's maths (``$S_{weak}$`` in a chapter's prose, which Sphinx writes as
``<span class="math">\\(S_{weak}\\)</span>``) is typeset in the reader's browser by MathJax. Sphinx
loads MathJax from a CDN by default; this book loads nothing remote, so it builds and reads offline:

- ``_config.yml`` sets ``mathjax_path`` to a path under the build's ``_static`` folder
  (:data:`MATHJAX_PATH`); a remote ``mathjax_path`` (``https://...``) is an error;
- the MathJax files come from the Python package ``django-static-mathjax`` (MathJax
  :data:`MATHJAX_VERSION` exactly, as published by the MathJax project, pinned in ``requirements.txt``;
  the package has no dependencies), whose ``es5`` components are copied into
  ``<html>/_static/<folder of mathjax_path>/`` when the build finishes: the entry script, the TeX
  extensions it may load on demand, the CHTML fonts, the menu and accessibility components it loads
  when a reader asks for them, and MathJax's LICENSE.
"""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path

#: the MathJax release the book ships (``django-static-mathjax==3.2.2.1`` in requirements.txt)
MATHJAX_VERSION = "3.2.2"
#: the pip requirement that provides it
MATHJAX_REQUIREMENT = "django-static-mathjax==3.2.2.1"
#: where the pages load MathJax from, relative to the build's ``_static`` folder
MATHJAX_PATH = "mathjax/tex-chtml.js"
#: what of MathJax's ``es5`` folder the book needs besides the entry script (paths relative to ``es5``)
COMPONENTS = ("input/tex/extensions", "output/chtml/fonts", "ui", "a11y", "sre")


def mathjax_dir() -> Path:
    """MathJax's ``es5`` folder in the installed ``django-static-mathjax`` package.

    Raises:
        RuntimeError: the package is not installed, or it holds another MathJax than
            :data:`MATHJAX_VERSION` (the message names the requirement to install).
    """
    import importlib.util

    spec = importlib.util.find_spec("mathjax")
    roots = list(spec.submodule_search_locations or []) if spec else []
    root = next((Path(r) / "static" / "mathjax" for r in roots if (Path(r) / "static" / "mathjax").is_dir()), None)
    if root is None:
        raise RuntimeError(f"MathJax is not installed: the book serves its own copy, from the Python package "
                           f"{MATHJAX_REQUIREMENT!r} (pip install -r requirements.txt)")
    try:
        version = json.loads((root / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError) as e:
        raise RuntimeError(f"{root / 'package.json'}: cannot read MathJax's version ({e}); "
                           f"reinstall {MATHJAX_REQUIREMENT!r}") from e
    if version != MATHJAX_VERSION:
        raise RuntimeError(f"{root}: MathJax {version}, the book expects {MATHJAX_VERSION} "
                           f"(pip install {MATHJAX_REQUIREMENT!r})")
    return root / "es5"


def check_mathjax_path(path: str) -> str:
    """``mathjax_path`` as the book needs it: a relative path to one of MathJax's ``es5`` entry scripts
    (e.g. ``mathjax/tex-chtml.js``), under the build's ``_static`` folder.

    Raises:
        ValueError: a remote URL, an absolute path, a path that leaves ``_static``, or a script that
            MathJax does not have (the message names ``_config.yml``'s setting).
    """
    where = "_config.yml sphinx.config.mathjax_path"
    if not path or "://" in path or path.startswith(("/", "//")):
        raise ValueError(f"{where} = {path!r}: the book loads nothing remote; use a path under _static such as "
                         f"{MATHJAX_PATH!r} (MathJax is copied there from {MATHJAX_REQUIREMENT!r})")
    norm = posixpath.normpath(path)
    if norm.startswith("..") or posixpath.dirname(norm) in ("", "."):
        raise ValueError(f"{where} = {path!r}: must be <folder>/<MathJax script> inside _static, "
                         f"such as {MATHJAX_PATH!r}")
    return norm


def copy_mathjax(static_dir: Path, path: str = MATHJAX_PATH, source: Path | None = None) -> Path:
    """Copy MathJax's entry script named by ``path`` and the components it loads into ``static_dir``.

    Args:
        static_dir: the build's ``_static`` folder.
        path: ``mathjax_path`` (:func:`check_mathjax_path`), e.g. ``mathjax/tex-chtml.js``.
        source: MathJax's ``es5`` folder (default: :func:`mathjax_dir`).

    Returns:
        The entry script's path in the build.
    """
    path = check_mathjax_path(path)
    source = Path(source) if source else mathjax_dir()
    folder, script = posixpath.split(path)
    if not (source / script).is_file():
        known = sorted(p.name for p in source.glob("*.js"))
        raise ValueError(f"_config.yml sphinx.config.mathjax_path = {path!r}: MathJax {MATHJAX_VERSION} has no "
                         f"{script!r}; its entry scripts: {', '.join(known)}")
    target = Path(static_dir) / folder
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / script, target / script)
    for part in COMPONENTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part, dirs_exist_ok=True)
    if (source.parent / "LICENSE").is_file():
        shutil.copy2(source.parent / "LICENSE", target / "LICENSE")
    return target / script


def _check_config(app, config) -> None:
    from sphinx.errors import ConfigError

    try:
        config.mathjax_path = check_mathjax_path(config.mathjax_path)
        mathjax_dir()  # fail before the build, not after it
    except (ValueError, RuntimeError) as e:
        raise ConfigError(str(e)) from e


def _copy(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        copy_mathjax(Path(app.outdir) / "_static", app.config.mathjax_path)


def setup(app):
    app.setup_extension("sphinx.ext.mathjax")  # declares mathjax_path
    app.connect("config-inited", _check_config, priority=900)  # after Jupyter Book and myst have set theirs
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
