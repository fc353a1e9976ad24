"""A run: trials of every kind round by round, the run directory's lock, state and files,
progress, the session, the notebook and the command line (the runner's top layer)."""
