"""The ``qiklaxon`` package on the host (lib/qiklaxon/__init__.py): ``from qiklaxon import
Game`` gives the readable API, and a name the package has not got is an AttributeError
that names it (what a host program's author reads)."""

import pytest


def test_from_qiklaxon_import_game_is_the_games_api():
    from qiklaxon import Game
    from qiklaxon.game import Game as TheGame

    assert Game is TheGame
    g = Game(3)
    g.ask()
    assert g.answering == 1


@pytest.mark.parametrize("name", ["Gmae", "game_over", "GAME", "Referee"])
def test_a_name_the_package_has_not_got_is_an_attribute_error_naming_it(name):
    import qiklaxon

    with pytest.raises(AttributeError, match="^%s$" % name):
        getattr(qiklaxon, name)
    with pytest.raises(ImportError, match=name):
        exec("from qiklaxon import %s" % name, {})
