"""tools/mutants.py's own checks that need no mutation run: its list of equivalent
mutants still names mutants that exist, each with a reason; a mutant it builds is the
source with one change; and every test has a timeout (pytest-timeout)."""

import ast
import os

import mutants


def test_every_equivalent_mutant_listed_exists_and_says_why():
    listed = mutants.read_equivalent()
    files = {k.split(" ")[0] for k in listed}
    keys = {m["key"] for rel in files for m in mutants.mutants_of(rel)}
    assert listed, "tests/equivalent_mutants.txt lists nothing"
    for key, why in listed.items():
        assert key in keys, "no such mutant any more (look again):\n%s" % key
        assert len(why.split()) >= 8, "give a reason a reader can check:\n%s" % key


def test_a_mutant_is_the_source_with_one_change_inside_one_function():
    rel = "lib/qiklaxon/over.py"
    with open(os.path.join(mutants.ROOT, rel)) as f:
        source = f.read()
    found = mutants.mutants_of(rel)
    assert len(found) > 50
    assert len({m["key"] for m in found}) == len(found)
    for m in found[::7]:
        ast.parse(m["source"])  # it compiles
        old, new = source.split("\n"), m["source"].split("\n")
        changed = [i + 1 for i, (a, b) in enumerate(zip(old, new)) if a != b]
        assert changed and m["line"] <= changed[0] <= m["last"], (m["diff"], changed)
        assert m["diff"].count("\n-") + m["diff"].startswith("-") >= 1


def test_the_device_files_mutated_are_the_boards_and_not_the_hosts():
    files = mutants.device_files()
    assert "code.py" in files and "hardware/device.py" in files
    assert "lib/qiklaxon/core.py" in files
    assert not {"lib/qiklaxon/game.py", "lib/qiklaxon/layout.py"} & set(files)
    assert mutants.module_name("lib/qiklaxon/undo.py") == "qiklaxon.undo"
    assert mutants.module_name("lib/qiklaxon/__init__.py") == "qiklaxon"
    assert mutants.module_name("code.py") is None


def test_every_test_has_a_timeout(request):
    marks = [m.args[0] for m in request.node.iter_markers("timeout")]
    limit = marks[0] if marks else request.config.getoption("timeout")  # (--timeout N)
    assert limit and 0 < limit <= 1800
