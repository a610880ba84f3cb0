"""docs/develop.md's "Add a setting" walk, done as written: in a copy of the repository
its patch is applied and its commands run (regen, the sim with a settings file and a
script, the walk's tests), and a right answer then goes the setting's squares forward
on the simulated board; the walk's own tests hold that the rule is saved with the game,
that a game saved before it (the previous firmware's record too) plays on as it was
played, and that the scoreboard follows it. The walk cannot drift from what the
repository takes."""

import hashlib
import os
import re
import shutil
import subprocess

import pytest

from harness import ROOT

VENV = os.path.join(ROOT, ".venv")


def walk():
    """(the walk's text, its patch, its command blocks) from docs/develop.md."""
    with open(os.path.join(ROOT, "docs", "develop.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("### Add a setting\n")
    section = text[start:text.index("\n### ", start + 1)]
    patch = re.findall(r"^```diff\n(.*?)^```", section, re.S | re.M)
    commands = re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)
    assert len(patch) == 1 and len(commands) == 2, "the walk's blocks: one patch, two commands"
    return section, patch[0], commands


def _copy(dest):
    """The repository's files as the work tree has them (the tests too: the walk runs some,
    and test_docs.py holds tests/README.md to them), and the developers' .venv beside them."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in files:
        if not rel:
            continue
        src = os.path.join(ROOT, rel)
        if os.path.isfile(src) and not os.path.islink(src):
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel))
    os.symlink(VENV, os.path.join(dest, ".venv"))


def _venv_ready():
    """True when tools/dev.py would use .venv as it is (its stamp matches the requirements):
    the walk's commands must never install into the developers' environment."""
    h = hashlib.sha256()
    for name in ("requirements-dev.txt", "requirements.txt", "requirements.lock"):
        with open(os.path.join(ROOT, name), "rb") as f:
            h.update(f.read())
    stamp = os.path.join(VENV, ".requirements-sha256")
    return os.path.exists(stamp) and open(stamp).read() == h.hexdigest()


def test_the_add_a_setting_walk_works_as_written(tmp_path):
    if not _venv_ready():
        pytest.skip("the walk's commands use .venv: make it first (python3 tools/dev.py test)")
    section, patch, (try_it, tests) = walk()
    files = re.findall(r"^\+\+\+ b/(\S+)", patch, re.M)
    assert sorted(files) == ["lib/qiklaxon/core.py", "lib/qiklaxon/restore.py",
                             "model/layout.py", "tests/README.md", "tests/test_right_squares.py"]
    assert "Five files edited" in section  # what the walk says it takes
    for test in ("test_a_right_answer_goes_the_settings_squares_forward",  # it plays;
                 "test_the_rule_is_saved_with_the_game_and_a_new_game_keeps_it",  # saved;
                 "test_a_game_saved_before_the_rule_plays_on_as_it_was_played",  # 19 slots;
                 "test_the_scoreboard_follows_it_from_the_boards_state_line"):  # followed
        assert "+def %s(" % test in patch, test  # (the walk's tests: run below, with -x)
    _copy(str(tmp_path))
    env = dict(os.environ)
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch.encode(),
                          capture_output=True, env=env)
    assert done.returncode == 0, "the walk's patch no longer applies: %s" % done.stderr.decode()
    out = subprocess.run(["bash", "-ec", try_it], cwd=tmp_path, capture_output=True,
                         env=env, timeout=300)
    said = out.stdout.decode()
    assert out.returncode == 0, "the walk's commands failed:\n%s%s" % (said,
                                                                       out.stderr.decode())
    assert "regen: hardware/settings.py remade" in said and \
        "regen: lib/qiklaxon/restore.py remade" in said, said
    reveal = [line for line in said.splitlines() if '"event": "reveal"' in line]
    assert reveal and '"positions": [0, 5]' in reveal[0], (
        "with QK_RIGHT_SQUARES = 5 a right answer did not go 5 squares forward: %s" % reveal)
    assert '"positions": [0, 5]' in section  # what the walk says the sim shows
    # the power cut (--nvm): the saved game resumes with its own rule, settings.toml at 3
    resumed = [line for line in said.splitlines() if '"event": "resumed"' in line]
    assert resumed and '"positions": [0, 5]' in resumed[0], said
    assert len(reveal) == 2 and '"positions": [5, 5]' in reveal[1], (
        "the saved game did not keep QK_RIGHT_SQUARES = 5 after the power cut: %s" % reveal)
    assert '"positions": [5, 5]' in section and '"event": "resumed"' in section
    with open(tmp_path / "lib" / "qiklaxon" / "restore.py") as f:
        assert "_QK_RIGHT_SQUARES = const(21)" in f.read()  # as the walk says regen writes
    for rel in ("README.md", "settings.example.toml", "hardware/settings.py"):
        with open(tmp_path / rel) as f:
            assert "QK_RIGHT_SQUARES" in f.read(), rel
    first = tests.strip().splitlines()[0]  # the walk's tests (then the whole suite: not here)
    assert first.startswith(".venv/bin/pytest ") and "tests/test_right_squares.py" in first
    ran = subprocess.run(["bash", "-ec", first + " -x"], cwd=tmp_path, capture_output=True,
                         env=env, timeout=600)
    assert ran.returncode == 0, "the walk's tests failed:\n" + ran.stdout.decode()[-3000:]
