"""One command remakes what is derived (tools/gen/regen.py, ``python3 tools/dev.py regen``):
the const blocks, TONES, the sounds, the card and the README's copy, the pictures. The
test command runs its check here, so a committed copy that differs from its source
fails CI, naming the file."""

import contextlib
import io
import os
import shutil

from harness import ROOT

import regen


def test_everything_derived_is_what_its_source_makes():
    found = regen.run(check=True)
    assert not found, "\n".join("%s differs from what %s makes" % f for f in found) + (
        "\n(python3 tools/dev.py regen remakes them)")


def _planted(read):
    """``read`` with a difference planted in one file of each generator's."""
    def planted(rel):
        data = read(rel)
        if rel == "hardware/device.py":
            return data.replace("_PHASE = const(2)", "_PHASE = const(3)", 1)
        if rel == "hardware/outputs.py":  # a TONES byte (the klaxon's first pitch)
            return data.replace('    b"\\x13', '    b"\\x14', 1)
        if rel == "sounds/blip.wav":
            return data[:-2] + b"\x00\x01"
        if rel == "README.md":
            return data.replace("**Roll.**", "**Roll!**", 1)
        if rel == "docs/ring-legend.svg":
            return data + "\n"
        if rel == "settings.example.toml":  # a default that is not the layout's
            return data.replace("QK_VOLUME = 8", "QK_VOLUME = 7", 1)
        return data
    return planted


PLANTED = [("README.md", "tools/gen/card.py"), ("docs/ring-legend.svg", "tools/gen/pictures.py"),
           ("hardware/device.py", "tools/gen/consts.py"),
           ("hardware/outputs.py", "tools/gen/synth.py --tones"),
           ("settings.example.toml", "tools/gen/regen.py from the layout's SETTING_ROWS"),
           ("sounds/blip.wav", "tools/gen/synth.py")]


def test_the_check_names_each_file_that_differs_and_what_makes_it(monkeypatch):
    read = _planted(regen._reader(ROOT))
    for rel, _ in PLANTED:  # (each plant took)
        assert read(rel) != regen._reader(ROOT)(rel), rel
    assert regen.run(check=True, read=read) == sorted(PLANTED)
    monkeypatch.setattr(regen, "_reader", lambda root: read)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert regen.main(["--check"]) == 1
    lines = out.getvalue().splitlines()
    assert "regen: sounds/blip.wav differs from what it is made of (made by tools/gen/synth.py)" \
        in lines, lines
    assert lines[-1] == "regen: python3 tools/dev.py regen remakes them"
    assert len(lines) == len(PLANTED) + 1


def test_regen_remakes_each_file_in_a_copy(tmp_path):
    """Written, not only checked: in a copy of the files the generators make, each planted
    difference is remade, the rest left alone, and the check then passes."""
    for d in ("hardware", "lib", "web", "sounds", "docs"):
        shutil.copytree(os.path.join(ROOT, d), tmp_path / d)
    for f in ("README.md", "code.py", "boot.py", "safemode.py", "settings.example.toml"):
        shutil.copy(os.path.join(ROOT, f), tmp_path / f)
    read = _planted(regen._reader(str(tmp_path)))
    for rel, _ in PLANTED:
        data = read(rel)
        (tmp_path / rel).write_bytes(data if isinstance(data, bytes) else data.encode())
    untouched = (tmp_path / "hardware" / "start.py").stat().st_mtime_ns
    assert regen.run(root=str(tmp_path)) == sorted(PLANTED)
    assert regen.run(check=True, root=str(tmp_path)) == []
    for rel, _ in PLANTED:
        with open(os.path.join(ROOT, rel), "rb") as f:
            assert (tmp_path / rel).read_bytes() == f.read(), rel
    assert (tmp_path / "hardware" / "start.py").stat().st_mtime_ns == untouched


def test_regen_runs_again_until_a_generator_that_reads_the_disk_sees_what_was_written(
        tmp_path, monkeypatch):
    """The loudness picture plays the firmware as it is on disk (TONES, the WAVs), so after
    a sound's change one run of the generators drew the old klaxon and ``--check`` then
    failed: a second generator here reads what the first writes, from the disk."""
    def first(read):
        return {"made.txt": "new\n"}

    def second(read):
        path = tmp_path / "made.txt"
        return {"drawn.txt": "drawn from %s" % (path.read_text() if path.exists() else "-")}

    monkeypatch.setattr(regen, "GENERATORS", (("a", "first", first), ("b", "second", second)))
    assert regen.run(root=str(tmp_path)) == [("drawn.txt", "second"), ("made.txt", "first")]
    assert (tmp_path / "drawn.txt").read_text() == "drawn from new\n"
    assert regen.run(check=True, root=str(tmp_path)) == []


def test_the_check_runs_from_any_folder(tmp_path):
    """The loudness picture runs the firmware, which opens sounds/ from the drive's root:
    run from another folder it once found no klaxon.wav and ended in a traceback."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen", "regen.py"),
                           "--check"], cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
