"""tools/maker/web.py without a browser: what the page loads, the pinned WebAssembly VM's
install (checked against the lockfile), the static copy, and the server's types."""

import base64
import hashlib
import io
import json
import os
import tarfile
import threading
import urllib.error
import urllib.request

import pytest

import deploy
import web

VERSION = "1.27.0"
URLOPEN = urllib.request.urlopen  # the real one (the registry fixture stands one in)


def fake_package(version=VERSION):
    """A tarball laid out as the npm registry's (package/...)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in (("package.json", json.dumps({"version": version}).encode()),
                           ("micropython.mjs", b"export async function loadMicroPython(){}"),
                           ("micropython.wasm", b"\0asm\1\0\0\0")):
            info = tarfile.TarInfo("package/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture
def registry(monkeypatch, tmp_path):
    """No npm here; the registry answers with ``served[0]``; the package goes to tmp."""
    served = [fake_package()]
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(served[0]).digest()).decode()
    monkeypatch.setattr(web, "MODULES", str(tmp_path / "node_modules" / "pkg"))
    monkeypatch.setattr(web, "locked", lambda: (VERSION, "https://registry.example/p.tgz",
                                                integrity))
    monkeypatch.setattr(web.shutil, "which", lambda name: None)

    class Answer(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout=0: Answer(served[0]))
    return served


def test_the_lockfile_pins_one_version_from_the_npm_registry():
    version, url, integrity = web.locked()
    with open(os.path.join(web.WEB, "package.json")) as f:
        assert json.load(f)["dependencies"][web.PACKAGE] == version  # exact, not a range
    assert url.startswith("https://registry.npmjs.org/" + web.PACKAGE + "/-/")
    assert integrity.startswith("sha512-")


def test_without_npm_the_registry_tarball_is_installed_once_checked(registry):
    web.install(out=lambda *a: None)
    assert web.installed_version() == VERSION
    assert sorted(os.listdir(web.MODULES)) == ["micropython.mjs", "micropython.wasm",
                                               "package.json"]


def test_a_tarball_that_does_not_match_the_lockfile_is_refused(registry):
    registry[0] = fake_package() + b"tampered"
    with pytest.raises(web.WebError, match="does not match"):
        web.install(out=lambda *a: None)
    assert web.installed_version() is None


def test_no_network_says_what_to_do(registry, monkeypatch):
    def offline(url, timeout=0):
        raise OSError("no route to host")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(web.WebError, match="npm ci"):
        web.install(out=lambda *a: None)


def test_the_page_gets_the_device_files_as_the_board_does_and_no_host_code(tmp_path):
    dest = web.stage(str(tmp_path / "device"))
    with open(os.path.join(dest, "files.json")) as f:
        names = json.load(f)
    on_disk = sorted(os.path.relpath(os.path.join(d, n), dest).replace(os.sep, "/")
                     for d, _, files in os.walk(dest) for n in files)
    assert sorted(names + ["files.json", "controls.json"]) == on_disk
    for rel in deploy.DEVICE:  # the firmware, unedited
        assert rel in names
        with open(os.path.join(web.ROOT, rel), "rb") as a, open(os.path.join(dest, rel), "rb") as b:
            assert a.read() == b.read()
    assert "hardware/profile_simulated.py" in names
    assert not [n for n in names if n.endswith(("__init__.py", "game.py"))]
    assert not [n for n in names if "profile_" in n and "simulated" not in n]
    for name in deploy.SOUNDS:
        assert "sounds/%s.wav" % name in names
    with open(os.path.join(dest, "controls.json")) as f:
        controls = json.load(f)
    assert controls[0][0] == "press" and controls[1][0] == "Klaxon"
    assert all(len(row) == len(controls[0]) for row in controls)


def test_the_published_folder_is_the_whole_page(registry, tmp_path):
    web.install(out=lambda *a: None)
    site = web.publish(str(tmp_path / "site"))
    for name in web.PAGE + ("device/files.json", "device/hardware/device.py",
                            "node_modules/%s/micropython.wasm" % web.PACKAGE):
        assert os.path.isfile(os.path.join(site, name)), name
    assert os.path.isfile(os.path.join(site, ".nojekyll"))  # GitHub Pages keeps node_modules/
    # the page imports the VM from where the copy puts it
    with open(os.path.join(site, "app.js")) as f:
        assert "./node_modules/%s/micropython.mjs" % web.PACKAGE in f.read()


@pytest.fixture
def served(registry, tmp_path):
    """The page installed, published and served on a free port: (its folder, the server)."""
    web.install(out=lambda *a: None)
    site = web.publish(str(tmp_path / "site"))
    httpd = web.server(0, site)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield site, httpd
    httpd.shutdown()
    httpd.server_close()


def test_the_server_gives_the_browser_the_types_it_insists_on(served):
    _, httpd = served
    base = "http://127.0.0.1:%d/" % httpd.server_port
    for path, kind in (("app.js", "text/javascript"), ("index.html", "text/html"),
                       ("node_modules/%s/micropython.mjs" % web.PACKAGE, "text/javascript"),
                       ("node_modules/%s/micropython.wasm" % web.PACKAGE, "application/wasm")):
        with URLOPEN(base + path) as r:
            assert r.headers["Content-Type"].startswith(kind), path
            assert r.headers["Cache-Control"] == "no-store"


def test_publishing_never_replaces_a_folder_it_did_not_make(registry, tmp_path):
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "precious.txt").write_text("keep me")
    with pytest.raises(web.WebError, match="not empty"):
        web.publish(str(mine))
    assert (mine / "precious.txt").read_text() == "keep me"
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    with pytest.raises(web.WebError, match="is not a folder"):
        web.publish(str(a_file))
    assert web.main(["--publish", str(mine)]) == 2  # the command says why and exits 2


def test_publishing_again_replaces_only_what_it_wrote(registry, tmp_path, monkeypatch):
    site = tmp_path / "site"
    web.publish(str(site))
    (site / "CNAME").write_text("klaxon.example.org")  # what a publisher adds
    (site / ".git").mkdir()
    (site / ".git" / "HEAD").write_text("ref: refs/heads/main")
    (site / "device" / "old-stand-in.py").write_text("")  # as if an earlier copy wrote it
    with open(site / web.MARK, "a") as f:
        f.write("device/old-stand-in.py\n")
    link = tmp_path / "link"
    link.symlink_to(site)
    assert web.publish(str(link)) == str(site)  # a link to an earlier copy: that copy
    assert (site / "CNAME").read_text() == "klaxon.example.org"
    assert (site / ".git" / "HEAD").exists()
    assert not (site / "device" / "old-stand-in.py").exists()
    assert (site / "index.html").exists()
    # a copy cut short (the mark is written first) can be published over
    copyfile = web.shutil.copyfile
    full = [True]

    def disk(*args):  # full once, then freed
        if full.pop() if full else False:
            raise OSError(28, "No space left on device")
        return copyfile(*args)

    monkeypatch.setattr(web.shutil, "copyfile", disk)
    cut = tmp_path / "cut"
    with pytest.raises(web.WebError, match="No space left"):
        web.publish(str(cut))
    assert web.publish(str(cut)) == str(cut)
    assert (cut / "index.html").exists()


def test_the_page_says_it_times_klaxon_presses_only():
    """It measures Klaxon press -> sound (A and B act when let go): its words say so."""
    def read(*parts):
        with open(os.path.join(web.ROOT, *parts), encoding="utf-8") as f:
            return " ".join(f.read().split())

    assert "Klaxon press&rarr;sound" in read("web", "index.html")
    assert "`Klaxon press\\u2192sound: " in read("web", "app.js")
    page = read("docs", "browser.md")  # (the README's page for the browser, moved to docs/)
    assert "The page shows each Klaxon press→sound time" in page
    assert "The page shows each press→sound time" not in page


def test_the_page_makes_a_tap_with_no_time_in_it_a_tap_and_follows_the_game_in_its_status():
    with open(os.path.join(web.WEB, "page.py")) as f:
        page = f.read()
    assert "MIN_LEVEL_US = 30000" in page and "last[0] + MIN_LEVEL_US" in page
    with open(os.path.join(web.WEB, "app.js")) as f:
        app = f.read()
    assert "f.status" in app and 'status("Ready: a new game")' not in app


def _pty_link(folder):
    """A pseudo-terminal pair standing in for a board's USB cable, behind a fixed name."""
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    link = os.path.join(str(folder), "board")
    os.symlink(name, link + ".new")
    os.replace(link + ".new", link)
    return master, link


class _Listener:
    """A page listening to ``serial/events``: ``until(want)`` reads messages until
    ``want(messages)`` (or 5 s), and returns them all."""

    def __init__(self, url):
        import queue

        self.got = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, args=(url,), daemon=True).start()

    def _read(self, url):
        try:
            with URLOPEN(url, timeout=10) as r:
                for raw in r:
                    if raw.startswith(b"data: "):
                        self.got.put(json.loads(raw[6:]))
        except Exception:
            pass

    def until(self, want, timeout=5.0):
        import queue
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end and not want(self.seen):
            try:
                self.seen.append(self.got.get(timeout=0.05))
            except queue.Empty:
                pass
        return self.seen


def test_the_server_reads_a_board_s_port_line_by_line_and_asks_it_with_one_byte(tmp_path):
    """--serial: the bridge opens the port, sends each console line (escapes and all, as
    read) with the time it was read, writes one byte on ``POST serial/ask``, says when the
    port is gone and opens it again when it is back."""
    import time

    master, link = _pty_link(tmp_path)
    bridge = web.SerialBridge(link).start()
    httpd = web.server(0, bridge=bridge)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % httpd.server_port
    try:
        end = time.monotonic() + 5
        while not bridge.status["connected"] and time.monotonic() < end:
            time.sleep(0.02)
        with URLOPEN(base + "serial") as r:
            assert json.load(r)["connected"] is True
        page = _Listener(base + "serial/events")
        assert page.until(lambda m: m)[0]["kind"] == "status"  # (listening: the status first)
        before = time.time() * 1000
        os.write(master, b"\x1b]0;code.py\x1b\\new\r\nat 0 0 0 0\r\nklax")
        got = page.until(lambda m: len(m) >= 3)
        assert got[0]["kind"] == "status" and got[0]["connected"]
        assert [m["text"] for m in got[1:3]] == ["\x1b]0;code.py\x1b\\new\r", "at 0 0 0 0\r"]
        assert before <= got[1]["t"] <= time.time() * 1000
        req = urllib.request.Request(base + "serial/ask", method="POST")
        with URLOPEN(req) as r:
            assert r.status == 204
        time.sleep(0.2)
        assert os.read(master, 100) == b"\n"  # one byte, nothing else
        os.close(master)  # the cable pulled out: the partial line goes, then the status
        got = page.until(lambda m: any(x["kind"] == "status" and not x["connected"] for x in m))
        assert [m["text"] for m in got if m["kind"] == "line"][-1] == "klax"
        assert not got[-1]["connected"] and "plug" in got[-1]["why"]
        master, link = _pty_link(tmp_path)  # plugged back in (a new tty, the same name)
        end = time.monotonic() + 5
        while not bridge.status["connected"] and time.monotonic() < end:
            time.sleep(0.02)
        assert bridge.status["connected"]
    finally:
        bridge.stop()
        httpd.shutdown()
        httpd.server_close()
        os.close(master)


def test_without_serial_the_page_runs_its_own_board(served):
    """The page asks ``serial`` at every load; without --serial (and on a static host, from
    --publish) the answer is that there is no port, not a 404, which the browser would put
    in its console as an error of a page working as designed; the page takes only a
    bridge's status (kind "status") as a board to follow."""
    site, httpd = served
    with URLOPEN("http://127.0.0.1:%d/serial" % httpd.server_port) as r:
        assert r.status == 200 and json.loads(r.read()) == web.NO_SERIAL
    with open(os.path.join(site, "serial"), encoding="utf-8") as f:  # (a static host's)
        assert json.loads(f.read()) == web.NO_SERIAL
    with open(os.path.join(site, "app.js"), encoding="utf-8") as f:
        assert 'b && b.kind === "status" ? b : null' in f.read()
    for name in ("scoreboard.js", "device/tools/scoreboard.py", "device/model/layout.py"):
        assert os.path.isfile(os.path.join(site, name)), name


def test_a_page_that_never_reads_is_let_go_with_why_and_the_others_keep_every_line():
    """A page that stays connected but never reads (a sleeping tablet) would grow its queue
    without limit: at QUEUE_MAX behind it is told why and let go (its stream ends; its
    browser connects again and the page asks the board), and the bridge keeps nothing for
    it; a page that reads gets every line, in order."""
    bridge = web.Bridge("test")
    slow, fast = bridge.listen(), bridge.listen()
    got = [fast.get_nowait()]  # (the status first)
    n = web.QUEUE_MAX + 500
    for i in range(n):
        bridge.line("at %d" % i, t=i)
        got.append(fast.get_nowait())
    assert [m["text"] for m in got[1:]] == ["at %d" % i for i in range(n)]
    assert bridge.listeners == [fast] and bridge.dropped == 1
    assert slow.qsize() <= web.QUEUE_MAX + 2
    left = [slow.get_nowait() for _ in range(slow.qsize())]
    assert left[-1] is None and left[-2]["kind"] == "dropped"
    assert left[-2]["why"] == web.DROPPED % web.QUEUE_MAX and "reconnects" in left[-2]["why"]
    assert [m["text"] for m in left[1:-2]] == ["at %d" % i for i in range(web.QUEUE_MAX - 1)]
    again = bridge.listen()  # (its browser, connected again: from now on, as any page)
    bridge.line("roll 1 2 3")
    assert again.get_nowait()["kind"] == "status" and again.get_nowait()["text"] == "roll 1 2 3"


def test_the_page_shows_a_latency_only_where_the_two_clocks_are_one():
    """Under --serial the server times each line by its clock and the page by its own: on a
    tablet or a TV the two differ by anything, so the page says where it is measured
    rather than a wrong figure (web/scoreboard.js sameComputer, run in Node)."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if not node:
        pytest.skip("no node here to run web/scoreboard.js")
    with open(os.path.join(web.WEB, "scoreboard.js"), encoding="utf-8") as f:
        src = f.read()
    probe = ("const m = await import('data:text/javascript,' + encodeURIComponent(%s));"
             "console.log(JSON.stringify(['localhost', '127.0.0.1', '::1', '[::1]', "
             "'192.168.1.20', 'klaxon.local', 'tv'].map((h) => m.sameComputer(h))));"
             % json.dumps(src))
    r = subprocess.run([node, "--input-type=module", "-e", probe], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [True] * 4 + [False] * 3
    assert 'source.name === "server" && !sameComputer()' in src
    assert "measured only on the \" +\n        \"computer the board is plugged into" in src


@pytest.mark.parametrize("argv, says", [(["--serial", " "], "needs the board's port"),
                                        (["--serial", "/dev/x", "--publish", "y"], "one or the other")])
def test_bad_serial_flags_exit_2_with_a_message(argv, says, capsys):
    assert web.main(argv) == 2
    assert says in capsys.readouterr().err
