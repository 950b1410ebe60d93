"""Storage: autosaves of games in progress, the history of finished games, and statistics.

Everything here uses the standard library only (``json`` and ``sqlite3``).
The modules:

- ``snapshot``: a ``Game`` as a JSON-able ``Snapshot`` and back;
- ``atomic``: writing a file so that a crash leaves the old or the new one, never half;
- ``saves``: the save files of unfinished games, and the ``Autosaver`` observer;
- ``history``: the SQLite database of finished games, with every decision;
- ``stats``: figures per player name and per computer strength;
- ``problems``: the kinds of damage a stored file can have and how they are reported;
- ``commands``: what the command line's ``--resume``, ``saves`` and ``stats`` do.

The submodules are imported by name (``from yahtzee.storage.history import
load_history_game``) so that importing this package stays cheap.
"""
