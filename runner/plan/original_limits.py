"""What their programs can run: the transports, placements, sizes and windows a trial of theirs
may have (their port and addresses are fixed, their buffers are allocated per connection,
their windows are whole seconds). The plan leaves out, with a note, what falls outside."""

from __future__ import annotations

import math

from rundir import vocabulary

#: of the transports, the two their programs can use (no UDP)
TRANSPORTS = ("loopback", "veth")
PLACEMENTS = vocabulary.PLACEMENTS
MAX_SIZE = 64 * 2**20  # their buffers: 8 fields of size/8 each, allocated per connection
MAX_DURATION_S = 600
#: their programs take the window in whole seconds; S3's client stops when the tv_sec
#: difference reaches it (between duration - 1 and duration s), so S3 gets at least 2
MIN_WINDOW_S = {"S1": 1, "S2": 1, "S3": 2}


def window(source: str, window_s: float) -> int:
    """The whole-second window their program of ``source`` runs for a copybench window."""
    return max(MIN_WINDOW_S[source], math.ceil(window_s - 1e-9))
