"""The project's names for the builds, in one place (host-only: a deploy leaves it out).

Every host tool that needs to know a board reads ``BUILDS``: tools/deploy.py
(which profile a board id gets, what its firmware has frozen), tools/harness.py
(the simulated boards' ids and flash), tools/vmboard/board.py (the stand-in
board's id, through the lanes that run it) and tools/cpvm.py (the CircuitPython
lane's boot_out.txt, nvm, C modules, what the port lacks). The firmware's own
board detection (hardware/start.py) keeps its copy of the id → profile pairs, as
a board cannot afford this table; tests/test_builds.py holds that copy, the
profiles and the README's "Builds and wiring" table to this one.

Adding a board: hardware/profile_<name>.py, one row here, one row in the README.
"""

# One row a build, in the order the firmware tries the board ids (a board id that
# starts with ``board_id`` runs profile ``profile``: hardware/profile_<profile>.py).
#
#   title    the build as the README's "Builds and wiring" table names it (its row starts so)
#   board_id what ``board.board_id`` starts with on that board
#   profile  its hardware/profile_<profile>.py
#   pins     the board's pin names the firmware may look for there: its profile's, and
#            the fallbacks hardware/start.py and outputs.py try (LED, the built-in button)
#   chip     the flash behind ``microcontroller.nvm`` (tools/simboard/flashsim.py's BOARDS)
#   nvm      ``microcontroller.nvm``'s bytes
#   has      the port's C modules the firmware may import (the CircuitPython lane stands
#            them in before the baseline: on a board they cost no heap)
#   lacks    modules that port does not have (the lane makes them absent)
#   frozen   libraries in the board's firmware (frozen Python, or C): a deploy copies none
#            of them, the lane imports them before the baseline
#   banner   the first line of its boot_out.txt (CircuitPython 10.2.1); None: not a board
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
         has=("digitalio", "supervisor", "audiopwmio", "audiocore", "audiomixer", "pwmio",
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
