"""Stand-in for ``audiopwmio`` (host-only)."""

from _audioout import AudioOut as PWMAudioOut  # noqa: F401
