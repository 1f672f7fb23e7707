"""Fixtures shared by the tests of the claim mechanism."""

import pytest

import specbook
from specbook import _claims


@pytest.fixture
def fresh_claims():
    """No claim of an earlier test on record, before or after."""
    specbook.reset_claims()
    yield
    specbook.reset_claims()


@pytest.fixture
def glued(monkeypatch):
    """Capture what a claim glues, as a kernel would receive it."""
    seen = {}
    monkeypatch.setattr(_claims, "glue_raw", lambda key, value: seen.__setitem__(key, value))
    return seen
