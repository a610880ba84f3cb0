"""The web page in a real headless Chromium (host-only): the browser test and the benchmark.

Debian's ``chromium`` and ``chromium-driver`` (/usr/bin/chromium, /usr/bin/chromedriver),
driven by Selenium; the page is served from web/ on 127.0.0.1 by tools/maker/web.py's server.

    with Browser() as b:
        b.open("?seed=1")          # waits until the firmware is ready
        b.press("klaxon", 0.15)    # pointer down on the on-screen button, held, up
        b.trace()                  # the page's levels, console lines and game state
"""

import os
import shutil
import tempfile
import threading
import time

import web

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
DRIVER = ("/usr/bin/chromedriver",)
HOW_TO_GET = ("the browser lane needs Debian's Chromium and its driver: "
              "sudo apt-get install chromium chromium-driver (CI installs them)")
# As the machine's own check starts it: no first run, no background connections (this
# network refuses them), no GPU; as root, no sandbox. Sound may start without a gesture:
# the test's clicks are real input events, but the audio context is made before them.
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required",
         "--mute-audio")


class Unavailable(Exception):
    """No browser here: the message says how to get one."""


def _first(paths, name):
    for p in paths:
        if os.path.exists(p):
            return p
    found = shutil.which(name)
    return found


def find():
    """(chromium, chromedriver) paths, or raise Unavailable."""
    chromium = _first(CHROMIUM, "chromium")
    driver = _first(DRIVER, "chromedriver")
    if not chromium or not driver:
        raise Unavailable(HOW_TO_GET)
    try:
        import selenium  # noqa: F401
    except ImportError:
        raise Unavailable("selenium is not installed: pip install -r requirements-dev.txt")
    return chromium, driver


class Browser:
    """web/ served on a free port of 127.0.0.1, and one headless Chromium on it."""

    def __init__(self, width=1280, height=800, serial=None, gesture_for_sound=False):
        """``serial``: a port the server reads as ``tools/dev.py web --serial`` does (the
        page is then that board's scoreboard). ``gesture_for_sound``: the browser's own
        rule, sound only after a click or key on the page (the tests' default lets it
        play at once)."""
        chromium, driver = find()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        web.install()
        web.stage()
        self.bridge = web.SerialBridge(serial).start() if serial else None
        self.httpd = web.server(0, bridge=self.bridge)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = "http://127.0.0.1:%d/" % self.httpd.server_port
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for flag in FLAGS + ("--window-size=%d,%d" % (width, height),):
            if not (gesture_for_sound and flag.startswith("--autoplay-policy")):
                opts.add_argument(flag)
        self.profile = tempfile.mkdtemp(prefix="qk-chromium-")  # a new, empty one
        opts.add_argument("--user-data-dir=" + self.profile)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            self.d = webdriver.Chrome(service=Service(driver), options=opts)
        except Exception:
            self.httpd.shutdown()
            if self.bridge:
                self.bridge.stop()
            shutil.rmtree(self.profile, ignore_errors=True)
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.d.quit()
        finally:
            if self.bridge:
                self.bridge.stop()
            self.httpd.shutdown()
            self.httpd.server_close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def open(self, query="", timeout=20, clear=True):
        """Load the page (``query``: "?seed=1", say) and wait until its firmware is ready;
        ``clear``: forget any saved game first. Returns the ms from navigation to ready."""
        if clear:
            self.d.get(self.base + "favicon.svg")  # the page's origin, to clear its storage
            self.js("localStorage.clear()")
        self.d.get(self.base + query)
        return self.wait_ready(timeout)

    def reload(self, timeout=20):
        self.d.refresh()
        return self.wait_ready(timeout)

    def wait_ready(self, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ready = self.js("return window.qk ? [qk.ready, qk.readyMs, qk.error] : null")
            if ready and ready[2]:
                raise RuntimeError("the page failed: %s\n%s" % (ready[2], self.console()))
            if ready and ready[0]:
                return ready[1]
            time.sleep(0.02)
        raise RuntimeError("the page was not ready in %d s\n%s" % (timeout, self.console()))

    def console(self):
        return "\n".join(e["message"] for e in self.d.get_log("browser"))

    def press(self, control, hold_s=0.08, gap_s=0.3):
        """Press the on-screen ``control`` with the mouse (real input events: pointerdown,
        held ``hold_s``, pointerup), then wait ``gap_s``."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By

        el = self.d.find_element(By.ID, control)
        ActionChains(self.d, duration=0).click_and_hold(el).pause(hold_s).release().perform()
        time.sleep(gap_s)

    def key(self, key, hold_s=0.08, gap_s=0.3):
        """Press a keyboard key (" " the Klaxon, "a", "b") for ``hold_s``."""
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.d, duration=0).key_down(key).pause(hold_s).key_up(key).perform()
        time.sleep(gap_s)

    def trace(self):
        return self.js("return qk.trace()")

    def screenshot(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.d.save_screenshot(path)
        return path


class Cable:
    """A board's USB cable, stood in for by a pseudo-terminal pair (the tests, the
    benchmark): ``write`` puts a board's bytes into one end; the page's server
    (``Browser(serial=cable.link)``, as ``tools/dev.py web --serial``) reads the other by
    a fixed name (a link, as /dev/serial/by-id/... names a board whatever tty it gets),
    so ``pull`` and ``plug`` are a cable pulled out and a new pair behind the same name;
    ``asks`` is what the page sent the board since it was last read."""

    def __init__(self, folder):
        self.link = os.path.join(str(folder), "board")
        self.master = None
        self.plug()

    def plug(self):
        import tty

        self.master, slave = os.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(self.master, False)
        os.symlink(name, self.link + ".new")
        os.replace(self.link + ".new", self.link)

    def pull(self):
        os.close(self.master)
        self.master = None

    def write(self, data):
        while data:  # (the pty takes about 4 KB at a time)
            try:
                data = data[os.write(self.master, data):]
            except BlockingIOError:
                time.sleep(0.005)

    def asks(self):
        try:
            return os.read(self.master, 4096)
        except OSError:  # nothing yet (or no reader at the other end)
            return b""

    def close(self):
        if self.master is not None:
            self.pull()
