"""The book's fault catalogue: the plausible bugs its claims are proven to catch.

Each :class:`~specbook.faults.Fault` patches the real code by a line of text found by what it
says, not by its line number, so that a refactoring which keeps the code's meaning keeps the
fault applicable (a patch whose text is gone fails the catalogue with a clear message, and is
then rewritten against the new code). ``python -m specbook.faults`` runs them all; the page
``book/testing.md`` renders this list.

A fault's targets are the pages whose claims measure the patched code, and the tests that
hold the behaviour where no page does yet; ``caught_by`` names the first claim of each page
(the page stops there) and the failing test ids.
"""

from __future__ import annotations

from specbook._faults import Fault, Patch

__all__ = ["FAULTS"]

BALL = "book/maddening/ball.md"
REFLECTION = "book/skcomplex/reflection.md"
NOTE = "book/notes/contact-mode-stability.md"
NOTE_MODES = "book/notes/coupled-modes.md"
NOTE_PENALTY = "book/notes/penalty-checks.md"
CONTACT_HOLD = "book/mime/contact-hold.md"
REGISTRY = "book/mime/registry.md"
CONTACT_010 = "book/mime/contact-0-1-0.md"
AUTHORING = "book/authoring.md"
VELOCITY_RULE = "tests/mime/interactions/test_velocity_rule.py"

_BALL = "maddening/nodes/ball.py"
_EVENTS = "skcomplex/engine/events.py"
_REFLECT = "skcomplex/models/physics/common/mechanics/_reflection.py"
_SCHEMES = "maddening/core/simulation/_second_order_schemes.py"
_MODES = "maddening/analysis/contact_modes.py"
_BUILD = "mime/interactions/_build.py"
_HOLD = "mime/interactions/_hold.py"
_CONTACT = "mime/interactions/contact.py"

FAULTS: tuple[Fault, ...] = (
    # -- the ball ---------------------------------------------------------------------------------
    Fault("ball_declared_order_2", "ball",
          "BallNode declares temporal order 2 for its first-order step.",
          (Patch(_BALL, "order=DiscretizationOrder(spatial=None, temporal=1.0)",
                 "order=DiscretizationOrder(spatial=None, temporal=2.0)"),),
          ("book/maddening/verification.md",), ("verification_madd_ver_010",)),
    Fault("ball_position_from_old_velocity", "ball",
          "The step moves the position with the old velocity: forward Euler, not the semi-implicit scheme.",
          (Patch(_BALL, "x_new = x + v_new * h", "x_new = x + v * h"),),
          (BALL,), ("ball_ano011_step_difference",)),
    Fault("ball_located_restitution_sqrt", "ball",
          "Located contact rebounds at sqrt(e) times the impact speed (a restitution law on energy, not velocity).",
          (Patch(_BALL, "jnp.where(slow, jnp.zeros_like(v_in), -e * v_in)",
                 "jnp.where(slow, jnp.zeros_like(v_in), -jnp.sqrt(e) * v_in)"),),
          (BALL,), ("ball_sweep_located_ratio_is_e2",)),
    Fault("ball_threshold_dropped", "ball",
          "The per-step contact never zeroes a slow impact: the contact-speed threshold is dropped.",
          (Patch(_BALL, "slow = jnp.abs(v_new) <= self.CONTACT_SPEED_THRESHOLD", "slow = jnp.abs(v_new) < 0.0"),),
          (BALL,), ("ball_threshold_stops_slow_impact",)),
    Fault("ball_contact_time_halved", "ball",
          "The located contact time drops the factor 2 of s = 2d / (-v + sqrt(D)).",
          (Patch(_BALL, "s_fall = 2 * d / jnp.where(den_fall > 0, den_fall, 1.0)",
                 "s_fall = d / jnp.where(den_fall > 0, den_fall, 1.0)"),),
          (BALL,), ("ball_sweep_located_ratio_is_e2",)),
    Fault("ball_reflects_start_velocity", "ball",
          "The per-step contact reflects the velocity the step started with, not the one it ended with.",
          (Patch(_BALL, "bounced = jnp.where(slow, jnp.zeros_like(v_new), -e * v_new)",
                 "bounced = jnp.where(slow, jnp.zeros_like(v_new), -e * v)"),),
          (BALL,), ("ball_per_step_dxdg_as_recorded",)),
    # -- the reflection ---------------------------------------------------------------------------
    Fault("reflection_restitution_squared", "reflection",
          "The reflection scales the normal velocity by e squared (1 + e^2 in the law).",
          (Patch(_REFLECT, "velocity - (1.0 + restitution) * jnp.dot", "velocity - (1.0 + restitution**2) * jnp.dot"),),
          (REFLECTION,), ("reflection_law_closed_form",)),
    Fault("reflection_normal_length", "reflection",
          "The law divides by |n| instead of |n|^2: right for a unit normal only.",
          (Patch(_REFLECT, "jnp.dot(velocity, normal) / jnp.dot(normal, normal) * normal",
                 "jnp.dot(velocity, normal) / jnp.sqrt(jnp.dot(normal, normal)) * normal"),),
          (REFLECTION,), ("reflection_law_closed_form",)),
    Fault("events_one_newton_iteration", "reflection",
          "The event finder stops after one safeguarded Newton iteration instead of six.",
          (Patch(_EVENTS, "DEFAULT_ITERATIONS = 6", "DEFAULT_ITERATIONS = 1"),),
          (REFLECTION,), ("event_time_error_max",)),
    Fault("events_no_implicit_gradient", "reflection",
          "The last, traced Newton step is dropped: the event time carries no implicit derivative.",
          (Patch(_EVENTS, "polished = tau - correction", "polished = tau - lax.stop_gradient(correction)"),),
          (REFLECTION,), ("grad_line_x0",)),
    Fault("reflection_region_ignored", "reflection",
          "The wall's region is never consulted: the whole surface reflects.",
          (Patch(_REFLECT, "        if self.region is None:\n            return jnp.asarray(True)",
                 "        if self.region is None or True:\n            return jnp.asarray(True)"),),
          (REFLECTION,), ("region_outside_passes",)),
    Fault("events_direction_zero_wrong_side", "reflection",
          "With direction=0 the finder searches from the side the point is not on.",
          (Patch(_EVENTS, "        sign = -side\n", "        sign = side\n"),),
          (REFLECTION,), ("direction_0_from_right",)),
    Fault("events_start_on_wall_unseen", "reflection",
          "A point that starts exactly on the wall is not recognised as on it: with direction=0 it has no side.",
          (Patch(_EVENTS, "on_wall = jnp.asarray(on_wall) | (g0 == 0)", "on_wall = jnp.asarray(on_wall)"),),
          (REFLECTION,), ("direction_0_start_on_wall",)),
    # -- the contact -------------------------------------------------------------------------------
    Fault("contact_040_holds_centre", "contact",
          "Contact 0.4.0 builds 0.1.0's centre hold instead of holding the hull.",
          (Patch(_CONTACT, "return build_confinement(\n            margin=margin, spacing=spacing_m, rule=values[\"rule\"], "
                           "body=body, surface=surface\n        )",
                 "from mime.interactions._centre import build_centre_confinement\n\n        "
                 "return build_centre_confinement(margin=margin, rule=values[\"rule\"], body=body, surface=surface)"),),
          (CONTACT_HOLD,), ("narrow_tube_040_keeps_margin",)),
    Fault("contact_rule_elastic", "contact",
          "The velocity rule becomes elastic: a point that would pass the margin must leave at its approach speed.",
          (Patch(_HOLD, "    target = -jnp.maximum(A.gap, 0.0) / dt\n    active = jnp.isfinite(A.gap)\n    lam, u, last",
                 "    target = -jnp.maximum(A.gap, 0.0) / dt\n    target = jnp.where(u_free < target, -u_free, target)\n"
                 "    active = jnp.isfinite(A.gap)\n"
                 "    lam, u, last"),),
          (VELOCITY_RULE, CONTACT_010),
          (f"{VELOCITY_RULE}::test_a_sphere_landing_keeps_its_slide_and_loses_its_fall[0.4.0]",
           "contact_0_1_0_rule_inelastic")),
    Fault("contact_rule_frictional", "contact",
          "The velocity rule gains Coulomb friction (mu = 0.5): the normal impulse also brakes the sliding.",
          (Patch(_HOLD, "v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me, v_free)",
                 "v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me - 0.5 * jnp.sum(lam) * inv_me "
                 "* v_free.at[2].set(0.0) / (jnp.linalg.norm(v_free.at[2].set(0.0)) + 1e-30), v_free)"),),
          (VELOCITY_RULE, CONTACT_010),
          (f"{VELOCITY_RULE}::test_a_sphere_landing_keeps_its_slide_and_loses_its_fall[0.4.0]",
           "contact_0_1_0_rule_frictionless")),
    # -- the stability note -------------------------------------------------------------------------
    Fault("cd_kicks_with_old_acceleration", "stability note",
          "Central differences give both half kicks the old acceleration.",
          (Patch(_SCHEMES, "new.update({r: _step(mid[r], second[r], half) for r in rates})",
                 "new.update({r: _step(mid[r], first[r], half) for r in rates})"),),
          (NOTE,), ("cms_formula_cd_magnitude_inside",)),
    Fault("trapezoidal_is_backward_euler", "stability note",
          "The trapezoidal rule weights the new right-hand side fully: it is backward Euler.",
          (Patch(_SCHEMES, "return _implicit(node, state, boundary_inputs, dt, params, theta=0.5)",
                 "return _implicit(node, state, boundary_inputs, dt, params, theta=1.0)"),),
          (NOTE,), ("cms_formula_tr_magnitude",)),
    Fault("delassus_total_mass", "stability note",
          "The Delassus matrix uses the body's mass alone for M (the rotation's inertia is lost).",
          (Patch(_MODES, "A = Jm @ np.linalg.solve(Mm, Jm.T)", "A = Jm @ Jm.T / Mm[0, 0]"),),
          (NOTE_MODES,), ("cms_bar_A_diagonal",)),
    Fault("coupled_modes_unsymmetrised", "stability note",
          "The modes are taken from A K, symmetrised, instead of K^1/2 A K^1/2: right for equal stiffnesses only.",
          (Patch(_MODES, "S = root[:, None] * A * root[None, :]", "S = A * (root * root)[None, :]"),),
          (NOTE_MODES,), ("cms_uneq_similar",)),
    Fault("critical_step_lowest_mode", "stability note",
          "The critical step is taken from the lowest coupled mode instead of the highest.",
          (Patch(_MODES, "return limit / modes.highest", "return limit / modes.frequencies[0]"),),
          (NOTE_MODES,), ("cms_bar_critical_step",)),
    Fault("effective_mass_full_mass", "stability note",
          "The effective mass keeps only the translation: the full mass, whatever the contact's offset.",
          (Patch(_MODES, "a = float(delassus(Jm, M)[0, 0])", "a = float(delassus(Jm[:, :1], np.asarray(M)[:1, :1])[0, 0])"),),
          (NOTE_MODES,), ("cms_bar_omega_independent",)),
    Fault("reduced_mass_wall_halved", "stability note",
          "Against a wall the reduced mass treats the wall as a second equal particle.",
          (Patch(_MODES, "    if math.isinf(m2):\n        return float(m1)", "    if math.isinf(m2):\n        return float(m1) / 2"),),
          (NOTE_MODES,), ("cms_reduced_mass_wall",)),
    Fault("penalty_half_stiffness", "stability note",
          "The penalty force is half the spring's (k/2 times the overlap, as in the energy).",
          (Patch("mime/interactions/_penalty.py", "spring = stiffness * overlap - damping * gap_rate",
                 "spring = 0.5 * stiffness * overlap - damping * gap_rate"),),
          (NOTE_PENALTY,), ("cms_check_translation",)),
    # -- the registry -------------------------------------------------------------------------------
    Fault("registry_spacing_rule_min", "registry",
          "The default spacing takes the finer of the margin and the floor, not the coarser.",
          (Patch(_BUILD, "    return max(margin, SPACING_FLOOR * size)", "    return min(margin, SPACING_FLOOR * size)"),),
          (REGISTRY,), ("registry_default_spacing_m",)),
    Fault("registry_numerical_default_not_pending", "registry",
          "A numerical default taken by the exploratory profile is stamped determined, not pending.",
          (Patch("mime/registry/profiles.py", "            elif prof.takes_numerical_defaults:\n                prov = Provenance.PENDING",
                 "            elif prof.takes_numerical_defaults:\n                prov = Provenance.DETERMINED"),),
          (REGISTRY,), ("registry_exploratory_stamps_pending",)),
    Fault("registry_load_gets_current_version", "registry",
          "Loading a document resolves each entry to the current version, not the one the document names.",
          (Patch("mime/experiment.py", 'entry_cls = reg.get(ident["namespace"], ident["name"], ident["version"])',
                 'entry_cls = reg.current(ident["namespace"], ident["name"])'),),
          (REGISTRY,), ("registry_loads_0_1_0",)),
    Fault("registry_document_drops_spin", "registry",
          "A loaded body starts without the angular velocity its document saved.",
          (Patch("mime/nodes/rigid.py", '            **doc["start"],\n        )',
                 '            **{k: v for k, v in doc["start"].items() if k != "angular_velocity"},\n        )'),),
          (REGISTRY,), ("registry_reload_reproduces_run",)),
    # -- specbook -----------------------------------------------------------------------------------
    Fault("specbook_glue_shows_expected", "specbook",
          "A claim glues its expected value where the page shows the measured one.",
          (Patch("specbook/_claims.py", "    glue_raw(key, m)\n", "    glue_raw(key, e)\n"),),
          (AUTHORING,), ("authoring_glue_shows_measured",)),
    Fault("specbook_table_shows_expected", "specbook",
          "The claims table prints the expected value in the measured column.",
          (Patch("specbook/_tables.py", 'expected, measured = f"{c.expected:.6g}{unit}", f"{c.measured:.6g}{unit}"',
                 'expected, measured = f"{c.expected:.6g}{unit}", f"{c.expected:.6g}{unit}"'),),
          (AUTHORING,), ("authoring_table_shows_measured",)),
    Fault("specbook_relative_tolerance_ignored", "specbook",
          "A claim's relative tolerance is dropped: only atol counts.",
          (Patch("specbook/_claims.py", "allowed = (atol or 0.0) + (rtol or 0.0) * abs(e)", "allowed = (atol or 0.0)"),),
          (AUTHORING,), ("authoring_probe_relative",)),
    Fault("specbook_nan_passes", "specbook",
          "A NaN measurement passes: the comparison is written so that NaN is not 'greater than allowed'.",
          (Patch("specbook/_claims.py", "passed = math.isfinite(m) and math.isfinite(e) and diff <= allowed",
                 "passed = not diff > allowed"),),
          (AUTHORING,), ("authoring_false_claims_raise",)),
    Fault("specbook_check_ignores_condition", "specbook",
          "specbook.check records every condition as holding.",
          (Patch("specbook/_claims.py", "    ok = bool(condition)\n", "    ok = True\n"),),
          (AUTHORING,), ("authoring_false_claims_raise",)),
)
"""Every fault the book is tested against, by area."""
