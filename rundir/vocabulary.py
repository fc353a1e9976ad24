"""The words a trial's configuration is written in, defined once for both sides: the
methods (copybench's public interface, ``copybench methods``), commands, transports,
placements, modes, page-cache states and verification levels, and the names the PA02
reports give three of the methods.

The runner plans and checks with them (``runner.plan.profile``), the analysis reads the
records with them (``analysis.loading.run``, the claims); the trial and plan schemas
(``rundir/schema/``) and copybench's method table list the same words, which
``tests/rundir/test_vocabulary.py`` checks.
"""

from __future__ import annotations

#: message -> socket (a message of ``--fields`` fields)
MESSAGE_METHODS = ("send", "sendmsg", "zerocopy", "uring-zc", "vmsplice")
#: file -> socket
FILE_SEND_METHODS = ("read-write", "mmap-write", "sendfile", "splice", "splice2")
#: file -> file (``copybench copy``)
COPY_METHODS = ("read-write", "sendfile", "splice", "splice2", "copy_file_range")
#: every method that reads a file, file -> socket first
FILE_METHODS = FILE_SEND_METHODS + ("copy_file_range",)
#: every method, in copybench's order
METHODS = MESSAGE_METHODS + FILE_METHODS
#: the message methods that also send UDP datagrams
UDP_METHODS = ("send", "sendmsg", "zerocopy", "uring-zc")

COMMANDS = ("send", "copy")
#: the transports of one machine (a record may also say ``remote``: the other host of an
#: inventory)
TRANSPORTS = ("loopback", "veth", "udp-forward")
PLACEMENTS = ("same-core", "cross-core", "unpinned")
#: the placements that pin both sides (sender and receiver on one CPU, or on two)
PINNED_PLACEMENTS = ("same-core", "cross-core")
MODES = ("stream", "pingpong")
CACHES = ("warm", "cold")
VERIFY = ("full", "sample", "off")

#: the PA02 reports' names for copybench's message methods (their Part A1/A2/A3)
REPORT_NAMES = {"send": "two-copy", "sendmsg": "one-copy", "zerocopy": "zero-copy"}
