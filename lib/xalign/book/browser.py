"""Open the built book in a real headless Chromium and check every page.

Chromium is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages separated by NUL bytes on file descriptors 3 and 4), so the check needs
nothing but the browser: no driver, no websocket library. The book is served over HTTP
from a local server, as GitHub Pages serves it. For each page:

- no console errors: ``console.error``, uncaught exceptions, and resources of the book
  that fail to load;
- no request to another host: the book reads offline (MathJax included), so every
  ``http(s)``/``ws(s)`` request a page makes goes to the local server (``data:`` and
  ``blob:`` URLs are in the page itself);
- no raw LaTeX in the visible text once MathJax has typeset the page: no ``\\(``, ``\\)``,
  ``\\[``, ``\\]``, ``$$`` or ``$...$`` holding ``\\``, ``_``, ``^`` or braces, outside code;
- every image present and decoded (``naturalWidth > 0``), which a missing or empty file fails;
- every internal link resolves to a file of the build (and its ``#anchor`` to an id there);
- nothing a name or a data value carries runs: no page calls ``alert``, ``confirm`` or ``prompt``
  (the book never does; a hostile name such as ``<img src=x onerror=alert(2)>`` would, were it
  live: the test builds one into the book), and no ``<script>``, event-handler attribute or
  ``javascript:`` link in the page calls them;
- no Python ``None`` in the visible text outside code;
- every visible table has a caption with words (not only its number), and a comparison table's paper,
  ours and difference columns start inside its column or its scroll box's first screen;
- no page taller than :data:`MAX_PAGE_HEIGHT` at the desktop width;
- at a phone's width (390 px): no sideways scroll (the elements that stick out are named), no table wider
  than its column without a scroll box, and no figure whose smallest text shows under 8 px unless it links
  to its full-size image;
- on the front page, the reproduction status table is visible.

``python -m xalign.book.browser _build/html [--screenshots DIR]`` prints the problems and
exits non-zero when there are any.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from xalign.book.page_probes import DIALOG_CANARY_JS, PAGE_JS, PHONE_JS, WIDE_JS

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
#: the tallest page a reader should scroll at the desktop width (CSS pixels); longer content folds
MAX_PAGE_HEIGHT = 20_000
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", "_sphinx_design_static"}

#: an absolute or temporary path of some machine in a page's text (a build must not leak its own)
MACHINE_PATH = re.compile(r"(?<![\w.])(?:/tmp/|/var/tmp/|/home/|/root/|/Users/|/work/|[A-Z]:\\)[^\s]*")


def find_chromium() -> str | None:
    """The Chromium executable: $XALIGN_CHROMIUM, or the first of the usual names on PATH."""
    if os.environ.get("XALIGN_CHROMIUM"):
        return os.environ["XALIGN_CHROMIUM"]
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


def _above(fd: int, low: int) -> int:
    import fcntl

    new = fcntl.fcntl(fd, fcntl.F_DUPFD, low)
    os.close(fd)
    return new


class Chromium:
    """A headless Chromium driven over the DevTools protocol on a pipe (a context manager)."""

    def __init__(self, executable: str | None = None, width: int = 1280, height: int = 900, timeout: float = 60):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise FileNotFoundError("no Chromium found (apt-get install chromium, or set XALIGN_CHROMIUM)")
        self.width, self.height, self.timeout = width, height, timeout
        self._next, self._buf, self.events = 0, b"", []

    def __enter__(self) -> Chromium:  # noqa: PYI034 (no typing.Self on Python 3.10)
        self._profile = tempfile.mkdtemp(prefix="xalign-chromium-")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        # the child's ends moved above 9, so that putting them on 3 and 4 cannot overwrite one with the other
        to_chrome_r, from_chrome_w = (_above(fd, 10) for fd in (to_chrome_r, from_chrome_w))
        # the browser reads our messages on its fd 3 and answers on fd 4: bash puts the pipes there
        shell = [shutil.which("bash") or "/bin/bash", "-c", f'exec "$0" "$@" 3<&{to_chrome_r} 4>&{from_chrome_w}']
        args = [self.executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check", "--mute-audio",
                "--hide-scrollbars", f"--user-data-dir={self._profile}", f"--window-size={self.width},{self.height}",
                "about:blank"]
        self.proc = subprocess.Popen(shell + args, pass_fds=(to_chrome_r, from_chrome_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            self.call(method, session=self.session)
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": DIALOG_CANARY_JS}, self.session)
        self._metrics(self.height)
        return self

    def __exit__(self, *exc) -> None:
        for fd in (self._w, self._r):
            os.close(fd)
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self._profile, ignore_errors=True)

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium exited (code {self.proc.poll()})")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send one command and return its result (events that arrive meanwhile go to ``events``)."""
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._next:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method: str, timeout: float | None = None) -> dict:
        deadline = time.monotonic() + (timeout or self.timeout)
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self._read(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self.events.clear()
        self.call("Page.navigate", {"url": url}, self.session)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        res = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                             "returnByValue": True}, self.session)
        if "exceptionDetails" in res:
            raise RuntimeError(f"script failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: str | Path, full_page: bool = False, max_height: int = 8000) -> Path:
        """A PNG of the viewport, or of the whole page (up to ``max_height`` pixels) at the window's width."""
        import base64

        if full_page:  # grow the window to the page's height, capture, shrink it back
            h = min(int(self.evaluate("document.documentElement.scrollHeight")), max_height)
            self._metrics(max(h, self.height))
        try:
            data = self.call("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        finally:
            if full_page:
                self._metrics(self.height)
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def resize(self, width: int) -> None:
        """Set the window's width (CSS pixels); the page re-lays itself out at that width."""
        self.width = width
        self._metrics(self.height)

    def _metrics(self, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", {"width": self.width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": False}, self.session)


@dataclass
class PageReport:
    page: str
    errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    n_images: int = 0
    title: str = ""


def _console_problems(events: list[dict], origin: str) -> tuple[list[str], list[str]]:
    errors, external = [], []
    for m in events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                       for a in p.get("args", [])))
        elif method == "Page.javascriptDialogOpening":  # a dialog the canary did not catch (it stalls the page)
            errors.append(f"a script from the page's content ran: {p.get('type')}({p.get('message', '')!r})")
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append(f"uncaught exception: {d.get('exception', {}).get('description') or d.get('text')}")
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            url = e.get("url", "")
            if url == origin + "favicon.ico":  # the browser asks for it on its own; a page's favicon is in _static
                continue
            (external if url and not url.startswith(origin) else errors).append(f"{e.get('text')} {url}".strip())
    return errors, external


def remote_requests(events: list[dict], origin: str) -> list[str]:
    """The URLs of the requests a page made to any host but ``origin`` (the local server), in order, once each.

    Args:
        events: DevTools events (``Network.requestWillBeSent`` among them).
        origin: the local server's address, ``http://127.0.0.1:PORT/``.
    """
    urls = (m.get("params", {}).get("request", {}).get("url", "") for m in events
            if m.get("method") == "Network.requestWillBeSent")
    return list(dict.fromkeys(u for u in urls
                              if urlsplit(u).scheme in ("http", "https", "ws", "wss") and not u.startswith(origin)))


def _link_problems(links: list[str], page: Path, html_dir: Path, origin: str, ids: dict) -> list[str]:
    out = []
    for href in sorted(set(links)):
        if not href.startswith(origin):
            continue
        parts = urlsplit(href)
        target = html_dir / unquote(parts.path).lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            out.append(f"broken link: {parts.path} (from {page.relative_to(html_dir)})")
            continue
        if parts.fragment and target.suffix == ".html":
            if target not in ids:
                ids[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8", errors="replace")))
            if unquote(parts.fragment) not in ids[target]:
                out.append(f"broken anchor: {parts.path}#{parts.fragment} (from {page.relative_to(html_dir)})")
    return out


_REDIRECT = re.compile(r'<meta[^>]+http-equiv="refresh"[^>]+content="\d+;\s*url=([^"]+)"', re.IGNORECASE)


def _resolve(page: str, href: str) -> str:
    from posixpath import dirname, normpath

    return normpath(f"{dirname(page)}/{href}").lstrip("./") if not href.startswith("/") else href.lstrip("/")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def book_pages(html_dir: Path) -> list[Path]:
    """Every HTML page of a build (not the theme's static files)."""
    return sorted(p for p in Path(html_dir).rglob("*.html")
                  if not SKIP_DIRS & set(p.relative_to(html_dir).parts[:-1]))


def check_book(html_dir: str | Path, pages: list[Path] | None = None, front_page: str = "book/intro.html",
               screenshots: str | Path | None = None, width: int = 1280,
               executable: str | None = None, phone_width: int | None = 390) -> list[PageReport]:
    """Open every page of a built book in headless Chromium; returns one report per page.

    Args:
        html_dir: the build's HTML folder (``_build/html``).
        pages: the pages to open (default: every page of the build).
        front_page: the page that must show the reproduction status table (None: no such check).
        screenshots: a folder for full-page PNGs, ``<page>.<width>.png`` and ``<page>.<phone_width>.png``
            (None: no screenshots).
        width: the browser window's width in CSS pixels.
        phone_width: a second width (a phone's) at which each page is opened again: no sideways scroll, tables
            in their boxes, figure text readable (and, with ``screenshots``, captured); None: only ``width``.
        executable: the Chromium binary (default: :func:`find_chromium`).

    Returns:
        A :class:`PageReport` per page; its ``errors`` are empty when the page passed.
    """
    html_dir = Path(html_dir).resolve()
    pages = [Path(p).resolve() for p in pages] if pages else book_pages(html_dir)
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    if screenshots:
        Path(screenshots).mkdir(parents=True, exist_ok=True)
    reports, ids = [], {}
    try:
        with Chromium(executable, width=width) as browser:
            for page in pages:
                rel = page.relative_to(html_dir).as_posix()
                redirect = _REDIRECT.search(page.read_text(encoding="utf-8", errors="replace"))
                if redirect:  # a redirect stub (index.html): its target must exist
                    report = PageReport(rel, title="(redirect)")
                    report.errors = _link_problems([origin + _resolve(rel, redirect[1])], page, html_dir, origin, ids)
                    reports.append(report)
                    continue
                browser.open(origin + rel)
                info = browser.evaluate(PAGE_JS)
                report = PageReport(rel, title=info["title"], n_images=info["n_images"])
                report.errors, report.external = _console_problems(browser.events, origin)
                report.errors += [f"request to a remote host (the book must read offline): {u}"
                                  for u in remote_requests(browser.events, origin)]
                report.errors += [f"raw LaTeX in the text (maths not typeset): {t}" for t in info["raw_math"]]
                report.errors += [f"a script from the page's content ran: {d}" for d in info["dialogs"]]
                report.errors += [f"live markup from the page's content: {x}" for x in info["injected"]]
                report.errors += [f"image missing or empty: {src}" for src in info["broken_images"]]
                report.errors += _link_problems(info["links"], page, html_dir, origin, ids)
                if info["body_text"] == 0:
                    report.errors.append("page shows no text")
                report.errors += [f"machine path in the text: {m.rstrip('.,;:)')}" for m in
                                  dict.fromkeys(MACHINE_PATH.findall(info["main_text"] or ""))]
                report.errors += [f"table wider than its column without a scroll box: {w}" for w in info["wide_tables"]]
                if front_page and rel == front_page and not (info["status_table_visible"] and info["status_rows"]):
                    report.errors.append("front page: the reproduction status table is not visible")
                report.errors += [f"Python None in the text: {t}" for t in info["none_text"]]
                report.errors += [f"table without a caption: {t}" for t in info["reader_tables"]["uncaptioned"]]
                report.errors += [f"paper/ours/difference beyond the table's first screen: {t}"
                                  for t in info["reader_tables"]["beyond"]]
                if info["page_height"] > MAX_PAGE_HEIGHT:
                    report.errors.append(f"page {info['page_height']:,} px tall at {width} px (at most "
                                         f"{MAX_PAGE_HEIGHT:,}: fold long tables)")
                stem = rel.replace("/", "__")[:-5]
                if screenshots:
                    browser.screenshot(Path(screenshots) / f"{stem}.{width}.png", full_page=True)
                if phone_width:  # the same page on a phone's width, then back
                    report.errors += _phone_problems(browser, origin + rel, phone_width, width,
                                                     Path(screenshots) / f"{stem}.{phone_width}.png" if screenshots
                                                     else None)
                reports.append(report)
    finally:
        server.shutdown()
        server.server_close()
    if front_page and not any(r.page == front_page for r in reports):
        reports.append(PageReport(front_page, errors=["front page missing from the build"]))
    return reports


def _phone_problems(browser: Chromium, url: str, phone_width: int, width: int, shot: Path | None) -> list[str]:
    """Open ``url`` laid out from the start at ``phone_width``, capture it, check it, and go back to ``width``."""
    browser.resize(phone_width)
    try:
        browser.open(url)
        if shot:
            browser.screenshot(shot, full_page=True)
        wide = browser.evaluate("(() => {" + WIDE_JS + " return wideTables(); })()")
        phone = browser.evaluate(PHONE_JS)
    finally:
        browser.resize(width)
    out = [f"at {phone_width} px: table wider than its column without a scroll box: {w}" for w in wide]
    if phone["sideways"] or phone["width"] > phone_width + 1:
        out.append(f"at {phone_width} px: the page scrolls sideways ({phone['width']} px wide): "
                   + "; ".join(phone["sideways"]))
    out += [f"at {phone_width} px: a table's caption runs past the screen (its end is read only by scrolling the "
            f"table): {c}" for c in phone["cut_captions"]]
    out += [f"at {phone_width} px: figure text under 8 px and no full-size link: {f}" for f in phone["small_figures"]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html_dir", help="the build's HTML folder, e.g. _build/html")
    ap.add_argument("--screenshots", help="write one full-page PNG per page here")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--phone-width", type=int, default=390, help="a phone's width, checked too (0: not)")
    args = ap.parse_args(argv)
    reports = check_book(args.html_dir, screenshots=args.screenshots, width=args.width,
                         phone_width=args.phone_width or None)
    bad = [r for r in reports if r.errors]
    for r in reports:
        print(f"{'FAIL' if r.errors else 'ok  '} {r.page} ({r.n_images} images)")
        for e in r.errors:
            print(f"     {e}")
    print(f"{len(reports) - len(bad)} pages passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
