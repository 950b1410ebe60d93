"""The browser table: a small ASGI server (Starlette, uvicorn) and its page, on the same engine.

Imported only by ``python -m yahtzee serve``: the console game needs none
of the web packages.
"""
