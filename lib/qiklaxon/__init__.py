"""QI Klaxon's game referee: the rules as a pure-Python value.

``from qiklaxon import Game`` (with ``lib/`` on the path, as on the board).
"""

from qiklaxon.game import Game

__version__ = "0.1.0"
