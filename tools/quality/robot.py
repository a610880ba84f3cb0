"""A table that follows the card literally (host-only): a robot Question Master and players
who act only on what a person at the table perceives, the ring's lights and the sounds,
press with a person's timing, and take every press from the table card (tools/gen/card.py).

    sim = Sim(players=4)
    table = Table(sim, "simulated", random.Random(1))
    table.set_up(6, first_qm=2)           # B held long, count the players, the first QM
    record = table.question(plan)         # roll, read the dice, ask, answer, reveal
    table.presses                         # every press made: (t_ms, control, hold_ms)

What the robot knows is what the table knows: how many play, who answered what, what the
booklet says (the plan), the card, and which way its board's lights are numbered (the
board, as the build guide shows it). It never reads the device's state: it decides from
``look()`` (the pixels sampled every 32 ms, as an eye sees colours and blinks) and from the
sounds it hears. When the ring or the sounds show what the card does not name, or the
card names no press for what it means to do, it stops with ``Lost``: the table would be
stuck there.

Timing, as people press at a table: taps 60-450 ms (a player's answer or pass sometimes
slow, up to 1 s), 0.3-0.9 s between presses, holds the card's time plus 0.3-0.6 s, or held
until the ring shows what letting go will do and let go 0.15-0.4 s later; every press at
a random point within the millisecond.
"""

import re

import card
import events
from model import layout

FLASH_PAIRS = [{card.COLOURS[a].split()[0], card.COLOURS[b].split()[0]}
               for a, b in card.FLASHES.values()]
DICE = ("red", "white", "blue")
LOOK_MS = 640  # long enough to tell a slow blink (512 ms a phase) from a steady light
STUCK_S = 2  # the robot's boards' QK_STUCK_S: a Klaxon held that long is stuck (purple)
JAMS = 0.04  # of the questions, those before which the Klaxon jams (a fault)
LOOKS = 0.06  # ... those before which the table reads every position off the ring
SAMPLE_MS = 32


class Lost(AssertionError):
    """The table is stuck: the ring or the sounds show what the card does not name."""


def plain(words):
    """A cell's words without its note ("(as a tap)", "(as A held)")."""
    for note in (card.AS_TAP, card.AS_HELD):
        words = words.replace(" " + note, "")
    return words


def press_for(moment, words):
    """The press the card gives for doing ``words`` at ``moment`` (its own press, not one
    that only does it as a tap would)."""
    cells = dict((m[0], m[2]) for m in card.MOMENTS)[moment]
    for p in card.PRESSES:
        if cells[p][0] == words:
            return p
    raise Lost("the card names no press for %r at %r" % (words, moment))


class Table:
    """People at a table with the device on ``sim`` (a ``harness.Sim``) of build ``board``."""

    def __init__(self, sim, board, rng, players=None):
        self.sim = sim
        self.rng = rng
        self.cw = events.CLOCKWISE_NUMBERING.get(board, False)
        self.np = len(sim.device.c) // 2
        self.n = players  # how many play (the table knows)
        self.t = sim.now_ms + 300.0
        self.presses = []  # (t_ms, control, hold_ms, bounce_us): every press, to replay
        self.free = self.t  # the last press was let go: the next comes 0.3-0.9 s after
        self.heard = len(sim.sounds())
        self.log = []  # what the robot did and saw, for a failure's message

    # ------------------------------------------------------------------ perception
    def run_to(self, t_ms):
        self.t = max(self.t, t_ms)
        self.sim.run_until_us(int(self.t * 1000))

    def look(self, ms=LOOK_MS):
        """The ring over ``ms``: per pixel (colour, pattern, other colour) as an eye sees it:
        steady, or blinking "slow" or "fast" between two colours."""
        seen = []
        end = self.t + ms
        while self.t < end:
            self.run_to(self.t + SAMPLE_MS)
            seen.append(self.sim.ring())
        out = []
        for i in range(len(seen[0])):
            run = [frame[i] for frame in seen]
            changes = sum(1 for a, b in zip(run, run[1:]) if a != b)
            colours = [c for c in dict.fromkeys(run)]
            if not changes:
                out.append((run[0], "steady", None))
            else:  # lit half the time: its colour is the one that is not off, or the first
                main = [c for c in colours if c != "off"] or colours
                out.append((main[0], "fast" if changes >= 3 else "slow",
                            main[1] if len(main) > 1 else "off"))
        return out

    def hear(self):
        """The sounds heard since the last time (names)."""
        got = [name for _, name in self.sim.sounds()[self.heard:]]
        self.heard = len(self.sim.sounds())
        return got

    def seat_of_pixel(self, i, n=None):
        n = n or self.n
        for s in range(n):
            if events.seat_pixel(s, n, self.np, self.cw) == i:
                return s
        return None

    def lights(self, scene, colour, pattern=None):
        """The pixels lit ``colour`` (and ``pattern``) in ``scene``."""
        return [i for i, (c, p, _) in enumerate(scene)
                if c == colour and (pattern is None or p == pattern)]

    def flashing(self):
        """Whether the ring flashes now (a chime's or the klaxon's): every light the same,
        in one of the flashes' colours (no scene of the game lights them all alike)."""
        ring = set(self.sim.ring())
        return len(ring) == 1 and any(ring < pair for pair in FLASH_PAIRS)

    def settled(self):
        """The ring once no flash is on it: a person waits for a flash to pass, then looks."""
        self.run_to(self.t + 100)  # (a press shows on the ring within a few passes)
        end = self.t + 3000
        while self.flashing():
            if self.t > end:
                raise Lost("the ring flashes and does not stop")
            self.run_to(self.t + SAMPLE_MS)
        return self.look()

    # ------------------------------------------------------------------ pressing
    def gap(self):
        """0.3-0.9 s after the last press was let go (looking at the ring meanwhile)."""
        self.t = max(self.t, self.free + self.rng.uniform(300, 900))

    def press(self, press, slow=False):
        """Make ``press`` (a card press: "A", "B held long", "Klaxon") as a person would;
        returns the sounds it made."""
        self.gap()
        while self.flashing():  # (a person lets a flash pass first)
            self.run_to(self.t + SAMPLE_MS)
        self.t += self.rng.random()  # anywhere within the millisecond
        self.hear()
        bounce = ()
        if press == "Klaxon":
            control, hold, bounce = "klaxon", self.rng.uniform(60, 300), self._bounce()
            self.sim.press(control, self.t, hold, bounce_us=bounce)
        else:
            control = press[0].lower()
            need = card.hold_ms(press)
            if not need:
                hold = self.rng.uniform(450, card.TAP_MOST_MS) if slow else \
                    self.rng.uniform(60, 450)
            elif self.rng.random() < 0.5:  # by the clock: the card's time and a little more
                hold = need + self.rng.uniform(300, 600)
            else:  # by the ring: until it shows what letting go will do
                hold = self._hold_until_shown(control, press)
            self.sim.press(control, self.t, hold)
        self.presses.append((round(self.t, 3), control, round(hold, 3), tuple(bounce)))
        self.free = self.t + hold
        self.run_to(self.t + hold + 60)
        sounds = self.hear()
        end = self.t + 1500  # a press made while the klaxon sounds is heard once it is over
        while not sounds and self.t < end:
            self.run_to(self.t + SAMPLE_MS)
            sounds = self.hear()
        self.log.append((round(self.t), press, sounds))
        if not sounds:
            raise Lost("no sound after %s" % press)
        return sounds

    def _bounce(self):
        return [self.rng.randint(50, 900) for _ in range(self.rng.choice((0, 2, 4)))]

    def _hold_until_shown(self, control, press):
        """Hold ``control`` down from now until the ring shows the card's preview for
        ``press`` on every light, then a reaction time more: returns the hold."""
        colour, pattern = [(c, p) for name, c, p in card.PREVIEWS if name == press][0]
        want = {card.COLOURS[colour].split()[0]}
        if press == "B held long":  # white where it sets up or leaves a game
            want.add(card.COLOURS[card.PREVIEW_SET_UP[0]])
        down = self.t
        self.sim.level(control, int(down * 1000), True)
        t = down
        while True:
            t += SAMPLE_MS
            self.sim.run_until_us(int(t * 1000))
            ring = set(self.sim.ring())
            if len(ring) == 1 and ring <= want:  # every light in the preview's colour
                break
            if t - down > card.hold_ms(press) + 3000:
                raise Lost("held %s: the ring never showed it" % press)
        return t - down + self.rng.uniform(150, 400)  # (sim.press makes both edges)

    def jam(self):
        """A fault, met as the card says: something rests on the Klaxon between questions
        until the ring turns purple (a stuck Klaxon). Returns when it is purple; the QM
        goes on meanwhile (the card: A and B work)."""
        self.gap()
        self.t += self.rng.random()
        self.jammed = self.t
        self.sim.level("klaxon", int(self.t * 1000), True)
        while "purple" not in self.sim.ring():
            if self.t - self.jammed > STUCK_S * 1000 + 2000:
                raise Lost("the Klaxon held down %d s: no purple" % STUCK_S)
            self.run_to(self.t + SAMPLE_MS)
        self.hear()  # (the Klaxon's buzz: between questions it is refused)
        self.log.append((round(self.t), "the Klaxon jammed: purple", []))

    def unjam(self):
        """The Klaxon freed: the purple goes (as long as a look) and the ring is the game's."""
        self.run_to(self.t + self.rng.uniform(200, 1500))
        self.sim.level("klaxon", int(self.t * 1000), False)
        self.presses.append((round(self.jammed, 3), "klaxon", round(self.t - self.jammed, 3),
                             ()))
        self.presses.sort()  # (in the order of their first edge, as a replay takes them)
        self.free = self.t
        purple = end = self.t
        while self.t - purple < LOOK_MS:
            if self.t - end > 3000:
                raise Lost("the Klaxon let go: still purple")
            self.run_to(self.t + SAMPLE_MS)
            if "purple" in self.sim.ring():
                purple = self.t
        self.log.append((round(self.t), "the Klaxon freed", []))

    def positions(self):
        """Between questions (or after the game): every seat's position read off the ring,
        as the card says: the Klaxon, then each seat in turn, its light blinking (yellow,
        or vermillion below 0) and, from the light after it, green hundreds, white tens,
        orange units (blue thousands), each kind in turn when they are more than the
        lights. Returns ({seat: position}, the seconds it took from the press)."""
        sounds = self.press("Klaxon")
        if sounds != ["denied"]:
            raise Lost("the Klaxon between questions: %r" % sounds)
        start = self.t
        seats = []  # each seat's frames: runs of the ring between darks longer than a blink
        dark = 99
        while len(seats) < self.n or dark * SAMPLE_MS <= 200:
            if self.t - start > 40_000:
                raise Lost("the positions never ended: %d seats seen" % len(seats))
            self.run_to(self.t + SAMPLE_MS)
            f = self.sim.ring()
            if all(c == "off" for c in f):
                dark += 1
                continue
            if dark * SAMPLE_MS > 200 or not seats:
                seats.append([])
            else:  # a blink's dark: part of the seat's
                seats[-1] += [["off"] * self.np] * dark
            seats[-1].append(f)
            dark = 0
        while all(c == "off" for c in self.sim.ring()):  # then the table again
            if self.t - start > 40_000:
                raise Lost("after the positions the ring stays dark")
            self.run_to(self.t + SAMPLE_MS)
        got = {}
        for run in seats:
            blink = [i for i in range(self.np) if len({f[i] for f in run}) > 1 and
                     {f[i] for f in run} - {"off"} <= {"yellow", "vermillion"}]
            if len(blink) != 1:
                raise Lost("a position with no one seat's light blinking: %r" % run[:3])
            i = blink[0]
            kinds = {}
            for f in run:
                for colour in ("blue", "green", "white", "orange"):
                    k = sum(1 for j, c in enumerate(f) if c == colour and j != i)
                    kinds[colour] = max(kinds.get(colour, 0), k)
            v = kinds["blue"] * 1000 + kinds["green"] * 100 + kinds["white"] * 10 + \
                kinds["orange"]
            seat = self.seat_of_pixel(i)
            if seat in got:
                raise Lost("seat %s shown twice" % seat)
            got[seat] = -v if "vermillion" in {f[i] for f in run} else v
        self.free = self.t
        self.log.append((round(self.t), "positions", got))
        return got, (self.t - start) / 1000.0

    # ------------------------------------------------------------------ the game
    def set_up(self, players, first_qm):
        """Set up a game at the table (before the first question, or once over): B held
        long, the players counted on the ring, then the first QM walked to."""
        self.press(press_for("Game over", "set up a new game"))  # (before a first question
        # too, the card's note says)
        self.expect_moment("A game's players")
        while True:
            shown = len(self.lights(self.settled(), "sky"))
            if shown == players:
                break
            if shown > players:
                self.press(press_for("A game's players", "one fewer (at 2: leave)"))
            else:
                self.press(press_for("A game's players", "one more"))
        self.press(press_for("A game's players", "next: its first QM"))
        while True:
            scene = self.settled()
            chosen = self.lights(scene, "white", "fast")
            if len(chosen) != 1:
                raise Lost("first QM: %r" % (scene,))
            if self.seat_of_pixel(chosen[0], players) == first_qm:
                break
            self.press(press_for("Its first QM", "next seat"))
        sounds = self.press(press_for("Its first QM", "start the game"))
        if "done" not in sounds:
            raise Lost("start the game: %r" % sounds)
        self.n = players

    def expect_moment(self, moment):
        """Check the ring shows what the card says it shows at ``moment``."""
        scene = self.settled()
        ok = {
            "A game's players": lambda: self.lights(scene, "sky") and all(
                c in ("sky", "off") for c, _, _ in scene),
            "Its first QM": lambda: len(self.lights(scene, "white", "fast")) == 1,
            "Game over": lambda: self.lights(scene, "green", "fast"),
        }[moment]()
        if not ok:
            raise Lost("%s: the ring shows %r" % (moment, scene))
        return scene

    def qm(self):
        """Between questions: the QM's seat, the one white light (and nothing blinks)."""
        scene = self.settled()
        white = self.lights(scene, "white", "steady")
        if len(white) != 1 or any(p != "steady" for _, p, _ in scene):
            raise Lost("between questions: %r" % (scene,))
        return self.seat_of_pixel(white[0])

    def roll(self, jam=False):
        """The QM rolls and reads the dice from the ring: (red, white, blue). ``jam``: the
        Klaxon jams first, the QM rolls while the ring is purple (the card: A still works),
        and the dice are read once it is freed."""
        if jam:
            self.jam()
        sounds = self.press(press_for("Between questions", "roll the dice"))
        if "done" not in sounds:
            raise Lost("the roll: %r" % sounds)
        if jam:
            self.unjam()
        got = []
        last = None
        end = self.t + 7000
        while len(got) < 3 and self.t < end:
            self.run_to(self.t + SAMPLE_MS)
            lit = [c for c in self.sim.ring() if c != "off"]
            colours = set(lit)
            shown = (lit[0], len(lit)) if len(colours) == 1 and lit[0] in DICE and len(
                lit) <= 6 else None
            if lit and not shown and not colours <= {"green", "white"}:
                raise Lost("the roll: %r" % lit)
            if shown and shown != last and shown[0] == DICE[len(got)]:
                got.append(shown[1])
            last = shown
        if len(got) < 3:
            raise Lost("the roll never showed red, white and blue")
        return tuple(got)

    def ask(self):
        sounds = self.press(press_for("Between questions", "ask the question"))
        if sounds != ["blip"]:
            raise Lost("ask: %r" % sounds)

    def turn(self):
        """Answering: whose turn it is (the light blinking yellow slowly), or None when no
        light does (the answering is over)."""
        scene = self.settled()
        yellow = self.lights(scene, "yellow", "slow")
        if len(yellow) > 1:
            raise Lost("two turns: %r" % (scene,))
        return self.seat_of_pixel(yellow[0]) if yellow else None

    def question(self, plan, before=None):
        """One question as the table plays it, from ``plan``: a dict of
        ``actions`` [(seat, "answer" | "pass" | "klaxon" | "try then answer" | "try then
        pass")] in answering order, ``right`` {seat: True/False} for each answer,
        ``penalty`` {seat: squares or 0 (none in the booklet)} for wrong answers, ``slow``
        (players press slowly), ``stray`` (a stray Klaxon in the reveal). Returns what
        the table saw: {"qm", "dice", "parties", "marked", "penalties", "everyone_passed"}.
        ``before()`` is called once the QM is seen, before the roll."""
        rec = {"qm": self.qm()}
        if before:
            before()
        rec["dice"] = self.roll(jam=plan.get("jam"))
        self.ask()
        parties = None
        passed_all = False
        answered = []
        for seat, action in plan["actions"]:
            now = self.turn()
            if now != seat:
                raise Lost("seat %s's turn, but the ring shows %s" % (seat, now))
            if action.startswith("try then "):  # a Klaxon with nobody to challenge: buzz
                if self.press("Klaxon") != ["denied"]:
                    raise Lost("a Klaxon with nobody to challenge was not refused")
                action = action[len("try then "):]
                if self.turn() != seat:
                    raise Lost("a refused Klaxon changed the turn")
            slow = plan.get("slow") and self.rng.random() < 0.5
            if action == "klaxon":  # the challenged: the last answer, as the table heard it
                sounds = self.press(press_for("Answering", "challenge the last answer"))
                if "klaxon" not in sounds:
                    raise Lost("the Klaxon: %r" % sounds)
                parties = (seat, answered[-1])
                scene = self.settled()  # the challenger blinks vermillion (its flash over)
                if [self.seat_of_pixel(i) for i in self.lights(scene, "vermillion", "fast")] \
                        != [seat]:
                    raise Lost("the challenger is not shown: %r" % (scene,))
                break
            sounds = self.press(press_for("Answering", action), slow=slow)
            if action == "answer":
                answered.append(seat)
            if "done" in sounds:  # the last pass of a question everyone passed
                passed_all = True
                break
        rec["parties"] = parties
        rec["everyone_passed"] = passed_all
        rec["marked"] = []
        rec["penalties"] = {}
        if passed_all:
            return rec
        if plan.get("stray"):  # someone slams the Klaxon in the reveal: a buzz, no change
            if self.press("Klaxon") != ["denied"]:
                raise Lost("a Klaxon in the reveal was not refused")
        while True:
            scene = self.settled()
            cursor = self.lights(scene, "yellow", "fast")
            if not cursor:
                white = self.lights(scene, "white", "steady")
                if len(white) == 1 and all(p == "steady" for _, p, _ in scene):
                    return rec  # between questions: the next QM is white
                raise Lost("the reveal: nothing to mark, and not over: %r" % (scene,))
            seat = self.seat_of_pixel(cursor[0])
            right = plan["right"][seat]
            sounds = self.press(press_for("The reveal", "right" if right else "wrong"))
            rec["marked"].append((seat, right))
            if "done" in sounds:
                return rec
            if not right and parties and seat in parties:  # its Klaxon penalty
                rec["penalties"][seat] = self.penalty(seat, plan["penalty"].get(seat, 0),
                                                      seat == parties[0])

    def penalty(self, seat, squares, challenger):
        """Enter a Klaxon penalty from the booklet (0: none listed) as the card says, and
        check the ring's count before it is done: whose it is, the party's light blinking
        its colour (the challenger vermillion, the challenged sky) the whole time, the
        count from the light after it."""
        look = ("vermillion", "fast") if challenger else ("sky", "slow")
        scene = self.settled()
        party = self.lights(scene, *look)
        if len(party) != 1 or self.seat_of_pixel(party[0]) != seat:
            raise Lost("a Klaxon penalty for seat %d: the ring shows %r" % (seat, scene))
        for _ in range(squares // 10):
            self.press(press_for("A Klaxon penalty", "+10"))
        for _ in range(squares % 10):
            self.press(press_for("A Klaxon penalty", "+1"))
        if squares:
            scene = self.settled()
            if self.lights(scene, *look) != party:
                raise Lost("counting seat %d's penalty, its light is gone: %r" % (seat, scene))
            shown = self.count(scene, party[0])
            if shown != squares:
                raise Lost("entered %d, the ring counts %d" % (squares, shown))
        self.press(press_for("A Klaxon penalty", "done (no penalty: B at once)"))
        return squares

    def count(self, scene, seat_light):
        """A count on the ring, as the card says to read it: from the light after its seat's
        (``seat_light``), white tens, orange units; when they are more than the lights,
        tens and units blink in turn on the same lights."""
        tens = units = 0
        for i, (colour, pattern, other) in enumerate(scene):
            if i == seat_light:
                continue
            for c in (colour, other if pattern != "steady" else None):
                tens += c == "white"
                units += c == "orange"
        return tens * 10 + units

    def end_game(self):
        sounds = self.press(press_for("Between questions", "end the game"))
        if "done" not in sounds:
            raise Lost("the end: %r" % sounds)
        scene = self.expect_moment("Game over")
        return sorted(self.seat_of_pixel(i) for i in self.lights(scene, "green", "fast"))


# --------------------------------------------------------------------- the table's games
# What the tests (tests/test_card_robot.py, the Pico lane) and the bench give the robot to
# play, and where the rules put every piece after it: the rules as rules.md states them,
# written apart from the firmware (lib/qiklaxon), to hold it to.
# squares for a right answer: as the card says it (the robot reads what a person does)
RIGHT_SQUARES = int(re.search(r"Right answers go forward (\d+)\.", card.REVEAL).group(1))


def plan_question(rng, n, qm):
    """A random question for ``n`` players with QM ``qm``, as the table will play it: who
    does what in turn, which answers are right, what the booklet lists as Klaxon
    penalties."""
    order = [(qm + i) % n for i in range(1, n)]
    actions, answered, right, penalty = [], [], {}, {}
    everyone_passes = rng.random() < 0.08
    for seat in order:
        r = rng.random()
        if everyone_passes:
            action = "pass"
        elif answered and r < 0.18:
            action = "klaxon"
        elif r < 0.62:
            action = "answer"
        else:
            action = "pass"
        if not answered and action != "klaxon" and rng.random() < 0.15:
            action = "try then " + action  # a Klaxon with nobody to challenge first
        actions.append((seat, action))
        if action.endswith("answer") or action == "klaxon":
            answered.append(seat)
            right[seat] = rng.random() < 0.5
            if not right[seat] and rng.random() < 0.5:  # the booklet lists a penalty
                r = rng.random()  # most booklet penalties are small; some run to 99
                penalty[seat] = rng.randint(1, 12) if r < 0.7 else rng.randint(13, 30) if \
                    r < 0.9 else rng.randint(31, 99)
        if action == "klaxon":
            break
    return {"actions": actions, "right": right, "penalty": penalty,
            "slow": rng.random() < 0.5, "stray": rng.random() < 0.1}


def rules(positions, qm, dice, plan):
    """Where every piece stands after the question (rules.md): the QM moves forward by the
    white die; each answer right goes forward 3; the challenger and the challenged, when
    wrong, go back by the penalty the booklet lists against them (none: they stay)."""
    out = list(positions)
    out[qm] += dice[1]
    klaxon = [s for s, a in plan["actions"] if a == "klaxon"]
    parties = set()
    if klaxon:
        answers = [s for s, a in plan["actions"] if a.endswith("answer")]
        parties = {klaxon[0], answers[-1]}
    for seat, right in plan["right"].items():
        if right:
            out[seat] += RIGHT_SQUARES
        elif seat in parties:
            out[seat] -= plan["penalty"].get(seat, 0)
    return out




def table_games(seed, questions):
    """What a table of ``seed`` plays, ``questions`` in all: (a phase within the ms for its
    board's passes, [(players, first QM, [each question's plan])]) (the QM passes left after
    every question)."""
    import random

    rng = random.Random(seed)
    phase = rng.randrange(1000)
    games = []
    left = questions
    while left:
        n = rng.randint(4, 10)
        qm = rng.randrange(n)
        k = min(rng.randint(8, 20), left)
        games.append((n, qm, [plan_question(rng, n, (qm + i) % n) for i in range(k)]))
        left -= k
    jams = random.Random(seed * 7919 + 1)  # (apart: the questions stay those of rng)
    for _, _, plans in games:
        for plan in plans:
            plan["jam"] = jams.random() < JAMS
            plan["look"] = jams.random() < LOOKS
    return phase, games


def play_table(seed, questions, board="simulated"):
    """``table_games(seed, questions)`` played by the robot on a simulated board of
    ``board``, each game set up at the table and ended there, each question checked
    against the rules (AssertionError saying which question and how): returns the robot
    (its presses) and the questions' (plans, records)."""
    import random

    from harness import Sim

    phase, games = table_games(seed, questions)
    sim = Sim(board_name=board, seed=seed, phase_us=phase, settings="QK_SLEEP_MIN = 0\nQK_STUCK_S = %d\n" % STUCK_S)
    table = Table(sim, board, random.Random(seed + 1000))
    records = []
    for g, (n, qm, plans) in enumerate(games):
        if g:
            table.end_game()  # (its winners are checked by the game's last question)
        table.set_up(n, qm)
        positions = [0] * n
        for q, plan in enumerate(plans):
            try:
                if plan.get("look") and q:  # the table checks the board against the ring
                    seen, _ = table.positions()
                    assert seen == dict(enumerate(positions)), (seed, len(records), seen,
                                                                positions)
                rec = table.question(plan)
            except Lost as e:
                raise AssertionError("seed %d, question %d: %s\nplan %r\nlog %r" % (
                    seed, len(records), e, plan, table.log[-12:]))
            assert rec["qm"] == qm
            want = rules(positions, qm, rec["dice"], plan)
            game = sim.game
            assert game.positions == want, (seed, len(records), plan, rec, table.log[-12:])
            assert game.phase == "idle" and game.qm == (qm + 1) % n
            assert rec["dice"][1] == [f for _, f in sim.named("roll")][-1]["dice"][1]
            positions, qm = want, (qm + 1) % n
            records.append((plan, rec))
    winners = table.end_game()
    best = max(positions)
    assert winners == [s for s, p in enumerate(positions) if p == best]
    return table, records


# ------------------------------------------------------- the same questions on a real Pico
LEAD_MS = 500  # a question replayed on the Pico starts this long after its power-on


def pico_session(seed, questions, players=4):
    """The robot's questions on the simulated Pico with a 10-pixel strip (the Pico lane's
    settings), each with what the real firmware needs to play it again from where it
    began: (settings, [{"plan", "qm", "n", "nvm" (the saved game, a harness flash),
    "steps" (harness steps from its power-on), "ms"}])."""
    import copy
    import random

    import pico
    from harness import Sim

    settings = pico.settings_text("QK_PIXELS = 10\nQK_SLEEP_MIN = 0\n", players=players)
    rng = random.Random(seed)
    sim = Sim(settings=settings, board_name="pico", seed=seed)
    table = Table(sim, "pico", random.Random(seed + 1000), players=players)
    out = []
    qm = 0
    for _ in range(questions):
        plan = plan_question(rng, players, qm)
        snap = {}

        def before():  # the last change saved (a second after it): where the Pico starts
            table.run_to(table.t + 1200)
            snap.update(nvm=copy.deepcopy(sim.nvm), t=table.t - LEAD_MS,
                        i=len(table.presses))

        table.question(plan, before=before)
        steps = []
        for t, control, hold, bounce in table.presses[snap["i"]:]:
            steps += pico.bounce(control, t - snap["t"], hold, bounce)
        out.append({"plan": plan, "qm": qm, "n": players, "nvm": snap["nvm"], "steps": steps,
                    "ms": int(table.t - snap["t"]) + 1500})
        qm = (qm + 1) % players
    return settings, out


def pico_runs(seed, questions):
    """``pico_session``'s questions, each played on the real firmware from its saved game
    (two emulators at a time): (settings, questions, [pico.Run])."""
    import pico

    settings, qs = pico_session(seed, questions)
    d = pico.Drive(settings)
    try:
        runs = pico.run_many([dict(flash_in=d.flash(bytes(q["nvm"].mem)), steps=q["steps"],
                                   ms=q["ms"], ws2812=True,
                                   pins=(pico.SPEAKER, pico.SPEAKER_B, pico.LED)) for q in qs],
                             nice=pico.NICE)
    finally:
        d.close()
    return settings, qs, runs


def pico_check(settings, q, run):
    """What differs between the real firmware's ``run`` of question ``q`` and the simulated
    board given the same presses and the board's own dice: the console's lines (each
    within 25 ms), the sounds (each started within 10 ms, as TONES define it), the strip
    before each press, and the positions the rules give. [] when none."""
    import copy

    import pico
    from harness import Sim

    rolls = [tuple(int(x) for x in s.split()[1:]) for _, s in run.lines() if s.startswith("roll ")]
    sim = Sim(settings=settings, board_name="pico", nvm=copy.deepcopy(q["nvm"]))
    start = list(sim.game.positions)
    dice = [d for roll in rolls for d in roll]
    sim.device.r.dice = lambda a, b: dice.pop(0)  # the board's own roll, from its console
    for t, pressed, control in q["steps"]:
        sim.level(control, int(t * 1000), pressed)
    scenes = {}  # what the simulated board shows just before each press, away from a flash
    for t in sorted({t for t, p, _ in q["steps"] if p}):
        sim.run_until_ms(t - 20)
        if not (sim.device.f[layout.FL] or sim.device.f[layout.DICE]):  # (a roll: its dice)
            scenes[t] = sim.scene()
    sim.run_until_ms(q["ms"])
    problems = pico.compare(run.lines(), sim.events, 25, start_ms=1)
    for t, name in sim.sounds():
        later = [s for s, _ in sim.sounds() if s > t]
        try:
            began = pico.check_sound(run.sound(), name, t - 10, (later[0] - 10) if later else
                                     q["ms"], pico.on_percent(8))
            if abs(began - t) > 10:
                problems.append("%s at %d in the harness, %.1f on the Pico" % (name, t, began))
        except AssertionError as e:
            problems.append(str(e))
    frames = run.frames()
    for t, scene in scenes.items():  # the strip then: its colours, lit or dark as each blinks
        seen = [px for ft, px in frames if ft < t - 300][-1:] + [
            px for ft, px in frames if t - 300 <= ft < t - 20]
        for i, (colour, pattern) in enumerate(scene):
            want = events.PALETTE[events.COLOUR_NAMES.index(colour)]
            got = {px[i] for px in seen}
            if seen and not (got == {want} if pattern == "steady" else got <= {want, 0}):
                problems.append("the strip before the press at %d: pixel %d %s, not %s %s" % (
                    t, i, sorted(hex(x) for x in got), colour, pattern))
    if len(rolls) != 1:
        problems.append("rolls on the Pico: %r" % rolls)
    else:
        want = rules(start, q["qm"], rolls[0], q["plan"])
        if list(sim.game.positions) != want:
            problems.append("positions %r, the rules say %r" % (sim.game.positions, want))
    return problems
