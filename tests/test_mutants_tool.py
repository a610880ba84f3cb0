"""tools/quality/mutants.py's own checks that need no mutation run: its list of equivalent
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
    assert not {"model/game.py", "model/layout.py"} & set(files)
    assert mutants.module_name("lib/qiklaxon/undo.py") == "qiklaxon.undo"
    assert mutants.module_name("lib/qiklaxon/__init__.py") == "qiklaxon"
    assert mutants.module_name("code.py") is None


def test_every_test_has_a_timeout(request):
    marks = [m.args[0] for m in request.node.iter_markers("timeout")]
    limit = marks[0] if marks else request.config.getoption("timeout")  # (--timeout N)
    assert limit and 0 < limit <= 1800


def test_the_sample_is_fixed_by_the_mutants_keys_not_by_their_number():
    """CI's sample: a mutant added elsewhere (a new line of code) leaves the rest of the
    sample as it was, so the tests recorded for it (tests/mutants_sample.txt) still apply."""
    found = mutants.all_mutants(["over.py"])
    chosen = mutants.sample_of(found, 10)
    assert len(chosen) == 10 and len({m["key"] for m in chosen}) == 10
    extra = dict(found[0], key="lib/qiklaxon/over.py elsewhere\n- a\n+ b", id=len(found))
    again = mutants.sample_of([extra] + found[1:] + [found[0]], 10)
    kept = {m["key"] for m in again} & {m["key"] for m in chosen}
    assert len(kept) >= 9  # all, but one if the new mutant's hash is among the lowest


def test_the_samples_record_names_tests_that_exist(tmp_path):
    record = mutants.read_sample()
    assert record, "tests/mutants_sample.txt records nothing: --sample 40 --record"
    for status, tests in record.values():
        assert status in ("killed", "reached")
        assert len(tests) == 1 if status == "killed" else True  # (a survivor: 0 or more)
        for seconds, test in tests:
            assert seconds >= 0 and "::" in test
            assert os.path.exists(os.path.join(mutants.ROOT, test.split("::")[0])), test
    path = tmp_path / "sample.txt"
    path.write_text("# a comment\n0123456789ab killed 0.5 x.py:f tests/t.py::t\n"
                    "00aa killed 0.5 x.py:f tests/t.py::a\n00aa killed 0.5 x.py:f tests/t.py::b\n"
                    "0bcd reached 0.25 x.py:g tests/t.py::c\n0bcd reached 0.5 x.py:g tests/t.py::d\n"
                    "0cde reached 0 x.py:h -\n")
    got = mutants.read_sample(str(path))
    assert got["0123456789ab"] == ("killed", [(0.5, "tests/t.py::t")])
    assert got["0bcd"] == ("reached", [(0.25, "tests/t.py::c"), (0.5, "tests/t.py::d")])
    assert got["0cde"] == ("reached", [])  # no test runs its line
    for bad in ("0123456789ab 0.5 x.py:f tests/t.py::t", "0123 caught 0.5 x.py:f t::t",
                "0123 killed soon x.py:f t::t"):
        path.write_text("# a comment\n" + bad + "\n")
        try:
            mutants.read_sample(str(path))
        except ValueError as e:
            assert "sample.txt:2" in str(e), e
        else:
            raise AssertionError("a bad line was read: %r" % bad)


def test_a_mutant_runs_more_than_the_fastest_two_cases_of_a_quick_parametrized_test():
    """The fastest two cases of a parametrized test are often the least telling (the 40 ms
    blip, not the klaxon with its rest): a mutant runs every case that fits in
    PER_FUNCTION_S, the fastest first, and still stops at BUDGET_S in all."""
    names = ["tests/t.py::t_tone[blip]", "tests/t.py::t_tone[klaxon]", "tests/t.py::t_tone[done]",
             "tests/t.py::t_slow[a]", "tests/t.py::t_slow[b]", "tests/t.py::t_slow[c]",
             "tests/t.py::t_other"]
    durations = [0.01, 0.04, 0.05, 0.6, 0.7, 0.8, 0.3]
    cmap = {"tests": names, "durations": durations,
            "lines": {"x.py": {"3": list(range(len(names)))}}}
    m = {"file": "x.py", "line": 3, "last": 3}
    got = [names[i] for i in mutants.tests_for(m, cmap)]
    assert got == ["tests/t.py::t_tone[blip]", "tests/t.py::t_tone[klaxon]",
                   "tests/t.py::t_tone[done]", "tests/t.py::t_other", "tests/t.py::t_slow[a]",
                   "tests/t.py::t_slow[b]"]  # t_slow[c]: past 1 s of that test's cases
    assert [names[i] for i in mutants.tests_for(m, cmap, 0.5)] == got[:4]
    assert len(mutants.tests_for(m, cmap, 0)) == len(names)


def test_bad_flags_and_files_get_one_line_and_exit_2_before_any_run(tmp_path, capsys):
    """Flags that would silently mean "every mutant, for an hour" are refused, as are a
    record the tool cannot trust; its caches (.mutation/) are made anew when unreadable."""
    import pytest

    for argv in (["--sample", "0"], ["--only", ""], ["--ids", " "], ["--jobs", "0"],
                 ["--record"], ["--json", str(tmp_path / "no" / "such.json")]):
        with pytest.raises(SystemExit) as e:
            mutants.main(argv)
        assert e.value.code == 2, argv
    for bad in ("00aa killed nan x.py:f tests/t.py::t", "00aa killed 1e308 x.py:f tests/t.py::t",
                "00aa killed 0.5 x.py:f /etc/passwd::x", "00aa killed 0.5 x.py:f tests/t.py"):
        path = tmp_path / "sample.txt"
        path.write_text(bad + "\n")
        with pytest.raises(ValueError, match="sample.txt:1: not"):
            mutants.read_sample(str(path))
    path.write_bytes(b"\xb5garbage")
    with pytest.raises(ValueError, match="not readable as text"):
        mutants.read_equivalent(str(path))
    for text in ("garbage{", "[]"):
        path.write_text(text)
        assert mutants._cached(str(path)) is None
    assert "is unreadable: made anew" in capsys.readouterr().out
