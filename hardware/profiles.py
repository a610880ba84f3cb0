"""Choosing the build profile: from ``board.board_id``, or the QK_BOARD setting."""

# board_id prefixes -> profile name
BOARD_IDS = (
    ("circuitplayground_bluefruit", "cpb"),
    ("circuitplayground_express", "cpx"),
    ("raspberry_pi_pico", "pico"),
    ("OS_AGNOSTIC_BOARD", "simulated"),
)
NAMES = ("simulated", "cpb", "cpx", "pico")


def choose(board_id, wanted=""):
    """(profile dict, message or None). Unknown boards get the Pico profile's
    pin names (the settings can name others) and a message saying so."""
    message = None
    name = None
    if wanted:
        if wanted in NAMES:
            name = wanted
        else:
            message = "QK_BOARD = %r is not one of %s; choosing from the board" % (
                wanted, ", ".join(NAMES))
    if name is None:
        for prefix, profile in BOARD_IDS:
            if board_id.startswith(prefix):
                name = profile
                break
    if name is None:
        name = "pico"
        message = ("unknown board %r: using the Pico pin names; set QK_BOARD or the "
                   "QK_PIN_ settings in settings.toml" % board_id)
    module = __import__("hardware.profile_" + name, None, None, ("PROFILE",))
    return dict(module.PROFILE), message
