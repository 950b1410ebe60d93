"""Layer 5, persistence: saves, the history of finished games, statistics and solver tables.

Standard library only (``json``, ``sqlite3``); files are written atomically,
and what is stored are records (``yahtzee.engine.records``), never live games.
The modules:

- ``paths``: where data and caches live; ``atomic``: all-or-nothing writes;
- ``snapshot``: a ``GameRecord`` as checked JSON-able data and back;
- ``saves``: the save files of unfinished games; ``locks``: one process per save at a time;
- ``history``: the SQLite database of finished games, with every decision;
- ``stats``: figures per player name and per computer strength, and histograms;
- ``tables``: the solver's table files in the cache folder;
- ``problems``: the kinds of damage a stored file can have and how they are reported.
"""
