"""The array types of the optimiser: numpy arrays with the dtype its kernels compile for."""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

#: costs: a cost matrix (``D``, ``M``), the prefix sums ``fwd``/``bwd`` of the ILS, totals of many orders
Floats: TypeAlias = npt.NDArray[np.float64]
#: node indices: tours, positions, neighbour lists, the ILS work stack and buffer, rows of orders
Nodes: TypeAlias = npt.NDArray[np.int64]
#: the ILS don't-look bits (1: the node is on the work stack)
Flags: TypeAlias = npt.NDArray[np.int8]
