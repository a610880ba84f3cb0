"""The ``model`` package on the host (model/__init__.py): ``from model import
Game`` gives the readable API, and a name the package has not got is an AttributeError
that names it (what a host program's author reads)."""

import pytest


def test_from_model_import_game_is_the_games_api():
    from model import Game
    from model.game import Game as TheGame

    assert Game is TheGame
    g = Game(3)
    g.ask()
    assert g.answering == 1


@pytest.mark.parametrize("name", ["Gmae", "game_over", "GAME", "Referee"])
def test_a_name_the_package_has_not_got_is_an_attribute_error_naming_it(name):
    import model

    with pytest.raises(AttributeError, match="^%s$" % name):
        getattr(model, name)
    with pytest.raises(ImportError, match=name):
        exec("from model import %s" % name, {})
