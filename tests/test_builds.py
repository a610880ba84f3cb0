"""One builds table (model/layout.py's BUILDS): a board is one profile file, one
row there and one README row; the firmware's own copy of the board ids, the profiles'
pins, the simulated flash and every host tool agree with it; a deploy never copies it."""

import ast
import glob
import os
import re

import pytest

import cpvm
import deploy
import harness
from flashsim import BOARDS as FLASH
from harness import ROOT
from model import layout

PROFILES = sorted(os.path.basename(p)[len("profile_"):-3]
                  for p in glob.glob(os.path.join(ROOT, "hardware", "profile_*.py")))


def _start_pairs():
    """The (board id prefix, profile) pairs hardware/start.py's ``start`` tries, read with ast:
    the tuple of 2-tuples of strings its ``for i, p in (...)`` loop walks."""
    with open(os.path.join(ROOT, "hardware", "start.py")) as f:
        tree = ast.parse(f.read())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple) and node.iter.elts and \
                all(isinstance(e, ast.Tuple) and len(e.elts) == 2 and
                    all(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in e.elts)
                    for e in node.iter.elts):
            pairs = ast.literal_eval(node.iter)
            if any(p in PROFILES for _, p in pairs):
                found.append(pairs)
    assert len(found) == 1, "hardware/start.py should walk one board id -> profile table"
    return found[0]


def _readme_rows():
    """The first cell of each row of the README's "Builds and wiring" table."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("### Builds and wiring", 1)[1]
    rows = []
    for line in section.lstrip("\n").splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append(line.strip("|").split("|")[0].strip())
    assert rows[0] == "build" and set(rows[1]) <= set("- "), rows[:2]  # the header
    return rows[2:]


def test_the_firmware_tries_the_same_board_ids_in_the_same_order():
    assert _start_pairs() == layout.BOARD_PROFILES


def test_every_profile_file_has_one_builds_row_and_one_readme_row_and_nothing_else_does():
    rows = [b["profile"] for b in layout.BUILDS]
    assert sorted(rows) == PROFILES  # one row a profile file, no row without one
    assert len(set(rows)) == len(rows)
    readme = _readme_rows()
    for b in layout.BUILDS:
        assert [r for r in readme if r.startswith(b["title"])] != [], b["title"]
        assert len([r for r in readme if r.startswith(b["title"])]) == 1, b["title"]
    for r in readme:  # and no README row without a build
        assert len([b for b in layout.BUILDS if r.startswith(b["title"])]) == 1, r


def test_board_ids_are_told_apart():
    ids = [b["board_id"] for b in layout.BUILDS]
    for i, a in enumerate(ids):  # no id is another's prefix: the order cannot matter
        assert not [b for b in ids[:i] + ids[i + 1:] if b.startswith(a)], a
    for b in layout.BUILDS:
        assert layout.profile_for(b["board_id"] + "_v2") == b["profile"]
    assert layout.profile_for("some_new_board") is None


@pytest.mark.parametrize("name", PROFILES)
def test_each_profile_uses_only_its_boards_pins_and_the_rows_flash_is_the_chips(name):
    b = layout.BY_PROFILE[name]
    prof = deploy.profile_dict(name)
    assert set(harness.scenario.pin_names(prof)) <= set(b["pins"])
    if prof["led"]:
        assert prof["led"] in b["pins"]
    assert FLASH[b["chip"]][0] == b["nvm"]  # tools/simulated/simboard/flashsim.py models that chip
    assert not set(b["has"]) & set(b["lacks"])
    # tone sweeps need no audiomixer; WAV files through audiopwmio need it
    if prof["audio"] == 1 and b["banner"]:
        assert {"audiopwmio", "audiomixer"} <= set(b["has"])
    if prof["audio"] == 0:
        assert "audioio" in b["has"] and "audiomixer" in b["lacks"]
    if b["banner"]:
        assert ("alarm" in b["has"]) == prof["sleep"]
        assert ("watchdog" in b["has"]) == prof["watchdog"]


def test_the_host_tools_read_the_table():
    real = [b for b in layout.BUILDS if b["banner"]]
    assert deploy.BOARD_PROFILES == tuple((b["board_id"], b["profile"]) for b in real)
    assert harness.BOARD_IDS == {b["profile"]: b["board_id"] for b in real}
    assert harness.PROFILE_NAMES == tuple(sorted(PROFILES, key=lambda p: p != "simulated"))
    assert harness.NVM_CHIPS == {b["profile"]: b["chip"] for b in layout.BUILDS}
    for b in real:
        p = b["profile"]
        text = cpvm.BOOT_OUT[p]
        assert text.startswith(b["banner"] + "\n")
        assert text.endswith("\nBoard ID:%s\n" % b["board_id"])
        assert cpvm.NVM_SIZE[p] == b["nvm"] and cpvm.ABSENT[p] == b["lacks"]
        assert cpvm.C_MODULES[p] == b["has"] and cpvm.FROZEN[p] == b["frozen"]
        assert deploy.FROZEN[p] == b["frozen"]


def test_no_host_tool_spells_a_boards_id_itself():
    """A board's id is written once on the host: in BUILDS (tools/lanes/pico.py, the Pico lane,
    names its firmware's files, which is not the id)."""
    ids = {b["board_id"] for b in layout.BUILDS if b["banner"]}
    spelt = []
    for path in glob.glob(os.path.join(ROOT, "tools", "**", "*.py"), recursive=True):
        if "node_modules" in path:
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        spelt += [(os.path.relpath(path, ROOT), n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and n.value in ids]
    assert spelt == []


@pytest.mark.parametrize("name", layout.BOARDS)
@pytest.mark.parametrize("settings", ["", 'QK_AUDIO = "amp"\n', 'QK_AUDIO = "piezo"\n'])
def test_no_deploy_plan_holds_the_host_only_files(tmp_path, name, settings):
    files = deploy.plan(str(tmp_path), layout.BY_PROFILE[name]["board_id"], settings)
    rels = {rel for _, rel, _ in files}
    assert "model/layout.py" not in rels and "model/game.py" not in rels
    assert not [src for src, _, _ in files if src.endswith(os.path.join("model", "layout.py"))]
    assert "lib/qiklaxon/core.py" in rels  # (a plan, not an empty list)


def test_lib_holds_exactly_what_a_deploy_copies(tmp_path):
    """The board's folder lib/ holds the board's files only: each is in some build's plan
    (the host's model of the game is model/, never copied)."""
    planned = set()
    for name in layout.BOARDS:
        for settings in ("", 'QK_AUDIO = "amp"\n'):
            planned |= {os.path.relpath(src, ROOT).replace(os.sep, "/") for src, _, _ in
                        deploy.plan(str(tmp_path), layout.BY_PROFILE[name]["board_id"], settings)}
    held = {os.path.relpath(os.path.join(d, n), ROOT).replace(os.sep, "/")
            for d, dirs, names in os.walk(os.path.join(ROOT, "lib"))
            for n in names if "__pycache__" not in d}
    assert held and held <= planned, sorted(held - planned)


def test_a_deploy_of_every_build_leaves_the_table_out(tmp_path):
    for name in layout.BOARDS:
        d = tmp_path / name
        d.mkdir()
        (d / "boot_out.txt").write_text(cpvm.BOOT_OUT[name])
        written = [rel for rel, _ in deploy.deploy(str(d), out=lambda *a: None)]
        assert "lib/qiklaxon/core.py" in written
        assert not [r for r in written if re.search(r"layout|game\.py", r)], written
        assert not (d / "lib" / "qiklaxon" / "layout.py").exists() and not (d / "model").exists()


def test_the_pico_w_and_pico_2_w_start_the_picos_build_as_the_build_guide_says():
    """circuitpython.org's ids for the W boards start as the Pico's: the firmware picks the
    Pico's build (its pins, none of them the radio's GP23-GP25 and GP29), the deploy
    copies it, and docs/build-guide.md says a W takes the same zip and wiring."""
    for board_id in ("raspberry_pi_pico_w", "raspberry_pi_pico2_w"):
        assert layout.profile_for(board_id) == "pico" and deploy.profile_for(board_id) == "pico"
    import scenario

    pins = set(scenario.pin_names(scenario.profile("pico")))
    assert not pins & {"GP23", "GP24", "GP25", "GP29"}, pins
    with open(os.path.join(ROOT, "docs", "build-guide.md"), encoding="utf-8") as f:
        guide = " ".join(f.read().split())
    assert "A **Pico W** or **Pico 2 W** takes the same zip and wiring" in guide
