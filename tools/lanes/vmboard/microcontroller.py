"""Stand-in ``microcontroller`` for the MicroPython VM lane: an erased 4 KB ``nvm`` and a watchdog."""

nvm = bytearray(b"\xff" * 4096)


class _Watchdog:
    timeout = None
    mode = None
    feeds = 0

    def feed(self):
        self.feeds += 1


watchdog = _Watchdog()
