"""settings.toml: every key typed, range-checked and documented; bad input never stops the device."""

import pytest

from harness import Sim
from hardware import settings as S

GOOD = {S.INT: None, S.BOOL: 1, S.TEXT: '"x"'}


@pytest.mark.parametrize("key, kind, default, low, high, doc", S.KEYS)
def test_every_key_rejects_bad_values_with_a_message_naming_key_and_value(key, kind, default, low,
                                                                          high, doc):
    assert doc  # documented
    bad = '"eleven"' if kind != S.TEXT else "12"
    s = S.Settings("%s = %s\n" % (key, bad))
    assert s.get(key) == default
    assert len(s.errors) == 1 and key in s.errors[0] and ("eleven" in s.errors[0] or "12" in s.errors[0])
    if kind == S.INT:
        for value in (low - 1, high + 1):
            s = S.Settings("%s = %d" % (key, value))
            assert s.get(key) == default and str(value) in s.errors[0]
        s = S.Settings("%s = %d" % (key, high))
        assert s.get(key) == high and s.errors == []
    elif kind == S.BOOL:
        assert S.Settings("%s = 1" % key).get(key) == 1
        assert S.Settings('%s = "true"' % key).get(key) == 1
        assert S.Settings("%s = 2" % key).errors
    else:
        assert S.Settings('%s = "abc"  # comment' % key).get(key) == "abc"


def test_parser_reads_what_circuitpython_writes_and_names_bad_lines():
    text = '''# QI Klaxon
QK_PLAYERS = 6
QK_BOARD = "cpb"
QK_VOLUME = 0x5   # hex is fine
CIRCUITPY_WEB_API_PASSWORD = "secret"
this is not a setting
QK_MUTE =
'''
    s = S.Settings(text)
    assert (s.get("QK_PLAYERS"), s.get("QK_BOARD"), s.get("QK_VOLUME")) == (6, "cpb", 5)
    assert s.errors == ["settings.toml line 6 not understood: this is not a setting",
                        "settings.toml line 7 not understood: QK_MUTE ="]


def test_missing_file_means_defaults(tmp_path):
    s = S.load(str(tmp_path / "none.toml"))
    assert s.errors == [] and s.get("QK_PLAYERS") == 4


def test_a_bad_setting_is_reported_shown_and_the_device_still_works():
    sim = Sim("QK_PLAYERS = 14\nQK_VOLUME = loud\n")
    errors = [f["message"] for _, f in sim.named("error")]
    assert any("QK_PLAYERS = 14" in m for m in errors)
    assert any("QK_VOLUME" in m and "not understood" in m for m in errors)
    seen = set()
    for t in range(10, 1500, 64):
        sim.run_until_ms(t)
        seen |= set(sim.ring())
    assert "purple" in seen  # the error pattern
    assert sim.game.players == 4  # the default
    sim.tap("b", 2100)
    sim.tap("a", 2600)
    sim.press("klaxon", 3000, 100)
    sim.run_until_ms(3200)
    assert sim.named("klaxon")[0][1] == {"challenger": 2, "challenged": 1}


def test_first_qm_beyond_the_table_falls_back_to_seat_0():
    sim = Sim("QK_PLAYERS = 3\nQK_FIRST_QM = 5\n")
    assert sim.game.qm == 0
    assert any("QK_FIRST_QM" in f["message"] for _, f in sim.named("error"))


def test_unknown_pin_name_falls_back_to_the_build_default():
    sim = Sim('QK_PIN_KLAXON = "D99"\n', klaxon_only=True)
    assert any("D99" in f["message"] for _, f in sim.named("error"))
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(300)
    assert len(sim.named("klaxon")) == 1


def test_unknown_board_uses_pico_names_and_says_so():
    from hardware.profiles import choose

    prof, msg = choose("some_new_board")
    assert prof["name"] == "pico" and "unknown board 'some_new_board'" in msg
    prof, msg = choose("raspberry_pi_pico2", "nonsense")
    assert prof["name"] == "pico" and "QK_BOARD = 'nonsense'" in msg


def test_board_with_no_usable_klaxon_pin_gets_a_clear_message():
    from hardware.wiring import build

    class Bare:
        board_id = "mystery"

    with pytest.raises(RuntimeError, match="QK_PIN_KLAXON"):
        build(Bare(), S.Settings())


def test_pin_none_unwires_a_button():
    sim = Sim('QK_PIN_B = "none"\n')  # only A: one-button gestures
    assert sim.device.b is None and sim.device.referee is not None
    sim.tap("a", 100, times=2)  # A double = B short on one-button builds: ask
    sim.run_until_ms(800)
    assert sim.game.phase == "answering"


def test_klaxon_moved_to_the_circuit_playgrounds_own_button_reads_it_the_right_way_round():
    # QK_PIN_KLAXON = "BUTTON_A": that button pulls to +V (pressed reads True).
    from harness import Sim

    sim = Sim('QK_PIN_KLAXON = "BUTTON_A"\nQK_PIN_A = "none"\nQK_PIN_B = "none"\n',
              board_name="cpb")
    assert sim.named("fault") == []  # not "held down" at start
    import simpins

    pin = sim.board.BUTTON_A.id
    simpins.schedule(pin, 100_000, True)
    simpins.schedule(pin, 250_000, False)
    sim.run_until_ms(400)
    assert len(sim.named("klaxon")) == 1
