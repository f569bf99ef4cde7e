#!/usr/bin/env python3
"""Drive headless Chromium over the DevTools protocol on a pipe
(--remote-debugging-pipe: commands on fd 3, replies on fd 4, each a JSON
message ended by a NUL), so a test can load a page, click where a person
would click, read the DOM and take a screenshot. Standard library only.

    with Chromium("/usr/bin/chromium", 1200, 600) as c:
        c.open("file:///tmp/x.svg")
        c.click(x, y)
        value = c.eval("document.title")
        c.screenshot("/tmp/x.png")
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


class Chromium:
    def __init__(self, binary, width, height, timeout=60):
        self.width, self.height, self.timeout = width, height, timeout
        self.udd = tempfile.mkdtemp(prefix="latlab-cdp-")
        cmd_r, self.cmd_w = os.pipe()
        self.rep_r, rep_w = os.pipe()

        def fds():  # the protocol's fixed descriptors in the child
            os.dup2(cmd_r, 3)
            os.dup2(rep_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars",
             "--user-data-dir=" + self.udd, "--remote-debugging-pipe",
             "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(rep_w)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.rep_r)
        shutil.rmtree(self.udd, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from chromium")
            chunk = os.read(self.rep_r, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"},
                           session=False)["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height,
                   "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while self.eval("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise TimeoutError("page did not load: " + url)
            time.sleep(0.05)

    def eval(self, expr):
        r = self.send("Runtime.evaluate",
                      {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("script error: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def mouse(self, kind, x, y, clicks=0):
        self.send("Input.dispatchMouseEvent",
                  {"type": kind, "x": x, "y": y, "button": "left",
                   "clickCount": clicks})

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, 1)
        self.mouse("mouseReleased", x, y, 1)

    def screenshot(self, path):
        png = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))
