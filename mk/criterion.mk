# The reproduction criterion by simulation (decision.simulation.simulate_criterion): reruns of
# the reference's truth drawn under the design; the criterion (share of the reference's
# decided comparison sets reproduced, none reversed) that a rerun of the same truth passes
# with probability >= 95 %, and the chance of passing when k sets truly differ.
.PHONY: criterion
criterion:
	$(PY) studies/reproduction_criterion.py --simulate decision/criterion.json
