"""The README's promises that code can check."""

import os
import re

from harness import ROOT


def readme():
    with open(os.path.join(ROOT, "README.md")) as f:
        return f.read()


def test_ci_runs_exactly_the_readme_test_command():
    text = readme()
    assert "python3 tools/dev.py test" in text and "python3 tools/dev.py sim" in text
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        commands = [line for line in f if line.strip() and not line.startswith("#")]
    assert commands[-1].strip() == "python3 tools/dev.py test"


def test_every_setting_is_documented_in_the_readme_and_the_example():
    from hardware.settings import KEYS, read

    text = readme()
    with open(os.path.join(ROOT, "settings.example.toml")) as f:
        example = f.read()
    for key, *_ in KEYS:
        assert "`%s`" % key in text, key
        assert re.search(r"^%s = " % key, example, re.M), key
    assert read(example.split("\n"))[1] == 0  # the example itself is valid: nothing reported


def test_sounds_are_exactly_what_the_synth_script_makes():
    import synth

    for name, data in synth.render().items():
        with open(os.path.join(ROOT, "sounds", name + ".wav"), "rb") as f:
            assert f.read() == data, name


def test_sounds_start_and_end_at_the_quiescent_level():
    import struct

    import synth

    for name, data in synth.render().items():
        pcm = data[44:]
        first, last = struct.unpack("<h", pcm[:2])[0], struct.unpack("<h", pcm[-2:])[0]
        assert abs(first) < 200 and abs(last) < 200, name  # no click


def test_klaxon_is_about_a_second_and_loud_and_denied_is_different():
    import struct

    import synth

    made = synth.render()
    klaxon = made["klaxon"][44:]
    seconds = len(klaxon) / 2 / synth.RATE
    assert 1.0 <= seconds <= 1.5
    peak = max(abs(v) for (v,) in struct.iter_unpack("<h", klaxon))
    assert peak > 30000  # full scale
    assert len(made["denied"]) < len(made["klaxon"]) / 2


def test_pictures_are_what_tools_pictures_draws():
    import pictures

    for name, draw in pictures.PICTURES.items():
        with open(os.path.join(ROOT, "docs", name)) as f:
            assert f.read() == draw(), name


def test_readme_links_point_at_files_that_exist():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme()):
        assert os.path.exists(os.path.join(ROOT, target)), target
