"""Build profiles as the stand-in boards need them (host-only; no firmware beyond the profile)."""

ROLES = ("klaxon", "a", "b", "switch", "pixels", "speaker", "speaker_enable", "led")


def profile(name):
    """The PROFILE dict of build ``name``."""
    mod = __import__("hardware.profile_" + name)
    return getattr(mod, "profile_" + name).PROFILE


def pin_names(prof):
    """The board pin names a profile uses, in a fixed order (stand-in boards number them)."""
    names = []
    for role in ROLES:
        spec = prof[role]
        if spec:
            names.append(spec if isinstance(spec, str) else spec[0])
    return names
