"""Pages that compile the same JAX programs run one after the other (specbook._sharing)."""

import importlib.util
import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from specbook import _sharing


def test_a_page_follows_the_longer_pages_that_use_most_of_its_programs_by_size():
    size = {"scan": 900, "sweep": 500, "add": 1, "ode": 40, "rk4": 40}.__getitem__
    pages = {
        "contact": (80.0, ["scan", "sweep", "add"]),
        "anomalies": (50.0, ["scan", "add", "ode"]),  # 900 of 941 bytes are the contact chapter's
        "ball": (30.0, ["add", "rk4"]),  # shares only a tiny program: runs whenever
        "note": (20.0, ["sweep", "scan"]),  # both its programs are contact's (anomalies uses one)
    }
    assert _sharing.followers(pages, size) == {"anomalies": ["contact"], "note": ["contact", "anomalies"]}


def test_a_page_never_follows_a_shorter_or_equal_one_nor_one_without_programs():
    pages = {"a": (10.0, ["p"]), "b": (10.0, ["p"]), "c": (5.0, [])}
    assert _sharing.followers(pages, lambda _: 1) == {}


names = st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=8, unique=True)


@settings(max_examples=200, deadline=None)
@given(names, st.dictionaries(st.sampled_from("abcdefgh"), st.floats(0, 100)),
       st.dictionaries(st.sampled_from("abcdefgh"), st.lists(st.sampled_from("abcdefgh"), max_size=3)))
def test_the_run_order_starts_every_page_once_and_each_leader_before_its_followers(pages, times, follows):
    order = _sharing.run_order(pages, times, follows)
    assert sorted(order) == sorted(pages)
    for page, leaders in follows.items():
        for leader in leaders:
            if page in pages and leader in pages and page not in follows.get(leader, ()) and leader != page:
                # without a cycle between the two, the leader starts first
                chain = {leader}
                frontier = [leader]
                while frontier:
                    for nxt in follows.get(frontier.pop(), ()):
                        if nxt not in chain:
                            chain.add(nxt)
                            frontier.append(nxt)
                if page not in chain:
                    assert order.index(leader) < order.index(page)


def test_pages_that_follow_none_start_longest_first_and_a_page_never_timed_as_a_typical_one():
    """Two kernels finish soonest when the longest runs start first; a page with no recorded time is
    placed at the mean of the known ones, and equal times keep the order given."""
    times = {"contact": 40.0, "ball": 5.0, "notes": 12.0, "reflection": 12.0}
    pages = ["ball", "notes", "new", "contact", "reflection"]  # "new": never timed, typical 17.25 s
    assert _sharing.run_order(pages, times, {}) == ["contact", "new", "notes", "reflection", "ball"]
    # a follower starts after its leader, even when it is longer
    assert _sharing.run_order(pages, times, {"contact": ["ball"]}) == ["new", "notes", "reflection", "ball",
                                                                      "contact"]


def test_store_weighs_programs_by_their_files_and_load_reads_it_back(tmp_path):
    cache = tmp_path / "jax_cache"
    cache.mkdir()
    (cache / "jit_scan-1-cache").write_bytes(b"x" * 1000)
    (cache / "jit_add-2-cache").write_bytes(b"x")
    records = {
        "book/contact.md": {"seconds": 80.04, "programs": ["jit_scan-1", "jit_add-2"]},
        "book/anomalies.md": {"seconds": 50.0, "programs": ["jit_scan-1", "jit_gone-3"]},
        "book/ball.md": {"seconds": 30.0, "programs": ["jit_add-2", "jit_ode-4"]},  # ode is gone: 1 byte
        "book/intro.md": {"seconds": 1.0},  # ran before programs were recorded
    }
    data = _sharing.store(tmp_path, records, cache)
    assert data["follows"] == {"book/anomalies.md": ["book/contact.md"], "book/ball.md": ["book/contact.md"]}
    written = json.loads((tmp_path / _sharing.SCHEDULE).read_text())
    assert written["seconds"]["book/contact.md"] == 80.0
    times, follows = _sharing.load(tmp_path)
    assert times == written["seconds"] and follows == data["follows"]
    assert _sharing.load(tmp_path / "nowhere") == ({}, {})


def test_the_kernel_recorder_names_the_programs_read_from_or_written_to_jaxs_cache(tmp_path, monkeypatch):
    path = os.path.join(os.path.dirname(_sharing.__file__), "_record.py")
    spec = importlib.util.spec_from_file_location("_record_under_test", path)
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    cache = tmp_path / "jax"
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(cache))
    monkeypatch.setitem(record._STATE, "programs", set())
    monkeypatch.setitem(record._STATE, "read", set())
    monkeypatch.setattr(record.sys, "addaudithook", lambda hook: None)  # the hook is called by hand below
    record.start(str(tmp_path))
    record._hook("open", (str(cache / "jit_scan-ab12-cache"), "rb", 0))
    record._hook("open", (cache / "jit_add-cd34-cache", "wb", 0))  # a write: compiled here
    record._hook("open", (str(cache / "jit_add-cd34-atime"), "wb", 0))  # JAX's access times: not a program
    record._hook("open", (str(tmp_path / "elsewhere-cache"), "rb", 0))
    assert json.loads(record.report())["programs"] == ["jit_add-cd34", "jit_scan-ab12"]
