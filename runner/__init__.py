"""copybench runner: the sweep. Profiles -> planned, randomized trials -> data/raw/<run-id>/.

One folder per layer, lowest first; a module imports modules of its own folder or of lower
ones, never of a higher one (``tests/test_layout.py`` reads the layers from these folders and
checks every import):

* ``host/``: this machine and the other one: errors, child processes and the reaper,
  network namespaces, ssh, CPUs of a placement, the copybench binary, host facts, CPU profiles
  (``perf record``), what the machine offers a plan (``capabilities``), the remote host as
  named (``inventory``) and as reached (``remotehost``), the environment ``manifest``;
* ``plan/``: what to run: the sweep ``profile``, ``cells`` (Cell, Trial, Plan), the block
  design (``blocks``), the profile's cells (``expand``), the plan's ``rounds``, time
  (``estimate``), the sequential ``topup``, the stopping rule (``adaptive``), the noise model
  (``noisemodel``: ``python -m runner noise``), what the reports' programs can run
  (``original_limits``);
* ``trial/``: one trial: the ``pair`` runner, the ``transports`` (loopback, veth,
  udp-forward, remote), copybench's argv, the record (``trialrecord``), copybench's trial,
  the peer tools' (``peers``, ``peer_trial``);
* ``originals/``: the reports' own programs: fetched pinned, built, run for one trial
  (``python -m runner.originals``);
* ``sweep/``: a run: one trial of any kind (``trials``, the one trial builder), the run lock, the state checked
  before a resume (``runstate``), the run's files (``runfiles``), ``progress``, the ``loop``,
  one invocation as a library (``session``), the ``notebook``, the ``cli``.

The run directory's format (records, schemas, file names, seal) is :mod:`rundir`'s; the
statistics both sides compute (the block design's quantities, the sequential looks) are
:mod:`decision`'; the runner never imports the analysis.
"""

__version__ = "0.1.0"
