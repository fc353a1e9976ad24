"""A run read beside another: the comparison of a reviewer's run with the reference
(:mod:`.compare`), the "Results Reproduced" rule (:mod:`.reproduce`), runs from other machines
(:mod:`.machines`), C13's sides on each CPU class with the sender's profile (:mod:`.senders`),
each verdict's stability across runs (:mod:`.stability`) and the ``make compare`` command (:mod:`.compare_report`, with :mod:`.notebook_html` and
:mod:`.orphans`). Above the claims; below figures and words."""
