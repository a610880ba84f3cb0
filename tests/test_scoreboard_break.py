"""The scoreboard (tools/maker/scoreboard.py, web/scoreboard.js, tools/maker/web.py --serial) under a
hostile table and cable: the cases tests/test_scoreboard.py does not play. Each test
holds what a person watching the scoreboard sees to what the board's game is, with the
host harness as the board (its simulated clock: nothing sleeps)."""

import pytest

import events as E
import harness
import scenario
import scoreboard
from model import layout as L
from test_scoreboard import check, explained, follow


def test_a_roll_to_the_finish_shows_the_end_not_the_roll():
    """QK_FINISH = 1: the QM's first roll reaches the finish, and the board's ring shows
    the game's end, not the roll (hardware/device.py press(): ``a roll to the finish: the
    end shows``). The scoreboard's mirror ends no game itself (it follows ``game over``,
    the line after the roll's): its ring must drop the roll there too, not play the
    dice after the game is over (``follow`` holds the two rings' flash and roll equal)."""
    sim = harness.Sim(players=4, settings="QK_FINISH = 1\n")
    for t, pressed, control in scenario.taps("400 a"):
        sim.level(control, t * 1000, pressed)
    board, watch, fed, asks = follow(sim, 3500)
    said = [line for _, line in sim.events]
    assert said[-3:] == ["roll 5 2 4", "at 2 0 0 0", "game over"], said
    assert asks == [0]
    explained(sim, fed, asks)
    assert check(sim, watch, fed) >= 2
    v = board.view()
    assert v["phase"] == "over" and v["winners"] == [0]
    assert not board.f[scoreboard.L.DICE]


def _ring_names(board, now_ms):
    px, scene = board.ring(now_ms)
    return [(E.COLOUR_NAMES[k], E.PATTERN_NAMES[p]) for k, p in scene]


def _board_ring_names(sim):
    return [sim.scene()[-i % 10] for i in range(10)]  # (pixel order, counter-clockwise)


def test_the_klaxon_held_at_power_on_then_let_go_leaves_no_purple_ring():
    """A board powered on with the Klaxon held (a hand on it, a button wedged) says
    ``fault: the Klaxon is held down at power-on; release it`` and rings purple; let go,
    it says ``fault cleared: the Klaxon is released`` and its ring is the game's. The
    scoreboard, listening from power-on (every line), must do the same: it took that
    fault for the referee's (whose end is another line), and its ring stayed purple for
    the rest of the game while the board's showed the seats."""
    sim = harness.Sim(players=4, held=("klaxon",))
    sim.level("klaxon", 1500 * 1000, False)
    sim.type_in(10 * 1000)
    sim.play(scenario.taps("3000 b\n3600 a"), 5000)
    said = [line for _, line in sim.events]
    assert said[0] == "fault: the Klaxon is held down at power-on; release it"
    assert "fault cleared: the Klaxon is released" in said
    board = scoreboard.Scoreboard()
    for t, line in sim.events:
        board.feed(line, t)
    assert board.synced and board.table() == scoreboard.table(sim.device.r)
    assert board.view()["fault"] is None
    assert _ring_names(board, 5000) == _board_ring_names(sim)


# What CircuitPython itself prints (its console, between code.py's lines): an auto-reload
# (a file saved on the drive, settings.toml say), and code.py stopping on an error
RELOAD = ["", "Code stopped by auto-reload. Reloading soon.", "soft reboot", "",
          "Auto-reload is on. Simply save files over USB to run them or enter REPL to disable.",
          "", "code.py output:", "QI Klaxon 1.0.0 for Raspberry Pi Pico, CircuitPython 10"]
STOPPED = ["Traceback (most recent call last):", '  File "code.py", line 12, in <module>',
           "MemoryError: memory allocation failed", "", "Code done running.", "",
           "Press any key to enter the REPL. Use CTRL-D to reload."]


def _followed(sim):
    """A scoreboard that has followed ``sim``'s lines (asked once at 10 ms)."""
    board = scoreboard.Scoreboard()
    for t, line in sim.events:
        board.feed(line, t)
    assert board.synced and not board.need
    return board


def test_a_board_reloaded_into_a_pure_klaxon_is_asked_and_shown_as_one():
    """settings.toml saved with QK_KLAXON_ONLY = 1 (or A and B's pins gone): the board
    reloads and comes back a pure Klaxon, which prints nothing at start-up (a referee
    prints ``new`` or ``resumed``, which ask). The scoreboard saw the restart and stopped
    claiming the game, but never asked: "Joining the game: asking the board" for ever,
    asking nothing, its klaxons sounding over a stale game's seats."""
    sim = harness.Sim(players=4)
    sim.type_in(10 * 1000)
    sim.play(scenario.taps("100 b\n700 a"), 2000)
    board = _followed(sim)
    for line in RELOAD:
        board.feed(line)
    assert not board.synced
    assert board.need  # (the page asks)
    pure = harness.Sim(klaxon_only=True)
    pure.play(scenario.taps("100 klaxon"), 1000)
    assert [line for _, line in pure.events] == ["klaxon sounded"]
    assert board.feed("klaxon sounded")[2] == "klaxon"
    pure.type_in(1000 * 1000)
    pure.run_until_ms(1400)
    assert pure.events[-1][1] == "state"
    board.feed(pure.events[-1][1])
    assert board.synced and not board.need and board.view()["mode"] == "klaxon"
    assert board.view()["status"] == scoreboard.words(None)


def test_a_board_whose_code_stopped_is_not_asked_into_its_repl():
    """code.py stops on an error: CircuitPython prints the traceback, then waits for a key,
    and any byte takes the board into its REPL, where a file saved no longer restarts
    code.py. So the scoreboard does not ask there (not even if it was asking), says the
    board's code stopped, and asks again once it restarts."""
    sim = harness.Sim(players=4)
    sim.type_in(10 * 1000)
    sim.play(scenario.taps("100 b\n700 a"), 2000)
    board = _followed(sim)
    board.feed("pass 3")  # (seat 2 answers next: a line it cannot follow, so it asks)
    assert board.need
    for line in STOPPED:
        board.feed(line)
        if line.startswith("Code done"):
            break
    assert not board.need and not board.synced
    v = board.view()
    assert v["stopped"] and "stopped" in v["status"] and "reset" in v["status"]
    for line in STOPPED[5:]:
        board.feed(line)
    assert not board.need
    for line in RELOAD:  # (Ctrl-D, or a file saved before any key)
        board.feed(line)
    assert board.need and not board.view()["stopped"]


def test_a_board_in_its_repl_is_asked_once_then_left_alone():
    """The page joins a board already in its REPL (the prompt ``>>> `` has no newline: the
    ask's own byte ends it): one ask, then none; a line of the game again (a reset not
    seen) asks again."""
    board = scoreboard.Scoreboard()
    assert board.need  # joining: the one ask
    board.feed("Adafruit CircuitPython 10.2.1 on 2026-12-01; Raspberry Pi Pico with rp2040")
    board.feed(">>> ")
    assert not board.need and board.view()["stopped"]
    board.feed("klaxon sounded")
    assert board.need and not board.view()["stopped"]


def _state_line(S, u, P):
    nums = list(S) + list(u) + list(P)
    return "state " + " ".join(str(x) for x in nums + [sum(nums)])  # (the sum: lib/state.py)


class Hung(BaseException):
    """Raised in a call that did not end in time (a BaseException: feed() catches every
    Exception of the mirror's, and would take this one for a line it cannot follow)."""


def _with_deadline(seconds, f, *args):
    """``f(*args)``, stopped after ``seconds`` (SIGALRM: a pure-Python loop that never ends
    is interrupted, not left spinning)."""
    import signal

    def out(*_):
        raise Hung("still running after %s s" % seconds)

    old = signal.signal(signal.SIGALRM, out)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return f(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# A 10-player game, QM seat 9, seat 0 answering: the board's own numbers (a state line)
TEN = [10, 9, L.ANSWERING, 0, 255, 255, 255, 0, 0] + [0] * 10
TEN_U = [0] * L.U_SLOTS


def test_lines_that_do_not_fit_never_hang_the_page():
    """The mirror is the board's own referee, whose loops end because its QM and its turn
    are seats of its game. An ``at`` line of another size (another board on the port, a
    restart, noise) changed the mirror's players but not its QM: the next answer walked
    the turn round three seats for ever looking for QM seat 9. In the page that is the
    browser's tab frozen (the VM runs on the page's thread). It must ask instead."""
    board = scoreboard.Scoreboard()
    board.feed(_state_line(TEN, TEN_U, [0] * 10))
    assert board.synced and not board.need
    for line in ("move", "at 0 0 0", "answer 1", "klaxon 2 1", "pass 2", "reveal", "at 3 0 0"):
        _with_deadline(5, board.feed, line)
        board.view()
        board.ring(0)
    assert board.need


def test_a_state_line_of_impossible_numbers_is_not_taken():
    """A state line of the right length whose numbers no referee holds (a QM past the
    players, a seat that did 5, a phase 7: noise on a UART console, a line corrupted) is
    shown as it came and changes nothing; it was taken, and the ring's drawing (the
    board's own render()) raised on it at every frame, which in the page stops the
    ring's animation for good."""
    board = scoreboard.Scoreboard()
    board.feed(_state_line(TEN, TEN_U, [0] * 10))
    before = board.table()
    bad = []
    for slot, v in ((L.QM, 10), (L.PHASE, 7), (L.TURN, 12), (L.CHALLENGER, 10),
                    (L.CHALLENGED, 200), (L.ROLL, 216), (L.DID + 3, 5)):
        S = list(TEN)
        S[slot] = v
        bad.append(_state_line(S, TEN_U, [0] * 10))
    for what, v in ((L.WHAT, 9), (L.SEAT, 10), (L.RIGHT, 1 << 10), (L.COUNT, -1)):
        u = list(TEN_U)
        u[what] = v
        bad.append(_state_line(TEN, u, [0] * 10))
    for line in bad:
        assert board.feed(line)[0] == "console", line
        assert board.table() == before and not board.need, line
        board.ring(0)


def test_the_ring_of_a_game_that_cannot_be_drawn_is_dark_and_asks():
    """Whatever the mirror holds, drawing the ring never raises (in the page, an exception
    there ends the ring's animation frames for the session): it goes dark and the
    scoreboard asks for the board's state."""
    board = scoreboard.Scoreboard()
    board.feed(_state_line(TEN, TEN_U, [0] * 10))
    board.r.S[L.DID + 2] = 9  # (no line leaves this: the mirror broken by hand)
    px, scene = board.ring(0)
    assert px == [0] * scoreboard.NP and board.need


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_serial_a_folder_or_a_plain_file_exits_2_with_a_message(kind, tmp_path, capsys,
                                                                 monkeypatch):
    """``web --serial`` naming a folder or a plain file (a typo, a tab completion gone
    wrong: ``/dev/`` or ``/dev/serial/by-id/``, a log file) never becomes a port: exit 2
    at once, saying what it is. It started the server, printed "the scoreboard of the
    board on /dev/", and the page said "/dev/ is not there: plug the board in" every
    half second for ever."""
    import web

    path = tmp_path / "board"
    if kind == "folder":
        path.mkdir()
    else:
        path.write_text("not a port\n")
    monkeypatch.setattr(web, "install", lambda *a, **k: pytest.fail("it went on to serve"))
    assert web.main(["--serial", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "not a serial port" in err and kind in err


def test_a_port_that_is_there_but_not_a_serial_port_is_not_said_to_be_missing():
    """``/dev/null`` (a character device, not a terminal) opens but is no serial port: the
    page said "/dev/null is not there: plug the board in"."""
    import time

    import web

    bridge = web.SerialBridge("/dev/null").start()
    try:
        end = time.monotonic() + 5
        while bridge.status["why"].startswith("opening") and time.monotonic() < end:
            time.sleep(0.02)
        why = bridge.status["why"]
        assert not bridge.status["connected"]
        assert "is not there" not in why and "/dev/null" in why, why
    finally:
        bridge.stop()


def test_joining_a_board_in_a_fault_shows_the_fault(monkeypatch):
    """The referee fails (an exception in a press): for 5 s the board is a pure Klaxon,
    its ring purple, A and B buzzing. A page that joins then asks; the state line is the
    game as it was, and the fault line after it (lib/state.py) says the board is in a
    fault: the page shows it (it showed the game as if nothing were wrong until the
    rebuild's "fault cleared")."""
    from qiklaxon.core import Referee

    sim = harness.Sim(players=4)
    real = Referee.key
    calls = [0]

    def key(r, k):
        calls[0] += 1
        if calls[0] == 3:
            raise ValueError("a bug")
        return real(r, k)

    monkeypatch.setattr(Referee, "key", key)
    sim.play(scenario.taps("100 b\n700 a\n1300 a"), 2000)
    assert sim.events[-1][1].startswith("fault: the referee failed")
    sim.type_in(2000 * 1000)  # the page joins now
    sim.run_until_ms(2400)
    board = scoreboard.Scoreboard()
    answer = [(t, line) for t, line in sim.events if t >= 2000]
    assert [line.split()[0] for _, line in answer] == ["state", "fault:"], answer
    for t, line in answer:
        board.feed(line, t)
    assert board.synced and board.table() == scoreboard.table(sim.device.r)
    assert sim.device.f[L.FAULT]
    assert board.view()["fault"] is not None  # the board is a pure Klaxon in a fault


def test_joining_a_board_whose_klaxon_is_stuck_shows_the_fault():
    """The Klaxon wedged down (QK_STUCK_S = 2): the board says so once, rings purple and
    stays so until it is let go, however long. A page that joins meanwhile gets the
    game's state and the stuck Klaxon after it, and rings purple too (it showed the
    seats, no fault, for as long as the button stayed down)."""
    sim = harness.Sim(players=4, settings="QK_STUCK_S = 2\n")
    sim.play(scenario.taps("100 b\n700 a\n1300 klaxon 60000"), 5000)
    assert sim.events[-1][1] == "fault: the Klaxon is stuck down; check its wiring"
    sim.type_in(30000 * 1000)  # the page joins half a minute later
    sim.run_until_ms(30400)
    board = scoreboard.Scoreboard()
    answer = [(t, line) for t, line in sim.events if t >= 30000]
    assert [line for _, line in answer][1:] == [
        "fault: the Klaxon is stuck down; check its wiring"], answer
    for t, line in answer:
        board.feed(line, t)
    assert board.synced and sim.device.f[L.STUCK]
    assert _ring_names(board, sim.now_ms)[0][0] == "purple"


def test_a_fault_seen_before_the_cable_was_pulled_is_not_shown_for_ever_after():
    """The board faults (the page rings purple and says "Fault: ..."), then its cable is
    pulled and it is powered off and on (USB gone: the page sees no restart line), and
    plugged back in: the page joins again (``rejoin``, web/page.py's board_rejoin) and
    asks. The board has no fault now, and will never print "fault cleared"; the page
    went on saying "Fault" over a purple ring for the rest of the evening."""
    board = scoreboard.Scoreboard()
    line = _state_line(TEN, TEN_U, [0] * 10)
    board.feed(line)
    board.feed("fault: the referee failed: MemoryError()")
    board.feed("sleeping: press the Klaxon")
    assert board.view()["fault"] and _ring_names(board, 0)[0][0] == "purple"
    board.rejoin("connected")
    assert board.need and not board.synced
    board.feed(line)
    v = board.view()
    assert v["synced"] and v["fault"] is None and not v["asleep"]
    assert _ring_names(board, 0)[0][0] != "purple"


@pytest.mark.parametrize("said", [
    ["board mystery is not one of the builds: using the Pico's pin names (set QK_BOARD or "
     "the QK_PIN_ keys)",
     "QI Klaxon cannot start: RuntimeError('no Klaxon button pin: set QK_PIN_KLAXON in "
     "settings.toml')"],
    ["Auto-reload is off.", "Running in safe mode! Not running saved code.", "",
     "safemode.py output:", "QI Klaxon safe mode: SafeModeReason.USER"]])
def test_a_board_that_cannot_start_is_said_so_not_asked(said):
    """A board that cannot start (no Klaxon pin: hardware/start.py) says why once and
    blinks its LED for ever: no game, no answer to an ask. Its line starts as code.py's
    version line does ("QI Klaxon "), which the page took for a start: it asked, and
    said "Joining the game: asking the board" for good. Safe mode (safemode.py) is not
    asked either: a board that stays there would take the byte left waiting as a key,
    into its REPL."""
    board = scoreboard.Scoreboard()
    board.feed("state")  # (it followed this board before: a pure Klaxon, say)
    for line in RELOAD[:-1] + said:
        board.feed(line)
    v = board.view()
    assert not board.need and v["stopped"] and "stopped" in v["status"]


def test_a_referee_s_state_line_cut_short_to_a_bare_state_is_not_taken():
    """A referee's state line cut after its first word (the cable pulled mid-line: the
    bridge sends what it had) reads as a pure Klaxon's bare "state": from a board known
    to referee it is shown as it came and changes nothing (it turned the mirror into a
    pure Klaxon's, asking nothing more)."""
    board = scoreboard.Scoreboard()
    board.feed(_state_line(TEN, TEN_U, [0] * 10))
    before = board.table()
    assert board.feed("state")[0] == "console"
    assert board.table() == before and board.mode == "referee"
    fresh = scoreboard.Scoreboard()  # a board not known yet: a pure Klaxon's state
    assert fresh.feed("state")[0] == "state" and fresh.mode == "klaxon"
