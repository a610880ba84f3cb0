"""tools/simulated/sim.py, and tools/dev.py around it, as a command-line tool (issue 17, item 6):
the caller's paths, bad flags and paths refused before anything is written, input read
a line at a time, idle gaps fast-forwarded on every build, Ctrl-C, the keys, the ring's
labels readable, and the sound's promise kept."""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

import sim as S
import synth
from harness import PALETTE, ROOT, Sim

SIM = os.path.join(ROOT, "tools", "simulated", "sim.py")
DEV = os.path.join(ROOT, "tools", "dev.py")
TAPS = "100 down b\n180 up b\n800 down a\n880 up a\n1400 down klaxon\n1500 up klaxon\n"


def run(args, cwd=ROOT, timeout=60, tool=SIM):
    return subprocess.run([sys.executable, tool] + list(args), cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def no_traceback(r):
    return "Traceback" not in r.stderr and "Exception ignored" not in r.stderr


# ------------------------------------------------------------ paths
@pytest.mark.parametrize("tool", [SIM, DEV])
def test_paths_are_the_callers_not_the_repos(tmp_path, tool):
    (tmp_path / "game.txt").write_text(TAPS)
    (tmp_path / "my.toml").write_text("QK_PLAYERS = 5\n")
    before = set(os.listdir(ROOT))
    args = ["sim"] if tool == DEV else []
    r = run(args + ["--script", "game.txt", "--settings", "my.toml", "--wav", "x.wav"],
            cwd=tmp_path, tool=tool)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "x.wav").stat().st_size > 44  # where it was typed ...
    assert set(os.listdir(ROOT)) == before  # ... not in the checkout
    assert '"positions": [0, 0, 0, 0, 0]' in r.stdout.splitlines()[-1]  # my.toml was read


# ------------------------------------------------------------ --nvm: a power cut between runs
RIGHT = "1000 down b\n1080 up b\n2000 down a\n2080 up a\n3000 down a\n3080 up a\n"


@pytest.mark.parametrize("board", ["simulated", "cpx", "pico"])
def test_a_game_kept_in_an_nvm_file_resumes_in_the_next_run(tmp_path, board):
    """--nvm FILE: the board's flash, written as the run ends (its power cut), read at the
    next power-on: the game a right answer moved goes on there, on each build's flash."""
    (tmp_path / "right.txt").write_text(RIGHT)
    (tmp_path / "ask.txt").write_text("500 down b\n580 up b\n")
    first = run(["--board", board, "--players", "2", "--script", "right.txt", "--nvm", "g.nvm",
                 "--wav", ""], cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.splitlines()[-1])["positions"] == [0, 3]
    again = run(["--board", board, "--players", "2", "--script", "ask.txt", "--nvm", "g.nvm",
                 "--wav", ""], cwd=tmp_path)
    events = [json.loads(x) for x in again.stdout.splitlines()]
    assert again.returncode == 0 and events[0]["event"] == "resumed", again.stdout
    assert events[0]["positions"] == [0, 3] and events[-1]["phase"] == "answering"
    fresh = run(["--board", board, "--players", "2", "--script", "ask.txt", "--wav", ""],
                cwd=tmp_path)  # (without the file: a new game)
    assert json.loads(fresh.stdout.splitlines()[0])["event"] == "new_game"


def test_an_nvm_file_of_another_size_or_a_folder_exits_2_and_is_left_alone(tmp_path):
    (tmp_path / "right.txt").write_text(RIGHT)
    (tmp_path / "small.nvm").write_bytes(b"\xff" * 256)  # an Express's flash
    r = run(["--script", "right.txt", "--nvm", "small.nvm"], cwd=tmp_path)
    assert r.returncode == 2 and no_traceback(r) and r.stdout == ""
    assert r.stderr.startswith("sim: --nvm ") and "256 bytes" in r.stderr
    assert (tmp_path / "small.nvm").read_bytes() == b"\xff" * 256
    (tmp_path / "dir").mkdir()
    r = run(["--script", "right.txt", "--nvm", "dir"], cwd=tmp_path)
    assert r.returncode == 2 and no_traceback(r) and "is a folder" in r.stderr


# ------------------------------------------------------------ bad flags, bad paths
def test_a_wav_in_a_folder_that_is_not_there_exits_2_and_makes_nothing(tmp_path):
    (tmp_path / "game.txt").write_text(TAPS)
    wav = tmp_path / "no" / "such" / "x.wav"
    r = run(["--script", str(tmp_path / "game.txt"), "--wav", str(wav)])
    assert r.returncode == 2 and no_traceback(r)
    assert r.stderr.startswith("sim: --wav ") and r.stdout == ""
    assert not (tmp_path / "no").exists()
    if not os.path.exists("/nonexistent"):  # the issue's own case (as root it was made)
        r = run(["--script", str(tmp_path / "game.txt"), "--wav", "/nonexistent/x.wav"])
        assert r.returncode == 2 and no_traceback(r) and not os.path.exists("/nonexistent")


def test_a_wav_that_is_a_folder_exits_2_before_playing_with_no_traceback(tmp_path):
    (tmp_path / "game.txt").write_text(TAPS)
    r = run(["--script", str(tmp_path / "game.txt"), "--wav", str(tmp_path)])
    assert r.returncode == 2 and no_traceback(r), r.stderr
    assert "Wave_write" not in r.stderr and r.stderr.startswith("sim: --wav ")
    assert r.stdout == ""  # refused before the game, not after its JSON


@pytest.mark.parametrize("flags, flag, allowed", [
    (["--players", "12"], "--players", "2 to 10"),
    (["--players", "1"], "--players", "2 to 10"),
    (["--qm", "7", "--players", "4"], "--qm", "0 to 3"),
    (["--qm", "4"], "--qm", "0 to 3"),  # 4 players by default
    (["--qm", "-1", "--players", "6"], "--qm", "0 to 5"),
])
def test_players_and_qm_out_of_range_exit_2_naming_the_flag_and_the_range(
        tmp_path, flags, flag, allowed):
    (tmp_path / "game.txt").write_text(TAPS)
    r = run(flags + ["--script", str(tmp_path / "game.txt"), "--wav", ""])
    assert r.returncode == 2 and no_traceback(r)
    assert r.stderr.startswith("sim: " + flag) and allowed in r.stderr
    assert "settings.toml" not in r.stderr and r.stdout == ""


@pytest.mark.parametrize("what", ["missing", "folder"])
def test_a_script_or_settings_path_that_is_not_a_file_exits_2_naming_the_flag(tmp_path, what):
    path = str(tmp_path / "nope") if what == "missing" else str(tmp_path)
    (tmp_path / "game.txt").write_text(TAPS)
    for flags, flag in ((["--script", path], "--script"),
                        (["--settings", path, "--script", str(tmp_path / "game.txt")],
                         "--settings")):
        r = run(flags + ["--wav", ""])
        assert r.returncode == 2 and no_traceback(r)
        assert r.stderr.startswith("sim: %s %s" % (flag, path)) and r.stdout == ""


def test_the_script_is_read_a_line_at_a_time_with_a_line_length_cap(tmp_path):
    started = time.monotonic()
    r = run(["--script", "/dev/zero", "--wav", ""], timeout=30)  # never ends, no newline
    assert r.returncode == 2 and no_traceback(r)
    assert "line 1 is longer than %d characters" % S.MAX_LINE in r.stderr
    assert time.monotonic() - started < 20
    long_line = tmp_path / "long.txt"
    long_line.write_text("100 down klaxon\n" + "1" * 10_000 + " down a\n")
    r = run(["--script", str(long_line), "--wav", ""])
    assert r.returncode == 2 and "line 2 is longer" in r.stderr and r.stdout == ""
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"100 down klaxon\n\xff\xfe up a\n")
    r = run(["--script", str(binary), "--wav", ""])
    assert r.returncode == 2 and "line 2 is not UTF-8" in r.stderr and no_traceback(r)


def test_a_script_saved_with_a_byte_order_mark_plays_as_without_it(tmp_path):
    """Notepad's UTF-8 starts the file with a byte order mark: the script plays the same."""
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + TAPS.encode())
    (tmp_path / "plain.txt").write_text(TAPS)
    a = run(["--script", "bom.txt", "--wav", ""], cwd=tmp_path)
    b = run(["--script", "plain.txt", "--wav", ""], cwd=tmp_path)
    assert a.returncode == 0 and a.stdout == b.stdout, a.stderr


def test_read_script_never_reads_more_than_a_capped_line_at_once():
    class Endless:
        reads = []

        def readline(self, limit=-1):
            assert 0 < limit <= S.MAX_LINE + 1, "an unbounded read"
            self.reads.append(limit)
            return "1" * limit

    with pytest.raises(S.ScriptError, match="longer than"):
        S.read_script(Endless())
    assert len(Endless.reads) == 1


# ------------------------------------------------------------ idle gaps
WEEK_GAP = "100 down b\n180 up b\n800 down a\n880 up a\n" \
           "%(t)d down klaxon\n%(t1)d up klaxon\n%(t2)d down a\n%(t3)d up a\n"


def gap_script(t):
    return WEEK_GAP % {"t": t, "t1": t + 100, "t2": t + 1000, "t3": t + 1080}


@pytest.mark.parametrize("board, settings", [("cpx", ""), ("simulated", "QK_SLEEP_MIN = 0\n"),
                                             ("cpb", "QK_SLEEP_MIN = 0\n"), ("cpb", "")])
def test_a_week_long_gap_takes_seconds_on_every_build(tmp_path, board, settings):
    (tmp_path / "week.txt").write_text(gap_script(604_000_000))
    (tmp_path / "s.toml").write_text(settings)
    started = time.monotonic()
    r = run(["--board", board, "--settings", str(tmp_path / "s.toml"), "--script",
             str(tmp_path / "week.txt"), "--wav", ""])
    took = time.monotonic() - started
    assert r.returncode == 0, r.stderr
    assert took < 10, "a week's idle gap took %.1f s" % took
    if "SLEEP" in settings or board == "cpx":  # awake all week: the Klaxon after it counts
        assert '"phase": "reveal"' in r.stdout.splitlines()[-1]


def records_after(sim, t0):
    return [(t - t0, n, f) for t, n, f in sim.records() if t >= t0]


@pytest.mark.parametrize("board, settings", [("cpx", ""), ("simulated", "QK_SLEEP_MIN = 0\n")])
def test_jumping_the_idle_clock_changes_nothing_the_device_does(board, settings):
    """The same game with a 2-hour gap, with and without the jumps, gives the same
    events at the same times; and after a week's gap (past the ticks' 2**29 ms wrap) the
    presses after it give the same events, relative to them, as after the short one."""
    def play(gap, jump):
        s = Sim(settings, board_name=board, coarse=True)
        s.jump_us = jump
        s.play(S.parse_script(gap_script(gap)), gap + 3000)
        return s

    short = 2 * 3600 * 1000
    a, b = play(short, 0), play(short, Sim(board_name=board).jump_us)
    assert a.records() == b.records() and a.game.to_bytes() == b.game.to_bytes()
    week = play(604_000_000, Sim(board_name=board).jump_us)
    assert records_after(week, 604_000_000) == records_after(b, short)
    assert week.game.to_bytes() == b.game.to_bytes()


def test_a_save_due_stops_the_jump_until_it_is_made():
    s = Sim(board_name="cpx", coarse=True)
    s.tap("b", 100)  # a question asked: saved a second later
    s.run_until_ms(400)
    assert s._settled(s.device) == 0  # the save is due
    s.run_until_ms(3_000_000)
    assert s._settled(s.device) > 0


# ------------------------------------------------------------ Ctrl-C
def dense_script(path, seconds=3600):
    with open(path, "w") as f:
        for i in range(seconds * 5):
            t = 100 + i * 200
            f.write("%d down klaxon\n%d up klaxon\n" % (t, t + 50))


def as_a_terminal_job():
    """In the child: Ctrl-C as a terminal's foreground job gets it. A job started in the
    background of a non-interactive shell (a CI script's ``cmd &``) inherits SIGINT
    ignored, and the test would wait for a Ctrl-C that never arrives."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(cmd, cwd, after=2.0):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True, preexec_fn=as_a_terminal_job)
    time.sleep(after)
    os.killpg(p.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole job
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err


@pytest.mark.parametrize("via", ["sim", "dev"])
def test_ctrl_c_stops_a_run_cleanly_and_keeps_what_was_recorded(tmp_path, via):
    dense_script(tmp_path / "long.txt")
    cmd = [sys.executable] + ([DEV, "sim"] if via == "dev" else [SIM]) + [
        "--board", "cpx", "--klaxon-only", "--script", "long.txt", "--wav", "rec.wav"]
    rc, out, err = interrupted(cmd, tmp_path, after=3.0 if via == "dev" else 2.0)
    assert "Traceback" not in err, err
    assert rc == 130 and "interrupted" in err
    assert out.splitlines()[-1].startswith('{"t_ms"') and '"event": "state"' in out
    assert '"event": "klaxon"' in out
    assert (tmp_path / "rec.wav").stat().st_size > 44  # the sounds so far, written


def test_ctrl_c_stops_dev_py_web_with_no_traceback(tmp_path):
    import web

    try:
        web.install(out=lambda *a: None)
    except web.WebError as e:
        pytest.skip("the page's VM cannot be installed here: %s" % e)
    p = subprocess.Popen([sys.executable, DEV, "web", "--port", "0"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=as_a_terminal_job)
    line = p.stdout.readline()
    assert "http://127.0.0.1:" in line
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert p.returncode == 0


# ------------------------------------------------------------ in a terminal
def in_terminal(args, keys, tmp_path, wait=2.5, end=None):
    """The sim in a pseudo-terminal: type ``keys`` ([(text, pause s)]), then ``end``
    (None: wait for it to exit; a signal number: send it). (exit code, what it printed,
    the terminal's local modes after it ended)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(str(tmp_path))
        as_a_terminal_job()
        os.execv(sys.executable, [sys.executable, SIM, "--wav", ""] + list(args))
    out = b""

    def drain(seconds):
        nonlocal out
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return

    try:
        drain(wait)
        for text, pause in keys:
            os.write(fd, text.encode())
            drain(pause)
        if end is not None:
            os.kill(pid, end)
        stop = time.monotonic() + 20
        status = None
        while time.monotonic() < stop:
            drain(0.1)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError("the sim did not end: " + out.decode(errors="replace")[-2000:])
        drain(0.2)
        modes = termios.tcgetattr(fd)[3]
    finally:
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace"), modes


def terminal(keys, tmp_path, wait=1.5, args=()):
    """Run the sim in a pseudo-terminal, type ``keys`` (a list of (text, pause s)), and
    return (exit code, what it printed)."""
    rc, out, _ = in_terminal(["--wav", "rec.wav"] + list(args), keys, tmp_path, wait)
    return rc, out


def test_upper_case_k_is_the_klaxon_too_and_ctrl_c_quits_keeping_the_sounds(tmp_path):
    rc, out = terminal([("b", 0.6), ("a", 0.6), ("K", 1.0), ("\x03", 1.0)], tmp_path)
    assert "Traceback" not in out, out[-2000:]
    assert rc == 0
    assert "klaxon 2 1" in out  # K: seat 2 challenges seat 1's answer
    assert (tmp_path / "rec.wav").stat().st_size > 44
    assert "sounds written to" in out


def test_each_run_in_a_terminal_rolls_new_dice_and_seed_replays_them(tmp_path):
    """Played in a terminal, the dice are new each run (a user saw the same first roll
    every time); --seed gives a run's dice again; a script replays the same game."""
    import re

    def first_roll(args=()):
        rc, out = terminal([("a", 0.8), ("q", 0.5)], tmp_path, args=args)  # A: roll
        assert rc == 0, out[-1000:]
        return re.search(r"roll (\d) (\d) (\d)", out).groups()

    seed_1 = first_roll(["--seed", "1"])
    assert first_roll(["--seed", "1"]) == seed_1
    assert [first_roll(), first_roll()] != [seed_1, seed_1]  # (by chance: 1 in 46,656)
    (tmp_path / "roll.txt").write_text("100 down a\n180 up a\n")
    rolls = [json.loads(x) for a in ([], [], ["--seed", "1"]) for x in run(
        ["--script", "roll.txt"] + a, tmp_path).stdout.splitlines() if '"roll"' in x]
    assert len(rolls) == 3 and rolls[0] == rolls[1] == rolls[2], rolls


def test_the_terminal_ring_is_drawn_round_with_every_seat_readable(tmp_path):
    rc, out = terminal([("q", 1.0)], tmp_path)
    assert rc == 0 and "USB" in out
    for seat in range(4):
        assert "\x1b[38;2;255;255;255m %d " % seat in out or \
            "\x1b[38;2;0;0;0m %d " % seat in out


def test_every_lit_or_unlit_pixel_keeps_its_number_readable():
    for c in PALETTE:
        fg = S.label_colour(c)
        assert S.contrast(c, fg) >= 4.5, hex(c)  # WCAG AA for text
    assert S.label_colour(0) == 0xFFFFFF  # unlit: white on black, not black on black
    line = "".join(S.ring_lines([0] * 10, [str(i) for i in range(10)], list(range(1, 11))))
    assert "\x1b[48;2;0;0;0m\x1b[38;2;0;0;0m" not in line


# ------------------------------------------------------------ the sound's promise
def test_the_sim_and_the_readme_say_the_sounds_are_written_when_you_quit():
    r = run(["--help"])
    assert r.returncode == 0
    assert "written to a WAV file when you quit" in " ".join(r.stdout.split())
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = " ".join(f.read().split())
    assert "the sounds go to `out/klaxon-sim.wav` (played with" not in readme  # live, it said
    assert "written to `out/klaxon-sim.wav` when you quit" in readme


def test_redrawing_the_ring_keeps_the_lines_above_it():
    """The ring and status are redrawn in place: the cursor goes back to the ring's
    first line, not one above it (which ate a line of the legend and events each time)."""
    import io

    sim = Sim(players=4, coarse=True)
    sim.run_until_ms(50)
    out = io.StringIO()
    screen = S.Screen(out)
    screen.show(sim)
    first = out.getvalue()
    height = first.count("\n") + 1
    screen.show(sim, ["an event"])
    again = out.getvalue()[len(first):]
    assert again.startswith("\r\x1b[%dA\x1b[J" % (height - 1))
    assert "an event\n" in again


def terminal_screen(data, cols, rows):
    """What a terminal of ``cols`` x ``rows`` shows after ``data``: a small VT100 (text,
    CR, LF, wrapping at the last column, scrolling, ESC[nA, ESC[J; colours ignored)."""
    import re

    screen = [[" "] * cols for _ in range(rows)]
    r = c = 0
    for tok in re.findall(r"\x1b\[[0-9;]*[A-Za-z]|.|\n", data, flags=re.S):
        if tok.startswith("\x1b["):
            n = int(tok[2:-1] or 1) if tok[-1] == "A" else 0
            if tok[-1] == "A":
                r = max(0, r - n)
            elif tok[-1] == "J":
                screen[r][c:] = [" "] * (cols - c)
                for k in range(r + 1, rows):
                    screen[k] = [" "] * cols
            continue
        if tok == "\r":
            c = 0
            continue
        if tok == "\n" or c >= cols:
            r, c = r + 1, 0
            if r == rows:
                screen = screen[1:] + [[" "] * cols]
                r = rows - 1
            if tok == "\n":
                continue
        screen[r][c] = tok
        c += 1
    return ["".join(row).rstrip() for row in screen]


@pytest.mark.parametrize("cols, rows", [(80, 24), (40, 30), (60, 8)])
def test_the_ring_is_redrawn_cleanly_in_a_narrow_or_short_pane(cols, rows):
    """Issue 31: the sound log filling the pane left old ring lines behind (a status line
    wider than the pane wrapped, and the redraw went back one row too few). After many
    redraws with events between them, the pane shows exactly one ring, its status line
    last, and the events above it."""
    import io

    sim = Sim(players=6, coarse=True)
    out = io.StringIO()
    screen = S.Screen(out, size=(cols, rows))
    for k in range(30):
        sim.press("b" if k % 3 == 0 else "a", 200 + 700 * k, 80)
        sim.run_until_ms(600 + 700 * k)
        screen.show(sim, ["event %d: a line of the log as long as a sound's %s" % (k, "x" * 60)])
    shown = terminal_screen(out.getvalue(), cols, rows)
    assert sum(line.count("USB") for line in shown) == (1 if rows > 10 else 0), shown
    assert shown[-1].startswith(S.status_of(sim)[:cols - 1].rstrip()), shown
    assert sum(line.startswith(S.status_of(sim).split()[0]) for line in shown) == 1, shown


def test_a_passed_seat_s_grey_is_drawn_as_a_lit_light():
    """Grey (a passed seat, 0x181818 on the board) is drawn as a person sees a dim LED: a
    grey plainly brighter than an unlit light's black."""
    sim = Sim(players=4)
    sim.tap("b", 100)
    sim.tap("b", 500)  # seat 1 passes: grey
    sim.run_until_ms(1200)
    colours, labels, _ = S.ring_now(sim)
    grey = colours[sim.ring().index("grey")]
    assert min(grey >> 16, grey >> 8 & 255, grey & 255) >= 0x80
    assert "\x1b[48;2;140;140;140m" in "".join(S.ring_picture(sim))


def test_the_table_view_says_the_ring_in_words_by_seat_and_the_sounds_as_heard():
    """`sim --table` shows what a table has: each lit light by the seat it is, its colour
    and whether it blinks (the scene's places run clockwise, whichever way the board
    numbers its pixels), a flash or a die as such, and each sound in the card's words."""
    sim = Sim(players=4)
    for t, c in ((100, "b"), (600, "a"), (1100, "klaxon")):
        sim.press(c, t, 80)
    sim.run_until_ms(1200)
    assert S.ring_words(sim) == "the whole ring flashes vermillion and white"
    sim.run_until_ms(2000)
    assert S.ring_words(sim) == ("seat 0's light white; seat 1's light yellow blinking fast; "
                                 "seat 2's light vermillion blinking fast; seat 3's light grey")
    assert set(S.HEARD) == set(synth.NAMES)


# ------------------------------------------------------------ the scoreboard, without a board
def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_sim_shows_its_game_on_the_scoreboard_page_as_a_board_would(tmp_path):
    """``sim --scoreboard PORT`` (docs/scoreboard.md: trying it without a board): it prints
    the page's address; the page's events carry the sim's console lines as they come;
    the page's ask makes the sim's board print its whole state; a scoreboard fed those
    lines (tools/maker/scoreboard.py, as the page runs it) follows the game the keys play."""
    import json
    import threading
    import urllib.request

    import scoreboard
    import web

    try:
        web.install(out=lambda *a: None)
    except web.WebError as e:
        pytest.skip("the page's VM cannot be installed here: %s" % e)
    port = _free_port()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(str(tmp_path))
        as_a_terminal_job()
        os.execv(sys.executable, [sys.executable, SIM, "--wav", "", "--scoreboard", str(port)])
    out = b""

    def drain_until(cond, seconds=60):
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end and not cond():
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return
        return cond()

    got = []  # the page's events
    try:
        assert drain_until(lambda: b"The scoreboard of this simulated board: http://127.0.0.1:%d/"
                           % port in out), out.decode(errors="replace")[-2000:]
        base = "http://127.0.0.1:%d/" % port
        with urllib.request.urlopen(base + "serial", timeout=10) as r:
            status = json.load(r)
        assert status["connected"] and status["name"].startswith("the simulated board")
        with urllib.request.urlopen(base + "index.html", timeout=10) as r:
            assert b"Connect a board" in r.read()

        def listen():
            with urllib.request.urlopen(base + "serial/events", timeout=60) as r:
                for raw in r:
                    if raw.startswith(b"data: "):
                        got.append(json.loads(raw[6:]))

        threading.Thread(target=listen, daemon=True).start()
        texts = lambda: [m["text"] for m in got if m["kind"] == "line"]  # noqa: E731
        assert drain_until(lambda: got), "no events"
        req = urllib.request.Request(base + "serial/ask", method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 204
        assert drain_until(lambda: any(t.startswith("state ") for t in texts())), texts()
        for key in ("b", "a", "k"):  # ask; seat 1 answers; seat 2 challenges it
            os.write(fd, key.encode())
            drain_until(lambda: False, 0.6)
        assert drain_until(lambda: "klaxon 2 1" in texts()), texts()
        os.write(fd, b"q")
        drain_until(lambda: False, 1.0)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status_ = os.waitpid(pid, 0)
        os.close(fd)
    assert "Traceback" not in out.decode(errors="replace")
    board = scoreboard.Scoreboard()
    lines = texts()
    for i, text in enumerate(lines):
        board.feed(text, i)
    state = lines.index(next(t for t in lines if t.startswith("state ")))
    assert not board.need and board.synced, lines
    assert "answer 1" in lines[state:]
    v = board.view()  # what the page shows: seat 2 challenges seat 1's answer
    assert (v["challenger"], v["challenged"], v["players"]) == (2, 1, 4), v


def test_the_table_view_says_the_positions_as_such():
    """`sim --table` during every position shown: the seat's light and the lights after
    it, never "a die" (the breaker's D7) nor other seats' lights."""
    sim = Sim(players=4)
    sim.game.ask()
    for _ in range(3):
        sim.game.pass_()
    sim.game.move(2, 27)
    sim.device.render()
    sim.press("klaxon", 200, 80)
    said = set()
    for t in range(5200, 7600, 40):  # seat 2's turn: 5.12 s to 7.68 s
        sim.run_until_ms(t)
        said.add(S.ring_words(sim))
    assert said <= {"positions: seat 2's light yellow blinking fast, after it 2 white, 7 orange",
                    "positions: dark between seats"}, said
    assert "positions: seat 2's light yellow blinking fast, after it 2 white, 7 orange" in said


def test_setting_up_a_game_the_seat_numbers_are_the_new_games():
    """Choosing 5 players, the terminal's numbers on the lights are the new game's seats
    (the QM trial: they stayed the old game's, so the first QM's light had no number)."""
    sim = Sim(players=4)
    sim.press("b", 200, 3500)  # before a first question: B held long sets up a game
    sim.tap("a", 4200)  # 5 players
    sim.run_until_ms(5000)
    _, labels, _ = S.ring_now(sim)
    assert sorted(int(x) for x in labels if x) == [0, 1, 2, 3, 4]
