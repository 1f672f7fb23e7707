"""The records maddening declares about itself: its anomalies and verification benchmarks.

Reference figures stated by the BallNode specification (``ball-node.md``) are kept
here once, with their source; pages and tests measure the live values and
compare them against these.
"""

from __future__ import annotations

from maddening import anomalies, verification
from maddening.nodes.ball import BallNode

_SPEC = "BallNode specification MADD-NODE-001, seed file ball-node.md"
_VER_TESTS = "tests/maddening/verification/test_mms_order_ode_nodes.py"
_NODE_TESTS = "tests/maddening/nodes"


def _order_now() -> float:
    from maddening.nodes.ball_evidence import ball_order_ladder

    return ball_order_ladder().finest


def _ano_011_now() -> dict[str, float]:
    from maddening.nodes.ball_evidence import one_step_difference

    d = one_step_difference()
    return {"position_difference": d["position_difference"], "velocity_difference": d["velocity_difference"]}


def _ano_021_now() -> dict[str, float]:
    """The per-step route's derivatives now; the exact ones are a closed form, stated, not measured."""
    from maddening.nodes.ball_evidence import drop_gradients

    g = drop_gradients(locate_contact=False)
    return {"dxdh_per_step": g["dxdh"], "dxdg_per_step": g["dxdg"]}


verification.register(
    verification.Benchmark(
        id="MADD-VER-010",
        verifies="maddening.nodes.ball.BallNode.meta.order.temporal",
        declared=BallNode.meta.order.temporal,
        measured_by=(
            "Manufactured solution x*(t) = 0.4 sin(2.5 t) + t + 2 on [0, 1] s, its acceleration injected "
            "as a time-varying gravity sampled at the start of each step; relative L2 error of position "
            "and velocity together at T = 1 s over 100/200/400/800 steps, float64; order of the finest pair"
        ),
        test_file=_VER_TESTS,
        tolerance=0.02,
        reference={"observed_order_finest": 1.002},
        source=_SPEC + ", Verification Evidence",
        measure=_order_now,
    )
)

anomalies.register(
    anomalies.Anomaly(
        id="MADD-ANO-011",
        title="BallNode's metadata names forward Euler; its update() is semi-implicit Euler",
        affects=("maddening.nodes.ball.BallNode.meta", "maddening.nodes.ball.BallNode.update"),
        status="open",
        resolved_in=None,
        pinned_by=f"{_VER_TESTS}::test_update_agrees_with_integrate_node_euler",
        figures={},
        summary=(
            "meta.discretization says forward Euler, but update() advances the position with the "
            "already-updated velocity. Both are first order, so the declared order holds, but update() "
            "and integrate_node(method='euler') differ by g dt^2 in position after one step."
        ),
        source=_SPEC,
        measure=_ano_011_now,
    )
)

anomalies.register(
    anomalies.Anomaly(
        id="MADD-ANO-013",
        title="Injected params did not merge over a node's own params (BallNode instance)",
        affects=("maddening.core.node.Node.resolve_params", "maddening.nodes.ball.BallNode.update"),
        status="resolved",
        resolved_in="0.4.0",
        pinned_by=f"{_NODE_TESTS}/test_ball_node.py::test_injected_params_merge_over_own",
        summary=(
            "Parameters injected into update() are now merged as {**self.params, **params}: an "
            "injected gravity is used, and every parameter not injected keeps the node's value."
        ),
        source=_SPEC,
    )
)

anomalies.register(
    anomalies.Anomaly(
        id="MADD-ANO-018",
        title="An injected parameter changed the dtype of the state it was added to",
        affects=("maddening.core.node.as_state_dtype", "maddening.nodes.ball.BallNode.derivatives"),
        status="resolved",
        resolved_in="0.4.0",
        pinned_by=f"{_NODE_TESTS}/test_ball_node.py::test_injected_value_keeps_state_dtype",
        summary=(
            "update() and derivatives() read injected parameters by the same merge rule and add them "
            "in the state's dtype, so a float64 gravity no longer promotes a float32 state."
        ),
        source=_SPEC,
    )
)

anomalies.register(
    anomalies.Anomaly(
        id="MADD-ANO-021",
        title="Gradients through a per-step contact miss the derivative of the contact time",
        affects=("maddening.nodes.ball.BallNode.update", "maddening.core.Node"),
        status="open",
        resolved_in=None,
        pinned_by=f"{_NODE_TESTS}/test_ball_event_gradient.py::test_per_step_contact_gradient_matches_the_exact_derivative",
        figures={
            "dxdh_per_step": 0.0,
            "dxdg_per_step": 0.0651,
            "dxdh_exact": 0.5892,
            "dxdg_exact": 0.0051,
            "one_step_of_travel": 3e-3,
        },
        summary=(
            "Contact is a branch taken once per step, so jax.grad differentiates the branch and never "
            "the moment of contact. For a drop from 1 m with dt = 0.001 s observed at T = 0.8 s after "
            "one bounce, dx(T)/dh is 0 and dx(T)/d|g| is far from the exact value; dx(T)/de is right. "
            "Nothing warns. Every node that branches on its own state shares it; "
            "BallNode(locate_contact=True) is the route around it."
        ),
        source=_SPEC + ", Known Limitations 7",
        measure=_ano_021_now,
        tolerance=5e-5,
    )
)
