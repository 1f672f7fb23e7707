"""A fault's page run whose kernel never came up is started again, not stored as the fault's verdict."""

from specbook.faults import _STARTS, _never_started


def test_a_kernel_that_died_before_the_first_cell_is_a_run_that_never_started():
    assert _never_started({"error": "RuntimeError: Kernel died before replying to kernel_info", "error_cell": None,
                           "used": {}})
    assert _STARTS >= 2


def test_a_page_that_failed_in_a_cell_or_recorded_its_modules_did_run():
    assert not _never_started({"error": "ZeroDivisionError", "error_cell": 0, "used": {"modules": ["src/a.py"]}})
    assert not _never_started({"error": "a late failure", "error_cell": None, "used": {"modules": ["src/a.py"]}})
    assert not _never_started({"error": None, "error_cell": None, "used": {}})
