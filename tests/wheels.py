"""Wheels of the three CircuitPython libraries, made here from the files this environment
has (the versions requirements.lock pins), for pip to install from a folder instead of
PyPI: the deploy's fetch, tried with no network (tests/test_deploy.py,
tests/test_fresh_clone.py)."""

import base64
import hashlib
import os
import zipfile

import deploy


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(folder, dist, version, module_name, source_text):
    """A pure-Python wheel of ``dist`` ``version`` holding ``module_name``.py."""
    norm = dist.replace("-", "_")
    info = "%s-%s.dist-info" % (norm, version)
    files = {
        module_name + ".py": source_text,
        info + "/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (dist, version)).encode(),
        info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: qi-klaxon-tests\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
    }
    record = "".join("%s,%s,%d\n" % (n, _record_hash(d), len(d)) for n, d in files.items())
    files[info + "/RECORD"] = (record + info + "/RECORD,,\n").encode()
    path = os.path.join(folder, "%s-%s-py3-none-any.whl" % (norm, version))
    with zipfile.ZipFile(path, "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
    return path


def locked_wheels(folder, version=None):
    """Wheels of the three libraries at the locked versions (or all at ``version``), from
    this environment's files; returns {module: its source bytes}."""
    os.makedirs(folder, exist_ok=True)
    sources = {}
    for name, dist in deploy.DISTRIBUTIONS.items():
        with open(deploy.library_source(name), "rb") as f:
            sources[name] = f.read()
        make_wheel(folder, dist, version or deploy.locked(dist), name, sources[name])
    return sources


def pip_env(folder):
    """pip's environment to install only from ``folder`` (no index, no machine config)."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": folder, "PIP_CONFIG_FILE": os.devnull}
