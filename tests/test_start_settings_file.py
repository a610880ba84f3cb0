"""settings.toml as makers really write it (issue 26's mutation run found these untested):
comments that hold "=" or quotes after a value, a key given twice with others between,
another program's one-letter key, stray bytes, UTF-16 files with or without their mark,
and a line too long for the board's RAM. Each line the firmware cannot use is said once,
with its own line number, and counted; the ring flashes purple whenever any was; every
other line is still read.

hardware/settings.py ``read(lines)`` gives (the values in ``KEYS`` order, how many lines
it reported); the Sim tests feed the same text to the whole simulated device.
"""

import pytest

from harness import Sim
from hardware.settings import KEYS, read
from test_settings import errors, ring_colours

DEFAULTS = [k[1] for k in KEYS]
INDEX = {k[0]: i for i, k in enumerate(KEYS)}


def values_with(**changed):
    out = list(DEFAULTS)
    for key, value in changed.items():
        out[INDEX[key]] = value
    return out


def reads(lines, capsys):
    """``read(lines)``: (values, the count it returned, the console lines it printed)."""
    capsys.readouterr()
    values, bad = read(lines)
    return values, bad, capsys.readouterr().out.splitlines()


# ------------------------------------------------------------ comments after a value
def test_comments_after_a_value_may_hold_equals_signs_and_quotes(capsys):
    lines = [
        "QK_VOLUME = 3  # was = 5",  # an "=" in the comment: the key is still QK_VOLUME
        "QK_LONG_MS = 2000  # two seconds",  # a number of several digits, then a comment
        'QK_BOARD = "cpb"  # the "flagship"',  # quotes in the comment after a text value
        'QK_PIN_A = ""  # or "none" to unwire it',  # empty text, quotes in its comment
        'QK_STUCK_S = 20  # "stuck" after that',  # quotes in the comment after a number
    ]
    assert reads(lines, capsys) == (values_with(QK_VOLUME=3, QK_LONG_MS=2000, QK_BOARD="cpb",
                                                QK_STUCK_S=20), 0, [])


def test_a_long_unknown_key_is_named_by_its_first_40_characters(capsys):
    key = "QK_" + "ABCDEFGHIJ" * 5
    values, bad, out = reads(["%s = 1" % key], capsys)
    assert (values, bad) == (DEFAULTS, 1)
    assert out == ["settings.toml line 1: unknown key %s; ignored" % key[:40]]


def test_other_programs_keys_of_one_letter_are_not_the_klaxons_to_report(capsys):
    assert reads(["N=3", "x=1", "QK_PLAYERS = 5"], capsys) == (values_with(QK_PLAYERS=5), 0, [])


def test_a_key_given_again_after_other_keys_is_still_reported_and_its_first_line_counts(capsys):
    values, bad, out = reads(["QK_PLAYERS = 6", "QK_VOLUME = 3", "QK_MUTE = 1",
                              "QK_PLAYERS = 3", "QK_VOLUME = 9"], capsys)
    assert values == values_with(QK_PLAYERS=6, QK_VOLUME=3, QK_MUTE=1)
    assert out == ["settings.toml line 4: QK_PLAYERS is given again; only its first line is read",
                   "settings.toml line 5: QK_VOLUME is given again; only its first line is read"]
    assert bad == 2


# ------------------------------------------------------------ stray bytes, UTF-16
def test_every_reported_line_is_counted_whatever_came_before_it(capsys):
    # read() returns how many lines it reported: a mark on line 1, bad values, stray bytes
    lines = ["\ufeffQK_PLAYERS = 12", "QK_VOLUME = loud", b'QK_PIN_B = "\xe9"',
             b"QK_PIN_A = \"\xff\"", "QK_MUTE = 2"]
    values, bad, out = reads(lines, capsys)
    assert values == DEFAULTS
    assert out[3:5] == ["settings.toml line 3: not UTF-8 text; ignored",
                        "settings.toml line 4: not UTF-8 text; ignored"]
    assert len(out) == 6 and bad == 6  # (line 1: its mark, and its value)


def test_a_stray_byte_in_the_simulators_settings_is_reported_as_the_board_reports_it():
    # tools/simulated/sim.py hands the firmware a file's stray bytes as surrogate escapes (text), the
    # board reads them as bytes: the same lines, the same words
    sim = Sim('QK_PLAYERS = 5  # caf\udce9\nQK_PIN_B = "\udce9"\nQK_VOLUME = 11\n')
    assert errors(sim) == [
        "settings.toml line 2: not UTF-8 text; ignored",
        "settings.toml line 3: QK_VOLUME = 11 is not a whole number from 0 to 10; using 8"]
    assert sim.game.players == 5  # the stray byte in a comment does not matter
    assert "purple" in ring_colours(sim, 10, 400)


def test_a_stray_byte_with_one_more_mistake_still_flashes_purple():
    sim = Sim('QK_PIN_B = "\udce9"\nQK_FIRST_QM = 7\n', players=3)
    assert errors(sim) == ["settings.toml line 1: not UTF-8 text; ignored",
                           "QK_FIRST_QM = 7 but there are 3 players; using 0"]
    assert "purple" in ring_colours(sim, 10, 400)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_file_with_its_mark_is_reported_once_and_the_defaults_used(codec, capsys):
    data = ("\ufeffQK_PLAYERS = 6\nQK_VOLUME = 3\n").encode(codec)
    values, bad, out = reads(data.splitlines(True), capsys)
    assert (values, bad) == (DEFAULTS, 1)
    assert out == ["settings.toml is UTF-16 text: save it as UTF-8; using the defaults"]


def test_a_utf16_file_without_its_mark_is_reported_line_by_line(capsys):
    data = "QK_PLAYERS = 6\n# a comment\nQK_VOLUME = 3\n".encode("utf-16-le")
    values, bad, out = reads(data.split(b"\n"), capsys)  # as the board splits it: at b"\n"
    assert values == DEFAULTS
    # (line 4: the last newline's second byte, a NUL)
    assert out == ["settings.toml line %d: not UTF-8 text; ignored" % n for n in (1, 2, 3, 4)]
    assert bad == 4


# ------------------------------------------------------------ a line too long for the RAM
class _Lines:
    """A file's lines, as the board reads them, where reading line ``long`` runs out of RAM
    (a MemoryError as the line is read: the board's ``readline`` for a line of ~10,000
    bytes on the Express)."""

    def __init__(self, lines, long):
        self.lines, self.long = lines, long

    def __iter__(self):
        for n, line in enumerate(self.lines, 1):
            if n == self.long:
                raise MemoryError()
            yield line


class _Held(bytes):
    """A line read whole, which then runs out of RAM as it is worked on (the Express:
    a line of 3,000 to 8,000 bytes reads, and its first copy does not fit)."""

    def strip(self, *args):
        raise MemoryError()


MEMORY_MESSAGE = "settings.toml line %d: too long to read; the lines after it are not read"


@pytest.mark.parametrize("long", [1, 3])
def test_a_line_too_long_to_read_is_named_by_its_own_number_and_the_lines_before_it_count(
        long, capsys):
    lines = ["QK_PLAYERS = 11", "QK_VOLUME = 3", "# " + "x" * 80, "QK_MUTE = 1"]
    values, bad, out = reads(_Lines(lines, long), capsys)
    if long == 1:
        assert (values, out) == (DEFAULTS, [MEMORY_MESSAGE % 1])
    else:  # lines 1 and 2 were read (line 1's mistake said), line 4 is not
        assert values == values_with(QK_VOLUME=3)
        assert out[1:] == [MEMORY_MESSAGE % 3]
    assert bad == len(out)


def test_a_line_read_whole_but_too_long_to_work_on_is_named_by_its_own_number(capsys):
    lines = [b"QK_PLAYERS = 11", b"QK_VOLUME = 3", _Held(b"# " + b"x" * 80), b"QK_MUTE = 1"]
    values, bad, out = reads(lines, capsys)
    assert values == values_with(QK_VOLUME=3)
    assert out[1:] == [MEMORY_MESSAGE % 3] and bad == 2
