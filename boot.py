"""QI Klaxon boot: name the drive; it stays writable for the computer (the default)."""

try:
    import storage

    storage.remount("/", readonly=True)  # the board's own view; the computer keeps write access
    m = storage.getmount("/")
    if m.label != "QIKLAXON":
        storage.remount("/", readonly=False)
        m.label = "QIKLAXON"
        storage.remount("/", readonly=True)
except Exception as e:  # never stop the board from starting over a label
    print("boot.py: drive label not set:", e)
