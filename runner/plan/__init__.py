"""What a sweep runs, decided before it runs: the profile, its cells, the block design, the
rounds, the time estimate and the sequential top-up (over :mod:`runner.host`)."""
