"""Tests of the app layer."""
