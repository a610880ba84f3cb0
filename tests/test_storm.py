"""A hurried, clumsy table: thousands of taps, holds and Klaxons at random spacing
(20 ms to 2 s), at the pin level, on the simulated board and the Express's build.

What it checks, for every press:
- nothing escapes and nothing faults;
- presses count in the order they were pressed, each exactly once (a tap still
  held when the Klaxon goes down counts first; one pressed after it, after it);
- the Klaxon is decided within 10 ms of its press, and an accepted one sounds
  within 10 ms; its challenger is the seat whose turn it was at that moment;
- the game never ends or starts anew but on the deliberate long hold of B;
- every change of the game can be undone to the state before it.
"""

import random

import pytest

import card
from harness import Sim
from qiklaxon.core import Referee
from model import layout  # noqa: E402  (the slots' names)

PRESSES = 1000  # per build: 2000 in all
HELD = card.hold_ms("B held")  # the card's holds
LONG = card.hold_ms("B held long")


def storm(seed, n):
    """[(down_ms, control, hold_ms)] in time order; a control's next press starts 20 ms
    or more after its last one ended (the Klaxon's 40 ms: a press within QK_REARM_MS,
    30 ms, of its release is taken for the release's bounce, by design)."""
    rng = random.Random(seed)
    t = 300
    free = {"a": 0, "b": 0, "klaxon": 0}
    out = []
    while len(out) < n:
        t += rng.randint(20, 2000) if rng.random() < 0.3 else rng.randint(20, 400)
        c = rng.choices(["a", "b", "klaxon"], [5, 5, 3])[0]
        if t < free[c] + (40 if c == "klaxon" else 20):
            continue
        r = rng.random()
        if c == "klaxon":
            hold = rng.randint(40, 300)
        elif r < 0.6:
            hold = rng.randint(40, 200)  # a tap
        elif r < 0.75:
            hold = rng.randint(200, card.TAP_MOST_MS)  # a slow tap: still a tap
        elif r < 0.97:  # held: the second meaning
            hold = rng.randint(HELD + 50, LONG - 100)
        else:  # held long: move, end, a new game
            hold = rng.randint(LONG + 50, LONG + 600)
        out.append((t, c, hold))
        free[c] = t + hold
        if hold > LONG and rng.random() < 0.5:  # the table waits for a deliberate hold
            free = dict.fromkeys(free, t + hold)  # (another press would call it off)
    return out


def snapshot(r):
    return bytes(r.S), tuple(r.P)


def undone(r):
    """The state after undoing on a copy of referee ``r``."""
    c = Referee(r.S[layout.PLAYERS])
    c.S[:] = r.S
    c.P[:] = r.P
    c.B[:] = r.B
    c.Q[:] = r.Q
    c.L[:] = r.L
    c.n = r.n
    c.dice = r.dice
    if c.act(0):
        return None
    return snapshot(c)


@pytest.mark.parametrize("board, seed", [("simulated", 1), ("cpx", 2)])
def test_a_storm_of_presses(board, seed):
    sim = Sim(board_name=board, players=5, settings="QK_SLEEP_MIN = 0\n", seed=seed)
    presses = storm(seed, PRESSES)
    for t, c, hold in presses:
        sim.press(c, t, hold)
    keys = []  # (t_ms, key, state before, state after, accepted, answering before)
    back = []  # (t_ms, key, state before, state after undoing it)
    r = sim.device.r
    real = r.key

    def key(k):
        before = snapshot(r)
        answering = r.S[layout.TURN]
        ok = real(k)
        after = snapshot(r)
        if ok and after != before and k != 5:  # a change: undo must give the state before
            back.append((sim.now_ms, k, before, undone(r)))
        keys.append((sim.now_ms, k, before, after, ok, answering))
        return ok

    r.key = key
    sim.run_until_ms(presses[-1][0] + presses[-1][2] + 3000)

    assert not sim.named("fault"), sim.named("fault")[:3]
    # each press counted once, in the order pressed: each key to the earliest press of its
    # control not yet counted that was down then (a key comes at the release, at the
    # Klaxon's first contact, or when another press ends a held button)
    one = sim.device.p[layout.BUT][0][layout.B_KEYS] == b"\x01\x04\x05\x02\x06\x03"
    order = []
    used = set()
    for t, k, *_ in keys:
        control = "klaxon" if k == 0 else ("a" if k in (1, 2, 3) or one else "b")
        j = next(j for j, (t0, c, hold) in enumerate(presses)
                 if j not in used and c == control and t0 <= t <= t0 + hold + 15)
        used.add(j)
        order.append(j)
    assert order == sorted(order)
    # ... but an A or B held into a longer meaning and cut short by another press, which
    # the card says calls it off (only letting go takes a longer meaning)
    off = [presses[j] for j in range(len(presses)) if j not in used]
    for t0, c, hold in off:
        assert c != "klaxon" and hold >= HELD and any(
            t0 + HELD <= t1 < t0 + hold for t1, c1, _ in presses if c1 != c), (t0, c, hold)
    assert len(order) + len(off) == len(presses) and len(off) < len(presses) // 20
    # the Klaxon: decided within 10 ms; an accepted one sounds within 10 ms; its challenger
    sounds = [t for t, f in sim.named("sound") if f["name"] == "klaxon"]
    accepted = 0
    for (t, k, before, after, ok, answering), j in zip(keys, order):
        if k:
            continue
        down = presses[j][0]
        assert t - down <= 10
        if ok:
            accepted += 1
            assert any(down <= s <= down + 10 for s in sounds)
            assert after[0][4] == answering  # the challenger: whose turn it was
    assert accepted > 20
    # the game ends or starts anew only on B held long (key 6); every change can be undone
    ends = 0
    for t, k, before, after, ok, answering in keys:
        if after[0][2] == 3 and before[0][2] != 3 or after[0][:2] != before[0][:2] and \
                before[0][2] == 3:
            # the hold, an undo of something earlier, or B starting a game a hold set up
            assert k == 6 or k == 5 or k == 4 and before[0][2] == 3, (t, k)
            ends += k == 6
    assert ends >= 1
    assert len(back) > 200
    for t, k, before, after_undo in back:
        assert after_undo == before, (t, k)
