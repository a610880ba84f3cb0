"""``time`` for the CircuitPython lane (host-only): the firmware only sleeps when it
cannot start and blinks for ever, so sleeping ends the run instead of hanging it."""


def sleep(seconds):
    raise SystemExit("the firmware blinked: it could not start")


def monotonic():
    return 0.0
