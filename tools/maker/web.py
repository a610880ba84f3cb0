#!/usr/bin/env python3
"""The Klaxon in a browser: lay out, serve and publish web/ (host-only).

    python3 tools/dev.py web [--port N]   # serve it on 127.0.0.1
    python3 tools/dev.py web --serial PORT            # ... the scoreboard of a real board
    python3 tools/dev.py web --serial PORT --host 0.0.0.0   # ... also for a tablet or TV
    python3 tools/dev.py web --publish DIR            # a static copy for any web host

The page (web/index.html, app.js, page.py) runs the unedited device files on
MicroPython's WebAssembly port. That port is the npm package pinned in
web/package-lock.json, installed into web/node_modules like the Python venv:
with npm when there is one (``npm ci``), else fetched from the npm registry by
this script and checked against the lockfile's sha512. Nothing is fetched while
the page runs.

``stage()`` copies into web/device/ what the board would hold (tools/maker/deploy.py's
list for the simulated build: the firmware modules, its libraries, the WAV
sounds) with the stand-ins the other lanes use for the board's own modules
(tools/lanes/vmboard, tools/simulated/simboard) and tools/simulated/events.py, plus files.json, the list
the page loads into the VM's file system.

``--serial PORT``: the page is the scoreboard of a real board plugged into this
computer (``SerialBridge``): PORT (``/dev/ttyACM0``, ``COM3``...) is read with pyserial
at 115200 baud, and each console line goes to the page as it comes (server-sent
events on ``serial/events``, with the time it was read); ``POST serial/ask`` writes
one byte to the board, which answers with its whole state (hardware/device.py). A
port that is not there, or goes (the cable pulled out), is said to the page, and
opened again every half second until it is back. For a browser with Web Serial
(Chrome, Edge) the page reads the port itself instead ("Connect a board").
"""

import argparse
import base64
import functools
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
import deploy  # noqa: E402
WEB = os.path.join(ROOT, "web")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
MODULES = os.path.join(WEB, "node_modules", *PACKAGE.split("/"))
PAGE = ("index.html", "app.js", "scoreboard.js", "style.css", "page.py", "favicon.svg")
WASM = ("micropython.mjs", "micropython.wasm")
# The board's own modules, as the VM and CircuitPython lanes stand them in (their folder
# in the page's VM: its source)
STAND_INS = {
    ("vmboard", paths.VMBOARD): ("board", "digitalio", "microcontroller", "neopixel_write", "pwmio"),
    ("simboard", paths.SIMBOARD): ("simclock", "simpins", "_audioout", "_wavefile", "_mixer", "audiocore",
                 "audiomixer", "audiopwmio", "audioio", "alarm", "supervisor", "watchdog",
                 "scenario", "simprofiles", "flashsim"),
}
LIBRARIES = deploy.LIBRARIES + ("adafruit_pixelbuf",)  # neopixel's, in C on a board
BUILD = "simulated"


class WebError(Exception):
    """What stops the page's set-up, in words for the user."""


def locked():
    """(version, resolved address, integrity) of the pinned package."""
    with open(os.path.join(WEB, "package-lock.json")) as f:
        entry = json.load(f)["packages"]["node_modules/" + PACKAGE]
    return entry["version"], entry["resolved"], entry["integrity"]


def installed_version():
    try:
        with open(os.path.join(MODULES, "package.json")) as f:
            return json.load(f).get("version")
    except (OSError, ValueError):
        return None


def install(out=print):
    """web/node_modules holds the pinned package (npm ci, or the registry's tarball)."""
    version, url, integrity = locked()
    if installed_version() == version and all(
            os.path.exists(os.path.join(MODULES, n)) for n in WASM):
        return
    npm = shutil.which("npm")
    if npm:
        out("web: npm ci (%s@%s into web/node_modules)" % (PACKAGE, version))
        if subprocess.call([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=WEB) == 0 \
                and installed_version() == version:
            return
        out("web: npm ci failed; fetching the package from the registry instead")
    algo, _, want = integrity.partition("-")
    out("web: fetching %s" % url)
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            data = r.read()
    except OSError as e:
        raise WebError("cannot fetch %s (%s): the page needs it once; install npm and run "
                       "'npm ci' in web/, or try again online" % (url, e))
    if base64.b64encode(hashlib.new(algo, data).digest()).decode() != want:
        raise WebError("%s does not match web/package-lock.json's %s: not installed" % (url, algo))
    shutil.rmtree(MODULES, ignore_errors=True)
    os.makedirs(MODULES)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for m in tar.getmembers():
            name = m.name.split("/", 1)[1] if "/" in m.name else ""
            if m.isfile() and name and "/" not in name and not name.startswith("."):
                with open(os.path.join(MODULES, name), "wb") as f:
                    f.write(tar.extractfile(m).read())
    if installed_version() != version:
        raise WebError("the package fetched is not version %s" % version)


def device_files():
    """[(source path, path in the VM)]: what the page loads into its file system."""
    files = []
    for rel in deploy.DEVICE + ("hardware/profile_%s.py" % BUILD, "hardware/power.py",
                                "hardware/mixer.py"):
        files.append((os.path.join(ROOT, *rel.split("/")), rel))
    for name in deploy.SOUNDS:
        files.append((os.path.join(ROOT, "sounds", name + ".wav"), "sounds/%s.wav" % name))
    for name in LIBRARIES:
        files.append((deploy.library_source(name), "lib/%s.py" % name))
    for (folder, src), names in STAND_INS.items():
        for name in names:
            files.append((os.path.join(src, name + ".py"), "%s/%s.py" % (folder, name)))
    # the page's VM holds the host's tools it runs in one folder, tools/ (web/page.py)
    files.append((os.path.join(paths.TOOLS, "simulated", "events.py"), "tools/events.py"))
    # the scoreboard of a real board (tools/maker/scoreboard.py), and the names it reads the
    # board's state by (host-only: never on a board)
    files.append((os.path.join(paths.TOOLS, "maker", "scoreboard.py"), "tools/scoreboard.py"))
    files.append((os.path.join(ROOT, "model", "layout.py"), "model/layout.py"))
    return files


def controls():
    """The table card's presses (tools/gen/card.py), for the page's help."""
    import card

    return card.rows()


def stage(dest=None):
    """Copy the device files into ``dest`` (web/device) with files.json; returns its path."""
    dest = dest or os.path.join(WEB, "device")
    shutil.rmtree(dest, ignore_errors=True)
    for src, rel in device_files():
        path = os.path.join(dest, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copyfile(src, path)
    with open(os.path.join(dest, "files.json"), "w") as f:
        json.dump([rel for _, rel in device_files()], f, indent=0)
    with open(os.path.join(dest, "controls.json"), "w") as f:
        json.dump(controls(), f, indent=0)
    return dest


MARK = ".qiklaxon-site"  # in a folder --publish made: the files it wrote there, a line each


def _site_files():
    """[(source path, path in the copy)] of the published page."""
    files = [(os.path.join(WEB, name), name) for name in PAGE]
    files += [(src, "device/" + rel) for src, rel in device_files()]
    files += [(os.path.join(MODULES, name), "node_modules/%s/%s" % (PACKAGE, name))
              for name in WASM + ("package.json",)]
    return files


def publish(out_dir):
    """A static copy of the page in ``out_dir``: any web server (GitHub Pages, say) serves
    it. ``out_dir`` must be new, empty, or an earlier copy, of which only the files the
    copy wrote are replaced (a CNAME or a .git added there stays)."""
    out_dir = os.path.realpath(out_dir)  # (a link to an earlier copy: that copy)
    mark = os.path.join(out_dir, MARK)
    earlier = []
    if os.path.lexists(out_dir):
        if not os.path.isdir(out_dir):
            raise WebError("%s is not a folder: nothing written" % out_dir)
        if os.path.exists(mark):
            with open(mark, encoding="utf-8") as f:
                earlier = [line.strip() for line in f if line.strip()]
        elif os.listdir(out_dir):
            raise WebError("%s is not empty and is not an earlier --publish: nothing written; "
                           "name a new or empty folder" % out_dir)
    install()
    made = {"device/files.json": json.dumps([rel for _, rel in device_files()], indent=0),
            "device/controls.json": json.dumps(controls(), indent=0),
            "serial": json.dumps(NO_SERIAL),  # (the page asks; a static host has no board)
            ".nojekyll": ""}  # GitHub Pages' Jekyll would drop node_modules/ and _*.py
    files = _site_files() + [(text, rel) for rel, text in made.items()]
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(mark, "w", encoding="utf-8") as f:  # first: a copy cut short can be redone
            f.write("\n".join(sorted(set(earlier) | {rel for _, rel in files})) + "\n")
        for rel in earlier:  # what the earlier copy wrote, and only that
            path = os.path.normpath(os.path.join(out_dir, rel))
            if path.startswith(out_dir + os.sep) and os.path.isfile(path):
                os.remove(path)
        for src, rel in files:
            path = os.path.join(out_dir, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if rel in made:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(src)
            else:
                shutil.copyfile(src, path)
        with open(mark, "w", encoding="utf-8") as f:
            f.write("\n".join(rel for _, rel in files) + "\n")
    except OSError as e:
        raise WebError("cannot write the page into %s: %s" % (out_dir, e.strerror or e))
    return out_dir


BAUD = 115200  # CircuitPython's console (USB CDC ignores it; a UART console needs it)
REOPEN_S = 0.5  # a port that is not there is tried again this often
LINE_MAX = 4096  # bytes without a newline (noise, a wrong baud rate) go out as a line
# What a page may lag behind the board before it is let go: a page that stays connected
# but never reads (a sleeping tablet's tab, a stalled network) would grow its queue for
# ever. Let go, it is told why (``DROPPED``) and its stream ends; the browser's EventSource
# connects again by itself, and the page asks the board where the game is now.
QUEUE_MAX = 2000
DROPPED = ("this page fell %d messages behind the board and was let go: it reconnects "
           "and asks the board for the game")
# /serial without --serial: the page runs its own board (an answer, not a 404, so that a
# page working as designed has no error in its browser console; --publish writes it too)
NO_SERIAL = {"kind": "none", "why": "no --serial port: the page runs its own board"}


class Bridge:
    """A board's console for the pages that show it: each line goes to every page
    listening (``listen``), with the time it was read; ``ask()`` asks the board for its
    whole state. ``status`` says whether the board is there (the pages show it)."""

    def __init__(self, port, name=None):
        self.port = port
        self.lock = threading.Lock()
        self.listeners = []
        self.status = {"kind": "status", "port": port, "connected": False,
                       "why": "opening %s" % port}
        if name:
            self.status["name"] = name
        self.lines = 0
        self.dropped = 0  # pages let go for not reading (``QUEUE_MAX``)

    def start(self):
        return self

    def stop(self):
        self._send(None)  # the listeners end

    def listen(self):
        """A queue of what comes (dicts; None: the bridge stopped, or the page was let go
        after a ``{"kind": "dropped"}``), starting with the status."""
        import queue

        q = queue.Queue(QUEUE_MAX + 2)  # (+2: room for the last two words to a slow page)
        with self.lock:
            q.put(dict(self.status))
            self.listeners.append(q)
        return q

    def forget(self, q):
        with self.lock:
            if q in self.listeners:
                self.listeners.remove(q)

    def _send(self, msg):
        with self.lock:
            if msg is not None and msg.get("kind") == "status":
                self.status = msg
            for q in list(self.listeners):
                if q.qsize() < QUEUE_MAX:
                    q.put(msg)
                    continue
                self.listeners.remove(q)  # a page that does not read: let go, told why
                self.dropped += 1
                q.put({"kind": "dropped", "why": DROPPED % QUEUE_MAX, "t": time.time() * 1000})
                q.put(None)

    def line(self, text, t=None):
        """A line the board printed (read at ``t``, epoch ms; None: now)."""
        self.lines += 1
        self._send({"kind": "line", "text": text, "t": time.time() * 1000 if t is None else t})

    def _state(self, connected, why):
        if (connected, why) != (self.status["connected"], self.status["why"]):
            msg = {"kind": "status", "port": self.port, "connected": connected, "why": why,
                   "t": time.time() * 1000}
            if "name" in self.status:
                msg["name"] = self.status["name"]
            self._send(msg)


class SimBridge(Bridge):
    """The simulated board's console (``tools/dev.py sim --scoreboard``): the sim sends
    each line it prints (``line``) and, each time round its loop, takes the asks the
    pages made (``asks``: how many since it last took them) and types one byte for them."""

    def __init__(self):
        super().__init__("sim", name="the simulated board (tools/dev.py sim)")
        self._asks = 0
        self._state(True, "the simulated board")

    def ask(self):
        with self.lock:
            self._asks += 1
        return True

    def asks(self):
        with self.lock:
            n, self._asks = self._asks, 0
        return n


class SerialBridge(Bridge):
    """A board's serial console on this computer: a thread reads ``port`` (pyserial) and
    sends each line on; ``ask()`` writes one byte (the board then prints its whole state).
    The port is opened again whenever it is gone (not plugged in yet, the cable pulled
    out): the pages are told (``status``)."""

    def __init__(self, port, baud=BAUD):
        super().__init__(port)
        self.baud = baud
        self.ser = None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="serial " + port, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopped.set()
        super().stop()
        self.thread.join(2)

    def ask(self):
        """One byte to the board: it answers with its whole state. False: no port open."""
        ser = self.ser
        if ser is None:
            return False
        try:
            ser.write(b"\n")
            return True
        except Exception:  # (gone meanwhile: the reader says so)
            return False

    def _run(self):
        import serial

        while not self.stopped.is_set():
            try:
                ser = serial.Serial(self.port, self.baud, timeout=0.05)
            except (serial.SerialException, OSError, ValueError) as e:
                why = getattr(e, "strerror", None) or str(e).split(":")[0]
                if os.path.exists(self.port):  # there, but not opened as a serial port
                    self._state(False, "%s did not open as a serial port (%s): another "
                                "program may have it, or it is not the board's" % (
                                    self.port, str(e) or why))
                else:
                    self._state(False, "%s is not there: plug the board in (%s)" % (
                        self.port, why))
                self.stopped.wait(REOPEN_S)
                continue
            self.ser = ser
            self._state(True, "reading %s" % self.port)
            buf = b""
            try:
                while not self.stopped.is_set():
                    data = ser.read(ser.in_waiting or 1)
                    if not data:
                        continue
                    t = time.time() * 1000
                    buf += data
                    while b"\n" in buf or len(buf) > LINE_MAX:
                        i = buf.find(b"\n")
                        line, buf = (buf[:i], buf[i + 1:]) if i >= 0 else (buf, b"")
                        self.line(line.decode("utf-8", "replace"), t)
            except (serial.SerialException, OSError, TypeError) as e:  # the cable pulled out
                if buf:
                    self.line(buf.decode("utf-8", "replace"))
                self._state(False, "the board is gone from %s: plug it back in (%s)" % (
                    self.port, str(e).split("(")[0].strip() or type(e).__name__))
            finally:
                self.ser = None
                try:
                    ser.close()
                except Exception:
                    pass
            self.stopped.wait(REOPEN_S)


class Handler(http.server.SimpleHTTPRequestHandler):
    """web/ as it is on disk, never cached (an edit shows on reload), quiet; with a
    ``bridge`` (``--serial``), also ``serial`` (its port, as JSON), ``serial/events``
    (its lines as they come: server-sent events) and ``POST serial/ask``."""

    bridge = None
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".mjs": "text/javascript", ".js": "text/javascript",
                             ".wasm": "application/wasm", ".py": "text/plain; charset=utf-8",
                             ".svg": "image/svg+xml", ".json": "application/json"})

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/serial":
            body = json.dumps(NO_SERIAL if self.bridge is None else self.bridge.status).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        if path == "/serial/events" and self.bridge is not None:
            return self._events()
        return super().do_GET()

    def do_POST(self):
        if self.path.split("?")[0] == "/serial/ask" and self.bridge is not None:
            ok = self.bridge.ask()
            self.send_response(204 if ok else 503)
            self.end_headers()
            return None
        return self.send_error(404)

    def _events(self):
        import queue

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
        self.close_connection = True
        q = self.bridge.listen()
        try:
            while True:
                try:
                    msg = q.get(timeout=10)
                except queue.Empty:
                    self.wfile.write(b": still here\n\n")  # (a closed page shows here)
                    self.wfile.flush()
                    continue
                if msg is None:
                    return
                self.wfile.write(b"data: " + json.dumps(msg).encode() + b"\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            self.bridge.forget(q)


def server(port=0, folder=WEB, bridge=None, host="127.0.0.1"):
    """A started-to-be server of ``folder`` on ``host`` (port 0: any free one); with
    ``bridge`` (a SerialBridge), a real board's console too."""
    handler = type("Served", (Handler,), {"bridge": bridge})
    return http.server.ThreadingHTTPServer(
        (host, port), functools.partial(handler, directory=folder))


def serve(port, bridge=None, host="127.0.0.1", flag="--port"):
    """A server of the page (``server``), or WebError saying why not (the port in use:
    another copy still running, most often). ``flag``: the caller's option for the port."""
    import errno

    try:
        return server(port, bridge=bridge, host=host)
    except (OSError, OverflowError) as e:
        if getattr(e, "errno", None) == errno.EADDRINUSE:
            raise WebError("cannot serve on %s:%d: the port is in use (another copy still "
                           "running? stop it with Ctrl-C in its terminal), or choose another "
                           "with %s N" % (host, port, flag))
        raise WebError("cannot serve on %s:%d (%s); choose another port with %s N" % (
            host, port, getattr(e, "strerror", None) or e, flag))


def address(host, port):
    """Where a browser on this computer finds the page (and, serving every address, that
    the rest of the network does too)."""
    where = "http://%s:%d/" % ("127.0.0.1" if host in ("", "0.0.0.0", "::") else host, port)
    if host in ("", "0.0.0.0", "::"):
        where += " (on this computer; elsewhere on this network, its address, port %d)" % port
    return where


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/dev.py web", description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8008, help="port on 127.0.0.1 (default 8008)")
    ap.add_argument("--publish", metavar="DIR", help="write a static copy to DIR and exit")
    ap.add_argument("--host", default="127.0.0.1",
                    help="the address to serve on (default 127.0.0.1: this computer only; "
                         "0.0.0.0: also a tablet or TV on this network, to show --serial's "
                         "scoreboard)")
    ap.add_argument("--serial", metavar="PORT",
                    help="the scoreboard of a real board: read its console on PORT "
                         "(/dev/ttyACM0, /dev/cu.usbmodem..., COM3)")
    args = ap.parse_args(argv)
    if args.serial is not None and args.publish:
        print("web: --serial serves a board's console; --publish writes a static copy: one "
              "or the other", file=sys.stderr)
        return 2
    if args.serial is not None:
        if not args.serial.strip():
            print("web: --serial needs the board's port, e.g. /dev/ttyACM0 or COM3",
                  file=sys.stderr)
            return 2
        for test, what in ((os.path.isdir, "a folder"), (os.path.isfile, "a file")):
            if test(args.serial):  # (never a port: one that is not there yet may come)
                print("web: --serial %s is %s, not a serial port: name the board's port, "
                      "e.g. /dev/ttyACM0, /dev/cu.usbmodem14101 or COM3" % (args.serial, what),
                      file=sys.stderr)
                return 2
        try:
            import serial  # noqa: F401
        except ImportError:
            print("web: --serial needs pyserial: pip install -r requirements-dev.txt (or use "
                  "python3 tools/dev.py web, which does)", file=sys.stderr)
            return 2
    try:
        if args.publish:
            where = publish(args.publish)
            print("web: the page is in %s; put that folder on any static web host" % where)
            return 0
        install()
        stage()
    except (WebError, deploy.DeployError) as e:
        print("web:", e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C while setting up: stop, no traceback
        print("web: interrupted", file=sys.stderr)
        return 130
    bridge = SerialBridge(args.serial).start() if args.serial else None
    try:
        httpd = serve(args.port, bridge=bridge, host=args.host)
    except WebError as e:
        print("web:", e, file=sys.stderr)
        if bridge:
            bridge.stop()
        return 2
    where = address(args.host, httpd.server_port)
    try:
        if bridge:
            print("QI Klaxon scoreboard of the board on %s: %s  (Ctrl-C stops)" % (
                args.serial, where), flush=True)
        else:
            print("QI Klaxon in a browser: %s  (Ctrl-C stops)" % where, flush=True)
        httpd.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C: the server stops, no traceback
        pass
    finally:
        if bridge:
            bridge.stop()
        httpd.server_close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C anywhere else: stop, no traceback
        sys.exit(130)
