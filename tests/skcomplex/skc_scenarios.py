"""Scenarios shared by the skcomplex tests, and an independent SciPy reference."""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from skcomplex import ContinuousSpace, PointElement, ReflectionInteraction, Simulation, System


def plane_guard(normal, offset):
    """g(x) = n . x - c (the point lives where g < 0)."""
    n = np.asarray(normal, dtype=float)
    return lambda s: s.target.x @ n - offset


def simulate(walls, dt, until, **states):
    ball = PointElement("ball", **states)
    system = System(elements=[ball], interactions=walls, space=ContinuousSpace(n_dim=int(np.size(states["x"]))))
    return Simulation(system, dt=dt).run(until=until)


def box_walls(restitution=1.0, low=0.0, high=1.0):
    """Four walls of the square [low, high]^2, each reflecting crossings outward (direction=+1)."""
    specs = {
        "left": ([-1.0, 0.0], -low),
        "right": ([1.0, 0.0], high),
        "bottom": ([0.0, -1.0], -low),
        "top": ([0.0, 1.0], high),
    }
    return [
        ReflectionInteraction(name, target="ball", guard=plane_guard(n, c), direction=1, restitution=restitution)
        for name, (n, c) in specs.items()
    ]


def scipy_bounces(walls, x0, v0, a, until, restitution):
    """Reference: solve_ivp (DOP853) with terminal, directional events, restarted after each reflection.

    ``walls`` is a list of ``(g, grad_g)`` NumPy functions of the position; each
    event is a crossing from g < 0 to g > 0. Returns the event times and the
    position and velocity just after each event.
    """
    a = np.asarray(a, dtype=float)
    d = len(x0)
    y = np.concatenate([x0, v0]).astype(float)
    t = 0.0
    times, positions, velocities = [], [], []

    def rhs(_t, y):
        return np.concatenate([y[d:], a])

    events = []
    for g, _ in walls:
        def event(_t, y, g=g):
            return g(y[:d])
        event.terminal = True
        event.direction = 1
        events.append(event)
    while t < until:
        sol = solve_ivp(rhs, (t, until), y, method="DOP853", events=events, rtol=1e-13, atol=1e-13)
        hit = [k for k, te in enumerate(sol.t_events) if te.size]
        if not hit:
            break
        k = min(hit, key=lambda k: sol.t_events[k][0])
        t = float(sol.t_events[k][0])
        y = sol.y_events[k][0].copy()
        n = walls[k][1](y[:d])
        v = y[d:]
        y[d:] = v - (1 + restitution) * (v @ n) / (n @ n) * n
        times.append(t)
        positions.append(y[:d].copy())
        velocities.append(y[d:].copy())
    return np.array(times), np.array(positions), np.array(velocities)
