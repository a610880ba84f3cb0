"""Stand-in ``neopixel_write`` for the MicroPython VM lane: keeps the last frame."""

last = [None]


def neopixel_write(pin, buf):
    last[0] = buf
