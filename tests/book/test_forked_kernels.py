"""Kernels forked from a kernel server behave as kernels started afresh, and none outlives its run.

The fault catalogue runs each page in a kernel forked from a process that has imported JAX, SciPy
and matplotlib already (``specbook._kernels``). These tests run small pages through
``specbook.execute.run_page`` with and without the server and compare what the page sees: its
environment, working folder and import path (a fault's patched copy of ``src/`` first), how a
dying or hanging cell is reported, and that no kernel is left running afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from _pages import FRONT
from specbook._kernels import PRELOAD, KernelServer
from specbook.execute import run_page

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

PROBE = FRONT + textwrap.dedent('''
    # Probe

    ```{code-cell} ipython3
    import json, os, sys
    from ipykernel.connect import get_connection_info
    seen = {"scipy_already": "scipy" in sys.modules, "cwd": os.getcwd(),
            "probe": os.environ.get("SPECBOOK_PROBE"), "ppid": os.getppid(),
            "transport": json.loads(get_connection_info())["transport"]}
    ```

    ```{code-cell} ipython3
    import probe
    seen["module"] = probe.WHERE
    print(json.dumps(seen))
    ```

    ```{code-cell} ipython3
    import matplotlib.pyplot as plt
    plt.plot([0.0, 1.0], [1.0, 0.0]);
    ```
    ''')


def _page(folder, name: str, cells: str) -> os.PathLike:
    page = folder / "book" / f"{name}.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(FRONT + textwrap.dedent(cells))
    shutil.copy(ROOT / "_config.yml", folder / "_config.yml")
    return page


@pytest.fixture(scope="module")
def server():
    with KernelServer() as running:
        assert running.path is not None, running.why
        yield running


@pytest.fixture()
def project(tmp_path):
    """A root with the probe page and a module ``probe`` in a folder of its own (a fault's copy of src/)."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "probe.md").write_text(PROBE)
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    copy = tmp_path / "patched"
    copy.mkdir()
    (copy / "probe.py").write_text("WHERE = 'the patched copy'\n")
    environ = dict(os.environ, SPECBOOK_PROBE="given", PYTHONPATH=str(copy))
    return tmp_path, environ


def _seen(result) -> dict:
    import nbformat

    assert result["error"] is None, result["error"]
    cells = [c for c in nbformat.reads(result["notebook"], 4).cells if c.cell_type == "code"]
    seen = json.loads("".join(o.get("text", "") for o in cells[1].outputs))
    # a figure left open at a cell's end is shown, as matplotlib's inline backend does in any kernel
    seen["figure_shown"] = any("image/png" in o.get("data", {}) for o in cells[2].outputs)
    return seen


def test_a_forked_kernel_sees_the_environment_folder_and_path_it_was_given(server, project):
    root, environ = project
    forked = _seen(run_page(root / "book" / "probe.md", root, environ=environ, kernel_server=server.path))
    fresh = _seen(run_page(root / "book" / "probe.md", root, environ=environ))
    assert forked["scipy_already"] and not fresh["scipy_already"]  # the first was forked, the second was not
    for seen in (forked, fresh):
        assert seen["figure_shown"]
        assert seen["cwd"] == str(root / "book")
        assert seen["probe"] == "given"
        assert seen["module"] == "the patched copy"
        assert seen["transport"] == "ipc"  # Unix sockets of its own: no TCP port to lose to another process
    assert forked["ppid"] == server.pid


UNDER_NBVAL = FRONT + textwrap.dedent('''
    # Under nbval

    ```{code-cell} ipython3
    import json, sys
    from ipykernel.connect import get_connection_info
    assert "scipy" in sys.modules, "a kernel started afresh: SciPy was not imported before the first cell"
    assert json.loads(get_connection_info())["transport"] == "ipc"
    ```
    ''')


def test_a_page_under_pytest_runs_in_a_forked_kernel_over_unix_sockets(tmp_path):
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "page.md").write_text(UNDER_NBVAL)
    environ = {k: v for k, v in os.environ.items() if k != "SPECBOOK_FORK_KERNELS"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-current-env",
                           "--rootdir", str(tmp_path), str(tmp_path / "page.md")],
                          cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


def test_a_setting_jax_reads_at_import_gets_a_kernel_started_afresh(server, project):
    root, environ = project
    environ["JAX_ENABLE_X64"] = "0" if os.environ.get("JAX_ENABLE_X64") == "1" else "1"
    seen = _seen(run_page(root / "book" / "probe.md", root, environ=environ, kernel_server=server.path))
    assert not seen["scipy_already"] and seen["module"] == "the patched copy"


def test_an_unreachable_server_gets_a_kernel_started_afresh(project):
    root, environ = project
    seen = _seen(run_page(root / "book" / "probe.md", root, environ=environ,
                          kernel_server=str(root / "no-server-here")))
    assert not seen["scipy_already"] and seen["module"] == "the patched copy"


def _children_end(server, within: float = 5.0) -> list:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = [p for p in psutil.Process(server.pid).children() if p.status() != psutil.STATUS_ZOMBIE]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def test_a_kernel_that_exits_fails_naming_the_cell_and_is_gone(server, tmp_path):
    page = _page(tmp_path, "dies", '''
        # Dies

        ```{code-cell} ipython3
        x = 1
        ```

        ```{code-cell} ipython3
        import os
        os._exit(3)
        ```
        ''')
    result = run_page(page, tmp_path, kernel_server=server.path)
    assert result["error"] is not None
    assert "book/dies.md" in result["error"] and "cell 2" in result["error"].lower()
    assert _children_end(server) == []


def test_a_hanging_cell_fails_at_the_timeout_and_leaves_no_kernel(server, tmp_path):
    page = _page(tmp_path, "hangs", '''
        # Hangs

        ```{code-cell} ipython3
        import time
        time.sleep(120)
        ```
        ''')
    start = time.monotonic()
    result = run_page(page, tmp_path, timeout=3, kernel_server=server.path)
    assert result["error"] is not None and "book/hangs.md" in result["error"]
    assert time.monotonic() - start < 60
    assert _children_end(server) == []


def test_an_interrupt_reaches_a_forked_kernel(server):
    import asyncio

    from specbook._kernels import manager_class

    async def interrupted() -> dict:
        manager = manager_class(server.path)(kernel_name="python3")
        await manager.start_kernel(extra_arguments=["--IPKernelApp.log_level=ERROR"])
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            msg_id = client.execute("import time\nfor _ in range(600):\n    time.sleep(0.1)")
            await asyncio.sleep(1.0)
            await manager.interrupt_kernel()
            while True:
                reply = await client.get_shell_msg(timeout=30)
                if reply["parent_header"].get("msg_id") == msg_id:
                    return reply["content"]
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)

    content = asyncio.run(interrupted())
    assert content["status"] == "error" and content["ename"] == "KeyboardInterrupt"
    assert _children_end(server) == []


def test_a_server_that_cannot_import_its_modules_is_not_used_and_says_why():
    with KernelServer(("no_such_module_for_specbook",), wait=30) as broken:
        assert broken.path is None
        assert "did not start" in broken.why


def test_the_server_ends_with_its_block():
    with KernelServer(("json",)) as running:
        pid = running.pid
        assert psutil.pid_exists(pid)
    deadline = time.monotonic() + 5
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the server outlived its block"
        time.sleep(0.05)


def test_the_server_preloads_no_project_code():
    assert not {name.partition(".")[0] for name in PRELOAD} & {"specbook", "maddening", "mime", "skcomplex"}
