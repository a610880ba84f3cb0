"""The table's scoreboard for a real board: its console lines, followed (host-only).

A board prints short console lines (``klaxon 3 1``, ``answer 2``, ``reveal`` then
``at 0 3 0 -12``; tools/simulated/events.py reads them). ``Scoreboard.feed(line)`` follows the
game from them with a mirror of the board's own referee (``qiklaxon.core.Referee``:
the same rules, so an answer moves the turn, a Klaxon ends the answering and a reveal
moves the pieces exactly as on the board), and says what to sound and whether it
must ask the board for its whole state. It runs on CPython (tests, the benchmark)
and in the web page's MicroPython VM (web/page.py), where the page's serial reader
(Web Serial, or ``tools/maker/web.py --serial PORT``) feeds it.

The whole state. The lines say what happened, not where the game is, so a
scoreboard that joins mid-game, or one that lost track (a line it did not see, a
board that restarted), asks: one byte on the console, and the board prints
``state`` and its referee's ``S`` (layout.S_SLOTS numbers), ``u`` (U_SLOTS) and each
seat's square (hardware/device.py, in its chores: within a few hundred passes);
a pure Klaxon prints ``state`` alone. ``need`` says when to ask: before the first
state, and after a line the mirror cannot follow (``resumed``, a start-up ``new``,
an undo past what it saw, a fault's rebuild, a line whose seat or positions are not
the mirror's). A board that restarts (CircuitPython's own lines, ``resumed``) is
followed that way. A line it cannot parse is shown as it came and changes nothing.

What the console cannot carry, the scoreboard does not claim: whether a move being
entered goes forward or back (the board says only the count, then ``move`` and the
positions), a held button's preview, A or B refused (the board buzzes and says
nothing). The finish square is known only from a state line: the mirror never ends a
game on its own, it follows ``game over`` (so a QK_FINISH changed since cannot make
it end one the board goes on with).

The ring is drawn by the board's own code (hardware/device.py's ``render()`` and
``draw()``) from the mirror: as the Circuit Playground's ring shows it.
"""

import events
from model import layout as L
from qiklaxon.core import Referee

import hardware.device as _device

SOUNDS = ("klaxon", "denied", "blip", "done", "undone")  # the board's sounds (WAV names)
# CircuitPython's own lines: the board (re)started (and code.py's first, the firmware's
# version, tools/maker/deploy.py VERSION_LINE): ask, for a board that comes back a pure Klaxon
# says nothing more (a referee's "new" or "resumed" follows); the banner comes at a UART
# console's start and on entering the REPL (whose prompt, after a byte, says which)
RESTARTS = ("soft reboot", "Adafruit CircuitPython", "code.py output:", "Auto-reload is on",
            "out of memory: restarting", "QI Klaxon ")
# ... or code.py stopped (an error: the lines before say which). Then CircuitPython waits
# for a key, and any byte, an ask's too, takes the board into its REPL, where it would not
# run code.py again on a file saved: no ask until it starts again (the reset button). A
# board that cannot start (hardware/start.py) blinks its LED for ever: no game to ask for;
# in safe mode (safemode.py) it sleeps, restarts (the cable's port goes and comes back,
# which asks) or stays there, where a byte left waiting would take it into its REPL
STOPS = ("Code done running", "Press any key to enter the REPL", ">>>",
         "QI Klaxon cannot start", "safemode.py output:", "QI Klaxon safe mode")
STOPPED = ("The board's code.py has stopped (the log says why): put that right, then press "
           "the board's reset button")
PHASES = ("idle", "answering", "reveal", "over")
LINE_MAX = 300  # a line longer than this (garbage, a wrong baud rate) is cut for showing
NONE = L.NONE
NP = 10  # the ring drawn: a Circuit Playground's ten pixels, numbered counter-clockwise


def clean(text):
    """A console line as a terminal shows it: without CircuitPython's status bar (an OSC
    sequence, ESC ] ... BEL or ESC \\, which titles the terminal), colour and cursor codes
    (CSI: ESC [ ... letter), carriage returns and other control characters; cut to
    LINE_MAX characters."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\x1b" and i + 1 < n and text[i + 1] == "]":  # OSC: to BEL or ESC \
            j = i + 2
            while j < n and text[j] != "\x07" and text[j] != "\x1b":
                j += 1
            i = j + (2 if j + 1 < n and text[j] == "\x1b" and text[j + 1] == "\\" else 1)
            continue
        if c == "\x1b" and i + 1 < n and text[i + 1] == "[":  # CSI: to its final letter
            j = i + 2
            while j < n and not ("@" <= text[j] <= "~"):
                j += 1
            i = j + 1
            continue
        if c >= " " and c != "\x7f" or c == "\t":
            out.append(c)
        i += 1
    return "".join(out)[:LINE_MAX]


def table(r):
    """The game as a referee holds it, for comparing the scoreboard with the board (the
    tests hold the mirror to the host harness's own referee): its state ``S`` less the
    finish, each seat's square, and the reveal's marks and penalties (``u``'s right,
    wrong and the two parties' penalties). ``r`` None: a pure Klaxon."""
    if r is None:
        return {"mode": "klaxon"}
    S = r.S
    u = r.u
    return {"mode": "referee",
            "S": [S[i] for i in range(L.S_SLOTS) if i != L.FINISH and i != L.FINISH_LO],
            "positions": [r.P[i] for i in range(S[L.PLAYERS])],
            "marks": [u[L.RIGHT], u[L.WRONG], u[L.CHALLENGER_PEN], u[L.CHALLENGED_PEN]]}


def _seat(v):
    return None if v == NONE else v


def whole(S, u):
    """Whether a referee's state ``S`` and entry ``u`` are ones the board's referee can
    hold: its QM and its turn seats of its game, each seat's doing 0 to 2, the entry's
    seat and count in range. The board's own code (its referee's turn walking round to
    the QM, the ring's render()) relies on it: a mirror that is not whole is asked for,
    never played on (a loop that never ends would freeze the page's tab)."""
    n = S[L.PLAYERS]
    if not (2 <= n <= L.SEATS and S[L.QM] < n and S[L.PHASE] <= L.ENDED and
            (S[L.ROLL] < 216 or S[L.ROLL] == NONE)):
        return False
    for i in (L.TURN, L.CHALLENGER, L.CHALLENGED):
        if S[i] >= n and S[i] != NONE:
            return False
    for i in range(L.SEATS):
        if S[L.DID + i] > L.PASSED:
            return False
    m = u[L.WHAT]
    if not (0 <= m <= L.NEW_QM and 0 <= u[L.COUNT] <= 999 and 0 <= u[L.SEAT] < L.SEATS and
            0 <= u[L.RIGHT] < 1 << L.SEATS and 0 <= u[L.WRONG] < 1 << L.SEATS and
            0 <= u[L.CHALLENGER_PEN] <= 999 and 0 <= u[L.CHALLENGED_PEN] <= 999):
        return False
    if m >= L.NEW_PLAYERS:  # a new game's players, then its first QM
        return 2 <= u[L.COUNT] <= L.SEATS and (m == L.NEW_PLAYERS or u[L.SEAT] < u[L.COUNT])
    return not m or u[L.SEAT] < n


def words(r):
    """Where the game is, in a sentence (the page's status line, for the page's own
    board and for a real one)."""
    if r is None:
        return "A pure Klaxon: every press sounds"
    S = r.S
    phase = S[L.PHASE]
    if phase == L.BETWEEN:
        return "Between questions: QM seat %d taps A to roll, B to ask" % S[L.QM]
    if phase == L.ANSWERING and S[L.TURN] != NONE:
        return "Seat %d to answer (A), pass (B) or hit the Klaxon; QM seat %d" % (
            S[L.TURN], S[L.QM])
    if phase == L.REVEAL:
        return "The reveal: QM seat %d marks each answer, A right, B wrong" % S[L.QM]
    if phase == L.ENDED:
        return "Game over: B held 2 s sets up a new game"
    return "Playing"


class _Pixels(list):
    """The ring the board's draw() writes (a NeoPixel's item assignment and show())."""

    def show(self):
        pass


class Scoreboard:
    """A real board's game, followed from its console lines: ``feed(line, now_ms)``."""

    def __init__(self):
        self.r = Referee(4, 0, 0, None)  # the mirror (its finish 0: see above)
        self.mode = None  # "referee", "klaxon", or None: not known yet
        self.synced = False  # the mirror holds the board's game (since a state line)
        self.need = True  # ask the board for its whole state
        self.why = "joining"  # ... and why
        self.finish = None  # the finish square, from a state line (0: the QM ends it)
        self.pending = None  # the event whose "at" line comes next
        self.refused = None  # the last refusal's reason
        self.fault = None  # what the board said of a fault, while it lasts
        self.asleep = False
        self.stopped = False  # the board's code.py stopped (STOPS): nothing to ask
        self.log = []  # [t_ms, event, fields], merged as tools/simulated/events.py merges them
        self.lines = 0  # lines fed
        # the ring: what hardware/device.py's render() and draw() read of a Device
        self.f = bytearray(L.F_SLOTS)
        self.t = [0] * L.T_SLOTS
        self.c = bytearray(2 * NP)
        self.px = _Pixels([0] * NP)
        self.p = [None] * (L.TIMES + 1)
        self.p[L.PX] = self.px
        self.p[L.FLAGS] = self.f
        self.p[L.TIMES] = self.t
        self.f[L.NP] = NP
        self.f[L.CCW] = 1
        self.f[L.CUR] = self.f[L.PEND] = NONE

    # ------------------------------------------------------------------ lines
    def feed(self, line, now_ms=0):
        """Take one console line (as read, escapes and all): returns (event, fields,
        sound name or None). The event is tools/simulated/events.py's; ``console``: a line it does
        not know, shown as it came, which changes nothing."""
        text = clean(line)
        now_ms = int(now_ms)
        self.lines += 1
        if not text:  # (a blank line, or only the status bar: nothing, not even a break)
            return "console", {"line": ""}, None
        name, f = events.parse(text)
        before = self.pending  # the event whose "at" line this may be ("at": the game over)
        self.pending = None
        if not self._sane(name, f, before):  # numbers, or an "at" or "game over", no board
            name, f = "console", {"line": text}  # prints there: as it came
        sound = None
        if name != "console" and self.stopped:  # (its restart not seen): it runs again
            self.stopped = False
            self._lost("the board's code.py runs again")
        if name != "console" and name != "positions" and name != "over":
            self.asleep = name == "sleep"
        try:
            sound = self._take(name, f, text, now_ms, before)
        except Exception as e:  # a line this mirror cannot follow: ask the board
            self._lost("a line not followed (%r)" % (e,))
        if sound and sound != "denied":  # a press taken: the ring flashes as the board's
            self._flash(name, sound, now_ms)  # does, and shows a roll until the next press
        self._log(now_ms, name, f)
        return name, f, sound

    def _flash(self, name, sound, now_ms):
        """The ring after a press taken, as hardware/device.py's press() leaves it: a
        flash for the Klaxon (vermillion), a change (green: done) or a thing taken back
        (blue: undone), 400 ms (a pure Klaxon's or a fault's klaxon 1200 ms; a board
        not known yet is taken for a referee's, as most are); a roll shows from the end
        of its flash until the next press."""
        f = self.f
        if name == "klaxon" or sound != "blip":
            f[L.FL] = (L.VERMILLION if name == "klaxon" else L.BLUE if sound == "undone"
                       else L.GREEN) | L.WHITE << 4
            long = name == "klaxon" and (self.mode == "klaxon" or self.fault is not None)
            self.t[L.FLT] = (now_ms + (1200 if long else 400)) & L.TICKS
        f[L.DICE] = L.ROLL_SHOWN if name == "roll" and self.r.S[L.PHASE] == L.BETWEEN else 0
        self.t[L.DT] = self.t[L.FLT]

    def _sane(self, name, f, before):
        """Whether a parsed line's numbers are ones a board prints (seats of this game,
        dice 1 to 6, a whole state of the right length), and an ``at`` or ``game over``
        line comes where the board prints one (``before``: the event before it): else it
        is garbage, not news."""
        if name == "over":
            return before == "at"
        if name == "state":  # (and its last number the sum of the others: lib/state.py)
            nums = f["numbers"]
            n = nums[L.PLAYERS] if nums else 0
            k = L.S_SLOTS + L.U_SLOTS
            # (a bare "state" is a pure Klaxon's: from a board followed as a referee, it is
            # a referee's line cut short, the cable pulled mid-line; after a restart it may
            # be a pure Klaxon's answer)
            if not nums:
                return not (self.synced and self.mode == "referee")
            return 2 <= n <= L.SEATS and len(nums) == k + n + 1 and \
                sum(nums[:-1]) == nums[-1] and all(
                0 <= v <= 255 for v in nums[:L.S_SLOTS]) and all(
                -32767 <= v <= 32767 for v in nums[k:]) and whole(
                nums[:L.S_SLOTS], nums[L.S_SLOTS:k])
        if name == "roll":
            return all(1 <= d <= 6 for d in f["dice"])
        if name == "positions":
            return before is not None and before != "at" and 2 <= len(f["positions"]) <= L.SEATS
        n = self.r.S[L.PLAYERS] if self.synced and self.mode == "referee" and \
            name != "first_qm" else L.SEATS  # (a new game's first QM: of its own players)
        for key in ("seat", "qm", "challenger", "challenged"):
            if key in f and not 0 <= f[key] < n:
                return False
        if name == "players":
            return 2 <= f["players"] <= L.SEATS
        return not ("count" in f and not 0 <= f["count"] <= 999 or
                    "squares" in f and not 0 <= f["squares"] <= 999)

    def _lost(self, why):
        if not self.need:
            self.need = True
            self.why = why

    def _take(self, name, f, text, now_ms, before):
        r = self.r
        S = r.S
        u = r.u
        if name == "console":
            stops = text.startswith(STOPS)
            if stops or text.startswith(RESTARTS):  # the board restarts, or code.py stopped
                self.synced = False
                self.pending = None
                self.fault = None
                self.asleep = False
                self.f[L.FAULT] = self.f[L.STUCK] = 0
                self.stopped = stops
                if stops:
                    self.need = False
                    self.why = "the board's code.py stopped"
                else:
                    self._lost("the board restarted")
            return None
        if name == "state":
            self._state(f["numbers"])
            return None
        if name == "klaxon":  # (alone, "klaxon sounded": a pure Klaxon's, a fault's, or a
            if "challenger" in f and self.mode != "klaxon":  # try before the first question)
                self._expect(S[L.TURN] == f["challenger"], "the Klaxon's seat")
                S[L.TURN] = f["challenger"]
                self._act(L.OP_KLAXON)
                self._expect(S[L.CHALLENGED] == f["challenged"], "the challenged")
                S[L.CHALLENGED] = f["challenged"]
            return "klaxon"
        if name == "refused":
            self.refused = f["reason"]
            if f["reason"] in ("no question running", "the game is over") and not u[
                    L.WHAT] and self.f[L.NP] and self.f[L.DICE] != L.ROLL_SHOWN:  # the Klaxon between questions or after the
                self.f[L.DICE] = L.SEATS_SHOWN  # game: the board shows every position
                self.t[L.DT] = now_ms & L.TICKS  # (hardware/device.py press())
            return "denied"
        if name == "fault":
            self.fault = f["what"]  # the referee's (a pure Klaxon until its rebuild), or the
            # Klaxon's (stuck down, or held down at power-on: until it is let go)
            self.f[L.FAULT if "referee" in f["what"] else L.STUCK] = 1
            return None
        if name == "fault_cleared":
            if "referee" in f["what"]:  # rebuilt from its log, nothing being entered: ask
                self.f[L.FAULT] = 0
                for i in range(L.U_SLOTS):
                    u[i] = 0
                self._lost("the referee was rebuilt")
            else:  # the Klaxon released
                self.f[L.STUCK] = 0
            self.fault = None
            return None
        if name == "positions":
            self._positions(f["positions"], before)
            return None
        if name == "over":
            S[L.PHASE] = L.ENDED
            S[L.TURN] = NONE
            self.f[L.DICE] = 0  # (a roll to the finish: the board's ring shows the end, not
            return None  # the roll: hardware/device.py press())
        if name in ("error", "sleep"):
            return None
        self.refused = None
        self.pending = name if name in events._WITH_POSITIONS else None
        sound = "blip"  # what became of the press (the board's sound for it): taken; "done",
        # a position or the QM changed; "undone", something taken back
        if name == "ask":
            self._expect(S[L.QM] == f["qm"], "the QM")
            S[L.QM] = f["qm"]
            self._act(L.OP_ASK)
            u[L.RIGHT] = u[L.WRONG] = u[L.CHALLENGER_PEN] = u[L.CHALLENGED_PEN] = 0
        elif name in ("answer", "pass"):  # (a question everyone passed ends at the last
            self._expect(S[L.TURN] == f["seat"], "the seat answering")  # pass: its
            S[L.TURN] = f["seat"]  # "reveal" line follows, and the rules did it here)
            self._act(L.OP_ANSWER if name == "answer" else L.OP_PASS)
        elif name == "roll":
            d = f["dice"]
            self._act(L.OP_ROLL, (d[0] - 1) * 36 + (d[1] - 1) * 6 + d[2] - 1)
            sound = "done"
        elif name == "miss_go":
            self._expect(S[L.QM] == f["seat"], "the QM")
            S[L.QM] = f["seat"]
            self._act(L.OP_MISS)
            sound = "done"
        elif name == "mark":
            s = f["seat"]
            u[L.RIGHT if f["right"] else L.WRONG] |= 1 << s
            if not f["right"] and (s == S[L.CHALLENGER] or s == S[L.CHALLENGED]):
                u[L.WHAT] = L.PENALTY  # its Klaxon penalty is asked for next
                u[L.COUNT] = 0
                u[L.SEAT] = s
        elif name == "unmark":  # (a mark taken back; or a penalty's count stepped back
            s = f["seat"]  # below 0: its wrong mark goes, and the count)
            u[L.RIGHT] &= ~(1 << s)
            u[L.WRONG] &= ~(1 << s)
            if s == S[L.CHALLENGER] or s == S[L.CHALLENGED]:
                u[L.CHALLENGER_PEN if s == S[L.CHALLENGER] else L.CHALLENGED_PEN] = 0
            if u[L.WHAT] == L.PENALTY and u[L.SEAT] == s:
                u[L.WHAT] = 0
            sound = "undone"
        elif name == "count":  # one more (taken), or one fewer (a step back: undone)
            if u[L.WHAT] == L.WHICH:  # (forward or back: the console does not say)
                u[L.WHAT] = L.FORWARD
            elif not u[L.WHAT] and S[L.PHASE] == L.REVEAL:  # a step back into a penalty
                self._reopen(f["count"])
                sound = "undone"
            elif f["count"] < u[L.COUNT]:
                sound = "undone"
            u[L.COUNT] = f["count"]
        elif name == "penalty":
            s = f["seat"]
            u[L.WHAT] = 0
            u[L.CHALLENGER_PEN if s == S[L.CHALLENGER] else L.CHALLENGED_PEN] = f["squares"]
        elif name == "reveal":
            if S[L.PHASE] == L.REVEAL:  # (else everyone passed: the last pass did it)
                right = u[L.RIGHT]
                self._act(L.OP_REVEAL, right >> 8, right & 255, u[L.CHALLENGER_PEN],
                          u[L.CHALLENGED_PEN])
            u[L.RIGHT] = u[L.WRONG] = 0
            sound = "done"
        elif name == "seat":
            if not u[L.WHAT]:
                u[L.WHAT] = L.WHICH
            u[L.SEAT] = f["seat"]
        elif name == "move":  # how far: from the "at" line that follows
            u[L.WHAT] = 0
            sound = "done"
        elif name == "end":
            u[L.WHAT] = 0
            self._act(L.OP_END)
            sound = "done"
        elif name == "players":  # a game set up: one player more (or fewer: a step back)
            if u[L.WHAT] == L.NEW_PLAYERS and f["players"] < u[L.COUNT]:
                sound = "undone"
            u[L.WHAT] = L.NEW_PLAYERS
            u[L.COUNT] = f["players"]
        elif name == "first_qm":
            u[L.WHAT] = L.NEW_QM
            u[L.SEAT] = f["seat"]
        elif name == "new_game":
            if u[L.WHAT] != L.NEW_QM:  # a board starting with a new game: its players
                self.synced = False  # come in the "at" line, its first QM from settings.toml
                self._lost("a new game at start-up")
                return None
            self._act(L.OP_NEW, u[L.COUNT], u[L.SEAT], 0, 0)
            u[L.WHAT] = 0
            sound = "done"
        elif name == "resumed":  # a board that restarted on its saved game
            self.synced = False
            self._lost("a saved game resumed")
            return None
        elif name == "undo":  # (a reveal's outcome undone leaves its marks as they were:
            u[L.RIGHT] = u[L.WRONG] = u[L.CHALLENGER_PEN] = u[L.CHALLENGED_PEN] = 0  # the
            u[L.WHAT] = 0  # board's step back from its last mark, "count" or "unmark", follows)
            if not self.synced or not r.n or r.act(L.OP_UNDO):
                self._lost("an undo past what this page saw")  # (before it joined)
            sound = "undone"
        elif name == "back":  # a step of an entry back (or out of it)
            m = u[L.WHAT]
            if m == L.PENALTY:  # the mark asking for a penalty is taken back
                u[L.WRONG] &= ~(1 << u[L.SEAT])
            u[L.WHAT] = (L.WHICH if m > L.WHICH else 0) if m < L.NEW_PLAYERS else (
                L.NEW_PLAYERS if m == L.NEW_QM else 0)
            sound = "undone"
        else:  # a word tools/simulated/events.py knows and this page does not (a newer firmware's):
            self._lost("a line this page does not follow: %s" % name)  # the state says
            return None
        return sound

    def _reopen(self, count):
        """A reveal's step back from its last mark, a party's marked wrong: its Klaxon
        penalty (``count``, as it was) is being entered again (qiklaxon/reveal.py)."""
        S = self.r.S
        u = self.r.u
        if not whole(S, u):  # (its walk round the table would not end)
            self._lost("a game this page cannot hold")
            return
        w = s = S[L.QM]
        while (s + 1) % S[L.PLAYERS] != S[L.QM]:  # the last answer marked
            s = (s + 1) % S[L.PLAYERS]
            if (u[L.RIGHT] | u[L.WRONG]) >> s & 1:
                w = s
        p = L.CHALLENGER_PEN if w == S[L.CHALLENGER] else L.CHALLENGED_PEN
        self._expect((w == S[L.CHALLENGER] or w == S[L.CHALLENGED]) and u[L.WRONG] >> w & 1
                     and u[p] == count, "the penalty stepped back into")
        u[L.WHAT] = L.PENALTY
        u[L.SEAT] = w
        u[p] = 0

    def _expect(self, ok, what):
        if not ok and self.synced:
            self._lost("%s is not the one this page had" % what)

    def _act(self, op, a=0, b=0, c=0, d=0):
        """The board took this action: so does the mirror (its own refusal: lost track;
        a mirror that is not ``whole``, say after an ``at`` line of another size, is not
        played on: the referee's walk round the table would not end)."""
        if not whole(self.r.S, self.r.u):
            self._lost("a game this page cannot hold")
            return
        if self.r.act(op, a, b, c, d):
            self._lost("an action this page's game refuses")
        self.r.more()

    def _positions(self, pos, before):
        """An ``at`` line: every seat's square, after the event ``before`` it."""
        r = self.r
        n = len(pos)
        if before == "move" and n == r.S[L.PLAYERS]:  # the seat chosen moves
            s = r.u[L.SEAT]
            v = pos[s] - r.P[s] if s < n else 0
            if v:
                self._act(L.OP_MOVE, s, v >> 8 & 255, v & 255)
        if before == "new_game" and not self.synced:  # a board's start: its players
            self.r = r = Referee(n, 0, 0, None)
        if n != r.S[L.PLAYERS] or [r.P[i] for i in range(n)] != pos:
            if self.synced:
                self._lost("positions not the ones this page had")
            if 2 <= n <= L.SEATS:
                r.S[L.PLAYERS] = n
                for i in range(L.SEATS):
                    r.P[i] = pos[i] if i < n else 0
        self.pending = "at"  # ("game over" may follow)

    def _state(self, nums):
        """The board's whole state: a pure Klaxon (no numbers), or the referee's S, u and
        positions; the mirror takes it as its game, with nothing logged before it."""
        self.stopped = False
        if not nums:
            self.mode = "klaxon"
            self.synced = True
            self.need = False
            self.why = None
            return
        k = L.S_SLOTS + L.U_SLOTS
        n = nums[L.PLAYERS]  # (_sane: the numbers are a state's)
        r = Referee(n, 0, 0, None)
        for i in range(L.S_SLOTS):
            r.S[i] = nums[i]
        self.finish = r.S[L.FINISH] << 8 | r.S[L.FINISH_LO]
        r.S[L.FINISH] = r.S[L.FINISH_LO] = 0  # (the mirror follows "game over": see above)
        for i in range(L.U_SLOTS):
            r.u[i] = nums[L.S_SLOTS + i]
        for i in range(L.SEATS):
            r.P[i] = nums[k + i] if i < n else 0
        r.B[:] = r.S
        r.Q[:] = r.P
        r.n = 0
        self.r = r
        self.mode = "referee"
        self.synced = True
        self.need = False
        self.why = None
        self.pending = None

    def _log(self, t, name, f):
        if self.log:
            folded = events.merge([self.log[-1], (t, name, f)])
            if len(folded) == 1:
                self.log[-1] = folded[0]
                return
        self.log.append((t, name, dict(f)))

    def rejoin(self, why):
        """The board's console is back (plugged in again, or another port): the game may
        have moved on meanwhile, so ask for it again; and what the lines said of the
        board before (a fault, asleep, a refusal) is not known now (a board powered off
        and on meanwhile prints no "fault cleared"): as a page that joins afresh."""
        self.synced = False
        self.stopped = False
        self.need = True
        self.why = str(why)
        self.fault = None
        self.f[L.FAULT] = self.f[L.STUCK] = self.f[L.FL] = self.f[L.DICE] = 0
        self.asleep = False
        self.refused = None
        self.pending = None

    # ------------------------------------------------------------------ what it shows
    def table(self):
        """The game as the mirror holds it (``table``), None until it is known."""
        if not self.synced:
            return None
        return table(None if self.mode == "klaxon" else self.r)

    def view(self):
        """Everything the scoreboard shows, as plain values."""
        out = {"synced": self.synced, "mode": self.mode, "need": self.need, "why": self.why,
               "asleep": self.asleep, "fault": self.fault, "refused": self.refused,
               "finish": self.finish, "stopped": self.stopped}
        r = self.r
        joining = STOPPED if self.stopped else "Joining the game: asking the board"
        if self.mode == "klaxon":
            out["status"] = words(None) if self.synced else joining
            return out
        S = r.S
        u = r.u
        n = S[L.PLAYERS]
        out.update(players=n, qm=S[L.QM], phase=PHASES[S[L.PHASE]] if S[L.PHASE] < 4 else "",
                   positions=[r.P[i] for i in range(n)], answering=_seat(S[L.TURN]),
                   challenger=_seat(S[L.CHALLENGER]), challenged=_seat(S[L.CHALLENGED]),
                   did=[S[L.DID + i] for i in range(n)],
                   right=[i for i in range(n) if u[L.RIGHT] >> i & 1],
                   wrong=[i for i in range(n) if u[L.WRONG] >> i & 1])
        pens = {}
        for s, k in ((S[L.CHALLENGER], L.CHALLENGER_PEN), (S[L.CHALLENGED], L.CHALLENGED_PEN)):
            if s != NONE and u[k]:
                pens[str(s)] = u[k]
        out["penalties"] = pens
        v = S[L.ROLL]
        if v != NONE:
            dice = [v // 36 + 1, v // 6 % 6 + 1, v % 6 + 1]
            out["roll"] = dice
            out["question"] = dice[0] * 100 + dice[1] * 10 + dice[2]
        if S[L.PHASE] == L.ENDED:
            best = max(out["positions"])
            out["winners"] = [s for s in range(n) if r.P[s] == best]
        out["entry"] = self.entry()
        out["status"] = words(r) if self.synced else joining
        return out

    def entry(self):
        """What is being entered at the table, in words (None: nothing)."""
        u = self.r.u
        m = u[L.WHAT]
        if m == L.PENALTY:
            return "Klaxon penalty for seat %d: back %d" % (u[L.SEAT], u[L.COUNT])
        if m == L.WHICH:
            return "moving a piece: seat %d?" % u[L.SEAT]
        if m in (L.FORWARD, L.BACKWARD):
            return "moving seat %d by %d" % (u[L.SEAT], u[L.COUNT])
        if m == L.NEW_PLAYERS:
            return "a new game: %d players" % u[L.COUNT]
        if m == L.NEW_QM:
            return "a new game: first QM seat %d" % u[L.SEAT]
        return None

    def ring(self, now_ms):
        """The ring now, as the board's own code draws it from the mirror (dark until the
        game is known): each pixel's 0xRRGGBB, and what it shows (``scene``)."""
        r = self.r if self.synced and self.mode == "referee" else None
        shell = _Shell(self, r)
        try:
            _device.Device.render(shell)
            _device.Device.draw(shell, now_ms & L.TICKS)
        except Exception as e:  # a game the board's drawing cannot take (the page draws
            for i in range(NP):  # every 64 ms: one exception would end its frames)
                self.px[i] = 0
            for i in range(len(self.c)):
                self.c[i] = 0
            self._lost("a ring that cannot be drawn (%r)" % (e,))
        px = list(self.px)
        return px, scene(self.c, px, False)


def scene(c, px, clockwise):
    """Each pixel's [colour, pattern] numbers (events.PALETTE, PATTERN_NAMES), in pixel
    order, from a Device's scene ``c`` (kept by place clockwise from pixel 0: on a ring
    numbered counter-clockwise place j is pixel -j mod np, hardware/device.py draw())
    and the pixels ``px`` as drawn: where a pixel shows something else (the roll, the
    Klaxon's flash) it is named by the colour it shows, steady."""
    n = len(c) // 2
    palette = events.PALETTE
    out = []
    for i in range(n):
        j = i if clockwise else -i % n
        k, pattern = c[j], c[n + j]
        shown = (palette[k & 15], palette[k >> 4]) if pattern else (palette[k & 15],)
        if px[i] not in shown:
            k = palette.index(px[i]) if px[i] in palette else 0
            pattern = 0
        out.append([k & 15, pattern])
    return out


class _Shell:
    """What hardware/device.py's render() and draw() read of a Device: the scoreboard's
    flags, times, scene and pixels, and the mirror (None: the ring dark, as a pure
    Klaxon's)."""

    def __init__(self, board, r):
        self.f = board.f
        self.t = board.t
        self.c = board.c
        self.p = board.p
        self.r = r

    def render(self):  # (draw() calls it when the positions shown are over)
        _device.Device.render(self)


class Watch:
    """The host harness's game after each action's console lines, for the tests: with
    ``Watch(sim)`` around a run of a tools/simulated/harness.py ``Sim``, ``marks`` is [(lines so
    far, ``table`` of its device's referee)], one after each press the referee took or
    refused (its ``key()``: the lines it printed, and the game after them) and one
    after each line printed outside a press (start-up, a fault, a state line). After
    the line that ends a mark, a scoreboard fed the same lines must hold that game."""

    def __init__(self, sim):
        self.sim = sim
        self.marks = []
        self._depth = 0

    def _mark(self):
        d = self.sim.device
        n = len(self.sim.events)
        if n and (not self.marks or self.marks[-1][0] < n):
            self.marks.append((n, table(d.r if d is not None else None)))

    def __enter__(self):
        sim = self.sim
        self._print = sim.print
        self._key = Referee.key
        watch = self

        def printed(*args, **kw):
            self._print(*args, **kw)
            if not watch._depth:
                watch._mark()

        def key(r, k):
            watch._depth += 1
            try:
                return watch._key(r, k)
            finally:
                watch._depth -= 1
                if not watch._depth:
                    watch._mark()

        sim.print = printed
        Referee.key = key
        return self

    def __exit__(self, *exc):
        Referee.key = self._key
        del self.sim.print
