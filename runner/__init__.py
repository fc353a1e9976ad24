"""copybench runner: the sweep. Profiles -> planned, randomized trials -> data/raw/<run-id>/.

Modules, one concern each, in layers (a module imports only its own layer or lower ones;
``tests/test_layout.py`` holds the list and checks it):

* base: ``errors``; ``pinning`` (CPUs of a placement), ``binary`` (where copybench is),
  ``proc`` (child processes, the reaper pipe, the one process-group kill), ``netns``, ``ssh``,
  ``hostfacts``; ``reaper`` (the watchdog, a leaf);
* what to run: ``profile`` (the sweep profile: TOML validation), ``cpuprofile`` (perf record
  and its reduction), ``peers`` (iperf3, sockperf), ``inventory`` (the remote host as named),
  ``manifest`` (the environment); ``originals`` (the reports' own programs);
* the plan: ``model`` (Cell, Trial, Plan), ``machine`` (what the machine offers),
  ``adaptive`` (stopping rule), ``design`` (blocks, the noise model), ``expand`` (cells, one
  host or two), ``estimate`` (time), ``topup`` (the sequential top-up: comparisons, the next
  look, the expected undecided), ``plan``, ``noisemodel`` (``python -m runner noise``);
* running trials: ``pair`` (the one pair runner), ``remotehost``, ``transports`` (loopback,
  veth, udp-forward, remote), ``copybench_argv``, ``trialrecord``, ``copybench_trial``,
  ``peer_trial``, ``trials``;
* a run: ``runlock`` (one writer per run directory), ``runstate`` (a run checked before
  it is resumed), ``runfiles`` (the run directory's files), ``progress``, ``sweep`` (the
  loop), ``session`` (one invocation, as a library), ``notebook``, ``cli``.

The run directory's format (records, schemas, file names, the quantities both sides
compute, seal) is :mod:`rundir`'s; the runner never imports the analysis.
"""

__version__ = "0.1.0"
