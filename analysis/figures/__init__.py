"""The book's figures: the notebooks' plots and their checks (:mod:`.plots`), the replication
chapter's forest plot (:mod:`.forest`) and the CPU breakdown (:mod:`.cpu_breakdown`). Below
the words, which never import a figure."""
