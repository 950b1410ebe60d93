"""Tests of the interfaces layer."""
