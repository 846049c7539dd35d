"""A Sphinx extension for the book (listed in ``_config.yml``): fixes that keep pages free of console errors.

sphinx-thebe 0.3.1 under Sphinx 7.4 adds its inline configuration script
(``const THEBE_JS_URL = ...``) twice, so every page throws "Identifier
'THEBE_JS_URL' has already been declared" (once with no file name, once
with an empty one). Inline scripts with the same body, and files with the same
name and attributes, are kept once per page here, in the page's own list of
scripts (a new list would drop every script that a later handler adds, such as
MathJax on a page with maths).
"""

from __future__ import annotations


def _script_key(js) -> tuple:
    attrs = getattr(js, "attributes", {}) or {}
    return str(getattr(js, "filename", js) or ""), tuple(sorted((k, str(v)) for k, v in attrs.items()))


def dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    """Keep the first of identical ``script_files`` entries (same file, same attributes and body)."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        key = _script_key(js)
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept  # in place: Sphinx's builder keeps this very list, and handlers after this one
    # (sphinx.ext.mathjax's install_mathjax among them) add their scripts to it


def setup(app):
    app.connect("html-page-context", dedupe_scripts, priority=100)  # before any handler that returns a template (the event stops there)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
