"""Presses from pins: the Klaxon's instant, bounce-proof detector and the A/B buttons.

The Klaxon scheme (budgets in shared/product/brief.md):

* ``adafruit_debouncer.Debouncer`` over the raw pin with an interval of
  ``QK_GLITCH_MS`` (2 ms): a level must hold through samples 2 ms apart
  before it counts, so a glitch shorter than 2 ms never sounds, and a
  press sounds 2-3 ms after its contact settles (5 ms of bounce: <= 8 ms).
* Re-arm: a debounced press counts only if the button was debounced
  released for at least ``QK_REARM_MS`` (30 ms) before it. Bounce on the
  way down or up can open the contact for up to a few ms, enough for the
  debouncer to see a short release and a second press; re-arm makes that
  one press. A human's fastest second slam comes well after 30 ms.
* A button down at start-up, or held past ``QK_STUCK_S``, is stuck: it
  reports ``stuck`` and counts nothing until released and re-armed.

Everything here runs every loop pass and allocates nothing.
"""

from adafruit_debouncer import Button, Debouncer
from adafruit_ticks import ticks_diff, ticks_ms


def contact(io, active):
    """A function returning True while the contact of ``io`` is closed (reads ``active``).

    Defined here, not where the build is wired, so that the wiring code's RAM
    can be freed after start-up."""
    if active:
        return lambda: io.value
    return lambda: not io.value


class KlaxonButton:
    """The Klaxon: ``pressed`` is True on the one pass a press is accepted."""

    def __init__(self, read, glitch_ms=2, rearm_ms=30, stuck_ms=10000, woke=False):
        """``read``: function returning True while the contact is closed; ``woke``: this
        start is the Klaxon waking the board, so a button down now is that press, not stuck."""
        self._rearm_ms = rearm_ms
        self._stuck_ms = stuck_ms
        self._db = Debouncer(read, interval=glitch_ms / 1000)
        now = ticks_ms()
        self._changed = now
        self._armed = not self._db.value  # down at start-up: stuck until released ...
        self.stuck = self._db.value and not woke  # ... unless the press woke the board
        self.pressed = False
        self.stuck_changed = False

    @property
    def down(self):
        """The debounced level: True while held."""
        return self._db.value

    def update(self, now):
        """Sample the pin; ``now`` is ``ticks_ms()`` of this pass."""
        db = self._db
        db.update()
        self.pressed = False
        self.stuck_changed = False
        if db.rose:
            self.pressed = self._armed
            self._armed = False
            self._changed = now
        elif db.fell:
            self._changed = now
        elif db.value:
            if not self.stuck and ticks_diff(now, self._changed) >= self._stuck_ms:
                self.stuck = True
                self.stuck_changed = True
        elif not self._armed and ticks_diff(now, self._changed) >= self._rearm_ms:
            self._armed = True
            if self.stuck:
                self.stuck = False
                self.stuck_changed = True


class ControlButton(Button):
    """Button A or B: ``adafruit_debouncer.Button`` reporting short, double and long presses.

    ``gesture`` after ``update()``: 0 nothing, 1 a single short press, 2 a
    double press, LONG a long press (held ``long_ms``). A single press is
    reported once the double-press window (``short_ms``) has passed.
    """

    LONG = 9

    def __init__(self, read, active, long_ms=700, short_ms=250):
        super().__init__(read, short_duration_ms=short_ms, long_duration_ms=long_ms,
                         value_when_pressed=active, interval=0.01)
        self.gesture = 0

    def update(self, new_state=None):
        super().update(new_state)
        if self.long_press:
            self.gesture = self.LONG
        elif self.short_count:
            self.gesture = self.short_count
        else:
            self.gesture = 0
