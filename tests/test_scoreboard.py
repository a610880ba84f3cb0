"""The scoreboard (tools/maker/scoreboard.py) follows a real board's game from its console lines.

The board here is the host harness's device (tools/simulated/harness.py: the firmware, unedited,
on the simulated board). A scoreboard is fed its console lines as they come, and asks
for the whole state (one byte on the console, ``Sim.type_in``) when it says it must:
a closed loop, as the page runs it. After every line that ends a press's lines (or a
line printed outside a press), the scoreboard's game must be the harness's own
(``scoreboard.table``: the referee's state but its finish, the positions, the reveal's
marks and penalties) whenever it claims to know it; and it may ask only when it joins,
or after a line it cannot follow. tests/test_web.py does the same with the real Pico
firmware's bytes, through the page.
"""

import random

import pytest
from hypothesis import Phase, example, given, settings, strategies as st

import deploy
import events as E
import harness
import scenario
import scoreboard
from model import layout as L

ASK_AGAIN_MS = 1500  # a scoreboard still waiting asks again after this (the page's)


def flash(f, t, now):
    """The ring's flash (its colours, the ms it has left) and the roll it shows next (the
    ms from ``now`` it shows from), from a Device's (or the scoreboard's) flags ``f`` and
    times ``t`` at ``now`` on its clock."""
    left = (t[L.FLT] - now) & L.TICKS
    on = f[L.FL] and 0 < left < 1 << 28
    return (f[L.FL], left) if on else None, f[L.DICE] and (t[L.DT] - now) & L.TICKS


def follow(sim, end_ms, join_ms=0, step_ms=4):
    """Run ``sim`` (its presses scheduled) to ``end_ms``, a scoreboard joining at ``join_ms``
    and fed each line as it comes; it asks (a byte typed on the console) when it needs
    the state and has not asked in the last ASK_AGAIN_MS, or has had its answer since.
    After each press's lines (from power-on: after every line), the scoreboard's ring
    flashes and shows the roll as the board's does (``flash``). Returns (board, watch,
    fed, asks): ``fed`` is [(line index in sim.events, the board's table after it or
    None, need, sound)], ``asks`` the harness ms of each ask."""
    from adafruit_ticks import ticks_ms

    board = scoreboard.Scoreboard()
    fed = []
    asks = []
    seen = None
    waiting = None  # the ask not answered yet
    # Joined mid-game, the scoreboard cannot know the ring's flash of a press before it
    # (up to 1200 ms, and a tap's blip leaves it running) nor a roll shown until the next
    # press taken: its ring is compared from then on.
    ring_known = not join_ms
    with scoreboard.Watch(sim) as watch:
        t = 0
        while t <= end_ms:
            sim.run_until_ms(t)
            t = max(t, sim.now_ms)  # (a board waking from deep sleep: its clock jumps on)
            if seen is None and t >= join_ms:
                seen = len(sim.events)  # what was printed before it joined, it never sees
            if seen is not None:
                heard = not join_ms
                for i in range(seen, len(sim.events)):
                    name, _, sound = board.feed(sim.events[i][1], sim.events[i][0])
                    heard = heard or sound is not None
                    ring_known = ring_known or sound not in (None, "denied") and \
                        sim.events[i][0] >= join_ms + 1200
                    if name == "state":
                        waiting = None
                    fed.append((i, board.table(), board.need, sound))
                if heard and ring_known and seen < len(sim.events) and \
                        board.mode == "referee" and sim.device.r and board.fault is None:
                    # Both now (the board's ticks: the harness's ms + a constant), not at
                    # the line's time: the board's flags are now's, and a flash may have
                    # ended (its flag cleared) in the ms since the line.
                    d = sim.device
                    assert flash(board.f, board.t, sim.now_ms) == flash(
                        d.f, d.t, ticks_ms()), sim.events[seen:]
                seen = len(sim.events)
                if board.need and (waiting is None or t - waiting >= ASK_AGAIN_MS):
                    sim.type_in(int(t * 1000))
                    asks.append(t)
                    waiting = t
            t += step_ms
    return board, watch, fed, asks


def check(sim, watch, fed):
    """After every mark the scoreboard claims to know the game (synced, not asking), it
    holds the harness's. Returns how many marks were checked."""
    after = {i + 1: (tab, need) for i, tab, need, _ in fed}
    checked = 0
    for n, want in watch.marks:
        if n not in after:
            continue  # before it joined
        tab, need = after[n]
        if tab is None or need:
            continue
        assert tab == want, "after line %d %r:\n board   %s\n harness %s" % (
            n, sim.events[n - 1][1], tab, want)
        checked += 1
    return checked


def test_a_whole_game_followed_from_power_on_with_one_ask():
    """scenario.GAME (a question with a refused Klaxon, the Klaxon, marks and a penalty,
    undo, a move entered at the table, the end, a new game of 5 set up with the buttons,
    its first question): the scoreboard asks once, when it connects; from the state the
    board sends back it follows every line, and after each press holds the harness's
    game."""
    sim = harness.Sim(players=4)
    for t, pressed, control in scenario.taps(scenario.GAME):
        sim.level(control, int(t * 1000), pressed)
    board, watch, fed, asks = follow(sim, scenario.GAME_MS)
    assert asks == [0]
    states = [i for i, (_, line) in enumerate(sim.events) if line.startswith("state ")]
    assert len(states) == 1 and sim.events[states[0]][0] < 300
    assert all(not need for i, _, need, _ in fed if i >= states[0])
    assert check(sim, watch, fed) >= 25  # (the presses after the state line: 28)
    press = {}  # a press's lines are one sound, the last one's (the page's rule)
    for i, _, _, sound in fed:
        if sound:
            press[sim.events[i][0]] = sound
    printed = {t for t, _ in sim.events}  # (a press that prints nothing, as the choice of
    assert sorted(press.items()) == [x for x in sim.sounds() if x[0] in printed]  # forward
    # or back in an entry, is not heard on the page; the reveal's chime is, not the blip
    # of the mark that completes it)
    assert {"klaxon", "denied", "blip", "done", "undone"} == set(press.values())
    said = [line for _, line in sim.events]
    for word in ("klaxon 3 1", "undo", "move", "game over", "new", "klaxon 3 2"):
        assert word in said
    v = board.view()
    assert (v["players"], v["qm"], v["phase"], v["challenger"], v["challenged"]) == (
        5, 1, "reveal", 3, 2)


def test_a_reveal_stepped_back_into_a_penalty_and_undone_is_followed():
    """A reveal's step back from a party marked wrong goes back into its penalty's count
    (the board says only ``count``), and an undo of the reveal goes back into it with its
    last mark off: the scoreboard follows both without asking, and holds the harness's
    game after every press."""
    sim = harness.Sim(players=4)
    script = """\
100 b
1200 a
1800 b
2400 klaxon
4200 b
4800 a
5400 a
6000 b
6600 b held
9000 b held
11300 b
11900 a
14000 b held
"""
    for t, pressed, control in scenario.taps(script):
        sim.level(control, int(t * 1000), pressed)
    board, watch, fed, asks = follow(sim, 17000)
    assert asks == [0]
    said = [line for _, line in sim.events]
    at = said.index("penalty 1 2")  # the challenged's penalty, 2, then two steps back: into
    assert said[at + 1:at + 4] == ["count 2", "count 1", "penalty 1 1"]  # its count, one down
    assert said[-3:] == ["undo", "at 0 0 0 0", "unmark 3"]  # the reveal undone, its last
    assert check(sim, watch, fed) >= 12  # mark (seat 3 right) off
    v = board.view()
    assert (v["phase"], v["challenger"], v["challenged"]) == ("reveal", 3, 1)


def test_the_state_line_is_the_referee_s_own_numbers_on_every_build():
    """Asked mid-question, the board prints ``state`` and its referee's S, u and positions;
    the scoreboard takes exactly the harness's game from it; a pure Klaxon prints
    ``state`` alone."""
    for build in ("simulated", "cpx", "cpb", "pico"):
        sim = harness.Sim(players=5, board_name=build)
        steps = scenario.taps("100 b\n700 a\n1300 b\n1900 klaxon")
        sim.play(steps, 2500)
        sim.type_in(2600 * 1000)
        sim.run_until_ms(3000)
        line = sim.events[-1][1]
        r = sim.device.r
        nums = list(r.S) + list(r.u) + list(r.P[:5])
        want = ["state"] + [str(x) for x in nums + [sum(nums)]]  # (the sum: lib/state.py)
        assert line.split() == want, (build, line)
        board = scoreboard.Scoreboard()
        board.feed(line)
        assert board.synced and not board.need
        assert board.table() == scoreboard.table(r)
        assert board.view()["challenger"] == 3 and board.view()["challenged"] == 1  # (2 passed)
    sim = harness.Sim(klaxon_only=True)
    sim.type_in(50000)
    sim.run_until_ms(400)
    assert [line for _, line in sim.events] == ["state"]
    board = scoreboard.Scoreboard()
    board.feed("state")
    assert board.view()["mode"] == "klaxon" and board.table() == {"mode": "klaxon"}


def test_the_device_answers_a_byte_at_a_time_and_nothing_unasked():
    """No byte, no state line; each byte typed is one state line in a later chores pass
    (at most 256 passes later), and the game goes on as it would have."""
    plain = harness.Sim(players=4)
    plain.play(scenario.taps(scenario.QUESTION), 9000)
    asked = harness.Sim(players=4)
    asked.type_in(1000 * 1000, b"\n\n")
    asked.type_in(5000 * 1000, b"?")
    asked.play(scenario.taps(scenario.QUESTION), 9000)
    states = [(t, line) for t, line in asked.events if line.startswith("state")]
    assert len(states) == 3
    assert 1000 <= states[0][0] <= 1257 and states[1][0] - states[0][0] == 256
    assert 5000 <= states[2][0] <= 5257
    assert [x for x in asked.events if not x[1].startswith("state")] == plain.events


RANDOM_STEPS = st.lists(st.tuples(st.sampled_from(("klaxon", "a", "a", "b", "b")),
                                  st.sampled_from((80, 80, 80, 900, 2300)),
                                  st.integers(150, 700)), min_size=8, max_size=40)


def _press_all(sim, presses, start=100):
    t = start
    for control, hold, gap in presses:
        sim.level(control, t * 1000, True)
        sim.level(control, (t + hold) * 1000, False)
        t += hold + gap
    return t + 1500


# (no shrinking: each example plays a game). derandomize: the same 12 games every run, so
# CI never fails on a game no one can replay (for new ones, take it out and run this file
# again: 4,000 random games passed when it was set; one failure seen under pytest-xdist,
# its game unprinted, could not be made again)
@settings(max_examples=12, deadline=None, phases=(Phase.explicit, Phase.generate), derandomize=True)
@given(presses=RANDOM_STEPS, players=st.integers(2, 10), seed=st.integers(1, 10 ** 6))
def test_random_presses_followed_from_power_on(presses, players, seed):
    """Random presses of every length (taps, holds, 2 s holds: entries, undo, the end, new
    games): connected from power-on, the scoreboard asks again only after an undo of what
    came before its state (a press in its first quarter second), and after every press
    holds the harness's game."""
    sim = harness.Sim(players=players, qm=seed % players, seed=seed)
    end = _press_all(sim, presses)
    board, watch, fed, asks = follow(sim, end)
    assert asks[0] == 0
    explained(sim, fed, asks)
    check(sim, watch, fed)


# (no shrinking: each example plays a game). derandomize: the same 12 games every run, so
# CI never fails on a game no one can replay (for new ones, take it out and run this file
# again: 4,000 random games passed when it was set; one failure seen under pytest-xdist,
# its game unprinted, could not be made again)
@settings(max_examples=12, deadline=None, phases=(Phase.explicit, Phase.generate), derandomize=True)
@example(presses=[("klaxon", 900, 696), ("a", 900, 346), ("klaxon", 80, 256), ("b", 900, 545),
                  ("klaxon", 2300, 485), ("a", 900, 234), ("a", 80, 392), ("b", 80, 641),
                  ("a", 80, 217), ("b", 80, 303), ("klaxon", 2300, 421), ("klaxon", 2300, 478),
                  ("a", 80, 395), ("a", 2300, 699), ("b", 2300, 622), ("a", 2300, 686),
                  ("klaxon", 80, 475), ("a", 900, 164), ("b", 80, 257), ("b", 80, 260),
                  ("b", 80, 700)], seed=117, at=0.9)  # (joined 150 ms into a press's flash:
# a tap after it, whose blip leaves that flash running, failed about one run in six)
@given(presses=RANDOM_STEPS, seed=st.integers(1, 10 ** 6), at=st.floats(0.1, 0.9))
def test_random_presses_joined_mid_game(presses, seed, at):
    """Joined at a random moment: the scoreboard asks at once, holds the board's game
    within a second (the state comes in the next chores pass), then follows it; it asks
    again only after an undo reaching back before it joined, or a new game that started
    before it (its first QM: settings.toml's)."""
    sim = harness.Sim(players=4, seed=seed)
    end = _press_all(sim, presses)
    join = int(end * at)
    board, watch, fed, asks = follow(sim, end, join_ms=join)
    assert asks and asks[0] == join + -join % 4  # (the first step at or after it)
    first_state = [sim.events[i][0] for i, _, _, _ in fed if sim.events[i][1].startswith("state")]
    assert first_state and first_state[0] - asks[0] < 1000
    explained(sim, fed, asks)
    check(sim, watch, fed)


def explained(sim, fed, asks):
    """Every ask after the first follows a line the mirror could not follow from what it
    saw: an undo reaching back before its first state (an action before it), or a game
    started before it (a new one at start-up takes its first QM from settings.toml)."""
    for t in asks[1:]:
        before = [line for i, _, _, _ in fed for (ti, line) in [sim.events[i]] if ti <= t]
        assert any(x in ("undo", "new", "resumed") for x in before[-4:]), before[-6:]


def test_a_board_that_restarts_on_its_saved_game_is_followed():
    """The board resumes after a power cut mid-question (a new Sim on its flash): the
    scoreboard, connected throughout, sees ``resumed``, asks, and holds the game again;
    a line before the cut it did not see (it joined after) changes nothing."""
    from flashsim import FlashSim  # noqa: F401  (the harness's flash model)

    sim = harness.Sim(players=4)
    sim.type_in(50 * 1000)
    sim.play(scenario.taps("100 b\n700 a\n1300 b"), 3000)  # saved a second after each
    board = scoreboard.Scoreboard()
    for t, line in sim.events:
        board.feed(line, t)
    assert board.synced and board.table() == scoreboard.table(sim.device.r)
    again = harness.Sim(players=4, nvm=sim.nvm)
    version = "QI Klaxon 1.0.0 for Raspberry Pi Pico, CircuitPython 10"  # (code.py's first
    assert deploy.VERSION_LINE.match(version)  # line on a board: the harness has no drive):
    assert board.feed(version)[:2] == ("console", {"line": version})  # the board restarts
    assert not board.synced
    for t, line in again.events:
        board.feed(line, t)
    assert [line for _, line in again.events][:1] == ["resumed"]
    assert board.need and not board.synced
    again.type_in(10 * 1000)
    again.run_until_ms(400)
    board.feed(again.events[-1][1])
    assert board.synced and board.table() == scoreboard.table(again.device.r)
    assert board.view()["answering"] == 3


def test_lines_it_cannot_parse_change_nothing():
    """Garbage (random bytes decoded as a reader would, a wrong baud rate's noise, lines
    that look like the board's but are not, a state line of the wrong length) is shown
    as it came and changes nothing: the game, the need to ask, the ring."""
    sim = harness.Sim(players=4)
    sim.type_in(50 * 1000)
    sim.play(scenario.taps("100 b\n700 a\n1300 b\n1900 klaxon"), 2600)
    board = scoreboard.Scoreboard()
    for t, line in sim.events:
        board.feed(line, t)
    before = (board.table(), board.need, board.view())
    rng = random.Random(25)
    junk = ["", "   ", "\x00\x01\x02", "\ufffd\ufffd\ufffdZ\ufffd", "at", "at x y", "klaxon 3",
            "answer", "answer 1 2", "state 1 2 3", "state " + " ".join(["999"] * 30),
            "state " + " ".join(["4"] * 19 + ["0"] * 7 + ["1"] * 3), "roll 1 2", "seat -",
            "Traceback (most recent call last):", "x" * 5000]  # (">>> ", the REPL's prompt:
    # code.py stopped, tests/test_scoreboard_break.py)
    junk += ["".join(chr(rng.randrange(0, 0x250)) for _ in range(rng.randrange(1, 80)))
             for _ in range(200)]
    for line in junk:
        name, _, sound = board.feed(line)
        assert (board.table(), board.need) == before[:2], repr(line)
    assert board.view() == before[2]
    shown = [E.sentence(n, f) for _, n, f in board.log]
    assert ("x" * scoreboard.LINE_MAX) in shown


def test_the_status_bar_and_colour_codes_are_not_part_of_a_line():
    """CircuitPython writes its status bar into the terminal's title (OSC) on the same
    line as the next output: the line is what a terminal shows."""
    c = scoreboard.clean
    assert c("\x1b]0;\U0001f40dcode.py | 10.2.1\x1b\\klaxon 3 1\r") == "klaxon 3 1"
    assert c("\x1b]0;title\x07answer 2") == "answer 2"
    assert c("\x1b[32mask 0\x1b[0m") == "ask 0"
    assert c("\x1b]0;never ended") == ""
    assert E.parse(c("\x1b]0;x\x1b\\state")) == ("state", {"numbers": []})


def test_sounds_and_the_ring_are_the_board_s():
    """The Klaxon line sounds the klaxon, a refusal the buzz, an A or B press the board
    took the blip; the ring is drawn by the board's own render() and draw() from the
    game: the scene the harness's device shows, pixel for pixel."""
    sim = harness.Sim(players=4)
    sim.type_in(50 * 1000)
    steps = scenario.taps("100 b\n700 klaxon\n1200 a\n1800 b\n2400 klaxon")
    sim.play(steps, 3500)
    board = scoreboard.Scoreboard()
    sounds = [board.feed(line, t)[2] for t, line in sim.events]
    assert [s for s in sounds if s] == ["blip", "denied", "blip", "blip", "klaxon"]
    heard = [n for _, n in sim.sounds()]
    assert heard == ["blip", "denied", "blip", "blip", "klaxon"]
    px, scene = board.ring(3500)
    assert [[E.COLOUR_NAMES[k], E.PATTERN_NAMES[p]] for k, p in scene] == [
        list(x) for x in [sim.scene()[-i % 10] for i in range(10)]]
    assert px[0] == E.PALETTE[E.COLOUR_NAMES.index("white")]  # the QM, seat 0: pixel 0


@pytest.mark.parametrize("line, sound", [("klaxon sounded", "klaxon"), ("refused the game is over",
                                                                       "denied"),
                                         ("state", None), ("sleeping: press the Klaxon", None)])
def test_a_pure_klaxon_and_other_lines(line, sound):
    board = scoreboard.Scoreboard()
    board.feed("state")
    assert board.feed(line)[2] == sound
    assert board.view()["mode"] == "klaxon"


def test_a_state_line_that_lost_or_changed_a_digit_is_not_taken_and_the_board_is_asked_again():
    """A noisy cable (a UART's) drops or changes a byte: the board's state line ends with the
    sum of its numbers (lib/state.py), so a line that lost a digit, a space or a number, or
    had one changed, does not add up: the scoreboard shows it as it came, keeps its game
    and still needs the state (the page asks again); the whole line, read next, is taken."""
    sim = harness.Sim(players=5, board_name="cpx")
    sim.play(scenario.taps("100 b\n700 a\n1300 b\n1900 klaxon"), 2500)
    sim.type_in(2600 * 1000)
    sim.run_until_ms(3000)
    good = sim.events[-1][1]
    nums = good.split()[1:]
    assert int(nums[-1]) == sum(int(x) for x in nums[:-1])
    broken = [good[:-1],  # the sum's last digit lost
              good.replace(" 255 ", " 25 ", 1),  # a digit lost
              "state " + " ".join(nums[:3] + nums[4:]),  # a whole number lost
              "state " + " ".join(nums[:5]) + " " + "".join(nums[5:7]) + " " + " ".join(nums[7:]),
              "state " + " ".join(nums[:-2] + [str(int(nums[-2]) + 1), nums[-1]])]  # changed
    for line in broken:
        assert line != good
        board = scoreboard.Scoreboard()
        assert board.need
        name, _, _ = board.feed(line)
        assert name == "console" and board.table() is None and board.need, line
        assert board.feed(good)[0] == "state" and not board.need
        assert board.table() == scoreboard.table(sim.device.r)


def test_a_fault_shows_purple_and_its_end_asks_again():
    board = scoreboard.Scoreboard()
    board.feed("state " + " ".join(str(x) for x in [4, 0, 0, 255, 255, 255, 255, 0, 0] +
                                   [0] * (L.S_SLOTS - L.DID) + [0] * 7 + [0, 0, 0, 0] + [4 + 4 * 255]))
    assert board.synced and not board.need
    board.feed("fault: the referee failed: MemoryError()")
    px, scene = board.ring(0)
    assert all(E.COLOUR_NAMES[k] == "purple" for k, _ in scene)
    assert board.feed("klaxon sounded")[2] == "klaxon"  # a pure Klaxon meanwhile
    assert not board.need
    board.feed("fault cleared: the referee is back")
    assert board.need and board.view()["fault"] is None
    assert L.NONE == 255


def test_a_word_it_does_not_follow_asks_rather_than_guesses(monkeypatch):
    """A word tools/simulated/events.py reads but the scoreboard does not follow (a newer firmware's):
    no sound, nothing changed, and the page asks the board where the game is now."""
    board = scoreboard.Scoreboard()
    board.feed("state " + " ".join(str(x) for x in [4, 0, 0, 255, 255, 255, 255, 0, 0] +
                                   [0] * (L.S_SLOTS - L.DID) + [0] * 7 + [0, 0, 0, 0] + [4 + 4 * 255]))
    before = board.table()
    monkeypatch.setitem(E._WORDS, "newword", "newword")
    assert board.feed("newword") == ("newword", {}, None)
    assert board.table() == before and board.need


def test_a_board_that_sleeps_and_wakes_is_followed():
    """QK_SLEEP_MIN = 1: a minute after the last press the board says it sleeps (the page
    says so); the Klaxon wakes it, it resumes its saved game and that press counts: the
    scoreboard asks again and holds the harness's game, the waking Klaxon's included."""
    sim = harness.Sim(players=4, settings="QK_SLEEP_MIN = 1\n")
    for t, pressed, control in scenario.taps("100 b\n700 a\n66000 klaxon 200\n69000 b held"):
        sim.level(control, t * 1000, pressed)
    board, watch, fed, asks = follow(sim, 72000, step_ms=20)
    said = [line for _, line in sim.events]
    assert any(x.startswith("sleeping") for x in said) and "resumed" in said
    assert said[said.index("resumed") + 2] == "klaxon 2 1"  # the waking press counted
    assert len(asks) == 3  # connecting, after the resume, and after the undo (of the
    explained(sim, fed, asks)  # Klaxon: before the state it saw)
    assert check(sim, watch, fed) >= 4
    assert not board.need and board.view()["phase"] == "answering"
