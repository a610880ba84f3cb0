"""Stand-in ``board`` for the MicroPython VM lane (host-only).

``use(profile_name, board_id)`` names the pins the way that build's board does
and takes its board id (the host passes it from model/layout.py's
BUILDS: this module runs inside the VMs, which do not carry that table); the
simulated build uses Blinka's OS-agnostic names and pin ids.
"""

board_id = "OS_AGNOSTIC_BOARD"

_AGNOSTIC = (("Dx_INPUT_TRUE", 0), ("Dx_INPUT_FALSE", 1), ("Dx_INPUT_TRUE_PULL_UP", 2),
             ("Dx_INPUT_TRUE_PULL_DOWN", 3), ("Dx_OUTPUT", 4), ("NEOPIXEL", 6),
             ("Dx_INPUT_TOGGLE", 11), ("Ax_OUTPUT", 12))


class Pin:
    def __init__(self, pin_id):
        self.id = pin_id

    def __repr__(self):
        return "board.Pin(%d)" % self.id


def use(name, bid="OS_AGNOSTIC_BOARD"):
    """Become the board of build ``name``, whose ``board.board_id`` is ``bid``."""
    global board_id
    import simprofiles

    import sys

    me = sys.modules[__name__]  # setattr, not globals(): pin names are interned, as a board's are
    board_id = bid
    if name == "simulated":
        for pin_name, pin_id in _AGNOSTIC:
            setattr(me, pin_name, Pin(pin_id))
        return
    pid = 100
    for pin_name in simprofiles.pin_names(simprofiles.profile(name)) + ["LED", "BUTTON", "BOOT"]:
        setattr(me, pin_name, Pin(pid))
        pid += 1
    if hasattr(me, "GP15"):  # an RP2040's: every GPIO, numbered (rp2pio), in _gpios.py
        __import__("_gpios").name(me, Pin)


use("simulated")
