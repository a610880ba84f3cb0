"""The host's packages are pinned: every requirement has one exact version in
requirements.lock, which tools/dev.py installs with (``-c``), and the venv the tests run
in has those versions (so the libraries a deploy copies are the ones CI tested)."""

import os
import re
from importlib import metadata

from harness import ROOT


def names(path):
    out = []
    for line in open(os.path.join(ROOT, path)):
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            out.append(re.split(r"[<>=!~;\[ ]", line)[0].lower().replace("_", "-"))
    return out


def lock():
    pins = {}
    for line in open(os.path.join(ROOT, "requirements.lock")):
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_every_requirement_has_an_exact_pin():
    pins = lock()
    for req in names("requirements.txt") + names("requirements-dev.txt"):
        assert req in pins, req


def test_the_venv_has_the_pinned_versions():
    for name, version in lock().items():
        assert metadata.version(name) == version, name


def test_dev_py_installs_with_the_lock():
    src = open(os.path.join(ROOT, "tools", "dev.py")).read()
    assert '"-c", LOCK' in src and '"requirements.lock"' in src
