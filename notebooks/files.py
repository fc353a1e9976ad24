# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # File methods
#
# Moving a file: to a socket (`read-write`, `mmap-write`, `sendfile`, `splice`, `splice2`)
# and to another file (`read-write`, `sendfile`, `splice`, `splice2`, `copy_file_range`),
# with the source in the page cache (*warm*) or dropped from it before every pass
# (*cold*, `posix_fadvise(POSIX_FADV_DONTNEED)`). Bars are medians with {glue:text}`ci_level:s` bootstrap CIs,
# one figure per placement (a bar never pools placements). A file-to-file copy makes at least
# one copy between two buffers of the file's size; the dashed line is user-space memcpy
# measured once, before the sweep, at that working-set size, drawn in a size's panel only
# where the run measured memcpy at that size (smaller files fit in the caches and copy faster
# than a large memcpy). It is a reference, not a bound: the kernel copies pages with its own
# routine, and one measurement of memcpy has its own noise, so a file copy can exceed it.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import pandas as pd

from analysis.words import revisions as RV
from analysis.loading import run as A
from analysis import study as SD
from analysis.figures import plots as P
from analysis.statistics import stats as S
from analysis.words import headlines as H
from analysis.statistics.fmt import fmt_size
from analysis.words.output import glue_text, note, show_table
from analysis.words import prose as PR

P.setup("files")
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
m = run.measured
# one window per configuration: a bar never pools two blocks' windows
fm = A.one_window(m[m["scenario"].isin(["file→socket", "file→file"])]).copy()
fm["file size"] = fm["size"]  # facets ordered by value, titled as the sources name sizes
fm["cache"] = fm["cache"].fillna("n/a")
if fm.empty:
    note("This run has no file-method cells.")

# %% [markdown]
# ## File → socket

# %% tags=["remove-input"]
fs = fm[fm["scenario"] == "file→socket"]
if len(fs):
    t_ref, _ = A.reference(fs, transports=("loopback", "veth"))
    for pl, d in fs[fs["transport"] == t_ref].groupby("placement", sort=True):
        for g in P.facet_figures(P.bars, d, "method", "gbit_per_s", "cache", "method",
                                 "throughput (Gbit/s)", col="file size",
                                 order=A.method_order(d),
                                 title=f"file → socket ({t_ref}, {pl})"):
            P.show(g)
else:
    note("No file → socket cells in this run.")

# %% [markdown]
# ## File → file

# %% tags=["remove-input"]
ff = fm[fm["scenario"] == "file→file"]
if len(ff):
    for pl, d in ff.groupby("placement", sort=True):
        for g in P.facet_figures(P.bars, d, "method", "gbit_per_s", "cache", "method",
                                 "throughput (Gbit/s)", col="file size",
                                 order=A.method_order(d), bound=P.memcpy_bounds(run.manifest),
                                 title=f"file → file ({pl})"):
            P.show(g)
else:
    note("No file → file cells in this run.")

# %% [markdown]
# ## Each method against `read-write`
#
# Each method / `read-write` under the run's declared design (paired by block and round when
# the run has blocks), family: the sizes of one method on one path, placement and cache
# state; read against the band {glue:text}`band:s` as in the message chapter. *reading* is what
# the findings read: the decision, *not read* under the design's minimum rounds, or
# *receiver-bound* where copybench's receiver set the rate of a cell (a file sent into a
# socket; a file→file copy has no receiver). {doc}`findings` draws these ratios against size.

# %% tags=["remove-input"]
cmp_tab = study.file_readings  # CN.file_table(run): each comparison with its reading
if len(cmp_tab):
    show_table(cmp_tab.assign(size=cmp_tab["size"].map(fmt_size))[
        ["scenario", "transport", "placement", "cache", "method", "size", "design", "n",
         "ratio", "lo", "hi", "decision", "read"]].rename(columns={
             "scenario": "path", "size": "file size", "ratio": "ratio vs read-write",
             "lo": "CI low", "hi": "CI high", "read": "reading"}))
else:
    note("No file method was measured beside `read-write` in this run.")

# %% tags=["remove-input"]
glue_text("band", RV.band_label(run.created_at))
glue_text("ci_level", PR.ci_level())
glue_text("file_best_socket", H.file_leader_text(run, fs))
glue_text("file_best_file", H.file_leader_text(run, ff))
# cold over warm for the same path, method and size only
ratios = []
for (scen, meth, size, _tr, _pl), g in fm.groupby(["scenario", "method", "size", "transport",
                                                   "placement"], dropna=False):
    cold = A.values(g[g["cache"] == "cold"], "gbit_per_s")
    warm = A.values(g[g["cache"] == "warm"], "gbit_per_s")
    if cold.size >= 2 and warm.size >= 2:
        ratios.append((scen, meth, size, S.ratio_of_medians(cold, warm)))
if ratios:
    tab = pd.DataFrame([{"path": a, "method": b, "file size": fmt_size(c),
                         "cold / warm": e.value, "CI low": e.lo, "CI high": e.hi}
                        for a, b, c, e in ratios])
    show_table(tab)
    lo, hi = tab["cold / warm"].min(), tab["cold / warm"].max()
    glue_text("file_cold_vs_warm", f"a throughput ratio (cold / warm, of medians) between "
              f"{lo:.2f} and {hi:.2f} over the {len(tab)} path/method/size cells measured "
              "both ways")
else:
    glue_text("file_cold_vs_warm", "n/a (no file cell measured both warm and cold in this run)")
