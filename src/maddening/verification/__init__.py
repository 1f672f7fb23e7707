"""maddening.verification: observed order of accuracy, manufactured solutions, benchmark records."""

from maddening.verification.benchmarks import Benchmark, all_benchmarks, get, half_unit_of_last_digit, register
from maddening.verification.mms import ManufacturedSolution, mms_error, mms_ladder, relative_l2
from maddening.verification.order import LadderRung, OrderLadder, observed_orders

__all__ = [
    "Benchmark",
    "ManufacturedSolution",
    "LadderRung",
    "OrderLadder",
    "all_benchmarks",
    "get",
    "half_unit_of_last_digit",
    "mms_error",
    "mms_ladder",
    "observed_orders",
    "register",
    "relative_l2",
]

for _obj in (Benchmark, LadderRung, ManufacturedSolution, OrderLadder, all_benchmarks, get, mms_error, mms_ladder,
             observed_orders, register, relative_l2, half_unit_of_last_digit):
    _obj.__module__ = __name__  # documented (and cross-referenced) as maddening.verification.<name>
del _obj
