"""Stand-in for CircuitPython's ``watchdog`` (host-only)."""


class WatchDogMode:
    RAISE = 1
    RESET = 2


class WatchDogTimeout(Exception):
    pass
