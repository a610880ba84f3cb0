"""settings.toml: every key typed, range-checked and documented; bad input never stops the device.

hardware/start.py ``read(lines)`` gives (the values in ``KEYS`` order, how many lines it
reported) and prints one "settings.toml line N: ..." console line per problem; the device
shows those lines as "error" events and flashes its ring purple, and starts with the
defaults.
"""

import os
import re
import subprocess
import sys

import pytest

import harness
from harness import ROOT, Sim
import hardware.start as start_module
from hardware.settings import KEYS, read
from model import layout  # noqa: E402  (the slots' names)

DEFAULTS = [k[1] for k in KEYS]
INDEX = {k[0]: i for i, k in enumerate(KEYS)}
NUMBER_KEYS = [k for k in KEYS if k[2] <= k[3]]
TEXT_KEYS = [k for k in KEYS if k[2] > k[3]]


def reads(lines, capsys):
    """``read(lines)``: (values, count it returned, the console lines it printed)."""
    capsys.readouterr()
    values, bad = read(lines)
    return values, bad, capsys.readouterr().out.splitlines()


def with_value(key, value):
    out = list(DEFAULTS)
    out[INDEX[key]] = value
    return out


def number_message(line, key, text, low, high, default):
    return "settings.toml line %d: %s = %s is not a whole number from %d to %d; using %r" % (
        line, key, text, low, high, default)


def text_message(line, key, text, default):
    return "settings.toml line %d: %s = %s is not text in double quotes; using %r" % (
        line, key, text, default)


# ------------------------------------------------------------ read(): each key
@pytest.mark.parametrize("key, default, low, high", NUMBER_KEYS, ids=[k[0] for k in NUMBER_KEYS])
def test_every_number_key_reports_bad_values_by_line_and_uses_its_default(key, default, low, high,
                                                                         capsys):
    head = ["# my settings", ""]  # the setting is on line 3
    # the wrong kind: text where a number belongs
    values, bad, out = reads(head + ['%s = "eleven"' % key], capsys)
    assert values == DEFAULTS and bad == 1
    assert out == [number_message(3, key, '"eleven"', low, high, default)]
    # just out of range, either side
    for value in (low - 1, high + 1):
        values, bad, out = reads(head + ["%s = %d" % (key, value)], capsys)
        assert values == DEFAULTS and bad == 1
        assert out == [number_message(3, key, str(value), low, high, default)]
    # the range's ends are accepted, silently
    for value in (low, high):
        values, bad, out = reads(head + ["%s = %d" % (key, value)], capsys)
        assert (values, bad, out) == (with_value(key, value), 0, [])


@pytest.mark.parametrize("key, default, low, high", TEXT_KEYS, ids=[k[0] for k in TEXT_KEYS])
def test_every_text_key_reports_bad_values_by_line_and_uses_its_default(key, default, low, high,
                                                                       capsys):
    head = ["# my settings", ""]
    for bad_text in ("12", "abc", '"abc'):  # a number, unquoted text, an unclosed quote
        values, bad, out = reads(head + ["%s = %s" % (key, bad_text)], capsys)
        assert values == DEFAULTS and bad == 1
        assert out == [text_message(3, key, bad_text, default)]
    # double-quoted text with a trailing comment is read, silently
    values, bad, out = reads(head + ['%s = "abc"  # a comment' % key], capsys)
    assert (values, bad, out) == (with_value(key, "abc"), 0, [])


def test_no_lines_and_comments_only_mean_the_defaults(capsys):
    assert reads([], capsys) == (DEFAULTS, 0, [])
    assert reads(["# nothing set", "", "   "], capsys) == (DEFAULTS, 0, [])


# ------------------------------------------------------ read(): the whole file
def test_lines_that_are_not_settings_are_reported_with_their_line_numbers(capsys):
    lines = [
        "\ufeffQK_PLAYERS = 6",  # 1: a byte order mark (Windows Notepad): reported, line read
        "QK_PLAYRES = 7",  # 2: a misspelt key
        "qk_players = 9",  # 3: wrongly cased: not used
        "this is not a setting",  # 4
        "= 5",  # 5: no key
        "QK_MUTE =",  # 6: no value
        "  # an indented comment",  # 7: fine
        "QK_VOLUME = 3",  # 8: fine, and still read after all of the above
        "[section]",  # 9: CircuitPython reads no key after a table: reported ...
        "QK_BRIGHTNESS = 50",  # 10: ... and this is not read
    ]
    values, bad, out = reads(lines, capsys)
    assert out == [
        "settings.toml line 1: starts with a byte order mark; read without it",
        "settings.toml line 2: unknown key QK_PLAYRES; ignored",
        "settings.toml line 3: qk_players must be upper case (QK_PLAYERS); ignored",
        "settings.toml line 4: not KEY = value; ignored",
        "settings.toml line 5: not KEY = value; ignored",
        number_message(6, "QK_MUTE", "", 0, 1, 0),
        "settings.toml line 9: a [table]; the lines after it are not read, as CircuitPython "
        "does not read them",
    ]
    assert bad == len(out)
    expected = with_value("QK_PLAYERS", 6)
    expected[INDEX["QK_VOLUME"]] = 3
    assert values == expected


def test_a_byte_order_mark_on_a_comment_line_is_still_reported(capsys):
    values, bad, out = reads(["\ufeff# settings", "QK_PLAYERS = 5"], capsys)
    assert values == with_value("QK_PLAYERS", 5) and bad == 1
    assert out == ["settings.toml line 1: starts with a byte order mark; read without it"]


def test_what_circuitpython_writes_is_read(capsys):
    lines = [
        "QK_PLAYERS = 6   # six of us",  # a comment after a number
        'QK_BOARD = "cpb"# no space',  # a comment right after the quote
        'QK_PIN_A = "D#5"',  # a '#' inside the quotes is text
        "  QK_VOLUME=3\r",  # indented, no spaces, a Windows line ending
        "QK_PIXELS = -1",  # negative numbers
        "QK_BRIGHTNESS = 100",
    ]
    values, bad, out = reads(lines, capsys)
    assert (bad, out) == (0, [])
    expected = list(DEFAULTS)
    for key, value in (("QK_PLAYERS", 6), ("QK_BOARD", "cpb"), ("QK_PIN_A", "D#5"),
                       ("QK_VOLUME", 3), ("QK_PIXELS", -1), ("QK_BRIGHTNESS", 100)):
        expected[INDEX[key]] = value
    assert values == expected


def test_a_key_given_twice_is_reported_and_the_first_counts(capsys):
    # TOML allows a key once; a second line is a mistake worth a word, not a silent change
    values, bad, out = reads(["QK_PLAYERS = 6", "# more", "QK_PLAYERS = 3"], capsys)
    assert (values, bad, out) == (with_value("QK_PLAYERS", 6), 1, [
        "settings.toml line 3: QK_PLAYERS is given again; only its first line is read"])
    # the first line rejected: the default, and the second is still not read
    values, bad, out = reads(["QK_PLAYERS = 14", "QK_PLAYERS = 6"], capsys)
    assert values == with_value("QK_PLAYERS", 4) and bad == 2
    assert out[1] == "settings.toml line 2: QK_PLAYERS is given again; only its first line is read"


def test_the_simulators_flags_replace_the_files_line_and_keep_its_line_numbers():
    sim = Sim("QK_PLAYERS = 6\nQK_VOLUME = 99\n", players=3)
    assert sim.game.players == 3
    said = [line for _, line in sim.events if "settings.toml" in line]
    assert said == ["settings.toml line 2: QK_VOLUME = 99 is not a whole number from 0 to 10; "
                    "using 8"]


@pytest.mark.parametrize("line, key, text", [
    ("QK_VOLUME = 0x5", "QK_VOLUME", "0x5"),  # hex: not read (the old reader took it)
    ("QK_MUTE = true", "QK_MUTE", "true"),  # TOML booleans: 0 or 1 instead
    ("QK_MUTE = false", "QK_MUTE", "false"),
    ("QK_VOLUME = 5.0", "QK_VOLUME", "5.0"),  # floats
    ("QK_VOLUME = 5.5", "QK_VOLUME", "5.5"),
    ('QK_PLAYERS = "5"', "QK_PLAYERS", '"5"'),  # a number in quotes is text
    ("QK_PLAYERS = five", "QK_PLAYERS", "five"),
])
def test_hex_booleans_floats_and_quoted_numbers_are_reported_and_the_default_used(line, key, text,
                                                                                  capsys):
    # Behaviour changed on purpose: only whole decimal numbers are read (the old reader
    # took hex and "true"); anything else is reported, with the default it uses.
    _, default, low, high = KEYS[INDEX[key]]
    values, bad, out = reads(["", line], capsys)
    assert values == DEFAULTS and bad == 1
    assert out == [number_message(2, key, text, low, high, default)]


@pytest.mark.parametrize("line", ['CIRCUITPY_WEB_API_PASSWORD = "secret"',
                                  'CIRCUITPY_WIFI_SSID = "home"', "CIRCUITPY_WEB_API_PORT = 80",
                                  'ADAFRUIT_AIO_KEY = "abc"', "some_program_setting = true"])
def test_circuitpythons_own_and_other_programs_settings_are_not_reported(line, capsys):
    # they share the drive's settings.toml: only QK_ keys are the Klaxon's to check
    assert reads([line, "QK_PLAYERS = 5"], capsys) == (with_value("QK_PLAYERS", 5), 0, [])


def test_an_unknown_qk_key_in_any_case_is_reported(capsys):
    values, bad, out = reads(["qk_playres = 5", "Qk_Volume = 3"], capsys)
    assert values == DEFAULTS and bad == 2
    assert out == ["settings.toml line 1: unknown key qk_playres; ignored",
                   "settings.toml line 2: Qk_Volume must be upper case (QK_VOLUME); ignored"]


def test_the_example_settings_file_reads_without_a_report_and_holds_the_defaults(capsys):
    with open(os.path.join(ROOT, "settings.example.toml"), encoding="utf-8") as f:
        values, bad, out = reads(f, capsys)  # as start() reads the drive's file: line by line
    assert (bad, out) == (0, [])
    assert values == DEFAULTS  # the example shows each key at its default


def _documented(key):
    """(default, range) of ``key`` as the README's settings table and settings.example.toml
    state them: README (default cell, range cell), example (value, range in the comment)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        row = re.search(r"^\| `%s` \|[^|]*\|([^|]*)\|([^|]*)\|" % key, f.read(), re.M)
    with open(os.path.join(ROOT, "settings.example.toml"), encoding="utf-8") as f:
        ex = re.search(r"^# (.*)\n%s = (.*)$" % key, f.read(), re.M)
    in_comment = re.search(r"\((-?\d+ to -?\d+|0 or 1)\)$", ex.group(1))
    return ((row.group(1).strip(), row.group(2).strip()),
            ("`%s`" % ex.group(2).strip(), in_comment.group(1) if in_comment else ""))


@pytest.mark.parametrize("key, default, low, high", KEYS, ids=[k[0] for k in KEYS])
def test_the_readme_and_the_example_state_each_keys_default_and_range(key, default, low, high):
    span = "" if low > high else "0 or 1" if (low, high) == (0, 1) else "%d to %d" % (low, high)
    shown = "`%s`" % ('""' if default == "" else default)
    readme_row, example = _documented(key)
    assert readme_row == (shown, span)
    assert example == (shown, span)


# ------------------------------------------------------------ start(): the file
def test_start_reads_settings_toml_on_the_drive_and_no_file_means_the_defaults(tmp_path,
                                                                              monkeypatch, capsys):
    import board

    monkeypatch.chdir(tmp_path)  # the drive's root
    capsys.readouterr()
    parts = start_module.start(read(), board)  # no settings.toml
    assert parts[2] == DEFAULTS and parts[3] == 0  # (board, build, values, reports, ...)
    assert capsys.readouterr().out == ""
    (tmp_path / "settings.toml").write_text("QK_PLAYERS = 6\nQK_VOLUME = 11\n", encoding="utf-8")
    parts = start_module.start(read(), board)
    assert parts[2] == with_value("QK_PLAYERS", 6) and parts[3] == 1
    assert capsys.readouterr().out.splitlines() == [
        number_message(2, "QK_VOLUME", "11", 0, 10, 8)]


def test_a_board_with_no_usable_klaxon_pin_says_what_to_set_and_blinks_instead_of_crashing(
        monkeypatch, capsys):
    import time

    class Bare:  # a board none of the builds knows, with none of their pins
        board_id = "mystery_board"

    class Blinking(Exception):
        pass

    pauses = []

    def sleep(seconds):
        pauses.append(seconds)
        if len(pauses) == 16:
            raise Blinking()

    monkeypatch.setattr(time, "sleep", sleep)
    capsys.readouterr()
    with pytest.raises(Blinking):  # it never returns: it blinks for ever
        start_module.start(read([]), Bare)
    assert capsys.readouterr().out.splitlines()[-1] == (
        "QI Klaxon cannot start: RuntimeError('no Klaxon button pin: set QK_PIN_KLAXON in "
        "settings.toml')")
    assert pauses == ([0.15] * 7 + [1.0]) * 2  # three blinks every two seconds


# ------------------------------------------------------- the device: bad settings
def errors(sim):
    return [f["message"] for _, f in sim.named("error")]


def ring_colours(sim, from_ms, to_ms, step_ms=40):
    """Every colour the ring showed while running from ``from_ms`` to ``to_ms``."""
    seen = set()
    for t in range(from_ms, to_ms, step_ms):
        sim.run_until_ms(t)
        seen |= set(sim.ring())
    return seen


def question_with_a_klaxon(sim, t_ms):
    """The QM (seat 0) asks (B at ``t_ms``), seat 1 answers (A, 400 ms later), seat 2 slams
    the Klaxon (800 ms later): the Klaxon's fields, for each Klaxon or refusal that gave;
    one not within 10 ms of the Klaxon press (another button set it off) comes with its
    time from ``t_ms``."""
    sim.tap("b", t_ms)
    sim.tap("a", t_ms + 400)
    sim.press("klaxon", t_ms + 800, 100)
    sim.run_until_ms(t_ms + 1200)
    return [f if n == "klaxon" and 800 <= t - t_ms <= 810 else (t - t_ms, n, f)
            for t, n, f in sim.records() if t >= t_ms and n in ("klaxon", "refused")]


def test_a_good_file_gives_no_error_and_no_purple():
    # the control for the tests below: purple and errors come from the bad settings
    # (CircuitPython's own keys share the file: not errors)
    sim = Sim('QK_PLAYERS = 4\nQK_VOLUME = 8\nCIRCUITPY_WEB_API_PASSWORD = "secret"\n')
    assert "purple" not in ring_colours(sim, 10, 2000)
    assert errors(sim) == []


def test_a_bad_setting_is_reported_shown_and_the_device_still_works_with_the_default():
    sim = Sim("QK_PLAYERS = 14\nQK_VOLUME = loud\n")
    assert errors(sim) == [
        "settings.toml line 1: QK_PLAYERS = 14 is not a whole number from 2 to 10; using 4",
        "settings.toml line 2: QK_VOLUME = loud is not a whole number from 0 to 10; using 8"]
    assert "purple" in ring_colours(sim, 10, 1900)  # the ring flashes purple for two seconds ...
    assert "purple" not in ring_colours(sim, 2100, 2500)  # ... then shows the game
    assert sim.game.players == 4  # the default
    assert question_with_a_klaxon(sim, 2600) == [{"challenger": 2, "challenged": 1}]
    assert "klaxon" in [name for _, name in sim.sounds()]  # the default volume: heard


def test_a_byte_order_mark_is_reported_and_its_line_still_read():
    sim = Sim("\ufeffQK_PLAYERS = 5\n")
    assert errors(sim) == ["settings.toml line 1: starts with a byte order mark; read without it"]
    assert sim.game.players == 5


@pytest.mark.parametrize("first", [3, 9])  # seats 0 to 2: just beyond, and the highest it reads
def test_first_qm_beyond_the_table_falls_back_to_seat_0(first):
    sim = Sim("QK_PLAYERS = 3\nQK_FIRST_QM = %d\n" % first)
    assert errors(sim) == ["QK_FIRST_QM = %d but there are 3 players; using 0" % first]
    assert sim.game.qm == 0
    assert "purple" in ring_colours(sim, 10, 1000)
    # the last seat is a good first QM: no message
    sim = Sim("QK_PLAYERS = 3\nQK_FIRST_QM = 2\n")
    assert errors(sim) == [] and sim.game.qm == 2


@pytest.mark.parametrize("control, board_name", [("KLAXON", "cpb"), ("A", "simulated"),
                                                 ("B", "simulated")])
def test_an_unknown_pin_name_is_reported_naming_the_key_and_the_pin(control, board_name):
    sim = Sim('QK_PIN_%s = "D99"\n' % control, board_name=board_name)
    assert errors(sim) == ["QK_PIN_%s = 'D99': no such pin on this board" % control]
    assert "purple" in ring_colours(sim, 10, 1000)


@pytest.mark.parametrize("control, board_name", [("KLAXON", "simulated"), ("KLAXON", "cpb"),
                                                 ("KLAXON", "pico"), ("A", "simulated"),
                                                 ("B", "simulated")])
def test_an_unknown_pin_name_falls_back_to_the_builds_own_pin(control, board_name):
    sim = Sim('QK_PIN_%s = "D99"\n' % control, board_name=board_name)
    assert sim.device is not None
    assert question_with_a_klaxon(sim, 2500) == [{"challenger": 2, "challenged": 1}]


def test_klaxon_pin_none_is_refused_with_a_message_and_the_builds_own_pin_used():
    sim = Sim('QK_PIN_KLAXON = "none"\n')
    assert errors(sim) == [
        "QK_PIN_KLAXON = \"none\": the Klaxon is the one button that must be wired; using "
        "the build's own pin"]
    assert "purple" in ring_colours(sim, 10, 1000)
    assert question_with_a_klaxon(sim, 2500) == [{"challenger": 2, "challenged": 1}]


@pytest.mark.parametrize("want", ["pico", "nonsense"])
def test_a_build_the_board_cannot_run_is_reported_and_the_boards_own_build_used(want):
    sim = Sim('QK_BOARD = "%s"\n' % want)  # the simulated board has none of the Pico's GP pins
    assert errors(sim) == [
        "QK_BOARD = '%s': not a build that board OS_AGNOSTIC_BOARD can run from this drive; "
        "using its own" % want]
    assert "purple" in ring_colours(sim, 10, 1000)
    assert question_with_a_klaxon(sim, 2500) == [{"challenger": 2, "challenged": 1}]
    # the simulated build's sound (WAV samples on its audio output), not the Pico's piezo
    assert "klaxon" in [name for _, name in sim.sounds()]


def test_board_overrides_the_build_where_the_board_has_its_pins():
    # (a control for the test above: QK_BOARD is obeyed when it can be) a Circuit Playground
    # Express told to run the Bluefruit's build gets its deep sleep; its own build has none
    assert Sim(board_name="cpx").device.p[layout.SLEEP] is None
    sim = Sim('QK_BOARD = "cpb"\n', board_name="cpx")
    assert errors(sim) == [] and sim.device.p[layout.SLEEP] is not None


def test_an_unknown_board_runs_with_the_picos_pin_names(monkeypatch):
    monkeypatch.setitem(harness.BOARD_IDS, "pico", "some_new_board")
    sim = Sim(board_name="pico")  # the Pico's pins, another board_id
    assert sim.board.board_id == "some_new_board"
    assert question_with_a_klaxon(sim, 500) == [{"challenger": 2, "challenged": 1}]


def test_an_unknown_board_says_so(monkeypatch):
    monkeypatch.setitem(harness.BOARD_IDS, "pico", "some_new_board")
    sim = Sim(board_name="pico")
    assert any("some_new_board" in line for _, line in sim.events)


# ------------------------------------------------------- the device: wiring
def test_pin_b_none_unwires_b_and_a_alone_does_everything_by_how_long_it_is_held():
    # QK_LONG_MS = 1200: A tap = A; A held 1.2 s = B tap; (2.4 s: undo; 3.6 s: A held; ...)
    sim = Sim('QK_PIN_B = "none"\nQK_LONG_MS = 1200\n')
    assert errors(sim) == []
    sim.press("a", 100, 1000)  # shorter than QK_LONG_MS: a tap of A between questions: roll
    sim.run_until_ms(1300)
    assert [e for e in ("roll", "ask") if sim.named(e)] == ["roll"]
    sim.press("a", 1500, 1400)  # held past QK_LONG_MS: B's tap: ask
    sim.run_until_ms(3100)
    assert len(sim.named("ask")) == 1 and sim.game.phase == "answering"
    sim.tap("a", 3200)  # seat 1 answers
    sim.tap("b", 3600)  # the B pin is not read any more: nothing
    sim.run_until_ms(3900)
    assert sim.named("pass") == [] and sim.game.answering == 2
    sim.press("a", 4000, 1400)  # seat 2 passes (B's tap)
    sim.run_until_ms(5600)
    assert [f["seat"] for _, f in sim.named("pass")] == [2]
    sim.press("klaxon", 5700, 100)  # seat 3 challenges the last answer, not the pass
    sim.run_until_ms(5900)
    assert sim.named("klaxon")[-1][1] == {"challenger": 3, "challenged": 1}
    sim.press("a", 6000, 2600)  # held 2.4 s (twice QK_LONG_MS): undo
    sim.run_until_ms(8900)
    assert len(sim.named("undo")) == 1 and sim.game.challenger is None


@pytest.mark.parametrize("board_name", ["cpb", "cpx"])
def test_klaxon_moved_to_the_circuit_playgrounds_own_button_reads_it_the_right_way_round(
        board_name):
    # The built-in button A pulls to +V: pressed reads True, released False.
    import simpins

    sim = Sim('QK_PIN_KLAXON = "BUTTON_A"\nQK_PIN_A = "none"\nQK_PIN_B = "none"\n',
              board_name=board_name)
    pin = sim.board.BUTTON_A.id
    sim.run_until_ms(90)
    assert sim.named("fault") == [] and errors(sim) == []  # released: not "held down"
    assert sim.named("klaxon") == []
    simpins.schedule(pin, 100_000, True)
    simpins.schedule(pin, 250_000, False)
    sim.run_until_ms(400)
    (t, _), = sim.named("klaxon")  # once, as it went down (not as it came up at 250 ms)
    assert 100 <= t <= 110
    sim.press("klaxon", 500, 100)  # the old Klaxon pin (A1) is not read any more
    sim.run_until_ms(800)
    assert len(sim.named("klaxon")) == 1


# ------------------------------------------------------------ tools/simulated/sim.py
def run_sim(*args):
    return subprocess.run([sys.executable, os.path.join("tools", "simulated", "sim.py"), "--wav", ""]
                          + list(args), cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_sim_settings_naming_a_missing_file_exits_2_with_a_message(tmp_path):
    script = tmp_path / "taps.txt"
    script.write_text("100 down klaxon\n200 up klaxon\n")
    missing = str(tmp_path / "no-such-settings.toml")
    r = run_sim("--settings", missing, "--script", str(script))
    assert r.returncode == 2
    assert r.stderr.startswith("sim: ") and missing in r.stderr
    assert r.stdout == ""
    # the same with a file that exists: it is read (its bad line is an error event), exit 0
    settings = tmp_path / "settings.toml"
    settings.write_text("QK_PLAYERS = 14\n")
    r = run_sim("--settings", str(settings), "--script", str(script))
    assert r.returncode == 0, r.stderr
    assert '"event": "error"' in r.stdout and "QK_PLAYERS = 14" in r.stdout


def test_bytes_that_are_not_utf8_or_a_utf16_file_are_reported_never_fatal(capsys):
    values, bad, out = reads([b"QK_PLAYERS = 5 # caf\xe9", b'QK_PIN_A = "\xe9"',
                              b"QK_VOLUME = 1_000"], capsys)
    assert values == with_value("QK_PLAYERS", 5)  # the comment's stray byte does not matter
    assert out == ["settings.toml line 2: not UTF-8 text; ignored",
                   number_message(3, "QK_VOLUME", "1_000", 0, 10, 8)]
    values, bad, out = reads([b"\xff\xfeQ\x00K\x00_\x00"], capsys)
    assert values == DEFAULTS and bad == 1
    assert out == ["settings.toml is UTF-16 text: save it as UTF-8; using the defaults"]


@pytest.mark.parametrize("line, message", [
    ("QK_PLAYERS = \u0665", number_message(1, "QK_PLAYERS", "\u0665", 2, 10, 4)),
    ("QK_PLAYERS = \uff15", number_message(1, "QK_PLAYERS", "\uff15", 2, 10, 4)),
    ("QK PLAYERS = 5", "settings.toml line 1: unknown key QK PLAYERS; ignored"),
    ('"QK_PLAYERS" = 5', 'settings.toml line 1: unknown key "QK_PLAYERS"; ignored'),
    ('QK_BOARD = "a"b"', text_message(1, "QK_BOARD", '"a"b"', "")),
])
def test_near_misses_are_reported_the_same_on_every_runtime(line, message, capsys):
    values, bad, out = reads([line], capsys)
    assert values == DEFAULTS and out == [message]


def test_a_very_long_line_is_reported_short(capsys):
    values, bad, out = reads(["QK_PLAYERS = " + "9" * 5000, "QK_VOLUME = 3"], capsys)
    assert values == with_value("QK_VOLUME", 3)
    assert out == [number_message(1, "QK_PLAYERS", "9" * 20, 2, 10, 4)]
