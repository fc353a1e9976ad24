"""The statistics of the block design that the runner and the analysis both compute, defined
once (neither imports the other, so they meet here): the quantities read from a run's records
(:mod:`.quantities`), the group-sequential design as declared (:mod:`.schedule`) and read
(:mod:`.sequential`), and the top-up's simulation (:mod:`.simulation`).

It imports no other package of this project; :mod:`.schedule` and :mod:`.quantities` use only
the standard library (the runner of the reports' programs runs them with whatever Python 3.11
the unprivileged user has), and this file imports nothing.
"""
