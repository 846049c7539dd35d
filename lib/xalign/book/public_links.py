"""No button that goes nowhere: the book's links to its public home only while it has one (a Sphinx
extension listed in ``_config.yml``).

``_config.yml`` declares the repository and the buttons that lead to it (``repository``,
``html.use_repository_button``, ``html.use_issues_button``, ``launch_buttons``: Binder and Colab), ready
for the day the project is public. Its ``xalign.public`` says whether that day has come
(:func:`xalign.book.publish.book_settings`). While it is false, :func:`theme_options` drops every
button and setting that points at the repository from the theme's options, so the built pages carry
no launch, repository, issue or edit button (the download button, a file of the build, stays).
"""

from __future__ import annotations

from pathlib import Path

#: theme options that point at the repository (sphinx-book-theme, as Jupyter Book fills them from _config.yml)
REPOSITORY_OPTIONS = ("repository_url", "repository_branch", "path_to_docs", "launch_buttons")
#: the theme's buttons that open the repository
REPOSITORY_BUTTONS = ("use_repository_button", "use_issues_button", "use_edit_page_button", "use_source_button")


def theme_options(options: dict | None, public: bool) -> dict:
    """The theme's options with the repository's buttons kept only when ``public``.

    Args:
        options: ``html_theme_options`` as Jupyter Book wrote them from ``_config.yml``.
        public: ``xalign.public``: whether the repository is the project's live public home.

    Returns:
        A new dict: ``options`` unchanged when ``public``; else without :data:`REPOSITORY_OPTIONS` and with
        every one of :data:`REPOSITORY_BUTTONS` off.
    """
    options = dict(options or {})
    if public:
        return options
    kept = {k: v for k, v in options.items() if k not in REPOSITORY_OPTIONS}
    kept.update(dict.fromkeys(REPOSITORY_BUTTONS, False))
    return kept


def _apply(app, config) -> None:
    from xalign.book.publish import book_settings

    public = book_settings(Path(app.srcdir) / "_config.yml")["public"]
    config.html_theme_options = theme_options(config.html_theme_options, public)


def setup(app):
    app.connect("config-inited", _apply, priority=900)  # after Jupyter Book's own settings are in the config
    return {"parallel_read_safe": True, "parallel_write_safe": True}
