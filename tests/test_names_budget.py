"""Names as a budget: the firmware's interned names for a whole game on the Express, charged
at the SAMD21's pool layout, with the names already in its firmware's ROM taken off
(tools/lanes/cpvm.py ``express_names``; tools/quality/bench.py prints it against the brief's budget)."""

import os
import subprocess

import pytest

import cpvm

if cpvm.find() is None:
    if os.environ.get("QK_REQUIRE_CP"):  # CI: the lane must run
        raise RuntimeError("QK_REQUIRE_CP is set: " + cpvm.HOW_TO_GET)
    pytest.skip(cpvm.HOW_TO_GET, allow_module_level=True)


def test_the_samd21s_pools():
    # 20, 40 and 80 entries of 5 bytes under a 20-byte header, in 16-byte blocks
    assert cpvm.samd21_pools(0) == (0, 0)
    assert cpvm.samd21_pools(20) == (128, 20)
    assert cpvm.samd21_pools(140) == (128 + 224 + 432, 140)
    assert cpvm.samd21_pools(141) == (128 + 224 + 432 + 832, 300)  # the 141st: +832 B


def test_a_mpy_lists_the_names_its_load_interns(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from micropython import const\n_HIDDEN = const(3)\n"
                   "class Thing:\n    def poke(self, how_hard):\n        self.dents = how_hard\n"
                   "print('hello there')\n")
    out = tmp_path / "m.mpy"
    subprocess.run([os.path.join(cpvm.find(), "mpy-cross"), "-O3", "-s", "m", "-o", str(out),
                    str(src)], check=True)
    names = cpvm.mpy_names(str(out))
    assert {"Thing", "poke", "how_hard", "dents"} <= set(names)
    assert "_HIDDEN" not in names  # a private const is free
    assert "print" not in names and "self" not in names  # static qstrs: every port's ROM


def test_the_picos_rom_is_read_from_its_firmware():
    rom = cpvm.rom_names(os.path.join(cpvm.find(), cpvm.PICO_ELF))
    if rom is None:
        pytest.skip("no Pico firmware beside the CircuitPython build")
    rom = set(rom)
    assert {"duty_cycle", "monotonic", "switch_to_output", "GP16", "interval", "print"} <= rom
    assert not {"SPEAKER", "rose", "fell", "Union", "Callable"} & rom


def test_a_whole_games_names_on_the_express_leave_the_141st_unallocated():
    r = cpvm.express_names()
    listed = r["listed"]
    assert r["names"] == len(listed["counted"]) + len(listed["counted (known)"])
    assert sorted(listed["counted (known)"]) == sorted(
        n for n in cpvm.EXPRESS_ROM_OUT if n in sum(listed.values(), []))
    assert not set(cpvm.EXPRESS_ROM_IN) & set(listed["counted"])
    # the firmware's own names are there: its modules, the core's state, the profile's
    for n in ("Referee", "act", "TONES", "PROFILE", "hardware.device", "Debouncer"):
        assert n in listed["counted"], n
    assert not [n for n in listed["counted"] if n.startswith("_q")]  # the runner's fill
    assert (r["pool_bytes"], r["pools"]) == cpvm.samd21_pools(r["names"])
    assert r["headroom"] == r["pools"] - r["names"]
    assert r["names"] <= 140, "a whole game allocates the 160-entry pool (+832 B): %d names" % (
        r["names"])
    # the brief's budget: ten short of the 141st, for a later feature to spend
    assert r["names"] <= cpvm.NAMES_BUDGET == 130, (r["names"], listed["counted"])


def test_the_deployed_libraries_cost_no_names_for_type_hints():
    """The libraries go on the Express as .mpy made from their lean text (tools/maker/deploy.py's
    lean_library): the debouncer's annotated flags are free consts, and no typing name is
    interned at load; what the loop uses is there."""
    d = cpvm.Drive("cpx")
    try:
        names = {lib: cpvm.mpy_names(os.path.join(d.path, "lib", lib + ".mpy"))
                 for lib in ("adafruit_debouncer", "adafruit_ticks")}
        lines, _, out, ok = d.run([], 3000)
        assert ok, out[-2000:]
    finally:
        d.close()
    hints = {"_DEBOUNCED_STATE", "_UNSTABLE_STATE", "_CHANGED_STATE", "_TICKS_PER_SEC",
             "typing", "Optional", "Union", "Callable", "circuitpython_typing.io", "ROValueIO"}
    assert not hints & set(names["adafruit_debouncer"]), names["adafruit_debouncer"]
    assert {"Debouncer", "_get_state", "state", "__version__", "2.0.15"} <= set(
        names["adafruit_debouncer"])
    assert {"ticks_add", "ticks_diff", "1.1.7"} <= set(names["adafruit_ticks"])
    # and what the firmware never uses is not loaded at all (layout.LIBRARY_UNUSED)
    assert not {"Button", "rose", "fell", "last_duration", "current_duration"} & set(
        names["adafruit_debouncer"]) and "ticks_less" not in names["adafruit_ticks"]
