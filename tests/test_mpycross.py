"""tools/maker/mpycross.py: CircuitPython's own mpy-cross of the board's major version, found
on this computer or fetched from Adafruit's published builds and checked; and the
deploy's choice from it (tools/maker/deploy.py ``choose_mpy_cross``). The fetch runs against
a stand-in server on 127.0.0.1 serving stand-in compilers (no internet here)."""

import http.server
import os
import re
import stat
import threading

import pytest

import deploy
import mpycross
from model import layout


def stand_in(path, says, first=b"C"):
    """A stand-in mpy-cross at ``path``: ``--version`` prints ``says``; ``-o OUT SRC``
    writes ``first``, the mpy version 6 and the source to OUT. Returns its bytes."""
    text = ("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '%s'; exit 0; fi\n"
            "out=\nsrc=\nwhile [ $# -gt 0 ]; do\n"
            "  case \"$1\" in -o) out=$2; shift 2;; -s) shift 2;; -*) shift;; *) src=$1; shift;; esac\n"
            "done\nprintf '%s\\006' > \"$out\"\ncat \"$src\" >> \"$out\"\n"
            % (says, first.decode()))
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return text.encode()


CP9 = "CircuitPython 9.2.9 on 2025-03-20; mpy-cross emitting mpy v6.1"
CP10 = "CircuitPython 10.0.0 on 2025-09-01; mpy-cross emitting mpy v6.3"
MICROPYTHON = "MicroPython v1.22.0 on 2023-12-27; mpy-cross emitting mpy v6.2"


@pytest.fixture
def no_local(tmp_path, monkeypatch):
    """Nothing found on this computer: no cache (a fresh one in tmp), nothing beside the
    repo, no QK_ variables; returns the env to pass."""
    monkeypatch.setattr(mpycross, "CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(mpycross, "ROOT", str(tmp_path / "repo"))  # no ../shared beside it
    return {}


class Server:
    """Adafruit's S3 bucket as a stand-in: ``files`` {path under the base: bytes}; every
    request is recorded in ``asked``."""

    def __init__(self):
        self.files = {}
        self.asked = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.asked.append(self.path)
                data = server.files.get(self.path)
                if data is None:
                    self.send_error(404, "Not Found")
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/bin/mpy-cross" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


def test_the_published_build_for_each_computer():
    """As circuitpython-build-tools fetches them (and CircuitPython's own workflow names
    the aarch64 one); None where Adafruit publishes none."""
    p = mpycross.platform_path
    assert p("9.2.9", "Linux", "x86_64") == "linux-amd64/mpy-cross-linux-amd64-9.2.9.static"
    assert p("10.0.0", "Linux", "aarch64") == \
        "linux-aarch64/mpy-cross-linux-aarch64-10.0.0.static-aarch64"
    assert p("9.2.9", "Linux", "armv7l") == \
        "linux-raspbian/mpy-cross-linux-raspbian-9.2.9.static-raspbian"
    assert p("10.0.0", "Darwin", "arm64") == "macos/mpy-cross-macos-10.0.0-universal"
    assert p("10.0.0", "Darwin", "x86_64") == "macos/mpy-cross-macos-10.0.0-universal"
    assert p("9.2.9", "Windows", "AMD64") == "windows/mpy-cross-windows-9.2.9.static.exe"
    assert p("9.2.9", "Windows", "ARM64") is None
    assert p("9.2.9", "FreeBSD", "amd64") is None
    assert mpycross.TAGS == {9: "9.2.9", 10: "10.0.0"}


def test_a_given_compiler_is_checked_for_its_circuitpython(tmp_path, no_local):
    stand_in(tmp_path / "cp9", CP9)
    stand_in(tmp_path / "cp10", CP10)
    stand_in(tmp_path / "mp", MICROPYTHON, b"M")
    assert mpycross.find(9, [str(tmp_path / "cp9")], fetch=False, env={}) == str(tmp_path / "cp9")
    with pytest.raises(mpycross.MpyCrossError, match="CircuitPython 10's mpy-cross.*needs "
                                                     "CircuitPython 9's"):
        mpycross.find(9, [str(tmp_path / "cp10")], fetch=False, env={})
    with pytest.raises(mpycross.MpyCrossError, match="MicroPython's mpy-cross.*refuses"):
        mpycross.find(10, [str(tmp_path / "mp")], fetch=False, env={})
    with pytest.raises(mpycross.MpyCrossError, match="does not run"):
        mpycross.find(10, [str(tmp_path / "missing")], fetch=False, env={})
    # a CircuitPython one that writes MicroPython's files is refused by its probe
    stand_in(tmp_path / "odd", CP10, b"M")
    with pytest.raises(mpycross.MpyCrossError, match="not CircuitPython's .mpy"):
        mpycross.check(str(tmp_path / "odd"), 10)


def test_found_through_the_variable_and_the_other_version_passed_over(tmp_path, no_local):
    stand_in(tmp_path / "cp9", CP9)
    stand_in(tmp_path / "cp10", CP10)
    env = {"QK_MPY_CROSS": os.pathsep.join([str(tmp_path / "cp10"), str(tmp_path / "cp9")])}
    assert mpycross.find(9, fetch=False, env=env) == str(tmp_path / "cp9")
    assert mpycross.find(10, fetch=False, env=env) == str(tmp_path / "cp10")
    with pytest.raises(mpycross.MpyCrossError, match="not on this computer"):
        mpycross.find(9, fetch=False, env={})


def test_circuitpython_10s_beside_the_repo_is_found():
    import cpvm

    cp = cpvm.find()
    if cp is None:
        pytest.skip(cpvm.HOW_TO_GET)
    found = mpycross.find(10, fetch=False)
    assert mpycross.version_of(found)[0] == 10
    with pytest.raises(mpycross.MpyCrossError):  # and it is never taken for CircuitPython 9's
        mpycross.check(os.path.join(cp, "mpy-cross"), 9)


def test_fetched_from_the_published_builds_checked_and_kept(tmp_path, no_local, server):
    rel = "/bin/mpy-cross/" + mpycross.platform_path(mpycross.TAGS[9])
    served = stand_in(tmp_path / "served", CP9)
    server.files[rel] = served
    env = {"QK_MPY_CROSS_URL": server.url}
    said = []
    path = mpycross.find(9, env=env, out=said.append)
    assert path == mpycross.cached(9) and open(path, "rb").read() == served
    assert os.access(path, os.X_OK)
    assert server.asked == [rel] and "fetching CircuitPython 9.2.9's mpy-cross" in said[0]
    assert said[-1] == "  checked: " + CP9
    # the next time it is here: nothing fetched
    assert mpycross.find(9, env=env, out=said.append) == path and server.asked == [rel]
    assert mpycross.find(9, fetch=False, env={}) == path


def test_a_fetched_file_that_is_not_that_compiler_is_not_kept(tmp_path, no_local, server):
    rel = "/bin/mpy-cross/" + mpycross.platform_path(mpycross.TAGS[9])
    server.files[rel] = stand_in(tmp_path / "served", CP10)  # the wrong CircuitPython
    with pytest.raises(mpycross.MpyCrossError, match="not usable, so it was not kept.*"
                                                     "CircuitPython 10's"):
        mpycross.find(9, env={"QK_MPY_CROSS_URL": server.url}, out=lambda s: None)
    server.files[rel] = b"<html>an error page</html>"
    with pytest.raises(mpycross.MpyCrossError, match="not usable"):
        mpycross.find(9, env={"QK_MPY_CROSS_URL": server.url}, out=lambda s: None)
    assert not os.path.exists(mpycross.cached(9)) and os.listdir(mpycross.CACHE) == []


def test_not_published_or_offline_says_so(tmp_path, no_local, server):
    with pytest.raises(mpycross.MpyCrossError, match="answered 404"):
        mpycross.find(10, env={"QK_MPY_CROSS_URL": server.url}, out=lambda s: None)
    server.close()  # nothing listens there now: as offline
    with pytest.raises(mpycross.MpyCrossError, match="could not fetch CircuitPython 10's "
                                                     "mpy-cross.*offline"):
        mpycross.find(10, env={"QK_MPY_CROSS_URL": server.url}, out=lambda s: None)
    with pytest.raises(mpycross.MpyCrossError, match="publishes no mpy-cross"):
        mpycross.fetched(10, env={}, system="Haiku", machine="x86_64")


def drive(tmp_path, build, major):
    d = tmp_path / ("drive-%s-%d" % (build, major))
    d.mkdir(exist_ok=True)
    b = layout.BY_PROFILE[build]
    (d / "boot_out.txt").write_text("Adafruit CircuitPython %d.1.0 on 2025-01-01; %s\n"
                                    "Board ID:%s\n" % (major, b["title"], b["board_id"]))
    return str(d)


def test_the_deploy_without_a_compiler(tmp_path, no_local, monkeypatch, server):
    """Offline and none here: the Express stops and points at the bundle (its RAM needs
    .mpy); the other builds copy .py and say so. With one fetched: .mpy."""
    monkeypatch.setenv("QK_MPY_CROSS_URL", server.url)
    for var in ("QK_MPY_CROSS", "QK_CIRCUITPYTHON"):
        monkeypatch.delenv(var, raising=False)
    said = []
    with pytest.raises(deploy.DeployError, match="the Express needs .mpy files: use the bundle "
                                                 "for your board and CircuitPython 9"):
        deploy.choose_mpy_cross(drive(tmp_path, "cpx", 9), out=said.append)
    assert deploy.choose_mpy_cross(drive(tmp_path, "pico", 9), out=said.append) is None
    assert "Copying .py files" in said[-1]
    assert deploy.choose_mpy_cross(drive(tmp_path, "cpx", 9), py=True, out=said.append) is None
    rel = "/bin/mpy-cross/" + mpycross.platform_path(mpycross.TAGS[9])
    server.files[rel] = stand_in(tmp_path / "served", CP9)
    d = drive(tmp_path, "cpb", 9)
    tool = deploy.choose_mpy_cross(d, out=said.append)
    written = dict(deploy.deploy(d, tool, out=said.append))
    assert "hardware/device.mpy" in written and "hardware/device.py" not in written
    with open(os.path.join(d, "hardware", "device.mpy"), "rb") as f:
        assert f.read(2) == b"C\x06"
    # a compiler given for the other CircuitPython is an error, not passed over
    stand_in(tmp_path / "cp10", CP10)
    with pytest.raises(deploy.DeployError, match="CircuitPython 10's mpy-cross"):
        deploy.choose_mpy_cross(d, str(tmp_path / "cp10"), out=said.append)


def test_the_command_line_says_what_is_wrong_without_a_traceback(tmp_path, no_local, capsys):
    stand_in(tmp_path / "cp10", CP10)
    # the compiler given is the wrong one: bad input, exit 2 (as every command's)
    assert mpycross.main(["9", "--mpy-cross", str(tmp_path / "cp10"), "--offline"]) == 2
    assert "needs CircuitPython 9's" in capsys.readouterr().err
    # none to be had: the computer's lack, exit 1
    assert mpycross.main(["9", "--offline"]) == 1
    assert "not on this computer" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        mpycross.main(["9", "--mpy-cross="])
    assert e.value.code == 2
    stand_in(tmp_path / "cp9", CP9)
    assert mpycross.main(["9", "--mpy-cross", str(tmp_path / "cp9"), "--offline"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cp9")


@pytest.mark.parametrize("url, says", [("notaurl", "QK_MPY_CROSS_URL holds 'notaurl', not a web "
                                                   "address"),
                                       ("http://[::1/bin", "is no address to fetch from")])
def test_a_fetch_address_that_is_none_is_said_not_a_traceback(tmp_path, no_local, monkeypatch,
                                                              url, says):
    """QK_MPY_CROSS_URL set to something urllib cannot fetch from at all: said in words;
    the deploy then copies .py files on a Pico (saying why), nothing is left in the cache."""
    with pytest.raises(mpycross.MpyCrossError, match=re.escape(says)):
        mpycross.find(10, env={"QK_MPY_CROSS_URL": url}, out=lambda s: None)
    assert not os.path.isdir(mpycross.CACHE) or os.listdir(mpycross.CACHE) == []
    monkeypatch.setenv("QK_MPY_CROSS_URL", url)
    for var in ("QK_MPY_CROSS", "QK_CIRCUITPYTHON"):
        monkeypatch.delenv(var, raising=False)
    said = []
    assert deploy.choose_mpy_cross(drive(tmp_path, "pico", 10), out=said.append) is None
    assert says in said[-1] and "Copying .py files" in said[-1]


def test_the_note_on_copying_py_reads_as_one_sentence(tmp_path, no_local, monkeypatch, server):
    """Offline ("...: offline?"), the note goes on with "Copying .py files", not "?. ";
    a reason without an end mark gets its full stop."""
    monkeypatch.setenv("QK_MPY_CROSS_URL", server.url)
    for var in ("QK_MPY_CROSS", "QK_CIRCUITPYTHON"):
        monkeypatch.delenv(var, raising=False)
    d = drive(tmp_path, "pico", 10)
    said = []
    deploy.choose_mpy_cross(d, out=said.append)  # 404: "... answered 404 Not Found"
    assert said[-1].startswith("note: could not fetch") and "Not Found. Copying .py" in said[-1]
    server.close()
    deploy.choose_mpy_cross(d, out=said.append)
    assert "offline? Copying .py files" in said[-1] and "?." not in said[-1]


def test_a_cache_folder_another_user_made_is_said_with_what_to_do(tmp_path, monkeypatch):
    """.cache/mpy-cross made by a deploy run with sudo: fetching cannot keep the compiler
    there, and the words say whose folder it is and how to give it back (the deploy then
    copies .py, or the Express stops with the bundle's hint)."""
    monkeypatch.setattr(mpycross, "CACHE", str(tmp_path / ".cache" / "mpy-cross"))

    def refused(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".cache" / "mpy-cross"))

    monkeypatch.setattr(mpycross.tempfile, "mkstemp", refused)
    with pytest.raises(mpycross.MpyCrossError) as e:
        mpycross.fetched(10, out=lambda *a: None, env={"QK_MPY_CROSS_URL": "http://127.0.0.1:9/"},
                         system="Linux", machine="x86_64")
    said = str(e.value)
    assert "cannot keep a fetched mpy-cross in %s (Permission denied)" % mpycross.CACHE in said
    assert "another user made that folder" in said and "sudo chown -R $USER" in said
