"""Pytest configuration: the solver's session fixtures are available to every test module."""

pytest_plugins = ["tests.solver_fixtures"]
