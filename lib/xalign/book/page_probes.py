"""The JavaScript the browser check runs in every page of the book (:mod:`xalign.book.browser`).

:data:`PAGE_JS` collects what a reader would meet: images, links, wide tables, raw TeX that MathJax did
not typeset, and any script or handler from the page's content that calls a dialog;
:data:`DIALOG_CANARY_JS` runs before a page's own scripts and records such calls instead of opening them.
"""

from xalign.book.display import FIGURE_DPI, SMALLEST_PT

_PAGE_JS = r"""
(async () => {
  ${WIDE}

  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => { i.loading = "eager"; return i.complete ? null :
      new Promise(r => { i.addEventListener("load", r); i.addEventListener("error", r); setTimeout(r, 10000); }); }));
  // MathJax (deferred, so loaded by now) typesets after the load event: wait for its first pass
  if (window.MathJax && MathJax.startup && MathJax.startup.promise)
    await Promise.race([MathJax.startup.promise, new Promise(r => setTimeout(r, 20000))]);
  const visible = el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; };
  const tables = Array.from(document.querySelectorAll("table")).filter(t =>
      Array.from(t.querySelectorAll("th")).some(th => th.textContent.trim() === "Status"));
  const calls = /\b(alert|confirm|prompt)\s*\(/;
  const injected = [];
  for (const el of document.querySelectorAll("*")) {
    if (el.tagName === "SCRIPT" && calls.test(el.textContent)) injected.push(`<script>${el.textContent.slice(0, 80)}`);
    for (const a of Array.from(el.attributes)) {
      const name = a.name.toLowerCase(), value = a.value.trim();
      if ((name.startsWith("on") || (/^(href|src|action|formaction)$/.test(name) && /^javascript:/i.test(value)))
          && calls.test(value)) injected.push(`<${el.tagName.toLowerCase()} ${name}="${value.slice(0, 80)}">`);
    }
  }
  return {
    dialogs: (window.__xalignDialogs || []).slice(),
    injected: injected,
    title: document.title,
    broken_images: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute("src")),
    n_images: imgs.length,
    links: Array.from(document.querySelectorAll("a[href]")).map(a => a.href),
    status_table_visible: tables.some(visible),
    status_rows: tables.length ? tables[0].querySelectorAll("tbody tr").length : 0,
    body_text: document.body ? document.body.innerText.length : 0,
    main_text: (document.querySelector("main") || document.body || {innerText: ""}).innerText,
    wide_tables: wideTables(),
    raw_math: rawMath(),
    ${READER_FIELDS}
  };
})()
"""

#: tables wider than the text column with no scroll box of their own (an ancestor inside the column
#: whose overflow-x scrolls or hides): such a table widens the page and hides its last columns
WIDE_JS = r"""
function wideTables() {
  const out = [];
  for (const t of document.querySelectorAll("table")) {
    const col = t.closest("article, main") || document.body;
    const limit = col.getBoundingClientRect().width + 1;
    if (t.getBoundingClientRect().width <= limit) continue;
    let boxed = false;
    for (let el = t.parentElement; el && el !== col.parentElement; el = el.parentElement) {
      const ox = getComputedStyle(el).overflowX;
      if ((ox === "auto" || ox === "scroll" || ox === "hidden") && el.getBoundingClientRect().width <= limit) {
        boxed = true; break;
      }
    }
    if (!boxed) {
      const head = Array.from(t.querySelectorAll("th")).slice(0, 3).map(th => th.textContent.trim()).join(", ");
      out.push(`${Math.round(t.getBoundingClientRect().width)} px wide in a ${Math.round(limit - 1)} px column (${head})`);
    }
  }
  return out;
}
"""



#: visible text outside code that still holds TeX: maths that MathJax did not typeset (not loaded, not
#: matched by its processHtmlClass, or outside any math element)
_RAW_MATH_JS = r"""
function rawMath() {
  const out = [], skip = "pre, code, kbd, samp, script, style, textarea, mjx-container, .highlight";
  const tex = /\\\(|\\\)|\\\[|\\\]|\$\$|\$[^$\n]*[\\_^{}][^$\n]*\$/;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || !tex.test(n.textContent)) continue;
    if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    out.push(n.textContent.trim().replace(/\s+/g, " ").slice(0, 100));
  }
  return Array.from(new Set(out));
}
"""

#: what a reader meets at the desktop width: a Python ``None`` in the text, tables without a caption, a
#: comparison table whose paper/ours/difference columns lie beyond its box's first screen, the page's height
READER_JS = r"""
// code, the navigation and the API reference's signatures and docstrings (dl.py) may name Python's None
const SKIP_TEXT = "pre, code, kbd, samp, script, style, textarea, mjx-container, .highlight, nav, header, footer, dl.py";
// shown to a reader as the page opens: not hidden, not inside a closed dropdown (<details>)
const shown = el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"
        && !el.closest("details:not([open])"); };
function noneText() {
  const out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    // the English "None of ..." is prose; any other None is Python's ("None pairs", "(None: all)")
    if (!el || el.closest(SKIP_TEXT) || !/\bNone\b(?! of\b)/.test(n.textContent) || !shown(el)) continue;
    out.push(n.textContent.trim().replace(/\s+/g, " ").slice(0, 100));
  }
  return Array.from(new Set(out));
}
function readerTables() {
  const uncaptioned = [], beyond = [], key = /^(paper|ours|diff)/i;
  for (const t of document.querySelectorAll("main table, article table, body > table")) {
    if (t.closest("nav, .bd-sidebar, .bd-search, table.highlighttable") || t.matches(".indextable, .highlighttable")
        || !shown(t)) continue;
    const head = Array.from(t.querySelectorAll("th")).slice(0, 3).map(th => th.textContent.trim()).join(", ");
    const cap = t.querySelector(":scope > caption");
    const words = cap ? cap.textContent.replace(/^\s*Table\s+[\d.]+:?/, "").trim() : "";
    if (!words) uncaptioned.push(head || "(no header)");
    let box = null;
    for (let el = t.parentElement; el && el !== document.body; el = el.parentElement) {
      const ox = getComputedStyle(el).overflowX;
      if (ox === "auto" || ox === "scroll" || ox === "hidden") { box = el; break; }
    }
    const right = (box || t.closest("article, main") || document.body).getBoundingClientRect().right + 1;
    const late = Array.from(t.querySelectorAll("thead th, tr:first-child th")).filter(th => key.test(th.textContent.trim())
        && th.getBoundingClientRect().left >= right).map(th => th.textContent.trim());
    if (late.length) beyond.push(`${(cap ? cap.textContent : head).trim().slice(0, 60)}: ${late.join(", ")}`);
  }
  return {uncaptioned, beyond};
}
"""
_READER_FIELDS = r"""none_text: noneText(),
    reader_tables: readerTables(),
    page_height: document.documentElement.scrollHeight,"""

#: what a phone (390 px) meets: the page scrolls sideways (the elements that stick out past the window's
#: right edge outside any scroll box of their own), table captions that run past the screen inside their table's
#: scroll box (their end is read only by scrolling the table sideways), and figures whose smallest text (the book's 8 pt at its
#: resolution, :data:`xalign.book.display.FIGURE_DPI`) shows under 8 px without a link to the full-size image
PHONE_JS = r"""
(() => {
  const W = window.innerWidth, out = {sideways: [], small_figures: [], width: document.documentElement.scrollWidth};
  const scrolls = el => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if ((ox === "auto" || ox === "scroll" || ox === "hidden") && p.getBoundingClientRect().right <= W + 1) return true; }
    return false; };
  if (out.width > W + 1) {
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.right <= W + 1 || r.width === 0 || el.closest("svg") && el.tagName.toLowerCase() !== "svg" || scrolls(el)
          || (el.checkVisibility && !el.checkVisibility({visibilityProperty: true, opacityProperty: true})))
        continue;
      let fixed = false;  // an off-canvas drawer (the page's contents on a phone) does not widen the page
      for (let p = el; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).position === "fixed") { fixed = true; break; }
      if (fixed) continue;
      if (Array.from(el.children).some(c => c.getBoundingClientRect().right > W + 1)) continue;  // its child sticks out
      const name = el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ?
          "." + el.className.trim().split(/\s+/)[0] : "");
      out.sideways.push(`${name} to ${Math.round(r.right)} px: ${(el.textContent || el.getAttribute("src") || "")
          .trim().replace(/\s+/g, " ").slice(0, 60)}`);
      if (out.sideways.length >= 5) break;
    }
  }
  // a table's caption as wide as its (scrolled) table: the part past the screen is read only by scrolling
  out.cut_captions = Array.from(document.querySelectorAll("table > caption")).filter(cap => {
    const text = document.createRange();  // the caption's words, not its box (as wide as the table)
    text.selectNodeContents(cap);
    return Array.from(text.getClientRects()).some(r => r.width > 0 && r.right > W + 1);
  }).map(cap => cap.textContent.trim().replace(/\s+/g, " ").slice(0, 60));
  const natural = ${MIN_PT} / 72 * ${DPI};  // the smallest text, in the image's own pixels
  for (const img of document.querySelectorAll("main img, article img")) {
    const r = img.getBoundingClientRect();
    if (!img.naturalWidth || img.naturalWidth < 200 || r.width === 0 || img.closest("a[href]")) continue;
    const px = natural * r.width / img.naturalWidth;
    if (px < 8) out.small_figures.push(`${img.getAttribute("src")}: text about ${px.toFixed(1)} px`);
  }
  return out;
})()
"""

PHONE_JS = PHONE_JS.replace("${MIN_PT}", str(SMALLEST_PT)).replace("${DPI}", str(FIGURE_DPI))
PAGE_JS = _PAGE_JS.replace("${WIDE}", WIDE_JS + _RAW_MATH_JS + READER_JS).replace("${READER_FIELDS}", _READER_FIELDS)
#: WIDE_JS alone: ``wideTables()``, run again at a phone's width

#: run in every page before its own scripts: ``alert``, ``confirm`` and ``prompt`` record their call (a
#: live script from a name would make one) instead of opening a dialog that would stall the browser
DIALOG_CANARY_JS = r"""
(() => {
  const seen = [];
  Object.defineProperty(window, "__xalignDialogs", {value: seen});
  for (const name of ["alert", "confirm", "prompt"]) {
    window[name] = (...args) => { seen.push(`${name}(${args.map(String).join(", ")})`); return name === "confirm" ? false : null; };
  }
})();
"""
