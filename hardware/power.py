"""Sleep until the Klaxon, and the watchdog: only for ports that have them.

The Circuit Playground Express has neither ``alarm`` nor ``watchdog``, so a
deploy for it leaves this module out and the firmware never imports it.
"""

if __debug__:  # CPython needs const; mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_FL = const(7)
# (end of the names)


def start(io, pin, high, sleep, dog):
    """(a function that deep-sleeps until the Klaxon or None, the watchdog or None,
    what woke the board or None) for the Klaxon's ``io`` on ``pin``, which reads
    ``high`` when pressed; ``sleep``: sleep at all; ``dog``: the build has a watchdog."""
    sl = woke = None
    if sleep:
        try:
            import alarm

            woke = alarm.wake_alarm
            sl = sleeper(io, pin, high)
        except ImportError:
            print("no alarm module here: the device will not sleep")
    return sl, watchdog() if dog else None, woke


def sleeper(io, pin, level):
    """``sleep(device, now)``: the game saved, dark and silent, then deep sleep until
    ``pin`` reads ``level`` (the Klaxon pressed); the board then starts afresh,
    resumes the saved game, and the press that woke it counts (hardware/outputs.py)."""
    import alarm

    def sleep(d, n):
        if d.r and d.r.j and d.r.w:  # the game changed since its last save: save it now
            d.r.save()
        d.f[_FL] = 0  # no flash; every pixel off
        for i in range(len(d.c)):
            d.c[i] = 0
        d.draw(n)
        print("sleeping: press the Klaxon")
        io.deinit()  # a PinAlarm needs the pin free
        alarm.exit_and_deep_sleep_until_alarms(alarm.pin.PinAlarm(pin, value=level, pull=True))

    return sleep


def watchdog():
    """The port's watchdog set to reset the board after 8 s unfed (the loop
    feeds it every 256 passes), or None where there is none."""
    try:
        import microcontroller
        from watchdog import WatchDogMode

        wd = microcontroller.watchdog
        wd.timeout = 8  # the RP2040's longest is ~8.3 s
        wd.mode = WatchDogMode.RESET
        wd.feed()
        return wd
    except (ImportError, AttributeError, NotImplementedError, RuntimeError, ValueError) as e:
        print("no watchdog:", e)
        return None
