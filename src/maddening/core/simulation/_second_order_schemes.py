"""Second-order and implicit one-step schemes (central differences, backward Euler, trapezoidal).

Importing this module registers them in ``maddening.core.simulation.integrators.METHODS``.
"""
