#!/usr/bin/env python3
"""Mutation testing of the device code: does the suite fail when the firmware is wrong?

    python3 tools/dev.py mutants                 # every mutant (the full run, ~1 h on 2 cores)
    python3 tools/dev.py mutants --sample 40     # CI's: a fixed 40, each against its test
    python3 tools/dev.py mutants --only undo.py  # the mutants of files whose path has this

The mutants are mutmut's (pinned in requirements.lock): its operators, applied one at a
time to a function body of a device file (code.py, boot.py, hardware/*.py,
lib/qiklaxon/*.py; module-level lines, the
consts among them, are not mutated, as in mutmut's own runs). mutmut's own runner
cannot run this suite as it is: it imports a mutated copy under the copy's path
(``lib.qiklaxon.core``, not ``qiklaxon.core``), its trampolines break the tests that
read the firmware's source (names, budgets) and make the simulated board two to
three times slower, and it picks tests per function (every mutant of
``Device.poll`` would run most of the suite). So this runs them:

1. The map (``.mutation/map.json``): the fast host suite (tests/ but the VM, Pico,
   CircuitPython and browser lanes, see ``LANES``) once under coverage.py, one
   context per test: which tests run each line of device code, and how long each
   test takes. It is made anew whenever the device code, tools/ or the tests'
   shared files (conftest.py, helpers) change; when only test files change, just
   those are mapped again. The run stops if any test fails there.
2. Each mutant runs only the tests that run its lines, fastest first, stopping at
   the first failure, in a child forked from one pytest process that collected
   the suite once: the child swaps the mutated function's code into the live
   function and serves the mutated source to any later import (the overlays are
   imported and dropped as the game goes), so no file on disk changes. Each test
   has a timeout of 20 times its mapped duration (10 s at least, pytest-timeout):
   a mutant that hangs fails its test in seconds.
3. The report: the kill rate over the mutants not listed in
   tests/equivalent_mutants.txt, and each survivor as file:line with its diff.
   Every test that killed a mutant is run again alone with no mutant: one that
   fails then would have made its kills false, and the run says so and fails.

Exit status: 0 when the full run kills at least ``BUDGET`` of the non-equivalent
mutants, or when no sampled mutant survives (``--sample``/``--only``); 1 otherwise;
2 for bad arguments.
"""

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
WORK = os.path.join(ROOT, ".mutation")
MAP = os.path.join(WORK, "map.json")
FULL = os.path.join(WORK, "full.json")  # the last full run's summary
EQUIVALENT_REL = "tests/equivalent_mutants.txt"
EQUIVALENT = os.path.join(ROOT, EQUIVALENT_REL)
BUDGET = 0.95  # of the non-equivalent mutants killed (issue 26)
# CI's sample: the N mutants whose keys hash lowest (a change elsewhere in the code leaves
# it as it was), and the test that caught each of them last (SAMPLE_REL, written by
# ``--sample N --record``): CI runs each sampled mutant against that test first, so its
# host suite needs no run under coverage; only a sampled mutant with no recorded test,
# or whose test no longer catches it, needs the map.
SAMPLE_REL = "tests/mutants_sample.txt"
SAMPLE = os.path.join(ROOT, SAMPLE_REL)
# The lanes that run the firmware in another VM (MicroPython, CircuitPython, the Pico's
# emulator, Chromium): they see files on disk, not a mutant served in memory, and take
# minutes; the mutants run against the fast host suite, as the hand trial did.
LANES = ("tests/test_vm.py", "tests/test_cp.py", "tests/test_pico.py", "tests/test_web.py")
HOST_SUITE = ["tests"] + ["--ignore=" + p for p in LANES]
PYTEST = os.path.join(ROOT, ".venv", "bin", "pytest")
# A mutant's tests: the fastest that reach it, up to this much of their mapped time (the
# map's durations are under coverage, 2 to 5 times the plain run's), and of one
# parametrized test the cases that fit in PER_FUNCTION_S of it (two at least: each case
# is another board, sound or game, and the fastest two are often the least telling: the
# 40 ms blip, not the klaxon with its rest); ``--deep`` runs the survivors against them all.
BUDGET_S = 10
PER_FUNCTION_S = 1.0
# Each test's timeout in a mutant's run: this many times its mapped duration, at least
# MIN_TIMEOUT_S: a mutant that makes the firmware loop for ever fails in seconds.
MIN_TIMEOUT_S = 5
TIMEOUT_FACTOR = 10


def device_files():
    """The device code mutated, as paths relative to the root."""
    out = ["code.py", "boot.py"]
    for folder in ("hardware", "lib/qiklaxon"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            rel = folder + "/" + name
            if name.endswith(".py") and name != "__init__.py":
                out.append(rel)
    return out


def module_name(rel):
    """The name a device file is imported under on the host (None: it is not)."""
    if rel.startswith("lib/"):
        rel = rel[4:]
    elif not rel.startswith("hardware/"):
        return None  # code.py and boot.py run as scripts, on the boards and VMs only
    name = rel[:-3].replace("/", ".")
    return name[:-9] if name.endswith(".__init__") else name


# ------------------------------------------------------------------------- the mutants
def _qualname(module, func):
    """``Class.method`` or ``function`` of a top-level FunctionDef of ``module``."""
    import libcst as cst

    for node in module.body:
        if node is func:
            return func.name.value
        if isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
            for sub in node.body.body:
                if sub is func:
                    return node.name.value + "." + func.name.value
    return func.name.value


def mutants_of(rel):
    """Every mutant of one device file: dicts with the file, the function, the lines
    of the node mutated, its key (the function, the node's code and the mutated code,
    no line numbers: it survives edits elsewhere), the diff and the mutated source.
    The mutated node's code is spliced into the source where the original's is (when
    the original renders as exactly the text there; else mutmut's libcst rewrite of
    the whole module): fast enough to make all of them each run."""
    import difflib

    from libcst.metadata import MetadataWrapper, PositionProvider
    from mutmut.mutation.file_mutation import create_mutations

    with open(os.path.join(ROOT, rel)) as f:
        source = f.read()
    module, mutations, _, _ = create_mutations(rel, source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    old = source.split("\n")
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line) + 1)
    out = []
    seen = {}
    for m in mutations:
        func = m.contained_by_top_level_function
        if func is None:  # module level: the consts, imports and boot.py's lines
            continue
        pos = positions[m.original_node]
        a = starts[pos.start.line - 1] + pos.start.column
        b = starts[pos.end.line - 1] + pos.end.column
        was = module.code_for_node(m.original_node)
        now = module.code_for_node(m.mutated_node)
        if source[a:b] == was:
            mutated = source[:a] + now + source[b:]
        else:
            mutated = module.deep_replace(m.original_node, m.mutated_node).code
        new = mutated.split("\n")
        diff = list(difflib.unified_diff(old[pos.start.line - 2:pos.end.line + 1],
                                         new[pos.start.line - 2:pos.end.line + 1 + len(new)
                                             - len(old)], rel, rel, n=1, lineterm=""))
        qual = _qualname(module, func)
        key = "%s %s\n- %s\n+ %s" % (rel, qual, " ".join(was.split()), " ".join(now.split()))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:  # the same change twice in one function: told apart by order
            key += "\n# %d" % seen[key]
        out.append({"file": rel, "function": qual, "line": pos.start.line,
                    "last": pos.end.line, "key": key,
                    "diff": "\n".join(d for d in diff[2:] if not d.startswith("@@")),
                    "source": mutated})
    return out


def all_mutants(only=None):
    out = []
    for rel in device_files():
        if only and not any(o in rel for o in only):
            continue
        out.extend(mutants_of(rel))
    for i, m in enumerate(out):
        m["id"] = i
    return out


def sample_of(mutants, n):
    """The fixed sample: the ``n`` mutants whose keys hash lowest, in id order."""
    chosen = sorted(mutants, key=_key_hash)[:n]
    return sorted(chosen, key=lambda m: m["id"])


def _key_hash(m):
    return hashlib.sha1(m["key"].encode()).hexdigest()[:12]


def read_sample(path=SAMPLE):
    """{key hash: (status, [(seconds, test)])}: for each sampled mutant, the test that
    caught it last ("killed"), or the tests the last record ran it against and that all
    passed ("reached"; none: no test runs its line), each with its mapped duration (for
    its timeout)."""
    out = {}
    if not os.path.exists(path):
        return out
    for n, line in enumerate(_lines(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(" ", 4)
        try:
            if parts[1] not in ("killed", "reached") or len(parts) != 5:
                raise ValueError(parts[1])
            seconds = float(parts[2])
            if not 0 <= seconds <= 600:  # (a test's mapped time: its timeout is 10 times it)
                raise ValueError(parts[2])
            tests = out.setdefault(parts[0], (parts[1], []))[1]
            if parts[4] != "-":
                if "::" not in parts[4] or parts[4].startswith(("/", ".")):
                    raise ValueError(parts[4])
                tests.append((seconds, parts[4]))
        except (IndexError, ValueError):
            raise ValueError("%s:%d: not '<hash> killed|reached <seconds 0..600> "
                             "<file:function> <tests/...::test>': %r" % (
                                 os.path.relpath(path, ROOT), n, line))
    return out


def write_sample(chosen, results, seconds, path=SAMPLE):
    """The sample's record: each caught sampled mutant and the test that caught it; each
    survivor and the tests it ran against (all of them passed). ``seconds``: {test: its
    mapped duration}; each mutant's ``ran``: the tests it ran against."""
    lines = []
    for m in chosen:
        r = results.get(m["id"], {})
        where = "%s:%s" % (m["file"], m["function"])
        if r.get("outcome") in ("killed", "timeout") and r.get("by") in seconds:
            lines.append("%s killed %.2f %s %s" % (_key_hash(m), seconds[r["by"]], where,
                                                   r["by"]))
        elif r.get("outcome") == "survived":
            lines += ["%s reached %.2f %s %s" % (_key_hash(m), seconds[t], where, t)
                      for t in m.get("ran", ())] or ["%s reached 0 %s -" % (_key_hash(m), where)]
    with open(path, "w") as f:
        f.write("# CI's sample of the mutants (tools/quality/mutants.py --sample): each sampled mutant's\n"
                "# key hash, 'killed' and the test that caught it last, or 'reached' and the\n"
                "# tests a survivor ran against, each test's mapped seconds. Written by\n"
                "# `python3 tools/dev.py mutants --sample N --record`; CI runs each mutant against\n"
                "# these tests, and maps the suite only for those it lacks or whose test no\n"
                "# longer catches it.\n")
        f.write("\n".join(sorted(lines, key=lambda x: x.split(" ", 4)[3])) + "\n")
    return len({x.split(" ")[0] for x in lines})


def _lines(path):
    """The lines of a committed text file this tool reads; ValueError naming it when it
    cannot be read as UTF-8 text."""
    try:
        with open(path, encoding="utf-8") as f:
            return [x.rstrip("\n") for x in f]
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError("%s: not readable as text (%s)" % (os.path.relpath(path, ROOT), e))


def read_equivalent(path=EQUIVALENT):
    """tests/equivalent_mutants.txt: {key: reason}. Each entry is a header ``[file
    function]``, the changed lines as ``- old`` and ``+ new`` (stripped), and a
    ``why:`` line a reader can check; '#' starts a comment line."""
    out = {}
    if not os.path.exists(path):
        return out
    lines = _lines(path)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("["):
            if line.strip() and not line.startswith("#"):
                raise ValueError("%s:%d: expected '[file function]', got %r" % (path, i + 1, line))
            i += 1
            continue
        head = line[1:].rstrip("]").strip()
        start = i + 1
        minus, plus, why, nth = [], [], "", ""
        i += 1
        while i < len(lines) and not lines[i].startswith("["):
            x = lines[i]
            if x.startswith("- "):
                minus.append(x)
            elif x.startswith("+ "):
                plus.append(x)
            elif x.startswith("why:"):
                why = x[4:].strip()
            elif x.startswith("nth:"):
                nth = "\n# " + x[4:].strip()
            i += 1
        if not why:
            raise ValueError("%s:%d: %s has no 'why:' line" % (path, start, head))
        out["%s\n%s\n%s%s" % (head, "\n".join(minus), "\n".join(plus), nth)] = why
    return out


# ------------------------------------------------------------------------- the map
def _cached(path):
    """The dict in JSON file ``path`` (one of .mutation/'s: a cache), or None when it is
    missing or unreadable, which is said: it is made anew."""
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            got = json.load(f)
        if isinstance(got, dict):
            return got
    except (OSError, ValueError):  # (UnicodeDecodeError and JSONDecodeError among them)
        pass
    print("mutants: %s is unreadable: made anew" % os.path.relpath(path, ROOT), flush=True)
    return None


def _hash_files(files):
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode())
        with open(os.path.join(ROOT, rel), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def _files_under(folder, ends=(".py", ".txt", ".toml")):
    out = []
    for base, dirs, names in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "node_modules"))
        out += [os.path.relpath(os.path.join(base, n), ROOT) for n in sorted(names)
                if n.endswith(ends)]
    return out


def _digests():
    """What the map depends on: one digest of the device code, tools/ and the tests'
    shared files (conftest.py, helpers), and one of each test file."""
    tests = [f for f in _files_under("tests") if os.path.basename(f).startswith("test_")
             and f.endswith(".py")]
    shared = ["code.py", "boot.py"] + _files_under("hardware") + _files_under("lib") + \
        _files_under("model") + \
        [f for f in _files_under("tools") if f != "tools/quality/mutants.py"] + \
        [f for f in _files_under("tests") if f not in tests
         and f not in (EQUIVALENT_REL, SAMPLE_REL)]
    return _hash_files(shared), {f: _hash_files([f]) for f in tests
                                 if f not in LANES}


def _env(**extra):
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def build_map(jobs):
    """The map, from runs of the host suite under coverage (``jobs`` processes). Kept
    honest: made anew when the device code, tools/ or the tests' shared files change;
    when only test files change, those files are mapped again."""
    shared, per_file = _digests()
    old = _cached(MAP)
    if old is not None and (old.get("shared") != shared or old.get("version") != 2):
        old = None
    fresh = os.path.join(WORK, "suite.json")
    suite = _cached(fresh)  # the test command's host suite just ran under coverage
    if suite is not None:
        os.remove(fresh)
        if suite.get("shared") == shared and suite.get("files") == per_file and \
                suite.get("status") == 0:
            return _combine(None, set(), [], shared, per_file, time.monotonic() - suite["seconds"])
    if old is not None:
        redo = sorted(f for f, d in per_file.items() if old["files"].get(f) != d)
        keep = {i for i, t in enumerate(old["tests"]) if t.split("::")[0] in per_file
                and t.split("::")[0] not in redo}
        if not redo and len(keep) == len(old["tests"]):
            return old
    else:
        redo = sorted(per_file)
        keep = set()
    _clear()
    print("mutants: mapping which tests run which lines of device code: %s under coverage"
          % ("the host suite (5 to 10 minutes on 2 cores; kept in .mutation/ for the next "
             "runs)" if old is None else ", ".join(redo) or "nothing new"), flush=True)
    started = time.monotonic()
    if redo:
        cmd = [PYTEST, "-q", "-p", "no:cacheprovider", "--timeout", "600"]
        cmd += (["-n", str(jobs)] if jobs > 1 and len(redo) > 1 else []) + redo
        rc = subprocess.call(cmd, cwd=ROOT, env=_env(QK_MUTANTS_MAP=WORK))
        if rc not in (0, 5):
            raise SystemExit("mutants: the host suite fails without any mutant (exit %d): "
                             "fix it first, every mutant would look caught" % rc)
    return _combine(old, keep, redo, shared, per_file, started)


def _clear():
    os.makedirs(WORK, exist_ok=True)
    for name in os.listdir(WORK):
        if name.startswith(("cov", "durations", "suite.json")):
            os.remove(os.path.join(WORK, name))


def _combine(old, keep, redo, shared, per_file, started):
    """The map: the old map's tests in ``keep`` and the coverage data just made."""
    tests, index, durations, lines = [], {}, {}, {}
    if old is not None:  # what stays: the unchanged files' tests
        for i in sorted(keep):
            index[old["tests"][i]] = len(tests)
            tests.append(old["tests"][i])
            durations[old["tests"][i]] = old["durations"][i]
        for rel, per in old["lines"].items():
            for ln, ids in per.items():
                got = {index[old["tests"][i]] for i in ids if i in keep}
                if got:
                    lines.setdefault(rel, {}).setdefault(ln, set()).update(got)
    import coverage

    for name in sorted(os.listdir(WORK)):
        path = os.path.join(WORK, name)
        if name.startswith("durations"):
            with open(path) as f:
                durations.update(json.load(f))
        elif name.startswith("cov"):
            data = coverage.CoverageData(basename=path)
            data.read()
            for measured in data.measured_files():
                rel = os.path.relpath(measured, ROOT)
                per = lines.setdefault(rel, {})
                for line, contexts in data.contexts_by_lineno(measured).items():
                    for c in contexts:
                        if not c or c.split("::")[0] not in per_file:
                            continue  # between tests (imports at collection), or a lane's
                        if c not in index:
                            index[c] = len(tests)
                            tests.append(c)
                        per.setdefault(str(line), set()).add(index[c])
    out = {"version": 2, "shared": shared, "files": per_file, "tests": tests,
           "durations": [durations.get(t, 0.0) for t in tests],
           "lines": {rel: {ln: sorted(s) for ln, s in per.items()} for rel, per in lines.items()},
           "seconds": round(time.monotonic() - started, 1)}
    with open(MAP, "w") as f:
        json.dump(out, f)
    print("mutants: map made in %.0f s (%d tests run device code)" % (out["seconds"], len(tests)),
          flush=True)
    return out


_FIRST_LINES = {}


def _statement_line(rel, line):
    """The first line of the innermost statement holding ``line`` of ``rel``: what
    coverage records for a line inside a statement that spans several (a string
    literal's continuation lines, a call's arguments)."""
    if rel not in _FIRST_LINES:
        import ast

        with open(os.path.join(ROOT, rel)) as f:
            tree = ast.parse(f.read())
        first = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(
                    node, (ast.FunctionDef, ast.ClassDef, ast.Module)):
                body = getattr(node, "body", None)
                end = body[0].lineno - 1 if body and isinstance(body, list) else node.end_lineno
                for ln in range(node.lineno, end + 1):
                    if ln not in first or first[ln] < node.lineno:
                        first[ln] = node.lineno
        _FIRST_LINES[rel] = first
    return _FIRST_LINES[rel].get(line, line)


def reaching(m, cmap):
    """The tests that run any line of the mutant's node, or if none is recorded, the
    first line of the statement holding it (indices into the map's tests), fastest
    first. With no map (the sample's recorded tests): the mutant's own tests."""
    if "lines" not in cmap:
        return list(m["tests"])
    per = cmap["lines"].get(m["file"], {})
    found = set()
    for line in range(m["line"], m["last"] + 1):
        found.update(per.get(str(line), ()))
    if not found:
        found.update(per.get(str(_statement_line(m["file"], m["line"])), ()))
    d = cmap["durations"]
    return sorted(found, key=lambda i: (d[i], i))


def tests_for(m, cmap, budget_s=None):
    """The tests a mutant runs: of those that reach it, the fastest first, until their
    mapped time passes ``budget_s`` (None: ``BUDGET_S``; 0: every test that reaches it,
    each case); of one test function's cases (its parametrizations) two, and more while
    they fit in ``PER_FUNCTION_S``. A line in ``Device.poll`` is reached by nearly every
    test; a mutant that only the slowest of them would catch is a gap in the fast tests
    too."""
    found = reaching(m, cmap)
    budget_s = BUDGET_S if budget_s is None else budget_s
    if not budget_s:
        return found
    d = cmap["durations"]
    out, cases, spent = [], {}, 0.0
    for i in found:
        fn = cmap["tests"][i].split("[")[0]
        k, took = cases.get(fn, (0, 0.0))
        if k >= 2 and took + d[i] > PER_FUNCTION_S:
            continue
        if out and spent + d[i] > budget_s:
            break
        cases[fn] = (k + 1, took + d[i])
        out.append(i)
        spent += d[i]
    return out


# ------------------------------------------- the pytest side (tests/conftest.py loads it)
class _MapPlugin:
    """Coverage per test, in each process that runs tests (xdist's workers). In the
    process that started the run (not a worker), what it ran on, for ``build_map``."""

    def __init__(self, folder):
        self.folder = folder
        self.cov = None
        self.durations = {}
        self.started = time.time()
        self.digests = None
        if "PYTEST_XDIST_WORKER" not in os.environ:
            _clear()
            self.digests = _digests()

    def _start(self):
        import coverage

        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.cov = coverage.Coverage(data_file=os.path.join(self.folder, "cov." + worker),
                                     include=[os.path.join(ROOT, r) for r in device_files()])
        self.cov.set_option("run:disable_warnings", ["no-data-collected"])  # (a worker whose
        # tests run no device code)
        self.cov.start()

    def pytest_runtest_protocol(self, item, nextitem):
        if self.cov is None:
            self._start()
        self.cov.switch_context(item.nodeid)

    def pytest_runtest_logreport(self, report):
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session, exitstatus):
        if self.digests is not None and os.environ.get("QK_MUTANTS_SUITE"):
            with open(os.path.join(self.folder, "suite.json"), "w") as f:
                json.dump({"shared": self.digests[0], "files": self.digests[1],
                           "status": int(exitstatus),
                           "seconds": time.time() - self.started}, f)
        if self.cov is None:
            return
        self.cov.stop()
        self.cov.save()
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(self.folder, "durations." + worker), "w") as f:
            json.dump(self.durations, f)


class _Mutant:
    """A mutant in this process: later imports of its module get the mutated source,
    and the live function (if its module is loaded) runs the mutated code."""

    def __init__(self, m):
        import importlib.util

        self.name = module_name(m["file"])
        self.path = os.path.join(ROOT, m["file"])
        self.code = compile(m["source"], self.path, "exec", dont_inherit=True)
        mutant = self

        class Loader:
            def create_module(self, spec):
                return None

            def exec_module(self, module):
                exec(mutant.code, module.__dict__)

        class Finder:
            def find_spec(self, name, path=None, target=None):
                if name != mutant.name:
                    return None
                pkg = [os.path.dirname(mutant.path)] if mutant.path.endswith("__init__.py") \
                    else None
                return importlib.util.spec_from_file_location(
                    name, mutant.path, loader=Loader(), submodule_search_locations=pkg)

        sys.meta_path.insert(0, Finder())
        live = sys.modules.get(self.name)
        if live is not None:
            self._swap(live, m)

    def _swap(self, module, m):
        import ast

        parts = m["function"].split(".")
        obj = module
        for p in parts:
            obj = obj.__dict__[p]
        code = self._find(self.code, m["function"])
        obj.__code__ = code
        tree = ast.parse(m["source"])
        node = tree
        for p in parts:
            node = next(n for n in node.body if getattr(n, "name", None) == p)
        ns = module.__dict__

        def value(e):
            return eval(compile(ast.Expression(e), self.path, "eval"), ns)

        obj.__defaults__ = tuple(value(e) for e in node.args.defaults) or None
        kw = {a.arg: value(e) for a, e in zip(node.args.kwonlyargs, node.args.kw_defaults)
              if e is not None}
        obj.__kwdefaults__ = kw or None

    def _find(self, code, qualname):
        for c in code.co_consts:
            if hasattr(c, "co_qualname"):
                if c.co_qualname == qualname:
                    return c
                found = self._find(c, qualname)
                if found is not None:
                    return found
        return None


class _RunPlugin:
    """Collects the suite once, then forks a child per mutant (``jobs`` at a time)."""

    def __init__(self, job_path):
        with open(job_path) as f:
            self.job = json.load(f)

    def pytest_collection_modifyitems(self, config, items):
        import pytest

        limits = self.job["timeouts"]
        for item in items:
            if item.nodeid in limits:
                item.add_marker(pytest.mark.timeout(limits[item.nodeid]))

    def pytest_runtestloop(self, session):
        items = {it.nodeid: it for it in session.items}
        job = self.job
        results = {}
        names = job["names"]
        # a test that is gone (renamed, removed since the record or the map was made):
        # a mutant left with none is "stale", for main() to run against the map instead
        queue = []
        for m in job["mutants"]:
            m["tests"] = [i for i in m["tests"] if names[i] in items]
            m["reach"] = [i for i in m["reach"] if names[i] in items]
            if m["tests"]:
                queue.append(m)
            else:
                results[m["id"]] = {"outcome": "stale", "by": "its tests are gone"}
        running = {}  # pid -> (mutant, read end, started)
        total = len(queue)
        done = 0
        started = time.monotonic()
        last_print = 0
        tty = sys.stderr.isatty()
        counts = {"killed": 0, "survived": 0, "timeout": 0}
        index = {t: i for i, t in enumerate(names)}
        killers = {}  # function -> the tests that killed its mutants, latest first
        while queue or running:
            while queue and len(running) < job["jobs"]:
                m = queue.pop(0)
                # a test that killed a mutant of this function first (if it reaches this
                # one): it most likely kills this one too, and the run stops sooner
                reach = set(m["reach"])
                first = [k for k in killers.get((m["file"], m["function"]), ())
                         if k in reach][:2]
                order = first + [i for i in m["tests"] if i not in first]
                m["names"] = [names[i] for i in order]
                m["limit"] = 60 + sum(max(MIN_TIMEOUT_S, TIMEOUT_FACTOR * job["durations"][i])
                                      for i in order)
                r, w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(r)
                    self._child(session, items, m, w)
                os.close(w)
                running[pid] = (m, r, time.monotonic())
            pid, status = self._wait(running)
            m, r, t0 = running.pop(pid)
            with os.fdopen(r) as f:
                said = f.read()
            if pid in self._overdue:
                outcome, why = "timeout", "the mutant's tests ran past %d s" % m["limit"]
                self._overdue.discard(pid)
            elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                outcome, why = "survived", ""
            elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1:
                test, _, message = said.partition("\n")
                outcome = "timeout" if "Timeout" in message else "killed"
                why = test
                if test in index:
                    k = killers.setdefault((m["file"], m["function"]), [])
                    if index[test] in k:
                        k.remove(index[test])
                    k.insert(0, index[test])
            else:
                outcome, why = "killed", "the child ended with status %d" % status
            results[m["id"]] = {"outcome": outcome, "by": why, "seconds":
                                round(time.monotonic() - t0, 2)}
            with open(job["results"] + "l", "a") as f:  # as it goes: a stopped run's so far
                f.write(json.dumps(dict(results[m["id"]], id=m["id"], file=m["file"],
                                        function=m["function"])) + "\n")
            counts[outcome] += 1
            done += 1
            now = time.monotonic()
            if tty or now - last_print > 30 or done == total:
                last_print = now
                rate = (counts["killed"] + counts["timeout"]) / done
                eta = (now - started) / done * (total - done)
                line = "mutants: %d/%d run, %d killed, %d timed out, %d survived (%.1f%% " \
                       "caught), %d:%02d left" % (done, total, counts["killed"],
                                                  counts["timeout"], counts["survived"],
                                                  100 * rate, eta // 60, eta % 60)
                sys.stderr.write(("\r" + line + "  ") if tty else line + "\n")
                sys.stderr.flush()
        if tty:
            sys.stderr.write("\n")
        verify = {}
        for nodeid in job.get("verify", []):  # each killing test alone, no mutant
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                self._child(session, items, {"names": [nodeid], "file": None}, w)
            os.close(w)
            _, status = os.waitpid(pid, 0)
            os.close(r)
            verify[nodeid] = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        with open(job["results"], "w") as f:
            json.dump({"results": results, "clean": verify}, f)
        return True

    _overdue = set()

    def _wait(self, running):
        """The next child to end; a child past its limit is killed (and marked)."""
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid:
                return pid, status
            now = time.monotonic()
            for p, (m, _, t0) in running.items():
                if now - t0 > m["limit"] and p not in self._overdue:
                    self._overdue.add(p)
                    os.kill(p, signal.SIGKILL)
            time.sleep(0.01)

    def _child(self, session, items, m, w):
        """Run ``m``'s tests with ``m`` applied (``file`` None: no mutant); exit 0 if all
        pass, 1 if one fails (its id and message written to ``w``)."""
        code = 3
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            if m["file"] is not None:
                _Mutant(m)
            failed = []

            class Watch:
                def pytest_runtest_logreport(self, report):
                    if report.failed and not failed:
                        failed.append((report.nodeid, str(report.longrepr)[-300:]))

            session.config.pluginmanager.register(Watch(), "mutants-watch")
            sel = [items[t] for t in m["names"]]
            for i, item in enumerate(sel):
                nxt = sel[i + 1] if i + 1 < len(sel) else None
                item.ihook.pytest_runtest_protocol(item=item, nextitem=nxt)
                if failed:
                    break
            if failed:
                os.write(w, ("%s\n%s" % failed[0]).encode())
                code = 1
            else:
                code = 0
        except BaseException as e:  # a mutant that breaks the import or the set-up
            try:
                os.write(w, ("(set-up)\n%r" % e).encode()[:400])
            except OSError:
                pass
            code = 1
        finally:
            os._exit(code)


def configure(config):
    """From tests/conftest.py: the map's coverage (QK_MUTANTS_MAP) or the mutants' run (QK_MUTANTS_JOB).
    In the mutants' run Hypothesis runs derandomized and keeps no examples: a mutant is
    caught or not the same way every time, and its failing examples stay out of
    .hypothesis/. ``QK_MUTANTS_SUITE``: the test command's host suite (tools/dev.py)
    makes the map as it runs, when it runs whole."""
    mine = os.path.join(WORK, "")  # (a clone's suite inherits the variables: not its run)
    if not (os.environ.get("QK_MUTANTS_MAP", mine) + os.sep).startswith(mine) or \
            not os.environ.get("QK_MUTANTS_JOB", mine).startswith(mine):
        return
    if os.environ.get("QK_MUTANTS_JOB"):
        from hypothesis import settings

        settings.register_profile("mutants", database=None, derandomize=True)
        settings.load_profile("mutants")
    if os.environ.get("QK_MUTANTS_MAP"):
        config.pluginmanager.register(_MapPlugin(os.environ["QK_MUTANTS_MAP"]), "mutants-map")
    elif os.environ.get("QK_MUTANTS_JOB"):
        config.pluginmanager.register(_RunPlugin(os.environ["QK_MUTANTS_JOB"]), "mutants-run")


# ------------------------------------------------------------------------- the run
def run(mutants, cmap, jobs):
    """Run ``mutants`` (each with tests); returns {id: result} and the clean check."""
    tests = cmap["tests"]
    dur = cmap["durations"]
    job_mutants, timeouts, files = [], {}, set()
    for m in mutants:
        idx = m["tests"]
        reach = reaching(m, cmap)
        job_mutants.append({"id": m["id"], "file": m["file"], "function": m["function"],
                            "source": m["source"], "tests": idx, "reach": reach})
        for i in reach:
            timeouts[tests[i]] = max(MIN_TIMEOUT_S, int(TIMEOUT_FACTOR * dur[i]) + 1)
            files.add(tests[i].split("::")[0])
    if not job_mutants:
        return {}, {}
    os.makedirs(WORK, exist_ok=True)
    job_path = os.path.join(WORK, "job.json")
    out_path = os.path.join(WORK, "run.json")  # (and run.jsonl: each result as it comes)
    clean_path = os.path.join(WORK, "clean.json")  # the killing tests again, no mutant
    for old in (out_path, out_path + "l", clean_path):  # (a run's, never an older run's)
        if os.path.exists(old):
            os.remove(old)
    with open(job_path, "w") as f:
        json.dump({"mutants": job_mutants, "names": tests, "durations": dur,
                   "timeouts": timeouts, "jobs": jobs,
                   "results": out_path}, f)
    cmd = [PYTEST, "-q", "-s", "-p", "no:cacheprovider"]
    cmd += sorted(files)
    # (its progress goes to stderr; pytest's own "no tests ran" to stdout, shown on failure)
    r = subprocess.run(cmd, cwd=ROOT, env=_env(QK_MUTANTS_JOB=job_path),
                       stdout=subprocess.PIPE, text=True)
    if r.returncode not in (0, 5) or not os.path.exists(out_path):
        sys.stdout.write(r.stdout[-4000:])
        raise SystemExit("mutants: the run itself failed (pytest exit %d)" % r.returncode)
    with open(out_path) as f:
        done = json.load(f)
    # the tests that killed mutants, again, alone, with no mutant
    killers = sorted({r["by"] for r in done["results"].values()
                      if r["outcome"] != "survived" and "::" in r["by"]})
    clean = {}
    if killers:
        with open(job_path, "w") as f:
            json.dump({"mutants": [], "names": tests, "timeouts": timeouts, "jobs": jobs,
                       "verify": killers, "results": clean_path}, f)
        cmd = [PYTEST, "-q", "-s", "-p", "no:cacheprovider"] + sorted(
            {k.split("::")[0] for k in killers})
        r = subprocess.run(cmd, cwd=ROOT, env=_env(QK_MUTANTS_JOB=job_path),
                           stdout=subprocess.PIPE, text=True)
        if r.returncode not in (0, 5) or not os.path.exists(clean_path):
            sys.stdout.write(r.stdout[-4000:])
            raise SystemExit("mutants: the check of the killing tests, with no mutant, "
                             "failed (pytest exit %d)" % r.returncode)
        with open(clean_path) as f:
            clean = json.load(f)["clean"]
    return {int(k): v for k, v in done["results"].items()}, clean


def full_run_summary(run=True):
    """The benchmark's row: the last full run's summary, "fresh" True if the code, tools
    and tests are as they were then; else (``run``) a full run now ("fresh" None), or
    (not ``run``) that last run with "fresh" False, or None when there is none."""
    last = _cached(FULL)
    keys = ("rate", "counted", "survived", "equivalent", "seconds")
    if last is not None and all(isinstance(last.get(k), (int, float)) for k in keys):
        last["fresh"] = last.get("digests") == list(_digests())
        if last["fresh"] or not run:
            return last
    elif not run:
        return None
    main([])
    if not os.path.exists(FULL):
        raise SystemExit("mutants: the full run did not finish cleanly (see above)")
    with open(FULL) as f:
        last = json.load(f)
    last["fresh"] = None
    return last


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="run a fixed N mutants (those whose keys hash lowest), not all: each "
                   "against the test that caught it last (%s) where there is one" % SAMPLE_REL)
    p.add_argument("--recorded", action="store_true",
                   help="with --sample: exit 0 when every sampled mutant has a recorded test "
                   "(or is equivalent), 1 when the sample would need the map; run nothing")
    p.add_argument("--record", action="store_true",
                   help="with --sample: write %s from this run" % SAMPLE_REL)
    p.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="only the files whose path contains TEXT (repeatable)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="mutants at once (default: the cores)")
    p.add_argument("--ids", metavar="N,N,...", help="only these mutants (as --list numbers them)")
    p.add_argument("--deep", action="store_true",
                   help="then run each survivor against every test that reaches it")
    p.add_argument("--json", metavar="FILE", help="also write the summary here")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = p.parse_args(argv)
    if args.json:  # (from the folder it was typed in; the run is from the root, below)
        args.json = os.path.abspath(args.json)
    os.chdir(ROOT)  # (mutmut finds the code to mutate from the working folder)
    if args.sample is not None and args.sample < 1 or args.jobs < 1:
        p.error("--sample and --jobs take 1 or more")
    if (args.record or args.recorded) and not args.sample:
        p.error("--record and --recorded go with --sample N")
    if "" in args.only or args.ids is not None and not args.ids.strip():
        p.error("--only and --ids take something to look for (with neither: every mutant)")
    if args.json and not args.list:  # (before an hour's run, not after it)
        try:
            open(args.json, "a").close()
        except OSError as e:
            p.error("--json %s: %s" % (args.json, e.strerror))
    started = time.monotonic()
    try:
        equivalent = read_equivalent()
    except ValueError as e:
        print("mutants: %s" % e, file=sys.stderr)
        return 2
    mutants = all_mutants(args.only)
    if args.only and not mutants:
        print("mutants: no device file matches %s" % args.only, file=sys.stderr)
        return 2
    if args.list:
        for m in mutants:
            print("#%d %s:%d %s\n%s\n" % (m["id"], m["file"], m["line"], m["function"],
                                           m["diff"]))
        return 0
    full = not args.sample and not args.only and not args.ids
    chosen = mutants
    if args.ids:
        try:
            want = {int(x) for x in args.ids.split(",")}
        except ValueError:
            p.error("--ids takes numbers separated by commas")
        chosen = [m for m in mutants if m["id"] in want]
        if len(chosen) < len(want):
            p.error("no mutant %s (ids are 0..%d: --list)" % (
                ", ".join("#%d" % i for i in sorted(want - {m["id"] for m in chosen})),
                len(mutants) - 1))
    if args.sample:
        chosen = sample_of(chosen, args.sample)
    try:
        record = read_sample() if args.sample else {}
    except ValueError as e:
        print("mutants: %s" % e, file=sys.stderr)
        return 2
    print("mutants: %d mutants of %d device files%s" % (
        len(mutants), len({m["file"] for m in mutants}),
        "; running a fixed %d" % len(chosen) if args.sample else ""), flush=True)
    results = {}
    todo = [m for m in chosen if m["key"] not in equivalent]
    for m in chosen:
        if m["key"] in equivalent:
            results[m["id"]] = {"outcome": "equivalent", "by": equivalent[m["key"]]}
    # the sample: first each mutant against the test that caught it last, with no map
    names, durations, clean, seconds = [], [], {}, {}
    recorded = [m for m in todo if _key_hash(m) in record and args.sample and all(
        os.path.exists(os.path.join(ROOT, t.split("::")[0])) for _, t in record[_key_hash(m)][1])]
    if args.recorded:
        lacking = len(todo) - len(recorded)
        print("mutants: %d of the sample's %d have no recorded test in %s" % (
            lacking, len(todo), SAMPLE_REL), flush=True)
        return 1 if lacking else 0
    if recorded:
        for m in recorded:
            m["tests"] = []
            for sec, test in record[_key_hash(m)][1]:
                if test not in names:
                    names.append(test)
                    durations.append(sec)
                m["tests"].append(names.index(test))
            m["reach"] = len(m["tests"])
            m["ran"] = [names[i] for i in m["tests"]]
            if not m["tests"]:
                results[m["id"]] = {"outcome": "survived", "by": "no test runs this line"}
        print("mutants: %d of them against the tests recorded for each (%s)" % (
            len(recorded), SAMPLE_REL), flush=True)
        seconds.update(zip(names, durations))
        ran, clean = run([m for m in recorded if m["tests"]],
                         {"tests": names, "durations": durations}, args.jobs)
        stale = [i for i, r in ran.items() if r["outcome"] == "stale"]
        if stale:
            print("mutants: %d of them were recorded against tests that are gone (renamed?): "
                  "the map's tests" % len(stale), flush=True)
        results.update({i: r for i, r in ran.items() if r["outcome"] != "stale"})
        # a survivor recorded as one stays one; a mutant whose recorded test no longer
        # catches it (the tests changed) goes to the map's tests
        todo = [m for m in todo if m["id"] not in results or (
            results[m["id"]]["outcome"] == "survived" and m in recorded
            and record[_key_hash(m)][0] == "killed")]
    if todo:  # the rest (all of them but in a sample with a record): the map's tests
        if recorded:
            print("mutants: %d with no recorded test, or whose test caught it no more: "
                  "the map's tests" % len(todo), flush=True)
        cmap = build_map(args.jobs)
        names, durations = cmap["tests"], cmap["durations"]
        mapped = []
        for m in todo:
            m["tests"] = tests_for(m, cmap)
            m["ran"] = [names[i] for i in m["tests"]]
            m["reach"] = len(reaching(m, cmap))
            if not m["tests"]:
                results[m["id"]] = {"outcome": "survived", "by": "no test runs this line"}
            else:
                mapped.append(m)
        ran, more = run(mapped, cmap, args.jobs)
        if any(r["outcome"] == "stale" for r in ran.values()):
            raise SystemExit("mutants: the map names tests pytest did not collect: delete "
                             ".mutation/map.json and run again")
        results.update(ran)
        clean.update(more)
        deep = [m for m in mapped if results[m["id"]]["outcome"] == "survived"
                and m["reach"] > len(m["tests"])]
        if args.deep and deep:
            print("mutants: the %d survivors again, against every test that reaches them"
                  % len(deep), flush=True)
            for m in deep:
                m["tests"] = tests_for(m, cmap, 0)
                m["ran"] = [names[i] for i in m["tests"]]
            ran, more = run(deep, cmap, args.jobs)
            results.update(ran)
            clean.update(more)
        if args.sample and not args.record:
            print("mutants: `python3 tools/dev.py mutants --sample %d --record` writes each "
                  "one's test to %s: CI then needs no map" % (args.sample, SAMPLE_REL),
                  flush=True)
    if args.record:
        seconds.update(zip(names, durations))
        print("mutants: %s: %d sampled mutants and their tests" % (
            SAMPLE_REL, write_sample(chosen, results, seconds)), flush=True)
    return report(chosen, results, clean, equivalent, full, started, args.json)


def report(chosen, results, clean, equivalent, full, started, json_path):
    false_kills = sorted(t for t, ok in clean.items() if not ok)
    counts = {}
    for r in results.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    survivors = [m for m in chosen if results[m["id"]]["outcome"] == "survived"]
    for m in survivors:
        why = results[m["id"]]["by"] or "ran %d of the %d tests that reach it%s" % (
            len(m["tests"]), m["reach"], "" if len(m["tests"]) == m["reach"] else
            ": the fastest (--deep: all)")
        print("\nsurvived: %s:%d (%s)  [%s]\n%s" % (m["file"], m["line"], m["function"], why,
                                                   m["diff"]))
        ran = m.get("ran") or []
        if ran:  # where a test for it would go, and how to try it again
            print("  it ran against: %s%s\n  again: python3 tools/dev.py mutants --ids %d" % (
                ", ".join(ran[:3]), " and %d more" % (len(ran) - 3) if len(ran) > 3 else "",
                m["id"]))
    caught = counts.get("killed", 0) + counts.get("timeout", 0)
    counted = len(chosen) - counts.get("equivalent", 0)
    rate = caught / counted if counted else 1.0
    seconds = time.monotonic() - started
    print("\nmutants: %d run%s: %d killed, %d by a timeout, %d survived, %d equivalent "
          "(tests/equivalent_mutants.txt); %.1f%% of %d caught (budget %d%%) in %d:%02d" % (
              len(chosen), "" if full else " (not the full run: any survivor fails it)",
              counts.get("killed", 0),
              counts.get("timeout", 0), len(survivors), counts.get("equivalent", 0),
              100 * rate, counted, 100 * BUDGET, seconds // 60, seconds % 60))
    stale = [k for k in equivalent if full and not any(m["key"] == k for m in chosen)]
    for k in stale:
        print("mutants: tests/equivalent_mutants.txt lists a mutant that no longer exists:\n%s"
              % k)
    for t in false_kills:
        print("mutants: %s fails with no mutant too: its kills are not real" % t)
    summary = {"mutants": len(chosen), "caught": caught, "counted": counted, "rate": rate,
               "survived": len(survivors), "equivalent": counts.get("equivalent", 0),
               "seconds": round(seconds), "full": full}
    if json_path:
        with open(json_path, "w") as f:
            json.dump(summary, f)
    if full and not false_kills:  # for the benchmark's row, while the code stays as it is
        summary["digests"] = _digests()
        with open(FULL, "w") as f:
            json.dump(summary, f)
    if false_kills or stale:
        return 1
    if full:
        return 0 if rate >= BUDGET else 1
    return 0 if not survivors else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # (--list | head): the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except KeyboardInterrupt:
        print("\nmutants: interrupted", file=sys.stderr)
        sys.exit(130)
    except SystemExit as e:  # a message: the tool could not do its work (2), not survivors (1)
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
    except Exception:  # the tool broke: exit 2 (the test command fails), never 1 (survivors)
        import traceback

        traceback.print_exc()
        sys.exit(2)
