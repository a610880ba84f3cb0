"""QI Klaxon's model of the game on the host (never deployed: the board's code is lib/ and
hardware/). layout.py is the one source of the names: the builds, every state slot, op
code, colour and setting (tools/gen/consts.py makes each device module's const block from
it); game.py is the readable API of the rules, the board's referee (lib/qiklaxon/core.py)
with names and sentences, for people and host tools: ``from model import Game``."""


def __getattr__(name):
    """``from model import Game`` on the host, without loading game.py for the layout."""
    if name == "Game":
        from model.game import Game

        return Game
    raise AttributeError(name)
