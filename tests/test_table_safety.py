"""Safe at the table: each defect a hostile table found, played again at the pin level
(the scripts are the ones it reported), plus the API's hygiene."""

import itertools
import json
import os
import random
import subprocess
import sys

import pytest

import scenario
from harness import ROOT, Sim
from model.game import Game
from model import layout  # noqa: E402  (the slots' names)

HELD = scenario.HOLDS["held"]  # held past its second meaning, as the card says (1.5 s)
LONG = scenario.HOLDS["long"]  # ... past its third (3 s)
SCRIPT_ANSWERS = [(700, "b"), (1300, "a"), (1900, "a"), (2500, "a"),  # question 1: all answer
                  (3100, "a"), (3700, "a"), (4300, "a"),  # all right: [0, 3, 3, 3], QM 1
                  (5000, "b"), (5600, "a")]  # question 2 (QM 1): seat 2 answers


def script(taps, hold=80):
    """[(t_ms, control)] taps -> the simulator's script lines."""
    lines = []
    for t, c in taps:
        lines += ["%d down %s" % (t, c), "%d up %s" % (t + hold, c)]
    return "\n".join(lines) + "\n"


def run_sim(tmp_path, text, *args, timeout=60):
    path = tmp_path / "s.txt"
    path.write_text(text)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "simulated", "sim.py"), "--wav", "",
                          "--players", "4", "--script", str(path)] + list(args),
                         capture_output=True, text=True, timeout=timeout)
    return out.returncode, [json.loads(line) for line in out.stdout.splitlines()], out.stderr


def events(records, *names):
    return [r for r in records if r["event"] in names]


def test_two_quick_b_taps_are_two_passes_and_the_next_a_marks_an_answer(tmp_path):
    # defect 1: B at 6000-6080 and 6200-6280 ended the game, the A at 6900 wiped it
    rc, recs, err = run_sim(tmp_path, script(SCRIPT_ANSWERS + [(6000, "b"), (6200, "b"),
                                                               (6900, "a")]))
    assert rc == 0, err
    assert [r["seat"] for r in events(recs, "pass")] == [3, 0]
    assert not events(recs, "end", "new_game")[1:]  # only the power-on's new game
    assert events(recs, "mark")[-1] == dict(events(recs, "mark")[-1], seat=2, right=True)
    final = recs[-1]  # seat 2 right: the question is over, the dice pass to seat 2
    assert final["positions"] == [0, 3, 6, 3] and final["phase"] == "idle" and final["qm"] == 2


def test_two_quick_wrong_marks_in_the_reveal_are_two_marks(tmp_path):
    rc, recs, err = run_sim(tmp_path, script(SCRIPT_ANSWERS + [
        (6000, "a"), (6600, "a"),  # seats 3 and 0 answer: the reveal
        (7200, "b"), (7350, "b"), (7500, "b")]))  # three wrong marks in 0.4 s
    assert rc == 0, err
    assert [(r["seat"], r["right"]) for r in events(recs, "mark")][-3:] == [
        (2, False), (3, False), (0, False)]
    assert recs[-1]["positions"] == [0, 3, 3, 3] and recs[-1]["qm"] == 2


@pytest.mark.parametrize("control", ["a", "b"])
def test_a_klaxon_just_after_a_tap_goes_to_the_right_seats(tmp_path, control):
    # defect 2: the tap at 2000 waited for a second tap and the Klaxon at 2280 overtook it
    lines = script([(200, "b"), (800, "a"), (2000, control)]) + \
        "2280 down klaxon\n2400 up klaxon\n"
    rc, recs, err = run_sim(tmp_path, lines)
    assert rc == 0, err
    klaxons = events(recs, "klaxon")
    if control == "a":  # seat 2 answered: seat 3 challenges it
        assert [(k["challenger"], k["challenged"]) for k in klaxons] == [(3, 2)]
    else:  # seat 2 passed: seat 3 challenges seat 1, the last answer
        assert [(k["challenger"], k["challenged"]) for k in klaxons] == [(3, 1)]
    assert not events(recs, "mark", "penalty")  # nothing stray after it


@pytest.mark.parametrize("taps", [2, 3, 5, 8, 9, 10, 15, 40])
def test_every_quick_tap_counts_and_none_crashes(tmp_path, taps):
    # defect 3: 2 taps lost one, 3-8 did nothing, 9 read as a hold, 10+ crashed
    sim = Sim(players=10)
    sim.press("b", 100, 80)  # ask: seat 1 answers first
    for i in range(taps):
        sim.press("a", 500 + i * 120, 60)  # 120 ms apart
    sim.run_until_ms(500 + taps * 120 + 2000)
    answers = [f["seat"] for _, f in sim.named("answer")]
    marks = [f["seat"] for _, f in sim.named("mark")]
    assert answers == list(range(1, min(taps, 9) + 1))  # nine answer, then the reveal
    assert len(answers) + len(marks) + len(sim.named("sound")) - 1 - len(answers) - len(
        marks) >= 0
    blips = [f for _, f in sim.named("sound") if f["name"] != "klaxon"]
    assert len(blips) == taps + 1  # every tap heard: taken (a blip or a chime) or refused
    assert not sim.named("fault")


def test_a_long_gap_deep_sleeps_and_the_next_klaxon_wakes_it_as_on_the_board(tmp_path):
    # defect 5: the simulator hung once the board deep-slept
    lines = script([(200, "b"), (800, "a")]) + "1200000 down klaxon\n1200150 up klaxon\n"
    rc, recs, err = run_sim(tmp_path, lines, timeout=120)
    assert rc == 0, err
    assert events(recs, "sleep") and events(recs, "resumed")
    assert events(recs, "klaxon")[-1]["challenger"] == 2  # the waking press counts
    assert recs[-1]["phase"] == "reveal"


@pytest.mark.parametrize("line", ["99999999999999999999999 down klaxon", "-5 down a",
                                  "100 down klaxon\n50 up klaxon", "100 dwn a", "1e9 down a"])
def test_an_absurd_script_line_exits_2_with_a_message(tmp_path, line):
    rc, recs, err = run_sim(tmp_path, line + "\n")
    assert rc == 2 and "line" in err and not recs


def test_the_penalty_display_is_right_for_every_value_that_can_be_entered():
    # defect 6: 29 showed as 28, 57 as 55, 99 as 91 once tens and units passed the pixels
    sim = Sim(players=4)
    t = 100
    for c in ("b", "a", "klaxon", "b"):  # ask; seat 1 answers; seat 2 challenges; 1 wrong
        sim.press(c, t, 80)
        t += 600
    sim.run_until_ms(t)
    d = sim.device
    np = len(d.c) // 2
    at = sim.pixel_of(1, 4)  # the challenged, whose penalty it is: sky, slow, throughout
    for value in range(0, 100):
        d.r.u[layout.COUNT] = value
        d.render()
        scene = sim.scene()
        assert scene[at] == ("sky", "slow"), value
        after = [scene[(at + 1 + j) % np] for j in range(np - 1)]  # the count's lights
        if value // 10 + value % 10 <= np - 1:  # white tens, then orange units
            shown = [c for c, _ in after]
            assert shown == ["white"] * (value // 10) + ["orange"] * (value % 10) + ["off"] * (
                np - 1 - value // 10 - value % 10), value
        else:  # too many: tens white and units orange blink in turn on the same pixels
            colours = [(d.c[(at + 1 + j) % np] & 15, d.c[(at + 1 + j) % np] >> 4)
                       for j in range(np - 1)]
            assert sum(1 for a, _ in colours if a == 1) == value // 10
            assert sum(1 for _, b in colours if b == 7) == value % 10
            assert all(p == "slow" for _, p in after)


def test_a_move_from_real_dice_a_card_or_a_correction_can_be_entered_and_undone():
    # defect 7 (the buttons' part is in test_table.py); every count from 1 to 99 both ways
    for squares in (1, 9, 10, 57, 99, -1, -23, -99):
        sim = Sim(players=3)
        t = 100
        taps = [("a", LONG), ("a", 80)]  # move: seat 0, then seat 1
        taps.append(("b", 80) if squares > 0 else ("a", HELD))  # forward / back
        taps += [("a", HELD)] * (abs(squares) // 10) + [("a", 80)] * (abs(squares) % 10)
        taps += [("b", 80)]
        for c, hold in taps:
            sim.press(c, t, hold)
            t += hold + 400
        sim.run_until_ms(t)
        assert sim.game.positions == [0, squares, 0], squares
        sim.press("b", t, HELD)  # undo
        sim.run_until_ms(t + HELD + 600)
        assert sim.game.positions == [0, 0, 0]


def test_a_count_stops_at_99_with_a_buzz_as_the_readme_says():
    """A move's (or a penalty's) count shows two digits on the ring: the press past 99
    buzzes and changes nothing; the README says to enter the rest as a second move."""
    sim = Sim(players=3)
    t = 100
    taps = [("a", LONG), ("a", 80), ("b", 80)] + [("a", HELD)] * 9 + [("a", 80)] * 9
    taps += [("a", 80), ("a", HELD), ("b", 80)]  # 100 and 109: refused; then move it
    for c, hold in taps:
        sim.press(c, t, hold)
        t += hold + 400
    sim.run_until_ms(t + 1500)
    assert [f["count"] for _, f in sim.named("count")][-1] == 99
    assert [n for _, n in sim.sounds()][-3:] == ["denied", "denied", "done"]
    assert sim.game.positions == [0, 99, 0]


# ---------------------------------------------------------------- the API's hygiene
def test_reveal_is_all_or_nothing():
    g = Game(4)
    g.ask()
    g.answer()
    g.answer()
    g.klaxon()
    before = g.to_bytes()
    for bad in ([1, 7], [1, 1.5], [0], None, 5, "12", [1], {1: 2}):
        with pytest.raises(ValueError):
            if bad == [1]:
                g.reveal([1], {3: 300})  # a penalty past 255
            elif isinstance(bad, dict):
                g.reveal([1], {1: 2})  # right and penalised
            else:
                g.reveal(bad)
        assert g.to_bytes() == before
    g.reveal([1, 2], {3: 4})
    assert g.positions == [0, 3, 3, -4]


@pytest.mark.parametrize("call", ["mark(10)", "mark(-1)", "mark(None)", "mark(True)",
                                  "left_of(4)", "move(9, 1)", "move(1, 0)", "roll(0, 1, 1)",
                                  "roll(1, 7, 1)", "klaxon(-1)"])
def test_wrong_types_or_seats_raise_value_error_naming_the_value(call):
    g = Game(4)
    with pytest.raises(ValueError) as e:
        eval("g." + call)
    arg = call[call.index("(") + 1:call.index(")")].split(",")
    assert any(a.strip() in str(e.value) for a in arg)


def test_refusals_say_what_happened():
    g = Game(4)
    assert g.klaxon() is None and g.refusal == "no question running"
    g.ask()
    assert g.klaxon() is None and g.refusal == "nobody has answered yet"
    g.answer()
    assert g.klaxon() == (2, 1)
    assert g.klaxon() is None and g.refusal == "this question already had its Klaxon"
    h = Game(3)
    h.ask()
    h.answer()
    h.answer()
    assert h.klaxon() is None and h.refusal == "everyone has answered"
    with pytest.raises(ValueError) as e:
        h.roll(1, 2, 3)
    assert "not now; the game is waiting for the QM to reveal the answer" in str(e.value)


def reachable(players):
    """Every state play can reach (positions and question aside), by exhaustive search."""
    def shape(g):
        data = g.to_bytes()
        return data[:7] + data[9:9 + (players + 3) // 4]

    start = Game(players)
    seen = {shape(start)}
    todo = [start.to_bytes()]
    while todo:
        data = todo.pop()
        for action in ("ask", "answer", "pass_", "klaxon", "miss_go", "end", "new_game",
                       "reveal"):
            g = Game.from_bytes(data)
            try:
                if action == "reveal":
                    g.reveal([])
                elif action == "klaxon":
                    if g.klaxon() is None:
                        continue
                else:
                    getattr(g, action)()
            except ValueError:
                continue
            if shape(g) not in seen:
                seen.add(shape(g))
                todo.append(g.to_bytes())
    return seen


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_from_bytes_accepts_only_states_play_can_reach_and_canonical_encodings(players):
    states = reachable(players)
    rng = random.Random(players)
    g = Game(players)
    samples = []
    for shape_ in states:  # a real game in each reachable state, then mutations of it
        data = bytes(shape_[:7]) + b"\x00\x00" + bytes(shape_[7:]) + b"\x00" * (players + 1)
        h = Game.from_bytes(data)
        assert h.to_bytes() == data
        samples.append(data)
    accepted = 0
    for data in samples:
        for i, bit in itertools.product(range(len(data)), range(8)):
            m = bytearray(data)
            m[i] ^= 1 << bit
            try:
                h = Game.from_bytes(bytes(m))
            except ValueError:
                continue
            accepted += 1
            out = h.to_bytes()
            assert out == bytes(m), "not canonical"
            assert out[:7] + out[9:9 + (players + 3) // 4] in states, "unreachable: %r" % m
        for _ in range(20):  # and padded varints (non-canonical): refused
            m = bytearray(data)
            m[-1] |= 0x80
            m.append(0)
            with pytest.raises(ValueError):
                Game.from_bytes(bytes(m))
    assert accepted and g


# ------------------------------------------- what a hostile table found afterwards
def test_a_fault_whose_report_runs_out_of_memory_still_leaves_a_klaxon(monkeypatch):
    import builtins

    sim = Sim(players=3)
    sim.press("b", 100, 80)
    sim.press("a", 600, 80)
    sim.run_until_ms(1200)
    d = sim.device

    def broken(k):
        raise MemoryError("memory allocation failed")

    monkeypatch.setattr(d.r, "key", broken)
    real_print = builtins.print

    def no_room(*a, **k):  # the report itself cannot be made
        if a and str(a[0]).startswith("fault"):
            raise MemoryError("memory allocation failed")
        return real_print(*a, **k)

    monkeypatch.setattr(builtins, "print", no_room)
    sim.press("klaxon", 1300, 100)  # the referee fails, and so does its report
    sim.run_until_ms(1700)
    monkeypatch.setattr(builtins, "print", real_print)
    sim.press("klaxon", 2000, 100)  # still a Klaxon
    sim.run_until_ms(2400)
    assert [n for _, n in sim.sounds()][-2:] == ["klaxon", "klaxon"]
    assert d.f[layout.FAULT] == layout.OUT_OF_MEMORY  # a pure Klaxon, then a fresh heap


def _to_the_reveal(monkeypatch, until_ms, fail=(layout.OV_REVEAL,)):
    """A 3-player table asks, answers, Klaxons and passes, so the reveal is next; played to
    ``until_ms``, then the overlays ``fail`` can no longer load (out of memory). The
    Sim."""
    sim = Sim(players=3)
    for t, c in ((100, "b"), (700, "a"), (1300, "klaxon"), (1900, "b")):
        sim.press(c, t, 80)
    sim.run_until_ms(until_ms)
    real = sim.device.r.more

    def no_room(k=layout.OV_TIDY):
        if k in fail:
            raise MemoryError("memory allocation failed, allocating 232 bytes")
        return real(k)

    monkeypatch.setattr(sim.device.r, "more", no_room)
    return sim


def test_out_of_memory_saves_the_game_and_restarts_on_a_fresh_heap_where_it_was(monkeypatch):
    """The referee cannot allocate (an overlay on a fragmented heap): a pure Klaxon for
    5 s, then the game saved and the VM restarted (supervisor.reload()); code.py runs
    again, the game resumes exactly where it was, and the press that failed, made again,
    is taken."""
    import supervisor

    sim = _to_the_reveal(monkeypatch, 2600)
    before = sim.game.to_bytes()
    sim.press("a", 3000, 80)  # mark the answer: the reveal's overlay cannot load
    sim.press("klaxon", 4000, 100)  # still a Klaxon meanwhile
    with pytest.raises(supervisor.ReloadRequested):
        sim.run_until_ms(9000)
    said = [line for _, line in sim.events]
    assert any(line.startswith("fault: the referee failed: MemoryError") for line in said)
    assert any(line.startswith("out of memory: restarting") for line in
               said)
    assert [n for _, n in sim.sounds()][-1] == "klaxon"
    assert sim.game.to_bytes() == before  # the failed press changed nothing
    after = Sim(players=3, nvm=sim.nvm)  # code.py again, on a fresh heap
    assert after.game.to_bytes() == before
    assert any(line.startswith("resumed") for _, line in after.events)
    after.press("a", after.now_ms + 100, 80)  # the press again: taken
    after.run_until_ms(after.now_ms + 800)
    assert after.events[-1][1] == "right 1"


@pytest.mark.parametrize("start", [32700, -32700])
def test_pieces_stop_at_the_edge_of_16_bits_and_never_break_the_referee(start):
    sim = Sim(players=3)
    sim.device.r.P[1] = start
    sim.device.r.Q[1] = start  # as if played there
    t = 100
    back = start < 0
    for c, hold in [("a", LONG), ("a", 80), ("a", HELD) if back else ("b", 80)] + \
            [("a", HELD)] * 9 + [("b", 80)]:  # move seat 1 by 90 squares
        sim.press(c, t, hold)
        t += hold + 400
    sim.run_until_ms(t + 1500)
    assert sim.game.positions[1] == (-32767 if back else 32767)
    assert not sim.named("fault")
    after = Sim(players=3, nvm=sim.nvm)  # and the saved game comes back
    assert after.game.positions[1] == sim.game.positions[1] and not after.named("fault")


def test_the_api_refuses_what_would_leave_16_bits():
    g = Game(3)
    g.move(0, 32000)
    with pytest.raises(ValueError):
        g.move(0, 1000)
    with pytest.raises(ValueError):
        g.move(1, 40000)
    assert g.positions == [32000, 0, 0]
    g.move(0, 765)
    with pytest.raises(ValueError):
        g.roll(1, 6, 1)  # the QM would pass 32767
    assert g.undo() and g.positions == [32000, 0, 0]


def test_a_refused_tap_during_the_klaxon_is_heard_after_it():
    sim = Sim(players=4)
    for c, t in (("b", 100), ("a", 600), ("klaxon", 1200)):
        sim.press(c, t, 80)
    sim.press("a", 1300, 80)  # marks seat 1 right: taken
    sim.press("klaxon", 1500, 80)  # a second Klaxon: refused (both while the klaxon sounds)
    sim.run_until_ms(4000)
    assert [n for _, n in sim.sounds()][-2:] == ["klaxon", "denied"]  # the buzz wins


def test_two_buttons_on_one_pin_are_reported_and_the_second_is_not_wired():
    sim = Sim('QK_PIN_B = "Dx_INPUT_TRUE_PULL_UP"\n', players=4)  # the Klaxon's own pin
    assert ("QK_PIN_B = 'Dx_INPUT_TRUE_PULL_UP': that pin is another button's; button B is "
            "not wired") in [line for _, line in sim.events]  # the key it came from, named
    sim.press("a", 200, HELD)  # one button: held past QK_LONG_MS, B's tap: ask
    sim.press("klaxon", 2600, 100)  # nobody has answered: refused
    sim.run_until_ms(3500)
    assert len(sim.named("ask")) == 1  # a Klaxon is not a B tap too
    assert sim.named("refused")[-1][1] == {"reason": "nobody has answered yet"}


def test_a_script_with_a_day_between_presses_ends_in_seconds(tmp_path):
    import time

    t0 = time.monotonic()
    rc, recs, err = run_sim(tmp_path, "1000 down a\n1080 up a\n86400000 down a\n"
                            "86400080 up a\n", "--board", "cpx")
    assert rc == 0, err
    assert [r["event"] for r in recs if r["event"] == "roll"] == ["roll", "roll"]
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("line", ["1_000 down a", "\u0661\u0660 down a"])
def test_script_times_are_plain_decimal_digits(tmp_path, line):
    rc, recs, err = run_sim(tmp_path, line + "\n")
    assert rc == 2 and "line 1" in err


def test_a_fault_that_goes_on_is_reported_once_and_the_klaxon_keeps_sounding(monkeypatch):
    sim = Sim(players=3)
    d = sim.device

    def broken(n):
        raise RuntimeError("the ring is gone")

    monkeypatch.setattr(d, "draw", broken)
    sim.press("b", 100, 80)
    sim.press("klaxon", 3000, 100)
    sim.run_until_ms(4000)
    assert len([1 for _, line in sim.events if line.startswith("fault:")]) == 1
    assert [n for _, n in sim.sounds()][-1] == "klaxon"


def test_a_buzz_waiting_for_the_klaxon_survives_a_second_klaxon():
    sim = Sim(players=4)
    for c, t, hold in (("b", 100, 80), ("a", 700, 80), ("klaxon", 1300, 40),
                       ("klaxon", 1400, 40)):  # the second Klaxon is refused: a buzz waits
        sim.press(c, t, hold)
    sim.run_until_ms(4000)
    names = [n for _, n in sim.sounds()]
    assert names[-2:] == ["klaxon", "denied"]


def test_a_waiting_buzz_follows_a_klaxon_that_restarts_the_klaxon():
    """During a fault the Klaxon is a plain klaxon and A and B buzz: a buzz that waits for
    the klaxon still comes when a second press starts the klaxon again."""
    sim = Sim(players=4)
    sim.run_until_ms(50)
    sim.device.crash(RuntimeError("a fault"))  # a pure Klaxon for 5 s
    for c, t, hold in (("klaxon", 100, 40), ("a", 300, 80),  # A refused: its buzz waits
                       ("klaxon", 600, 40)):  # the klaxon starts again
        sim.press(c, t, hold)
    sim.run_until_ms(3500)
    names = [n for _, n in sim.sounds()]
    assert names[-3:] == ["klaxon", "klaxon", "denied"]


def test_out_of_memory_restarts_even_when_the_save_cannot_be_made(monkeypatch):
    """The heap is so short that the save fails too: the board restarts regardless (the
    game as saved a second after its last action), rather than waiting for ever as a pure
    Klaxon for a save that never fits."""
    import supervisor

    # every action saved by 3200; from then on no overlay loads, the reveal nor the save
    sim = _to_the_reveal(monkeypatch, 3200, fail=range(layout.OV_TIDY + 1))
    saved = sim.game.to_bytes()
    d = sim.device
    d.r.w = 1  # (as if a change were not saved yet: the save is tried, and fails)
    sim.press("a", 3300, 80)
    with pytest.raises(supervisor.ReloadRequested):
        sim.run_until_ms(10000)
    assert any(line == "out of memory: restarting" for _, line in sim.events)
    after = Sim(players=3, nvm=sim.nvm)
    assert after.game.to_bytes() == saved and any(
        line.startswith("resumed") for _, line in after.events)


def test_out_of_memory_restarts_only_once_the_klaxon_is_quiet_and_let_go(monkeypatch):
    """A Klaxon pressed just before the restart was due is heard whole: the restart waits
    until no sound plays and the Klaxon is released (a restart mid-klaxon cut it short,
    and a Klaxon held through it read as stuck at power-on). The press that failed is
    denied, not blipped as taken."""
    import supervisor

    sim = _to_the_reveal(monkeypatch, 3200)
    sim.press("a", 3300, 80)  # fails: denied
    sim.press("klaxon", 8300, 2500)  # 4.9 s into the fault, held 2.5 s
    with pytest.raises(supervisor.ReloadRequested):
        sim.run_until_ms(20000)
    restart = [t for t, line in sim.events if line == "out of memory: restarting"]
    assert restart and restart[0] >= 8300 + 2500  # after the Klaxon is let go ...
    sounds = sim.sounds()
    assert [n for t, n in sounds if 3300 <= t < 3500] == ["denied"]
    klaxon = [t for t, n in sounds if n == "klaxon" and t >= 8300]
    assert klaxon and klaxon[0] < 8300 + 10  # ... it sounded at once, and whole


def test_out_of_memory_with_the_klaxon_stuck_still_restarts_and_writes_nothing_new(monkeypatch):
    """The restart waits for the Klaxon to be let go, but not for one stuck down (it never
    would be); and a restart with nothing changed since the last save writes no record (a
    restart that repeats would wear the flash)."""
    import supervisor

    sim = _to_the_reveal(monkeypatch, 3200)
    saved = bytes(sim.nvm.mem)
    sim.press("a", 3300, 80)
    sim.press("klaxon", 3500, 60000)  # down for a minute: stuck
    with pytest.raises(supervisor.ReloadRequested):
        sim.run_until_ms(40000)
    said = [(t, line) for t, line in sim.events]
    stuck = [t for t, line in said if line.startswith("fault: the Klaxon is stuck")]
    restart = [t for t, line in said if line == "out of memory: restarting"]
    assert stuck and restart and restart[0] >= stuck[0]
    assert bytes(sim.nvm.mem) == saved  # nothing new to save: nothing written
