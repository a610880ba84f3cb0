#!/usr/bin/env python3
"""The Klaxon in a browser: lay out, serve and publish web/ (host-only).

    python3 tools/dev.py web [--port N] [--no-open]   # serve it on 127.0.0.1
    python3 tools/dev.py web --publish DIR            # a static copy for any web host

The page (web/index.html, app.js, page.py) runs the unedited device files on
MicroPython's WebAssembly port. That port is the npm package pinned in
web/package-lock.json, installed into web/node_modules like the Python venv:
with npm when there is one (``npm ci``), else fetched from the npm registry by
this script and checked against the lockfile's sha512. Nothing is fetched while
the page runs.

``stage()`` copies into web/device/ what the board would hold (tools/deploy.py's
list for the simulated build: the firmware modules, its libraries, the WAV
sounds) with the stand-ins the other lanes use for the board's own modules
(tools/vmboard, tools/simboard) and tools/events.py, plus files.json, the list
the page loads into the VM's file system.
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
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deploy  # noqa: E402

ROOT = deploy.ROOT
WEB = os.path.join(ROOT, "web")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
MODULES = os.path.join(WEB, "node_modules", *PACKAGE.split("/"))
PAGE = ("index.html", "app.js", "style.css", "page.py", "favicon.svg")
WASM = ("micropython.mjs", "micropython.wasm")
# The board's own modules, as the VM and CircuitPython lanes stand them in
STAND_INS = {
    "vmboard": ("board", "digitalio", "microcontroller", "neopixel_write", "pwmio"),
    "simboard": ("simclock", "simpins", "_audioout", "_wavefile", "_mixer", "audiocore",
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
    for folder, names in STAND_INS.items():
        for name in names:
            files.append((os.path.join(ROOT, "tools", folder, name + ".py"),
                          "%s/%s.py" % (folder, name)))
    files.append((os.path.join(ROOT, "tools", "events.py"), "tools/events.py"))
    return files


def controls():
    """The table card's presses (tools/card.py), for the page's help."""
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


class Handler(http.server.SimpleHTTPRequestHandler):
    """web/ as it is on disk, never cached (an edit shows on reload), quiet."""

    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".mjs": "text/javascript", ".js": "text/javascript",
                             ".wasm": "application/wasm", ".py": "text/plain; charset=utf-8",
                             ".svg": "image/svg+xml", ".json": "application/json"})

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


def server(port=0, folder=WEB):
    """A started-to-be server of ``folder`` on 127.0.0.1 (port 0: any free one)."""
    return http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(Handler, directory=folder))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/dev.py web", description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8008, help="port on 127.0.0.1 (default 8008)")
    ap.add_argument("--publish", metavar="DIR", help="write a static copy to DIR and exit")
    args = ap.parse_args(argv)
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
    try:
        httpd = server(args.port)
    except OSError as e:
        print("web: cannot serve on 127.0.0.1:%d (%s); try --port" % (args.port, e.strerror),
              file=sys.stderr)
        return 2
    try:
        print("QI Klaxon in a browser: http://127.0.0.1:%d/  (Ctrl-C stops)" % httpd.server_port,
              flush=True)
        httpd.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C: the server stops, no traceback
        pass
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C anywhere else: stop, no traceback
        sys.exit(130)
