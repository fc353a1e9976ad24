"""``copybench send --alternate M``: two methods alternating inside one trial, on the same
connection and threads (the even slices of the window ``--method``, the odd ones M), so the
two share the window's time and the process's state; the record says which method each slice
sent and each method's bytes, seconds and throughput. A control of the noise study: does
a within-trial ratio of two methods vary less from round to round than today's ratio of two
trials?

Real processes over loopback, as tests/c/test_noise_fields.py runs them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from test_noise_fields import port, schema_problems, send, wrapped  # noqa: F401 (fixture)


def test_two_methods_share_the_window_slice_by_slice(copybench: Path,
                                                     port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "send", "--alternate", "sendmsg", "--size", "16K",
               "--duration", "0.5", "--warmup", "0.1")
    assert rec["config"]["method"] == "send" and rec["config"]["alternate"] == "sendmsg"
    res = rec["result"]
    alt = res["alternate"]
    assert alt["methods"] == ["send", "sendmsg"]
    assert alt["slice_methods"] == ["send", "sendmsg"] * 5
    # the two methods' slices add up to the window: every byte and second is one method's
    assert sum(alt["bytes"]) == res["bytes"] and all(b > 0 for b in alt["bytes"]), alt
    assert sum(alt["seconds"]) == pytest.approx(res["seconds"], rel=1e-6)
    for b, s, g in zip(alt["bytes"], alt["seconds"], alt["gbit_per_s"]):
        assert g == pytest.approx(b * 8 / s / 1e9, rel=1e-6)
    # one stream, verified by the sink: message i is the same bytes whichever method sent it
    assert res["verify"]["mismatches"] == 0 and res["verify"]["bytes_checked"] > 0
    assert res["zerocopy"] is None
    assert schema_problems(wrapped(rec)) == []


def test_zerocopy_sends_in_its_slices_only_and_every_completion_arrives(
        copybench: Path, port: int) -> None:  # noqa: F811
    size = 16384
    rec = send(copybench, port, "--method", "send", "--alternate", "zerocopy", "--size",
               str(size), "--duration", "0.5", "--warmup", "0.1")
    res = rec["result"]
    zc, alt = res["zerocopy"], res["alternate"]
    # zerocopy's calls moved the odd slices' bytes (within the one message per edge that
    # is counted in the slice it ends in, and the rare partial send) ...
    assert zc is not None and zc["sends"] > 0
    assert zc["sends"] * size == pytest.approx(alt["bytes"][1], rel=0.05), (zc, alt)
    # ... and their completions were read across the other method's turns and drained
    assert zc["completions"] == zc["sends"], zc
    assert res["verify"]["mismatches"] == 0
    assert schema_problems(wrapped(rec)) == []


def test_the_same_method_twice_is_an_a_a_within_one_trial(copybench: Path,
                                                         port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "send", "--alternate", "send", "--size", "512",
               "--duration", "0.3", "--warmup", "0.1")
    alt = rec["result"]["alternate"]
    assert alt["methods"] == ["send", "send"] and all(b > 0 for b in alt["bytes"])


def test_without_it_the_record_says_one_method(copybench: Path, port: int) -> None:  # noqa: F811
    rec = send(copybench, port, "--method", "sendmsg", "--size", "16K", "--duration", "0.3",
               "--warmup", "0.1")
    assert rec["config"]["alternate"] is None and rec["result"]["alternate"] is None


@pytest.mark.parametrize("args,words", [
    (["--method", "send", "--alternate", "vmsplice"], "'vmsplice' cannot alternate"),
    (["--method", "send", "--alternate", "nosuch"], "'nosuch' cannot alternate"),
    (["--method", "splice", "--alternate", "send"], "only with --method send, sendmsg"),
    (["--method", "send", "--alternate", "sendmsg", "--protocol", "udp"], "tcp and --mode stream"),
    (["--method", "send", "--alternate", "sendmsg", "--mode", "pingpong"], "tcp and --mode stream"),
    (["--method", "zerocopy", "--alternate", "zerocopy"], "zerocopy cannot alternate with itself"),
])
def test_what_cannot_alternate_is_a_one_line_usage_error(copybench: Path, args: list[str],
                                                         words: str) -> None:
    r = subprocess.run([str(copybench), "send", "--host", "127.0.0.1", *args],
                       capture_output=True, text=True, timeout=30, check=False)
    assert r.returncode == 2, r
    assert r.stdout == "" and r.stderr.strip().count("\n") == 0 and words in r.stderr, r.stderr
