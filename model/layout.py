"""The project's names for the builds and numbers, in one place (host-only: not deployed).

Host tools that need a board read ``BUILDS``: tools/maker/deploy.py, tools/simulated/harness.py,
tools/lanes/vmboard/board.py, tools/lanes/cpvm.py. hardware/start.py keeps its own copy of the
id -> profile pairs (a board cannot afford this table); tests/test_builds.py holds
it, the profiles and the README's "Builds and wiring" table to this one.

Adding a board: hardware/profile_<name>.py, one row here, one row in the README.
"""

# One row a build, in the order the firmware tries the board ids.
#   title    its name in the README's "Builds and wiring" table
#   board_id what ``board.board_id`` starts with; profile: hardware/profile_<profile>.py
#   pins     pin names the firmware may look for: the profile's and start.py's and
#            outputs.py's fallbacks
#   chip     the flash behind ``microcontroller.nvm`` (flashsim.py's BOARDS); nvm: its bytes
#   has      C modules the firmware may import (the CircuitPython lane stands them in
#            before the baseline: no heap on a board); lacks: modules the port has not
#   frozen   libraries in the firmware: a deploy copies none, the lane imports them first
#   banner   boot_out.txt's first line (CircuitPython 10.2.1); None: not a board
BUILDS = (
    dict(title="Circuit Playground Bluefruit", board_id="circuitplayground_bluefruit",
         profile="cpb",
         pins=("A1", "BUTTON_A", "BUTTON_B", "SLIDE_SWITCH", "SPEAKER", "SPEAKER_ENABLE",
               "NEOPIXEL", "LED"),
         chip="nrf52840", nvm=8192,
         has=("digitalio", "supervisor", "audiopwmio", "audiocore", "audiomixer", "alarm",
              "watchdog", "random", "time", "neopixel_write"),
         lacks=("audioio",), frozen=("adafruit_pixelbuf",),
         banner="Adafruit CircuitPython 10.2.1 on 2025-11-01; Adafruit Circuit Playground "
                "Bluefruit with nRF52840"),
    dict(title="Circuit Playground Express", board_id="circuitplayground_express",
         profile="cpx",
         pins=("A1", "BUTTON_A", "BUTTON_B", "SLIDE_SWITCH", "SPEAKER", "SPEAKER_ENABLE",
               "NEOPIXEL", "LED"),
         chip="samd21", nvm=256,
         has=("digitalio", "supervisor", "audioio", "audiocore", "random", "time",
              "neopixel_write"),
         lacks=("audiomixer", "alarm", "watchdog", "audiopwmio", "keypad"),
         frozen=("neopixel",),
         banner="Adafruit CircuitPython 10.2.1 on 2025-11-01; Adafruit CircuitPlayground "
                "Express with samd21g18"),
    dict(title="Raspberry Pi Pico", board_id="raspberry_pi_pico", profile="pico",
         pins=("GP15", "GP16", "GP17", "GP18", "GP22", "LED"),
         chip="rp2040", nvm=4096,
         has=("digitalio", "supervisor", "audiopwmio", "audiocore", "audiomixer", "rp2pio",
              "alarm", "watchdog", "random", "time", "neopixel_write"),
         lacks=("audioio",), frozen=("adafruit_pixelbuf",),
         banner="Adafruit CircuitPython 10.2.1 on 2025-11-01; Raspberry Pi Pico with rp2040"),
    dict(title="simulated", board_id="OS_AGNOSTIC_BOARD", profile="simulated",
         pins=("Dx_INPUT_TRUE_PULL_UP", "Dx_INPUT_TOGGLE", "Dx_INPUT_TRUE", "Ax_OUTPUT",
               "Dx_OUTPUT", "NEOPIXEL"),
         chip="rp2040", nvm=4096, has=(), lacks=(), frozen=(), banner=None),
)

BY_PROFILE = {b["profile"]: b for b in BUILDS}
# (board id prefix, profile) in the order the firmware tries them: hardware/start.py's pairs
BOARD_PROFILES = tuple((b["board_id"], b["profile"]) for b in BUILDS)
# The real boards (a deploy, the CircuitPython lane): those with a boot_out.txt
BOARDS = tuple(b["profile"] for b in BUILDS if b["banner"])


def profile_for(board_id):
    """The profile a board with ``board_id`` runs, or None (not one of the builds)."""
    for prefix, name in BOARD_PROFILES:
        if board_id.startswith(prefix):
            return name
    return None


def boot_out(profile):
    """The boot_out.txt that build's board writes (CircuitPython 10.2.1)."""
    b = BY_PROFILE[profile]
    return "%s\nBoard ID:%s\n" % (b["banner"], b["board_id"])


def table(field, boards=BOARDS):
    """{profile: that field} for ``boards`` (default: the real boards)."""
    return {p: BY_PROFILE[p][field] for p in boards}


# ---------------------------------------------------------------------------------------
# The names of the numbers (issue 18): every slot, op code, colour and field, once.
# Each name is an interned string in the board's RAM, so a device module holds the ones
# it uses as private ``_NAME = const(n)``, which compile to the bare number (docs:
# conventions.md), in a block tools/gen/consts.py makes from this list (python3 tools/dev.py
# regen: edit here, never there). tests/test_names.py holds each block to it and forbids
# bare numbers as indexes, op codes, console words and overlays. Host code uses these names.

# The referee's state: Referee.S (bytearray), and B, its copy before the log. The slots
# from HOUSE on hold house rules, 0 the rules' own: a game's, saved with it, kept by a new
# game at the table (none yet; docs/develop.md's "Add a setting" adds one, S_SLOTS + 1)
S_SLOTS = 19
PLAYERS = 0  # players (2..10)
QM = 1  # seat of the Question Master
PHASE = 2  # the phase (below)
TURN = 3  # seat answering now (NONE: none)
CHALLENGER = 4  # the Klaxon's challenger (NONE: none); kept until the next ask
CHALLENGED = 5  # ... and the challenged
ROLL = 6  # last roll: (red-1)*36 + (white-1)*6 + (blue-1) (NONE: none)
FINISH = 7  # 7, 8: the square that ends the game, big-endian (0: the QM ends it)
FINISH_LO = 8
DID = 9  # 9 + seat: what each seat did this question (below)
SEATS = 10  # seats at most (Referee.P, Q: each seat's square)
HOUSE = DID + SEATS  # the first house rule's slot
NONE = 255  # no seat, no roll, no sound, a button up
# Phases (S[PHASE])
BETWEEN = 0  # between questions
ANSWERING = 1
REVEAL = 2
ENDED = 3  # the game is over
# What a seat did (S[DID + seat])
ANSWERED = 1  # (0: not yet)
PASSED = 2

# What is being entered: Referee.u (list, 7)
U_SLOTS = 7
WHAT = 0  # what (below; 0 nothing)
COUNT = 1  # the count being entered
SEAT = 2  # the seat being entered (or whose penalty)
RIGHT = 3  # seats marked right in the reveal (bits)
WRONG = 4  # ... marked wrong
CHALLENGER_PEN = 5  # the challenger's Klaxon penalty
CHALLENGED_PEN = 6  # the challenged's
# What (u[WHAT])
PENALTY = 1  # a Klaxon penalty for seat u[SEAT]
WHICH = 2  # which seat to move
FORWARD = 3  # how far forward
BACKWARD = 4  # how far back
NEW_PLAYERS = 5  # a new game's players
NEW_QM = 6  # its first QM

# Op codes (Referee.act), their arguments, and their log bytes (core.py's _LEN; undo: none)
OP_UNDO = 0
OP_ROLL = 1  # the dice code (ROLL's)
OP_ASK = 2
OP_ANSWER = 3
OP_PASS = 4
OP_KLAXON = 5
OP_REVEAL = 6  # seats right as 16 bits (2 bytes), the challenger's penalty, the challenged's
OP_MISS = 7  # miss a go
OP_MOVE = 8  # seat, squares as 16 bits (2 bytes)
OP_END = 9
OP_NEW = 10  # players, first QM, finish as 16 bits (2 bytes)
OP_LOG_BYTES = (0, 2, 1, 1, 1, 1, 5, 1, 4, 1, 5)
# The phase each op up to OP_MOVE needs (OP_END: not ENDED; OP_NEW: ENDED)
OP_PHASE = (BETWEEN, BETWEEN, BETWEEN, ANSWERING, ANSWERING, ANSWERING, REVEAL, BETWEEN,
            BETWEEN)
LOG_SIZE = 64  # log bytes at most (Referee.L holds 5 more: the longest op)
FOLD_AT = 48  # between questions, a log past this folds first: a whole question's room
ALL = 99  # past any log: undo.py's replay(r, ALL) keeps B as it is

# Refusals (what act() returns; 0: taken)
NOT_NOW = 1  # not now, or nothing to undo
NOBODY_ANSWERED = 2  # the Klaxon's: nobody has answered yet
NO_QUESTION = 3  # ... no question running
HAD_KLAXON = 4  # ... this question already had its Klaxon
ALL_ANSWERED = 5  # ... everyone has answered
GAME_OVER = 6  # ... the game is over
BAD_ARG = 7  # an argument the board cannot take

# Keys (Referee.key; what button A or B did when let go)
KEY_DOWN = -1  # (Device.press: a button going down, which lets go of another held)
KEY_KLAXON = 0
KEY_A = 1
KEY_A_HELD = 2
KEY_A_2S = 3  # A held 2 s
KEY_B = 4
KEY_B_HELD = 5
KEY_B_2S = 6
# What became of a key (Referee.key's answer; the device sounds and flashes it)
REFUSED = 0  # the buzz: nothing changed
TAKEN = 1  # the blip
UNDONE = 2  # something taken back (undo, a mark, a step of an entry): a falling chime, blue
DONE = 3  # a position or the QM changed (a roll, a reveal, a move, a miss, the end, a new
# game): a rising chime, green
TRY = 2  # the Klaxon's: before a game's first question it sounds and counts for nothing

# Console words (Referee.out(word, numbers...)); tools/simulated/events.py reads the lines
WORDS = ("nobody has answered yet", "no question running",
         "this question already had its Klaxon", "everyone has answered", "the game is over",
         "refused", "klaxon", "undo", "end", "new", "players", "first", "seat", "count",
         "penalty", "move", "roll", "at", "ask", "miss", "answer", "pass", "right", "wrong",
         "reveal", "game over", "back", "unmark", "resumed")
W_REFUSED = 5  # its number is a refusal (2..6): the word is WORDS[refusal - 2]
W_KLAXON = 6
W_UNDO = 7
W_END = 8
W_NEW = 9
W_PLAYERS = 10
W_FIRST = 11
W_SEAT = 12
W_COUNT = 13
W_PENALTY = 14
W_MOVE = 15
W_ROLL = 16
W_AT = 17
W_ASK = 18
W_MISS = 19
W_ANSWER = 20
W_PASS = 21
W_RIGHT = 22
W_WRONG = 23
W_REVEAL = 24
W_GAME_OVER = 25
W_BACK = 26
W_UNMARK = 27
W_RESUMED = 28
# After these words the console says where every seat stands ("at ...")
W_THEN_AT = (W_UNDO, W_END, W_NEW, W_MOVE, W_ROLL, W_REVEAL, W_RESUMED)

# Overlays (Referee.more(overlay)); one in RAM at a time
OV_UNDO = 0  # qiklaxon/undo.py
OV_REVEAL = 1  # qiklaxon/reveal.py
OV_ENTRY = 2  # qiklaxon/entry.py
OV_OVER = 3  # qiklaxon/over.py
OV_SAVE = 4  # qiklaxon/save.py
OV_SEATS = 5  # qiklaxon/seats.py (every seat's position shown)
OV_TIDY = 6  # more(): none loaded; those the state does not need dropped
ROLL_SHOWN = OV_ENTRY  # Device.f[DICE] while the roll is shown
SEATS_SHOWN = OV_SEATS  # ... while every seat's position is
OVERLAYS = ("undo", "reveal", "entry", "over", "save", "seats")
OV_ROOM = 4096  # bytes free below which a load collects the garbage first (the Express)

# What the firmware never uses of a library: a deploy leaves it out (deploy.py's
# lean_library), and hardware/start.py deletes the debouncer's from a library copied whole
# (tests/test_deploy.py holds that list to this one).
LIBRARY_UNUSED = {"adafruit_debouncer": (
    "Button", "Debouncer.rose", "Debouncer.fell", "Debouncer.last_duration",
    "Debouncer.current_duration", "Debouncer.value", "Debouncer.interval"),
    "adafruit_ticks": ("ticks_less",)}

# The saved game: Referee.j (list, 5)
J_NVM = 0  # the nvm
J_LOG = 1  # its layout: True an append log, False ping-pong
J_SEQ = 2  # seq of the newest record (-1: none)
J_AT = 3  # where it starts
J_TAIL = 4  # where a log's erased tail starts
# A record: MAGIC | seq (2, big-endian) | length | body | Fletcher-16 (2) | 0x00. Its body
# says how many state slots it holds: this firmware writes S_SLOTS and reads 19 (V2_SLOTS,
# the slots before any house rule) to 255: slots it lacks are 0 (a rule added since: the
# rules' own, as the game was played), slots past S_SLOTS are dropped (said if not 0)
MAGIC = 0x51  # 'Q'
R_SEQ = 1
R_LEN = 3
R_BODY = 4  # the body: VERSION, nB, B (nB slots), Q (little-endian), the log
R_MORE = 7  # a record's bytes besides its body
VERSION = 3
BODY_NB = 1  # nB: how many state slots it holds
BODY_B = 2
BODY_Q = BODY_B + S_SLOTS  # (where this firmware writes them)
BODY_LOG = BODY_Q + 2 * SEATS
V2 = 2  # VERSION 2 (every board before 3): VERSION | B (V2_SLOTS) | Q | the log; it loads
V2_SLOTS = 19

# The Device's parts (Device.p): hardware/device.py's _K ... and f, t
K = 0  # the Klaxon's adafruit_debouncer.Debouncer
R = 1  # the referee (qiklaxon.core.Referee), or None: a pure Klaxon
BUT = 2  # buttons A, B: each (DigitalInOut, level released, keys ladder, ms held for each)
OUT = 3  # the sound's output (an audio output or voice, or a PWMOut)
SND = 4  # the klaxon, denied and blip: samples, or tone tables and the DAC's wave
EN = 5  # the speaker enable pin, or None
SW = 6  # the slide switch, or None
PX = 7  # the NeoPixels, or None
LED = 8  # the LED, or None
SLEEP = 9  # sleep(device, now): deep sleep until the Klaxon (hardware/power.py), or None
WD = 10  # the watchdog, or None
FLAGS = 11  # Device.f
TIMES = 12  # Device.t
# ... and start-up's, outputs.py's for qiklaxon/restore.py: the Device's above (R: None),
# then what the referee is made of (restore.py's; tests/test_names.py holds each field)
GAME_V = 13  # the settings (QK_ indexes: the players, the finish, the house rules)
GAME_QM = 14  # the first QM's seat (QK_FIRST_QM, checked against the players)
GAME_NVM = 15  # the saved game's layout (the profile's P_NVM)
GAME_DICE = 16  # dice(1, 6) rolls a die, or None: random.randint
GAME_PARTS = 17
# Start-up's parts from hardware/start.py for hardware/outputs.py (start()'s answer)
ST_BOARD = 0  # the board module
ST_MOD = 1  # the build's profile module (hardware/profile_*.py)
ST_V = 2  # the settings (QK_ indexes)
ST_BAD = 3  # lines reported so far (the purple flash)
ST_FIRST = 4  # the first QM's seat, checked against the players
ST_K = 5  # the Klaxon's adafruit_debouncer.Debouncer
ST_KP = 6  # ... (its DigitalInOut, its pin, pressed reads high?)
ST_KEYS = 7  # buttons A, B (as BUT)
ST_DICE = 8  # as GAME_DICE
ST_PARTS = 9
# A button (Device.p[BUT][i])
B_IO = 0  # its DigitalInOut
B_UP = 1  # its level when released
B_KEYS = 2  # its ladder of keys
B_MS = 3  # the ms held that reach each
# The sounds (Device.p[SND][i], Device.play(i))
SOUND_KLAXON = 0
SOUND_DENIED = 1
SOUND_BLIP = 2
SOUND_DONE = 3
SOUND_UNDONE = 4
SOUND_WAVE = 5  # the Express's DAC wave (tone builds; None on a piezo)
PIEZO = 6  # a piezo's tone(state machine, Hz, voice, Hz before) (the Pico's profile)
# Flags and small values (Device.f, bytearray)
F_SLOTS = 27
ARM = 0  # the Klaxon was released long enough: its next press counts
STUCK = 1  # the Klaxon is held down too long (or was at power-on)
UP = 2  # the Klaxon debouncer's bits (debounced, unstable) while released: 0 or 3
CUR = 3  # the sound playing (NONE: none)
PEND = 4  # the sound waiting for the klaxon to end (NONE: none)
MUTE = 5
SWM = 6  # the slide switch's level when muted
FL = 7  # the ring flashes colours a | b << 4 (0: no flash)
DIRTY = 8  # the scene changed: draw it
ANIM = 9  # something blinks: draw at each 128 ms step
PH = 10  # the step drawn
PV = 11  # a held button's preview, colour | pattern << 4 (0: none)
N = 12  # passes, modulo 256
DUE = 13  # a save is due at t[SV]
NB = 14  # buttons (0 to 2)
FAULT = 15  # a fault: a pure Klaxon until t[FT] + 5 s (OUT_OF_MEMORY: then a fresh heap)
NP = 16  # pixels
OUT_OF_MEMORY = 2  # f[FAULT] when the referee could not allocate
TONE = 17  # the sounds are tone sweeps
SEG = 18  # the sweep's segment
LV = 19  # 19, 20: the level each button has reached while held (NONE: up)
RAW = 21  # 21, 22: each button's last sample << 1 | its level taken
CCW = 23  # the pixels are numbered counter-clockwise (seen from above, face up)
DICE = 24  # since t[DT] the ring shows, by its overlay: the roll (OV_ENTRY) until the next action,
# or every position (OV_SEATS, qiklaxon/seats.py); 0 the game
WOKE = 25  # the board woke from deep sleep on the Klaxon: that press counts
SPAN = 26  # the Klaxon's contact has closed since it was last open GL ticks
# Times (ticks) and numbers (Device.t, list)
T_SLOTS = 19
KT = 0  # the Klaxon's last edge
FLT = 1  # the flash ends
SV = 2  # a save is due
LAST = 3  # the last press or sound
FT = 4  # the fault
REARM = 5  # ms the Klaxon must be released before its next press counts
HELD = 6  # ms held before the Klaxon counts as stuck
IDLE = 7  # ms idle before sleeping
DUTY = 8  # (unused since the piezo's PIO program: its volume is in the program's init)
T0 = 9  # the sweep's segment started
TN = 10  # the sweep's next step
HZ = 11  # the pitch now
BT = 12  # 12, 13: when each button went down
SMP = 14  # when the buttons were last sampled
DT = 15  # the roll shown since
KR = 16  # the Klaxon's contact last seen closed
KS = 17  # ... first seen closed, after GL ticks open
GL = 18  # QK_GLITCH_MS + 1: ticks from the first closing to a klaxon
TICKS = 0x1FFFFFFF  # ticks_ms() wraps at 2**29: (now + ms) & TICKS is ticks_add

RIGHT_SQUARES = 3  # squares a right answer goes forward (rules.md)
SEAT_STEPS = 20  # the positions shown: 128 ms steps a seat (2.56 s), its last 2 dark (seats.py)
# Colours (a pixel's: colour | second colour << 4): Okabe-Ito, white, a dim grey, the red
# die; device.py's draw() has their RGB in this order
OFF = 0
WHITE = 1
YELLOW = 2
GREEN = 3
GREY = 4
VERMILLION = 5
SKY = 6
ORANGE = 7
PURPLE = 8
BLUE = 9
RED = 10
# Patterns (pattern << 4), in 128 ms steps of 8: lit, the colour; else the second (0: steady)
SLOW = 1  # 4 steps each
FAST = 2  # 1 step each

# The profile's fields: PROFILE in hardware/profile_*.py (simprofiles.py's FIELDS)
P_KLAXON = 0  # (pin, pressed reads high?)
P_A = 1  # the same, or None: not wired
P_B = 2
P_SWITCH = 3  # (pin, its level when muted) or None
P_AUDIO = 4  # 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (rp2pio tones)
P_SPEAKER = 5  # its pin
P_SPEAKER_ENABLE = 6  # the amplifier's enable pin, or None
P_PIXELS = 7  # (pin, how many, numbered counter-clockwise?)
P_LED = 8  # an LED that flashes with the Klaxon, or None
P_SLEEP = 9  # deep sleep until the Klaxon, where the port has alarm
P_NVM = 10  # saved-game layout: True an append log (RP2040), False ping-pong
P_WATCHDOG = 11  # the port has a watchdog
PROFILE_FIELDS = ("klaxon", "a", "b", "switch", "audio", "speaker", "speaker_enable", "pixels",
                  "led", "sleep", "nvm", "watchdog")
# Inside a field: a pin's (pin, level) pair, the pixels' (pin, count, counter-clockwise?)
PIN = 0
LEVEL = 1  # pressed reads high?; the switch's level when muted
PX_COUNT = 1
PX_CCW = 2

# The settings: settings.toml's keys, one row each, the one source of every copy: (name,
# default, lowest, highest, what it is), lowest > highest: text in double quotes.
# python3 tools/dev.py regen makes hardware/settings.py's KEYS, the README's settings table
# and settings.example.toml from these rows; the firmware reads a value by its index's name,
# v[_QK_PLAYERS] (the names below, made from the rows: QK_BOARD = 0, QK_PLAYERS = 1, ...).
SETTING_ROWS = (
    ("QK_BOARD", "", 1, 0, "build profile name; empty: chosen from the board"),
    ("QK_PLAYERS", 4, 2, 10, "players at the table for the first game; later games are set up at "
     "the table"),
    ("QK_FIRST_QM", 0, 0, 9, "seat of the first Question Master"),
    ("QK_FINISH", 0, 0, 9999, "square that ends the game; 0: the QM ends it"),
    ("QK_KLAXON_ONLY", 0, 0, 1, "1: a pure Klaxon, even with more buttons wired"),
    ("QK_VOLUME", 8, 0, 10, "loudness: 0 silent, 10 the loudest"),
    ("QK_MUTE", 0, 0, 1, "1: no sound, lights only"),
    ("QK_BRIGHTNESS", 20, 1, 100, "light brightness, percent"),
    ("QK_PIXELS", -1, -1, 64, "NeoPixels wired; -1: the build's own"),
    ("QK_PIN_KLAXON", "", 1, 0, "board pin of the Klaxon button"),
    ("QK_PIN_A", "", 1, 0, "board pin of button A ('none': not wired)"),
    ("QK_PIN_B", "", 1, 0, "board pin of button B ('none': not wired)"),
    ("QK_PIN_SPEAKER", "", 1, 0, "board pin of the speaker, amp or piezo"),
    ("QK_PIN_PIXELS", "", 1, 0, "board pin of the NeoPixels"),
    ("QK_AUDIO", "", 1, 0, "'amp': an amplifier and a speaker (recorded sounds; its SD on GP14 on "
     "a Pico, on pad A2 on a Bluefruit); the Pico's piezo buzzer (tones): 'piezo' between the "
     "speaker pin and the pin below it (GP15 and GP14, both driven: the default), 'piezo-gnd' "
     "between the speaker pin and GND"),
    ("QK_GLITCH_MS", 2, 1, 5, "a contact shorter than this never sounds, at any pass time; a "
     "clean one 3 ms longer always does, ms"),
    ("QK_REARM_MS", 30, 10, 500, "release needed before the next press counts, ms"),
    ("QK_LONG_MS", 1500, 1200, 3000, "A or B held this long takes its second meaning, twice as "
     "long its third; over a second, so that a slow tap is still a tap, ms"),
    ("QK_STUCK_S", 10, 2, 120, "a Klaxon held this long is a stuck button, s"),
    ("QK_SLEEP_MIN", 15, 0, 240, "idle minutes before it sleeps (Bluefruit, Pico; the Express and "
     "Pico 2 never sleep); 0: never"),
    ("QK_PIXELS_CCW", -1, -1, 1, "1: the pixels are numbered counter-clockwise seen from above "
     "(the Circuit Playground's ring is); 0: clockwise (a Pico strip as wired); -1: the "
     "build's own"),
)
SETTINGS = tuple(row[0] for row in SETTING_ROWS)
for _i, _k in enumerate(SETTINGS):
    globals()[_k] = _i  # QK_BOARD = 0, QK_PLAYERS = 1, ...
del _i, _k
