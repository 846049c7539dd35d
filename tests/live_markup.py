"""What in a generated page would run in a reader's browser: the check the escaping tests share.

:func:`live` renders MyST Markdown (the book's extensions) or takes HTML, and lists every live construct:
a ``<script>`` element, an event-handler attribute (``onerror=``...), a ``javascript:`` URL, and a
``{raw}`` role or directive (MyST passes its content to the page as it is).
"""

from __future__ import annotations

from html.parser import HTMLParser

#: hostile model names: a script, an image with a handler, a backtick and a line break (out of a code
#: span), a raw role, a javascript: link, a pipe (out of a table cell) and a MyST directive
HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "a`b\n\n<script>alert(4)</script>`c",
           "{raw}`html`<script>alert(5)</script>`", "[x](javascript:alert(3))", "p|q <img src=y onerror=alert(6)>",
           "x\n```{raw} html\n<script>alert(7)</script>\n```\n"]


class _Live(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.found.append("<script> element")
        for name, value in attrs:
            if name.lower().startswith("on"):
                self.found.append(f"<{tag} {name}=...> handler")
            if name.lower() in ("href", "src", "action", "formaction") and (value or "").strip().lower().startswith(
                    ("javascript:", "vbscript:", "data:text/html")):
                self.found.append(f"<{tag} {name}={value!r}> link")


def live_html(page: str) -> list[str]:
    """The live constructs of an HTML page or fragment (see the module notes)."""
    parser = _Live()
    parser.feed(page)
    parser.close()
    return parser.found


def live(markdown: str) -> list[str]:
    """The live constructs of MyST Markdown as the book renders it (raw HTML passes; ``{raw}`` runs)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    md = create_md_parser(MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist"}),
                          RendererHTML)
    found = []
    for token in md.parse(markdown):
        for t in [token, *(token.children or [])]:
            if t.type == "myst_role" and t.meta.get("name") == "raw":
                found.append(f"{{raw}} role: {t.content!r}")
            if t.type in ("fence", "colon_fence") and t.info.strip().startswith("{raw}"):
                found.append(f"{{raw}} directive: {t.content!r}")
    return found + live_html(md.render(markdown))
