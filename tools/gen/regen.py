#!/usr/bin/env python3
"""Remake everything derived, in one command (``python3 tools/dev.py regen``).

What is made from one source, and by what:

- each device module's const block (the names it uses): tools/gen/consts.py, from
  model/layout.py;
- the settings' copies: hardware/settings.py's ``KEYS``, the README's settings table and
  settings.example.toml, from the layout's ``SETTING_ROWS`` (here);
- hardware/outputs.py's ``TONES`` and sounds/*.wav: tools/gen/synth.py, from its ``SEGMENTS``;
- the table card (docs/card-*.svg, docs/card.md) and the README's copy of it: tools/gen/card.py,
  from the firmware's tables;
- the pictures in docs/ (the klaxon's waveform among them): tools/gen/pictures.py.

    python3 tools/dev.py regen            # write whatever differs, naming each file
    python3 tools/dev.py regen --check    # exit 1 naming each file that differs

The test command runs the check (tests/test_regen.py): a committed copy that differs
from what its source makes fails CI. Each generator also keeps its own command
(``tools/gen/card.py --check`` and so on).
"""

import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402

OUTPUTS = "hardware/outputs.py"


def _consts(read):
    import consts

    table = consts.names(os.path.join(ROOT, "model", "layout.py"))
    return {rel: consts.make(read(rel), table) for rel in consts.device_files(ROOT)
            if read(rel) is not None}  # (a tree without that module: nothing to make)


def tones_in(text, source):
    """``text`` (hardware/outputs.py) with its ``TONES = (...)`` replaced by ``source``."""
    i = text.index("\nTONES = (\n") + 1
    j = text.index("\n)\n", i) + 2
    return text[:i] + source + text[j:]


def _tones(read):
    import synth

    return {OUTPUTS: tones_in(read(OUTPUTS), synth.tones_source())}


def _layout():
    from model import layout

    return layout


def _value(v):
    return '"%s"' % v if isinstance(v, str) else str(v)


def keys_source(rows):
    """hardware/settings.py's ``KEYS``, as Python source, from the layout's SETTING_ROWS."""
    return "KEYS = (\n%s)" % "".join("    (%s, %s, %d, %d),\n" % (
        _value(r[0]), _value(r[1]), r[2], r[3]) for r in rows)


def _range(row):
    low, high = row[2], row[3]
    return "" if low > high else "0 or 1" if (low, high) == (0, 1) else "%d to %d" % (low, high)


def settings_table(rows):
    """The README's table of the settings, from the layout's SETTING_ROWS."""
    out = ["| key | type | default | range | what it is |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        kind = "string" if r[2] > r[3] else "0 or 1" if (r[2], r[3]) == (0, 1) else "number"
        out.append("| `%s` | %s | `%s` | %s | %s |" % (r[0], kind, _value(r[1]), _range(r),
                                                       r[4]))
    return "\n".join(out) + "\n"


def example(rows, head):
    """settings.example.toml: ``head`` (its opening comment, kept as written), then every
    setting at its default under its words and range."""
    out = [head.rstrip("\n") + "\n"]
    for r in rows:
        out.append("\n# %s%s\n%s = %s\n" % (r[4], " (%s)" % _range(r) if _range(r) else "",
                                             r[0], _value(r[1])))
    return "".join(out)


README_SETTINGS = ("<!-- the settings: made by tools/gen/regen.py from model/layout.py's "
                   "SETTING_ROWS -->\n", "<!-- end of the settings -->\n")


def between(text, marks, made, where):
    """``text`` with what lies between the two marker lines ``marks`` replaced by ``made``."""
    i = text.find(marks[0])
    j = text.find(marks[1], i)
    if i < 0 or j < 0:
        raise ValueError("%s: its markers %r are gone" % (where, marks))
    return text[:i + len(marks[0])] + made + text[j:]


def _settings(read):
    rows = _layout().SETTING_ROWS
    keys = read("hardware/settings.py")
    i = keys.index("\nKEYS = (\n") + 1
    j = keys.index("\n)\n", i) + 2
    head = read("settings.example.toml").split("\n\n# ")[0]
    return {"hardware/settings.py": keys[:i] + keys_source(rows) + keys[j:],
            "README.md": between(read("README.md"), README_SETTINGS, settings_table(rows),
                                 "README.md"),
            "settings.example.toml": example(rows, head)}


def _sounds(read):
    import synth

    return {"sounds/%s.wav" % name: data for name, data in synth.render().items()}


def _card(read):
    import card

    return card.files(read("README.md"))


def _pictures(read):
    import pictures

    return {"docs/" + name: draw() for name, draw in pictures.PICTURES.items()}


# (what, which command makes it alone, the files' contents from the current ones)
GENERATORS = (
    ("the const blocks", "tools/gen/consts.py", _consts),
    ("the settings", "tools/gen/regen.py from the layout's SETTING_ROWS", _settings),
    ("TONES", "tools/gen/synth.py --tones", _tones),
    ("the sounds", "tools/gen/synth.py", _sounds),
    ("the card", "tools/gen/card.py", _card),
    ("the pictures", "tools/gen/pictures.py", _pictures),
)


def _reader(root):
    def read(rel):
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            return None
        mode = "rb" if rel.endswith(".wav") else "r"
        with open(path, mode, **({} if mode == "rb" else {"encoding": "utf-8"})) as f:
            return f.read()
    return read


def run(check=False, root=ROOT, read=None, passes=3):
    """Make everything derived; [(file, what makes it)] of each file that differed (and,
    unless ``check``, was written). ``read(rel)``: a file's current contents (default:
    under ``root``); the generators run in order, each on the one before's result.
    Written from the files on disk, it runs again until nothing differs (at most
    ``passes`` times): a generator that plays the firmware as it is on disk (the
    loudness picture plays TONES and the WAVs) sees what the one before it wrote."""
    if read is None and not check and passes > 1:
        out = dict(run(root=root, passes=1))
        for _ in range(passes - 1):
            again = run(root=root, passes=1)
            if not again:
                return sorted(out.items())
            for rel, maker in again:
                out[rel] = out.get(rel) or maker
        raise RuntimeError("regen: %s still differ after %d passes" % (
            ", ".join(rel for rel, _ in again), passes))
    read = read or _reader(root)
    now = {}  # what the generators made so far, by file
    makers = {}  # and which of them changed it

    def current(rel):
        return now[rel] if rel in now else read(rel)

    for what, command, make in GENERATORS:
        for rel, data in make(current).items():
            if data != current(rel):
                makers.setdefault(rel, []).append(command)
            now[rel] = data
    out = []
    for rel, data in now.items():
        if read(rel) == data:
            continue
        out.append((rel, " and ".join(makers.get(rel, ()))))
        if not check:
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb" if isinstance(data, bytes) else "w",
                      **({} if isinstance(data, bytes) else {"encoding": "utf-8"})) as f:
                f.write(data)
            if rel.endswith(".py"):  # (its cached bytecode: a file rewritten in the same
                try:  # second at the same size, TONES with new bytes, would be imported stale)
                    os.remove(importlib.util.cache_from_source(path))
                except OSError:
                    pass
    return sorted(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    unknown = sorted(set(argv) - {"--check"})
    if unknown:
        print("regen: unknown argument %s (see --help)" % " ".join(unknown), file=sys.stderr)
        return 2
    check = "--check" in argv
    try:
        found = run(check=check)
    except RuntimeError as e:  # (files that still differ after every pass: a generator
        print(e, file=sys.stderr)  # that reads what another writes, and never settles)
        return 2
    for rel, maker in found:
        print("regen: %s %s (made by %s)" % (rel, "differs from what it is made of" if check
                                             else "remade", maker))
    if check and found:
        print("regen: python3 tools/dev.py regen remakes %s" % (
            "it" if len(found) == 1 else "them"))
        return 1
    if not found:
        print("regen: everything derived is what its source makes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
