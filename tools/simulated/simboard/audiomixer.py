"""Stand-in for ``audiomixer`` (host-only): see _mixer.py (installed under this name
where a VM has the real one built in)."""

from _mixer import Mixer  # noqa: F401
