"""Build profiles as the stand-in boards need them (host-only; no firmware beyond the profile)."""

ROLES = ("klaxon", "a", "b", "switch", "pixels", "speaker", "speaker_enable", "led", "amp_sd")
# The PROFILE tuple's fields, in order (hardware/profile_*.py)
FIELDS = ("klaxon", "a", "b", "switch", "audio", "speaker", "speaker_enable", "pixels", "led",
          "sleep", "nvm", "watchdog")


def named(prof):
    """A PROFILE tuple as a dict by field name."""
    return dict(zip(FIELDS, prof))


def profile(name):
    """The PROFILE of build ``name``, as a dict by field name."""
    mod = getattr(__import__("hardware.profile_" + name), "profile_" + name)
    p = named(mod.PROFILE)
    p["amp_sd"] = getattr(mod, "AMP_SD", None)  # QK_AUDIO = "amp": the amplifier's SD pin
    return p


def pin_names(prof):
    """The board pin names a profile uses, in a fixed order (stand-in boards number them)."""
    names = []
    for role in ROLES:
        spec = prof.get(role)
        if spec:
            names.append(spec if isinstance(spec, str) else spec[0])
    return names
