"""The device loop: pins in, the referee in the middle, sound and light out.

``Device.poll()`` is one pass; it never blocks and allocates nothing when
nothing happens. Every pass samples the Klaxon. A and B are sampled on the first
even pass 3 ticks or more after their last sample (2 to 5 ms apart at pass times
up to 1 ms); a level two samples agree on is taken, so a press or gap of 10 ms
always counts. Every eighth pass follows the sound and draws the lights; every
256th runs the chores (watchdog, sleep, saving, a fault's end, a host's ask).

The Klaxon's press: its contact read closed ``QK_GLITCH_MS`` + 1 ticks or more
after first seen closed, with no open stretch that long between: over
QK_GLITCH_MS on 1 ms ticks at any pass time, and not delayed by bounce. The
Debouncer reads the pin and keeps the held state.

The Klaxon comes first; nothing else can stop it. A press is decided and sounded
in the pass that sees it (in referee mode after any earlier A/B press: presses
count in the order made). An exception in the referee, the lights or the saving
is shown (purple ring, a console line); the device is a pure Klaxon until, five
seconds later, the referee is rebuilt from its log.

A and B act when let go: a tap is a key's first meaning; held, the ring shows its
longer meanings in turn (the button's ladder) and letting go takes the one shown.
Any other press ends a held button first: a tap counts first (also one down but
not yet taken when the Klaxon goes down); a hold into a longer meaning is called off.

Sounds are WAV samples, or tone sweeps (hardware/outputs.py): a piezo's PIO
program's clock (the Pico's profile), or the Express's DAC looping one period of the klaxon's voice, 22 samples,
whose pitch is its sample rate / 22 (re-played every 20 ms while the pitch moves).

What the Express lacks (sleep, a watchdog, WAV, a piezo, an LED) is behind
``__debug__``: its ``mpy-cross -O3`` drops that code, ~190 B of heap
(tests/test_device_express.py).

Small on purpose (the Express has ~16 KB for everything): the parts are one tuple,
the state a bytearray and a list indexed by ``_`` constants, and names are short
(each stays in RAM). Console lines are short words and numbers; tools/simulated/events.py
makes sentences and JSON of them.
"""
from adafruit_ticks import ticks_diff, ticks_ms

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_QM = const(1)
_PHASE = const(2)
_TURN = const(3)
_CHALLENGER = const(4)
_CHALLENGED = const(5)
_DID = const(9)
_HOUSE = const(19)
_NONE = const(255)
_ANSWERING = const(1)
_REVEAL = const(2)
_ENDED = const(3)
_ANSWERED = const(1)
_WHAT = const(0)
_RIGHT = const(3)
_WRONG = const(4)
_PENALTY = const(1)
_NEW_PLAYERS = const(5)
_KEY_DOWN = const(-1)
_KEY_KLAXON = const(0)
_KEY_A = const(1)
_KEY_A_HELD = const(2)
_KEY_A_2S = const(3)
_UNDONE = const(2)
_TRY = const(2)
_OV_UNDO = const(0)
_OV_REVEAL = const(1)
_OV_ENTRY = const(2)
_OV_OVER = const(3)
_OV_SEATS = const(5)
_K = const(0)
_R = const(1)
_BUT = const(2)
_OUT = const(3)
_SND = const(4)
_EN = const(5)
_SW = const(6)
_PX = const(7)
_LED = const(8)
_SLEEP = const(9)
_WD = const(10)
_FLAGS = const(11)
_TIMES = const(12)
_B_IO = const(0)
_B_UP = const(1)
_B_KEYS = const(2)
_SOUND_KLAXON = const(0)
_SOUND_DENIED = const(1)
_SOUND_WAVE = const(5)
_PIEZO = const(6)
_ARM = const(0)
_STUCK = const(1)
_UP = const(2)
_CUR = const(3)
_PEND = const(4)
_MUTE = const(5)
_SWM = const(6)
_FL = const(7)
_DIRTY = const(8)
_ANIM = const(9)
_PH = const(10)
_PV = const(11)
_N = const(12)
_DUE = const(13)
_NB = const(14)
_FAULT = const(15)
_NP = const(16)
_OUT_OF_MEMORY = const(2)
_TONE = const(17)
_SEG = const(18)
_LV = const(19)
_RAW = const(21)
_CCW = const(23)
_DICE = const(24)
_WOKE = const(25)
_SPAN = const(26)
_KT = const(0)
_FLT = const(1)
_SV = const(2)
_LAST = const(3)
_FT = const(4)
_REARM = const(5)
_HELD = const(6)
_IDLE = const(7)
_T0 = const(9)
_TN = const(10)
_HZ = const(11)
_BT = const(12)
_SMP = const(14)
_DT = const(15)
_KR = const(16)
_KS = const(17)
_GL = const(18)
_TICKS = const(0x1FFFFFFF)
_WHITE = const(1)
_YELLOW = const(2)
_GREEN = const(3)
_GREY = const(4)
_VERMILLION = const(5)
_SKY = const(6)
_ORANGE = const(7)
_PURPLE = const(8)
_BLUE = const(9)
_SLOW = const(1)
_FAST = const(2)
# (end of the names)


class Device:
    """``Device(parts)`` (from qiklaxon/restore.py). ``c``: the scene, each pixel's
    colours, then each pixel's pattern."""

    def __init__(self, p):
        # (one letter each: interned names cost the Express's heap; docs/develop.md)
        self.p = p  # the parts: layout.py's fields (_K, _R, _BUT, _OUT, _SND, ...)
        self.k = p[_K]  # the Klaxon's debouncer
        self.r = p[_R]  # the referee (None: a pure Klaxon)
        self.f = p[_FLAGS]  # flags and small counts: layout.py's ARM .. (F_SLOTS of them)
        self.t = p[_TIMES]  # times, ms: layout.py's KT .. (T_SLOTS of them)
        self.c = bytearray(2 * self.f[_NP])  # the scene: each pixel's colours, then patterns
        try:
            self.render()  # the table as it stands: the QM, or the saved game's question
        except Exception as e:  # (an overlay that does not fit: a fault, not a dead board)
            self.crash(e)
        if __debug__ and self.f[_WOKE]:  # woken by the Klaxon: a press, however long ago
            self.press(0, ticks_ms())  # it was let go (a reboot: ~1.3 s)

    def run(self):
        """Poll for ever (code.py); if the Klaxon's own path fails, say so and go on."""
        import gc

        gc.collect()  # what start-up left behind
        while True:
            try:
                while True:
                    self.poll()
            except Exception as e:
                self.crash(e)

    def poll(self):
        """One pass: the Klaxon, then A or B, the chores, the sound and the lights."""
        n = ticks_ms()
        f = self.f
        k = self.k
        k.update()
        s = k.state ^ f[_UP]  # bit 0: held down (debounced); bit 1: down now; bit 2: changed
        if s & 7:  # down now, held, or an edge
            t = self.t
            if s & 2:  # closed now: it counts once closed since _GL ticks ago (bounce and
                t[_KR] = n  # all)
                if not f[_SPAN]:
                    f[_SPAN] = 1
                    t[_KS] = n
                elif f[_ARM] and ticks_diff(n, t[_KS]) >= t[_GL]:
                    f[_ARM] = 0
                    self.press(0, n)
            if s & 4:  # the debouncer's edge (never before the press above)
                t[_KT] = n
            elif s & 1 and not f[_STUCK] and ticks_diff(n, t[_KT]) >= t[_HELD]:
                f[_STUCK] = 1
                if f[_CUR] != _NONE:
                    self.hush()
                print("fault: the Klaxon is stuck down; check its wiring")
                self.render()
        elif f[_SPAN] or not f[_ARM]:  # open: since when
            t = self.t
            s = ticks_diff(n, t[_KR])
            f[_SPAN] = s < t[_GL]  # open for _GL ticks: the next closing starts anew
            if not f[_ARM] and s >= t[_REARM]:
                f[_ARM] = 1
                if f[_STUCK]:
                    f[_STUCK] = 0
                    print("fault cleared: the Klaxon is released")
                    self.render()
        f[_N] = s = (f[_N] + 1) & 255
        if s & 1:
            return  # odd passes: the Klaxon alone
        t = self.t
        b = f[_NB] and (n - t[_SMP]) & _TICKS >= 3  # A and B: 3 ticks since their sample
        if s & 7 and not b:
            return  # the rest every 8th pass (render() makes the next one such)
        p = self.p
        try:
            if b:
                t[_SMP] = n
                self.button(0, n)
                if f[_NB] > 1:
                    self.button(1, n)
                if s & 7:
                    return
            if f[_CUR] != _NONE and not self.step(n):
                f[_CUR] = _NONE
                t[_LAST] = n
                if p[_EN]:
                    p[_EN].value = False
                if f[_PEND] != _NONE:
                    self.play(f[_PEND], n)
            if f[_DIRTY] or f[_ANIM] and (n >> 7 & 7) != f[_PH]:
                self.draw(n)
            if not s:  # every 256th pass
                self.chores(n)
        except Exception as e:  # the Klaxon above goes on whatever happens here
            self.crash(e)

    def chores(self, n):
        """Every 256th pass (``n``: now): the watchdog, the host, sleeping, saving, a
        fault's end."""
        f = self.f
        t = self.t
        p = self.p
        if __debug__ and p[_WD]:
            p[_WD].feed()
        import supervisor

        if supervisor.runtime.serial_bytes_available:  # a host asks for the whole state
            import state  # (lib/state.py: one byte a chores pass; it leaves RAM again)

            state.show(self)
        if __debug__ and p[_SLEEP] and not f[_STUCK] and f[_CUR] == _NONE and ticks_diff(
                n, t[_LAST]) >= t[_IDLE]:
            p[_SLEEP](self, n)  # deep sleep until the Klaxon (hardware/power.py)
        if f[_DUE] and ticks_diff(n, t[_SV]) >= 0:
            f[_DUE] = 0
            if self.r and self.r.j and self.r.w:  # only when the game changed
                self.r.save()
        if f[_FAULT] and ticks_diff(n, t[_FT]) >= 5000 and (
                f[_FAULT] != _OUT_OF_MEMORY or f[_CUR] == _NONE and f[_ARM] | f[_STUCK]):
            # Out of memory: not a rebuild in this fragmented heap; the game saved and
            # a fresh VM, once no sound plays and the Klaxon is let go (or stuck).
            # restore.py resumes the game; the failed press can be made again. The
            # restart comes even if the save fails. supervisor's ReloadException is a
            # BaseException; a port without supervisor (the web page) gets a fault,
            # then the rebuild below.
            if f[_FAULT] == _OUT_OF_MEMORY and self.r:
                try:
                    if self.r.j and self.r.w:  # (only if changed: repeated restarts
                        self.r.save()  # would wear the flash)
                finally:
                    print("out of memory: restarting")
                    supervisor.reload()
            f[_FAULT] = f[_DICE] = 0  # try again (not the drawing that may have failed);
            # another fault starts the wait again
            if self.r:
                self.r.more(_OV_UNDO).reset(self.r)
                self.r.more()
            print("fault cleared: the referee is back")
            self.render()

    def crash(self, e):
        """An exception: a pure Klaxon for a while; say and show it (which may fail too,
        out of memory: the Klaxon goes on)."""
        f = self.f
        self.t[_FT] = ticks_ms()  # (a fault that goes on starts the wait again)
        if not f[_FAULT]:  # said once, not every pass it goes on
            f[_FAULT] = _OUT_OF_MEMORY if isinstance(e, MemoryError) else 1
            try:
                print("fault: the referee failed: %r" % (e,))
            except Exception:
                pass
        try:
            self.render()
        except Exception:
            pass

    def press(self, k, n):
        """Key ``k`` from A or B, 0 the Klaxon, -1 a button going down: decide, sound,
        show. A new press lets go of a button still held first."""
        f = self.f
        t = self.t
        t[_LAST] = n
        if k <= _KEY_KLAXON:  # the Klaxon, or a button going down
            for i in range(len(self.p[_BUT])):
                w = f[_LV + i]
                b = self.p[_BUT][i]
                if w == _NONE and not k and f[_RAW + i] >> 1 != b[_B_UP] == f[_RAW + i] & 1 and \
                        ticks_diff(t[_KS], t[_SMP]) > 0 and b[_B_IO].value != b[_B_UP]:
                    # down before the Klaxon's first contact, not taken, down still: a tap
                    w = 0
                    f[_RAW + i] = 3 - 3 * b[_B_UP]
                if w != _NONE:  # a tap counts first; a longer hold is called off
                    f[_LV + i] = _NONE
                    f[_PV] = 0
                    if not w:
                        self.press(b[_B_KEYS][0], n)
            if k:
                return
        r = self.r
        ok = _TRY  # no referee, or a fault: a plain klaxon
        d = 0  # a roll: A between questions, nothing entered
        if r and not f[_FAULT]:
            d = _OV_ENTRY * (k == _KEY_A and not (r.S[_PHASE] or r.u[_WHAT]))
            try:
                ok = r.key(k)
            except Exception as e:
                ok = not k  # A or B: denied; the Klaxon sounds whatever happens
                self.crash(e)
        elif k:  # a fault: A and B wait for the referee
            self.play(_SOUND_DENIED, n)
            return
        if not k and ok == _TRY:
            print("klaxon sounded")
        # the Klaxon or the buzz; A and B: the buzz, the blip, or a chime and a flash for a
        # change the table must see (taken back, done)
        self.play(b"\x01\x02\x04\x03"[ok] if k else _SOUND_KLAXON if ok else _SOUND_DENIED, n)
        if ok:
            if not k or ok > 1:
                f[_FL] = (_BLUE if ok == _UNDONE else _GREEN) | _WHITE << 4 if k else \
                    _VERMILLION | _WHITE << 4
                t[_FLT] = (n + (400 if r and not f[_FAULT] or k else 1200)) & _TICKS
            if r:
                f[_DUE] = 1
                t[_SV] = (n + 1000) & _TICKS
                f[_DICE] = not r.S[_PHASE] and d  # (a roll to the finish: the end shows)
                t[_DT] = t[_FLT]
        elif not k and r and f[_NP] and f[_DICE] != _OV_ENTRY and not (r.u[_WHAT] or
                                                                 r.S[_PHASE] % 3):
            f[_DICE] = _OV_SEATS  # the Klaxon between questions (the dice not shown) or
            t[_DT] = n  # after the game: every position
        try:
            self.render()
        except Exception as e:
            self.crash(e)

    def button(self, i, n):
        """Sample button ``i``: it acts when let go, at the level its hold reached."""
        f = self.f
        t = self.t
        io, up, keys, ms = self.p[_BUT][i]
        x = io.value
        w = f[_RAW + i]  # the last sample << 1 | the level taken
        s = w & 1
        if x == w >> 1 and x != s:  # two samples 5 ms apart agree on a new level
            s = x | 4
        f[_RAW + i] = x << 1 | s & 1
        v = f[_LV + i]
        if s & 4:
            if (s ^ up) & 1:  # pressed: any other button held counts first
                self.press(_KEY_DOWN, n)
                t[_BT + i] = n
                f[_LV + i] = 0
            elif v != _NONE:
                f[_LV + i] = _NONE
                f[_PV] = 0
                self.press(keys[v], n)
        elif v != _NONE:  # held: its next meaning, once held long enough, where it means
            w = v + 1  # something now (A held, A held long: between questions; A held: in a
            r = self.r  # count, choosing a seat); elsewhere it stays a slow tap
            while w < len(keys) and ticks_diff(n, t[_BT + i]) >= ms[w]:
                k = keys[w]
                if k > _KEY_A_2S or not (r.u[_WHAT] or r.S[_PHASE]) or k == _KEY_A_HELD and \
                        0 < r.u[_WHAT] < _NEW_PLAYERS:
                    f[_LV + i] = v = w  # shown by key: A held orange slow, A held long sky
                    # fast, B grey, B held blue slow, B held long green fast (the end), or
                    # white fast (a game set up, when over or not begun)
                    s = b"\x00\x00\x17\x26\x04\x19\x23"[k]
                    if s == _GREEN | _FAST << 4 and (r.S[_PHASE] == _ENDED or not r.S[_PHASE]
                                                     and not any(r.S[_DID:_HOUSE])):
                        s = _WHITE | _FAST << 4
                    f[_PV] = s
                    self.render()
                w += 1

    def play(self, i, n):
        """Start sound ``i`` (0 klaxon, 1 denied, 2 blip); during the klaxon the others wait."""
        p = self.p
        f = self.f
        if f[_CUR] == _SOUND_KLAXON and i:  # one sound after the klaxon: the buzz, else a
            # chime (undone, then done), else the blip
            if f[_PEND] == _NONE or b"\x00\x01\x04\x03\x02"[i] < b"\x00\x01\x04\x03\x02"[f[_PEND]]:
                f[_PEND] = i
            return
        if i:  # (a klaxon keeps the sound that waits for it)
            f[_PEND] = _NONE
        s = p[_SND][i]
        if s is None or f[_MUTE] or p[_SW] and p[_SW].value == f[_SWM]:
            return
        if p[_EN]:
            p[_EN].value = True
        f[_CUR] = i
        if __debug__ and not f[_TONE]:  # WAV
            p[_OUT].play(s)
        else:  # a tone sweep
            f[_SEG] = 0
            if __debug__:  # a piezo: what played ends, the new sound's voice from its start
                self.hush(0)  # (the Express's one DAC wave needs not: -O3 drops this)
            self.t[_T0] = self.t[_TN] = n
            self.step(n)

    def step(self, n):
        """The tone sweep's pitch now (every 20 ms at most); False once over (WAV: played)."""
        f = self.f
        t = self.t
        if __debug__ and not f[_TONE]:
            return self.p[_OUT].playing
        s = self.p[_SND][f[_CUR]]
        if ticks_diff(n, t[_TN]) < 0:
            return True
        d = ticks_diff(n, t[_T0])
        while d >= s[3 * f[_SEG] + 2] * 10:
            d -= s[3 * f[_SEG] + 2] * 10
            t[_T0] = (n - d) & _TICKS
            f[_SEG] += 1
            if 3 * f[_SEG] >= len(s):
                self.hush()
                return False
        i = 3 * f[_SEG]
        self.hush(10 * s[i] + 10 * (s[i + 1] - s[i]) * d // (10 * s[i + 2]) if s[i] else 0)  # 0: a rest
        t[_TN] = (n + 20) & _TICKS
        return True

    def hush(self, hz=-1):
        """A tone of ``hz`` now (0: a rest); by default, silence."""
        p = self.p
        t = self.t
        o = p[_OUT]
        if __debug__ and not self.f[_TONE]:  # WAV
            o.stop()
        elif __debug__ and p[_SND][_SOUND_WAVE] is None:  # a piezo: its PIO program, by the
            # Pico's profile's tone(): the voice 0 RASP (klaxon, buzz), 1 SQUARE; the pitch before
            p[_SND][_PIEZO](o, hz, self.f[_CUR] > _SOUND_DENIED, t[_HZ])
        elif hz != t[_HZ]:  # the DAC's wave: 22 samples a period (hardware/profile_cpx.py)
            if hz > 0:
                p[_SND][_SOUND_WAVE].sample_rate = 22 * hz
                o.play(p[_SND][_SOUND_WAVE], loop=True)
            else:
                o.stop()
        t[_HZ] = hz
        if hz < 0:
            self.f[_CUR] = _NONE
            if p[_EN]:
                p[_EN].value = False

    def draw(self, n):
        """The scene (or a flash over it) on the pixels and the LED. ``c`` is clockwise
        from pixel 0; pixels numbered the other way (the Circuit Playground's ring): place i
        is pixel -i mod np. The roll until the next action: qiklaxon/entry.py's ``dice``."""
        f = self.f
        c = self.c
        np = f[_NP]
        ph = n >> 7 & 7
        if f[_FL] and ticks_diff(n, self.t[_FLT]) >= 0:
            f[_FL] = 0
        f[_PH] = ph
        f[_DIRTY] = 0
        f[_ANIM] = f[_FL]
        w = 0  # the roll: pixels lit | their colour << 8
        d = f[_DICE] and not f[_FL] | f[_PV] | f[_STUCK] | f[_FAULT] and self.r
        if d:
            f[_ANIM] = 1
            w = d.more(f[_DICE]).dice(self, ticks_diff(n, self.t[_DT]) >> 7, np)
            if w < 0:  # the positions, drawn into the scene (qiklaxon/seats.py)
                d = 0
        if __debug__ and self.p[_LED]:  # a hold's preview: on (one button's B), slow
            v = f[_PV]  # (held), fast (held long)
            if v:
                f[_ANIM] = 1
            self.p[_LED].value = f[_FL] and not ph & 1 or w > 0 or v and (
                v < 16 or v >> 4 == _SLOW and ph < 4 or v >> 4 == _FAST and not ph & 1)
        px = self.p[_PX]
        if px:
            for i in range(np):
                s = _FAST if f[_FL] else c[np + i]  # a flash alternates every step
                k = f[_FL] or c[i]
                if d:
                    s = 0
                    k = w >> 8 if i < w & 255 else 0
                if s:
                    f[_ANIM] = 1
                    if s == _SLOW and ph > 3 or s == _FAST and ph & 1:
                        k >>= 4
                px[-i % np if f[_CCW] else i] = (
                    0, 0xFFFFFF, 0xF0E442, 0x009E73, 0x181818, 0xD55E00, 0x56B4E9, 0xE69F00,
                    0xCC79A7, 0x0072B2, 0xFF0000)[k & 15]
            px.show()

    def render(self):
        """The scene for the table's state, after every change."""
        f = self.f
        np = f[_NP]
        c = self.c
        f[_DIRTY] = 1
        f[_N] |= 7  # drawn on the next pass
        k = _PURPLE | _FAST << 4 if f[_FAULT] or f[_STUCK] and not f[_PV] else f[_PV]  # (a
        # hold shows over a stuck Klaxon: A and B work meanwhile)
        r = self.r
        for i in range(np):
            c[i] = k & 15
            c[np + i] = k >> 4
        if k or not r:
            return
        S = r.S
        n = S[_PLAYERS]
        u = r.u
        m = u[_WHAT]
        if m or S[_PHASE] == _ENDED:  # a penalty, a move, the end or a new game
            r.more(_OV_REVEAL if m == _PENALTY else _OV_ENTRY if _PENALTY < m < _NEW_PLAYERS
                   else _OV_OVER).draw(r, c, np)
            return
        q = 1  # the reveal's first answer not marked yet
        for s in range(n):
            s = (S[_QM] + s) % n
            w = S[_DID + s] if S[_PHASE] else 0
            k = (u[_RIGHT] | u[_WRONG]) >> s & 1  # marked right or wrong
            if s == S[_QM]:  # the QM white
                k = _WHITE
            elif S[_PHASE] == _ANSWERING and s == S[_TURN]:  # answering: yellow, slow
                k = _YELLOW | _SLOW << 4
            elif S[_PHASE] == _REVEAL and k:  # marked: green right, orange wrong
                k = _GREEN if u[_RIGHT] >> s & 1 else _ORANGE
            elif S[_PHASE] == _REVEAL and w == _ANSWERED and q:  # to mark: yellow, fast
                k = _YELLOW | _FAST << 4
                q = 0
            elif S[_PHASE] == _REVEAL and s == S[_CHALLENGER]:
                k = _VERMILLION | _FAST << 4
            elif S[_PHASE] == _REVEAL and s == S[_CHALLENGED]:
                k = _SKY | _SLOW << 4
            else:  # answered, passed
                k = (0, _GREEN, _GREY)[w]
            i = s * np // n if np >= n else s
            if i < np:
                c[i] = k & 15
                c[np + i] = k >> 4
