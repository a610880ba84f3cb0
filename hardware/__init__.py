"""QI Klaxon's hardware side (host copy; the board imports ``hardware`` as a namespace
package): start.py and outputs.py at start-up, device.py the loop, a profile per build."""
