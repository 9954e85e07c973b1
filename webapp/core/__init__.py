"""The Flask-free core: a game in play, the catalog, pictures, playback and level lookup.

Services here take their arguments (a store, a player) and never read a request."""
