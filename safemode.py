"""QI Klaxon safe mode (CircuitPython 8.1+ runs this instead of code.py after a crash).

Logs the reason on the serial console, then:
* brownout (weak batteries): deep-sleep a minute, then try again; the saved
  game is in nvm, untouched;
* a hard crash or the watchdog: wait 5 s, then restart normally (the saved
  game resumes); a crash that repeats is thus slowed, not a tight loop;
* anything else (the user asked, a flash problem): stay in safe mode, so the
  maker can see the message and fix it.
"""

import microcontroller
import supervisor
import time

reason = supervisor.runtime.safe_mode_reason
R = supervisor.SafeModeReason
print("QI Klaxon safe mode:", reason)

if reason == getattr(R, "BROWNOUT", None):
    print("batteries too weak: sleeping for a minute; change the batteries")
    try:
        import alarm

        alarm.exit_and_deep_sleep_until_alarms(
            alarm.time.TimeAlarm(monotonic_time=time.monotonic() + 60))
    except (ImportError, AttributeError):
        time.sleep(60)
        microcontroller.reset()
elif reason in (getattr(R, "HARD_FAULT", None), getattr(R, "WATCHDOG", None),
                getattr(R, "STACK_OVERFLOW", None), getattr(R, "GC_ALLOC_OUTSIDE_VM", None)):
    print("restarting in 5 s; the saved game will resume")
    time.sleep(5)
    microcontroller.reset()
else:
    print("staying in safe mode: see the reason above")
