"""QI Klaxon's hardware side: build profiles and the drivers between game and pins."""
