"""Tests of the engine layer."""
