"""The book's maths: MathJax served from the build itself, loaded on every page with maths (offline_math)."""

from __future__ import annotations

import re

import pytest

from math_site import CONFIG, ROOT, build_math_site, sphinx_build
from xalign.book import offline_math as OM


def test_the_book_is_configured_for_its_own_mathjax():
    sphinx = CONFIG["sphinx"]
    assert "xalign.book.offline_math" in sphinx["extra_extensions"]
    assert sphinx["config"]["mathjax_path"] == OM.MATHJAX_PATH
    assert {"dollarmath", "amsmath"} <= set(CONFIG["parse"]["myst_enable_extensions"])
    assert OM.MATHJAX_REQUIREMENT in (ROOT / "requirements.txt").read_text().splitlines()
    es5 = OM.mathjax_dir()
    assert (es5 / "tex-chtml.js").is_file() and (es5 / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


@pytest.mark.parametrize("path", ["https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js",
                                  "//cdn.example.org/tex-chtml.js", "/abs/tex-chtml.js", "../up/tex-chtml.js",
                                  "tex-chtml.js", ""])
def test_a_remote_or_misplaced_mathjax_path_is_refused(path):
    with pytest.raises(ValueError, match="mathjax_path"):
        OM.check_mathjax_path(path)


def test_an_entry_script_mathjax_lacks_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"no 'tex-nothing\.js'.*tex-chtml\.js"):
        OM.copy_mathjax(tmp_path, "mathjax/tex-nothing.js")


def test_pages_with_maths_load_the_local_mathjax_and_nothing_remote(tmp_path):
    """A Sphinx build with the book's extensions and settings: the page with maths loads
    _static/mathjax/tex-chtml.js (deferred), whose fonts and extensions are in the build; the page
    without maths loads no MathJax; no page names a CDN."""
    out = build_math_site(tmp_path)
    page = (out / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<script defer="defer" src="_static/mathjax/tex-chtml\.js[^"]*"></script>', page), \
        re.findall(r"<script[^>]*>", page)
    assert r'<span class="math notranslate nohighlight">\(S_{weak}\)</span>' in page
    assert "tex-chtml.js" not in (out / "plain.html").read_text(encoding="utf-8")
    for html in (page, (out / "plain.html").read_text(encoding="utf-8")):
        assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="(?:https?:)?//', html)
    mj = out / "_static" / "mathjax"
    assert (mj / "tex-chtml.js").stat().st_size > 100_000 and (mj / "LICENSE").is_file()
    assert list((mj / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert (mj / "input" / "tex" / "extensions" / "ams.js").is_file()


def test_a_remote_mathjax_path_stops_the_build(tmp_path):
    from sphinx.errors import ConfigError

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text("extensions = ['xalign.book.offline_math']\n")
    (src / "index.rst").write_text("Maths\n=====\n\n:math:`x^2`\n")
    with pytest.raises(ConfigError, match="loads nothing remote"):
        sphinx_build(src, tmp_path / "html", mathjax_path="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js")
