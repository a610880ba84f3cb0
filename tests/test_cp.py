"""The CircuitPython 10 lane (tools/lanes/cpvm.py): the firmware, deployed as tools/maker/deploy.py
deploys it (.mpy from CircuitPython's own mpy-cross), runs its unedited code.py on
CircuitPython's 32-bit unix VM and prints the same console lines, at the same
simulated times, as the CPython harness; and the Express's build fits its heap."""

import os

import pytest

import cpvm
import scenario
from harness import Sim

if cpvm.find() is None:
    if os.environ.get("QK_REQUIRE_CP"):  # CI: the lane must run
        raise RuntimeError("QK_REQUIRE_CP is set: " + cpvm.HOW_TO_GET)
    pytest.skip(cpvm.HOW_TO_GET, allow_module_level=True)

# The Express has ~15.9 KB of heap for the firmware: its peak need (Drive.need: the worst
# of 16 layouts, the Express's qstr pools charged) must leave room. The brief's budgets:
# start-up, a question and a Klaxon 13.5 KB; a whole game 14.5 KB. Measure, don't
# loosen: a failure here is a firmware regression.
EXPRESS_HEAP_BUDGET = 13.5 * 1024
EXPRESS_GAME_BUDGET = 14.5 * 1024
BUDGET_SCRIPT = scenario.BUDGET  # ask, answer, then a challenge
BUDGET_END_MS = 3500


@pytest.fixture(scope="module")
def drives():
    """Drives by (build, settings text), each deployed once for the module."""
    made = {}

    def get(profile, settings=""):
        if (profile, settings) not in made:
            made[profile, settings] = cpvm.Drive(profile, settings=settings)
        return made[profile, settings]

    yield get
    for d in made.values():
        d.close()


def harness_lines(profile, settings, script, end_ms):
    sim = Sim(settings, board_name=profile)
    sim.play(scenario.taps(script), end_ms)
    return sim.canonical()


def smallest_heap(d, steps, end_ms, pad=(0, 0)):
    """The smallest ``-X heapsize`` (16 B steps, in layout ``pad``: cpvm.LAYOUTS) in which
    drive ``d`` plays ``steps`` to ``end_ms`` with the console lines it gives with room."""
    expect, _, out, ok = d.run(steps, end_ms)
    assert ok, out[-2000:]
    low, high = 8192, 96 * 1024
    while high - low > 16:
        mid = (low + high) // 2
        lines, _, _, ok = d.run(steps, end_ms, heap=mid, pad=pad)
        low, high = (low, mid) if ok and lines == expect else (mid, high)
    return high


def assert_clean(out, ok):
    assert ok, out[-2000:]
    for word in ("MemoryError", "Traceback", "cannot start", "fault:"):
        assert word not in out, out[-2000:]


@pytest.mark.parametrize("profile", ["cpx", "cpb", "pico"])
def test_a_question_gives_the_harness_lines_on_circuitpython(drives, profile):
    d = drives(profile)
    # what runs is what a deploy puts on that board: the modules as .mpy, code.py as .py
    assert os.path.exists(os.path.join(d.path, "hardware", "device.mpy"))
    assert not os.path.exists(os.path.join(d.path, "hardware", "device.py"))
    assert os.path.exists(os.path.join(d.path, "code.py"))
    lines, base, out, ok = d.run(scenario.taps(scenario.QUESTION), 9000)
    assert_clean(out, ok)
    expect = harness_lines(profile, "", scenario.QUESTION, 9000)
    assert lines == expect
    # the referee ran the whole question: an ask, a challenge, the reveal
    assert {"ask", "klaxon", "reveal"} <= {line.split()[1] for line in lines}


def test_a_pure_klaxon_gives_the_harness_lines_on_circuitpython(drives):
    settings = "QK_KLAXON_ONLY = 1\n"
    lines, base, out, ok = drives("cpb", settings).run(scenario.taps(scenario.QUESTION), 9000)
    assert_clean(out, ok)
    expect = harness_lines("cpb", settings, scenario.QUESTION, 9000)
    assert lines == expect
    assert [line.split(" ", 1)[1] for line in lines] == ["klaxon sounded"] * 2


def test_the_express_firmware_needs_at_most_13_5_kb_of_heap(drives):
    expect = harness_lines("cpx", "", BUDGET_SCRIPT, BUDGET_END_MS)
    assert expect[-1].split()[1] == "klaxon"  # the challenge was accepted: the peak counts
    need, per_layout, names = drives("cpx").need(scenario.taps(BUDGET_SCRIPT), BUDGET_END_MS,
                                                 expect)
    print("Express heap need", need, "bytes; per layout", per_layout, "; names", names)
    cpvm.share("budget", {"per": per_layout, "names": names})  # (the bench's row)
    assert len(per_layout) == len(cpvm.LAYOUTS) >= 16
    assert need <= EXPRESS_HEAP_BUDGET, "the Express firmware needs %d bytes (%s), over %d" % (
        need, per_layout, EXPRESS_HEAP_BUDGET)


def test_a_whole_game_fits_the_express_in_every_layout(drives):
    """Reveal with a penalty, undo, a move, the end, a new game set up at the table and a
    Klaxon in it: at most 14.5 KB in each of 16 layouts (objects of odd sizes held
    before code.py, and freed before it to leave holes), and the console is the
    harness's in every one of them (Drive.need compares each run's lines)."""
    expect = harness_lines("cpx", "", scenario.GAME, scenario.GAME_MS)
    words = {line.split()[1] for line in expect}
    assert {"penalty", "undo", "move", "end", "new", "klaxon"} <= words
    need, per_layout, names = drives("cpx").need(scenario.taps(scenario.GAME), scenario.GAME_MS, expect)
    print("Express whole game", need, "bytes; per layout", per_layout, "; names", names)
    cpvm.share("game", {"per": per_layout, "names": names})
    assert need <= EXPRESS_GAME_BUDGET, "a whole game needs %d bytes (%s), over %d" % (
        need, per_layout, EXPRESS_GAME_BUDGET)


def test_a_settings_file_with_a_stray_byte_starts_on_circuitpython_itself():
    """A Latin-1 byte (an accented word in a comment) or a UTF-16 file: reported, and the
    device starts (on the real VM, text mode would raise UnicodeError)."""
    if cpvm.find() is None:
        pytest.skip(cpvm.HOW_TO_GET)
    for text in (b"QK_PLAYERS = 5 # caf\xe9\nQK_PIN_A = \"\xe9\"\n",
                 "QK_PLAYERS = 5\n".encode("utf-16")):
        d = cpvm.Drive("cpx", settings=text)
        try:
            lines, _, out, ok = d.run(scenario.taps("100 b\n700 a\n1300 klaxon\n"), 3000)
        finally:
            d.close()
        assert ok and "cannot start" not in out, out[-500:]
        assert any("settings.toml" in line for line in lines)
        assert any(" klaxon " in line for line in lines)


def test_a_long_settings_line_does_not_stop_the_express():
    """The value is echoed cut short and a line too long for the heap ends the reading:
    on the Express's heap, the device starts and plays."""
    if cpvm.find() is None:
        pytest.skip(cpvm.HOW_TO_GET)
    for text in (b"QK_PLAYERS = " + b"9" * 800 + b"\n", b"# " + b"x" * 12000 + b"\n"):
        d = cpvm.Drive("cpx", settings=text)
        try:
            steps = scenario.taps(scenario.BUDGET)
            lines, base, out, ok = d.run(steps, 3000)
            assert ok and any(" klaxon " in line for line in lines), out[-500:]
            heap = int((base + 16 * 1024) * 1.035)  # the Express's ~16 KB, tables and all
            lines, base, out, ok = d.run(steps, 3000, heap=heap)
            assert ok and "cannot start" not in out and any(" klaxon " in line
                                                            for line in lines), out[-800:]
        finally:
            d.close()


def resumed_plays_as_the_harness(d, steps, end_ms, heap, variant=cpvm.VARIANTS[0]):
    """After ``d``'s run restarted (out of memory): code.py again on a fresh heap of
    ``heap`` bytes from the saved nvm, playing the rest of ``steps``. It resumes the game
    and says what the CPython harness says from that saved game; returns its lines."""
    from flashsim import FlashSim
    from harness import NVM_CHIPS

    saved = d.nvm
    rest = [(t - d.reload_ms, down, c) for t, down, c in steps if t > d.reload_ms]
    end = end_ms - d.reload_ms
    again, _, out, ok = d.run(rest, end, heap=heap, nvm=saved, variant=variant)
    assert_clean(out, ok)
    assert again[0] == "0 resumed"
    nvm = FlashSim(NVM_CHIPS["cpx"])
    nvm.mem[:] = saved
    sim = Sim(board_name="cpx", nvm=nvm)
    sim.play(rest, end)
    assert again == sim.canonical()
    return again


def test_out_of_memory_restarts_on_a_fresh_heap_and_resumes_where_it_was(drives):
    """At a heap just too small for a whole game (an overlay cannot load), the Express
    says so, stays a Klaxon, saves the game and calls supervisor.reload(); code.py then
    runs again on a fresh heap of the same size, resumes the saved game and plays the
    rest of the table's presses exactly as the CPython harness does from that saved game.
    No traceback, no crash loop, no power cycle."""
    d = drives("cpx")
    steps = scenario.taps(scenario.GAME)
    high = smallest_heap(d, steps, scenario.GAME_MS)  # the smallest heap that plays the whole game
    lines, _, out, _ = d.run(steps, scenario.GAME_MS, heap=high - 256)
    assert "Traceback" not in out, out[-2000:]
    said = [line.split(" ", 1) for line in lines]
    fault = [int(t) for t, text in said if text.startswith("fault: the referee failed: Memory")]
    restart = [int(t) for t, text in said if text.startswith("out of memory: restarting")]
    assert restart and d.reload_ms is not None, lines
    assert restart == [d.reload_ms - 1] or restart == [d.reload_ms], (restart, d.reload_ms)
    # a pure Klaxon meanwhile, 5 s and until the sound is over (the fault's own report
    # may not fit in the heap: then only the restart says so)
    assert not fault or 5000 <= restart[0] - fault[0] <= 8000, (fault, restart)
    again = resumed_plays_as_the_harness(d, steps, scenario.GAME_MS, high - 256)
    assert {"klaxon", "reveal"} <= {line.split()[1] for line in again}


def test_the_express_plays_a_whole_game_with_blocks_pinned_during_play(drives):
    """Issue 24: stale words on a board's conservatively scanned stack keep dead blocks
    alive, where they land. 16 seeds, each a call-structure variant and a layout (in
    turn) and 1.5 KB of 16-64 B blocks pinned at random moments of a whole game; in a
    heap that leaves the firmware the Express's 15.9 KB usable (its qstr pools taken
    off), every seed plays the whole game with the harness's console lines and no
    restart."""
    expect = harness_lines("cpx", "", scenario.GAME, scenario.GAME_MS)
    steps = scenario.taps(scenario.GAME)
    runs = cpvm.retention(drives("cpx"), steps, scenario.GAME_MS, expect)
    cpvm.share("retention", runs)
    assert len(runs) == 16 and len({r[1] for r in runs}) >= 8 and len({r[2] for r in runs}) == 16
    failed = [r for r in runs if not r[3]]
    assert not failed, "with 1.5 KB pinned: %s" % failed


def test_the_heap_diagnosis_reads_the_vm_as_its_collector_does(drives):
    """tools/lanes/cpheap.py, from a paused run (Drive.run(heap_map=True)): the block map
    covers the usable heap, what the roots (static data and the C stack) reach is the
    live heap the VM reported after its collection, and it names modules, functions and
    strings (the qstr pools read from the heap)."""
    import cpheap

    d = drives("cpx")
    lines, base, out, ok = d.run(scenario.taps(scenario.BUDGET), 3500, probe=[3000],
                                 heap_map=True)
    assert ok and d.live and d.maps and d.memory, out[-1500:]
    heap = cpheap.Heap(d)
    assert len(heap.kinds) * cpheap.BLOCK == d.usable
    used = [b for b, k in enumerate(heap.kinds) if k not in "=."]
    assert heap.bytes_of(used) == d.live[0][1]
    stack = heap.stack()
    assert stack and all(a > heap.start for a, _ in stack)
    reached = heap.closure([heap.head_of(w) for w in heap.statics()] +
                           [heap.head_of(w) for _, w in stack])
    assert heap.bytes_of(reached) >= d.live[0][1] - 256  # (the last pass's garbage at most)
    names = {heap.describe(b) for b in used}
    assert {"module hardware.device", "module qiklaxon.core"} <= names, sorted(names)[:40]
    assert any(n.startswith("function of hardware.device") for n in names)
    assert "str 'klaxon sounded'" in names


def test_the_pins_are_kept_to_the_end(drives):
    """The retention test's pins: 16-64 B blocks, 1.5 KB in all, at seeded moments, and
    the runner keeps them to the end: after the last pin and a collection, the heap holds
    exactly those tuples of Nones (read by tools/lanes/cpheap.py), and the console is the same."""
    import collections

    import cpheap

    pins = cpvm.pin_schedule(3, 28000)
    assert sum(n for _, n in pins) == 1536 and all(16 <= n <= 64 for _, n in pins)
    assert pins == sorted(pins) and pins == cpvm.pin_schedule(3, 28000)
    assert pins != cpvm.pin_schedule(4, 28000)
    d = drives("cpx")
    steps = scenario.taps(scenario.BUDGET)

    def nones():  # the heap's tuples that hold only one word (None) 2 to 14 times
        heap = cpheap.Heap(d)
        out = collections.Counter()
        for b, kind in enumerate(heap.kinds):
            w = heap.words_of(b) if kind == "T" else ()
            if len(w) > 2 and 2 <= w[1] <= 14 and len(set(w[2:2 + w[1]])) == 1:
                out[8 + 4 * w[1]] += 1
        return out

    lines, _, _, _ = d.run(steps, 3500, probe=[3400], heap_map=True)
    before = nones()
    again, _, _, _ = d.run(steps, 3500, probe=[3400], heap_map=True,
                           pinned=[(t * 3300 // 28000, n) for t, n in pins])
    assert again == lines
    assert nones() - before == collections.Counter(n for _, n in pins)


@pytest.mark.parametrize("variant", [v[0] for v in cpvm.VARIANTS])
def test_out_of_memory_restarts_and_the_rest_plays_on_a_fresh_heap_in_every_variant(
        drives, variant):
    """Issue 24's no restart loop: in each call-structure variant, at a heap just too
    small for a whole game the board restarts (out of memory), and the game it resumed
    plays the rest of the table's presses on a fresh heap of the same size exactly as
    the CPython harness does from that saved game: no second restart."""
    v = cpvm.VARIANT[variant]
    d = drives("cpx")
    steps = scenario.taps(scenario.GAME)
    expect = harness_lines("cpx", "", scenario.GAME, 28000)
    low, high = 8 * 1024, 20 * 1024  # the firmware's room: the smallest that plays
    while high - low > 64:
        mid = (low + high) // 2
        lines, _, _, ok = d.run(steps, 28000, heap=d.heap_for(mid, steps, variant=v),
                                variant=v)
        low, high = (low, mid) if ok and lines == expect else (mid, high)
    for room in range(high - 256, low - 2048, -256):  # the first that restarts in time
        heap = d.heap_for(room, steps, variant=v)
        lines, _, out, _ = d.run(steps, 28000, heap=heap, variant=v)
        assert "Traceback" not in out, out[-2000:]
        if d.reload_ms is not None and d.reload_ms < 27000:
            break
    else:
        raise AssertionError("%s: no restart below %d B" % (variant, high))
    resumed_plays_as_the_harness(d, steps, 28000, heap, v)
    assert d.reload_ms is None  # no second restart


@pytest.mark.parametrize("saved_at_ms", [2000, 8000, 21000])
def test_a_resumed_game_starts_within_the_whole_games_budget(drives, saved_at_ms):
    """Every restart (a power cut, a reload after running out of memory) is a start-up
    that resumes a saved game, and drawing it may load an overlay: answering (2 s into
    scenario.GAME), between questions after a reveal and an undo (8 s), and over (21 s:
    the end's overlay draws it). Each starts, and a Klaxon then sounds, within the whole
    game's 14.5 KB in all 16 layouts, and the console is the harness's."""
    sim = Sim(board_name="cpx")
    sim.play(scenario.taps(scenario.GAME), saved_at_ms)
    nvm = bytes(sim.nvm.mem)
    after = Sim(board_name="cpx", nvm=sim.nvm)
    script = [(1000, True, "klaxon"), (1100, False, "klaxon")]
    after.play(script, 3000)
    expect = after.canonical()
    assert expect[0] == "0 resumed" and any(  # (the Klaxon: taken, or refused and why)
        int(line.split()[0]) >= 1000 for line in expect)
    need, per_layout, names = drives("cpx").need(script, 3000, expect, nvm=nvm)
    print("resumed at", saved_at_ms, need, "bytes; per layout", per_layout)
    assert need <= EXPRESS_GAME_BUDGET, "resumed, it needs %d bytes (%s)" % (need, per_layout)


def test_out_of_memory_never_leaves_the_express_a_pure_klaxon_for_good(drives):
    """At every heap from just too small for a whole game down to about what start-up
    needs, in two layouts: the game plays through, or the board restarts on a fresh heap.
    Never a traceback, never stuck as a pure Klaxon (a hostile pass found a band where
    the save itself could not load and the restart never came)."""
    d = drives("cpx")
    steps = scenario.taps(scenario.GAME)
    high = smallest_heap(d, steps, scenario.GAME_MS)
    restarts = 0
    for pad in (cpvm.LAYOUTS[0], cpvm.LAYOUTS[-1]):
        # start-up and a press, in this layout: below it nothing can run (layouts differ by
        # a few hundred bytes here: the last needs ~330 B more than the first)
        start = smallest_heap(d, steps, 1000, pad)
        for heap in range(high - 64, start + 256, -128):
            lines, _, out, ok = d.run(steps, scenario.GAME_MS, heap=heap, pad=pad)
            assert "Traceback" not in out and "cannot start" not in out, (heap, pad, out[-1500:])
            fault = [int(line.split()[0]) for line in lines if " fault: the referee" in line
                     or line.endswith(" klaxon sounded")]
            if fault and fault[0] < scenario.GAME_MS - 8000:  # (time enough for the restart)
                assert d.reload_ms is not None, (heap, pad, lines)
                restarts += 1
    assert restarts  # (the heaps were small enough to matter)
