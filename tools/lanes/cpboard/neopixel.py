"""``neopixel`` as the Circuit Playground Express has it, for the CircuitPython lane (host-only).

On the Express ``neopixel`` is frozen into the firmware (its bytecode stays in
flash) and ``adafruit_pixelbuf`` is C. What a ``NeoPixel`` holds on the heap
there is ~192 bytes: the object, its attribute table, the 44-byte C PixelBuf,
a 30-byte transmit buffer and a 30-byte pre-brightness buffer for 10 pixels,
and the pin's DigitalInOut. This stand-in holds about the same: two buffers
and a small instance.
"""


class NeoPixel:
    def __init__(self, pin, n, brightness=1.0, auto_write=True, pixel_order=None):
        self.pin = pin
        self.buf = bytearray(3 * n + 32)  # the transmit buffer and the C PixelBuf object
        self.pre = bytearray(3 * n)  # colours before brightness
        self.bright = int(brightness * 256)
        self.n = n

    def __len__(self):
        return self.n

    def __setitem__(self, i, c):
        if isinstance(c, int):  # as the C PixelBuf: an int colour allocates nothing
            r, g, b = c >> 16, c >> 8 & 255, c & 255
        else:
            r, g, b = c
        i *= 3
        self.pre[i] = r
        self.pre[i + 1] = g
        self.pre[i + 2] = b
        self.buf[i] = r * self.bright >> 8
        self.buf[i + 1] = g * self.bright >> 8
        self.buf[i + 2] = b * self.bright >> 8

    def __getitem__(self, i):
        return (self.pre[3 * i], self.pre[3 * i + 1], self.pre[3 * i + 2])

    def fill(self, c):
        for i in range(self.n):
            self[i] = c

    def show(self):
        pass
