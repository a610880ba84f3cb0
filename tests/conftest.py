"""Test set-up: the simulated board's import paths come first, so that
adafruit_ticks runs on the simulated clock (tools/harness.py)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The repo root holds code.py and boot.py, which would shadow the standard
# library's ``code`` module (pdb imports it): the root goes last.
sys.path[:] = [p for p in sys.path if p not in ("", ".", ROOT)]
for p in (os.path.join(ROOT, "tools"), os.path.join(ROOT, "lib"),
          os.path.join(ROOT, "tools", "simboard")):
    if p not in sys.path:
        sys.path.insert(0, p)
sys.path.append(ROOT)
os.environ["BLINKA_OS_AGNOSTIC"] = "1"
os.chdir(ROOT)  # the firmware opens sounds/ relative to the drive's root, as on the board
