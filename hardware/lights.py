"""Lights: the NeoPixel ring (one pixel a seat) and a plain LED, animated from the loop.

Each pixel has a colour and a blink pattern, so that colour is never the
only difference (colour-blind players): colours are from the Okabe-Ito
palette. The ring is redrawn only when a frame changes (blink phases of
128 ms), so an idle loop pass writes and allocates nothing.

Seats map onto pixels evenly around the ring (seat s -> pixel s*P//N).
With fewer pixels than players, pixel i shows seat i and the seats past
the strip's end are not shown (the serial console still names them).
"""

from micropython import const
from adafruit_ticks import ticks_add, ticks_diff

# Colour indices and values (Okabe-Ito, plus white and a dim grey).
OFF = const(0)
WHITE = const(1)
YELLOW = const(2)
GREEN = const(3)
GREY = const(4)
VERMILLION = const(5)
SKY = const(6)
ORANGE = const(7)
PURPLE = const(8)
BLUE = const(9)
COLOURS = (
    (0, 0, 0), (255, 255, 255), (240, 228, 66), (0, 158, 115), (24, 24, 24),
    (213, 94, 0), (86, 180, 233), (230, 159, 0), (204, 121, 167), (0, 114, 178),
)
COLOUR_NAMES = ("off", "white", "yellow", "green", "grey", "vermillion", "sky", "orange",
                "purple", "blue")

# Blink patterns (phase = 128 ms units, 8 a cycle).
STEADY = const(0)
SLOW = const(1)  # on 512 ms, off 512 ms
FAST = const(2)  # on 128 ms, off 128 ms
PATTERN_NAMES = ("steady", "slow", "fast")


def lit(pattern, phase):
    """Whether a pixel with ``pattern`` is on in blink ``phase`` (0..7)."""
    if pattern == STEADY:
        return True
    if pattern == SLOW:
        return phase < 4
    return not phase & 1


class Lights:
    """A ring or strip (``pixels``: a ``neopixel.NeoPixel``) and/or an ``led`` (DigitalInOut)."""

    def __init__(self, pixels=None, led=None):
        self._pixels = pixels
        self._led = led
        self.count = len(pixels) if pixels is not None else 0
        self.colour = bytearray(self.count)
        self.pattern = bytearray(self.count)
        self._flash = False
        self._flash_end = 0
        self._flash_a = VERMILLION
        self._flash_b = WHITE
        self._dirty = True
        self._phase = -1
        self._animated = False  # anything blinking: redraw on phase changes

    # The scene: what each pixel shows when nothing flashes.
    def clear(self):
        for i in range(self.count):
            self.colour[i] = OFF
            self.pattern[i] = STEADY
        self._dirty = True

    def pixel_of(self, seat, players):
        """The pixel showing ``seat`` of ``players``, or -1 if none does."""
        if self.count >= players:
            return seat * self.count // players
        return seat if seat < self.count else -1

    def seat(self, seat, players, colour, pattern=STEADY):
        i = self.pixel_of(seat, players)
        if i >= 0:
            self.colour[i] = colour
            self.pattern[i] = pattern
            self._dirty = True

    def fill(self, colour, pattern=STEADY, upto=None):
        for i in range(self.count if upto is None else min(upto, self.count)):
            self.colour[i] = colour
            self.pattern[i] = pattern
        self._dirty = True

    def flash(self, now, ms, a=VERMILLION, b=WHITE):
        """The whole ring (and LED) flashes ``a``/``b`` for ``ms`` over the scene."""
        self._flash = True
        self._flash_end = ticks_add(now, ms)
        self._flash_a = a
        self._flash_b = b
        self._dirty = True

    def stop_flash(self):
        if self._flash:
            self._flash = False
            self._dirty = True

    @property
    def flashing(self):
        return self._flash

    def update(self, now):
        """Redraw if the blink phase or the scene changed; no allocation otherwise."""
        if self._flash and ticks_diff(now, self._flash_end) >= 0:
            self._flash = False
            self._dirty = True
        phase = (now >> 7) & 7
        if not self._dirty and (phase == self._phase or not self._animated):
            return
        self._phase = phase
        self._dirty = False
        self._animated = self._flash
        if self._led is not None:
            self._led.value = self._flash and not phase & 1
        px = self._pixels
        if px is None:
            return
        if self._flash:
            c = COLOURS[self._flash_a if phase & 1 else self._flash_b]
            for i in range(self.count):
                px[i] = c
        else:
            for i in range(self.count):
                p = self.pattern[i]
                if p != STEADY:
                    self._animated = True
                px[i] = COLOURS[self.colour[i]] if lit(p, phase) else COLOURS[OFF]
        px.show()

    def off(self):
        """Everything dark (sleep)."""
        self._flash = False
        if self._led is not None:
            self._led.value = False
        if self._pixels is not None:
            self._pixels.fill(COLOURS[OFF])
            self._pixels.show()
        self._dirty = True
