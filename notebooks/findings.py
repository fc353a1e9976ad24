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
# mean of the per-round ratios, t CI at level 1 − 0.05/m over the m sizes of one method in
# one configuration) read with one rule fixed before the run: **greater** if the CI lies
# above 1.03, **less** if below 0.97, **equivalent** if inside [0.97, 1.03], otherwise
# **inconclusive**. The findings at the front of the book are worded from these tables
# (`analysis/findings.py`); nothing in them is typed by hand.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import os
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from analysis import claims as C
from analysis import findings as F
from analysis import plots as P
from analysis import run as A
from analysis.claims.base import stream_cells
from analysis.claims.sendcmp import baseline_comparisons, crossovers, file_comparisons
from analysis.fmt import fmt_size
from analysis.output import glue_text, note, show_table

P.setup("findings")
run = A.load_run(run_dir)
kind = F.run_kind(run.manifest, run.plan)
MSG_FACTORS = ("transport", "protocol", "placement", "threads", "duration_s")
cells = stream_cells(run, udp=True)  # TCP and udp-forward
th0 = int(cells["threads"].min()) if len(cells) else 1
one = cells[cells["threads"] == th0]
msg = baseline_comparisons(run, one, "send", A.MESSAGE_METHODS, MSG_FACTORS)
xo = crossovers(run, one, "send", A.MESSAGE_METHODS, MSG_FACTORS)
files = file_comparisons(run)


def config_label(r: pd.Series) -> str:
    t = f"{r['transport']} (UDP)" if r.get("protocol") == "udp" else str(r["transport"])
    return f"{t}, {r['placement']}, {r['duration_s']:g} s"


for d in (msg, xo):
    if len(d):
        d["configuration"] = d.apply(config_label, axis=1)
# the figures and findings show configurations measured at two sizes or more (the method
# chapter's window curves add single-size cells at other windows; the tables list them)
if len(msg):
    n_sizes = msg.groupby("configuration")["size"].transform("nunique")
    curve = msg[n_sizes >= 2].copy()
else:
    curve = msg

# %% [markdown]
# (fig-decision-map)=
# ## Decision map: message methods against `send`
#
# One square per method and size: green where the method is faster than `send`, orange
# where it is slower, grey where the two are equivalent within ±3 %, white where the CI
# straddles a boundary (undecided); the number is the ratio method / `send`.

# %% tags=["remove-input"]
if len(curve):
    g = P.decision_map(curve, "configuration", [m for m in A.MESSAGE_METHODS if m != "send"],
                       title=f"method / send, TCP and UDP stream, {th0} thread(s)")
    P.show(g)
else:
    note("This run has no message stream cell measured with both a method and `send`.")

# %% [markdown]
# (fig-ratio-message)=
# ## Message methods: ratio to `send` against size
#
# The ratio method / `send` with its CI as a band; the grey band is ±3 % around 1.0. A
# dotted vertical line marks a crossover (the size from which a method beats `send`, by
# bootstrap over rounds) with its CI shaded, where the curves cross in the measured range.

# %% tags=["remove-input"]
if len(curve):
    g = P.ratios(curve, "method", "message size (bytes, log scale)", "ratio to send (log scale)",
                 col="configuration", col_wrap=2, crossovers=xo,
                 title=f"throughput relative to two-copy send, {th0} thread(s)")
    P.show(g)
    xs = xo[xo["crossover"].notna()] if len(xo) else xo
    if len(xs):
        t = xs.assign(crossover=xs["crossover"].map(fmt_size), lo=xs["lo"].map(fmt_size),
                      hi=xs["hi"].map(fmt_size))
        show_table(t[["configuration", "method", "crossover", "lo", "hi", "p_none", "design"]]
                   .rename(columns={"lo": "CI low", "hi": "CI high",
                                    "p_none": "P(no crossover)"}))
    else:
        note("No method crosses `send` within the measured sizes in this run.")

# %% [markdown]
# (fig-ratio-files)=
# ## File methods: ratio to `read-write` against size

# %% tags=["remove-input"]
if len(files):
    f2 = files.assign(path=files.apply(
        lambda r: f"{r['scenario']}, {r['placement']}, {r['cache']}", axis=1))
    g = P.ratios(f2, "method", "file size (bytes, log scale)", "ratio to read-write (log)",
                 col="path", col_wrap=2, title="throughput relative to read-write")
    P.show(g)
else:
    note("This run has no file cell measured with both a method and `read-write`.")

# %% [markdown]
# ## Every comparison

# %% tags=["remove-input"]
if len(msg):
    show_table(msg.assign(size=msg["size"].map(fmt_size))[
        ["configuration", "method", "size", "n", "ratio", "lo", "hi", "decision", "why"]]
        .rename(columns={"lo": "CI low", "hi": "CI high"}))
if len(files):
    show_table(files.assign(size=files["size"].map(fmt_size))[
        ["scenario", "transport", "placement", "cache", "method", "size", "n", "ratio", "lo",
         "hi", "decision"]].rename(columns={"lo": "CI low", "hi": "CI high"}))

# %% tags=["remove-input"]
verdicts = C.verdict_table(C.evaluate(run))
aa = C.twin_pairs(run)
found = (F.comparison_findings(curve.drop(columns=["configuration"]) if len(curve) else curve,
                               "send", MSG_FACTORS, "message", "fig-ratio-message", xo,
                               [m for m in A.MESSAGE_METHODS if m != "send"])
         + F.comparison_findings(files, "read-write", ("scenario", "transport", "placement",
                                                       "cache"), "file", "fig-ratio-files",
                                 None, [m for m in A.FILE_METHODS if m != "read-write"]))
for extra in (F.claims_finding(verdicts), F.control_finding(aa)):
    if extra is not None:
        found.append(extra)
m = run.measured
t0 = pd.to_datetime(run.trials["started_at"], utc=True, errors="coerce")
hours = float((t0.max() - t0.min()).total_seconds() / 3600) if t0.notna().any() else 0.0
abstract = F.abstract_results(curve, files, verdicts, kind, len(m), hours,
                              F.testbed_text(run.manifest))
body = F.findings_markdown(found, kind)
glue_text("n_findings", str(len(found)))
# The introduction includes the abstract and the findings (book/intro.md: {include}), and
# the PDF's abstract page inputs the same sentences (book/_config.yml): written beside this
# notebook by `make book`, each whole or not at all.
out = os.environ.get("COPYBENCH_FIGDATA")
if out:
    gen = Path(out).parent
    for name, text in (("abstract.inc", abstract + "\n"), ("findings.inc", body + "\n"),
                       ("abstract-latex.inc", F.markdown_to_latex(abstract) + "\n")):
        tmp = gen / f".{name}.tmp"
        tmp.write_text(text)
        tmp.replace(gen / name)
display(Markdown("**Abstract (results).** " + abstract))
display(Markdown(body))
