"""Tests of the domain layer."""
