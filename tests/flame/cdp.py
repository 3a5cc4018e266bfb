# SPDX-License-Identifier: MIT
"""A tiny DevTools-protocol client for headless Chromium, standard library only.

Chromium is started with --remote-debugging-pipe: it reads commands from its
fd 3 and writes answers and events to its fd 4, each a JSON text ended by a
NUL byte. No port, no websocket, nothing left listening. Every wait has a
deadline; close() always ends the browser.

Also here: a minimal PNG decoder (zlib + the five filters) for screenshots.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import zlib


class CDPError(Exception):
    pass


def find_chromium():
    """$CHROMIUM if set ('' or 'none': no browser), else Debian's, else one on PATH."""
    env = os.environ.get("CHROMIUM")
    if env is not None:
        return None if env in ("", "none") else (shutil.which(env) or None)
    # the binary itself, not Debian's wrapper script, when it is there
    for p in ("/usr/lib/chromium/chromium",):
        if os.access(p, os.X_OK):
            return p
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, binary, width=1200, height=800, timeout=10.0, log=None):
        self.timeout = timeout
        self.next_id = 0
        self.buf = b""
        self.events = []
        self.session = None
        self.profile = tempfile.mkdtemp(prefix="ct-flame-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        args = [
            binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions",
            "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
            "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height),
            "--remote-debugging-pipe", "about:blank",
        ]

        def child_fds():
            # chromium wants the pipe ends as fds 3 and 4 exactly
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 64)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 64)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.setsid()

        self.log = open(log or os.devnull, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, close_fds=False, preexec_fn=child_fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

    # ---- the wire ----
    def _send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            _, w, _ = select.select([], [self.to_chrome], [], self.timeout)
            if not w:
                raise CDPError("timed out writing %s to chromium" % method)
            n = os.write(self.to_chrome, data)
            data = data[n:]
        return self.next_id

    def _read_one(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for chromium")
            r, _, _ = select.select([self.from_chrome], [], [], left)
            if not r:
                raise CDPError("timed out waiting for chromium")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise CDPError("chromium closed the pipe (exit status %s)" % self.proc.poll())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=None):
        mid = self._send(method, params, session)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self._read_one(deadline)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise CDPError("%s: %s" % (method, msg["error"].get("message")))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout=None):
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self._read_one(deadline)
            if msg.get("method") == method:
                return msg
            if "method" in msg:
                self.events.append(msg)

    def drain(self, seconds=0.1):
        deadline = time.monotonic() + seconds
        try:
            while True:
                msg = self._read_one(deadline)
                if "method" in msg:
                    self.events.append(msg)
        except CDPError:
            pass

    # ---- a page ----
    def open_page(self, width=1200, height=800):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        res = self.call("Target.attachToTarget",
                        {"targetId": target["targetId"], "flatten": True}, session=False)
        self.session = res["sessionId"]
        for m in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(m)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def navigate(self, url, timeout=None):
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", timeout)

    def eval(self, expr, timeout=None):
        res = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                             "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            raise CDPError("JS: %s" % (d.get("exception", {}).get("description") or d.get("text")))
        return res.get("result", {}).get("value")

    def click(self, x, y):
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            p = {"type": t, "x": x, "y": y}
            if t != "mouseMoved":
                p.update(button="left", clickCount=1)
            self.call("Input.dispatchMouseEvent", p)

    def hover(self, x, y):
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def key(self, key, code=None, vk=0):
        for t in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": t, "key": key, "code": code or key,
                                                  "windowsVirtualKeyCode": vk})

    def type_text(self, text):
        self.call("Input.insertText", {"text": text})

    def screenshot(self):
        res = self.call("Page.captureScreenshot", {"format": "png"})
        return base64.b64decode(res["data"])

    def problems(self):
        """Console errors and uncaught exceptions seen so far."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s" % (d.get("exception", {}).get("description")
                                              or d.get("text")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                ent = p["entry"]
                out.append("log: %s %s" % (ent.get("text"), ent.get("url", "")))
        return out

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.session = None
                    self._send("Browser.close", session=False)
                except (CDPError, OSError):
                    pass
                try:
                    self.proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    pass
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    self.proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            for fd in (self.to_chrome, self.from_chrome):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.log.close()
            shutil.rmtree(self.profile, ignore_errors=True)


def decode_png(data):
    """(width, height, rows): rows of bytes, 3 or 4 bytes per pixel (8-bit RGB/RGBA only)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, bits, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if bits != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG: %d bits, colour type %d" % (bits, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def count_pixels(png, pred, step=2, region=None):
    """How many sampled pixels (every step-th in x and y) satisfy pred(r, g, b)."""
    w, h, bpp, rows = decode_png(png)
    x0, y0, x1, y1 = region or (0, 0, w, h)
    n = 0
    for y in range(max(0, y0), min(h, y1), step):
        row = rows[y]
        for x in range(max(0, x0), min(w, x1), step):
            o = x * bpp
            if pred(row[o], row[o + 1], row[o + 2]):
                n += 1
    return n
