"""The build relaxes Python's cyclic collector while it runs, and puts the thresholds back."""

import gc

import pytest

from specbook import _collector


class App:
    """The one method of a Sphinx application the collector uses."""

    def __init__(self):
        self.handlers = {}

    def connect(self, event, handler, priority=500):
        self.handlers[event] = handler


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)
    gc.unfreeze()


@pytest.mark.parametrize("exception", [None, RuntimeError("a failed build")])
def test_thresholds_hold_during_the_build_and_are_restored_after(thresholds, exception):
    app = App()
    _collector.relax_during_build(app)
    assert gc.get_threshold() == _collector.THRESHOLDS
    assert _collector.THRESHOLDS[0] > 700  # less eager than Python's default
    app.handlers["build-finished"](app, exception)
    assert gc.get_threshold() == (700, 10, 10)


def test_the_heap_is_frozen_when_the_build_finishes(thresholds):
    """The process's last collection then skips the build's objects (``gc.freeze``)."""
    gc.unfreeze()
    app = App()
    _collector.relax_during_build(app)
    assert gc.get_freeze_count() == 0
    app.handlers["build-finished"](app, None)
    assert gc.get_freeze_count() > 0


def test_the_extension_relaxes_the_collector_when_sphinx_loads_it(thresholds):
    from specbook import sphinxext

    app = App()
    app.add_node = app.add_directive = app.add_config_value = lambda *a, **k: None
    app.setup_extension = app.add_autodocumenter = lambda *a, **k: None
    sphinxext.setup(app)
    assert gc.get_threshold() == _collector.THRESHOLDS
