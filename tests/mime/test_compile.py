"""MIME's programs compile under MIME's own XLA options, and only MIME's.

``mime._compile.jit`` passes ``COMPILER_OPTIONS`` with each program it compiles: no fusion is
handed to YNNPACK, whose float64 kernels are slower than XLA's own loops on MIME's small
arrays (``bench/contact_speed.py --xla-defaults``), and copy insertion asks XLA's region
analysis which of a region's buffers need a copy. The checks read the compiled program's
text: a fusion handed to YNNPACK is marked ``__ynn_fusion`` there, and each copy is a
``copy(`` instruction.

A check that reads a program MIME has just run lowers and compiles it again with the
arguments the run passed (``_spy``): JAX answers that from the executable the run compiled, so
the check reads the very program that ran and costs no second compilation. (The margin sweep's
program is read so in ``test_sweep_programs.py``, where it runs.)
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mime
from mime import _compile, demos
from mime.dynamics import REPORT_FIELDS, RigidState
from mime.geometry import Capsule, Sphere
from mime.nodes import ConstantLoad, RotatingFieldTorque, rigid

YNN = "__ynn_fusion"


def _held(hull, **kw):
    body = demos.make_body(hull, mass=1e-6, name="body", force=ConstantLoad((0.0, 0.0, -1e-5)), **kw)
    experiment = demos.attach(body, demos.FLOOR.surface)
    with jax.enable_x64(True):
        inputs = jax.tree_util.tree_map(jnp.asarray, experiment.build().step_inputs(body))
        start = jax.tree_util.tree_map(jnp.asarray, body.start)
    return inputs, start


def _starts(start, n):
    offsets = np.zeros((n, 3))
    offsets[:, 0] = np.linspace(0.0, 1e-3, n)
    return RigidState(jnp.asarray(np.asarray(start.position) + offsets),
                      *(jnp.broadcast_to(getattr(start, k), (n,) + getattr(start, k).shape) for k in RigidState.FIELDS[1:]))


@pytest.fixture(scope="module")
def capsule():
    # lying on the floor at the margin and tilted, so that the choice scans its samples and searches
    turn = (np.cos(0.3), 0.0, np.sin(0.3), 0.0)
    return _held(Capsule(radius=2.5e-4, length=1e-3), position=(0.0, 0.0, 6e-4), orientation=turn)


def _dot_program(**kw):
    """A small program with a dot and a reduction, compiled with ``kw`` (no MIME in it)."""
    with jax.enable_x64(True):
        a, b = jnp.ones((512, 3)), jnp.ones((3, 300))
        return jax.jit(lambda a, b: jnp.sum((a @ b) ** 2, axis=0), **kw).lower(a, b).compile().as_text()


def _loop_program(**kw):
    """A small loop with a branch, carrying two arrays it swaps, compiled with ``kw`` (no MIME in it)."""
    def f(a, b, k):
        def body(i, c):
            a, b = c
            a, b = jax.lax.cond(a[0] > i, lambda: (a + 1.0, b), lambda: (a, b * 2.0))
            return b[::-1], a
        return jax.lax.fori_loop(0, k, body, (a, b))

    return jax.jit(f, **kw).lower(jnp.ones(8), jnp.ones(8), 3).compile().as_text()


def _copies(text):
    return len(re.findall(r" copy\(", text))


def _spy(monkeypatch, module, name):
    """Replace ``module.name``, a compiled program, by one that records each call's arguments;
    returns ``(program, calls)``."""
    program, calls = getattr(module, name), []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return program(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return program, calls


def test_xla_here_hands_fusions_to_ynnpack_unless_told_not_to():
    """The control: this XLA hands a dot and its reduction to YNNPACK by default, and not under
    MIME's options, so the checks below can tell the two apart."""
    if YNN not in _dot_program():
        pytest.skip("this XLA hands no fusion to YNNPACK by default; the option changes nothing")
    assert YNN not in _dot_program(compiler_options=_compile.COMPILER_OPTIONS)


def _row_min_of_nan(**kw):
    """The least value of each row of a ``(20, 8, 48)`` array whose row ``[3, 2]`` holds a NaN, under
    ``jax.jit`` with ``kw``: NumPy's ``min`` gives NaN for that row."""
    with jax.enable_x64(True):
        g = np.linspace(-1.0, 1.0, 20 * 8 * 48).reshape(20, 8, 48)
        g[3, 2, 17] = np.nan
        return np.asarray(jax.jit(lambda a: jnp.min(a, axis=2), **kw)(jnp.asarray(g)))


def test_mimes_options_keep_a_nan_in_a_rows_least_value():
    """Under MIME's options a row's ``min`` is NaN where the row holds one, as NumPy's is."""
    assert np.isnan(_row_min_of_nan(compiler_options=_compile.COMPILER_OPTIONS)[3, 2])


@pytest.mark.xfail(strict=True, reason=(
    "jaxlib 0.10.2, XLA's default CPU options: a row min handed to YNNPACK gives the row's least "
    "finite value where the row holds a NaN (NumPy gives NaN). MIME's programs are compiled without "
    "YNNPACK, and the hold's nearest sample takes no min (mime.interactions._hold._row_least), so a "
    "caller's own jax.jit of MIME's step is not exposed; this pin tells when a JAX release mends it"))
def test_xla_defaults_keep_a_nan_in_a_rows_least_value():
    assert np.isnan(_row_min_of_nan()[3, 2])


def test_mimes_options_copy_less_in_loops_and_branches():
    """Under MIME's options a loop that carries arrays through a branch is compiled with fewer
    copies than under XLA's defaults, or under the YNNPACK option alone."""
    ynn_only = {k: v for k, v in _compile.COMPILER_OPTIONS.items() if "ynn" in k}
    assert _copies(_loop_program(compiler_options=_compile.COMPILER_OPTIONS)) < \
        _copies(_loop_program(compiler_options=ynn_only)) == _copies(_loop_program())


def test_run_scan_and_run_batch_compile_under_mimes_options(capsule, monkeypatch):
    inputs, start = capsule
    chunk, chunk_calls = _spy(monkeypatch, rigid, "_scan_chunk_program")
    batch, batch_calls = _spy(monkeypatch, rigid, "_run_batch")
    with jax.enable_x64(True):
        rigid.run_scan(inputs, start, demos.DT, 3)
        rigid.run_batch(inputs, _starts(start, 2), demos.DT, 2)
        (args, kwargs), = chunk_calls
        chunk_text = chunk.lower(*args, **kwargs).compile().as_text()
        (args, kwargs), = batch_calls
        batch_text = batch.lower(*args, **kwargs).compile().as_text()
    assert YNN not in chunk_text
    assert YNN not in batch_text


def test_the_options_are_the_programs_not_the_process(capsule):
    """A caller's own programs, compiled after MIME's, keep XLA's defaults: where this XLA hands
    a dot to YNNPACK by default it still does, and a loop through a branch keeps the copies that
    MIME's options take away."""
    inputs, start = capsule
    with jax.enable_x64(True):
        rigid.run_scan(inputs, start, demos.DT, 3)
        rigid.run_batch(inputs, _starts(start, 2), demos.DT, 2)
    mimes = _loop_program(compiler_options=_compile.COMPILER_OPTIONS)
    assert _copies(_loop_program()) > _copies(mimes)
    # this XLA hands the dot to YNNPACK by default (the control above); an XLA that could not even
    # when asked would make the check vacuous, so it is asked first
    asked = _dot_program(compiler_options={"xla_cpu_experimental_ynn_fusion_type": "LIBRARY_FUSION_TYPE_DOT"})
    assert YNN in asked
    assert YNN in _dot_program()


def test_run_scan_inside_a_callers_program_joins_it(capsule):
    """JAX refuses compiler options on a program staged into another, so a traced ``run_scan``
    takes the plain ``scan_chunk``: it runs, and agrees with the top-level run to rounding."""
    inputs, start = capsule
    with jax.enable_x64(True):
        top, _ = rigid.run_scan(inputs, start, demos.DT, 40)
        inner, _ = jax.jit(lambda i, s: rigid.run_scan(i, s, demos.DT, 40))(inputs, start)
    for k in RigidState.FIELDS:
        np.testing.assert_allclose(np.asarray(getattr(inner, k)), np.asarray(getattr(top, k)), rtol=1e-12, atol=1e-18)


def test_run_scan_from_a_later_step_number_is_that_part_of_the_run():
    """``first`` numbers the steps (step ``k`` at time ``k dt``): from the state after a run's 2nd step,
    taken as step 2, the steps are the run's own from there, to the bit. The capsule turns under a
    rotating field's torque, so a step's time matters: taken as step 0, they are not."""
    turn = (np.cos(0.3), 0.0, np.sin(0.3), 0.0)
    torque = RotatingFieldTorque(moment=(1e-9, 0.0, 0.0), field=5e-3, frequency=50.0, axis=(0.0, 0.0, 1.0))
    inputs, start = _held(Capsule(radius=2.5e-4, length=1e-3), position=(0.0, 0.0, 6e-4), orientation=turn,
                          torque=torque)
    with jax.enable_x64(True):
        whole, _ = rigid.run_scan(inputs, start, demos.DT, 5)
        after2 = jax.tree_util.tree_map(lambda a: a[1], whole)
        later, _ = rigid.run_scan(inputs, after2, demos.DT, 3, first=2)
        as_first, _ = rigid.run_scan(inputs, after2, demos.DT, 3)
        numpy_counts, _ = rigid.run_scan(inputs, after2, demos.DT, np.int64(3), first=np.int64(2))
    for k in RigidState.FIELDS:
        assert np.array_equal(np.asarray(getattr(later, k)), np.asarray(getattr(whole, k))[2:])
        assert np.array_equal(np.asarray(getattr(numpy_counts, k)), np.asarray(getattr(later, k)))
    assert not np.array_equal(np.asarray(as_first.angular_velocity), np.asarray(whole.angular_velocity)[2:])


def _entry(text):
    """The ENTRY computation of a compiled program's text."""
    entry = text[text.index("ENTRY"):]
    return entry[:entry.index("\n}")]


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="one_kernel tags the call on the CPU backend only")
def test_one_kernel_runs_the_chunk_as_one_tagged_call_near_the_default(capsule, monkeypatch):
    """With ``one_kernel`` the chunk's program holds its loop inside one call tagged for XLA's CPU backend
    to emit as one kernel (the default program runs the loop itself, kernel by kernel), and the steps are
    the default's to rounding. A caller's trace, compiled under the caller's options, is refused it."""
    inputs, start = capsule
    default, default_calls = _spy(monkeypatch, rigid, "_scan_chunk_program")
    fused, fused_calls = _spy(monkeypatch, rigid, "_scan_chunk_one_kernel_program")
    with jax.enable_x64(True):
        top, _ = rigid.run_scan(inputs, start, demos.DT, 40)
        one, _ = rigid.run_scan(inputs, start, demos.DT, 40, one_kernel=True)
        (args, kwargs), = default_calls
        default_entry = _entry(default.lower(*args, **kwargs).compile().as_text())
        (args, kwargs), = fused_calls
        fused_text = fused.lower(*args, **kwargs).compile().as_text()
        fused_entry = _entry(fused_text)
        with pytest.raises(mime.ValidationError, match=r"run_scan: one_kernel = True is not allowed; expected False "
                                                       r"inside a caller's trace"):
            jax.jit(lambda i, s: rigid.run_scan(i, s, demos.DT, 40, one_kernel=True))(inputs, start)
    assert "while(" in default_entry and "xla_cpu_small_call" not in default_entry
    tagged = [line for line in fused_entry.splitlines() if " call(" in line and 'xla_cpu_small_call="true"' in line]
    assert len(tagged) == 1 and "while(" not in fused_entry
    assert YNN not in fused_text
    for k in RigidState.FIELDS:  # to rounding, on the scale of each field's motion (a landing speed crosses zero)
        expected = np.asarray(getattr(top, k))
        np.testing.assert_allclose(np.asarray(getattr(one, k)), expected, rtol=0, atol=1e-12 * np.max(np.abs(expected)))


def test_one_kernel_leaves_the_call_untagged_off_the_cpu(monkeypatch):
    """On a backend other than the CPU the call is left as XLA would take it (inlined), untagged."""
    twice = lambda x: 2.0 * x  # noqa: E731
    tagged_text = _compile.jit(_compile.one_kernel(twice)).lower(jnp.arange(3.0)).compile().as_text()
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    plain_text = _compile.jit(_compile.one_kernel(twice)).lower(jnp.arange(3.0)).compile().as_text()
    assert "xla_cpu_small_call" in tagged_text and "xla_cpu_small_call" not in plain_text


def test_a_run_asked_for_one_kernel_runs_that_program_and_says_so(monkeypatch):
    body = demos.make_body(Sphere(4e-4), mass=1e-6, name="body", force=ConstantLoad((0.0, 0.0, -1e-5)),
                           position=(0.0, 0.0, 5e-4))
    experiment = demos.attach(body, demos.FLOOR.surface)
    _, default_calls = _spy(monkeypatch, rigid, "_scan_chunk_program")
    _, fused_calls = _spy(monkeypatch, rigid, "_scan_chunk_one_kernel_program")
    default = experiment.run(dt=demos.DT, steps=3)
    assert (len(default_calls), len(fused_calls)) == (1, 0)
    one = experiment.run(dt=demos.DT, steps=3, one_kernel=True)
    assert (len(default_calls), len(fused_calls)) == (1, 1)
    assert (default.one_kernel, one.one_kernel) == (False, True)
    position = default.states["position"]
    np.testing.assert_allclose(one.states["position"], position, rtol=0, atol=1e-12 * np.max(np.abs(position)))
    with pytest.raises(mime.ValidationError, match=r"simulate: one_kernel = 'yes' is not allowed; expected True or False"):
        experiment.run(dt=demos.DT, steps=3, one_kernel="yes")


def test_the_packed_outputs_unpack_to_each_field():
    """A step's outputs leave the scan packed, one vector per dtype, and come back to their fields: here
    float64 and bool leaves interleaved, of shapes () and (3,), over 5 steps."""
    steps = 5
    tree = (jnp.arange(3.0), jnp.array(True), jnp.array(2.5), jnp.array([False, True]), jnp.ones((3,)) * -1.0)
    like = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), tree)
    stacked = jax.tree_util.tree_map(lambda a: jnp.stack([a] * steps), rigid._pack(tree))
    back = rigid._unpack(stacked, like)
    for got, leaf in zip(jax.tree_util.tree_leaves(back), jax.tree_util.tree_leaves(tree)):
        assert got.dtype == leaf.dtype and got.shape == (steps,) + leaf.shape
        assert np.array_equal(np.asarray(got), np.stack([np.asarray(leaf)] * steps))


def test_run_scan_keeps_every_state_and_report_field_of_each_step(capsule):
    """Each field ``run_scan`` returns is that step's, as a loop of ``step_jit`` gives it (another program,
    compiled under XLA's defaults: to rounding), over steps where the tilted capsule lands and is held."""
    inputs, start = capsule
    steps = 12
    with jax.enable_x64(True):
        states, reports = rigid.run_scan(inputs, start, demos.DT, steps)
        state, looped = start, []
        for k in range(steps):
            state, report = rigid.step_jit(inputs, state, k * demos.DT, demos.DT)
            looped.append((state, report))
    assert np.any(np.asarray(reports.touching))  # the steps hold the capsule: the report's fields are not a free flight's
    for j, (state, report) in enumerate(looped):
        for name in RigidState.FIELDS:
            expected = np.asarray(getattr(state, name))
            np.testing.assert_allclose(np.asarray(getattr(states, name))[j], expected, rtol=1e-9, atol=1e-15)
        for name in REPORT_FIELDS:
            got, expected = np.asarray(getattr(reports, name))[j], np.asarray(getattr(report, name))
            if expected.dtype == bool:
                assert np.array_equal(got, expected), (j, name)
            else:
                np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-15, err_msg=f"step {j}, {name}")


def test_run_body_refuses_traced_arguments(capsule):
    from mime._simulate import run_body

    inputs, start = capsule
    with jax.enable_x64(True), pytest.raises(mime.ValidationError, match=r"run_body: state0 = '<traced>' is not allowed; "
                                                                         r"expected concrete arrays"):
        jax.jit(lambda s: run_body(inputs, s, demos.DT, 3).states.position)(start)


@pytest.mark.parametrize("hull", [Sphere(4e-4), Capsule(radius=2.5e-4, length=1e-3)], ids=["ball", "capsule"])
def test_run_batch_steps_each_start_as_run_scan_does(hull):
    """Each start of a batch ends where its own run ends: the ball dropped on to the floor, the
    capsule landing tilted. (A box sliding on an incline does not: its spin kicks, MIME-ANO-140,
    follow the last bits of a step's arithmetic, which a batched program may round otherwise.)"""
    turn = (1.0, 0.0, 0.0, 0.0) if isinstance(hull, Sphere) else (np.cos(0.5), 0.0, np.sin(0.5), 0.0)
    inputs, start = _held(hull, position=(0.0, 0.0, 1.2e-3), velocity=(0.0, 0.0, -0.1), orientation=turn)
    steps = 60
    with jax.enable_x64(True):
        starts = _starts(start, 2)
        final = rigid.run_batch(inputs, starts, demos.DT, steps)
        for i in range(2):
            alone, reports = rigid.run_scan(inputs, jax.tree_util.tree_map(lambda a: a[i], starts), demos.DT, steps)
            for k in RigidState.FIELDS:
                np.testing.assert_allclose(np.asarray(getattr(final, k))[i], np.asarray(getattr(alone, k))[-1],
                                           rtol=1e-12, atol=1e-18)
    assert np.asarray(reports.touching).any(), "the scenario never touched the floor"


def test_run_batch_of_no_steps_keeps_the_starts_and_traces(capsule):
    """No steps keep the starts; a traced count and a NumPy count run as a Python count does."""
    inputs, start = capsule
    with jax.enable_x64(True):
        starts = _starts(start, 2)
        same = rigid.run_batch(inputs, starts, demos.DT, 0)
        traced = jax.jit(lambda s, n: rigid.run_batch(inputs, s, demos.DT, n))(starts, 5)
        top = rigid.run_batch(inputs, starts, demos.DT, 5)
        numpy = rigid.run_batch(inputs, starts, demos.DT, np.int64(5))
    for k in RigidState.FIELDS:
        assert np.array_equal(np.asarray(getattr(same, k)), np.asarray(getattr(starts, k)))
        np.testing.assert_allclose(np.asarray(getattr(traced, k)), np.asarray(getattr(top, k)), rtol=1e-12, atol=1e-18)
        assert np.array_equal(np.asarray(getattr(numpy, k)), np.asarray(getattr(top, k)))


def test_run_batch_and_run_scan_refuse_what_they_cannot_run(capsule):
    inputs, start = capsule
    starts = _starts(start, 2)
    with pytest.raises(mime.ValidationError, match=r"run_batch: states = 'dict' is not allowed; expected a RigidState"):
        rigid.run_batch(inputs, starts.to_mapping(), demos.DT, 3)
    with pytest.raises(mime.ValidationError, match=r"run_batch: states = '<a RigidState of shapes \[\(3,\), \(4,\)"):
        rigid.run_batch(inputs, start, demos.DT, 3)
    with pytest.raises(mime.ValidationError, match=r"run_batch: steps = -1 is not allowed; expected a whole number of steps, at least 0"):
        rigid.run_batch(inputs, starts, demos.DT, -1)
    with pytest.raises(mime.ValidationError, match=r"run_batch: steps = 2.0 is not allowed; expected a whole number of steps"):
        rigid.run_batch(inputs, starts, demos.DT, 2.0)
    with pytest.raises(mime.ValidationError, match=r"run_batch: dt = 0.0 is not allowed"):
        rigid.run_batch(inputs, starts, 0.0, 3)
    with pytest.raises(mime.ValidationError, match=r"run_scan: steps = 0 is not allowed; expected a whole number of steps, at least 1"):
        rigid.run_scan(inputs, start, demos.DT, 0)
    with pytest.raises(mime.ValidationError, match=r"run_scan: first = -1 is not allowed; expected a whole number, the step number"):
        rigid.run_scan(inputs, start, demos.DT, 3, first=-1)
    with pytest.raises(mime.ValidationError, match=r"run_scan: first = 2.0 is not allowed"):
        rigid.run_scan(inputs, start, demos.DT, 3, first=2.0)
    with pytest.raises(mime.ValidationError, match=r"run_scan: one_kernel = 1 is not allowed; expected True or False"):
        rigid.run_scan(inputs, start, demos.DT, 3, one_kernel=1)
