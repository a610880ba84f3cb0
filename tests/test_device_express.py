"""hardware/device.py's code for what the Express has not (deep sleep, a watchdog, WAV
samples, a piezo, an LED) sits behind ``__debug__``, so that the Express's ``mpy-cross -O3``
build drops it (160 B of its heap). That is only right while every build compiled with
an optimisation level has none of those: a build that sleeps or plays WAV files, given
``-O``, would silently never sleep or never sound. These tests hold the builds to that,
and show the code really goes (and stays on the builds that need it)."""

import os
import subprocess

import pytest

import cpvm
import deploy
from harness import ROOT


def optimised():
    return [name for name, flags in deploy.MPY_FLAGS.items()
            if any(f.startswith("-O") and f != "-O0" for f in flags)]


def test_every_optimised_build_lacks_what_the_debug_code_serves():
    assert optimised() == ["cpx"]  # (a new one is checked below as well)
    for name in optimised():
        p = deploy.profile_dict(name)
        assert p["audio"] == 0, "%s plays DAC tones only, not WAV or a piezo" % name
        assert not p["sleep"], "%s: -O would drop its deep sleep" % name
        assert not p["watchdog"], "%s: -O would drop feeding its watchdog" % name
        assert p["led"] is None, "%s: -O would leave its LED dark" % name


def test_the_express_build_drops_the_code_and_the_others_keep_it(tmp_path):
    """The Express's flags on device.py as it is, and on a copy whose ``__debug__`` is
    ``True`` (the code every other build runs): the first is at least 150 B smaller."""
    cp = cpvm.find()
    if cp is None:
        pytest.skip("no CircuitPython build (../shared/circuitpython): see its README")
    with open(os.path.join(ROOT, "hardware", "device.py")) as f:
        text = f.read()
    assert text.count("__debug__") >= 6
    size = []
    for i, t in enumerate((text, text.replace("__debug__", "True"))):
        src = tmp_path / ("device%d.py" % i)
        src.write_text(t)
        out = str(tmp_path / ("device%d.mpy" % i))
        subprocess.run([os.path.join(cp, "mpy-cross"), *deploy.MPY_FLAGS["cpx"], "-o", out,
                        str(src)], check=True, capture_output=True)
        size.append(os.path.getsize(out))
    assert size[1] - size[0] >= 150, size
