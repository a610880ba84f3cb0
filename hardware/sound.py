"""Sounds: the klaxon, the "denied" buzz, blips and the fault beeps.

Two back ends, one interface (``start(i, now)``, ``stop()``, ``busy(now)``):

* ``SampleOut``: the project's synthesised WAV files (``sounds/``, made by
  ``tools/synth.py``) through ``audiocore.WaveFile`` and an audio output
  (``audiopwmio.PWMAudioOut`` or ``audioio.AudioOut``). Volume through an
  ``audiomixer`` voice where the port has one; without it, full volume
  (mute still works). Samples start and end at the quiescent level.
* ``ToneOut``: piezo builds, tone sweeps through ``pwmio.PWMOut``; the loop
  steps the frequency, nothing waits.

``Sound`` adds what both share: the speaker-enable pin driven only while
sounding, mute (setting or slide switch), and a one-deep queue so that a
sound asked for during the klaxon plays after it rather than cutting it.
Starting a sound never blocks the loop.
"""

from micropython import const
from adafruit_ticks import ticks_add, ticks_diff

KLAXON = const(0)
DENIED = const(1)
BLIP = const(2)
FAULT = const(3)
NAMES = ("klaxon", "denied", "blip", "fault")
FOLDER = "sounds/"

# Piezo versions: (start Hz, end Hz, ms) segments, 0 Hz is a rest.
TONES = (
    ((200, 420, 380), (420, 420, 160), (0, 0, 70), (200, 420, 380), (420, 420, 260)),
    ((160, 160, 140), (0, 0, 50), (120, 120, 260)),
    ((1800, 1800, 30),),
    ((880, 880, 90), (0, 0, 90), (880, 880, 90), (0, 0, 90), (880, 880, 90)),
)
_STEP_MS = const(10)  # piezo frequency updates


class SampleOut:
    """WAV samples through an audio output; ``audio`` is PWMAudioOut or AudioOut."""

    def __init__(self, audio, audiocore, volume, mixer_module=None, report=print):
        self._audio = audio
        self._buffer = bytearray(512)  # one shared streaming buffer: one sound at a time
        self._samples = []
        for name in NAMES:
            try:
                self._samples.append(
                    audiocore.WaveFile(open(FOLDER + name + ".wav", "rb"), self._buffer))
            except (OSError, ValueError) as e:
                report("sound %s.wav missing or bad (%s): it will be silent" % (name, e))
                self._samples.append(None)
        self._voice = None
        if mixer_module is not None and self._samples[KLAXON] is not None:
            first = self._samples[KLAXON]
            mixer = mixer_module.Mixer(
                voice_count=1, sample_rate=first.sample_rate, channel_count=1,
                bits_per_sample=first.bits_per_sample, samples_signed=True, buffer_size=1024)
            audio.play(mixer)
            self._voice = mixer.voice[0]
            self._voice.level = volume / 10

    def start(self, i, now):
        sample = self._samples[i]
        if sample is None:
            return
        if self._voice is not None:
            self._voice.play(sample)
        else:
            self._audio.play(sample)

    def stop(self):
        if self._voice is not None:
            self._voice.stop()
        else:
            self._audio.stop()

    def busy(self, now):
        return (self._voice or self._audio).playing


class ToneOut:
    """Tone sweeps on a piezo through ``pwmio.PWMOut`` (variable frequency)."""

    def __init__(self, pwm, volume):
        self._pwm = pwm
        self._duty = 32768 * volume // 10  # a piezo is loudest at 50 %
        self._tones = None
        self._seg = 0
        self._seg_start = 0
        self._next = 0

    def start(self, i, now):
        self._tones = TONES[i]
        self._seg = 0
        self._seg_start = now
        self._next = now
        self.busy(now)

    def stop(self):
        self._tones = None
        self._pwm.duty_cycle = 0

    def busy(self, now):
        """Step the sweep (at most every 10 ms); True while a tone sequence runs."""
        tones = self._tones
        if tones is None:
            return False
        if ticks_diff(now, self._next) < 0:
            return True
        elapsed = ticks_diff(now, self._seg_start)
        while elapsed >= tones[self._seg][2]:
            elapsed -= tones[self._seg][2]
            self._seg_start = ticks_add(now, -elapsed)
            self._seg += 1
            if self._seg == len(tones):
                self.stop()
                return False
        lo, hi, ms = tones[self._seg]
        if lo:
            self._pwm.frequency = lo + (hi - lo) * elapsed // ms
            self._pwm.duty_cycle = self._duty
        else:
            self._pwm.duty_cycle = 0
        self._next = ticks_add(now, _STEP_MS)
        return True


def muter(always, switch=None, mute_level=False):
    """A function returning True while sound is muted: by setting, or by the slide ``switch``."""
    if switch is None:
        return lambda: always
    return lambda: always or switch.value == mute_level


class Sound:
    """Non-blocking sound: ``play(i, now)``, then ``update(now)`` every pass."""

    def __init__(self, out, enable=None, muted=None):
        """``out``: SampleOut or ToneOut (None: no sound); ``enable``: the
        speaker-enable DigitalInOut; ``muted``: function, True while muted."""
        self._out = out
        self._enable = enable
        self._muted = muted
        self.current = -1  # the sound playing, -1 for none
        self._pending = -1
        self.started = -1  # the sound last started; the caller resets it once reported

    def play(self, i, now):
        """Start sound ``i`` now; during the klaxon, anything else waits for it."""
        if self.current == KLAXON and i != KLAXON:
            self._pending = i
            return
        self._start(i, now)

    def _start(self, i, now):
        self.started = i
        if self._out is None or (self._muted is not None and self._muted()):
            return
        if self._enable is not None:
            self._enable.value = True
        self._out.start(i, now)
        self.current = i

    def stop(self):
        """Silence now (a stuck button, sleep)."""
        self._pending = -1
        if self.current >= 0:
            self._out.stop()
        self._idle()

    def _idle(self):
        self.current = -1
        if self._enable is not None:
            self._enable.value = False

    def update(self, now):
        if self.current >= 0 and not self._out.busy(now):
            self._idle()
        if self.current < 0 and self._pending >= 0:
            i = self._pending
            self._pending = -1
            self._start(i, now)
