"""QI Klaxon firmware: pick the build, wire it, run the loop (hardware/device.py)."""

from hardware.device import main

main()
