"""copybench runner: the sweep. Profiles -> planned, randomized trials -> data/raw/<run-id>/.

Modules (one concern each): ``profile`` (TOML validation), ``plan`` (factorial design,
rounds, estimate), ``adaptive`` (stopping rule), ``topology`` (loopback / veth /
udp-forward namespaces), ``placement``, ``execute`` (one trial), ``peers`` (iperf3,
sockperf), ``perfprof`` (perf record and its reduction), ``manifest`` (the environment),
``progress``, ``sweep`` (orchestration, as a library), ``cli``. The run directory's format
(records, schemas, seal) is :mod:`rundir`'s; the runner never imports the analysis.
"""

__version__ = "0.1.0"
