# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Testbed and run quality
#
# The environment of the run this book is built from (from its `manifest.json`), the memcpy
# bandwidth every throughput figure draws as its upper bound, whether hardware performance
# counters exist, and how well the run met the statistics rules of the method chapter
# (drift against run order, outliers, normality, CI widths achieved).

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input"]
import pandas as pd

from analysis.words import design_text as DT
from analysis.words import findings as F
from analysis.words import revisions as RV
from analysis.loading import run as A
from analysis import study as SD
from analysis.figures import plots as P
from analysis.statistics import stats as S
from decision import sesoi as SE
from analysis.words import prose as PR
from analysis.statistics.fmt import fmt_band, fmt_hours, fmt_pct, fmt_size
from analysis.words.output import glue_text, include, list_table, note, show_table

P.setup()
study = SD.open(run_dir)  # the run, loaded once per build
run = study.run
man = run.manifest
trials, m = run.trials, run.measured
glue_text("run_id", run.run_id)
sweep_nbs = sorted(f.name for f in run.path.glob("sweep*.ipynb"))
glue_text("sweep_notebook", (", ".join(f"{run.path.name}/{n}" for n in sweep_nbs)
                             + " in the run directory") if sweep_nbs else
          "none: this run was made with python -m runner sweep (or before the sweep notebook "
          "existed); its sessions.json records each invocation")
design = (run.plan or {}).get("design") or {}
kind = F.run_kind(man, run.plan)
if kind == "synthetic":
    run_kind = "This run is SYNTHETIC test data, not a measurement."
elif kind == "rehearsal":
    run_kind = ("This run is a REHEARSAL: the profile's plan at about a tenth of its rounds, "
                "made to check the pipeline and this book; its numbers are not results.")
else:
    run_kind = "This run is a measurement on the testbed described in the method chapter."
glue_text("synthetic_note", run_kind)
glue_text("design_target", f"±{design['target']:.0%} for claims, the A/A control and the "
          f"questions, ±{design['descriptive_target']:.0%} for descriptive blocks"
          if design.get("target") is not None else
          "none: this run's adaptive design judged every cell alone")
glue_text("design_kind", "the block design (paired rounds, rounds per block planned from a "
          f"noise model; primary statistic: {design.get('primary')})" if run.plan and
          run.plan.get("blocks") is not None else
          "the adaptive design (every cell judged alone; no blocks, no pairs)")
glue_text("block_order", "in an order counterbalanced over pairs of rounds (shuffled in odd "
          "rounds, reversed in even ones)" if "reversed" in str((run.plan or {}).get("order"))
          else "in shuffled order")
glue_text("design_noise", f"the noise model of {design['noise_source']}"
          if design.get("noise_source") else "no noise model")
glue_text("design_sequential", DT.sequential_text(run))
glue_text("n_trials", f"{len(trials):,}")
glue_text("n_measured", f"{len(m):,}")
glue_text("n_cells", f"{m['cell'].nunique():,}")
failed = trials[trials["status"] != "ok"]
glue_text("n_failed", f"{len(failed):,}")
profiled = trials[(trials["repetition"] == 0)]
glue_text("n_profiled", f"{len(profiled):,}")
cbm = m[m["kind"] == "copybench"]
warm = cbm["warmup_s"].dropna()
glue_text("warmup", (f"{warm.min():g} s" if warm.min() == warm.max() else
                     f"{warm.min():g}–{warm.max():g} s") if len(warm) else "n/a")
ts = pd.to_datetime(trials["started_at"], utc=True, errors="coerce").dropna()
if len(ts) > 1:
    span = (ts.max() - ts.min()).total_seconds() + float(trials["duration_s"].fillna(0).iloc[-1])
    glue_text("run_wall", f"{span / 60:.0f} min" if span >= 60 else f"{span:.0f} s")
else:
    glue_text("run_wall", "unknown")
glue_text("n_transports", ", ".join(A.distinct(m, "transport")) or "none")
glue_text("n_placements", ", ".join(A.distinct(m, "placement")) or "none")
dur = cbm["duration_s"].dropna()
glue_text("duration", (f"{dur.min():g} s" if dur.min() == dur.max() else
                       f"{dur.min():g}–{dur.max():g} s") if len(dur) else "n/a")

# %% [markdown]
# ## Environment

# %% tags=["remove-input"]
def _d(v: object) -> dict:
    return v if isinstance(v, dict) else {}


def _bytes(v: object) -> str:
    """A byte count from the manifest ("4194304") as a size ("4 MiB"); else as it is."""
    try:
        return fmt_size(int(str(v)))
    except ValueError:
        return str(v)


def environment_rows(man: dict, pmu: tuple[bool, str]) -> list[dict[str, str]]:
    """The run's environment as a reader reads it: each property named in words, each value
    whole (nothing cut), the manifest's raw records (per-event perf output, every sysctl,
    every mitigation) left to manifest.json, which the table names."""
    k, cpu, mem = _d(man.get("kernel")), _d(man.get("cpu")), _d(man.get("memory"))
    virt, comp, sysctl = _d(man.get("virtualization")), _d(man.get("compiler")), \
        _d(man.get("sysctls"))
    mit = _d(man.get("mitigations"))
    mitigated = sorted(n.replace("_", " ") for n, v in mit.items()
                       if str(v).startswith("Mitigation"))
    vulnerable = sorted(n.replace("_", " ") for n, v in mit.items()
                        if str(v).startswith("Vulnerable"))
    git = _d(man.get("git"))
    rows = [
        ("Linux kernel", f"{k.get('release', 'unknown')} ({k.get('machine', '')})".replace(
            " ()", "")),
        ("Kernel mitigations setting",
         str(_d(k.get("cmdline_relevant")).get("mitigations") or "default")),
        ("Distribution", str(_d(man.get("distribution")).get("pretty_name") or "unknown")),
        ("Processor", f"{cpu.get('model') or man.get('cpu_model') or 'unknown'}, "
                      f"{cpu.get('count') or man.get('cpu_count') or '?'} CPUs"),
        ("Memory", fmt_size(mem["total_bytes"]) if isinstance(mem.get("total_bytes"), int)
         else "not recorded"),
        ("Virtualization", ("container " + str(virt.get("detect_virt")) + " in "
                            if virt.get("detect_virt") not in (None, "none") else "")
         + ("a virtual machine" if virt.get("hypervisor_flag") else "bare metal")),
        ("CPU frequency governor", str(cpu.get("governor") or "not exposed")),
        ("CPU vulnerabilities", (f"mitigated: {', '.join(mitigated)}" if mitigated else
                                 "none mitigated")
         + (f"; vulnerable: {', '.join(vulnerable)}" if vulnerable else "")),
        ("Hardware performance counters", ("available: " if pmu[0] else "absent: ") + pmu[1]),
        ("perf_event_paranoid", str(man.get("perf_event_paranoid", "not recorded"))),
        ("Socket buffer limits (net.core)", f"receive {_bytes(sysctl.get('net.core.rmem_max'))}"
                                            f", send {_bytes(sysctl.get('net.core.wmem_max'))}"
         if sysctl else "not recorded"),
        ("Clock source", str(man.get("clocksource") or "not recorded")),
        ("C compiler", str(comp.get("version") or "not recorded")),
        ("Compiler flags", str(comp.get("flags") or "not recorded")),
        ("copybench source (git commit)", str(git.get("commit") or man.get("git_commit")
                                              or "not recorded")
         + (" with uncommitted changes" if git.get("dirty") else "")),
        ("Random seed", str(man.get("seed", "not recorded"))),
        ("Started (UTC)", str(man.get("started_at") or man.get("created_at") or "unknown")),
        ("Finished (UTC)", str(man.get("finished_at") or "unknown")),
        ("Every other field", "the run's manifest.json"),
    ]
    # a field the run did not record is left out, not printed as a placeholder
    return [{"property": a, "value": b} for a, b in rows if b not in ("not recorded", "unknown")]


show_table(pd.DataFrame(environment_rows(man, A.pmu_status(run))))
pkgs = man.get("python_packages") or {}
if isinstance(pkgs, dict) and pkgs:
    glue_text("python_packages", ", ".join(f"{k} {v}" for k, v in sorted(pkgs.items())[:12])
              + (" …" if len(pkgs) > 12 else ""))
else:
    glue_text("python_packages", "not recorded")

# %% [markdown]
# ## memcpy bandwidth and hardware counters

# %% tags=["remove-input"]
bounds = P.memcpy_bounds(man)
glue_text("memcpy_gbit", PR.memcpy_text(bounds, P.memcpy_dst_offsets(man)))
ok, why = A.pmu_status(run)
glue_text("pmu_status", "available" if ok else "not available")
glue_text("pmu_reason", why)
# systemd-detect-virt names the innermost layer (a container) and the CPU's hypervisor flag
# the VM under it: where both are present, say both
virt = man.get("virtualization") or {}
inner = virt.get("detect_virt") if isinstance(virt, dict) else None
vm = isinstance(virt, dict) and virt.get("hypervisor_flag")
glue_text("virt", (f"a {inner} container inside a virtual machine (systemd-detect-virt: "
                   f"{inner}; the CPU's hypervisor flag is set)" if inner not in (None, "none")
                   and vm and inner not in ("kvm", "qemu", "vmware", "xen", "microsoft",
                                            "oracle", "amazon") else
                   f"a virtual machine (systemd-detect-virt: {inner})"
                   if inner not in (None, "none") else
                   "a virtual machine (the CPU's hypervisor flag is set)" if vm else
                   "bare metal as far as systemd-detect-virt and the CPU flags tell"))
kernel = man.get("kernel")
glue_text("kernel", kernel if isinstance(kernel, str) else
          (kernel or {}).get("release", "unknown") if isinstance(kernel, dict) else "unknown")
cpu = man.get("cpu")
cpu_text = (cpu.get("model") if isinstance(cpu, dict) else None) or man.get("cpu_model") or "unknown"
ncpu = (cpu.get("count") if isinstance(cpu, dict) else None) or man.get("cpu_count")
glue_text("cpu", f"{cpu_text}" + (f" ({ncpu} CPUs)" if ncpu else ""))
mem_rows = [{"quantity": f"memcpy bandwidth, {fmt_size(s)} working set (a bound only at "
                          "that size)", "value": f"{v:.1f} Gbit/s"} for s, v in bounds.items()]
show_table(pd.DataFrame(
    (mem_rows or [{"quantity": "memcpy bandwidth", "value": "not measured"}])
    + [{"quantity": "hardware PMU counters",
        "value": ("available: " if ok else "absent: ") + why}]))

# %% [markdown]
# ## Run quality
#
# Every trial is kept. Warm-up is excluded from every number (each trial measures only
# after its warm-up), profiled trials (extra trials under `perf record`, beside the cell's
# repetitions) are excluded from the
# statistics, failed trials are counted here and nowhere else. What the receiver checked
# of the data it read, over every trial run, profiled and failed ones included
# ({glue:text}`verify_counts:s`): `full` checks the content of every chunk,
# `sample` of a sample of them, `off` none (over TCP copybench also checks, in every mode,
# that every byte sent arrived).

# %% tags=["remove-input"]
_ver = trials["verify"].fillna("not recorded") if "verify" in trials else \
    pd.Series("not recorded", index=trials.index)
_kind = (trials["kind"].fillna("copybench") if "kind" in trials
         else pd.Series("copybench", index=trials.index))
_kind = _kind.map(lambda k: f"{k.split(':', 1)[1]}'s program" if k.startswith("original:")
                  else k.split(":", 1)[1] if k.startswith("peer:") else k)
_by = trials.assign(_v=_ver, _k=_kind).groupby(["_v", "_k"]).size()
glue_text("verify_counts", "; ".join(
    f"{v}: {sum(int(n) for (vv, _), n in _by.items() if vv == v):,} trials ("
    + ", ".join(f"{k} {int(n):,}" for (vv, k), n in _by.items() if vv == v) + ")"
    for v in dict.fromkeys(v for v, _ in _by.index)) or "no trials")
counts = (trials.assign(kind=lambda d: d["scenario"])
          .groupby(["scenario", "status"]).size().rename("trials").reset_index())
show_table(counts)
if len(failed):
    show_table(failed[["trial_id", "method", "size", "status", "error"]].head(20))

# %% [markdown]
# ### Drift against run order
#
# Each trial's throughput divided by its cell's median, rank-correlated (Spearman) with its
# position in the run. Randomized, interleaved order makes a real drift show up here
# rather than as a difference between methods.

# %% tags=["remove-input"]
metric = "gbit_per_s"
dr = A.drift_by_scenario(run, metric)
show_table(dr)
det = dr[dr["drift"] == "detected"] if len(dr) else dr
glue_text("drift_summary", "no scenario shows drift against run order (Spearman, α = 0.05)"
          if len(dr) and det.empty else
          ("drift detected in: " + ", ".join(f"{r.scenario} (ρ = {r.spearman_rho:.3f}, "
                                             f"p = {r.p:.3g})" for r in det.itertuples()))
          if len(dr) else "too few trials to test drift")
if len(m):
    mm = m[m[metric].notna() & (m[metric] > 0)].copy()
    mm["relative throughput"] = A.normalised_by_cell(mm, metric)
    g = P.sns.relplot(data=mm, x="order_index", y="relative throughput", hue="scenario",
                      kind="scatter", s=12, alpha=0.6, height=3.2, aspect=2.2)
    g.set_axis_labels("run order (trial index)", "throughput / cell median (1)")
    P.show(g)

# %% [markdown]
# ### Outliers, normality and the CI width each cell achieved

# %% tags=["remove-input"]
cells = A.summarize_cells(m[m[metric].notna()], metric, ["scenario", "cell"])
if len(cells):
    n_out = int((cells["outliers_low"] + cells["outliers_high"]).sum())
    glue_text("outliers", f"{n_out} of {int(cells['n'].sum())} trials "
              f"({n_out / cells['n'].sum():.1%}) lie outside Tukey's fences; none is removed")
    w = cells["ci_half_width_rel"].dropna()
    glue_text("ci_width_median", fmt_pct(w.median()) if len(w) else "n/a")
    glue_text("ci_width_p90", f"90th percentile: {fmt_pct(w.quantile(0.9))}" if len(w)
              else "90th percentile: n/a")
    tested = cells["shapiro_p"].dropna()
    glue_text("normal_share", f"{(tested >= S.ALPHA).mean():.0%} of {len(tested)} cells"
              if len(tested) else "no cell (too few trials per cell)")
    glue_text("reps_median", f"{cells['n'].median():.0f}")
    summ = (cells.groupby("scenario")
            .agg(cells=("n", "size"), trials=("n", "sum"), median_n=("n", "median"),
                 median_ci_half_width=("ci_half_width_rel", "median"),
                 outliers=("outliers_low", "sum"))
            .reset_index())
    summ["outliers"] += cells.groupby("scenario")["outliers_high"].sum().values
    show_table(summ)
    if w.size:
        g = P.sns.displot(cells.dropna(subset=["ci_half_width_rel"]).assign(
            pct=lambda d: 100 * d["ci_half_width_rel"]), x="pct", hue="scenario",
            bins=30, height=3.0, aspect=2.0)
        g.set_axis_labels("achieved 95% CI half-width of the median (% of median)",
                          "cells (count)")
        P.show(g)
else:
    for k in ("outliers", "ci_width_median", "ci_width_p90", "normal_share", "reps_median"):
        glue_text(k, "n/a (no measured trials)")
    note("no measured trials in this run")

# %% tags=["remove-input"]
# Declared time budgets of the sweep profiles (for the artifact appendix), read from the
# profile files themselves.
import tomllib

from decision.profiles import profile_path, read_profile

for name in ("smoke", "quick", "claims", "paper", "threads"):
    if profile_path(name).is_file():
        b = read_profile(name).get("profile", {}).get("budget_s")
        glue_text(f"budget_{name}", fmt_hours(b / 3600)
                  if isinstance(b, (int, float)) else "not declared")
    else:
        glue_text(f"budget_{name}", "not declared (profile file missing)")

# %% [markdown]
# (tab-claim-map)=
# ## Claims, experiments and what they need
#
# For each claim (and the control and questions of the profile), the experiments of this
# run's plan that feed it: those whose `claims` key names it, those whose cells the claim's
# decision rule compares, and for C15 the profiled experiments. Generated from the run's
# `plan.json` and its copy of the profile; the artifact appendix prints the same table.

# %% tags=["remove-input"]
prof_files = sorted(run.path.glob("profiles/*.toml"))
profile = tomllib.loads(prof_files[0].read_text()) if prof_files else {}
cmap = PR.claim_map(run.plan or {}, profile)
show_table(cmap)
# the artifact appendix prints the same table (book/artifact.md: {include})
include("claims-map.inc", list_table(list(cmap.columns), [[str(v) for v in r] for r in
                                                          cmap.itertuples(index=False)]) + "\n")

# %% [markdown]
# ## The hosts
#
# A run over the `remote` transport has two hosts: the sender here and the sink on the other
# host, reached over SSH; both are described side by side, with the data interface's driver,
# offloads, MTU, link speed and IRQ affinity. A one-host run has one column above.

# %% tags=["remove-input"]
from analysis.loading import hosts as HO

two = HO.is_two_host(man)
glue_text("hosts_note", "two hosts: the sender here and the sink on another host (the remote "
          "transport); both are described on this page" if two else
          "one host: sender and receiver share this machine (loopback, veth, udp-forward)")
if two:
    show_table(HO.hosts_table(man))
else:
    note("This run has one host; a run over the remote transport shows both hosts here.")

# %% [markdown]
# ## Interference
#
# copybench reads `/proc/stat` at the edges of every trial's window: the share of the
# window's CPU time the hypervisor stole from this VM, and how busy each CPU was. Below, each
# trial's result relative to its cell's median against the steal it saw. The exclusion rule
# is the profile's, declared before the run; every excluded trial is listed.

# %% tags=["remove-input"]
t_ok = run.trials[(run.trials["status"] == "ok") & (run.trials["repetition"].fillna(1) >= 1)]
has_steal = "steal_frac" in t_ok and t_ok["steal_frac"].notna().any()
rule = run.steal_rule
glue_text("steal_rule", f"a trial whose window had more than {rule:.0%} steal time is excluded"
          if rule is not None else "none declared (no trial is excluded for interference)")
glue_text("n_excluded", f"{len(run.excluded):,}")
if has_steal:
    d = t_ok[t_ok["steal_frac"].notna()].copy()
    metric = d["gbit_per_s"].where(d["mode"] != "pingpong", d["rtt_p50_us"]).astype(float)
    d["relative"] = metric / metric.groupby(d["cell"]).transform("median")
    d["steal %"] = 100 * d["steal_frac"].astype(float)
    d["result"] = d["mode"].map({"pingpong": "RTT / cell median"}).fillna(
        "throughput / cell median")
    glue_text("steal_summary", f"median {d['steal %'].median():.2f} %, 99th percentile "
              f"{d['steal %'].quantile(0.99):.2f} %, maximum {d['steal %'].max():.2f} % "
              f"over {len(d):,} trials")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(6.2, 3.0), sharey=False)  # the PDF's text width
    for ax, (name, g) in zip(axes, d.groupby("result")):
        ax.scatter(g["steal %"], g["relative"], s=6, alpha=0.4)
        if rule is not None:
            ax.axvline(100 * rule, color="0.3", ls="--", lw=1)
        ax.set_xlabel("steal time (% of the window's CPU time)")
        ax.set_ylabel(name)
    fig.tight_layout()
    P.show(P.Figure(fig))  # checked for overlapping labels like every figure
    if len(run.excluded):
        show_table(run.excluded[["trial_id", "method", "size", "transport", "placement",
                                 "exclusion"]])
else:
    glue_text("steal_summary", "not recorded in this run (made before copybench read "
              "/proc/stat at the window's edges)")
    note("This run's records carry no interference fields (steal, CPU busy time).")

# %% [markdown]
# ## Noise against the measurement window
#
# How much a trial varies, and how much the ratio of two methods measured back to back in one
# round varies, as the window grows: per kind of cell and placement, from this run's blocks
# that repeat one configuration at several windows (the `pilot` profile's design; the
# `paper` profile carries a small copy of it). The committed windows follow the rule
# `python -m runner noise` applies to a pilot: the least machine time to a CI of a fixed
# relative width on a paired ratio.

# %% tags=["remove-input"]
from analysis.statistics import noise as NO

nw = NO.by_window(m)
multi = nw.groupby(["kind", "placement", "metric"])["window_s"].transform("nunique") \
    if len(nw) else None
curves = nw[multi >= 2] if len(nw) else nw
if len(curves):
    long = curves.melt(id_vars=["kind", "placement", "window_s", "metric"],
                       value_vars=["trial_cv", "log_ratio_sd"], var_name="statistic",
                       value_name="value")
    long["statistic"] = long["statistic"].map({"trial_cv": "per-trial CV",
                                               "log_ratio_sd": "paired log-ratio sd"})
    long["value_pct"] = 100 * long["value"].astype(float)
    long["panel"] = long["kind"] + ", " + long["metric"]
    for g in P.facet_figures(P.lines, long.dropna(subset=["value_pct"]), "window_s",
                             "value_pct", "placement", "window (s)", "variation (%)",
                             col="panel", style="statistic", logx=False):
        P.show(g)
    show_table(curves.assign(trial_cv=100 * curves["trial_cv"],
                             log_ratio_sd=100 * curves["log_ratio_sd"])
               .rename(columns={"trial_cv": "per-trial CV %",
                                "log_ratio_sd": "paired log-ratio sd %"}), "{:.2f}")
    glue_text("noise_windows", ", ".join(f"{w:g} s" for w in sorted(curves["window_s"].unique())))
else:
    glue_text("noise_windows", "none (this run has no block at two or more windows)")
    note("This run has no configuration measured at two or more windows in blocks; the "
         "pilot profile (python -m runner notebook --profile pilot) measures these curves.")

# %% tags=["remove-input"]
# The statistics the comparisons use, generated from the design the plan declared and the
# statistics module (analysis/words/prose.py), so the method chapter cannot drift from the code.
primary = PR.design_of(run.plan, run.has_blocks)
glue_text("stat_primary", f"{primary}" + ("" if run.has_blocks else " (this run has no blocks)"))
glue_text("stat_decision", PR.statistics_text(primary))
glue_text("stat_crossover", PR.crossover_text(primary))
glue_text("stat_confidence", f"{S.CONFIDENCE:.0%}")
glue_text("stat_threshold", fmt_band())
_where = ("the pair runs on the claims' transport, in a block of its own, for the rounds at "
          f"which a null difference reads equivalent at {fmt_pct(S.CONFIDENCE, 0)} with "
          f"{fmt_pct(SE.POWER, 0)} probability at its block's noise-model sd (at most the "
          "design's maximum)")
glue_text("aa_design", (
    f"The profiles now place it so ({_where}); this run was made before that rule and ran "
    "it where its own profile placed it (the transport and rounds are in the reading below)"
    if RV.post_hoc(RV.AA_CONTROL, run.created_at) else _where[0].upper() + _where[1:]))
# the A/A pair's CI: one comparison, so its level is one comparison's
_aa_conf = S.family_confidence(1)
glue_text("aa_level", PR.ci_level(_aa_conf))
glue_text("aa_miss", f"once in {round(1 / (1 - _aa_conf))}")
glue_text("rounds_text", PR.rounds_text(run.plan, run.has_blocks, DT.topped_up(run)))

# %% [markdown]
# (testbed-aa)=
# ## The A/A control: the study's false-positive check
#
# A block of the block design holds one method twice, as two cells (the *twin*). The two are
# the same measurement, so their ratio's CI must contain 1.0; in an honest run it misses 1.0
# about {glue:text}`aa_miss:s` (a {glue:text}`aa_level:s` interval), and a run where it does is reported as such here, never
# rerun away. {glue:text}`aa_design:s`, and its CI is read against the claims' band
# ({glue:text}`stat_threshold:s`): inside it, the design calls a null difference
# *equivalent* at the rounds the pair ran; reaching past it, a claim whose true ratio is 1
# can end undecided at that many rounds. Beside it stands the chance that a null difference
# reads equivalent at those rounds, at the noise model's sd.

# %% tags=["remove-input"]
aa = study.aa
if aa.empty:
    glue_text("aa_summary", "not measured: this run has no A/A block (runs made before the "
              "block design have none)")
    note("This run has no A/A block.")
else:
    missed = aa[~aa["contains 1"]]
    parts = [f"{r['method']} ({r['configuration']}, {r['rounds']} rounds): "
             f"{r['ratio']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}], "
             f"{F.aa_band_text(r, RV.post_hoc(RV.AA_CONTROL, run.created_at))}"
             for _, r in aa.iterrows()]
    verdict = ("its CI contains 1.0" if missed.empty else
               f"the CI misses 1.0 in {len(missed)} of {len(aa)} A/A block(s): this run's "
               "A/A comparison is 'different', so differences of that size elsewhere in this "
               "run may be false positives")
    glue_text("aa_summary", "; ".join(parts) + f" ({aa.iloc[0]['design']}); " + verdict)
    if not missed.empty:
        note("The A/A comparison of this run is 'different': its CI does not contain 1.0.")
    show_table(aa)
