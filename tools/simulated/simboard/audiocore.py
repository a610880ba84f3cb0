"""Stand-in for ``audiocore`` (host-only): see _wavefile.py. CircuitPython's own
``audiocore`` is built into its VM, so that lane installs _wavefile under this name."""

from _wavefile import RawSample, WaveFile  # noqa: F401
