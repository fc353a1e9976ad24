# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # When avoiding a copy pays
#
# The paper's central question, answered from this run. Every copy-avoiding message method
# is compared with two-copy `send`, and every file method with `read-write` (the copy
# through user space), size by size, in each transport and placement. Each comparison is
# the run's declared design (paired by block and round when the run has blocks: geometric
# mean of the per-round ratios, t CI at level {glue:text}`family_level:s` over the m sizes of one method in
# one configuration) read with one rule, the band the claims are read at
# ({glue:text}`band:s`): **greater** if the CI lies above {glue:text}`band_hi:s`, **less**
# if below {glue:text}`band_lo:s`, **equivalent** if inside [{glue:text}`band_lo:s`,
# {glue:text}`band_hi:s`], otherwise **inconclusive**; and with direction and size apart: a
# CI wholly above or below parity decides the direction (faster, slower) even where it
# crosses the band's edge (its size open). Each copy-avoiding message method is also set
# against `sendmsg`, which
# makes the same kernel copy as `send` without `send`'s user-space memcpy: a gain over `send`
# that `sendmsg` shares is the memcpy skipped, not a kernel copy avoided. The findings at the
# front of the book and the per-configuration list of the results chapter are worded from
# these tables; nothing in them is typed by hand.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]

import pandas as pd
from IPython.display import Markdown, display

from analysis.comparison import stability as ST
from analysis.words import abstract as AB
from analysis.words import advice as ADV
from analysis import claims as C
from analysis.words import counts as CN
from analysis.words import findings as F
from analysis.words import headlines as H
from analysis.figures import plots as P
from analysis.words import revisions as RV
from analysis.loading import run as A
from analysis import study as SD
from analysis.statistics import stats as S
from analysis.claims.base import stream_cells
from analysis.statistics.fmt import fmt_size
from decision.band import band
from analysis.words.output import glue_text, include, include_figure, note, show_table
from analysis.words import prose as PR

P.setup("findings")
study = SD.open(run_dir)  # the run, its verdicts and readings, computed once per build
run = study.run
kind = F.run_kind(run.manifest, run.plan)
MSG_FACTORS = CN.MSG_FACTORS
cells = stream_cells(run, udp=True)  # TCP and udp-forward
th0 = int(cells["threads"].min()) if len(cells) else 1
msg = study.readings  # CN.message_table(run)
# the copy-avoiding methods against sendmsg: the same kernel copy as send, no user memcpy
msg_sm = study.readings_sendmsg
files = study.file_readings  # CN.file_table(run)
zc = run.measured[run.measured["method"].isin(["zerocopy", "uring-zc"])
                  & run.measured["zc_completions"].fillna(0).gt(0)]
copied = {t: (int(g["zc_copied"].sum()), int(g["zc_completions"].sum()))
          for t, g in zc.groupby("transport")}
copied_by_method = {m: {t: (int(h["zc_copied"].sum()), int(h["zc_completions"].sum()))
                        for t, h in g.groupby("transport")} for m, g in zc.groupby("method")}


# the map's comparisons (the count owner's set, analysis.words.counts) and the crossovers
curve, curve_sm, xo = study.curve, study.curve_sendmsg, study.crossovers

# %% [markdown]
# (fig-decision-panels-data)=
# ## Decision map: every transport and placement
#
# The front page's figure: one panel per transport and placement, a row per message method,
# a column per size measured there; each square is one comparison with `send` (the paired
# ratio method / `send` printed in it), read with direction and size apart: dark green
# (orange) where the method is faster (slower) by more than the band {glue:text}`band:s`,
# light green (orange) where its CI excludes 1 but crosses the band's edge (the direction
# decided, its size open), grey where the two are equivalent within the band, white where
# the CI holds 1 and crosses an edge (undecided), lightly hatched where the pair was not
# measured at that size; white with its ratio in grey, dotted where it rests on fewer rounds
# than the design's minimum (not read), cross-hatched where copybench's receiver set the rate
# (not a test of the sender). Where one size
# was measured with two windows, the square shows the comparison with more rounds; the
# tables below give every window's.

# %% tags=["remove-input"]
MAP_METHODS = [m for m in A.MESSAGE_METHODS if m != "send"]
if len(curve):
    panels = P.decision_panels(ADV.map_data(curve), MAP_METHODS, "send",
                               title=f"method / send, {th0} thread(s)")
    P.show(panels)
    include_figure("decision-map.png", panels.figure)  # the front page shows it too
else:
    note("This run compares no copy-avoiding message method with `send` at two sizes or "
         "more in one configuration: it has no decision map.")
    import matplotlib.pyplot as plt  # the front page says so in its figure's place
    fig = plt.figure(figsize=(P.PDF_TEXT_WIDTH_IN * 0.98, 0.8))
    fig.text(0.5, 0.5, "This run compares no copy-avoiding message method with send "
             "at two sizes or more: it has no decision map.", ha="center", va="center",
             fontsize=9)
    include_figure("decision-map.png", fig)
    plt.close(fig)

# %% [markdown]
# (fig-decision-map)=
# ## Decision map: message methods against `send`, by placement
#
# One map per placement; in each, one row per transport and method, one column per message
# size, coloured as the front page's map (one legend for both): dark where the CI lies
# beyond the band {glue:text}`band:s`, light where it excludes 1 but crosses the band's edge
# (direction decided, size open), grey inside the band, white undecided, hatched where the
# pair was not measured at that size; the number is the ratio
# method / `send`. Sizes of one transport may come from blocks with different windows
# ({glue:text}`map_windows:s`): the tables below give each one's window.

# %% tags=["remove-input"]
glue_text("map_windows", F.windows_text(curve))


def maps(d: pd.DataFrame, baseline: str) -> None:
    """One decision map per placement (rows: transport and method, columns: sizes); a
    transport measured at one size with two windows gets one row per window."""
    meths = [m for m in A.MESSAGE_METHODS if m not in ("send", baseline)]
    for pl, g in d.groupby("placement", sort=True):
        lab = g.apply(lambda r: f"{r['transport']}" + (" UDP" if r.get("protocol") == "udp"
                                                      else ""), axis=1)
        dup = g.assign(_l=lab).duplicated(["_l", "method", "size"], keep=False).any()
        g = g.assign(group=lab + (g["duration_s"].map(lambda w: f", {w:g} s") if dup else ""))
        P.show(P.decision_map(g, "group", meths, baseline,
                              title=f"method / {baseline}, {pl}, {th0} thread(s)"))


if len(curve):
    maps(curve, "send")
else:
    note("This run has no message stream cell measured with both a method and `send`.")

# %% [markdown]
# (fig-decision-map-sendmsg)=
# ## Decision map: the zero-copy methods against `sendmsg`
#
# The same map with `sendmsg` as the baseline. `sendmsg` gathers the fields in the kernel's
# one copy; `send` adds a user-space memcpy in front of that copy. A method that beats `send`
# but not `sendmsg` gains by skipping that memcpy, not by avoiding the kernel's copy.

# %% tags=["remove-input"]
if len(curve_sm):
    maps(curve_sm, "sendmsg")
else:
    note("This run has no message stream cell measured with both a method and `sendmsg`.")

# %% [markdown]
# (fig-ratio-message)=
# ## Message methods: ratio to `send` against size
#
# The ratio method / `send` with its CI as a band; the grey band is {glue:text}`band:s` around 1.0. A
# dotted vertical line marks a crossover (the size from which a method beats `send`, by
# bootstrap over rounds) with its CI shaded, where the curves cross in the measured range
# *and* the crossover agrees with the decided comparisons around it (no size above it
# decided slower, none below it decided faster, one above it decided faster); the table
# below lists every crossover and why one is not drawn.

# %% tags=["remove-input"]
if len(curve):
    drawn = xo[xo["agrees"]] if len(xo) else xo
    for g in P.ratio_figures(curve, "method", "message size (bytes, log scale)",
                             "ratio to send (log scale)", col="configuration", crossovers=drawn,
                             rounds_min=run.rounds_min,
                             title=f"throughput relative to two-copy send, {th0} thread(s)"):
        P.show(g)
    xs = xo[xo["crossover"].notna()] if len(xo) else xo
    if len(xs):
        # a CI is printed only where a measured size lies within it: otherwise the
        # crossover lies between the measured sizes around it, and a narrower CI is the
        # interpolation's, not the data's
        t = xs.assign(crossover=F.crossover_words(xs, msg, MSG_FACTORS),
                      drawn=xs["agrees"].map({True: "yes", False: "no"}))
        show_table(t[["configuration", "method", "crossover", "p_none", "drawn", "why"]]
                   .rename(columns={"p_none": "P(no crossover)",
                                    "why": "against the decided comparisons"}))
    else:
        note("No method crosses `send` within the measured sizes in this run.")

# %% [markdown]
# (fig-ratio-files)=
# ## File methods: ratio to `read-write` against size

# %% tags=["remove-input"]
if len(files):
    f2 = files.assign(path=files.apply(
        lambda r: f"{r['scenario']}, {r['placement']}, {r['cache']}", axis=1))
    for g in P.ratio_figures(f2, "method", "file size (bytes, log scale)",
                             "ratio to read-write (log)", col="path", rounds_min=run.rounds_min,
                             title="throughput relative to read-write"):
        P.show(g)
else:
    note("This run has no file cell measured with both a method and `read-write`.")

# %% [markdown]
# (tab-cmp-message)=
# ## Every comparison: message methods against `send`
#
# Every window's comparison, single-size configurations included. *decision* is what the CI
# says against the band; *reading* is what the map, the counts and the findings read: the
# decision, *not read* where the comparison rests on fewer rounds than the design's minimum,
# or *receiver-bound* where copybench's receiver set the rate of one of its two cells (not a
# test of the sender).

# %% tags=["remove-input"]
# each comparison's reading beside its CI's decision: not read (under the design's minimum
# rounds), receiver-bound (not a test of the sender), or the decision itself
COLS = ["configuration", "method", "size", "design", "n", "ratio", "lo", "hi", "decision",
        "read", "why"]
CI_NAMES = {"lo": "CI low", "hi": "CI high", "read": "reading"}
if len(msg):
    show_table(msg.assign(size=msg["size"].map(fmt_size),
                          configuration=msg.apply(F.config_label, axis=1))[COLS]
               .rename(columns=CI_NAMES))
else:
    note("No message method was measured beside `send` in this run.")

# %% [markdown]
# (tab-cmp-sendmsg)=
# ## Every comparison: the zero-copy methods against `sendmsg`
#
# The same columns, with `sendmsg` as the baseline.

# %% tags=["remove-input"]
if len(msg_sm):
    show_table(msg_sm.assign(size=msg_sm["size"].map(fmt_size),
                             configuration=msg_sm.apply(F.config_label, axis=1))[COLS]
               .rename(columns=CI_NAMES))
else:
    note("No message method was measured beside `sendmsg` in this run.")

# %% [markdown]
# (tab-cmp-files)=
# ## Every comparison: file methods against `read-write`
#
# The same columns: a file sent into a socket has copybench's receiver on the other side, so
# its reading can be *receiver-bound*; a file→file copy has no receiver.

# %% tags=["remove-input"]
if len(files):
    show_table(files.assign(size=files["size"].map(fmt_size))[
        ["scenario", "transport", "placement", "cache", "method", "size", "design", "n",
         "ratio", "lo", "hi", "decision", "read"]].rename(
             columns={**CI_NAMES, "scenario": "path"}))
else:
    note("No file method was measured beside `read-write` in this run.")

# %% tags=["remove-input"]
results = study.results
verdicts = C.verdict_table(results)
book_counts = study.counts  # CN.book_counts, counted once in the Study
for name, text in study.facts["counts"].items():
    glue_text(name, text)
aa = study.aa
labels = {"send-fig": "fig-decision-map", "send-tab": "tab-cmp-message",
          "sendmsg-fig": "fig-decision-map-sendmsg", "sendmsg-tab": "tab-cmp-sendmsg",
          "files-fig": "fig-ratio-files", "files-tab": "tab-cmp-files"}
# every window's comparison (single-size cells too): a decision that changes with the
# window is said in the finding
# the findings, the advice and the abstract read only comparisons resting on the design's
# minimum rounds (the maps and tables show every one)
RMIN = run.rounds_min
headline = ADV.front_findings(curve, files, MAP_METHODS, "fig-decision-panels",
                            labels["files-fig"], windows=msg, rounds_min=RMIN,
                            copied=copied_by_method)
control = F.control_finding(aa, RV.post_hoc(RV.AA_CONTROL, run.created_at))
body = (F.unsupported_text(kind) + "\n\n" if kind else "") + ADV.findings_list(headline)
# the exhaustive list, configuration by configuration, for the results chapter
every = (F.comparison_findings(curve.drop(columns=["configuration"]) if len(curve) else curve,
                               "send", MSG_FACTORS, "message", "fig-ratio-message", xo,
                               [m for m in A.MESSAGE_METHODS if m != "send"])
         + F.comparison_findings(files, "read-write", ("scenario", "transport", "placement",
                                                       "cache"), "file", "fig-ratio-files",
                                 None, [m for m in A.FILE_METHODS if m != "read-write"]))
m = run.measured
t0 = pd.to_datetime(run.trials["started_at"], utc=True, errors="coerce")
hours = float((t0.max() - t0.min()).total_seconds() / 3600) if t0.notna().any() else 0.0
# the counts read comparisons by the band and by the one reading (not read, receiver-bound):
# post hoc where either rule is newer than the run
post_hoc = any(RV.post_hoc(r, run.created_at) for r in (RV.BAND_RULE, RV.READING_RULE))
# the map's rows a finding may read (the count owner's `read` set)
summary = H.abstract_results(AB.readable(ADV.map_data(curve) if len(curve) else curve, RMIN),
                             AB.readable(curve_sm, RMIN),
                             AB.readable(files, RMIN), verdicts, kind, len(m), hours,
                             F.testbed_text(run.manifest), copied, post_hoc=post_hoc)
verify = m["verify"] if "verify" in m else pd.Series(dtype=object)
# the verdicts across the committed runs that test the claims (the replication appendix's
# stability table): what holds on every CPU class measured
_long, _infos = SD.stability(study, A.instant(C.REVISED))
_stability = AB.stability_of(ST.table(_long, _infos),
                             list(dict.fromkeys(i.cpu_class for i in _infos)), len(_infos))
facts = AB.Facts(F.testbed_text(run.manifest), len(m), hours,
                 int(verify.isin(["sample", "full"]).sum()), RMIN, post_hoc,
                 tuple(t for t in AB.TRANSPORT_WORDS if t in set(m["transport"].dropna())),
                 copied, stability=_stability)
map_rows = ADV.map_data(curve) if len(curve) else curve
abstract = AB.abstract(map_rows, files, verdicts, facts, kind)
glue_text("rounds_min", str(RMIN))
# the map's comparisons the findings do not read, by why (the count owner's tally of them)
glue_text("unread", book_counts.message.unread_text(RMIN))
glue_text("n_findings", str(len(headline)))
glue_text("band", RV.band_label(run.created_at))
glue_text("band_lo", f"{band()[0]:.2f}")
glue_text("band_hi", f"{band()[1]:.2f}")
glue_text("family_level", PR.family_level())
# The introduction includes the abstract and the findings, the results chapter the full list
# (book/intro.md, book/results.md: {include}), and the PDF's abstract page inputs the same
# sentences (book/_config.yml): glued as the book's includes.
for name, text in (("abstract.inc", abstract + "\n"), ("findings.inc", body + "\n"),
                   ("comparisons.inc", F.findings_markdown(every, kind)
                    + (f"\n\n{control.text}" if control else "") + "\n"),
                   ("abstract-latex.inc", F.markdown_to_latex(abstract) + "\n")):
    include(name, text)
display(Markdown("**Every comparison, summed up.** " + summary))
display(Markdown(body))
