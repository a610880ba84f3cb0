"""The browser lane: the page (web/) in a real headless Chromium, played with the mouse
and the keyboard on its on-screen buttons, must do exactly what the host harness does
with the same pin levels at the same times; a reload mid-question resumes the game.

Without Debian's chromium and chromium-driver this lane skips, saying how to get
them; CI installs them and sets QK_REQUIRE_BROWSER=1, which makes a skip a failure.
"""

import os
import time
import wave

import pytest

import browser
import events as E
from harness import ROOT, Sim

try:
    browser.find()
except browser.Unavailable as e:
    if os.environ.get("QK_REQUIRE_BROWSER"):
        raise
    pytest.skip(str(e), allow_module_level=True)

# where the screenshots go: out/ (QK_SHOTS=docs refreshes the README's)
SHOTS = os.path.join(ROOT, os.environ.get("QK_SHOTS", "out"))

# A hurried table: (control, held s, then a gap s). A Klaxon before anyone has
# answered, quick taps, a tap just before the Klaxon, the reveal marked, a mark undone
# (B held), and the Klaxon penalty counted in.
GAME = [
    ("b", 0.08, 0.3),  # the QM asks
    ("klaxon", 0.1, 0.4),  # refused: nobody has answered yet
    ("b", 0.06, 0.12),  # seat 1 passes, quickly
    ("a", 0.06, 0.03),  # seat 2 answers, and at once...
    ("klaxon", 0.15, 1.6),  # ...the Klaxon: seat 3 challenges (its sound runs 1.3 s)
    ("a", 0.08, 0.3),  # the reveal: the answer marked right
    ("b", 1.8, 0.4),  # B held: that mark undone
    ("b", 0.08, 0.3),  # wrong
    ("a", 0.08, 0.2),  # the penalty: +1
    ("a", 0.08, 0.2),  # +1
    ("b", 0.08, 0.6),  # done
]


def harness_for(trace):
    """The host harness with the page's settings, die and pin levels, run to the page's time."""
    sim = Sim(settings=trace["settings"], seed=trace["seed"])
    for t_us, control, pressed in trace["levels"]:
        sim.level(control, t_us, pressed)
    sim.run_until_us(trace["now_us"])
    return sim


def state_of(sim):
    r = sim.device.r
    if r is None:
        return {"mode": "klaxon"}
    g = sim.game
    return {"mode": "referee", "players": g.players, "qm": g.qm, "phase": g.phase,
            "positions": g.positions, "answering": g.answering, "challenger": g.challenger,
            "challenged": g.challenged}


@pytest.fixture(scope="module")
def chromium():
    with browser.Browser() as b:
        yield b


def play(b, steps):
    for control, hold, gap in steps:
        b.press(control, hold, gap)


def test_a_game_played_on_the_page_is_the_harness_game(chromium):
    b = chromium
    b.open("?seed=7")
    play(b, GAME)
    trace = b.trace()
    assert trace["coarse"] == 0, "the page fell behind real time: its passes differ"
    assert len(trace["levels"]) == 2 * len(GAME), "every press reached the device's pins"
    sim = harness_for(trace)
    page_lines = [[t, line] for t, line in trace["lines"]]
    host_lines = [[t, line] for t, line in sim.events]
    assert page_lines == host_lines
    assert trace["state"] == state_of(sim)
    # what the table saw happen, and heard
    names = [n for _, n, _ in E.merge([(t, *E.parse(line)) for t, line in page_lines])]
    for name in ("ask", "refused", "answer", "pass", "klaxon", "mark", "unmark", "penalty"):
        assert name in names, name
    heard = [[int(ms), name] for ms, name in b.js("return qk.sounds")]
    assert heard == [list(s) for s in sim.sounds()]
    assert ["klaxon"] == [n for _, n in heard if n == "klaxon"]
    # the event lines are shown as the sentences tools/simulated/events.py makes
    shown = b.js("return [...document.querySelectorAll('#log li')].map(li => li.textContent)")
    assert "KLAXON! seat %d challenges seat %d" % (
        sim.game.challenger, sim.game.challenged) in shown
    assert shown[-1] == E.sentence(*E.merge([(t, *E.parse(line)) for t, line in page_lines])[-1][1:])
    b.screenshot(os.path.join(SHOTS, "web-page.png"))


def test_a_reload_mid_question_resumes_the_game_as_a_power_cut_does(chromium):
    b = chromium
    b.open("?seed=3")
    play(b, [("b", 0.08, 0.3), ("a", 0.08, 1.5)])  # asked, seat 1 answered; saved 1 s later
    before = b.trace()
    assert before["state"]["phase"] == "answering" and before["state"]["answering"] == 2
    b.reload()
    after = b.trace()
    assert after["state"] == before["state"]
    assert after["lines"][0][1] == "resumed"
    shown = b.js("return document.getElementById('status').textContent")
    assert "resumed" in shown
    # the game goes on from there: the seat whose turn it is challenges seat 1's answer
    play(b, [("klaxon", 0.1, 0.5)])
    s = b.trace()["state"]
    assert (s["phase"], s["challenger"], s["challenged"]) == ("reveal", 2, 1)


def test_the_keyboard_plays_too_and_a_held_key_counts_once(chromium):
    b = chromium
    b.open("?seed=5&klaxon-only")
    b.key(" ", 0.6, 0.2)  # held: the OS repeats the key; one press
    b.key("k", 0.08, 1.5)
    trace = b.trace()
    assert [line for _, line in trace["lines"]] == ["klaxon sounded"] * 2
    assert trace["state"] == {"mode": "klaxon"}
    assert len(b.js("return qk.latencies")) == 2
    # the second press came while the klaxon sounded: it starts again, the first stopped
    sim = harness_for(trace)
    assert [[int(ms), n] for ms, n in b.js("return qk.sounds")] == [list(s) for s in sim.sounds()]


def test_a_portrait_phone_gets_the_whole_board_on_screen(chromium):
    b = chromium
    b.d.set_window_size(390, 844)
    try:
        b.open("?seed=1")
        play(b, [("b", 0.08, 0.3), ("a", 0.08, 0.3)])
        boxes = b.js("""return ['klaxon', 'a', 'b'].map(id => {
            const r = document.getElementById(id).getBoundingClientRect();
            return [r.left, r.right, r.width, r.height]; })""")
        width = b.js("return document.documentElement.clientWidth")
        for left, right, w, h in boxes:
            assert left >= 0 and right <= width, "a button off the screen's side"
            assert w >= 64 and h >= 64, "a touch target under 64 px"
        b.screenshot(os.path.join(SHOTS, "web-phone.png"))
    finally:
        b.d.set_window_size(1280, 800)


def test_the_buttons_set_up_a_new_game_and_the_harness_agrees(chromium):
    """Players and the first QM are set at the table, as on the board: before the first
    question, B held 3 s sets up the game, A one more player, B go on, A the next seat as
    first QM, B go on."""
    b = chromium
    b.open("?seed=11")
    play(b, [("b", 3.3, 0.3), ("a", 0.08, 0.2), ("b", 0.08, 0.2),
             ("a", 0.08, 0.2), ("b", 0.08, 0.5)])
    trace = b.trace()
    assert trace["state"]["players"] == 5 and trace["state"]["qm"] == 1
    sim = harness_for(trace)
    assert [[t, line] for t, line in sim.events] == trace["lines"]
    assert state_of(sim) == trace["state"]
    assert len(b.js("return document.querySelectorAll('.pixel:not(.free)')")) == 5


def test_the_page_sleeps_as_the_board_does_and_the_klaxon_wakes_it_and_counts(chromium):
    """After QK_SLEEP_MIN (15) idle minutes the device saves and deep-sleeps; on the
    page the ring goes dark, A and B do nothing, and the Klaxon wakes it: the saved game
    resumes and that press counts, as on the board."""
    b = chromium
    b.open("?seed=2")
    play(b, [("b", 0.08, 0.3), ("a", 0.08, 1.5)])  # asked; seat 1 answered
    b.js("qk.skip(16 * 60 * 1000)")  # as if 16 minutes went by
    time.sleep(0.5)
    assert b.js("return document.getElementById('asleep').hidden") is False
    lines = [line for _, line in b.trace()["lines"]]
    assert lines[-1].startswith("sleeping")
    b.press("a", 0.1, 0.2)  # A and B do not wake it (only the Klaxon's pin alarm does)...
    b.key("b", 0.1, 0.2)
    assert [line for _, line in b.trace()["lines"]] == lines
    b.press("klaxon", 0.1, 0.5)
    trace = b.trace()
    lines = [line for _, line in trace["lines"]]
    assert lines[-3:] == ["resumed", "at 0 0 0 0", "klaxon 2 1"]
    assert b.js("return document.getElementById('asleep').hidden") is True
    assert not any(line.startswith("fault") for line in lines)
    assert trace["state"]["phase"] == "reveal"


def test_two_inputs_on_one_button_are_one_contact(chromium):
    """A finger (the mouse) holds A while the A key is tapped: A stays held until the
    last lets go, so the hold (a miss-a-go between questions) is not cut into a tap."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    b = chromium
    b.open("?seed=4")
    a = b.d.find_element(By.ID, "a")
    ActionChains(b.d, duration=0).click_and_hold(a).pause(0.2).key_down("a").pause(0.1) \
        .key_up("a").pause(1.5).release().perform()
    time.sleep(0.4)
    trace = b.trace()
    assert [(c, p) for _, c, p in trace["levels"]] == [("a", True), ("a", False)]
    assert trace["levels"][1][0] - trace["levels"][0][0] >= 1700000  # held 1.8 s, one contact
    sim = harness_for(trace)
    assert [[t, line] for t, line in sim.events] == trace["lines"]
    assert any(line.startswith("miss") for _, line in trace["lines"])


def test_keys_reach_the_device_wherever_the_focus_is_and_enter_taps_the_focused_button(chromium):
    b = chromium
    b.open("?seed=6")
    b.js("document.getElementById('mute').focus()")
    b.key(" ", 0.08, 0.3)  # the Klaxon, not Mute: no question yet, so a try
    assert b.js("return document.getElementById('mute').checked") is False
    b.js("document.getElementById('b').focus()")
    b.key("\ue007", 0.05, 0.4)  # Enter on the focused B: a tap (the QM asks)
    b.js("document.getElementById('a').click()")  # as a screen reader presses it: seat 1 answers
    time.sleep(0.4)
    b.key("\ue007", 1.8, 0.4)  # Enter held on B (auto-repeat and all): B held, one undo
    lines = [line for _, line in b.trace()["lines"]]
    assert lines[2:5] == ["klaxon sounded", "ask 0", "answer 1"]
    assert lines[5:] == ["undo", "at 0 0 0 0"]
    trace = b.trace()
    assert [[t, line] for t, line in harness_for(trace).events] == trace["lines"]


def test_a_kept_game_that_is_not_one_starts_a_new_game_and_says_so(chromium):
    b = chromium
    for bad in ("zz-not-hex", "abc", "00" * 10, "ff" * 5000):
        b.open("?seed=1")
        b.js("localStorage.setItem('qiklaxon.nvm', arguments[0])", bad)
        b.reload()
        status = b.js("return document.getElementById('status').textContent")
        assert "not a saved game" in status, (bad[:12], status)
        assert b.trace()["state"]["phase"] == "idle"
        time.sleep(0.1)  # the next frame writes an erased flash over it
        kept = b.js("return localStorage.getItem('qiklaxon.nvm')")
        assert kept == "ff" * 4096
    b.open("?seed=1")
    b.js("localStorage.setItem('qiklaxon.nvm', arguments[0])", "0" * 8192)  # a flash, not a game
    b.reload()
    lines = [line for _, line in b.trace()["lines"]]
    assert lines[0].startswith("nvm holds no valid saved game")
    assert "new game" in b.js("return document.getElementById('status').textContent")


@pytest.mark.parametrize("query", ["?seed=0.5", "?seed=Infinity", "?seed=-3", "?seed=1e40",
                                   "?seed=abc"])
def test_a_seed_that_is_not_a_whole_31_bit_number_is_not_taken(chromium, query):
    b = chromium
    b.open(query)
    b.press("a", 0.08, 0.4)  # between questions: a roll of the die
    trace = b.trace()
    assert 1 <= trace["seed"] < 2 ** 31 - 1
    assert [line for _, line in trace["lines"]][2].startswith("roll ")
    assert not any(line.startswith("fault") for _, line in trace["lines"])


def test_a_second_tab_does_not_start_a_second_board_on_the_same_saved_game(chromium):
    b = chromium
    b.open("?seed=8")
    play(b, [("b", 0.08, 0.3)])
    first = b.d.current_window_handle
    b.d.switch_to.new_window("tab")
    try:
        b.d.get(b.base + "?seed=8")
        time.sleep(1.0)
        assert b.js("return qk.ready") is False
        assert "another tab" in b.js("return document.getElementById('status').textContent")
    finally:
        b.d.close()
        b.d.switch_to.window(first)
    b.reload()  # the one board goes on, its game as it was
    assert b.trace()["state"]["phase"] == "answering"


def test_the_ring_is_drawn_as_the_board_has_it_with_each_seat_where_the_firmware_lights_it(
        chromium):
    """Pixel i where the Circuit Playground has it (tools/simulated/events.py RING_POSITIONS, the USB
    connector at the top), and each seat's number on the pixel the device lights for it:
    the QM's white, the answering seat's yellow."""
    import math

    b = chromium
    b.open("?seed=9")
    play(b, [("b", 0.08, 0.4)])  # the QM asks: seat 1's turn
    px = b.js("""return [...document.querySelectorAll('.pixel')].map(el => {
        const r = el.getBoundingClientRect();
        return [Number(el.dataset.pixel), r.left + r.width / 2, r.top + r.height / 2,
                el.querySelector('.seat').textContent, el.style.background]; })""")
    ring = b.js("""const r = document.getElementById('ring').getBoundingClientRect();
        const u = document.getElementById('usb').getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2, u.left + u.width / 2, u.top];""")
    cx, cy, ux, uy = ring
    assert abs(ux - cx) < 2 and uy < cy  # the USB connector at 12 o'clock
    hours = E.ring_hours("simulated", 10)
    for i, x, y, _, _ in px:
        h = (math.degrees(math.atan2(x - cx, cy - y)) / 30) % 12
        assert min(abs(h - hours[i]), 12 - abs(h - hours[i])) < 0.3, (i, h)
    labels = E.seat_labels("simulated", 4, 10)
    assert [seat for _, _, _, seat, _ in px] == ["" if s is None else str(s) for s in labels]
    lit = {seat: colour for _, _, _, seat, colour in px if seat}
    assert lit["0"] == "rgb(255, 255, 255)"  # the QM, white, on the pixel labelled 0
    time.sleep(0.6 - time.time() % 0.5)  # (its slow blink: lit half the time)
    shown = b.js("""return [...document.querySelectorAll('.pixel')].filter(el =>
        el.querySelector('.seat').textContent === '1').map(el =>
        el.querySelector('.what').textContent)""")
    assert shown == ["yellow slow"]


def test_a_key_tapped_with_no_time_between_down_and_up_counts(chromium):
    """Selenium's send_keys sends the down and the up at once, as some on-screen
    keyboards do: the page makes it a short tap the pins can see."""
    from selenium.webdriver.common.by import By

    b = chromium
    b.open("?seed=12")
    body = b.d.find_element(By.TAG_NAME, "body")
    body.send_keys("b")  # the QM asks
    time.sleep(0.4)
    body.send_keys("a")  # seat 1 answers
    time.sleep(0.4)
    b.js("""for (const type of ['keydown', 'keyup'])  // one task, no time between
        document.dispatchEvent(new KeyboardEvent(type, {key: 'k', code: 'KeyK'}));""")
    time.sleep(0.5)
    trace = b.trace()
    lines = [line for _, line in trace["lines"]]
    assert lines[-3:] == ["ask 0", "answer 1", "klaxon 2 1"], lines
    # each a press the firmware promises to count (at least 10 ms), not a lucky one
    levels = trace["levels"]
    assert [(c, p) for _, c, p in levels] == [("b", True), ("b", False), ("a", True),
                                             ("a", False), ("klaxon", True), ("klaxon", False)]
    for (down, _, _), (up, _, _) in zip(levels[::2], levels[1::2]):
        assert up - down >= 10000
    assert [[t, line] for t, line in harness_for(trace).events] == trace["lines"]


def test_the_status_line_follows_the_game_and_the_latency_says_what_it_times(chromium):
    b = chromium
    b.open("?seed=13")

    def status():
        time.sleep(0.15)
        return b.js("return document.getElementById('status').textContent")

    assert "Ready: a new game" in status() and "QM seat 0" in status()
    play(b, [("b", 0.08, 0.3)])
    assert "Ready" not in status() and "Seat 1 to answer" in status()
    play(b, [("a", 0.08, 0.3)])
    assert "Seat 2 to answer" in status()
    play(b, [("klaxon", 0.1, 1.6)])
    assert "reveal" in status()
    latency = b.js("return document.getElementById('latency').textContent")
    assert latency.startswith("Klaxon press\u2192sound: ") and "of 1 Klaxon press." in latency
    # a page working as designed leaves no error in the browser's console: without
    # --serial its ask for "serial" is answered (no 404), as every page load makes it
    # (tools/lanes/browser.py opens favicon.svg itself to reach the page's storage: that tab, an
    # SVG with no icon of its own, asks /favicon.ico; the page names its icon)
    said = [x for x in b.console().splitlines() if "/favicon.ico " not in x]
    assert not [x for x in said if "404" in x or "/serial" in x], said


# ------------------------------------------------------------ the scoreboard of a real board
# The real CircuitPython firmware for the Pico plays a game in the emulator (the Pico lane:
# pico.scoreboard_run, made once and kept for the session: the Pico lane's test of it makes
# it, this lane finds it); its console's own bytes reach the page through a pseudo-terminal
# pair standing in for the USB cable and ``tools/dev.py web --serial`` (tools/maker/web.py's
# bridge), or through the page's Web Serial reader, whose port is stood in for at the
# JavaScript level (a headless Chromium has no USB port to grant) and fed the same bytes.
# The page asks for the whole state by writing a byte: the recording holds the board's
# answer to a byte typed at that moment of the game, which is given to the page only once
# it has asked.
import base64  # noqa: E402

import pico  # noqa: E402
import scoreboard  # noqa: E402

SUPERVISOR = pico.SUPERVISOR
REPLAY_GAP_S = 0.06  # between the recorded presses' lines, in the replay (they came seconds apart)


@pytest.fixture(scope="module")
def game():
    """(the board's console lines as bytes [(t_ms, bytes)], the harness after the same
    presses and dice, its Watch)."""
    why = pico.missing()
    if why:
        if os.environ.get("QK_REQUIRE_PICO"):
            pytest.fail(why)
        pytest.skip(why)
    r = pico.scoreboard_run()
    sim, watch = pico.scoreboard_harness(r)
    return r.console_bytes(), sim, watch


class JsPort:
    """The Web Serial port stood in for in the page (navigator.serial, before app.js runs):
    its reads come from ``write``, its writes are kept for ``asks``; ``pull`` ends the read
    as a lost device does and says "disconnect", ``plug`` says "connect"."""

    SCRIPT = """
    (() => {
      const port = new EventTarget();
      let feed = null;
      window.qkPort = { written: [], opens: 0,
        write(b64) { const s = atob(b64); const a = new Uint8Array(s.length);
          for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); feed.enqueue(a); },
        pull() { feed.error(new DOMException('The device has been lost.', 'NetworkError'));
          port.readable = null; const e = new Event('disconnect'); e.port = port;
          navigator.serial.dispatchEvent(e); },
        plug() { const e = new Event('connect'); e.port = port; navigator.serial.dispatchEvent(e); } };
      port.open = async (options) => {
        if (options.baudRate !== 115200) throw new Error('baud ' + options.baudRate);
        qkPort.opens++;
        port.readable = new ReadableStream({ start(c) { feed = c; } });
        port.writable = new WritableStream({ write(chunk) { qkPort.written.push(...chunk); } });
      };
      port.close = async () => {};
      port.getInfo = () => ({ usbVendorId: 0x239a, usbProductId: 0x80f4 });
      const serial = new EventTarget();
      serial.requestPort = async () => port;
      serial.getPorts = async () => [port];
      Object.defineProperty(navigator, 'serial', { value: serial, configurable: true });
    })();
    """

    def __init__(self, b):
        self.b = b

    def write(self, data):
        self.b.js("qkPort.write(arguments[0])", base64.b64encode(data).decode())

    def asks(self):
        return bytes(self.b.js("return qkPort.written.splice(0)"))

    def pull(self):
        self.b.js("qkPort.pull()")

    def plug(self):
        self.b.js("qkPort.plug()")


def wait(b, script, timeout=5.0, every=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = b.js(script)
        if got:
            return got
        time.sleep(every)
    raise AssertionError("waited %.1f s for: %s" % (timeout, script))


def replay(b, link, lines, asked=(), at=None, klaxon_s=0, gap_s=REPLAY_GAP_S):
    """Give the page ``lines`` ([(t_ms, bytes)]) through ``link``, presses' lines apart as
    they came (a press's lines together), and a recorded ``state`` line only once the
    page has asked for it (``asked``: the indexes of those it must ask for; the others
    come unasked, as if another program had asked); ``at``: (a line, what to do once
    the page has shown it); ``klaxon_s``: wait this long after a klaxon's line (its
    sound over before the next press's, as on the board); ``gap_s``: between presses.
    Returns the asks seen."""
    asks = unanswered = 0
    last_t = None
    for i, (t, data) in enumerate(lines):
        got = link.asks()
        assert got.replace(b"\n", b"") == b"", "the page sent the board %r" % got
        asks += len(got)
        unanswered += len(got)
        if i in asked:  # the page must have asked before the board's answer comes
            end = time.monotonic() + 3
            while time.monotonic() < end and not unanswered:
                got = link.asks()
                asks += len(got)
                unanswered += len(got)
                time.sleep(0.01)
            assert unanswered, "the page did not ask for the state"
            unanswered = 0
        if last_t is not None and t - last_t > 5:
            time.sleep(gap_s)
        last_t = t
        link.write(data)
        if klaxon_s and scoreboard.clean(data.decode("utf-8", "replace")).startswith("klaxon"):
            time.sleep(klaxon_s)
        if at and scoreboard.clean(data.decode("utf-8", "replace")) == at[0]:
            time.sleep(0.3)
            at[1]()
            at = None
    time.sleep(0.5)
    got = link.asks()
    assert got.replace(b"\n", b"") == b"", "the page sent the board %r" % got
    return asks + len(got)


def device_trace(b):
    """The page's [line, its game after it] for the board's own lines (CircuitPython's,
    the firmware's version and blank ones left out), lines as a terminal shows them."""
    out = []
    for text, table in b.js("return qk.board.trace"):
        text = scoreboard.clean(text)
        if text and not text.startswith(SUPERVISOR) and not pico.is_version(text):
            out.append((text, table))
    return out


def assert_follows(sim, watch, trace, first):
    """The page's lines are the board's from harness line ``first`` on, and after every
    press's lines after its first state line, its game is the harness's."""
    said = [s for _, s in sim.events]
    assert [text for text, _ in trace] == said[first:first + len(trace)]
    synced = first + next(i for i, (text, _) in enumerate(trace) if text.startswith("state"))
    checked = 0
    for n, want in watch.marks:
        if n - 1 >= synced and n - 1 - first < len(trace):
            text, table = trace[n - 1 - first]
            assert table == want, "after %r: page %s, harness %s" % (text, table, want)
            checked += 1
    return checked


@pytest.fixture
def cable(tmp_path):
    c = browser.Cable(tmp_path)
    yield c
    c.close()


def state_lines(lines):
    """The indexes of the board's ``state`` lines (answers to a byte typed)."""
    return [i for i, (_, data) in enumerate(lines)
            if scoreboard.clean(data.decode("utf-8", "replace")).startswith("state")]


def test_the_scoreboard_of_a_real_board_read_by_the_server(game, cable):
    """`tools/dev.py web --serial PORT`, the board plugged in before the page opens: the
    page says it is connected, asks once for the whole state, and then holds, after every
    press's lines, the harness's game for the same presses; it plays the board's sounds,
    one a press (the reveal's chime, not the blip of the mark that completes it), and
    shows the roll, the end and the winners."""
    lines, sim, watch = game
    states = state_lines(lines)
    with wave.open(os.path.join(ROOT, "sounds", "klaxon.wav")) as w:
        klaxon_s = w.getnframes() / w.getframerate() + 0.1
    with browser.Browser(serial=cable.link) as b:
        b.open("")
        wait(b, "return qk.board && qk.board.connected")
        assert b.js("return qk.mode") == "board"
        started = time.monotonic()
        asks = replay(b, cable, lines, asked=states[:1], klaxon_s=klaxon_s,
                      gap_s=0.15)  # (presses read well apart, however busy the machine)
        took = time.monotonic() - started
        trace = device_trace(b)
        checked = assert_follows(sim, watch, trace, 0)
        assert checked >= 12 and asks == 1, (checked, asks)  # (the presses after the state: 12)
        printed = {t for t, _ in sim.events}  # (what a press that prints nothing sounds, the
        played = [name for _, name in b.js("return qk.board.heard")]  # page cannot know)
        assert played == [name for t, name in sim.sounds() if t in printed]
        assert {"klaxon", "denied", "blip", "done"} <= set(played)
        view = b.js("return qk.board.view")
        r = sim.device.r
        squares = [r.P[i] for i in range(4)]
        winners = [s for s in range(4) if squares[s] == max(squares)]
        assert (view["players"], view["phase"], view["positions"], view["winners"]) == (
            4, "over", squares, winners)
        roll = [int(x) for _, s in sim.events if s.startswith("roll ") for x in s.split()[1:]]
        assert view["roll"] == roll and view["question"] == roll[0] * 100 + roll[1] * 10 + roll[2]
        shown = b.js("return [...document.querySelectorAll('#sb-seats li')].map(li => "
                     "li.getAttribute('aria-label'))")
        assert [("winner" in x) for x in shown] == [s in winners for s in range(4)], shown
        assert all(x.startswith("Seat %d: square %d" % (s, squares[s])) for s, x in enumerate(shown))
        print("\nreplayed %d lines in %.1f s; %d presses checked" % (len(lines), took, checked))


def test_joining_mid_game_shows_the_game_within_a_second(game, cable):
    """The page opens while the board is in the middle of a reveal, its first bytes the
    tail of a line: that fragment is shown as it came and changes nothing; the page asks,
    shows the board's game within a second of connecting, and follows it to the end."""
    lines, sim, watch = game
    states = state_lines(lines)
    start = states[1]  # the board is asked mid-game here: the page joins just before
    with browser.Browser(serial=cable.link) as b:
        b.open("")
        wait(b, "return qk.board && qk.board.connected")
        joined = time.monotonic()
        cable.write(lines[start - 1][1][-7:])  # the end of a line: what a port gives mid-line
        time.sleep(0.1)
        asks = replay(b, cable, lines[start:start + 1], asked=(0,))
        wait(b, "return qk.board.view && qk.board.view.synced", timeout=1.0)
        shown_in = time.monotonic() - joined
        asks += replay(b, cable, lines[start + 1:])
        trace = device_trace(b)
        fragment = scoreboard.clean(lines[start - 1][1][-7:].decode())
        assert trace[0][0] == fragment and trace[0][1] is None  # not parsed: nothing changed
        first = [s for _, s in sim.events].index(scoreboard.clean(lines[start][1].decode()))
        assert assert_follows(sim, watch, trace[1:], first) >= 7  # (from the reveal: 8)
        assert asks == 1 and shown_in < 1.0, (asks, shown_in)
        log = b.js("return [...document.querySelectorAll('#log li')].map(li => [li.className, "
                   "li.textContent])")
        assert log[0] == ["raw", fragment]


def pull_and_plug(b, link, lines, harness_state, tmp_path=None):
    """Garbage, a cable pulled out mid-game and plugged back in: the page says so, asks
    again, and is the board's game again."""
    states = state_lines(lines)
    cut = states[1]
    asks = replay(b, link, lines[:cut], asked=states[:1])
    before = b.js("return qk.board.view")
    garbage = [b"\x00\x01\x02\xff\xfe garbage\r\n", bytes(range(256)) + b"\r\n",
               b"at 1 2\r\n", b"answer 9\r\n", b"state 1 2 3\r\n", b"\x1b[31mklaxon\r\n",
               b"x" * 5000, b"\r\n", "\u00e9\u00e8 \ud83d\udc0d\r\n".encode("utf-8", "surrogatepass")]
    for g in garbage:
        link.write(g)
        time.sleep(0.02)
    time.sleep(0.3)
    after = b.js("return qk.board.view")
    assert after == before, "garbage changed the game"
    assert link.asks() == b"", "garbage made the page ask"
    link.pull()
    wait(b, "return !qk.board.connected")
    said = b.js("return document.getElementById('sb-link').textContent")
    assert "plug it back in" in said or "not there" in said, said
    assert "Not connected" in b.js("return document.getElementById('status').textContent")
    link.plug()
    wait(b, "return qk.board.connected", timeout=5)
    asks += replay(b, link, lines[cut:], asked=(0,))
    view = b.js("return qk.board.view")
    assert view["synced"] and not view["need"]
    return asks


def test_garbage_and_a_pulled_cable_through_the_server(game, cable):
    lines, sim, watch = game
    with browser.Browser(serial=cable.link) as b:
        b.open("")
        wait(b, "return qk.board && qk.board.connected")
        asks = pull_and_plug(b, cable, lines, sim)
        assert asks == 2
        trace = device_trace(b)
        assert trace[-1][1] == watch.marks[-1][1]
        log = b.js("return [...document.querySelectorAll('#log li.raw')].map(li => li.textContent)")
        assert any("garbage" in x for x in log) and any(x.startswith("xxxx") for x in log)


def test_the_scoreboard_read_by_web_serial(game):
    """"Connect a board" with Web Serial (its port stood in for: the same bytes): the same
    game after every press as the harness's; then garbage, the cable pulled out (the read
    ends, "disconnect") and plugged back in ("connect"): the page opens the port again,
    asks, and follows the rest. The screenshot is docs/scoreboard.md's (QK_SHOTS=docs)."""
    lines, sim, watch = game
    states = state_lines(lines)
    with browser.Browser() as b:
        b.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": JsPort.SCRIPT})
        b.open("?seed=1")
        assert b.js("return qk.mode") is None  # the page's own board, until connected
        b.d.find_element("id", "connect").click()
        wait(b, "return qk.board && qk.board.connected")
        port = JsPort(b)
        shot = os.path.join(SHOTS, "scoreboard.png")  # (docs/scoreboard.md's: the reveal,
        asks = replay(b, port, lines, asked=states[:1],  # a Klaxon penalty being counted)
                      at=("count 3", lambda: b.screenshot(shot)))
        checked = assert_follows(sim, watch, device_trace(b), 0)
        assert checked >= 12 and asks == 1
        assert b.js("return qk.board.source") == "web serial"
        assert b.js("return document.getElementById('a').disabled") is True
        b.open("?seed=1")  # (the page afresh, the same browser: its port stood in for again)
        b.d.find_element("id", "connect").click()
        wait(b, "return qk.board && qk.board.connected")
        port = JsPort(b)
        assert pull_and_plug(b, port, lines, sim) == 2
        assert b.js("return qkPort.opens") == 2
        assert device_trace(b)[-1][1] == watch.marks[-1][1]


def test_connect_a_board_without_web_serial_says_what_to_run(chromium):
    """A browser with no Web Serial (Firefox, Safari): "Connect a board" says to run the
    server with --serial, and the page's own board goes on."""
    b = chromium
    b.open("?seed=1")
    b.js("Object.defineProperty(navigator, 'serial', {value: undefined, configurable: true})")
    b.d.find_element("id", "connect").click()
    help_text = b.js("return document.getElementById('connect-help').textContent")
    assert "--serial PORT" in help_text and "Chrome" in help_text
    assert b.js("return qk.mode") is None
    play(b, [("b", 0.08, 0.3)])
    assert b.trace()["state"]["phase"] == "answering"


def test_the_volume_and_mute_are_kept_across_a_reload(chromium):
    """Muted (and the volume set) as a TV at the table leaves it: a reload, or the screen
    waking, keeps them, as the board's slide switch stays where it was put."""
    b = chromium
    b.open("?seed=1")
    assert not b.js("return document.getElementById('mute').checked")
    b.d.find_element("id", "mute").click()
    b.js("const v = document.getElementById('volume'); v.value = 3;"
         "v.dispatchEvent(new Event('input'))")
    b.reload()
    assert b.js("return document.getElementById('mute').checked")
    assert b.js("return document.getElementById('volume').value") == "3"
    b.d.find_element("id", "mute").click()  # and unmuted, kept too
    b.reload()
    assert not b.js("return document.getElementById('mute').checked")


@pytest.mark.parametrize("kept", ['not json', '{"volume": 99}', '{"volume": -1}',
                                  '{"volume": "x"}', '{"volume": null}', '{"volume": true}',
                                  '{"volume": []}', '{"mute": "yes"}', '{"mute": "false"}',
                                  'null', '5', '[]'])
def test_a_corrupted_kept_sound_setting_gives_the_pages_defaults(chromium, kept):
    """The kept volume and Mute as something else wrote them (another version, an
    extension, a hand in the developer tools): the page's own defaults (volume 8, not
    muted), never a volume the range made up (null, true, [] gave 5) nor Mute from a
    word ("false" muted the page)."""
    b = chromium
    b.d.get(b.base + "favicon.svg")  # the page's origin
    b.js("localStorage.clear(); localStorage.setItem('qi-klaxon-sound', arguments[0])", kept)
    b.d.get(b.base + "?seed=1")
    b.wait_ready()
    assert b.js("return document.getElementById('volume').value") == "8", kept
    assert not b.js("return document.getElementById('mute').checked"), kept
    assert abs(b.js("return qk.gain") - 0.64) < 1e-9


def test_the_page_plays_where_the_browser_keeps_nothing(chromium):
    """A browser that refuses the page its storage (cookies and site data blocked:
    reading ``localStorage`` throws): the page's board still starts and plays, and Mute
    still mutes (for this visit: nothing can be kept). The page failed to start the
    firmware."""
    b = chromium
    b.d.get(b.base + "favicon.svg")
    b.js("localStorage.clear()")
    script = b.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "Object.defineProperty(window, 'localStorage', {configurable: true, "
                  "get() { throw new DOMException('Access is denied', 'SecurityError'); }});"})
    try:
        b.d.get(b.base + "?seed=1")
        b.wait_ready()
        play(b, [("b", 0.08, 0.3), ("a", 0.08, 0.3)])
        assert b.trace()["state"]["answering"] == 2
        b.d.find_element("id", "mute").click()
        assert b.js("return qk.gain") == 0
        b.reload()  # (a reload with the game and the sound as they were: nothing kept)
        assert not b.js("return document.getElementById('mute').checked")
    finally:
        b.d.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                            {"identifier": script["identifier"]})


def test_web_serial_reopens_a_board_plugged_back_in_as_a_new_port_object():
    """Chromium gives a USB device plugged back in a new SerialPort object (its
    ``connect`` event's port is not the one the page opened: WICG/serial#181), which the
    page ignored: "The board's cable is out: plug it back in (the page reconnects)" for
    ever, the board plugged back in. The port stood in for here plugs back in as a new
    object of the same USB ids, as Chromium's does: the page opens it and asks."""
    sim = Sim(players=4)
    sim.type_in(10 * 1000)
    sim.play([(100, True, "b"), (180, False, "b")], 1000)
    state = [line for _, line in sim.events if line.startswith("state ")][0]
    again = """
    qkPort.plugNew = () => {
      const old = qkPort.port;
      const port = new EventTarget();
      let feed = null;
      port.open = async (options) => {
        qkPort.opens++;
        port.readable = new ReadableStream({ start(c) { feed = c; } });
        port.writable = new WritableStream({ write(chunk) { qkPort.written.push(...chunk); } });
        qkPort.write = (b64) => { const s = atob(b64); const a = new Uint8Array(s.length);
          for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); feed.enqueue(a); };
      };
      port.close = async () => {};
      port.getInfo = old.getInfo;
      const e = new Event('connect');
      e.port = port;
      navigator.serial.dispatchEvent(e);
    };
    """
    script = JsPort.SCRIPT.replace("window.qkPort = { written: [], opens: 0,",
                                   "window.qkPort = { written: [], opens: 0, port,")
    with browser.Browser() as b:
        b.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})
        b.open("?seed=1")
        b.js(again)
        b.d.find_element("id", "connect").click()
        wait(b, "return qk.board && qk.board.connected")
        port = JsPort(b)
        wait(b, "return qkPort.written.length")
        assert port.asks() == b"\n"
        port.write((state + "\r\n").encode())
        wait(b, "return qk.board.view && qk.board.view.synced")
        port.pull()
        wait(b, "return !qk.board.connected")
        b.js("qkPort.plugNew()")
        wait(b, "return qk.board.connected", timeout=3)
        wait(b, "return qkPort.written.length")
        assert port.asks() == b"\n" and b.js("return qkPort.opens") == 2
        port.write((state + "\r\n").encode())
        wait(b, "return qk.board.view && qk.board.view.synced")


def test_an_ask_the_board_did_not_answer_is_asked_again_on_a_quiet_table():
    """The page asks when it connects; if that byte is lost (the board still starting
    after a reset, say) and nobody presses anything, no line comes to ask again on: the
    page said "Joining the game: asking the board" until the next press. It asks again
    on the clock, every ASK_AGAIN_MS, a few times (not for ever: a board that never
    answers, an older firmware, gets a byte only as its lines come); the answer then
    shows the game."""
    sim = Sim(players=4)
    sim.type_in(10 * 1000)
    sim.play([(100, True, "b"), (180, False, "b")], 1000)
    state = [line for _, line in sim.events if line.startswith("state ")][0]
    with browser.Browser() as b:
        b.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": JsPort.SCRIPT})
        b.open("?seed=1")
        b.d.find_element("id", "connect").click()
        wait(b, "return qk.board && qk.board.connected")
        port = JsPort(b)
        wait(b, "return qkPort.written.length")
        assert port.asks() == b"\n"  # (lost)
        time.sleep(2.0)
        assert port.asks() == b"\n", "no ask again on a quiet table"
        time.sleep(5.0)
        assert port.asks() == b"\n\n", "asked for ever"  # (3 in all on the clock)
        time.sleep(2.0)
        assert port.asks() == b""
        port.write(b"pass 1\r\n")  # a line: it asks again
        wait(b, "return qkPort.written.length")
        assert port.asks() == b"\n"
        port.write((state + "\r\n").encode())
        wait(b, "return qk.board.view && qk.board.view.synced")
        time.sleep(1.7)
        assert port.asks() == b""  # answered: no more


def test_a_scoreboard_only_watched_says_its_sound_is_off_until_a_click(cable):
    """With the browser's own rule (a page's sound starts only after a click or a key on
    it), the scoreboard of a real board says so; a click anywhere lets the sound out and
    the note goes. Mute and the volume work there too, and are kept across a reload."""
    with browser.Browser(serial=cable.link, gesture_for_sound=True) as b:
        b.open("")
        wait(b, "return qk.board && qk.board.connected")
        off = "return !document.getElementById('sound-off').hidden"
        assert b.js(off), "a silent page that does not say why"
        assert "click" in b.js("return document.getElementById('sound-off').textContent")
        b.d.find_element("id", "scoreboard").click()  # anywhere on the page
        wait(b, "return document.getElementById('sound-off').hidden")
        assert b.js("return qk.gain") > 0
        b.d.find_element("id", "mute").click()
        assert b.js("return qk.gain") == 0, "Mute did not silence the scoreboard"
        b.reload()
        wait(b, "return qk.board && qk.board.connected")
        assert b.js("return document.getElementById('mute').checked")
        assert b.js("return qk.gain") == 0
