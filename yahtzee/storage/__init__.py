"""Layer 5, persistence: saves, the history of finished games, statistics and solver tables.

The default back end is the standard library's (``json``, ``sqlite3``); files
are written atomically, and what is stored are records
(``yahtzee.engine.records``), never live games.  The modules:

- ``port``: the storage port, ``open_storage`` and the stores' protocols;
  ``files``: the default back end (the save files and the SQLite history);
  ``postgres``: the PostgreSQL back end (psycopg 3, imported only for it);
- ``paths``: where data and caches live; ``atomic``: all-or-nothing writes;
- ``snapshot``: a ``GameRecord`` as checked JSON-able data and back;
- ``saves``: the save files of unfinished games; ``locks``: one process per save at a time;
- ``history``: the SQLite database of finished games, with every decision;
- ``stats``: figures per player name and per computer strength, and histograms;
- ``tables``: the solver's table files in the cache folder;
- ``problems``: the kinds of damage a stored file can have and how they are reported.
"""
