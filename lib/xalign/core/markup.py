"""Values from outside shown on a page: one escape for every generated page of the book.

A model's name, a path, a line of data, a card's label or a field of a saved results file is text,
never markup. The book's generated pages are MyST Markdown, with raw HTML blocks (tables from
:func:`xalign.book.display.table_html`) inside them, and some are HTML outright (a card's
``card.html``). Every value that came from outside goes into them through :func:`text` (or
:func:`code` for a code span), so that it shows as the characters it holds and can start no markup:

- HTML: ``& < > " '`` become character references (no tag, no attribute, no entity of its own);
- Markdown and MyST: the characters that open syntax (`````` ` ``````, ``{ }`` of roles and
  directives, ``[ ]`` of links and images, ``|`` of table cells, ``*`` of emphasis, ``$`` of math,
  ``\\``) become numeric character references too. A Markdown parser reads a reference as the plain
  character, and so does a browser inside an HTML block: the page shows the same text. (``_`` stays:
  inside a word, as in ``bert_base``, it is no emphasis, and names keep their readable source);
- a line break or other control character becomes a space: a value never ends a paragraph, an
  HTML block, a table row or a code span.

With ``[``, ``]`` and ``<`` inert, no ``[x](javascript:...)`` or ``<javascript:...>`` link can form.
A value made only of letters, digits and ``_ - . / : , ; @ % + = ( ) ! # ~`` (``multilingual-e5-small``,
``sentence-transformers/LaBSE``, ``tatoeba_n``) comes out unchanged.
"""

from __future__ import annotations

import html
import re

#: characters that open Markdown or MyST syntax, written as numeric character references
_SYNTAX = {ord(c): f"&#{ord(c)};" for c in "`{}[]|*$\\"}
#: control characters (line breaks included) and the Unicode line and paragraph separators
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _one_line(value) -> str:
    return _CONTROL.sub(" ", "" if value is None else str(value))


def text(value) -> str:
    """``value`` as page text, safe in MyST Markdown (a paragraph, a heading, a table cell) and in HTML
    (an element's content or a quoted attribute value).

    Args:
        value: anything; ``str(value)`` is shown (None: the empty string).

    Returns:
        The text on one line with every HTML, Markdown and MyST syntax character written as a character
        reference: ``"<b>x|y</b>"`` -> ``"&lt;b&gt;x&#124;y&lt;/b&gt;"`` (the page shows ``<b>x|y</b>``).
    """
    return html.escape(_one_line(value), quote=True).translate(_SYNTAX)


def code(value, table: bool = False) -> str:
    """``value`` as a Markdown code span (a name shown in monospace), whatever backticks it holds.

    Inside a code span Markdown reads no syntax and no character reference, and the renderer escapes
    HTML; what can break out is a backtick (it would close the span early) and a line break. The fence
    is one backtick longer than the longest run of backticks in the value, with a space inside each end
    when the value starts or ends with one (CommonMark strips exactly that space).

    Args:
        value: anything; ``str(value)`` is shown on one line (None or empty: the empty string, no span).
        table: the span sits in a Markdown table cell: ``|`` is written ``\\|`` so that it does not end the
            cell (the table reads it back as ``|``).

    Returns:
        ``"`name`"`` for an ordinary name; ``"`` a`b ``"`` for a value with a backtick.
    """
    body = _one_line(value)
    if not body:
        return ""
    if table:
        body = body.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or (body.startswith(" ") and body.endswith(" ")) else ""
    return f"{fence}{pad}{body}{pad}{fence}"


#: outside code spans, what :func:`inert` writes as references: raw HTML, roles and directives, links and
#: images, table cells and math
_LIVE = {ord(c): f"&#{ord(c)};" for c in "<>{}[]|$"}
#: a line that would open a fenced block (a code fence, a MyST directive, a colon fence)
_FENCE = re.compile(r"^( {0,3})([`~:])(?=\2\2)", re.MULTILINE)
_TICKS = re.compile(r"`+")


def inert(markdown: str) -> str:
    """Markdown that this project's code wrote from results, made inert before it reaches a page.

    The safety net under :func:`text`: prose built from results (:func:`xalign.book.display.prose`) and
    a chapter's headline read back from a results file keep their emphasis, lists, code spans and
    character references, while outside code spans every character that would open raw HTML, a role or
    a directive, a link or an image, a table cell or math (``< > { } [ ] | $``) is written as a
    character reference, and a line that would open a fenced block starts with a reference instead.
    Such prose uses none of those constructs, so it renders as before; a value that reached it without
    :func:`text` shows as text.

    Args:
        markdown: Markdown text (paragraphs, ``-``/``1.`` lists, ``**bold**``, code spans).

    Returns:
        The same Markdown with those characters written as references (code spans unchanged).
    """
    markdown = _FENCE.sub(lambda m: f"{m[1]}&#{ord(m[2])};", str(markdown)).replace("\\`", "&#92;`")
    return "\n".join(_inert_line(line) for line in markdown.split("\n"))


def _inert_line(line: str) -> str:
    """One line of :func:`inert`: code spans are taken within the line only (one that would cross a line
    is not kept: its content is made inert too), so no span can hide a construct of another block."""
    out, at, i = [], 0, 0
    runs = list(_TICKS.finditer(line))
    while i < len(runs):
        opening = runs[i]
        close = next((j for j in range(i + 1, len(runs)) if len(runs[j][0]) == len(opening[0])), None)
        if close is None:  # an unmatched run of backticks is literal text
            i += 1
            continue
        out += [line[at:opening.start()].translate(_LIVE), line[opening.start():runs[close].end()]]
        at, i = runs[close].end(), close + 1
    out.append(line[at:].translate(_LIVE))
    return "".join(out)
