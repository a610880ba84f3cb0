"""Stand-in for ``audioio`` (host-only)."""

from _audioout import AudioOut  # noqa: F401
