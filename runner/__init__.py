"""copybench runner: sweep profiles -> planned, randomized trials -> data/raw/<run-id>/.

Modules (one concern each): ``profile`` (TOML validation), ``plan`` (factorial design,
rounds, estimate), ``adaptive`` (stopping rule), ``topology`` (loopback / veth /
udp-forward namespaces), ``placement``, ``execute`` (one trial), ``peers`` (iperf3,
sockperf), ``perfprof`` (perf record reduction), ``manifest``, ``records`` (trials.jsonl,
resume), ``progress``, ``sweep`` (orchestration), ``cli``.
"""

__version__ = "0.1.0"
