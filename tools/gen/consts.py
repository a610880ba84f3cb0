#!/usr/bin/env python3
"""The board's names for its numbers, each device module's block made from one source.

The source is model/layout.py (host-only): every state slot, op code, colour,
setting index and part. A device module cannot import it (each name would be a global in
the board's RAM), so it holds the names it uses as private ``_NAME = const(n)`` lines,
which the board's ``mpy-cross`` folds to the bare number: they cost nothing. This
writes that block, between the two marker lines below, with exactly the names the module
uses (``_NAME`` anywhere in its code) at the layout's values (what each means: the layout's
comments). A module that uses a name of the layout must hold the block; nothing else in it is
touched.

    python3 tools/gen/consts.py            # rewrite every device module's block
    python3 tools/gen/consts.py --check    # exit 1 naming each module and field that differs

``python3 tools/dev.py regen`` runs it with the other generators; tests/test_names.py
holds every block to what this makes.
"""

import ast
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
SOURCE = os.path.join(ROOT, "model", "layout.py")
# (short: a deploy without mpy-cross copies the .py files, comments too, and its budget is
# 200 KB; the names' meanings are in the layout)
BEGIN = "# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)\n"
END = "# (end of the names)\n"
# What the board runs, and so holds its names as consts (the web page's side runs in
# MicroPython too, and holds them as device.py does)
DEVICE = ("code.py", "boot.py", "safemode.py", "hardware", "lib", os.path.join("lib", "qiklaxon"),
          os.path.join("web", "page.py"))


def device_files(root=ROOT):
    """The device modules' paths, relative to ``root``, sorted."""
    out = []
    for d in DEVICE:
        path = os.path.join(root, d)
        if os.path.isdir(path):
            out += [os.path.join(d, n) for n in os.listdir(path)
                    if n.endswith(".py")]
        elif os.path.exists(path):
            out.append(d)
    return sorted(out)


def names(source=SOURCE):
    """{NAME: (value, comment, heading)} for the layout's whole-number names, in its order:
    those assigned in its text, then the settings' indexes (QK_ names, made by a loop
    there). ``heading``: the comment line just above the name's group there."""
    with open(source) as f:
        text = f.read()
    lines = text.splitlines()
    space = {}
    exec(compile(text, source, "exec"), space)  # (host-only, our own file)
    out = {}
    heading = ""
    for node in ast.parse(text).body:
        i = node.lineno - 2  # the comment lines just above: the first is the heading
        while i >= 0 and lines[i].startswith("# ") and not lines[i].startswith("# ---"):
            i -= 1
        if i < node.lineno - 2:
            heading = lines[i + 1][2:].strip()
        elif i >= 0 and not lines[i].strip():  # a group of its own, with no heading
            heading = ""
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            value = space.get(name)
            if name.isupper() and type(value) is int:
                line = lines[node.lineno - 1]
                comment = line.split("#", 1)[1].strip() if "#" in line else ""
                out[name] = (value, comment, heading)
    for i, key in enumerate(space.get("SETTINGS", ())):
        key = key if isinstance(key, str) else key[0]
        out.setdefault(key, (i, "", "The settings (hardware/settings.py's read(): values "
                                    "in the order of its KEYS)"))
    return out


def _split(text):
    """(before, block, after) of a module's text at its markers; block None: no markers."""
    i = text.find(BEGIN)
    if i < 0:
        return text, None, ""
    j = text.find(END, i)
    if j < 0:
        raise ValueError("a block's begin marker without its end: %r" % END)
    return text[:i], text[i + len(BEGIN):j], text[j + len(END):]


def used(text, table):
    """The layout's names the module's code (outside its block) uses as ``_NAME``."""
    before, block, after = _split(text)
    tree = ast.parse(before + after)
    own = set()  # names the module itself assigns (a plain global, not one of the layout's)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
    return {n.id[1:] for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id[:1] == "_"
            and n.id[1:] in table and n.id not in own}


def block(want, table):
    """The block's text for names ``want``, in the layout's order."""
    out = []
    for name, (value, comment, heading) in table.items():
        if name in want:
            number = "0x%X" % value if value > 0xFFFF else str(value)
            out.append("_%s = const(%s)\n" % (name, number))
    return "".join(out)


def make(text, table):
    """The module's text with its block made from ``table``; unchanged without a block."""
    before, old, after = _split(text)
    if old is None:
        return text
    return before + BEGIN + block(used(text, table), table) + END + after


def consts_of(block_text):
    """{NAME: value} of a block's ``_NAME = const(n)`` lines."""
    out = {}
    for m in re.finditer(r"^_(\w+) = const\(([^)]*)\)", block_text or "", re.M):
        try:
            out[m.group(1)] = int(m.group(2), 0)
        except ValueError:
            out[m.group(1)] = m.group(2)
    return out


def differences(rel, text, table):
    """What is wrong with module ``rel``'s block, one line a field: [] when it is what this
    makes."""
    want = used(text, table)
    _, old, _ = _split(text)
    if old is None:
        return ["%s: uses %s of model/layout.py but has no made block (markers: %r)"
                % (rel, ", ".join("_" + n for n in sorted(want)), BEGIN.splitlines()[0])
                ] if want else []
    have = consts_of(old)
    out = []
    for name in table:
        if name in want and name not in have:
            out.append("%s: uses _%s but its block lacks it (layout: %s = %r)"
                       % (rel, name, name, table[name][0]))
        elif name in have and name not in want:
            out.append("%s: its block holds _%s, which the module no longer uses" % (rel, name))
        elif name in have and have[name] != table[name][0]:
            out.append("%s: _%s = const(%r) but layout.%s is %r" % (
                rel, name, have[name], name, table[name][0]))
    for name in have:
        if name not in table:
            out.append("%s: its block holds _%s, which is not in model/layout.py"
                       % (rel, name))
    if not out and make(text, table) != text:
        out.append("%s: its block's text (order, comments) is not what tools/gen/consts.py makes"
                   % rel)
    return out


def run(root=ROOT, check=False):
    """Make (or, ``check``, only compare) every device module's block under ``root``:
    (the files rewritten, what is still wrong: one line a field)."""
    table = names(os.path.join(root, "model", "layout.py"))
    made, wrong = [], []
    for rel in device_files(root):
        path = os.path.join(root, rel)
        with open(path) as f:
            text = f.read()
        found = differences(rel, text, table)
        new = make(text, table)
        if found and not check and new != text:
            with open(path, "w") as f:
                f.write(new)
            made.append(rel)
            found = differences(rel, new, table)
        wrong += found
    return made, wrong


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    made, wrong = run(check="--check" in argv)
    for rel in made:
        print("consts: made %s's block" % rel)
    for line in wrong:
        print("consts: " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
