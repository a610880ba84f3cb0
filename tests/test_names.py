"""Every slot, op code, colour and field named once (model/layout.py), at no RAM cost.

Each device module holds the names it uses as private ``_NAME = const(n)``: they
compile to the bare number (CircuitPython's mpy-cross drops them), so the board
pays nothing for them. This test reads each device module's source (``ast``) and
holds it to the layout:

- every ``_NAME = const(n)`` is ``layout.NAME`` (same value), and every const is
  private (a public one would be a global in the board's RAM);
- ``from micropython import const`` sits under ``if __debug__:``, which the
  Express's ``mpy-cross -O3`` drops (the import would cost bytecode and a global);
- no bare number indexes the named arrays (``NAMED``), as a subscript or inside one
  (``S[9 + s]``: ``S[_DID + s]``), slices included, unless it offsets a named slot
  (``f[_LV + 1]``: the second button's level);
- no bare number is in the first argument of ``act``, ``out`` or ``more`` (the op
  code, the console word, the overlay).

Each module's block of those consts is made by tools/gen/consts.py from the layout (``python3
tools/dev.py regen``); a test holds every block to what it makes, naming the field.

It also holds the firmware's own tables to the layout where they are data, not
names: core.py's ``_LEN``, the console words, the settings' and profiles' order.
"""

import ast
import contextlib
import glob
import io
import os

import pytest

from model import layout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What the board runs (the host's model/ is not)
DEVICE_FILES = sorted(
    glob.glob(os.path.join(ROOT, "hardware", "*.py")) + glob.glob(os.path.join(ROOT, "lib", "*.py"))
    + [os.path.join(ROOT, "safemode.py")]
    + [p for p in glob.glob(os.path.join(ROOT, "lib", "qiklaxon", "*.py"))
       if os.path.basename(p) != "__init__.py"]
    # (and the web page's side: it runs in MicroPython, where the layout is not staged)
    + [os.path.join(ROOT, "web", "page.py")])

# The arrays whose slots are named, by the name the modules give them (a variable, or the
# attribute: self.S, r.u, d.f ...)
NAMED = {
    "S": "the referee's state (S slots)",
    "B": "the state before the log (S slots)",
    "u": "what is being entered (u slots)",
    "j": "the saved game (J_ slots)",
    "p": "the Device's parts",
    "f": "the Device's flags (F slots)",
    "t": "the Device's times (T slots)",
    "prof": "the profile (P_ fields)",
    "PROFILE": "the profile (P_ fields)",
    "v": "the settings (QK_ keys)",
}
CALLS = ("act", "out", "more")  # op code, console word, overlay: always by name


def _name_of(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _numbers(node):
    """The int literals in an expression (True/False are not numbers here)."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant) and type(n.value) is int]


def problems(source, where="<source>"):
    """What in a device module's source breaks the rules above, one line each."""
    tree = ast.parse(source)
    out = []
    guarded = unguarded = False
    for node in tree.body:  # the import of const: only under ``if __debug__:``
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and \
                node.test.id == "__debug__":
            guarded = guarded or any(isinstance(n, ast.ImportFrom) and n.module == "micropython"
                                     for n in node.body)
        elif isinstance(node, ast.ImportFrom) and node.module == "micropython":
            unguarded = True
            out.append("%s:%d: 'from micropython import const' outside 'if __debug__:' "
                       "(the board would pay for it)" % (where, node.lineno))
    consts = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                _name_of(node.value.func) == "const":
            consts += 1
            name = node.targets[0].id
            try:
                value = ast.literal_eval(node.value.args[0])
            except ValueError:
                value = None
            if not name.startswith("_"):
                out.append("%s:%d: %s = const(...) is public: a global in RAM; make it _%s"
                           % (where, node.lineno, name, name))
            elif not hasattr(layout, name[1:]):
                out.append("%s:%d: %s is not in model/layout.py" % (where, node.lineno,
                                                                          name))
            elif getattr(layout, name[1:]) != value:
                out.append("%s:%d: %s = const(%r) but layout.%s is %r" % (
                    where, node.lineno, name, value, name[1:], getattr(layout, name[1:])))
        elif isinstance(node, ast.Subscript) and _name_of(node.value) in NAMED:
            if any(isinstance(n, ast.Name) and n.id.startswith("_") for n in ast.walk(node.slice)):
                continue  # a number offsets a named slot: f[_LV + 1], the second button's
            for n in _numbers(node.slice):
                out.append("%s:%d: bare %d indexes %s (%s)" % (
                    where, node.lineno, n.value, _name_of(node.value), NAMED[_name_of(node.value)]))
        elif isinstance(node, ast.Call) and _name_of(node.func) in CALLS and node.args:
            for n in _numbers(node.args[0]):
                out.append("%s:%d: bare %d in %s()'s first argument" % (
                    where, node.lineno, n.value, _name_of(node.func)))
    if consts and not guarded and not unguarded:
        out.append("%s: uses const() but does not import it under 'if __debug__:' (CPython "
                   "needs it)" % where)
    return out


@pytest.mark.parametrize("path", DEVICE_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_a_device_module_names_its_numbers_as_the_layout_does(path):
    with open(path) as f:
        found = problems(f.read(), os.path.relpath(path, ROOT))
    assert not found, "\n".join(found)


def test_every_device_modules_block_is_what_the_generator_makes():
    """No hand-copied names: each block is tools/gen/consts.py's, from the layout."""
    import consts

    table = consts.names()
    found = []
    for rel in consts.device_files():
        with open(os.path.join(ROOT, rel)) as f:
            found += consts.differences(rel, f.read(), table)
    assert not found, "\n".join(found) + "\n(python3 tools/dev.py regen remakes them)"
    assert set(DEVICE_FILES) <= {os.path.join(ROOT, r) for r in consts.device_files()}


def test_a_block_that_differs_is_named_field_by_field():
    """A wrong value, a name used but missing, one no longer used, one not in the layout:
    each named; the generator's block fixes them all."""
    import consts

    table = consts.names()
    with open(os.path.join(ROOT, "lib", "qiklaxon", "core.py")) as f:
        clean = f.read()
    assert consts.differences("core.py", clean, table) == []
    for good, bad, want in (
            ("_PHASE = const(2)", "_PHASE = const(3)", "core.py: _PHASE = const(3) but "
             "layout.PHASE is 2"),
            ("_PHASE = const(2)\n", "", "core.py: uses _PHASE but its "
             "block lacks it (layout: PHASE = 2)"),
            ("_QM = const(1)", "_QM = const(1)\n_CUR = const(3)", "core.py: its block holds "
             "_CUR, which the module no longer uses"),
            ("_QM = const(1)", "_QM = const(1)\n_NOPE = const(3)", "core.py: its block holds "
             "_NOPE, which is not in model/layout.py"),
            ("# (end of the names)", "# (the end)", "a block's begin marker without its "
             "end")):
        assert good in clean, good
        broken = clean.replace(good, bad, 1)
        try:
            found = consts.differences("core.py", broken, table)
        except ValueError as e:
            found = [str(e)]
        assert any(want in line for line in found), (bad, found)
        if "marker" not in want:
            assert consts.make(broken, table) == clean  # the generator puts it right
    # a module that uses the layout's names with no block at all is named too
    assert consts.differences("x.py", "y = S[_PHASE]\n", table) == [
        "x.py: uses _PHASE of model/layout.py but has no made block (markers: %r)"
        % consts.BEGIN.splitlines()[0]]


def test_the_check_finds_a_bare_index_an_op_code_and_a_wrong_copy(tmp_path):
    """Planted in a copy of core.py: each is reported, and nothing else."""
    with open(os.path.join(ROOT, "lib", "qiklaxon", "core.py")) as f:
        clean = f.read()
    assert not problems(clean)
    for good, bad, want in (
            ("S[_PHASE]", "S[2]", "bare 2 indexes S"),
            ("S[_DID + w]", "S[9 + w]", "bare 9 indexes S"),
            ("u[_WHAT]", "u[0]", "bare 0 indexes u"),
            ("self.act(_OP_ASK)", "self.act(2)", "bare 2 in act()"),
            ("self.out(_W_UNDO)", "self.out(7)", "bare 7 in out()"),
            ("self.more(_OV_UNDO)", "self.more(0)", "bare 0 in more()"),
            ("_PHASE = const(2)", "_PHASE = const(3)", "_PHASE = const(3) but layout.PHASE is 2"),
            ("_PHASE = const(2)", "PHASE = const(2)", "is public"),
            ("if __debug__:  # CPython", "if True:  # CPython", "under 'if __debug__:'")):
        assert good in clean, good
        copy = tmp_path / "core.py"
        copy.write_text(clean.replace(good, bad, 1))
        found = problems(copy.read_text(), str(copy))
        assert found and all(want in line for line in found), (bad, found)


def test_the_log_bytes_and_phases_are_the_layouts():
    from qiklaxon import core

    assert core._LEN == bytes(layout.OP_LOG_BYTES)
    assert len(layout.OP_LOG_BYTES) == layout.OP_NEW + 1
    with open(core.__file__) as f:  # the tables the board keeps as bytes: the layout's
        tables = [n.value for n in ast.walk(ast.parse(f.read()))
                  if isinstance(n, ast.Constant) and isinstance(n.value, bytes)]
    assert bytes(layout.OP_PHASE) in tables  # the phase each op needs
    assert bytes(layout.W_THEN_AT) in tables  # the words after which the seats are told


def test_each_console_word_is_the_layouts():
    from qiklaxon.core import Referee

    r = Referee(4)
    for i, word in enumerate(layout.WORDS):
        if i < layout.W_REFUSED:
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            if i == layout.W_REFUSED:
                r.out(i, layout.GAME_OVER)
            else:
                r.out(i)
        lines = buf.getvalue().splitlines()
        assert lines[0].startswith(word), (i, word, lines)
        assert (len(lines) > 1 and lines[1].startswith("at ")) == (i in layout.W_THEN_AT), (
            i, lines)
        if i == layout.W_REFUSED:
            assert lines[0] == "refused " + layout.WORDS[layout.GAME_OVER - 2]


def test_the_settings_and_profile_fields_are_in_the_layouts_order():
    import simprofiles
    from hardware import settings

    assert tuple(k[0] for k in settings.KEYS) == layout.SETTINGS
    assert simprofiles.FIELDS == layout.PROFILE_FIELDS
    for name in layout.SETTINGS:
        assert layout.SETTINGS[getattr(layout, name)] == name
    for path in glob.glob(os.path.join(ROOT, "hardware", "profile_*.py")):
        mod = {}
        with open(path) as f:
            exec(compile(f.read(), path, "exec"), mod)
        assert len(mod["PROFILE"]) == len(layout.PROFILE_FIELDS), path


def test_the_device_arrays_are_as_long_as_the_layout_says():
    from qiklaxon.core import Referee

    r = Referee(4)
    assert len(r.S) == len(r.B) == layout.S_SLOTS
    assert len(r.u) == layout.U_SLOTS
    assert len(r.P) == len(r.Q) == layout.SEATS
    assert len(r.L) == layout.LOG_SIZE + max(layout.OP_LOG_BYTES)
    import hardware.device as device

    for name in dir(layout):  # device.py's own names are the layout's (CPython sees them)
        if hasattr(device, "_" + name) and name.isupper():
            assert getattr(device, "_" + name) == getattr(layout, name), name


# ------------------------------------------------------- start-up's parts, field by field
def _start_up_parts(settings, die):
    """Each step's answer on the simulated board, as code.py runs them: (start.py's,
    outputs.py's, restore.py's), and the board."""
    from harness import Sim

    Sim(settings)  # the simulated board, its clock and pins (and a first start)
    import board
    import hardware.settings
    import hardware.start

    st = hardware.start.start(hardware.settings.read(settings.split("\n")), board, die)
    import hardware.outputs

    game = hardware.outputs.start(st)
    import qiklaxon.restore

    return st, game, qiklaxon.restore.restore(game), board


def _wrong_fields(st, game, parts, board, die, want):
    """Each field of the steps' answers that is not what its name (model/layout.py)
    says, one line each: a producer and a consumer that disagree are named here."""
    import adafruit_debouncer
    import digitalio
    from qiklaxon.core import Referee

    L = layout
    prof = st[L.ST_MOD].PROFILE if hasattr(st[L.ST_MOD], "PROFILE") else None
    checks = [
        ("start.py's ST_PARTS", len(st) == L.ST_PARTS, len(st)),
        ("ST_BOARD: the board module", st[L.ST_BOARD] is board, st[L.ST_BOARD]),
        ("ST_MOD: the build's profile module", prof is not None, st[L.ST_MOD]),
        ("ST_V: the settings", isinstance(st[L.ST_V], list) and len(st[L.ST_V]) ==
         len(L.SETTINGS) and st[L.ST_V][L.QK_PLAYERS] == want["players"], st[L.ST_V]),
        ("ST_BAD: the lines reported", st[L.ST_BAD] == 0, st[L.ST_BAD]),
        ("ST_FIRST: the first QM", st[L.ST_FIRST] == want["first"], st[L.ST_FIRST]),
        ("ST_K: the Klaxon's Debouncer", isinstance(st[L.ST_K], adafruit_debouncer.Debouncer),
         st[L.ST_K]),
        ("ST_KP: (its DigitalInOut, pin, pressed reads high?)", isinstance(st[L.ST_KP], tuple)
         and isinstance(st[L.ST_KP][0], digitalio.DigitalInOut), st[L.ST_KP]),
        ("ST_KEYS: buttons A, B", isinstance(st[L.ST_KEYS], list) and all(
            isinstance(b[L.B_IO], digitalio.DigitalInOut) for b in st[L.ST_KEYS]),
         st[L.ST_KEYS]),
        ("ST_DICE: the die", st[L.ST_DICE] is die, st[L.ST_DICE]),
        ("outputs.py's GAME_PARTS", len(game) == L.GAME_PARTS, len(game)),
        ("K: the Klaxon's Debouncer", game[L.K] is st[L.ST_K], game[L.K]),
        ("R: no referee yet", game[L.R] is None, game[L.R]),
        ("BUT: the buttons", game[L.BUT] is st[L.ST_KEYS], game[L.BUT]),
        ("SND: the sounds", isinstance(game[L.SND], tuple) and len(game[L.SND]) >
         L.SOUND_UNDONE, game[L.SND]),
        ("EN: the speaker enable pin", (game[L.EN] is None) == (prof[L.P_SPEAKER_ENABLE] is
                                                              None), game[L.EN]),
        ("SW: the slide switch", (game[L.SW] is None) == (prof[L.P_SWITCH] is None),
         game[L.SW]),
        ("PX: the pixels", (game[L.PX] is None) == (not prof[L.P_PIXELS][L.PX_COUNT]) and (
            game[L.PX] is None or len(game[L.PX]) == prof[L.P_PIXELS][L.PX_COUNT]), game[L.PX]),
        ("LED: the LED", (game[L.LED] is None) == (prof[L.P_LED] is None), game[L.LED]),
        ("SLEEP: sleep(device, now)", (game[L.SLEEP] is None) == (not prof[L.P_SLEEP]),
         game[L.SLEEP]),
        ("WD: the watchdog", (game[L.WD] is None) == (not prof[L.P_WATCHDOG]), game[L.WD]),
        ("FLAGS: Device.f", isinstance(game[L.FLAGS], bytearray) and len(game[L.FLAGS]) ==
         L.F_SLOTS, game[L.FLAGS]),
        ("TIMES: Device.t", isinstance(game[L.TIMES], list) and len(game[L.TIMES]) ==
         L.T_SLOTS and game[L.TIMES][L.GL] == st[L.ST_V][L.QK_GLITCH_MS] + 1, game[L.TIMES]),
        ("GAME_V: the settings", game[L.GAME_V] is st[L.ST_V], game[L.GAME_V]),
        ("GAME_QM: the first QM", game[L.GAME_QM] == want["first"], game[L.GAME_QM]),
        ("GAME_NVM: the saved game's layout", game[L.GAME_NVM] is prof[L.P_NVM],
         game[L.GAME_NVM]),
        ("GAME_DICE: the die", game[L.GAME_DICE] is die, game[L.GAME_DICE]),
        ("restore.py's parts: K to TIMES", len(parts) == L.TIMES + 1, len(parts)),
        ("R: the referee", isinstance(parts[L.R], Referee) and tuple(
            parts[L.R].S[L.PLAYERS:L.QM + 1]) == (want["players"], want["first"]) and
         parts[L.R].S[L.FINISH] << 8 | parts[L.R].S[L.FINISH_LO] == want["finish"],
         parts[L.R]),
    ] + [("%s: as outputs.py's" % n, parts[getattr(L, n)] is game[getattr(L, n)],
          parts[getattr(L, n)]) for n in ("K", "BUT", "OUT", "SND", "EN", "SW", "PX", "LED",
                                          "SLEEP", "WD", "FLAGS", "TIMES")]
    return ["%s is not: %r" % (what, got) for what, ok, got in checks if not ok]


def test_each_start_up_part_is_the_field_its_name_says():
    """hardware/start.py -> hardware/outputs.py -> qiklaxon/restore.py -> the Device: each
    step's answer read by the layout's names; a field in the wrong place is named."""
    import scenario

    die = scenario.dice(3)
    want = {"players": 6, "first": 2, "finish": 40}
    st, game, parts, board = _start_up_parts(
        "QK_PLAYERS = 6\nQK_FIRST_QM = 2\nQK_FINISH = 40\n", die)
    assert _wrong_fields(st, game, parts, board, die, want) == []
    # two fields swapped by a producer: both named
    swap = list(game)
    swap[layout.GAME_QM], swap[layout.GAME_NVM] = swap[layout.GAME_NVM], swap[layout.GAME_QM]
    found = _wrong_fields(st, tuple(swap), parts, board, die, want)
    assert [line.split(":")[0] for line in found] == ["GAME_QM", "GAME_NVM"], found
    short = st[:layout.ST_FIRST] + st[layout.ST_FIRST + 1:] + (None,)  # one left out
    found = _wrong_fields(short, game, parts, board, die, want)
    assert "ST_FIRST: the first QM is not: " in found[0] and len(found) >= 4, found


def test_no_record_is_unpacked_by_position():
    """Settings and parts are read by name: a tuple target of four or more names from one
    name (``a, b, c, d = p``) is a record unpacked by its places."""
    for path in DEVICE_FILES:
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
                assert not (len(node.targets[0].elts) > 3 and isinstance(
                    node.value, ast.Name)), "%s:%d: a record unpacked by position" % (
                    os.path.relpath(path, ROOT), node.lineno)
