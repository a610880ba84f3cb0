"""QI Klaxon's game referee (host copy; the board imports ``qiklaxon`` as a namespace
package and carries no ``__init__``): core.py and its overlays undo.py, reveal.py,
entry.py and over.py run on the board; restore.py at its start-up; game.py is the readable API for
people and host tools: ``from qiklaxon.game import Game``."""


def __getattr__(name):
    """``from qiklaxon import Game`` on the host, without loading game.py for the core."""
    if name == "Game":
        from qiklaxon.game import Game

        return Game
    raise AttributeError(name)
