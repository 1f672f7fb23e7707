"""The book's fault catalogue: the plausible bugs its claims are proven to catch.

Each :class:`~specbook.faults.Fault` patches the real code by a line of text found by what it
says, not by its line number, so that a refactoring which keeps the code's meaning keeps the
fault applicable (a patch whose text is gone fails the catalogue with a clear message, and is
then rewritten against the new code). ``python -m specbook.faults`` runs them all; the page
``book/testing.md`` renders this list.

A fault's targets are the pages whose claims measure the patched code, and the tests that
hold the behaviour where no page does yet. The pages run in record mode, so one run shows every
claim a fault breaks; ``caught_by`` names the claims that must be among them (every one must
fail) and the failing test ids. What else each fault breaks is the kill matrix.
"""

from __future__ import annotations

from specbook._faults import Fault, Patch

__all__ = ["FAULTS"]

BALL = "book/maddening/ball.md"
BALL_EVIDENCE = "book/maddening/ball-evidence.md"
REFLECTION = "book/skcomplex/reflection.md"
REFLECTION_EVIDENCE = "book/skcomplex/reflection-verification.md"
REFLECTION_VERTEX = "book/skcomplex/reflection-vertex.md"
NOTE = "book/notes/contact-mode-stability.md"
NOTE_MODES = "book/notes/coupled-modes.md"
NOTE_PENALTY = "book/notes/penalty-checks.md"
NOTE_EDGE = "book/notes/stability-edge.md"
NOTE_BEYOND = "book/notes/beyond-frozen-modes.md"
CONTACT_HOLD = "book/mime/contact-hold.md"
REGISTRY = "book/mime/registry.md"
CONTACT_010 = "book/mime/contact-0-1-0.md"
CONTACT = "book/mime/contact.md"
AUTHORING = "book/authoring.md"
TESTING = "book/testing.md"
VERIFICATION = "book/maddening/verification.md"
VELOCITY_RULE = ("tests/mime/interactions/test_velocity_rule.py"
                 "::test_a_sphere_landing_keeps_its_slide_and_loses_its_fall[0.4.0]")
LOCATE_TEST = ("tests/skcomplex/test_skc_locate.py"
               "::test_a_short_return_from_a_start_a_hair_past_the_wall_is_found_where_it_returns")
ZERO_SAMPLE_TEST = "tests/skcomplex/test_skc_events.py::test_a_zero_sample_is_an_entry_a_touch_or_an_exit_by_its_rate"
MUJOCO = "book/mime/mujoco.md"
ANOMALIES = "book/maddening/anomalies.md"
CONTACT_SUPPORT = "book/mime/contact-support.md"
CONTACT_SWEEPS = "book/mime/contact-sweeps.md"
CONTACT_SOLVER = "book/mime/contact-solver.md"

_BALL = "maddening/nodes/ball.py"
_EVENTS = "skcomplex/engine/events.py"
_STEPPER = "skcomplex/engine/_stepper.py"
_REFLECT = "skcomplex/models/physics/common/mechanics/_reflection.py"
_SCHEMES = "maddening/core/simulation/_second_order_schemes.py"
_MODES = "maddening/analysis/contact_modes.py"
_BUILD = "mime/interactions/_build.py"
_HOLD = "mime/interactions/_hold.py"
_SOLVE = "mime/interactions/_solve.py"
_INTEGRATORS = "maddening/core/simulation/integrators.py"
_CONTACT = "mime/interactions/contact.py"
_FIGURE_CHECKS = "specbook/_figure_checks.py"
_RIGID = "mime/nodes/rigid.py"
_PEER = "mime/peer.py"
_CONVEX = "mime/geometry/convex.py"
_SWEEP = "mime/sweep.py"
_LOADS = "mime/nodes/loads.py"

FAULTS: tuple[Fault, ...] = (
    # -- the ball (book/maddening/ball.md, ball-evidence.md, verification.md) ----------------------------
    Fault("ball_declared_order_2", "ball",
          "BallNode declares temporal order 2 for its first-order step.",
          (Patch(_BALL, "order=DiscretizationOrder(spatial=None, temporal=1.0)",
                 "order=DiscretizationOrder(spatial=None, temporal=2.0)"),),
          (VERIFICATION, BALL, TESTING), ("verification_madd_ver_010", "ball_order", "ball_order_midpoint",
                                          "faults_patches_apply")),
    Fault("ball_order_declared_positionally", "ball",
          "BallNode writes its order positionally, DiscretizationOrder(1.0), which fills the spatial slot: "
          "it declares a spatial order and no temporal one.",
          (Patch(_BALL, "order=DiscretizationOrder(spatial=None, temporal=1.0)", "order=DiscretizationOrder(1.0)"),),
          (BALL,), ("ball_no_spatial_order",)),
    Fault("ball_position_from_old_velocity", "ball",
          "The step moves the position with the old velocity: forward Euler, not the semi-implicit scheme.",
          (Patch(_BALL, "x_new = x + v_new * h", "x_new = x + v * h"),),
          (BALL, VERIFICATION),
          ("ball_ano011_step_difference", "ball_step_is_affine_map", "ball_order_as_recorded",
           "verification_madd_ver_010_observed_order_finest")),
    Fault("ball_located_restitution_sqrt", "ball",
          "Located contact rebounds at sqrt(e) times the impact speed (a restitution law on energy, not velocity).",
          (Patch(_BALL, "jnp.where(slow, jnp.zeros_like(v_in), -e * v_in)",
                 "jnp.where(slow, jnp.zeros_like(v_in), -jnp.sqrt(e) * v_in)"),),
          (BALL_EVIDENCE,), ("ball_sweep_located_ratio_is_e2", "ball_threshold_bounces_faster_impact")),
    Fault("ball_threshold_dropped", "ball",
          "The per-step contact never zeroes a slow impact: the contact-speed threshold is dropped.",
          (Patch(_BALL, "slow = jnp.abs(v_new) <= self.CONTACT_SPEED_THRESHOLD", "slow = jnp.abs(v_new) < 0.0"),),
          (BALL_EVIDENCE,), ("ball_threshold_stops_slow_impact",)),
    Fault("ball_contact_time_halved", "ball",
          "The located contact time drops the factor 2 of s = 2d / (-v + sqrt(D)).",
          (Patch(_BALL, "s_fall = 2 * d / jnp.where(den_fall > 0, den_fall, 1.0)",
                 "s_fall = d / jnp.where(den_fall > 0, den_fall, 1.0)"),),
          (BALL_EVIDENCE,), ("ball_sweep_located_ratio_is_e2",)),
    Fault("ball_reflects_start_velocity", "ball",
          "The per-step contact reflects the velocity the step started with, not the one it ended with.",
          (Patch(_BALL, "bounced = jnp.where(slow, jnp.zeros_like(v_new), -e * v_new)",
                 "bounced = jnp.where(slow, jnp.zeros_like(v_new), -e * v)"),),
          (BALL_EVIDENCE,), ("ball_per_step_dxdg_as_recorded",)),
    Fault("ball_contact_mirrors_position", "ball",
          "The per-step contact mirrors the position about the table (x <- 2 x_t - x) instead of putting the ball on it.",
          (Patch(_BALL, '"position": jnp.where(hit, table, x_new),', '"position": jnp.where(hit, 2 * table - x_new, x_new),'),),
          (BALL_EVIDENCE,), ("ball_sweep_energy_never_rises_falling", "ball_lim5_update_position",
                             "ball_per_step_dxdh_is_zero")),
    Fault("ball_contact_tests_start_position", "ball",
          "The per-step contact tests the position the step started from, not the one it ended at: "
          "a ball is seen below the table one step late.",
          (Patch(_BALL, "hit = x_new < table", "hit = x < table"),),
          (BALL_EVIDENCE,), ("ball_late_contact", "ball_free_penetration", "ball_threshold_stops_slow_impact",
                             "ball_lim5_update_position")),
    Fault("ball_derivatives_rates_swapped", "ball",
          "derivatives() returns the two rates in each other's places: the position's rate is g, the velocity's v.",
          (Patch(_BALL, 'return {"position": v, "velocity": jnp.broadcast_to(as_state_dtype(p["gravity"], v), jnp.shape(v))}',
                 'return {"velocity": v, "position": jnp.broadcast_to(as_state_dtype(p["gravity"], v), jnp.shape(v))}'),),
          (BALL, BALL_EVIDENCE), ("ball_ano011_step_difference", "ball_ano011_velocity_difference",
                                  "ball_lim5_euler_position")),
    Fault("ball_table_input_renamed", "ball",
          "The table is declared as a boundary input named `table`, while update() reads `table_position`.",
          (Patch(_BALL, '        BoundaryInputField(\n            "table_position", (), "m",', '        BoundaryInputField(\n            "table", (), "m",'),),
          (BALL,), ("ball_only_table_input",)),
    Fault("ball_located_flight_drops_half_g_h2", "ball",
          "The located step's free flight drops the g h^2 / 2 term of its parabola: x + h v.",
          (Patch(_BALL, "x_free = x + h * (v + v_free) / 2", "x_free = x + h * v"),),
          (BALL, BALL_EVIDENCE), ("ball_order_located_midpoint", "ball_sweep_located_energy_never_rises")),
    # -- the reflection (book/skcomplex/reflection.md and reflection-verification.md) ----------------
    # The law: reflection.md checks one reflection off an oblique wall with a normal of length 2
    # against the law in NumPy, and a bouncing point's times on the tilted plane against their closed
    # form; the verification page checks the law's parts, the circle's bounces and SciPy's run.
    Fault("reflection_restitution_squared", "reflection",
          "The reflection scales the normal velocity by e squared (1 + e^2 in the law).",
          (Patch(_REFLECT, "velocity - (1.0 + restitution) * jnp.dot", "velocity - (1.0 + restitution**2) * jnp.dot"),),
          (REFLECTION,), ("reflection_law_closed_form",)),
    Fault("reflection_normal_length", "reflection",
          "The law divides by |n| instead of |n|^2: right for a unit normal only.",
          (Patch(_REFLECT, "jnp.dot(velocity, normal) / jnp.dot(normal, normal) * normal",
                 "jnp.dot(velocity, normal) / jnp.sqrt(jnp.dot(normal, normal)) * normal"),),
          (REFLECTION,), ("reflection_law_closed_form", "plane_bounce_times")),
    Fault("reflection_dot_elementwise", "reflection",
          "The law takes v * n elementwise where it means the dot product v . n: right for a normal "
          "along an axis only, and the tangential velocity changes too.",
          (Patch(_REFLECT, "(1.0 + restitution) * jnp.dot(velocity, normal) /",
                 "(1.0 + restitution) * (velocity * normal) /"),),
          (REFLECTION_EVIDENCE,), ("tangential_velocity_change", "speed_drift_e1", "ring_reflection_times")),
    # The event finder
    Fault("events_one_newton_iteration", "reflection",
          "The event finder stops after one safeguarded Newton iteration instead of six, and settles no "
          "crossing left short of its accuracy.",
          (Patch(_EVENTS, "DEFAULT_ITERATIONS = 6", "DEFAULT_ITERATIONS = 1"),
           Patch(_EVENTS, "SETTLE_ITERATIONS = 48", "SETTLE_ITERATIONS = 0")),
          (REFLECTION_EVIDENCE,), ("event_time_error_max", "direction_0_start_on_wall", "grad_drop_height")),
    Fault("events_no_implicit_gradient", "reflection",
          "The last, traced Newton step is dropped: the event time carries no implicit derivative.",
          (Patch(_EVENTS, "polished = tau - correction", "polished = tau - lax.stop_gradient(correction)"),),
          (REFLECTION_EVIDENCE,), ("grad_drop_height", "grad_drop_speed")),
    Fault("events_step_end_left_to_next_step", "reflection",
          "No sample exactly on zero but an exit counts as past the wall: neither an entry on a sample nor the "
          "span's last sample on zero ends a bracket. A crossing exactly at the end of a step is then not "
          "bracketed, and the next step, starting on the wall, no longer counts it.",
          (Patch(_EVENTS, "past = (hs > 0) | entry_on | exit_on | (later_zero & ~next_below)",
                 "past = (hs > 0) | exit_on"),
           Patch(_EVENTS, "past = past.at[-1].set(hs[-1] >= 0)", "past = past.at[-1].set(hs[-1] > 0)")),
          (REFLECTION,), ("seed_example", "seed_event_on_boundary", "boundary_state_reflected",
                          "boundary_no_retrigger")),
    Fault("pressed_rate_at_the_pass_start", "reflection",
          "The check for a point pressed into a wall it slides along reads the guard's rate at the start of "
          "the event pass, where a point just stopped on the wall has none, instead of at its end: the slide "
          "goes unseen in the step of the landing, and the point is past the wall when the next step sees it.",
          (Patch(_STEPPER, "inward = rates[1:] * side > floor", "inward = rates[:1] * side > floor"),),
          (REFLECTION,), ("rest_stops_in_the_landing_step",)),
    Fault("reflection_holds_nothing", "reflection",
          "ReflectionInteraction does not say that it holds a point (its holds is left False, as for a pure "
          "event marker): no wall is watched, and a point pressed into the floor, or turned into it at a "
          "corner, goes through it with no error.",
          (Patch(_REFLECT, "holds: ClassVar[bool] = True", "holds: ClassVar[bool] = False"),),
          (REFLECTION,), ("rest_stops_naming_the_floor", "rest_stops_in_the_landing_step",
                          "corner_stops_naming_the_floor", "corner_stops_in_the_turn_step")),
    Fault("pressed_misses_the_turn", "reflection",
          "The check reads only the rates at the end of each pass, before its reflections: a point that "
          "another wall turns into the wall it slides along, at a corner, falls through it (SKC-ANO-003).",
          (Patch(_STEPPER, "(holds & (pressed | turned))", "(holds & pressed)"),),
          (REFLECTION,), ("corner_stops_naming_the_floor", "corner_stops_in_the_turn_step")),
    Fault("vertex_reflects_off_every_hit_wall", "reflection",
          "At a vertex every hit wall reflects the point in the first sweep, even one the first reflection already "
          "sent it away from (SKC-ANO-004): the later sweeps turn it back out, but with restitution below 1 its "
          "speed away from that wall is scaled by e squared, not kept.",
          (Patch(_STEPPER, "acts = acts & ((first & ~held) | moving_in(k, states))",
                 "acts = acts & (first | moving_in(k, states))"),),
          (REFLECTION_VERTEX,), ("vertex_wide_leaves_off_the_first_arm",)),
    Fault("vertex_sweeps_dropped", "reflection",
          "No sweep after the first at a vertex (VERTEX_SWEEPS = 0, as if one reflection per wall were always "
          "enough): in a narrow vertex the second wall's reflection leaves the point moving into the first, and "
          "the run stops where it should bounce out.",
          (Patch(_STEPPER, "VERTEX_SWEEPS = 2", "VERTEX_SWEEPS = 0"),),
          (REFLECTION_VERTEX,), ("vertex_narrow_leaves_both_arms", "vertex_paths_stay_above_both_arms")),
    Fault("exit_sample_polished_from_its_secant_point", "reflection",
          "A bracket that ends on a sample exactly on an exit root, or starts on a zero sample (a touch or an "
          "exit), is polished from its secant point, which is that sample itself: Newton's steps stay there, the "
          "root is rejected, and the entry in the bracket is missed, so the point goes through the wall "
          "(SKC-ANO-005).",
          (Patch(_EVENTS, "tau0 = jnp.where(found & ((fa == 0) | exit_on[j + 1]), 0.5 * (a + b), tau0)",
                 "tau0 = tau0"),),
          (ZERO_SAMPLE_TEST,), (ZERO_SAMPLE_TEST,)),
    Fault("events_polish_towards_the_wall", "reflection",
          "From a start on the wall, the last, traced Newton step aims at g = 0 instead of the start's own "
          "level: a return too short to leave the wall's rounding is pulled back to the start (SKC-ANO-002), "
          "where the point moves away, so the return is lost.",
          (Patch(_EVENTS, "jax.jvp(lambda t: sign * path(t) - level, (tau,)", "jax.jvp(lambda t: sign * path(t), (tau,)"),),
          (LOCATE_TEST,), (LOCATE_TEST,)),
    Fault("slide_floor_too_high", "reflection",
          "The share of the impact speed below which a departure counts as a slide is 1e-5, not 1e-10 (an "
          "exponent mistyped): a bounce with restitution 1e-6 is taken for a slide, and the drop stops as "
          "pressed into the floor though it bounces.",
          (Patch(_STEPPER, "SLIDE = 1e-10", "SLIDE = 1e-5"),),
          (REFLECTION,), ("tiny_restitution_stops_at_the_event_limit",)),
    Fault("events_direction_sign_flipped", "reflection",
          "The finder searches f = -direction * g: a direction=1 wall counts the crossings from the "
          "positive side, and the ones it should count pass through.",
          (Patch(_EVENTS, "sign = jnp.asarray(float(direction), dtype=gs.dtype)",
                 "sign = jnp.asarray(-float(direction), dtype=gs.dtype)"),),
          (REFLECTION_EVIDENCE,), ("direction_1_lets_the_other_side_through", "event_time_error_max",
                                   "region_inside_reflects", "grad_drop_restitution",
                                   "scipy_same_event_count")),
    Fault("events_direction_zero_wrong_side", "reflection",
          "With direction=0 the finder searches from the side the point is not on.",
          (Patch(_EVENTS, "        sign = -side\n", "        sign = side\n"),),
          (REFLECTION_EVIDENCE,), ("direction_0_from_right", "direction_0_from_left", "direction_0_event_time")),
    Fault("events_start_on_wall_unseen", "reflection",
          "A point that starts exactly on the wall is not recognised as on it: with direction=0 it has no side.",
          (Patch(_EVENTS, "on_wall = jnp.asarray(on_wall) | (g0 == 0)", "on_wall = jnp.asarray(on_wall)"),),
          (REFLECTION_EVIDENCE,), ("direction_0_start_on_wall",)),
    # The wall's region, and the declared domains
    Fault("reflection_region_ignored", "reflection",
          "The wall's region is never consulted: the whole surface reflects.",
          (Patch(_REFLECT, "        if self.region is None:\n            return jnp.asarray(True)",
                 "        if self.region is None or True:\n            return jnp.asarray(True)"),),
          (REFLECTION_EVIDENCE,), ("region_outside_passes",)),
    Fault("domain_interval_or", "reflection",
          "An interval domain holds a value above its low end or below its high end (or for and): "
          "restitution = 1.5 is taken as in [0, 1].",
          (Patch("skcomplex/core/sets.py", "        return above and below\n", "        return above or below\n"),),
          (REFLECTION,), ("validation_names_arguments",)),
    # -- the contact -------------------------------------------------------------------------------
    Fault("contact_040_holds_centre", "contact",
          "Contact 0.4.0 builds 0.1.0's centre hold instead of holding the hull.",
          (Patch(_CONTACT, "return build_confinement(\n            margin=margin, spacing=spacing_m, rule=values[\"rule\"], "
                           "body=body, surface=surface\n        )",
                 "from mime.interactions._centre import build_centre_confinement\n\n        "
                 "return build_centre_confinement(margin=margin, rule=values[\"rule\"], body=body, surface=surface)"),),
          (CONTACT_HOLD,), ("narrow_tube_040_keeps_margin", "narrow_tube_040_stop_angle_deg")),
    Fault("contact_rule_elastic", "contact",
          "The velocity rule becomes elastic: a point that would pass the margin must leave at its approach speed.",
          (Patch(_HOLD, "    target = -jnp.maximum(A.gap, 0.0) / dt\n    active = jnp.isfinite(A.gap)\n    lam, u, last",
                 "    target = -jnp.maximum(A.gap, 0.0) / dt\n    target = jnp.where(u_free < target, -u_free, target)\n"
                 "    active = jnp.isfinite(A.gap)\n"
                 "    lam, u, last"),),
          (VELOCITY_RULE, CONTACT_010, CONTACT_HOLD),
          (VELOCITY_RULE,
           "contact_0_1_0_rule_inelastic", "rule_normal_speed_closed_form", "rule_normal_speed_ends_at_zero",
           "rule_tube_on_the_margin", "rule_tube_no_speed_into_wall")),
    Fault("contact_rule_frictional", "contact",
          "The velocity rule gains Coulomb friction (mu = 0.5): the normal impulse also brakes the sliding.",
          (Patch(_HOLD, "v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me, v_free)",
                 "v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me - 0.5 * jnp.sum(lam) * inv_me "
                 "* v_free.at[2].set(0.0) / (jnp.linalg.norm(v_free.at[2].set(0.0)) + 1e-30), v_free)"),),
          (VELOCITY_RULE, CONTACT_010),
          (VELOCITY_RULE,
           "contact_0_1_0_rule_frictionless")),
    # -- the contact's hold, 0.1.0 and the registry (issue 24, phase 3: contact-hold.md, contact-0-1-0.md,
    #    registry.md, contact.md) ----------------------------------------------------------------
    # contact-hold.md, contact-0-1-0.md, contact.md: the hold, the centre hold, the plan, the page generator
    Fault("hold_projection_applies_zero", "contact",
          "The projection applies its correction by arithmetic, not by a select: a pose it does not move is "
          "still composed with a zero turn and renormalised, so a body that takes no force leaves the free "
          "body's trajectory in its last bits.",
          (Patch(_HOLD, "jnp.where(go, xp, xx), jnp.where(go, qp, qq)", "xp, qp"),),
          (CONTACT_HOLD, CONTACT_010),
          tuple(f"free_bitwise_{v}_{k}" for v in ("040", "010")
                for k in ("sphere", "ellipsoid", "cylinder", "capsule", "screw", "box", "mesh", "no_hull"))
          + tuple(f"contact_0_1_0_free_bitwise_{k}" for k in ("sphere", "no_hull", "capsule"))),
    Fault("clear_forgets_extent", "contact",
          "The broad phase measures the body's room from its centre, forgetting the hull's extent: a body whose "
          "centre is farther from the margin than it travels in a step is taken to be clear, and its hull "
          "passes into the surface unheld.",
          (Patch(_HOLD, "room = phi - hold.extent - hold.margin - contact_band(",
                 "room = phi - hold.margin - contact_band("),),
          (CONTACT_HOLD,), ("free_flights_held_then_clear", "hullless_equals_sphere", "narrow_tube_040_keeps_margin",
                            "rule_normal_speed_closed_form", "rule_normal_speed_ends_at_zero",
                            "rule_tube_no_speed_into_wall", "rule_tube_on_the_margin")),
    Fault("lever_mask_ball_dropped", "contact",
          "The build forgets a ball's own case when it masks the levers: a ball is masked as a body of "
          "revolution, and takes the rounding of p x n about its two other axes as a torque.",
          (Patch(_BUILD, "    if part.at_origin and g.centred_point:\n        return (0.0, 0.0, 0.0)\n", ""),),
          (CONTACT_HOLD,), ("rule_tangential_unchanged", "rule_tube_axial_and_spin_unchanged")),
    Fault("centre_hold_drops_margin", "contact",
          "The centre hold places its row's gap at the extent, forgetting the margin.",
          (Patch("mime/interactions/_centre.py", "gap = phi - self.extent - self.margin", "gap = phi - self.extent"),),
          (CONTACT_HOLD,), ("hullless_keeps_margin", "hullless_equals_sphere")),
    Fault("plan_checks_other_bodies", "contact",
          "The plan compares a new attachment with the laws of every other body, not its own: a second "
          "contact, or a second law that includes lubrication, on one body is accepted.",
          (Patch("mime/experiment.py", "                if not any(o is body for o in _body_of(other.entry, self._objects(other))):",
                 "                if any(o is body for o in _body_of(other.entry, self._objects(other))):"),),
          (CONTACT_HOLD,), ("plan_refuses_second_lubrication", "plan_refuses_second_contact")),
    Fault("centre_hold_full_extent", "contact",
          "0.1.0 holds the centre at the body's whole extent, not its extent about its own axis: a long "
          "capsule in a narrow tube is held off both walls at once.",
          (Patch("mime/interactions/_centre.py", "hold = centre_hold(margin=margin, extent=hull.radial_extent, surface=surface)",
                 "hold = centre_hold(margin=margin, extent=hull.extent, surface=surface)"),),
          (CONTACT_HOLD, ANOMALIES), ("narrow_tube_010_passes_wall_mm", "anomalies_mime_ano_131_pass_through_010_mm")),
    Fault("docs_validity_family_swapped", "contact",
          "The entry page's generator lists Family before Validity: each of the two sections' builders then "
          "fills the other's title.",
          (Patch("mime/docs.py", '    "Validity",\n    "Family",\n', '    "Family",\n    "Validity",\n'),),
          (CONTACT_010,), ("contact_0_1_0_page_sections_in_order", "contact_0_1_0_page_matches_declarations")),
    Fault("penalty_dashpot_pulls", "contact",
          "The penalty rung's force is not clipped at zero: a dashpot on a point leaving fast pulls the body "
          "towards the surface.",
          (Patch("mime/interactions/_penalty.py", "return jnp.where(gap < 0, jnp.maximum(spring, 0.0), 0.0)",
                 "return jnp.where(gap < 0, spring, 0.0)"),),
          (CONTACT,), ("penalty_force_law",)),
    # registry.md: the registry's lookups, the profiles, the saved document
    Fault("registry_versions_newest_first", "registry",
          "The registry sorts a name's versions newest first, while current and kept read them oldest first: "
          "the current version is the oldest and the kept one is the newest.",
          (Patch("mime/registry/store.py", "return sorted(found, key=lambda c: parse_version(c.version))",
                 "return sorted(found, key=lambda c: parse_version(c.version), reverse=True)"),),
          (REGISTRY,), ("registry_current_is_contact", "registry_kept_is_centre_contact", "registry_script_gets_0_4_0")),
    Fault("registry_unknown_version_as_unknown_entry", "registry",
          "An unregistered version of a registered name is refused as an unknown entry: the message lists "
          "the entries, not the name's versions (the branch inverted).",
          (Patch("mime/registry/store.py", "        known = self.versions(namespace, name)\n        if known:",
                 "        known = self.versions(namespace, name)\n        if not known:"),),
          (REGISTRY,), ("registry_unknown_version_lists_versions",)),
    Fault("registry_resolve_ignores_profile", "registry",
          "Experiment.resolve(profile) resolves in the experiment's own profile, not the one asked for: an "
          "exploratory experiment resolved as validated takes the numerical default.",
          (Patch("mime/experiment.py", "        prof = get_profile(self.profile if profile is None else profile)\n"
                                       "        return SettingsRecord(",
                 "        prof = get_profile(self.profile)\n        return SettingsRecord("),),
          (REGISTRY,), ("registry_validated_refuses_numerical_default",)),
    Fault("registry_given_only_if_required", "registry",
          "Resolution reads a setting from what the script gave only when the setting has no default: a "
          "given spacing is replaced by the numerical default, which the validated profile refuses.",
          (Patch("mime/registry/profiles.py", "        if s.name in given:\n",
                 "        if s.name in given and s.default_kind is None:\n"),),
          (REGISTRY,), ("registry_validated_given_spacing",)),
    Fault("registry_quantity_saved_in_si", "registry",
          "A quantity is saved with its SI number beside the unit it was written in: mm(0.1) is saved as "
          "0.0001 mm, and loads as that.",
          (Patch("mime/units.py", 'return {"unit": self.unit.symbol, "value": self.value}',
                 'return {"unit": self.unit.symbol, "value": self.si()}'),),
          (REGISTRY,), ("registry_round_trip_exact", "registry_round_trip_entry", "registry_projection_saves_identically")),
    Fault("registry_document_written_in_place", "registry",
          "The save writes the document over the old one in place, not through a temporary file and one "
          "rename: a crash part-way leaves a changed or broken document.",
          (Patch("mime/_experiment_io.py", '_write_file(folder / DOCUMENT, text.encode("utf-8"))',
                 '(folder / DOCUMENT).write_bytes(text.encode("utf-8"))'),),
          (REGISTRY,), ("registry_atomic_save",)),
    Fault("registry_load_error_drops_entry", "registry",
          "A document whose settings are wrong is refused without saying which attachment holds them.",
          (Patch("mime/experiment.py", 'entry = entry_cls.from_settings_document(item["settings"], where="settings")\n'
                                       '            except ValidationError as exc:\n'
                                       '                raise invalid_document(path, where, refusal=exc) from None',
                 'entry = entry_cls.from_settings_document(item["settings"], where="settings")\n'
                 '            except ValidationError as exc:\n'
                 '                raise invalid_document(path, "settings", refusal=exc) from None'),),
          (REGISTRY,), ("registry_missing_setting_is_located",)),
    # -- the stability note -------------------------------------------------------------------------
    # (each page of the note is a target of every fault whose code it measures; a fault of jitted code
    # recompiles that page's programs, so the integrators' faults run the two step-map pages only)
    Fault("cd_kicks_with_old_acceleration", "stability note",
          "Central differences give both half kicks the old acceleration.",
          (Patch(_SCHEMES, "new.update({r: _step(mid[r], second[r], half) for r in rates})",
                 "new.update({r: _step(mid[r], first[r], half) for r in rates})"),),
          (NOTE, NOTE_EDGE), ("cms_formula_cd_magnitude_inside", "cms_edge_jordan_block")),
    Fault("euler_names_swapped", "stability note",
          "The two Euler schemes are registered under each other's names: 'euler' runs semi-implicit Euler.",
          (Patch(_INTEGRATORS, '@register_method("euler")\ndef forward_euler', '@register_method("symplectic_euler")\ndef forward_euler'),
           Patch(_INTEGRATORS, '@register_method("symplectic_euler")\ndef symplectic_euler', '@register_method("euler")\ndef symplectic_euler')),
          (NOTE, NOTE_EDGE), ("cms_formula_fe_magnitude", "cms_limit_fe_none")),
    Fault("oscillator_stiffness_omega", "stability note",
          "The oscillator's restoring term is omega x, not omega^2 x: right at omega = 1 rad/s only.",
          (Patch("maddening/analysis/_oscillator.py", '"velocity": -(w * w) * x - 2.0 * p["zeta"] * w * v',
                 '"velocity": -w * x - 2.0 * p["zeta"] * w * v'),),
          (NOTE,), ("cms_cd_frequency", "cms_series_frequency_be")),
    Fault("implicit_rhs_at_old_state", "stability note",
          "The implicit schemes' residual takes the right-hand side at the old state: backward Euler and the "
          "trapezoidal rule both become forward Euler.",
          (Patch(_SCHEMES, "return y - explicit - h * theta * rhs(y)", "return y - explicit - h * theta * rhs(y0)"),),
          (NOTE, NOTE_EDGE), ("cms_formula_be_magnitude", "cms_limit_be_none")),
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
          (NOTE_MODES, NOTE_PENALTY, NOTE_BEYOND), ("cms_bar_critical_step", "cms_entry_below_holds", "cms_below_holds")),
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
          (NOTE_PENALTY, NOTE_BEYOND), ("cms_check_translation", "cms_events_order")),
    Fault("delassus_mass_not_inverted", "stability note",
          "The Delassus matrix multiplies by the mass matrix instead of solving with it: J M J^T.",
          (Patch(_MODES, "A = Jm @ np.linalg.solve(Mm, Jm.T)", "A = Jm @ Mm @ Jm.T"),),
          (NOTE_MODES,), ("cms_meff_centre",)),
    Fault("coupled_modes_unsorted", "stability note",
          "The modes come from numpy.linalg.eig, not eigh: right values, in no particular order.",
          (Patch(_MODES, "values, vectors = np.linalg.eigh(S)", "values, vectors = np.linalg.eig(S)"),),
          (NOTE_MODES,), ("cms_bar_shapes",)),
    Fault("redundant_only_exact_zero", "stability note",
          "A gap combination counts as redundant only when its eigenvalue is exactly zero, which rounding never leaves.",
          (Patch(_MODES, "zero = values <= tolerance * max(float(values.max()), 0.0)", "zero = values == 0.0"),),
          (NOTE_MODES,), ("cms_three_redundant",)),
    Fault("reduced_mass_harmonic_mean", "stability note",
          "The reduced mass is taken as the harmonic mean of the two masses, twice the reduced mass.",
          (Patch(_MODES, "return 1.0 / (1.0 / m1 + 1.0 / m2)", "return 2.0 / (1.0 / m1 + 1.0 / m2)"),),
          (NOTE_MODES,), ("cms_reduced_two_particles",)),
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
    # -- the outside witness: MIME against MuJoCo (book/mime/mujoco.md) ----------------------------------
    # MIME's side: each a bug of the contact or the rigid step that a closed form on the page catches
    Fault("contact_delassus_translation_only", "mujoco witness",
          "The Delassus matrix keeps only the translation: the impulses ignore that a push off the centre also turns the body.",
          (Patch(_SOLVE, "    return matmul3(n, n.T) * inv_m + matmul3(lever * inv_I, lever.T)",
                 "    return matmul3(n, n.T) * inv_m"),),
          (MUJOCO, ANOMALIES), ("mime_impact_closed_form", "anomalies_mime_ano_139_normal_speed_error_most",
                                "anomalies_mime_ano_139_spin_error_most")),
    Fault("contact_rule_restitution_half", "mujoco witness",
          "The velocity rule bounces: a point the free step would carry past the margin leaves at half its approach speed.",
          (Patch(_HOLD, "    target = -jnp.maximum(A.gap, 0.0) / dt\n    active = jnp.isfinite(A.gap)\n    lam, u, last",
                 "    target = -jnp.maximum(A.gap, 0.0) / dt\n    target = jnp.where(u_free < target, -0.5 * u_free, target)\n"
                 "    active = jnp.isfinite(A.gap)\n    lam, u, last"),),
          (MUJOCO,), ("mime_impact_closed_form",)),
    Fault("contact_margin_as_written", "mujoco witness",
          "The plan takes the margin's number as written (0.1 for mm(0.1)) for metres: the margin is a thousand times too wide.",
          (Patch(_CONTACT, 'margin = values["margin"].si(Length, argument="margin")', 'margin = values["margin"].value'),),
          (MUJOCO,), ("mime_free_flight_centre",)),
    Fault("contact_rows_transposed", "mujoco witness",
          "The rows place a held body-frame point with R^T instead of R: the gap and normal are those of another point.",
          (Patch(_HOLD, "    X = x + point @ R.T\n", "    X = x + point @ R\n"),),
          (MUJOCO,), ("mime_rests_at_margin",)),
    Fault("contact_impulse_along_world_z", "mujoco witness",
          "The first pass applies its impulses along the world's z axis, not the surface's normal: right on a level floor only.",
          (Patch(_HOLD, "v1 = jnp.where(touch1, v_free + (A.normal.T @ lam) * inv_me, v_free)",
                 "v1 = jnp.where(touch1, v_free + jnp.array([0.0, 0.0, 1.0]) * jnp.sum(lam) * inv_me, v_free)"),),
          (MUJOCO,), ("mime_impact_closed_form",)),
    Fault("rigid_gyroscopic_dropped", "mujoco witness",
          "The free solve forgets the gyroscopic torque: a body spun off its principal axes keeps its spin unchanged.",
          (Patch(_RIGID, "angular_velocity=w + dt * (tau_b + _gyro(I, w) - cr * w) / I_eff,",
                 "angular_velocity=w + dt * (tau_b - cr * w) / I_eff,"),),
          (MUJOCO,), ("mime_free_precession",)),
    # MuJoCo's side: the scene set up wrongly, which the witness's own documented behaviour catches
    Fault("peer_margin_on_both_geoms", "mujoco witness",
          "The MuJoCo scene sets the margin in its default class, so the floor's geom has it too and MuJoCo adds the two.",
          (Patch(_PEER, '    <geom condim="1" solref=', '    <geom condim="1" margin="{_f(scene.margin)}" solref='),),
          (MUJOCO,), ("mujoco_pass_is_free_fall",)),
    Fault("peer_timeconst_in_steps", "mujoco witness",
          "The MuJoCo scene writes solref's time constant in steps (2) where MuJoCo reads seconds.",
          (Patch(_PEER, 'solref="{_f(tc)} {_f(DAMPRATIO)}"', 'solref="{_f(TIMECONST_STEPS)} {_f(DAMPRATIO)}"'),),
          (MUJOCO,), ("mujoco_push_back_documented",)),
    Fault("peer_condim_default", "mujoco witness",
          "The MuJoCo scene leaves condim at MuJoCo's default (3): its contact has friction where MIME's has none.",
          (Patch(_PEER, '    <geom condim="1" solref=', '    <geom solref='),),
          (MUJOCO,), ("mujoco_push_back_documented",)),
    Fault("peer_free_joint_velocity_swapped", "mujoco witness",
          "The MuJoCo scene writes the free joint's velocity angular part first: MuJoCo reads linear, then angular.",
          (Patch(_PEER, "qvel = np.concatenate([scene.velocity, scene.angular_velocity])",
                 "qvel = np.concatenate([scene.angular_velocity, scene.velocity])"),),
          (MUJOCO,), ("mujoco_pass_is_free_fall",)),
    Fault("peer_diagexact_off", "mujoco witness",
          "The MuJoCo scene leaves the exact diagonal off: its contact softness comes from the body-based approximation.",
          (Patch(_PEER, """<flag diagexact="{'enable' if diagexact else 'disable'}"/>""", '<flag diagexact="disable"/>'),),
          (MUJOCO,), ("mujoco_impact_documented",)),
    # -- the contact's support, sweeps and solver (book/mime/contact-support.md, contact-sweeps.md,
    #    contact-solver.md) -------------------------------------------------------------------------
    Fault("ellipsoid_support_params_unsquared", "contact support",
          "The ellipsoid's support parameters hold its semi-axes (a, b, c) where the support formula "
          "A² d / sqrt(dᵀ A² d) wants their squares.",
          (Patch(_CONVEX, "return padded(self.a**2, self.b**2, self.c**2)", "return padded(self.a, self.b, self.c)"),),
          (CONTACT_SUPPORT,),
          ("support_ellipsoid_on_surface", "support_ellipsoid_normal_along_d", "support_ellipsoid_dense_max",
           "ellipsoid_point_is_support", "ellipsoid_point_continuous")),
    Fault("hold_takes_farther_sort", "contact support",
          "Each group holds the farther of its two candidates, its nearest sample of a kind held at samples "
          "and its deepest support point, not the nearer (the comparison reversed).",
          (Patch(_HOLD, "use_ns = gap_ns < gap_sup", "use_ns = gap_ns > gap_sup"),),
          (CONTACT_SUPPORT,), ("cylinder_spin_bitwise", "mesh_held_by_samples_flag", "screw_spin_kept_min",
                               "screw_spin_kept_max")),
    Fault("spinner_weight_upward", "contact support",
          "The spun bodies' weight is written with the wrong sign: it lifts them off the floor instead of "
          "pressing them on to it.",
          (Patch("mime/demos.py", "force=ConstantLoad((0.0, 0.0, -mass * G))", "force=ConstantLoad((0.0, 0.0, mass * G))"),),
          (CONTACT_SUPPORT, ANOMALIES), ("mesh_spin_lost_most", "mesh_held_by_samples_flag",
                                         "anomalies_mime_131_mesh_loses_most", "anomalies_mime_131_screw_loses_part")),
    Fault("side_sampled_at_half_circumference", "contact support",
          "A cylinder's or capsule's side is sampled around its circumference as if it were pi r long, not "
          "2 pi r: half the samples around, twice the spacing the rule asked for.",
          (Patch(_CONVEX, "n_t = max(6, math.ceil(2 * math.pi * radius / spacing))",
                 "n_t = max(6, math.ceil(math.pi * radius / spacing))"),),
          (CONTACT_SUPPORT,), ("spacing_default_keeps_shortfall_within_margin",)),
    Fault("spacing_refusal_against_spacing", "contact support",
          "A hull held at its samples is refused when their shortfall passes the spacing, not the margin: "
          "a coarse spacing is accepted.",
          (Patch(_BUILD, "    if shortfall_samples > margin:", "    if shortfall_samples > spacing:"),),
          (CONTACT_SUPPORT,), ("spacing_coarse_refused",)),
    Fault("projection_needs_every_row", "contact sweeps",
          "The projection moves the pose only when every one of its rows pushes (all, not any): a body with "
          "one point past the margin is left there.",
          (Patch(_HOLD, "go = past & jnp.any(mu > 0)", "go = past & jnp.all(mu > 0)"),),
          (CONTACT_SWEEPS, ANOMALIES), ("sweep_capsule_past_margin", "sweep_box_past_margin", "sweep_ellipsoid_known_excess",
                                        "anomalies_mime_131_010_passes_040_keeps", "anomalies_mime_136_second_pass_catches")),
    Fault("batched_solve_stops_with_the_first", "contact sweeps",
          "Under vmap, the solve's loop runs while every body of the batch still sweeps, not while any "
          "does: the batch stops sweeping when its first body stops, and the rest keep unfinished forces.",
          (Patch(_SOLVE, "lambda c: jnp.any(going(c))", "lambda c: jnp.all(going(c))"),),
          # on the sweep's page alone: the anomalies page batches no solve (its MIME-ANO-136 measure maps
          # the single body's step over the starts)
          (CONTACT_SWEEPS,), ("sweep_box_past_margin",)),
    Fault("batched_solve_drops_the_last_tile", "contact sweeps",
          "Under vmap, the systems that need a sweep are swept a tile at a time, and the count of tiles is "
          "rounded down: the systems of a last, partial tile keep no force at all.",
          (Patch(_SOLVE, "tiles = (jnp.sum(needed, dtype=jnp.int32) + SOLVE_TILE - 1) // SOLVE_TILE",
                 "tiles = jnp.sum(needed, dtype=jnp.int32) // SOLVE_TILE"),),
          (CONTACT_SWEEPS,), ("sweep_box_past_margin",)),
    Fault("second_pass_impulse_does_not_turn", "contact sweeps",
          "The second pass's impulses change the body's velocity but not its spin: the angular term "
          "(lever x impulse) / I is dropped from its update.",
          (Patch(_HOLD, "w2 = jnp.where(touch2, w1 + (l2.T @ lam2) * inv_I, w1)", "w2 = w1"),),
          (CONTACT_SWEEPS,), ("sweep_capsule_known_inward", "sweep_ellipsoid_known_excess")),
    Fault("touching_forgets_first_pass", "contact solver",
          "The touching flag is raised by the second pass and the projection only: a step held by the first "
          "pass alone reports no touch.",
          (Patch(_HOLD, "touching = touch1 | touch2 | projected", "touching = touch2 | projected"),),
          (CONTACT_SOLVER, CONTACT_SWEEPS), ("flag_touching_exact", "sweep_capsule_touches", "sweep_box_touches",
                                            "umr_lands_at_fall_time", "umr_touching_after_landing",
                                            "umr_unconverged_on_touching_steps")),
    Fault("delassus_rotation_by_moments", "contact solver",
          "The Delassus matrix's rotational part multiplies the levers by the principal moments, not their "
          "inverses: the rows' coupling through the body's turn is wrong.",
          (Patch(_SOLVE, "+ matmul3(lever * inv_I, lever.T)", "+ matmul3(lever / inv_I, lever.T)"),),
          (CONTACT_SOLVER,), ("two_walls_ratio_per_sweep", "umr_held_in_tube", "umr_touching_after_landing")),
    Fault("unconverged_against_whole_free_speed", "contact solver",
          "A step is flagged unconverged only when the sweeps leave more than the whole of the free step's "
          "unmet speed, not the share CONVERGED of it.",
          (Patch(_HOLD, "unconverged = touch1 & (residual > CONVERGED * unmet_free)",
                 "unconverged = touch1 & (residual > unmet_free)"),),
          (CONTACT_SOLVER,), ("flag_unconverged_raises", "umr_unconverged_on_touching_steps")),
    Fault("unconverged_on_any_touching_step", "contact solver",
          "The unconverged flag joins its two conditions with or, not and: every touching step is flagged, "
          "converged or not.",
          (Patch(_HOLD, "unconverged = touch1 & (residual > CONVERGED * unmet_free)",
                 "unconverged = touch1 | (residual > CONVERGED * unmet_free)"),),
          (ANOMALIES,), ("anomalies_mime_ano_139_steps_flagged_unconverged",)),
    Fault("support_short_sign", "contact solver",
          "support_short is raised only where the unconverged point stands past the shortfall inside the "
          "margin (-shortfall), not within the shortfall of it.",
          (Patch(_HOLD, "support_short = jnp.any(second.short & (g2 < hold.shortfall))",
                 "support_short = jnp.any(second.short & (g2 < -hold.shortfall))"),),
          (CONTACT_SOLVER,), ("flag_support_short_raises",)),
    Fault("field_rate_in_hertz", "contact solver",
          "The rotating field's angular speed is its frequency in hertz read as rad/s, f, not 2 pi f: the field "
          "turns 2 pi times too slowly, and so does the microrobot locked to it.",
          (Patch(_LOADS, '("omega", np.float64(2 * math.pi * f))', '("omega", np.float64(f))'),),
          (CONTACT_SOLVER,), ("umr_free_travel_mm", "umr_travel_mm")),
    Fault("propulsion_from_cross_spin", "contact solver",
          "The screw's thrust reads its spin about its body x axis, across the screw, not about its own "
          "axis z: a screw spun about its axis gets no thrust.",
          (Patch(_LOADS, "return _in(self.coupling, state) * state.angular_velocity[2] * axis",
                 "return _in(self.coupling, state) * state.angular_velocity[0] * axis"),),
          (CONTACT_SOLVER,), ("umr_free_travel_mm", "umr_travel_mm")),
    Fault("build_probes_the_axes_only", "contact support",
          "The build counts a group's deepest places against a flat wall from the six axis directions alone, "
          "not a spread of probes, so it gives curved bodies fewer search starts.",
          (Patch(_BUILD, "PROBES = 48", "PROBES = 6"),),
          (ANOMALIES,), ("anomalies_mime_ano_134_umr_screw_share_over_starts",
                         "anomalies_mime_ano_134_spin_screw_share_over_starts")),
    Fault("build_starts_the_larger_count", "contact support",
          "A group gets as many search starts as the larger of its counted places and its wall maxima, "
          "not the smaller, so the curved wall's extra places are covered by starts the flat wall never needs.",
          (Patch(_BUILD, "np.clip(np.minimum(counts, walls), 1, MAX_STARTS)",
                 "np.clip(np.maximum(counts, walls), 1, MAX_STARTS)"),),
          (ANOMALIES,), ("anomalies_mime_ano_134_umr_screw_share_over_starts",
                         "anomalies_mime_ano_134_umr_screw_most_over_starts")),
    Fault("specbook_glue_shows_expected", "specbook",
          "A claim glues its expected value where the page shows the measured one.",
          (Patch("specbook/_claims.py", "    glue_raw(key, m)\n", "    glue_raw(key, e)\n"),),
          (TESTING,), ("testing_glue_shows_measured",)),
    Fault("specbook_table_shows_expected", "specbook",
          "The claims table prints the expected value in the measured column.",
          (Patch("specbook/_tables.py", "claim_values(c.measured, c.expected, c.atol, c.rtol)",
                 "claim_values(c.expected, c.expected, c.atol, c.rtol)"),),
          (TESTING,), ("testing_table_shows_measured",)),
    Fault("specbook_relative_tolerance_ignored", "specbook",
          "A claim's relative tolerance is dropped: only atol counts.",
          (Patch("specbook/_numbers.py", "return (atol or 0.0) + (rtol or 0.0) * abs(expected)",
                 "return atol or 0.0"),),
          (TESTING,), ("testing_probe_relative",)),
    Fault("specbook_nan_passes", "specbook",
          "A NaN measurement passes: the comparison is written so that NaN is not 'greater than allowed'.",
          (Patch("specbook/_claims.py", "passed = math.isfinite(m) and math.isfinite(e) and diff <= allowed",
                 "passed = not diff > allowed"),),
          (TESTING,), ("testing_false_claims_raise",)),
    Fault("specbook_check_ignores_condition", "specbook",
          "specbook.check records every condition as holding.",
          (Patch("specbook/_claims.py", "    ok = bool(condition)\n", "    ok = True\n"),),
          (TESTING,), ("testing_false_claims_raise",)),
    Fault("specbook_patch_found_more_than_once", "specbook",
          "A fault's patch counts as applicable when its text occurs at all, not exactly once: the first of "
          "several places is patched, whichever it is.",
          (Patch("specbook/faults.py", "    if count != 1:\n        return f\"fault", "    if count == 0:\n        return f\"fault"),),
          (TESTING,), ("faults_stale_patches_refused",)),
    Fault("specbook_verdict_any_named_claim", "specbook",
          "A fault counts as caught when any one of the claims it names fails, not every one: a renamed claim goes unseen.",
          (Patch("specbook/faults.py", 'return "caught" if set(self.expected) <= set(self.observed) else "misattributed"',
                 'return "caught" if set(self.expected) & set(self.observed) else "misattributed"'),),
          (TESTING,), ("faults_verdicts",)),
    Fault("specbook_legend_checked_in_its_own_axes_only", "specbook",
          "A figure's legend or text is compared with no axes once it belongs to one: a legend wider than "
          "its panel runs over the next one unseen.",
          (Patch(_FIGURE_CHECKS, "if box.owner is not None and (ax is box.owner or _related(ax, box.owner)):",
                 "if box.owner is not None:"),),
          (AUTHORING,), ("authoring_figure_faults_found",)),
    Fault("specbook_cut_only_left_and_bottom", "specbook",
          "The cut check reads only the left and bottom edges of the view: a curve past the top passes.",
          (Patch(_FIGURE_CHECKS, "        if n:\n", "        if n and sign < 0:\n"),),
          (AUTHORING,), ("authoring_figure_faults_found",)),
    Fault("specbook_hidden_entry_ratio_swapped", "specbook",
          "A legend entry's pixel counts as seen when what it draws is most of what shows (the ratio the "
          "wrong way round), so an entry under the legend counts as drawn.",
          (Patch(_FIGURE_CHECKS, "seen = core & (shown >= 0.9 * drawn)", "seen = core & (drawn >= 0.9 * shown)"),),
          (AUTHORING,), ("authoring_figure_faults_found",)),
)
"""Every fault the book is tested against, by area."""
