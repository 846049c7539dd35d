"""A two-page Sphinx site built with the book's maths settings (``_config.yml``): its extensions and
``mathjax_path``, MyST's dollarmath and amsmath. Used by test_offline_math.py and test_browser.py."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))

#: the page with maths: inline, display and in a figure-like caption, as the chapters write them
MATH_PAGE = ("# Maths\n\nThe score $S_{weak}$ and\n\n$$s(u_i, v_i) = 2\\cos(u_i, v_i) - r_U(v_i)$$\n\n"
             "**Fig. 1.** Weak alignment $S_{weak}$ (%) at every layer; code stays code: `$x_1$`.\n\n"
             "```{toctree}\nplain\n```\n")


def sphinx_build(src: Path, out: Path, **overrides) -> Path:
    """Build ``src`` (its conf.py) into ``out`` with Sphinx's HTML builder; returns ``out``."""
    from sphinx.application import Sphinx

    app = Sphinx(str(src), str(src), str(out), str(out / ".doctrees"), "html", confoverrides=overrides,
                 status=None, warning=None, freshenv=True)
    app.build()
    return out


def build_math_site(root: Path) -> Path:
    """Write and build the site under ``root``; returns its HTML folder (``index.html`` with maths,
    ``plain.html`` without)."""
    src = root / "src"
    src.mkdir(parents=True)
    sphinx = CONFIG["sphinx"]
    extensions = ["myst_parser", *[e for e in sphinx["extra_extensions"] if e.startswith("xalign.")]]
    math_ext = [e for e in CONFIG["parse"]["myst_enable_extensions"] if e in ("dollarmath", "amsmath")]
    (src / "conf.py").write_text(f"extensions = {extensions!r}\nmyst_enable_extensions = {math_ext!r}\n"
                                 f"mathjax_path = {sphinx['config']['mathjax_path']!r}\n")
    (src / "index.md").write_text(MATH_PAGE)
    (src / "plain.md").write_text("# Plain\n\nNo maths here.\n")
    return sphinx_build(src, root / "html")
