"""The table card (tools/gen/card.py) is what the firmware does: every cell of it, every press
at every moment of the game, is played on the simulated board, with the hold the card
gives, and must make the event, the sound and the flash the card says; the same on the
one-button build with its ladder. The card's hold times are the firmware's, and so are its
colours and previews."""

import pytest

import card
from harness import Sim, klaxon_ms
from model import layout  # noqa: E402  (the slots' names)

# What a cell's words mean, as this test reads them: the console event the press makes
# (tools/simulated/events.py's name and fields), or None: nothing but a buzz. A card whose words
# change without this changing fails here, which is the point.
EVENTS = {
    "refused": None,
    card.POSITIONS_CELL: None,  # a buzz, and the ring shows every position (checked below)
    "challenge the last answer": ("klaxon", {"challenger": 2, "challenged": 1}),
    "roll the dice": ("roll", {}),
    "miss a go": ("miss_go", {}),
    "move a piece": ("seat", {}),
    "ask the question": ("ask", {}),
    "undo": ("undo", {}),
    "end the game": ("end", {}),
    "answer": ("answer", {}),
    "pass": ("pass", {}),
    "right": ("mark", {"right": True}),
    "wrong": ("mark", {"right": False}),
    "undo a mark": ("unmark", {}),
    "+1": ("count", {"count": 1}),
    "+10": ("count", {"count": 10}),
    "done (no penalty: B at once)": ("penalty", {"squares": 0}),
    "one less (at 0: unmark)": ("count", {"count": 0}),
    "next seat": ("seat", {}),
    "this one, back": (None, {}),  # no console line: the count opens (checked on the ring)
    "this one, forward": (None, {}),
    "no move": ("back", {}),
    "move it": ("move", {}),
    "one less (at 0: the seat again)": ("count", {"count": 0}),
    "one more": ("players", {"players": 5}),
    "next: its first QM": ("first_qm", {}),
    "one fewer (at 2: leave)": ("players", {"players": 3}),
    "leave the set-up": ("back", {}),
    "start the game": ("new_game", {}),
    "back to the players": ("back", {}),
    "undo the end": ("undo", {}),
    "set up a new game": ("players", {"players": 4}),
}
# ... where the same words make another event at another moment
EVENTS_AT = {("Its first QM", "next seat"): ("first_qm", {})}
SOUND_OF = {"klaxon": "klaxon", "denied": "denied", "blip": "blip", "done": "done",
            "undone": "undone"}


def words(cell):
    """A cell's words without its "(as a tap)" / "(as A held)" note."""
    for note in (card.AS_TAP, card.AS_HELD):
        cell = cell.replace(" " + note, "")
    return cell


class Table:
    """A 4-player table (QM seat 0) on the simulated board, two buttons or one."""

    def __init__(self, one_button=False):
        self.one = one_button
        self.sim = Sim('QK_PIN_B = "none"\n' if one_button else "", players=4)
        self.t = 100

    def press(self, press, gap=600):
        """``press`` (a card press: "A", "B held long", "Klaxon"…) as the card says to hold it;
        returns the records it made."""
        t0 = self.t
        if press == "Klaxon":
            self.sim.press("klaxon", self.t, 120)
            hold = 120
        else:
            hold = card.hold_ms(press, one_button=self.one) + 300 if card.hold_ms(
                press, one_button=self.one) else 120
            self.sim.press("a" if self.one else press[0].lower(), self.t, hold)
        self.t += hold + gap
        self.sim.run_until_ms(self.t)
        return [r for r in self.sim.records() if r[0] >= t0]

    def go(self, *presses):
        for p in presses:
            self.press(p)
        self.t += klaxon_ms() + 220  # a klaxon and any sound it held back are over
        self.sim.run_until_ms(self.t)


# How to reach each moment from power-on (4 players, QM seat 0), in card presses: a first
# question is played first wherever the game's first question matters (the Klaxon's try,
# B held long setting up rather than ending)
QUESTION = ("B", "A", "A", "A", "A", "A", "A")  # ask; seats 1-3 answer; all three right
REACH = {
    "Between questions": QUESTION,
    "Answering": ("B", "A"),  # seat 1 answered: seat 2's turn
    "The reveal": ("B", "A", "Klaxon"),  # seat 2 challenges seat 1: seat 1 is marked first
    "A Klaxon penalty": ("B", "A", "Klaxon", "B"),  # seat 1 (challenged) wrong
    "A piece to move": QUESTION + ("A held long",),
    "How far": QUESTION + ("A held long", "B"),
    "A game's players": QUESTION + ("B held long", "B held long"),  # ended, then set up
    "Its first QM": QUESTION + ("B held long", "B held long", "B"),
    "Game over": QUESTION + ("B held long",),
}
# ... and what a cell needs done first to show its meaning (something to take back)
BEFORE = {
    ("The reveal", "B held"): ("A",),  # seat 1 marked right: a mark to take back
    ("A Klaxon penalty", "B held"): ("A",),  # a count of 1 to take one off
    ("How far", "B held"): ("A",),
    ("How far", "B"): ("A",),  # one square: a move
}


def play_cell(moment, press, one_button=False):
    table = Table(one_button)
    table.go(*REACH[moment])
    table.go(*BEFORE.get((moment, press), ()))
    return table, table.press(press)


def check(moment, press, records, sim):
    cell, sound = dict((m[0], m[2]) for m in card.MOMENTS)[moment][press]
    want = EVENTS_AT.get((moment, words(cell)), EVENTS[words(cell)])
    events = [(n, f) for _, n, f in records if n != "sound"]
    sounds = [f["name"] for _, n, f in records if n == "sound"]
    assert sounds and sounds[0] == SOUND_OF[sound], (moment, press, records)
    if want is None:
        assert [n for n, _ in events] in ([], ["refused"]), (moment, press, events)
        shown = sim.device.f[layout.DICE] == layout.SEATS_SHOWN
        assert shown == (words(cell) == card.POSITIONS_CELL), (moment, press)
        return
    name, fields = want
    if name is None:
        assert not events, (moment, press, events)
        return
    assert events and events[0][0] == name, (moment, press, events)
    for k, v in fields.items():
        assert events[0][1][k] == v, (moment, press, events)


CELLS = [(m[0], p) for m in card.MOMENTS for p in card.PRESSES]
IDS = ["%s|%s" % c for c in CELLS]


@pytest.mark.parametrize("moment, press", CELLS, ids=IDS)
def test_every_cell_of_the_card_does_what_it_says(moment, press):
    table, records = play_cell(moment, press)
    check(moment, press, records, table.sim)


# On one button a longer press is the ladder's step: the cells that are a press of their
# own (not "as a tap"), held as the one-button note says
ONE_CELLS = [(m, p) for m, p in CELLS if p != "Klaxon" and words(dict(
    (x[0], x[2]) for x in card.MOMENTS)[m][p][0]) == dict((x[0], x[2]) for x in card.MOMENTS)[
    m][p][0]]


@pytest.mark.parametrize("moment, press", ONE_CELLS, ids=["%s|%s" % c for c in ONE_CELLS])
def test_the_one_button_build_does_the_same_held_as_its_ladder_says(moment, press):
    table, records = play_cell(moment, press, one_button=True)
    check(moment, press, records, table.sim)


@pytest.mark.parametrize("one_button", [False, True])
def test_the_cards_hold_times_are_the_firmwares_ladder(one_button):
    from hardware.settings import KEYS

    assert dict((k[0], k[1]) for k in KEYS)["QK_LONG_MS"] == card.LONG_MS
    assert dict((k[0], k[1]) for k in KEYS)["QK_STUCK_S"] == card.STUCK_S
    assert min(k[2] for k in KEYS if k[0] == "QK_LONG_MS") > card.TAP_MOST_MS
    sim = Sim('QK_PIN_B = "none"\n' if one_button else "", players=4)
    for io, up, keys, ms in sim.device.p[layout.BUT]:
        for step, key in enumerate(keys):
            press = [p for p, k in card.KEY.items() if k == key][0]
            assert ms[step] == card.hold_ms(press, one_button=one_button), press


def test_a_slow_tap_of_up_to_a_second_is_a_tap_at_every_moment():
    """No press let go within a second undoes, ends, skips or erases anything: held up to
    1 s it means what its tap means, in every moment of the card."""
    for moment, _, cells in card.MOMENTS:
        for press in ("A", "B"):
            table = Table()
            table.go(*REACH[moment])
            table.go(*BEFORE.get((moment, press), ()))
            t0 = table.t
            table.sim.press(press.lower(), t0, card.TAP_MOST_MS)
            table.t += card.TAP_MOST_MS + 600
            table.sim.run_until_ms(table.t)
            records = [r for r in table.sim.records() if r[0] >= t0]
            check(moment, press, records, table.sim)


@pytest.mark.parametrize("press", ["A held", "A held long", "B held", "B held long"])
def test_a_held_button_shows_what_letting_go_will_do_before_it_is_let_go(press):
    """Between questions after a question, every longer meaning shows on the ring in its
    preview colour once held long enough, and not before."""
    table = Table()
    table.go(*QUESTION)
    sim = table.sim
    hold = card.hold_ms(press)
    sim.press(press[0].lower(), table.t, hold + 300)
    sim.run_until_ms(table.t + hold - 100)
    before = set(sim.scene())
    sim.run_until_ms(table.t + hold + 100)
    colour, pattern = [(c, p) for name, c, p in card.PREVIEWS if name == press][0]
    want = (card.COLOURS[colour].split()[0], ("steady", "slow", "fast")[pattern])
    assert set(sim.scene()) == {want} != before


def test_the_card_names_every_colour_as_the_firmware_draws_it():
    import events

    for number, name in card.COLOURS.items():
        assert events.COLOUR_NAMES[number] == name.split()[0].replace("sky", "sky"), name
    import hardware.device as D

    assert (D._GREEN, D._WHITE, D._BLUE, D._VERMILLION) == (
        layout.GREEN, layout.WHITE, layout.BLUE, layout.VERMILLION)


@pytest.mark.parametrize("sound", ["done", "undone"])
def test_a_chime_comes_with_its_flash_on_the_ring(sound):
    """A press that moves a piece or takes something back flashes the ring in the card's
    colours while its chime sounds: the table can tell it from a plain blip."""
    table = Table()
    table.go(*QUESTION)
    press = "A" if sound == "done" else "B held"  # a roll; an undo of the reveal
    t0 = table.t
    hold = card.hold_ms(press) + 300 if card.hold_ms(press) else 120
    table.sim.press(press[0].lower(), t0, hold)
    table.sim.run_until_ms(t0 + hold + 60)
    colours = {c for c in table.sim.ring()}
    a, b = card.FLASHES[sound]
    assert colours <= {card.COLOURS[a].split()[0], card.COLOURS[b]} and len(colours) == 1
    assert table.sim.named("sound")[-1][1]["name"] == sound


def test_the_scripts_holds_are_the_cards():
    """tools/simulated/simboard/scenario.py's "held" and "long" (the lanes' scripts use them) are the
    card's holds, 0.3 s past each step, as a person holds past what the card says."""
    import scenario

    assert scenario.HOLDS == {"held": card.hold_ms("B held") + 300,
                              "long": card.hold_ms("B held long") + 300}


def test_the_printed_card_and_its_text_are_what_the_tables_make():
    """docs/card-*.svg and docs/card.md are tools/gen/card.py's, and the README's Play section is
    the card as text, between its markers."""
    import os

    from harness import ROOT

    for name, made in (("card-front.svg", card.svg_front()), ("card-back.svg", card.svg_back()),
                       ("card-notes.svg", card.svg_notes()), ("card.md", card.markdown())):
        with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
            assert f.read() == made, name
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert card.readme(readme) == readme


def test_the_card_speaks_of_no_console_and_names_every_moment_and_press():
    text = card.markdown() + card.svg_front() + card.svg_back() + card.svg_notes()
    for word in ("console", "serial", "settings.toml"):
        assert word not in text.lower(), word
    for name, _, cells in card.MOMENTS:
        assert set(cells) == set(card.PRESSES), name
        assert name in text
    for press in card.PRESSES:
        assert card.press_label(press) in text


def test_a_game_set_up_before_its_first_question_is_the_game_played():
    """The first game's players and QM are set at the table before its first question,
    without ending a game: the next question is that game's, and undo takes it back."""
    table = Table()
    table.go("B held long", "A", "A", "B", "A", "A", "B")  # 6 players, seat 2 the first QM
    game = table.sim.game
    assert (game.players, game.qm, game.phase) == (6, 2, "idle")
    assert not table.sim.named("end")
    table.go("B")
    assert table.sim.named("ask")[-1][1] == {"qm": 2} and table.sim.game.answering == 3
    table.go("B held", "B held")  # the question, then the set-up taken back
    assert (table.sim.game.players, table.sim.game.qm) == (4, 0)


# Each side's smallest type, printed (issue 31: a card read at arm's length): the front
# 10 pt, the back and the notes 8 pt, on letter and on A4 ("fit to page": 0.973)
LEAST_PT = {"card-front.svg": 10, "card-back.svg": 8, "card-notes.svg": 8}


@pytest.mark.parametrize("name", sorted(LEAST_PT))
def test_each_side_prints_its_smallest_type_at_least_at_its_size(name):
    import os
    import re

    from harness import ROOT

    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        svg = f.read()
    # (no text drawn scaled: the sizes are the printed ones; only the sounds' marks are)
    assert "scale(" not in re.sub(r"<g [^>]*>(?:(?!</g>).)*</g>", "", svg, flags=re.S)
    least = card.least_printed_pt(svg)
    assert least >= LEAST_PT[name], (name, least)


def test_the_card_uses_every_mark_it_defines():
    """The sounds' marks the card explains are the ones its cells carry ("(tick)" went)."""
    text = card.markdown()
    assert "(tick)" not in text
    used = {card._sound_mark(c[1]).strip() for _, _, cells in card.MOMENTS
            for c in cells.values()} - {""}
    line = [x for x in text.split("\n") if x.startswith("Sounds: ")][0]
    assert {m for m in ("✗", "↑", "↓") if m in line} == used


def test_the_ring_pictures_are_where_the_device_lights_each_seat():
    """The card's which-light-is-whose, for 2 to 10 players, is the device's: a game of n
    with seat s its QM lights the light the picture gives seat s (a Pico strip of 10,
    numbered clockwise from seat 0's light, as the pictures are)."""
    for n in range(2, 11):
        for s in range(n):
            sim = Sim("QK_PIXELS = 10\n", board_name="pico", players=n, qm=s)
            sim.run_until_ms(100)
            lit = [i for i, c in enumerate(sim.ring()) if c == "white"]
            assert [card.whose(n)[i] for i in lit] == [s], (n, s, lit)
