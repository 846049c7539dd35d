"""One numbering per chapter for its tables and figures (a Sphinx extension listed in ``_config.yml``).

Sphinx numbers figures across the whole book (Fig. 1-22) and leaves the chapters' own HTML tables
(:func:`xalign.book.display.table`) unnumbered. On a chapter's page (``book/chapters/NN_*``) this renumbers,
in the order a reader meets them:

- every figure "Figure N.k" (chapter N, k-th figure), in its caption and in the page's references to it
  (``{numref}``); the caption keeps the paper's own number ("Paper's Fig. 4");
- every table "Table N.k": a caption that starts with the paper's table number ("Table I: S_weak ...")
  becomes "Table 1.3 (paper's Table I): S_weak ..."; a table without a caption gets its number alone (the
  browser check names it: a caption says what the table shows). The full table in a dropdown below its
  short view (``table.xa-more``) is the same table and takes no number.

On every page, each figure's image links to itself at full size, so that a phone's reader can open it (its text is
under 8 px at 390 px otherwise), and its data's CSV link moves into it, below the caption.
"""

from __future__ import annotations

import re

CHAPTER_PAGE = re.compile(r"(?:^|/)chapters/(\d\d)_")
_FIG_CAPTION = re.compile(r'<span class="caption-number">Fig\. (\d+) </span>')
_FIG_REF = re.compile(r'(<span class="std std-numref">)Fig\. (\d+)(</span>)')
_TABLE = re.compile(r'<table\b([^>]*)>(\s*<caption[^>]*>)?(\s*<span class="caption-number">Table \d+ </span>)?')
_PAPER_NUMBER = re.compile(r"\s*Table ([IVXLC]+|\d+[a-z]?)\b\s*[:.]?\s*")
_IMG = re.compile(r'(<img\b[^>]*\bsrc="([^"]+)"[^>]*>)')


def chapter_of(pagename: str) -> int | None:
    """The chapter number of a chapter's page name (``book/chapters/04_bli...`` -> 4), else None."""
    m = CHAPTER_PAGE.search(pagename)
    return int(m[1]) if m else None


def _number_figures(body: str, chapter: int) -> str:
    names: dict[str, str] = {}

    def caption(m: re.Match) -> str:
        names[m[1]] = f"Figure {chapter}.{len(names) + 1}"
        return f'<span class="caption-number">{names[m[1]]} </span>'

    body = _FIG_CAPTION.sub(caption, body)
    return _FIG_REF.sub(lambda m: m[1] + names.get(m[2], f"Fig. {m[2]}") + m[3], body)


def _number_tables(body: str, chapter: int) -> str:
    k = 0

    def table(m: re.Match) -> str:
        nonlocal k
        if _NOT_A_READER_TABLE.search(m[1]):
            return m[0]
        k += 1
        number = f'<span class="caption-number">Table {chapter}.{k}</span>'
        if not m[2]:
            return f"<table{m[1]}><caption>{number}</caption>"
        if m[3]:  # a Sphinx table ({table} directive): its caption text follows
            return f"<table{m[1]}>{m[2]}{number} "
        return f"<table{m[1]}>{m[2]}{number}: "

    body = _TABLE.sub(table, body)
    # the paper's own number, where a caption starts with it, moves beside ours
    return re.sub(r'(<span class="caption-number">Table \d+\.\d+</span>): ' + _PAPER_NUMBER.pattern,
                  lambda m: f"{m[1]} (paper's Table {m[2]}): ", body)


_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.DOTALL)
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.DOTALL)
_NOT_A_READER_TABLE = re.compile(r'class="[^"]*\b(?:xa-more|highlighttable|indextable)\b')


def caption_tables(body: str) -> str:
    """Every table a reader meets without a caption is captioned with the title of the section it stands in
    (a second table under one title: "..., continued"): generated pages (the ledger, Compare models, a card)
    write Markdown tables, which have no caption of their own. Code listings, the index and the full table
    in a dropdown below its short view (``table.xa-more``) are not a reader's tables and stay as they are."""
    titles = [(m.start(), re.sub(r"<[^>]+>", "", _HEADERLINK.sub("", m[2])).strip()) for m in _HEADING.finditer(body)]
    seen: dict[str, int] = {}

    def table(m: re.Match) -> str:
        if m[2] or _NOT_A_READER_TABLE.search(m[1]):
            return m[0]
        title = next((t for at, t in reversed(titles) if at < m.start() and t), "")
        if not title:
            return m[0]
        seen[title] = seen.get(title, 0) + 1
        return f"<table{m[1]}><caption>{title}{', continued' if seen[title] > 1 else ''}</caption>"

    return _TABLE.sub(table, body)


def link_images(body: str) -> str:
    """Every figure (an image of the build's ``_images``) opens at full size: wrapped in a link to itself,
    unless it is in a link already."""
    def image(i: re.Match) -> str:
        before = re.findall(r"<[^>]+>", body[max(0, i.start() - 2000):i.start()])
        if "_images/" not in i[2] or (before and re.match(r"<a\b", before[-1])):
            return i[0]
        return f'<a class="xa-zoom" href="{i[2]}" title="Open full size">{i[1]}</a>'

    return _IMG.sub(image, body)


_FIG_DATA = re.compile(r'<p class="xa-figdata" data-figure="([\w-]+)">.*?</p>', re.DOTALL)


def _move_figure_data(body: str) -> str:
    """Each figure's CSV link (:func:`xalign.book.display.figure`, shown where the figure was made) moves
    into the figure ``fig-<name>``, below its caption; a link whose figure is not on the page stays."""
    for name in dict.fromkeys(m[1] for m in _FIG_DATA.finditer(body)):
        m = re.search(rf'<p class="xa-figdata" data-figure="{re.escape(name)}">.*?</p>', body, re.DOTALL)
        rest = body[:m.start()] + body[m.end():]
        fig = re.search(rf'<figure\b[^>]*\bid="fig-{re.escape(name)}"[^>]*>.*?(</figure>)', rest, re.DOTALL)
        if fig:
            body = rest[:fig.start(1)] + m[0] + rest[fig.start(1):]
    return body


def number_page(body: str, chapter: int) -> str:
    """A chapter page's HTML body with its figures and tables numbered "Figure N.k" and "Table N.k"."""
    if not isinstance(chapter, int) or chapter < 1:
        raise ValueError(f"number_page: chapter must be a chapter number >= 1, got {chapter!r}")
    return _move_figure_data(link_images(_number_tables(_number_figures(body, chapter), chapter)))


def renumber(app, pagename, templatename, context, doctree) -> None:
    """``html-page-context`` handler: a chapter page's body numbered per chapter; on every page, figures
    open full size."""
    chapter = chapter_of(pagename)
    if context.get("body"):
        body = context["body"]
        body = caption_tables(body)
        context["body"] = number_page(body, chapter) if chapter is not None else link_images(body)


def setup(app):
    app.connect("html-page-context", renumber)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
