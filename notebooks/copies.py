# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Where the copies happen: profiles
#
# Profiled trials ran under {glue:text}`perf_cmd:s` (system-wide). The
# runner reduced every sample to its thread name and leaf symbol: copybench names its
# threads `cb-send.N` (sending), `cb-sink.N` (receiving) and `cb-copy.N` (file to file),
# N the trial's tag, so each side's samples are counted by thread, not by subtraction,
# and threads of anything else running on the machine are left out. Each profile is also
# cut into {glue:text}`perf_window:s` windows. The copy count is calibrated in this run, at the same size, on
# the configurations whose count is known from the kernel's code, and validated by
# leave-one-out before it is used; the CPU breakdown puts every sample in one of Cai et
# al.'s categories.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.statistics import copycount as CP
from analysis.figures import cpu_breakdown as BD
from analysis.loading import run as A
from analysis import study as SD
from analysis.claims.copies import TEXTBOOK_COPIES, c15_details
from analysis.statistics.fmt import fmt_size
from analysis.words.output import glue_text, include, list_table, note, show_table
from analysis.words import prose as PR
from analysis.figures import plots as P
from analysis.loading import cpuprofiles as PROF
from analysis.words import copies as CO

P.setup()
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
m = run.measured
prof = run.profiles
glue_text("copies_n_profiles", str(prof.summary["cell"].nunique()) if not prof.empty else "0")
fmt2 = not prof.empty and getattr(prof, "windows", None) is not None and not prof.windows.empty
val, cnt, groups = CP.analyse(run) if fmt2 else (pd.DataFrame(), pd.DataFrame(), [])
glue_text("copies_bound", f"{CP.BOUND:g}")
glue_text("copies_tolerance", f"{CP.TOLERANCE:g}")
glue_text("copies_max", f"{CP.MAX_TOTAL:g}")
glue_text("perf_cmd", PROF.perf_command())
glue_text("perf_window", CO.window_text())
glue_text("ci_level", PR.ci_level())
per_cell = run.trials[(run.trials["repetition"] <= 0) & (run.trials["status"] == "ok")
                      & run.trials["cell"].isin(prof.summary["cell"] if not prof.empty
                                                else [])].groupby("cell").size()
glue_text("copies_profiled_per_cell",
          ("no profiled trials in this run" if per_cell.empty else
           f"{per_cell.min()} profiled trial{'s' if per_cell.min() != 1 else ''} per cell"
           if per_cell.min() == per_cell.max() else
           f"{per_cell.min()}–{per_cell.max()} profiled trials per cell"))


def show_fig(fig):
    if fig is not None:
        P.show(P.Figure(fig))  # checked for overlapping labels like every figure


# %% [markdown]
# ## The configurations whose count is known
#
# CPU copies per byte by construction, with the kernel path of each copy. They calibrate
# the CPU cost of one copied byte, per side, in each group (transport, placement, size) of
# this run; `zerocopy` only when every completion of its trials was `COPIED`, and
# `copy_file_range` only on a file system that does not reflink.

# %% tags=["remove-input"]
known = CP.known_table()
show_table(known)
# the chapter prints the same table (book/copies.md: {include}), glued as its include
short = known[["scenario", "method", "transports", "sender", "receiver", "kernel path"]]
short = short.assign(**{"kernel path": short["kernel path"].str.split(";").str[0]})
include("known-copies.inc", list_table(list(short.columns), [[str(v) for v in r] for r in
                                                             short.itertuples(index=False)])
        + "\n")

# %% [markdown]
# ## Validation: each known configuration predicted from the others
#
# For every known configuration, the cost of one copied byte is estimated from the *other*
# known configurations of its group, and its count predicted with it ({glue:text}`ci_level:s` bootstrap CI
# over profiled trials, their windows and the measured trials). A group is *identifiable*
# when every prediction, per side and end to end, is within ±{glue:text}`copies_tolerance:s`
# of the known count;
# only then are counts reported for its methods.

# %% tags=["remove-input"]
if not fmt2:
    glue_text("copies_interference", "not measured (profile format 1)")
    note("This run's CPU profiles do not separate the sending from the receiving threads "
         "(profile format 1, or no profiles): the copy count cannot be calibrated. Only the "
         "copy-routine share of copybench's samples is shown below.")
    glue_text("copies_validation", "not available (profile format 1)")
    glue_text("copies_price_spread", "not measured (profile format 1)")
else:
    vt = CP.validation_view(val).assign(result=np.where(val["pass"], "pass", "FAIL"))
    show_table(vt[["group", "method", "side", "known", "prediction", "price ratio", "price CI",
                   "result", "samples", "profiled_trials"]]
               .rename(columns={"profiled_trials": "profiled trials"}), floatfmt="{:.2f}")
    glue_text("copies_price_spread", CO.price_spread_text(val))
    gt = pd.DataFrame([{"group": CP._gname(g.key),
                        "identifiable": "yes" if g.identifiable else "no",
                        "CPU ns per copied byte, sender": g.cost["sender"].value * 1e9
                        if "sender" in g.cost else math.nan,
                        "receiver": g.cost["receiver"].value * 1e9
                        if "receiver" in g.cost else math.nan,
                        "why not": g.reason} for g in groups])
    show_table(gt, floatfmt="{:.3f}")
    n_ok = sum(g.identifiable for g in groups)
    glue_text("copies_validation", f"{n_ok} of {len(groups)} calibration groups validate")
    # how busy the machine was with other work while the profiles were taken
    sd = prof.sides.groupby(["trial_id", "side"])["samples"].sum().unstack(fill_value=0)
    allv = sd.sum(axis=1)
    busy_other = (sd.get("other", 0) / allv).median() if len(sd) else float("nan")
    ours = (sd.get("sender", 0) + sd.get("receiver", 0)) / allv
    glue_text("copies_interference",
              f"{100 * busy_other:.0f} % of the samples of a median profiled trial belong to "
              f"other processes ({len(sd)} profiled trials; the trial's own threads: "
              f"{100 * ours.median():.0f} %)")
    note("Interference: " + f"{100 * busy_other:.0f} % of the samples of a median profiled "
         f"trial belong to other processes; the trial's own sending and receiving threads "
         f"hold {100 * ours.median():.0f} %.")

# %% [markdown]
# ## CPU copies per byte, where identifiable
#
# Counts per side and end to end. Where the group fails validation the count is not
# identifiable and only the copy-routine share of the side's CPU samples is given.

# %% tags=["remove-input"]
if fmt2 and len(cnt):
    ct = cnt.assign(size=cnt["size"].map(fmt_size),
                    **{"copy share (%)": 100 * cnt["copy_share"]})
    ct["count"] = [f"{r['count']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]" if r["identifiable"]
                   else "not identifiable" for _, r in cnt.iterrows()]
    show_table(ct[["scenario", "transport", "size", "method", "side", "count",
                   "copy share (%)", "copy_cpu_s_per_gb", "samples", "profiled_trials"]]
               .rename(columns={"copy_cpu_s_per_gb": "copy CPU-s/GB",
                                "profiled_trials": "profiled trials"}), floatfmt="{:.2f}")
    assert not CP.check_bounds(cnt), CP.check_bounds(cnt)
    ok = cnt[cnt["identifiable"] & (cnt["side"] != "total")]
    if len(ok):
        keys = sorted(set(zip(ok["scenario"], ok["transport"].fillna("—"), ok["size"])),
                      key=str)
        n_rows = ok.groupby(["scenario", "transport", "size"], dropna=False)["method"].nunique()
        # at the PDF's text width (shown at its own size); the legend below the panels
        fig, axes = plt.subplots(len(keys), 1, squeeze=False, layout="constrained",
                                 figsize=(0.97 * P.PDF_TEXT_WIDTH_IN,
                                          1.0 + 0.32 * n_rows.sum() + 0.6 * len(keys)))
        for ax, (scen, tr, size) in zip(axes[:, 0], keys):
            d = ok[(ok["scenario"] == scen) & (ok["transport"].fillna("—") == tr)
                   & (ok["size"] == size)]
            methods = sorted(set(d["method"]))
            for k, (side, mk) in enumerate((("sender", "o"), ("receiver", "s"))):
                # a side whose count is not estimated here is not drawn (nor in the legend)
                s = d[(d["side"] == side) & d["count"].notna()].set_index("method")
                if s.empty:
                    continue
                y = np.array([methods.index(x) for x in s.index]) + (k - 0.5) * 0.25
                ax.errorbar(s["count"], y, xerr=[s["count"] - s["lo"], s["hi"] - s["count"]],
                            fmt=mk, capsize=3, label=side, color=P.color(side))
            ax.set_yticks(range(len(methods)))
            ax.set_yticklabels(methods)
            ax.set_ylim(len(methods) - 0.5, -0.5)  # first method on top
            # every CI inside the axis: it reaches past the bound where a CI does
            hi = d["hi"].max(skipna=True)
            ax.set_xlim(-0.1, max(CP.BOUND, hi + 0.1) if pd.notna(hi) else CP.BOUND)
            ax.set_title(", ".join(x for x in (scen, tr, fmt_size(size)) if x != "—"))
            ax.grid(axis="x", alpha=0.3)
        axes[-1, 0].set_xlabel("CPU copies per byte (calibrated; point: the count, bar: its "
                               "95 % CI)")
        handles = {lab: h for ax in axes[:, 0] for h, lab in zip(*ax.get_legend_handles_labels())}
        fig.legend([handles[s] for s in ("sender", "receiver") if s in handles],
                   [s for s in ("sender", "receiver") if s in handles],
                   loc="outside lower center", ncol=2, frameon=False)
        show_fig(fig)
    else:
        note("No group of this run validates: no count is identifiable, so none is plotted.")
elif not prof.empty:
    info = m.drop_duplicates("cell").set_index("cell")[["method", "scenario", "size"]]
    share = prof.summary.join(info, on="cell").dropna(subset=["method"])
    share = share.assign(size=share["size"].map(fmt_size),
                         **{"copy share (%)": 100 * share["copy_share_of_busy"]})
    show_table(share[["scenario", "method", "size", "copy share (%)", "samples"]],
               floatfmt="{:.1f}")

# %% [markdown]
# ## Claim C15: the textbook's copies on the sending path
#
# The table's methods are calibration points themselves, so each is measured by its
# leave-one-out estimate (calibrated on the others), at the sizes whose group validates.

# %% tags=["remove-input"]
book = pd.DataFrame([{"method": k, "textbook CPU copies": "/".join(map(str, v))}
                     for k, v in TEXTBOOK_COPIES.items()])
d = c15_details(val, groups) if fmt2 else pd.DataFrame()
if len(d):
    dv = CP.validation_view(d.drop(columns=["identifiable"])).assign(
        identifiable=np.where(d["identifiable"], "yes", "no"))
    show_table(dv.assign(size=d["size"].map(fmt_size))[
        ["method", "size", "textbook", "prediction", "price ratio", "identifiable"]]
        .rename(columns={"prediction": "sending-path copies (leave-one-out)"}),
        floatfmt="{:.2f}")
else:
    show_table(book)

# %% [markdown]
# ## Where the CPU goes: breakdown per method
#
# CPU-seconds per GB moved, per side, in the categories of Cai et al. (SIGCOMM 2021): each
# side's samples per category, as a share of that side's samples, times the side's median
# CPU-seconds per GB over the measured trials. One figure per scenario, transport and size;
# one method per row.

# %% tags=["remove-input"]
bd = BD.breakdown(run) if fmt2 else pd.DataFrame()
if len(bd):
    order = A.method_order(m) if hasattr(A, "method_order") else None
    for (scen, tr, size), g in bd.groupby([bd["scenario"], bd["transport"].fillna("—"),
                                           bd["size"]], sort=True):
        show_fig(BD.plot(g, ", ".join(x for x in (scen, tr, fmt_size(size)) if x != "—"),
                         [x for x in (order or []) if x in set(g["method"])] or None))
    w = BD.wide(bd)
    ids = ["scenario", "transport", "size", "method", "side"]
    # one column names the configuration (the PDF's page holds the categories beside it)
    w.insert(0, "configuration", w["scenario"] + " " + w["transport"] + " "
             + w["size"].map(fmt_size) + ", " + w["method"] + ", " + w["side"])
    show_table(w.drop(columns=ids).rename(columns=BD.CATEGORY_LABELS), floatfmt="{:.3f}")
else:
    note("No per-side CPU profiles in this run (profile format 1): no breakdown.")

# %% [markdown]
# ### The symbol-to-category map
#
# A sample counts in the category of its leaf symbol: exact names first, then the first
# matching pattern, in this order. The categories follow Cai et al.'s
# artifact (`symbol_mapping.tsv`); the differences are deliberate and listed in the
# chapter.

# %% tags=["remove-input"]
show_table(BD.category_map_table())

# %% [markdown]
# ## System calls per MiB moved

# %% tags=["remove-input"]
sc = A.one_window(m[m["sender_syscalls_per_mib"].notna() & (m["sender_syscalls_per_mib"] > 0)])
msg_sc = sc[(sc["scenario"] == "message") & (sc["mode"] == "stream") & (sc["threads"] == 1)
            & (sc["protocol"] != "udp")]
t_ref, p_ref = A.reference(msg_sc) if len(msg_sc) else (None, None)
sc = pd.concat([msg_sc[(msg_sc["transport"] == t_ref) & (msg_sc["placement"] == p_ref)],
                sc[sc["scenario"].isin(["file→socket", "file→file"])]])
if len(sc):
    # one panel per path, transport, placement and cache state; a point per size: the
    # median over that configuration's trials with its 95 % bootstrap CI (nothing pooled)
    sc = sc.assign(path=sc.apply(lambda r: ", ".join(
        str(x) for x in (r["scenario"], r["transport"], r["placement"], r["cache"])
        if isinstance(x, str)), axis=1))
    for g in P.facet_figures(P.lines, sc, "size", "sender_syscalls_per_mib", "method",
                             "size (bytes, log scale)", "syscalls per MiB (log)", col="path",
                             logy=True, title="system calls per MiB moved, sending side"):
        P.show(g)
else:
    note("No syscall counts in this run (the tracepoint needs root and perf).")
