"""Stand-in ``microcontroller`` for the MicroPython VM lane: an erased 4 KB ``nvm``."""

nvm = bytearray(b"\xff" * 4096)
