"""The JavaScript the browser check runs in every page of the book (:mod:`xalign.book.browser`).

:data:`PAGE_JS` collects what a reader would meet: images, links, wide tables, raw TeX that MathJax did
not typeset, and any script or handler from the page's content that calls a dialog;
:data:`DIALOG_CANARY_JS` runs before a page's own scripts and records such calls instead of opening them.
"""

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

PAGE_JS = _PAGE_JS.replace("${WIDE}", WIDE_JS + _RAW_MATH_JS)
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
