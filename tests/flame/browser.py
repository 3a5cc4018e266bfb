#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""calltrace flame's pages in headless Chromium.

    browser.py KNOWN.html [BIG.html] [--empty EMPTY.html] [--shots DIR]

KNOWN.html is the page of tests/flame/known.c (merged threads); BIG.html one
with 100,000 stacks or more; EMPTY.html one whose filters left no call. Drives the page through the DevTools protocol
(cdp.py) with real mouse and keyboard events, and prints `ok flame/browser/...`
or `FAIL flame/browser/...: reason` lines, then `# ...` lines with what the
big page measured. Exit status 0 unless the browser could not be driven at all.
Every wait has a deadline (the whole run takes a few seconds).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from check import Tree, extract  # noqa: E402

W, H = 1000, 700
failures = 0


def say(ok, name, reason=""):
    global failures
    if ok:
        print("ok flame/browser/%s" % name)
    else:
        failures += 1
        first, _, rest = str(reason).partition("\n")
        print("FAIL flame/browser/%s: %s" % (name, first))
        for line in rest.splitlines()[:10]:
            print("    " + line.strip())
    sys.stdout.flush()
    return ok


def warm(r, g, b):
    """A frame's colour (warm hues), not the white background or grey UI."""
    return r > b + 40


def magenta(r, g, b):
    """The highlight of a search match."""
    return b > 170 and r > 150 and g < 140


def url(path):
    return "file://" + os.path.abspath(path)


def center(rect):
    return rect["x"] + rect["w"] / 2, rect["y"] + rect["h"] / 2


def find(t, path):
    for i in range(1, t.n):
        if t.path(i) == path:
            return i
    raise ValueError("no stack %s in the page's data" % path)


def known_page(b, page, shots):
    _, d = extract(page)
    t = Tree(d)
    main, work, leaf_a = find(t, "main"), find(t, "main;work"), find(t, "main;work;leaf_a")

    b.navigate(url(page))
    ready = b.eval("!!(window.flame && window.flame.ready)")
    b.drain(0.05)
    if not say(ready, "loads", "window.flame.ready is not set after the load event; %s"
               % ("; ".join(b.problems()[:3]) or "no console error")):
        return
    canvas = (0, 120, W, H)  # below the header
    png = b.screenshot()
    if shots:
        open(os.path.join(shots, "known.png"), "wb").write(png)
    n = cdp.count_pixels(png, warm, region=canvas)
    say(n > 200, "renders", "%d frame-coloured pixels in the screenshot" % n)

    # hover: the tooltip names the function, with calls and times in units
    r = b.eval("flame.frameRect(%d)" % leaf_a)
    if say(r is not None, "frame-drawn", "main;work;leaf_a is not drawn"):
        b.hover(*center(r))
        tip = b.eval("(function(t){return t.hidden ? null : t.textContent})"
                     "(document.getElementById('tip'))")
        ok = tip and "leaf_a" in tip and "calls" in tip and str(t.calls[leaf_a]) in tip and (
            " us" in tip or " ms" in tip or " ns" in tip or " s" in tip) and "self" in tip
        say(ok, "hover-tooltip", "tooltip: %r" % tip)

    # click zooms: the frame then fills the width
    r = b.eval("flame.frameRect(%d)" % work)
    before = b.eval("flame.frameRect(%d).w" % work)
    b.click(*center(r))
    z = b.eval("flame.zoomedNode")
    wz = b.eval("flame.frameRect(%d).w" % work)
    say(z == work and abs(wz - b.eval("document.getElementById('scroller').clientWidth")) < 1
        and wz > before, "click-zooms", "zoomedNode %r (want %d), width %r -> %r" %
        (z, work, before, wz))
    png2 = b.screenshot()
    if shots:
        open(os.path.join(shots, "known-zoomed.png"), "wb").write(png2)
    say(png2 != png, "zoom-redraws", "the screenshot did not change")

    # an ancestor shown as the path, clicked, zooms out to it
    r = b.eval("flame.frameRect(%d)" % main)
    if say(r is not None, "path-shown", "main is not drawn when zoomed into main;work"):
        b.click(*center(r))
        say(b.eval("flame.zoomedNode") == main, "click-ancestor",
            "zoomedNode %r, want %d (main)" % (b.eval("flame.zoomedNode"), main))

    # Escape resets
    b.eval("flame.zoom(%d)" % leaf_a)
    b.key("Escape", "Escape", 27)
    say(b.eval("flame.zoomedNode") == 0, "escape-resets", "zoomedNode %r" % b.eval("flame.zoomedNode"))

    # a click on the root resets
    b.eval("flame.zoom(%d)" % work)
    r = b.eval("flame.frameRect(0)")
    b.click(*center(r))
    say(b.eval("flame.zoomedNode") == 0, "root-click-resets", "zoomedNode %r" % b.eval("flame.zoomedNode"))

    # search, typed in the box: leaf frames highlighted, their share of the total
    leaf_ticks = sum(t.total[i] for i in range(1, t.n) if t.name(i).startswith("leaf_"))
    want = leaf_ticks / t.total[0]
    box = b.eval("(function(r){return {x:r.left,y:r.top,w:r.width,h:r.height}})"
                 "(document.getElementById('search').getBoundingClientRect())")
    b.click(*center(box))
    b.type_text("leaf")
    m = b.eval("flame.match")
    text = b.eval("document.getElementById('match').textContent")
    say(m and m["count"] == sum(1 for i in range(1, t.n) if t.name(i).startswith("leaf_"))
        and abs(m["share"] - want) < 1e-9 and "%" in text, "search-share",
        "match %r, text %r, want share %.6f" % (m, text, want))
    png3 = b.screenshot()
    if shots:
        open(os.path.join(shots, "known-search.png"), "wb").write(png3)
    n = cdp.count_pixels(png3, magenta, region=canvas)
    n0 = cdp.count_pixels(png, magenta, region=canvas)
    say(n > 50 and n0 == 0, "search-highlights", "%d highlighted pixels (%d before)" % (n, n0))

    m = b.eval("flame.search('^leaf_[ab]$', true)")
    say(abs(m["share"] - want) < 1e-9, "search-regex", "match %r" % m)
    b.eval("flame.search('(', true)")
    text = b.eval("document.getElementById('match').textContent")
    say("valid" in text, "search-bad-regex", "match text %r" % text)
    b.eval("flame.search('', false)")

    # icicle: the root on top
    r = b.eval("(function(r){return {x:r.left,y:r.top,w:r.width,h:r.height}})"
               "(document.getElementById('mode-icicle').getBoundingClientRect())")
    y_flame = b.eval("flame.frameRect(0).y")
    b.click(*center(r))
    y_icicle = b.eval("flame.frameRect(0).y")
    y_main = b.eval("flame.frameRect(%d).y" % main)
    say(b.eval("flame.mode") == "icicle" and y_icicle < y_main and y_icicle < y_flame,
        "icicle", "mode %r, root at y %r (flame: %r), main at %r" %
        (b.eval("flame.mode"), y_icicle, y_flame, y_main))
    png4 = b.screenshot()
    n = cdp.count_pixels(png4, warm, region=canvas)
    say(n > 200, "icicle-renders", "%d frame-coloured pixels" % n)

    b.drain(0.1)
    p = b.problems()
    say(not p, "no-console-errors", "; ".join(p[:3]))


def big_page(b, page, shots):
    size = os.path.getsize(page)
    _, d = extract(page)
    nstacks = len(d["nodes"]) // 5 - 1
    del d
    n0 = len(b.problems())
    t = time.monotonic()
    b.navigate(url(page), timeout=60)
    load_ms = (time.monotonic() - t) * 1000
    st = b.eval("window.flame && window.flame.stats")
    if not say(st is not None, "big-loads", "window.flame is not set"):
        return
    png = b.screenshot()
    if shots:
        open(os.path.join(shots, "big.png"), "wb").write(png)
    n = cdp.count_pixels(png, warm, region=(0, 120, W, H))
    say(n > 200, "big-renders", "%d frame-coloured pixels" % n)
    # zoom into the first child of the first function, search, redraw on scroll
    zoom_ms = b.eval("(function(){var t=performance.now(); flame.zoom(2);"
                     "return performance.now()-t})()")
    search_ms = b.eval("(function(){var t=performance.now(); flame.search('f1', false);"
                       "return performance.now()-t})()")
    reset_ms = b.eval("(function(){var t=performance.now(); flame.reset();"
                      "return performance.now()-t})()")
    st = b.eval("flame.stats")
    b.drain(0.1)
    p = b.problems()[n0:]
    say(not p, "big-no-console-errors", "; ".join(p[:3]))
    print("# big page: %d distinct stacks, %.1f MB; load %.0f ms (event), JSON parse+layout %.0f ms, "
          "first paint %.0f ms after script start; a full redraw %.1f ms (%d frames drawn); "
          "zoom %.0f ms, search %.0f ms, reset %.0f ms" %
          (nstacks, size / 1e6, load_ms, st["parseMs"], st["firstPaintMs"], st["renderMs"],
           st["drawn"], zoom_ms, search_ms, reset_ms))


def empty_page(b, page):
    n0 = len(b.problems())
    b.navigate(url(page))
    ok = b.eval("!!(window.flame && window.flame.ready && document.getElementById('empty'))")
    b.drain(0.1)
    p = b.problems()[n0:]
    say(ok and not p, "empty-page", "no 'nothing to show' message, or errors: %s" % "; ".join(p[:3]))


def option(args, name):
    if name not in args:
        return None
    i = args.index(name)
    v = args[i + 1]
    del args[i:i + 2]
    return v


def main(argv):
    args = argv[1:]
    shots = option(args, "--shots")
    empty = option(args, "--empty")
    if shots:
        os.makedirs(shots, exist_ok=True)
    binary = cdp.find_chromium()
    if not binary:
        if os.environ.get("CHROMIUM") in ("", "none"):
            print("ok flame/browser # SKIP CHROMIUM=none: no browser asked for")
        else:
            print("FAIL flame/browser: chromium is missing (scripts/install-deps.sh --test)")
        return 0
    log = os.path.join(shots, "chromium.log") if shots else None
    # a deadline, not a speed: a loaded machine (make check's other suites) can keep
    # chromium's first answer past 15 s, which once failed a CI run
    b = cdp.Browser(binary, W, H, timeout=60, log=log)
    try:
        b.open_page(W, H)
        known_page(b, args[0], shots)
        if empty:
            empty_page(b, empty)
        if len(args) > 1:
            big_page(b, args[1], shots)
    except (cdp.CDPError, OSError, ValueError, KeyError, TypeError) as e:
        say(False, "driver", "%s: %s" % (type(e).__name__, e))
    finally:
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
