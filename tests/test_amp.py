"""The amplifier option (issue 32, item 3: louder by a part): a PAM8302 and a 3 W speaker on
every build, as docs/build-guide.md's "Louder" section wires it and docs/wiring-amp.svg
draws it. On the simulated boards: the amplifier's SD pin (the Pico's GP14, the
Bluefruit's pad A2) is on only while a sound plays, the WAV sounds play, the audio output
outlives a garbage collection; the guide's table, the picture and the firmware name the
same pins; the README's battery table adds up; the deploy carries what the option needs.
"""

import gc
import os
import re
import weakref

import pytest

import deploy
import pictures
from harness import ROOT, Sim
from model import layout as Y
from test_docs import _contrast, _svg_shapes, text_of

AMP = 'QK_AUDIO = "amp"\n'
SD_PINS = {"pico": "GP14", "cpb": "A2"}  # docs/build-guide.md's table, the SD row


def lines(sim):
    return [line for _, line in sim.events]


@pytest.mark.parametrize("board", ["pico", "cpb"])
def test_the_amplifier_is_on_only_while_a_sound_plays(board):
    """QK_AUDIO = "amp": nothing said, no purple; the amplifier's SD pin low at start,
    high while the klaxon plays (a WAV), low again once it ends; the Bluefruit's own
    speaker is then not switched on at all."""
    sim = Sim(AMP, klaxon_only=True, board_name=board)
    sim.run_until_ms(50)
    assert lines(sim) == [], lines(sim)
    en = sim.device.p[Y.EN]
    assert en._pin.id == getattr(sim.board, SD_PINS[board]).id
    assert not sim.device.f[Y.TONE]  # the WAV files, through the mixer
    assert sim.speaker_enabled() is False
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(500)
    assert [n for _, n in sim.sounds()] == ["klaxon"] and sim.speaker_enabled() is True
    sim.run_until_ms(2500)
    assert sim.speaker_enabled() is False
    assert sim.device.f[Y.CUR] == Y.NONE


def test_without_the_setting_the_bluefruit_switches_its_own_speaker():
    sim = Sim("", klaxon_only=True, board_name="cpb")
    sim.run_until_ms(50)
    assert sim.device.p[Y.EN]._pin.id == sim.board.SPEAKER_ENABLE.id


@pytest.mark.parametrize("board", ["pico", "cpb"])
def test_the_audio_output_outlives_a_collection(board):
    """The mixer's output is kept: CircuitPython 10's PWMAudioOut deinits itself when it
    is collected (its __del__), and on the real Pico firmware the sound stopped some
    10 ms after start-up (GP15 released) when nothing held it."""
    import audiopwmio

    made = []
    real = audiopwmio.PWMAudioOut

    class Watched(real):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(weakref.ref(self))

    audiopwmio.PWMAudioOut = Watched
    try:
        sim = Sim(AMP, klaxon_only=True, board_name=board)
        sim.run_until_ms(20)
    finally:
        audiopwmio.PWMAudioOut = real
    assert len(made) == 1
    gc.collect()
    assert made[0]() is not None
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(400)
    assert made[0]().playing and [n for _, n in sim.sounds()] == ["klaxon"]


# ------------------------------------------------------------------ the guide and the picture
def _amp_table():
    """docs/build-guide.md's "The amplifier's wiring" rows: {pin: (pico, cpb, cpx)}."""
    guide = text_of("docs/build-guide.md")
    part = guide[guide.index("**The amplifier's wiring.**"):]
    rows = {}
    for m in re.finditer(r"^\| (A\+|A-|SD|Vin|Gnd|setting)(?=[ |])[^|]*\| ([^|]+) \| ([^|]+) \| "
                         r"([^|]+) \|$", part, re.M):
        rows[m.group(1)] = tuple(c.strip() for c in m.groups()[1:])
    return rows


def test_the_guides_table_the_picture_and_the_firmware_name_the_same_pins():
    rows = _amp_table()
    assert list(rows) == list(pictures.AMP_PINS) + ["setting"]
    for pin, pico, cpb, cpx in pictures.AMP_WIRING:
        assert rows[pin][0].startswith(pico), (pin, rows[pin])
        assert rows[pin][1].startswith(cpb) and rows[pin][2].startswith(cpx), (pin, rows[pin])
    # the Pico's pins by number, as its wiring picture numbers them
    for pin, pico, _, _ in pictures.AMP_WIRING:
        name, n = re.fullmatch(r"(\w+) \(pin (\d+)\)", pico).groups()
        assert pictures.PICO_PINS[int(n) - 1] == name, pico
    # the firmware's SD pins and speaker pins are the table's
    from hardware import profile_cpb, profile_pico

    assert rows["SD"][0].startswith(profile_pico.AMP_SD + " ")
    assert rows["SD"][1].startswith("pad " + profile_cpb.AMP_SD)
    assert rows["A+"][0].startswith(profile_pico.PROFILE[5] + " ")
    assert rows["setting"] == ('`QK_AUDIO = "amp"`', '`QK_AUDIO = "amp"`', "none")
    assert "%d Ω resistor" % pictures.AMP_RESISTOR in rows["SD"][0]


def test_the_amplifier_picture_draws_its_pins_in_order_each_wired_and_labelled():
    """The board's header top to bottom as printed on it (A+, A-, SD, Vin, Gnd), each pin
    a wire, and beside each wire what it goes to on each build."""
    page, shapes, words = _svg_shapes("docs/wiring-amp.svg")
    svg = text_of("docs/wiring-amp.svg")
    label_y = {text: y for x, y, size, anchor, fill, text, _ in words if text in pictures.AMP_PINS}
    assert sorted(label_y, key=label_y.get) == list(pictures.AMP_PINS)
    for i, (pin, pico, cpb, cpx) in enumerate(pictures.AMP_WIRING):
        x, y = pictures.amp_pin(i)
        assert label_y[pin] == y + 5
        said = [text for _, wy, _, _, _, text, _ in words if wy == y + 5]
        assert said == [pin, pico, cpb, cpx], (pin, said)
        assert re.search(r'(points="%d,%d |d="M%d %d )' % (x - 8, y, x - 8, y), svg), pin
    assert "470 Ω resistor from SD to Gnd" in svg


def test_the_amplifier_picture_is_readable_at_print_size():
    page, shapes, words = _svg_shapes("docs/wiring-amp.svg")
    for x, y, size, anchor, fill, text, before in words:
        assert size >= 12, text
        px = x + {"start": 2, "middle": 0, "end": -2}[anchor]
        py = y - size / 3
        under = page
        for kind, g, colour in shapes[:before]:
            if kind == "rect" and g[0] <= px <= g[0] + g[2] and g[1] <= py <= g[1] + g[3] or \
                    kind == "circle" and (px - g[0]) ** 2 + (py - g[1]) ** 2 <= g[2] ** 2:
                under = colour
        assert _contrast(fill, under) >= 4.5, (text, fill, under)


# ------------------------------------------------------------------ the batteries
HOURS = (2, 0.25, 168 - 2.25)  # playing, idle awake, asleep: the README's weekly game


def test_the_battery_table_adds_up():
    """Each row of the README's "Sleep and batteries" table: its week is 2 h playing,
    15 idle minutes and the rest asleep at its currents, each rounded as written, and
    what it lasts is 1000 mAh over that week; the amplifier rows are their build's plus
    the amplifier's costs said under the table."""
    readme = text_of("README.md")
    part = readme[readme.index("## Sleep and batteries"):readme.index("## Troubleshooting")]
    rows = re.findall(r"^\| ([^|]+) \| ([\d.]+) mA \| ([\d.]+) mA \| ([^|]+) \| ([^|]+) \| "
                      r"([^|]+) \|$", part, re.M)
    assert len(rows) == 8
    got = {}
    for name, play, idle, asleep, week, lasts in rows:
        play, idle = float(play), float(idle)
        sleep = re.match(r"([\d.]+) mA", asleep)
        parts = [float(v) for v in re.findall(r"([\d.]+)(?= \+| =)", week)]
        total = float(re.search(r"= ([\d.]+) mAh", week).group(1))
        assert abs(parts[0] - HOURS[0] * play) < 0.5 and abs(parts[1] - HOURS[1] * idle) < 0.5
        if sleep:
            assert abs(parts[2] - HOURS[2] * float(sleep.group(1))) < 0.5, name
            assert len(parts) == 3
        else:
            assert len(parts) == 2 and "switch" in asleep
        assert abs(sum(parts) - total) <= 0.5, name
        weeks = re.match(r"~(\d+)(½?) weeks", lasts)
        said = int(weeks.group(1)) + (0.5 if weeks.group(2) else 0)
        assert abs(1000 / total - said) < 0.5, (name, 1000 / total)
        if not sleep:  # left on: days at the idle current
            days = int(re.search(r"~(\d+) days if left on", lasts).group(1))
            assert abs(1000 / idle / 24 - days) < 0.5, name
        got[name.strip()] = (play, idle, float(sleep.group(1)) if sleep else None)
    # the amplifier: +4.6 mA playing, +0.4 idle and asleep where SD switches it (Bluefruit,
    # Pico); +8.2 playing, +4 idle where it is on all the while (the Express)
    for base, amp, d_play, d_idle, d_sleep in (
            ("Circuit Playground Bluefruit", "Bluefruit with the amplifier", 4.6, 0.4, 0.4),
            ("Raspberry Pi Pico", "Pico with the amplifier", 4.6, 0.4, 0.4),
            ("Raspberry Pi Pico 2", "Pico 2 with the amplifier", 4.6, 0.4, None),
            ("Circuit Playground Express", "Express with the amplifier", 8.2, 4, None)):
        (p0, i0, s0), (p1, i1, s1) = got[base], got[amp]
        assert abs(p1 - p0 - d_play) <= 0.5 and abs(i1 - i0 - d_idle) < 0.05, amp
        assert (s1 is None) == (d_sleep is None) and (s1 is None or abs(s1 - s0 - d_sleep) < 0.05)
    assert "0.4 mA" in part and "4 mA" in part and "4.2 mA" in part


def test_the_off_amplifiers_cost_is_its_boards_pull_up_into_the_resistor():
    """0.4 mA: the 3xAAA pack (4.5 V fresh, 4.2 V through the Pico's diode) across the
    PAM8302 board's 10 kOhm pull-up on SD and the 470 Ohm resistor; SD then well under
    0.4 V (off), and a 3.3 V pin drives SD high with ~7 mA."""
    for volts in (4.2, 4.5):
        assert round(volts / (10000 + pictures.AMP_RESISTOR) * 1000, 1) in (0.4, 0.43)
        assert volts * pictures.AMP_RESISTOR / (10000 + pictures.AMP_RESISTOR) < 0.25


# ------------------------------------------------------------------ the deploy
def test_the_deploy_carries_what_the_amplifier_needs_and_the_guide_says_so(tmp_path):
    """A Pico's zip (no settings) has no WAV sounds and no mixer; the one command with
    QK_AUDIO = "amp" on the drive copies both; the guide's amplifier section says so where
    the maker builds it. The Bluefruit's plan has them without the setting."""
    board_id = {"pico": "raspberry_pi_pico", "cpb": "circuitplayground_bluefruit"}

    def rels(board, settings):
        return {rel for _, rel, _ in deploy.plan(str(tmp_path), board_id[board], settings)}

    plain, amp = rels("pico", ""), rels("pico", AMP)
    assert not [r for r in plain if r.startswith("sounds/") or "mixer" in r]
    assert "hardware/mixer.py" in amp and "sounds/klaxon.wav" in amp
    assert "hardware/mixer.py" in rels("cpb", "") and "sounds/klaxon.wav" in rels("cpb", "")
    guide = " ".join(text_of("docs/build-guide.md").split())
    part = guide[guide.index("## Louder"):guide.index("## The arcade button")]
    assert "the Pico's zip has no recorded sounds" in part
    assert 'set `QK_AUDIO = "amp"` in `settings.toml` first, then use the one command, ' \
           '`python3 tools/dev.py deploy`' in part
    assert os.path.exists(os.path.join(ROOT, "hardware", "mixer.py"))


def test_too_quiet_is_answered_in_order_and_linked_from_the_readme():
    page = text_of("docs/troubleshooting.md")
    part = page[page.index("## Too quiet?"):]
    part = part[:part.index("\n## ")]
    order = [part.index(w) for w in ("slide switch", "`QK_VOLUME = 10`", "**GP14**",
                                     "A hole over the speaker", "An amplifier")]
    assert order == sorted(order)
    assert "docs/troubleshooting.md#too-quiet" in text_of("README.md")
    assert "build-guide.md#louder-an-amplifier-and-a-speaker-every-build" in part
