"""The HTML book in a real browser (`make test-browser`, part of `make test-slow`): Debian's
headless Chromium, driven through chromedriver by selenium, opens every page of
book/_build/html and checks what a reader would see:

* every image has loaded (``naturalWidth > 0``);
* every internal link resolves (the page exists; an ``#anchor`` exists on it);
* no page shows an unresolved glue key (``{glue...}``, ``.ipynb::``), a Python traceback or
  error, or raw LaTeX (``\\frac``, ``$$``, ``\\begin{``) outside rendered math.

Screenshots of the index and one result page are kept in book/_build/screenshots/. The test
skips, saying why, only where chromium or chromedriver is absent, or no book is built.
COPYBENCH_BOOK_RUN names the run the book must have been built from (the make target sets
it to the committed reference run)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
SHOTS = ROOT / "book" / "_build" / "screenshots"
RUN = os.environ.get("COPYBENCH_BOOK_RUN")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or next(
    (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if Path(p).is_file()),
    None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1600"]

# what must never reach a reader
BAD_TEXT = [
    (re.compile(r"\{glue(:[a-z]+)?\}"), "unresolved glue role"),
    (re.compile(r"\.ipynb::"), "unresolved glue key"),
    (re.compile(r"Traceback \(most recent call last\)"), "Python traceback"),
    (re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception): "), "Python error"),
    (re.compile(r"\\(frac|begin\{|end\{|mathrm|textbf|emph\{|cite\{|ref\{)"), "raw LaTeX"),
    (re.compile(r"\$\$"), "raw LaTeX ($$)"),
]

pytestmark = [
    pytest.mark.book, pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM and DRIVER),
                       reason="chromium and chromium-driver not installed "
                              "(apt-get install chromium chromium-driver; scripts/setup does "
                              "as root)"),
    pytest.mark.skipif(not (HTML / "index.html").is_file(),
                       reason="no book built (make book)"),
]


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if RUN:
        built = (ROOT / "book" / "_generated" / ".run").read_text().strip()
        assert built == str((ROOT / RUN).resolve()), f"the book was built from {built}, not {RUN}"
    profile = tempfile.mkdtemp(prefix="copybench-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(f)
    drv = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    drv.set_page_load_timeout(60)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


REDIRECT = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.I)


def _redirect(page: Path) -> str | None:
    """The target of a page that only redirects (the book's index.html -> intro.html), else
    None. Such a page is not loaded itself: the browser is still leaving it when the checks
    run (document.body null in about half the loads); the page a reader lands on is."""
    text = page.read_text(encoding="utf-8", errors="replace")
    m = REDIRECT.search(text)
    return m.group(1) if m and len(text) < 2000 else None


def pages() -> list[Path]:
    skip = {"genindex.html", "search.html"}
    return sorted(p for p in HTML.rglob("*.html")
                  if p.name not in skip and "_static" not in p.parts and "_sources" not in p.parts
                  and _redirect(p) is None)


def test_a_redirecting_page_leads_to_a_page_that_is_checked() -> None:
    for page in HTML.rglob("*.html"):
        target = _redirect(page)
        if target is not None:
            assert (page.parent / target).resolve() in {p.resolve() for p in pages()}, \
                (page, target)


def _wait_images(drv) -> None:
    drv.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const imgs = Array.from(document.images);
        Promise.all(imgs.map(i => i.complete ? 0 : new Promise(r => {
            i.addEventListener('load', r); i.addEventListener('error', r); })))
          .then(() => done(true));
        setTimeout(() => done(false), 20000);""")


def _anchors(drv) -> set[str]:
    return set(drv.execute_script(
        "return Array.from(document.querySelectorAll('[id],a[name]'))"
        ".map(e => e.id || e.getAttribute('name'));"))


def test_every_page_in_chromium(browser) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    anchors: dict[Path, set[str]] = {}
    links: list[tuple[Path, str]] = []
    n_img = 0
    for page in pages():
        rel = page.relative_to(HTML)
        browser.get(page.as_uri())
        _wait_images(browser)
        # MathJax (served from the book) typesets asynchronously
        browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            if (window.MathJax && MathJax.startup && MathJax.startup.promise)
              MathJax.startup.promise.then(() => done(1), () => done(0));
            else done(1);
            setTimeout(() => done(0), 20000);""")
        for src, w in browser.execute_script(
                "return Array.from(document.images).map(i => [i.src, i.naturalWidth]);"):
            n_img += 1
            if not w:
                problems.append(f"{rel}: image not loaded: {src}")
        # text a reader sees: rendered math (mjx-container) excluded
        text = browser.execute_script("""
            const c = document.querySelector('main') || document.body;
            const k = c.cloneNode(true);
            k.querySelectorAll('mjx-container, script, style, .MathJax').forEach(e => e.remove());
            return k.innerText;""")
        for rx, what in BAD_TEXT:
            m = rx.search(text)
            if m:
                ctx = text[max(0, m.start() - 60):m.end() + 60].replace("\n", " ")
                problems.append(f"{rel}: {what}: ...{ctx}...")
        # a verdict table (a "direction" column) shows every column at this width: its
        # output box does not hide columns behind a horizontal scroll (at 1280 px the
        # replication chapter's magnitude and other-machine columns once were)
        for cut in browser.execute_script("""
                return Array.from(document.querySelectorAll('main table')).filter(t =>
                    Array.from(t.querySelectorAll('th')).some(h =>
                        /\bdirection\b/.test(h.innerText))).map(t => {
                    let box = t.parentElement;
                    while (box && box !== document.body &&
                           !['auto', 'scroll', 'hidden'].includes(
                               getComputedStyle(box).overflowX)) box = box.parentElement;
                    const r = t.getBoundingClientRect();
                    const clipped = box && box !== document.body
                        && box.scrollWidth > box.clientWidth + 1;
                    return (clipped || r.right > window.innerWidth + 1)
                        ? Array.from(t.querySelectorAll('th')).map(h => h.innerText)
                            .join(' | ').slice(0, 120) : null;
                }).filter(x => x);"""):
            problems.append(f"{rel}: a verdict table is cut off at this width: {cut}")
        anchors[page.resolve()] = _anchors(browser)
        for href in browser.execute_script(
                "return Array.from(document.querySelectorAll('a[href]'))"
                ".map(a => a.href);"):
            if href.startswith("file://"):
                links.append((page, href))
        if rel.as_posix() in ("intro.html", "_generated/message.html"):
            browser.save_screenshot(str(SHOTS / (rel.as_posix().replace("/", "-")
                                                 .replace(".html", ".png"))))
    for page, href in links:
        url, frag = urldefrag(href)
        target = Path(unquote(urlparse(url).path))
        rel = page.relative_to(HTML)
        if not target.exists():
            problems.append(f"{rel}: link to a missing file: {href}")
        elif frag and target.suffix == ".html":
            if target.resolve() not in anchors:
                browser.get(target.as_uri())
                anchors[target.resolve()] = _anchors(browser)
            if unquote(frag) not in anchors[target.resolve()]:
                problems.append(f"{rel}: link to a missing anchor: {href}")
    assert n_img > 0, "no image in the whole book"
    assert (SHOTS / "intro.png").is_file() and (SHOTS / "_generated-message.png").is_file()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])
