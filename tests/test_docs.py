"""The README's and docs/' promises that code can check."""

import glob
import os
import re

from harness import ROOT


def readme():
    with open(os.path.join(ROOT, "README.md")) as f:
        return f.read()


def test_ci_runs_exactly_the_readme_test_command():
    text = readme()
    assert "python3 tools/dev.py test" in text and "python3 tools/dev.py sim" in text
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        commands = [line for line in f if line.strip() and not line.startswith("#")]
    assert commands[-1].strip() == "python3 tools/dev.py test"


def test_every_setting_is_documented_in_the_readme_and_the_example():
    from hardware.settings import KEYS, read

    text = readme()
    with open(os.path.join(ROOT, "settings.example.toml")) as f:
        example = f.read()
    for key, *_ in KEYS:
        assert "`%s`" % key in text, key
        assert re.search(r"^%s = " % key, example, re.M), key
    assert read(example.split("\n"))[1] == 0  # the example itself is valid: nothing reported


def test_sounds_are_exactly_what_the_synth_script_makes():
    import synth

    for name, data in synth.render().items():
        with open(os.path.join(ROOT, "sounds", name + ".wav"), "rb") as f:
            assert f.read() == data, name


def test_sounds_start_and_end_at_the_quiescent_level():
    import struct

    import synth

    for name, data in synth.render().items():
        pcm = data[44:]
        first, last = struct.unpack("<h", pcm[:2])[0], struct.unpack("<h", pcm[-2:])[0]
        assert abs(first) < 200 and abs(last) < 200, name  # no click


# Where the docs and comments say how long the klaxon lasts, to a tenth of a second (its
# length is tools/gen/synth.py's SEGMENTS; a change there is a change here, and in the sums
# that follow from it: the README's battery paragraph)
KLAXON_SAID = (  # (file, the length in a pattern's group, what it is for; in ms where a
    # pattern ends in "ms")
    ("README.md", r"\(40 presses of ([\d.]+) s\)", "its battery sums"),
    ("web/app.js", r'name === "klaxon" \? (\d+) : \d+;  // ms', "a sound not loaded yet"),
    ("docs/pico-lane.md", r"the real klaxon lasts about ([\d.]+) s", "the lane's timing"),
    ("tools/gen/synth.py", r"blasts, about ([\d.]+) s in all", "the segments' comment"),
    ("tools/quality/picobench.py", r"The klaxon lasts about ([\d.]+) s", "the bench's press spacing"),
    ("tools/gen/pictures.py", r"The klaxon's waveform \(([\d.]+) s\)", "the picture's docstring"),
)


def test_klaxon_lasts_what_the_docs_say_and_is_loud_and_denied_is_different():
    import struct

    import synth

    made = synth.render()
    klaxon = made["klaxon"][44:]
    seconds = len(klaxon) / 2 / synth.RATE
    wrong = []
    for rel, pattern, what in KLAXON_SAID:
        found = re.findall(pattern, text_of(rel))
        assert found, "%s no longer says how long the klaxon lasts (%s): %r" % (rel, what, pattern)
        scale = 1000 if pattern.endswith("ms") else 1
        wrong += ["%s (%s) says %s %s" % (rel, what, x, "ms" if scale > 1 else "s")
                  for x in found if abs(float(x) / scale - seconds) > 0.051]
    # and the seconds of sound a game that the README's battery sums start from: 40 klaxons
    game, each = re.search(r"about (\d+) s in a two-hour game \(40 presses of ([\d.]+) s\)",
                           text_of("README.md")).groups()
    if abs(int(game) - 40 * seconds) > 5:
        wrong.append("README.md says about %s s of klaxon a game: 40 presses of %.2f s are "
                     "%.0f s (and the amplifier's sums follow from it)" % (game, seconds,
                                                                         40 * seconds))
    assert not wrong, "the klaxon lasts %.2f s (tools/gen/synth.py's SEGMENTS), but %s" % (
        seconds, "; ".join(wrong))
    peak = max(abs(v) for (v,) in struct.iter_unpack("<h", klaxon))
    assert peak > 30000  # full scale
    assert len(made["denied"]) < len(made["klaxon"]) / 2


def test_pictures_are_what_tools_pictures_draws():
    import pictures

    for name, draw in pictures.PICTURES.items():
        with open(os.path.join(ROOT, "docs", name)) as f:
            assert f.read() == draw(), name


# ------------------------------------------------------------------ the maker's pages
DOCS = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(ROOT, "docs"))
                              if n.endswith(".md"))
# The one link that leaves the repository on purpose: GitHub's Releases page of wherever
# the repository is (relative to the README as GitHub shows it)
RELEASES = "../../releases/latest"


def text_of(rel):
    with open(os.path.join(ROOT, *rel.split("/")), encoding="utf-8") as f:
        return f.read()


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces
    to hyphens."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return h.replace(" ", "-")


def anchors(rel):
    out, seen = set(), {}
    in_code = False
    for line in text_of(rel).splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and re.match(r"^#{1,6} ", line):
            s = slug(line.lstrip("#"))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def links(rel):
    """Every link and image target in a page: markdown's ``[..](target)``, ``<img src>``."""
    text = re.sub(r"```.*?```", "", text_of(rel), flags=re.S)  # (not what code blocks show)
    found = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    found += re.findall(r"<img [^>]*src=\"([^\"]+)\"", text)
    return found


def test_every_link_and_image_in_the_readme_and_docs_resolves():
    """Each relative link is a file of the repository (an image, a page, a folder), each
    #anchor a heading of the page it points at; the web addresses are https; the one
    link out of the repository is the README's to its Releases page."""
    checked = 0
    for rel in DOCS:
        here = os.path.dirname(rel)
        for target in links(rel):
            checked += 1
            if target.startswith(("https://", "mailto:")):
                continue
            assert not target.startswith("http:"), (rel, target)
            if target == RELEASES:
                assert rel == "README.md", (rel, target)
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(here, path)) if path else rel
            dest = dest.replace(os.sep, "/")
            assert not dest.startswith(".."), (rel, target)
            assert os.path.exists(os.path.join(ROOT, dest)), (rel, target)
            if anchor:
                assert dest.endswith(".md") and anchor in anchors(dest), (rel, target)
    assert checked > 60


def _commands():
    """{(script, subcommand or None): ({the --flags the docs give it}, [where])} for every
    ``python3 tools/...`` the README and docs/ give."""
    found = {}
    for rel in DOCS:
        for m in re.finditer(r"python3 (tools/[\w/]+\.py)([^`\n]*)", text_of(rel)):
            args = m.group(2).split("#")[0].split()
            sub = None
            if m.group(1) == "tools/dev.py" and args and not args[0].startswith(("-", "[")):
                sub = args[0]
            flags = set(re.findall(r"(--[\w-]+)", " ".join(args)))
            entry = found.setdefault((m.group(1), sub), (set(), []))
            entry[0].update(flags)
            entry[1].append(rel)
    return found


def test_every_command_the_docs_give_runs_and_takes_the_flags_they_give_it():
    """Each documented command answers --help (exit 0) and lists every flag the docs use
    with it; `test` runs the whole suite, so it is only held to be one of dev.py's."""
    import subprocess
    import sys

    import dev

    found = _commands()
    assert ("tools/dev.py", "deploy") in found and ("tools/dev.py", "sim") in found
    for (script, sub), (flags, where) in sorted(found.items(), key=str):
        if sub == "test":
            assert "python3 tools/dev.py test " in dev.__doc__, where
            continue
        cmd = [sys.executable, os.path.join(ROOT, script)] + ([sub] if sub else []) + ["--help"]
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (cmd, where, r.stdout[-500:] + r.stderr[-500:])
        for flag in flags - {"--help"}:
            assert flag in r.stdout, (script, sub, flag, where)


def test_the_deploys_dry_run_as_the_docs_give_it(tmp_path):
    """`python3 tools/dev.py deploy DRIVE --dry-run`, on a drive as a board shows it:
    it says what it would write and writes nothing."""
    import subprocess
    import sys

    from model import layout

    drive = tmp_path / "QIKLAXON"
    drive.mkdir()
    (drive / "boot_out.txt").write_text(layout.boot_out("cpb"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "dev.py"), "deploy",
                        str(drive), "--dry-run", "--offline", "--py"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "would write code.py" in " ".join(r.stdout.split())
    assert os.listdir(drive) == ["boot_out.txt"]


def test_the_readme_answers_what_to_buy_first_and_keeps_developers_last():
    text = readme()
    lines = text.splitlines()
    first_screen = "\n".join(lines[:45])
    assert "## What to buy, and how long it takes" in first_screen
    for build in ("Circuit Playground Bluefruit", "Circuit Playground Express",
                  "Raspberry Pi Pico"):
        assert build in first_screen
    for word in ("$", "approximate", "2026", "soldering", "minutes", "Adafruit", "Pimoroni",
                 "The Pi Hut", "DigiKey", "AAA"):
        assert word in first_screen, word
    order = [text.index(h) for h in ("## What to buy", "## Install", "## Play",
                                     "## Troubleshooting", "## More", "## Develop")]
    assert order == sorted(order)
    develop = text[text.index("## Develop"):]
    assert len(develop.splitlines()) <= 25  # the two commands and links to docs/
    makers = text[:text.index("## Develop")]
    for word in ("qstr", "fuel", "pytest", "mpy-cross", "heap", "lanes?", "Hypothesis", "VM"):
        assert not re.search(r"\b%s\b" % word, makers), word


def test_the_worked_example_of_docs_rules_md_is_what_the_referee_does():
    """4 players, QM seat 0 rolls 5 6 1 and asks; seat 1 answers, seat 2 passes, seat 3
    hits the Klaxon on seat 1's answer; in the reveal seat 1 is right, seat 3 wrong with
    "Klaxon -12": the page's positions and console line are the referee's."""
    from model.game import Game

    g = Game(4, qm=0)
    assert g.roll(5, 6, 1) == 561
    g.ask()
    g.answer()
    g.pass_()
    assert g.klaxon() == (3, 1)
    g.reveal([1], {3: 12})
    assert g.positions == [6, 3, 0, -12] and g.qm == 1
    rules = " ".join(text_of("docs/rules.md").split())
    assert "positions are now **6, 3, 0, −12**" in rules and "`at 6 3 0 -12`" in rules
    assert "seat 1 is the next QM" in rules


def _blocks(rel):
    """The lines of each plain ``` block of a page (indented in a list item or not)."""
    return [[line.strip() for line in b.splitlines() if line.strip()]
            for b in re.findall(r"```\n(.*?)```", text_of(rel), re.S)]


def test_the_first_power_on_check_is_true_on_every_build():
    """docs/first-power-on.md's presses on each real build's profile (the harness): the
    console lines the page shows, in its order, with the sounds it names; after a power
    cycle the saved game; the holds undo; then the test game is cleared (ended, and a new
    one set up) as its last step says. The version line is version.txt's, as the
    deploy writes it. (tests/test_first_power_on.py holds the build guide's lights.)"""
    import card
    import deploy
    import scenario
    from harness import Sim

    blocks = _blocks("docs/first-power-on.md")
    version, start = blocks[0][0], blocks[0][1:]
    assert deploy.VERSION_LINE.match(version) and version.startswith("QI Klaxon ")
    assert version == deploy.version_line("cpb", deploy.serves(10)).strip()  # (the deploy's)
    first = start + [b[0] for b in blocks[1:6]]
    assert first == ["new", "at 0 0 0 0", "klaxon sounded", "ask 0", "answer 1", "klaxon 2 1",
                     "refused this question already had its Klaxon"]
    hold = card.hold_ms("B held") + 300  # "about 2 seconds"
    assert 1500 < hold <= 2500
    long_hold = card.hold_ms("B held long") + 300  # "about 3½ seconds"
    assert 3000 < long_hold <= 3800
    with open(os.path.join(ROOT, "settings.example.toml")) as f:
        settings = f.read()
    for build in ("cpb", "cpx", "pico"):
        sim = Sim(settings, board_name=build)  # the example's 4 players, seat 0 the QM
        sim.play(scenario.taps("2000 klaxon 400\n4000 b\n6000 a\n8000 klaxon\n10000 klaxon\n"),
                 12000)
        assert [line.split(" ", 1)[1] for line in sim.canonical()] == first, build
        assert [n for _, n in sim.sounds()] == ["klaxon", "blip", "blip", "klaxon", "denied"]
        again = Sim(settings, board_name=build, nvm=sim.nvm)  # unplugged and plugged back in
        # the two undos; then the test game cleared: B held long ends it, B held long again
        # sets up a new one, B taps past its players and its first QM
        again.play(scenario.taps("2000 b %d\n5000 b %d\n9000 b %d\n14000 b %d\n19000 b\n"
                                 "21000 b\n" % (hold, hold, long_hold, long_hold)), 24000)
        said = [line.split(" ", 1)[1] for line in again.canonical()]
        assert said == blocks[6] + blocks[7] * 2 + blocks[8] + blocks[9] + blocks[10], build
        assert [n for _, n in again.sounds()] == ["undone", "undone", "done", "blip", "blip",
                                                  "done"], build
    only = Sim(settings, board_name="pico", klaxon_only=True)
    only.play(scenario.taps("1000 klaxon\n3000 klaxon\n"), 5000)
    assert [line.split(" ", 1)[1] for line in only.canonical()] == ["klaxon sounded"] * 2
    assert "`klaxon sounded`" in text_of("docs/first-power-on.md")


def test_the_release_workflow_makes_the_bundles_on_a_version_tag_and_attaches_them():
    flow = text_of(".github/workflows/release.yml")
    assert re.search(r"on:\n  push:\n    tags: \[\"v\*\"\]", flow)
    assert "run: python3 tools/dev.py bundle\n" in flow
    assert "v$(cat VERSION)" in flow  # the tag must be the firmware's version
    assert "gh release upload \"$GITHUB_REF_NAME\" dist/*.zip --clobber" in flow
    assert "contents: write" in flow
    with open(os.path.join(ROOT, ".gitignore")) as f:
        assert "/dist/" in f.read().split()


def test_the_drilling_template_prints_at_actual_size_with_the_guides_holes():
    """docs/drilling-template.svg is a page in millimetres (its width and height in mm, its
    units mm), fits A4 and US letter, carries a 100 mm bar to check the print, draws each
    of the build guide's button holes at its diameter, the 55 mm window and the leads'
    hole, every word at least 3 mm tall (8.5 pt) printed; the build guide links it."""
    import xml.etree.ElementTree as ET

    import pictures

    svg = ET.fromstring(text_of("docs/drilling-template.svg"))
    ns = "{http://www.w3.org/2000/svg}"
    w, h = float(svg.get("width")[:-2]), float(svg.get("height")[:-2])
    assert svg.get("width").endswith("mm") and svg.get("viewBox") == "0 0 %g %g" % (w, h)
    assert w <= 210 and h <= 279  # A4 is 210 wide, letter 279 tall
    radii = sorted(float(c.get("r")) for c in svg.iter(ns + "circle")
                   if c.get("stroke-dasharray") is None)
    for d in pictures.BUTTON_HOLES + (pictures.WINDOW, pictures.LEAD_HOLE):
        assert d / 2 in radii, d
    bar = [p.get("d") for p in svg.iter(ns + "path") if p.get("stroke-width") == "0.6"]
    assert len(bar) == 1 and re.fullmatch(r"M10 \S+H110", bar[0])  # 100 mm long
    for t in svg.iter(ns + "text"):
        assert float(t.get("font-size") or svg.get("font-size")) >= 3.0, t.text
    guide = " ".join(text_of("docs/build-guide.md").split())
    assert "(drilling-template.svg)" in guide and "at 100 %" in guide
    low, high = (int(n) for n in re.search(r"a (\d+) to \d+ mm hole\), most \*\*100 mm\*\* ones "
                                           r"about \d+ to \d+ mm \(a \d+ to (\d+) mm hole\)",
                                           guide).groups())
    assert (low, high) == (min(pictures.BUTTON_HOLES), max(pictures.BUTTON_HOLES))


# ------------------------------------------------------------------ the wiring pictures
def _svg_shapes(rel):
    """(the page's colour, [(kind, geometry, fill)] of the filled shapes, [(x, y, size,
    anchor, fill, words)] of the words), in drawing order, of a picture in docs/."""
    import xml.etree.ElementTree as ET

    svg = ET.fromstring(text_of(rel))
    base = float(svg.get("font-size"))
    shapes, words = [], []
    page = "#ffffff"
    for el in svg.iter():
        tag = el.tag.split("}")[1]
        fill = el.get("fill")
        if tag == "rect" and el.get("width") == "100%":
            page = fill
        elif tag == "rect" and fill not in (None, "none"):
            shapes.append(("rect", [float(el.get(k)) for k in ("x", "y", "width", "height")], fill))
        elif tag == "circle" and fill not in (None, "none"):
            shapes.append(("circle", [float(el.get(k)) for k in ("cx", "cy", "r")], fill))
        elif tag == "text":
            size = float(el.get("font-size") or base)
            words.append((float(el.get("x")), float(el.get("y")), size,
                          el.get("text-anchor") or "start", el.get("fill") or "#000",
                          "".join(el.itertext()), len(shapes)))
    return page, shapes, words


def _luminance(colour):
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(x * 2 for x in c)
    rgb = [int(c[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a, b):
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_wiring_pictures_are_readable_at_print_size():
    """Every word of the wiring pictures at least 12 px in a picture at most 980 px wide (8
    pt or more printed across a page) and 4.5 : 1 against what it is written on (WCAG's
    ratio for text), the board's pin labels too (no grey on green)."""
    for rel in ("docs/wiring-circuit-playground.svg", "docs/wiring-pico.svg"):
        page, shapes, words = _svg_shapes(rel)
        for x, y, size, anchor, fill, text, before in words:
            assert size >= 12, (rel, text)
            px = x + {"start": 2, "middle": 0, "end": -2}[anchor]
            py = y - size / 3
            under = page
            for kind, g, colour in shapes[:before]:  # the last one drawn under the word
                if kind == "rect" and g[0] <= px <= g[0] + g[2] and g[1] <= py <= g[1] + g[3] or \
                        kind == "circle" and (px - g[0]) ** 2 + (py - g[1]) ** 2 <= g[2] ** 2:
                    under = colour
            assert _contrast(fill, under) >= 4.5, (rel, text, fill, under)


def test_the_pico_picture_draws_each_pin_where_the_board_has_it_as_the_guide_numbers_them():
    """The Pico from above, USB at the top: pins 1 to 20 down the left edge, 21 to 40 up the
    right one (Raspberry Pi's pinout), each labelled with its number and name; every pin
    the build guide's table names is one the picture wires, with the table's name."""
    import pictures

    page, shapes, words = _svg_shapes("docs/wiring-pico.svg")
    labels = {}
    for x, y, size, anchor, fill, text, _ in words:
        m = re.fullmatch(r"(\d+) (\S+)|(\S+) (\d+)", text)
        if m and fill == "#fff":
            n, name = (int(m.group(1)), m.group(2)) if m.group(1) else (int(m.group(4)),
                                                                        m.group(3))
            labels[n] = (name, x, y)
    assert sorted(labels) == list(range(1, 41))
    assert [labels[n][0] for n in range(1, 41)] == list(pictures.PICO_PINS)
    left = [labels[n][1:] for n in range(1, 21)]
    right = [labels[n][1:] for n in range(21, 41)]
    assert len({x for x, _ in left}) == 1 and len({x for x, _ in right}) == 1
    assert left[0][0] < right[0][0]
    assert [y for _, y in left] == sorted(y for _, y in left)  # 1 at the top, going down
    assert [y for _, y in right] == sorted((y for _, y in right), reverse=True)  # 21 at the bottom
    assert (pictures.PICO_PINS[0], pictures.PICO_PINS[19], pictures.PICO_PINS[20],
            pictures.PICO_PINS[38]) == ("GP0", "GP15", "GP16", "VSYS")
    rows = re.findall(r"^\| (\d+) \| (\w+) \|", text_of("docs/build-guide.md"), re.M)
    assert len(rows) >= 10
    wired = {round(g[1]) for kind, g, colour in shapes if kind == "circle" and colour == "#e6b800"}
    for n, name in rows:
        assert pictures.PICO_PINS[int(n) - 1] == name, (n, name)
        assert round(labels[int(n)][2] - 4) in wired, (n, name)  # its hole drawn wired


def test_the_circuit_playground_picture_shows_the_tabs_and_the_battery_socket():
    """The button as the maker holds it: its microswitch's COM, NO and NC tabs, NO wired to
    pad A1 and COM to the GND pad beside it, NC to nothing; the battery pack's wires end
    at the board's battery socket."""
    import pictures

    svg = text_of("docs/wiring-circuit-playground.svg")
    _, tabs = pictures._arcade(*pictures.CP_KLAXON)
    lines = [[tuple(int(v) for v in p.split(",")) for p in m.split()]
             for m in re.findall(r'<polyline points="([^"]+)"', svg)]
    pads = {m.group(3): (int(m.group(1)), int(m.group(2))) for m in re.finditer(
        r'<circle cx="(\d+)" cy="(\d+)" r="13" fill="#e6b800"[^>]*/>\s*<text[^>]*>(\w+)<', svg)}
    assert sorted(pads) == ["A1", "GND"]
    ends = {(line[0], line[-1]) for line in lines}
    for tab, pad in (("NO", "A1"), ("COM", "GND")):
        assert any(a == tabs[tab] and abs(b[0] - pads[pad][0]) <= 14 and b[1] == pads[pad][1]
                   for a, b in ends), (tab, pad)
    assert not [a for a, _ in ends if a == tabs["NC"]]
    for name in ("COM", "NO", "NC", "battery socket (JST)", "NC: leave it empty"):
        assert ">%s<" % name in svg, name


def test_tests_readme_lists_every_test_file_once_under_a_behaviour():
    """tests/README.md, the index from a behaviour to its tests, cannot go stale: every
    tests/test_*.py is linked there exactly once, under a heading, and nothing else is."""
    with open(os.path.join(ROOT, "tests", "README.md"), encoding="utf-8") as f:
        text = f.read()
    linked = re.findall(r"^- \[`(test_\w+\.py)`\]\((test_\w+\.py)\): \S", text, re.M)
    assert all(a == b for a, b in linked), [a for a, b in linked if a != b]
    names = [a for a, _ in linked]
    on_disk = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "tests", "test_*.py")))
    assert sorted(set(names)) == on_disk, (sorted(set(on_disk) - set(names)),
                                           sorted(set(names) - set(on_disk)))
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    assert text.index("\n## ") < text.index("\n- [`test_")  # each under a behaviour's heading
