"""The book's words, the analysis' top layer: findings, headlines and the front page's advice
(:mod:`.findings`, :mod:`.headlines`, :mod:`.advice`), the phrases they share, each
written once (:mod:`.phrases`: a configuration's name, a span of sizes, a ratio with its CI,
"never beats"), the one owner of the printed counts
(:mod:`.counts`), the method chapter's generated sentences (:mod:`.prose`,
:mod:`.design_text`), the rules' revisions (:mod:`.revisions`), the sentences of the
chapters that read one concern each (:mod:`.verdicts`: the claims' counts; :mod:`.sides`:
which side set a rate, C13's senders; :mod:`.copies`; :mod:`.modes`: a bimodal cell;
:mod:`.machines`: a many-CPU run; :mod:`.reproduction`: the reproduction rule) and what a
notebook shows, the page includes it glues among it (:mod:`.output`)."""
