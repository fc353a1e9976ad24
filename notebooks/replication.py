# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Replication of published claims
#
# {glue:text}`profile_note:s`
#
# Each claim of the five sources gets an operational test in {doc}`claims`, which states the
# decision rule, the configuration, the statistic and its CI. A message claim gets one
# verdict per placement, since no source says whether sender and receiver shared a CPU;
# where a report's own program does something its words do not say (S1's "latency" is the
# window over the messages received, and its size is per field; S2's two-copy sends each
# message with eight `send()` calls; S3's two-copy copies its fields once, before its loop),
# the claim gets a verdict under each reading: as the report words it, measured by
# copybench, and as its code behaves, that program run here. Design of the comparisons in
# this run: {glue:text}`claims_design:s`. {glue:text}`rules_revised:s`
#
# One row per verdict: the published ratio (at the size shown), their program here and
# copybench here, each with its CI at its family's level (the largest family that reads the
# comparison: the rule's, the placement question's or the findings'), the rule's boundaries and
# the verdict (a refutation says which way the data contradict the claim) with the rounds
# its CI rests on, in brackets: {glue:text}`rounds_key:s`. A row's verdict
# rests on the measurement its reading names (*report's words*: copybench; *copybench: S1's
# code*: copybench measuring what a report's code computes; *S1's program*: the report's own
# code run here); the other column shows the counterpart under the same rule.

# %% tags=["parameters"]
run_dir = "../build/smoke-run"

# %% tags=["remove-input", "full-width"]
import pandas as pd

from analysis import claims as C
from analysis.figures import forest as FP
from analysis.figures import plots as P
from analysis.loading import run as A
from analysis import study as SD
from IPython.display import display
from analysis.words import verdicts as VW
from analysis.words import machines as MW

from analysis.claims import magnitude as MAG
from analysis.claims import sesoi as claim_sesoi
from analysis.claims import table_error as TE
from analysis.words.output import glue_text, include, list_table, note, show_table

P.setup()
study = SD.open(run_dir)  # the run and its verdicts, computed once per build
run, results = study.run, study.results
profile = str((run.plan or {}).get("profile") or "")
glue_text("profile_note", (
    f"This book is built from a run of the {profile} profile: its verdicts are a smoke test "
    "of the claims pipeline (few rounds; claims its plan leaves out are not run in this "
    "profile). The reviewer's check of the verdicts is make claims (the claims profile, "
    "its book and its comparison with the reference run)." if profile in ("quick", "smoke")
    else f"This book is built from a run of the {profile or 'unnamed'} profile."))
glue_text("claims_design", (f"{run.primary} (declared in the run's plan)" if run.has_blocks
                            else "unpaired (this run has no blocks)"))
glue_text("rules_revised", (
    "Post hoc: this run was made before the decision rules in force, so its verdicts "
    "under them were decided after its data were seen (the artifact appendix tables the "
    "rules' versions)." if C.post_hoc(run) else
    "Every verdict here follows decision rules fixed before this run was made."))
glue_text("counts_by_reading", VW.counts_text(results))
glue_text("counts_magnitude", VW.magnitude_text(results))
glue_text("sesoi_text", claim_sesoi.text())
glue_text("magnitude_rule", MAG.rule_text().removeprefix("magnitude: "))
glue_text("table_error", TE.table_error(results).text())
glue_text("rounds_key", C.rounds_key())
glue_text("rounds_example", C.rounds_example())
compact = C.compact_table(results)
POST_HOC = " (post hoc)" if C.post_hoc(run) else ""  # beside each verdict of such a run
compact["verdict"] = [(f"{v} [{n}]" if n != "—" else v) + POST_HOC
                      for v, n in zip(compact["verdict"], compact["rounds/looks"])]
# one run of every other machine class committed beside this one: a column each
from analysis.comparison import machines as MA

_class_studies = SD.classes(study)
classes = [m for m, _ in _class_studies]
class_results = [(m.label, s.results) for m, s in _class_studies]
compact, machine_cols = MA.with_machines(
    compact, class_results, post_hoc={m.label for m in classes if C.post_hoc(m.run)})
glue_text("machines_note", (
    f"This run's machine is a {MA.label(run)}. The other machine classes are read beside "
    "it in the table after the verdicts, one column each, on the rows one of them tested, "
    "from their newest committed run of this profile (else of another profile that tests "
    "the claims): " + "; ".join(
        f"{m.label} ({m.run.run_id}, {(m.run.plan or {}).get('profile')} profile, "
        f"{len(m.run.trials)} trials)" for m in classes)
    + ". Each shows its verdicts per placement with their CIs under the same rules (post "
    "hoc where its run was made before them); a verdict not testable here that such a "
    "machine decided says where it was decided."
    if classes else "No run from another machine is committed beside this one."))
# the machines with more CPUs: the thread-count section reads their comparisons
_more = [MA.more_cpus(run, MA.machine_class(m.run.manifest)) for m in classes]
machines = [m for m, more in zip(classes, _more) if more]
machine_results = [r for r, more in zip(class_results, _more) if more]
#: the verdict's label colour (HTML; the PDF prints its words)
LABEL = {C.HOLDS: "#cdebd9", C.REFUTED: "#f9d3bf", C.INCONCLUSIVE: "#dedcf0",
         C.UNDETERMINED: "#e9e0f0", C.NOT_TESTABLE: "#e6e6e6", C.NOT_RUN: "#f4f4f4"}


def _joined(*parts: str) -> str:
    """Cells merged into one: the parts that say something ("—" where none does)."""
    return ", ".join(p for p in map(str, parts) if p not in ("—", "")) or "—"


def _here(program: str, bench: str) -> str:
    """Their program here and copybench here in one cell, each labelled (once where both
    say the same, e.g. not testable here)."""
    program, bench = str(program), str(bench)
    if program == bench:
        return bench
    return "; ".join(f"{who}: {v}" for who, v in (("their program", program),
                                                   ("copybench", bench))
                     if v not in ("—", "")) or "—"


# the verdicts: reading and placement in one cell, their program and copybench in another,
# so the table fits a PDF page; the other machines' verdicts are the table after it
shown = pd.DataFrame({
    "claim": compact["claim"],
    "reading, placement": [_joined(r, p) for r, p in zip(compact["reading"],
                                                         compact["placement"])],
    "published": compact["published"],
    "here [CI]": [_here(p, c) for p, c in zip(compact["their program here [CI]"],
                                              compact["copybench here [CI]"])],
    "rule": compact["rule"],
    # the two questions side by side: the verdict is the claim's direction
    "direction": compact["verdict"], "magnitude": compact["magnitude"]})
html = shown.style.hide(axis="index").apply(
    lambda col: [f"background-color: {LABEL[s]}; font-weight: bold" for s in compact["state"]]
    if col.name == "direction" else [""] * len(col)).to_html()
body = [[str(v) for v in row] for row in shown.itertuples(index=False)]
display({"text/html": html, "text/markdown": list_table(list(shown.columns), body),
         "text/plain": shown.to_string(index=False)}, raw=True)
# the other machine classes' verdicts on the rows one of them tested, beside this run's
others = compact[compact[machine_cols].ne("—").any(axis=1)] if machine_cols else compact[:0]
if len(others):
    show_table(pd.DataFrame({
        "claim": others["claim"],
        "reading, placement": [_joined(r, p) for r, p in zip(others["reading"],
                                                             others["placement"])],
        "direction here": [f"{s}{POST_HOC}" for s in others["state"]],
        **{c: others[c] for c in machine_cols}}))

# %% [markdown]
# Two questions per claim, counted separately. The *direction* column is the claim's
# verdict, decided against the smallest effect of interest: {glue:text}`sesoi_text:s`. The
# *magnitude* column compares the report's published ratio with our CI
# ({glue:text}`magnitude_rule:s`; — where the report published no ratio). Directions:
# {glue:text}`counts_by_reading:s`. Magnitudes: {glue:text}`counts_magnitude:s`.
# The table as a whole: {glue:text}`table_error:s`.
# {glue:text}`machines_note:s` Every comparison of the thread-count claims on a machine with
# more CPUs is in {ref}`replication-threads`.
#
# A *refuted* verdict says which way the data
# contradict the claim; an *inconclusive* one names the claim's edge its CI straddles
# ({ref}`claims-verdicts`); *undetermined* says the study's own method failed to give a
# number (the copy count did not validate); *not testable here* names the applicability condition this
# testbed fails (each rule declares one before any run: a thread-count claim needs a CPU per
# thread and side, the dual pipe needs two CPUs, the cache-miss claims need hardware
# counters) or, *at this noise*, that the report's own published ratio lies inside the band
# of no difference, so the claim could not hold even if its report were exactly right; *not
# run in this profile* is a claim the run's plan left out.
#
# (replication-forest)=
# ## Every claim comparison against its rule's band
#
# Each claim comparison: its ratio with the CI at its rule's family level, on a log axis,
# against the band its rule reads it by (grey: the band of no difference, the smallest
# effect of interest either way; blue: the
# tolerance of an approximate claim; dashed: a one-sided threshold), coloured by the verdict
# it feeds; circles are copybench, squares the report's own program.

# %% tags=["remove-input"]
forest = FP.rows(results)
if len(forest):
    for fig in FP.forests(forest):
        P.show(fig)
else:
    note("No claim comparison has a CI in this run: every claim is not testable here or not "
         "run in this profile.")

# %% [markdown]
# (replication-threads)=
# ## Thread counts, on a machine with a CPU per thread
#
# Two claims compare throughput between thread counts: C6 ({glue:text}`c6_statement:s`) and
# C11 ({glue:text}`c11_statement:s`). Such a comparison tests the claim only where every
# thread of each side has a CPU of its own (C6 and C11 each {glue:text}`threads_need:s`);
# with fewer CPUs it measures how the scheduler shares them. This run's machine has
# {glue:text}`this_cpus:s`, so both are not testable here.
# {glue:text}`threads_machines:s` The table gives each comparison the many-CPU run made, its
# ratio labelled by the thread counts it divides (C6: the same method at two thread counts;
# C11: four pairs of thread counts; C8 and C9 compare two methods at one thread count, at
# the sizes that run measured), with its CI at its rule's family level, the rounds it rests
# on, its outcome and the claim's verdict there. A claim about every size that the run
# measured at some of its sizes is decided at those, and its verdict names them.

# %% tags=["remove-input", "full-width"]
from analysis.claims import throughput as TH
from analysis.claims.applicability import machine_cpus

glue_text("c6_statement", TH.C6[1])
glue_text("c11_statement", TH.C11[1])
glue_text("threads_need", C.RULES["C11"][0].conditions[0].text())
_n = machine_cpus(run)
glue_text("this_cpus", f"{_n} CPU{'s' if _n != 1 else ''}" if _n else "an unknown number of CPUs")
_thread_parts, _thread_tables = [], []
for m, (_, _res) in zip(machines, machine_results):
    _thread_parts.append(MW.summary_text(m, _res))
    _thread_tables.append(MA.comparisons_table(_res, post_hoc=C.post_hoc(m.run)))
glue_text("threads_machines", " ".join(_thread_parts) if _thread_parts else (
    "No run from a machine with more CPUs is committed beside this one, so C6 and C11 stay "
    "undecided in this book."))
for _t in _thread_tables:
    if len(_t):
        show_table(_t)

# %% [markdown]
# (replication-reproduced)=
# ## Reproducing these verdicts
#
# A reviewer's run (`make claims`, or any run) is judged against this one, verdict by
# verdict, by one rule, which `make compare` applies and which is stated here from the same
# code: {glue:text}`reproduce_rule:s` The rule on the runs committed beside this one (each
# against this run): {glue:text}`reproduce_expected:s` The table below gives each run's count
# in every category. {glue:text}`reproduce_test:s` The run-level criterion, with its number
# and why, is stated in {ref}`artifact-evaluation`.

# %% tags=["remove-input"]
from analysis.comparison import reproduce as RP
from analysis.words import revisions as RV

glue_text("reproduce_rule", RP.rule_text(mark=("“", "”")))
rows = []
made = [(run.run_id, run.created_at)]  # the runs this book judges, for the revisions table
evaluated = {run.run_id: results}  # each run's verdicts, for the reproduction tables below
for d in RP.reruns(run.path):
    other_study = SD.open(d, tables=False)  # each run studied once per build
    other = other_study.run
    made.append((other.run_id, other.created_at))
    evaluated[other.run_id] = other_study.results
    t = RP.table(results, evaluated[other.run_id])
    cpu = MA.label(other)
    rows.append({"run": other.run_id, "profile": (other.plan or {}).get("profile"),
                 "tests the rule": RP.tests_the_rule(other, run),
                 "study": RP.judge_runs(t, run.path, other.path),
                 "CPU": cpu, "total": RP.total(t), **RP.counts(t),
                 "reproduced of compared": "{} of {}".format(*RP.reproduced_of(t)),
                 "not reproduced (claim, placement)": ", ".join(
                     f"{r.claim} {r.placement}"
                     + (f" ({r.basis})" if r.basis != C.COPYBENCH else "")
                     + (" (not in size)" if r.status == RP.NOT_IN_SIZE else "")
                     for r in t[t["status"].isin([RP.NOT_REPRODUCED, RP.NOT_IN_SIZE])
                                ].itertuples()) or "—"})
this_cpu = MA.label(run)
claims_runs = [d for d in RP.reruns(run.path) if d.name.endswith("-claims")]
if claims_runs:
    c = SD.open(claims_runs[-1], tables=False).run
    sessions = A.sibling_json(claims_runs[-1], "sessions.json")  # bounded; damage: BadRun
    wall = sum(x.get("wall_s") or 0 for x in (sessions if isinstance(sessions, list) else [])
               if isinstance(x, dict))
    glue_text("claims_run_time", (
        f"{wall / 60:.0f} min for {len(c.trials)} trials in its last committed run "
        f"({c.run_id}, on a {MA.label(c)} VM)"))
else:
    glue_text("claims_run_time", "no committed run of the claims profile to time")


def _where(r: dict) -> str:
    return "this run's CPU" if r["CPU"] == this_cpu else f"{r['CPU']}, not this run's {this_cpu}"


def _reproduced_by_class(rows: list[dict]) -> str:
    """The reruns' reproduced and compared verdicts summed per machine (the table below and
    the artifact appendix's table give each run's)."""
    parts = []
    for cpu in dict.fromkeys(r["CPU"] for r in rows):
        mine = [r for r in rows if r["CPU"] == cpu]
        got = [RP.reproduced_of(RP.table(results, evaluated[r["run"]])) for r in mine]
        whose = "this run's machine" if cpu == this_cpu else f"not this run's {this_cpu}"
        parts.append(f"on the {len(mine)} run{'s' if len(mine) != 1 else ''} of the {cpu} "
                     f"({whose}), "
                     f"{sum(a for a, _ in got)} of {sum(b for _, b in got)} compared verdicts "
                     "reproduced")
    return "; ".join(parts) + "."


glue_text("reproduce_expected", _reproduced_by_class(rows) if rows
          else "no other run is committed beside this one.")
tests = [r for r in rows if r["tests the rule"]]
glue_text("reproduce_test", (
    "Made under the rule in force and judged against this run, also made under it (the "
    "rule's real test): " + "; ".join(
        f"run {r['run']} ({_where(r)}): {r['total']}"
        + (f"; not reproduced: {r['not reproduced (claim, placement)']}"
           if r[RP.NOT_REPRODUCED] or r[RP.NOT_IN_SIZE] else "")
        + f"; by the run-level criterion: {r['study'].status}, {r['study'].why}"
        for r in tests) + "."
    if tests else "No run beside this one was made under the rule in force and judged "
    "against a reference also made under it: the next reviewer's run is its first real "
    "test."))
if rows:  # which runs test the rule is the sentence above; a run's counts in every category
    # in one cell (a column each made the table too wide for a PDF page: its CPU names cut)
    show_table(pd.DataFrame([{"run": r["run"], "profile": r["profile"], "CPU": r["CPU"],
                              "verdicts by category": r["total"],
                              "not reproduced (claim, placement)":
                                  r["not reproduced (claim, placement)"]} for r in rows]))
# The artifact appendix's one table of the rules' versions ({include}), glued as its
# include
_rev = RV.table(made)
include("revisions.inc", list_table(list(_rev.columns), [[str(v) for v in r]
                                                         for r in _rev.itertuples(index=False)])
        + "\n\n" + RV.in_force_text(run.created_at) + "\n")

# %% [markdown]
# (replication-stability)=
# ## Each verdict across runs and CPU classes
#
# Every committed run that tests the claims is judged by today's rules, and each verdict's
# row gives its verdict in every run, the runs grouped by CPU class; a run made before the
# claim decision rules in force says "(post hoc)" in its cells. A verdict is *the same on
# every class measured* when every run that decided it decided it alike, *depends on the
# class* when the classes decided it differently but each class alike, *unstable* when runs
# of one class decided it differently, and *never decided* when no run decided it. The runs:
# {glue:text}`stability_runs:s` By these labels, {glue:text}`stability_counts:s`
# {glue:text}`stability_agreement:s`

# %% tags=["remove-input", "full-width"]
from analysis.comparison import stability as ST

_revised = A.instant(C.REVISED)
_entries = SD.claim_runs(study)  # the artifact appendix's table of runs below, too
_long, _infos = SD.stability(study, _revised)
stab = ST.table(_long, _infos)
_n = ST.counts(stab)
_classes = list(dict.fromkeys(i.cpu_class for i in sorted(_infos, key=lambda i: i.run)))


def _runs_of(cls: str) -> str:
    mine = [i for i in _infos if i.cpu_class == cls]
    late = sum(i.post_hoc for i in mine)
    return (f"{len(mine)} on the {cls}" + (" (this run's class)" if cls == MA.machine_class(
        run.manifest)[1] else "") + (f", {late} of them post hoc" if late else ""))


glue_text("stability_runs", f"{len(_infos)} runs, " + "; ".join(_runs_of(c) for c in _classes)
          + " (each run's verdicts from its Study, kept per sealed run).")
_said = {ST.SAME: "{} the same on every class measured", ST.DEPENDS: "{} depend on the class",
         ST.UNSTABLE: "{} unstable (decided differently within one class)",
         ST.NEVER: "{} never decided"}
_parts = [_said[lab].format(_n[lab]) for lab in ST.LABELS]
# the rows are each claim's reading and placement over the runs, not one run's verdicts
glue_text("stability_counts", f"the {len(stab)} rows (a claim's reading and placement) split "
          "into " + ", ".join(_parts[:-1]) + f" and {_parts[-1]}.")
_across = ST.agreement(_long, across=True)
_within = [(c, ST.agreement(_long, within=c)) for c in _classes]
glue_text("stability_agreement", (
    f"Of the pairs of runs that both decided a verdict, {_across.same} of {_across.pairs} "
    f"({_across.share:.1%}) on two classes decided it alike; "
    + "; ".join(f"{a.same} of {a.pairs} ({a.share:.1%}) within the {c}" for c, a in _within)
    + "." if _across.pairs else "No verdict was decided on two classes."))
_unstable = stab[stab["label"] == ST.UNSTABLE]
glue_text("stability_unstable", ", ".join(
    f"{r.claim} {r.placement}" for r in _unstable.itertuples()) or "none")
show_table(stab)

# the threats chapter's count of the rules' revisions, from the one table of them
_versions = RV.versions()
glue_text("revisions_counted", "; ".join(
    f"the {rule}: {len(ws)} version{'s' if len(ws) != 1 else ''} ("
    + ", ".join(dict.fromkeys(w.strftime("%Y-%m-%d") for w in ws)) + ")"
    for rule in RV.RULES
    for ws in [[w for r, w, _ in _versions if r == rule]] if ws) + ".")
glue_text("stability_classes", " and ".join(
    f"{sum(i.cpu_class == c for i in _infos)} on the {c}" for c in _classes))

# The artifact appendix's table of the committed runs (the catalog), glued as its include
_by = {r["run"]: r for r in rows}
_cat = [[e.run_id, str(e.profile), e.made.strftime("%Y-%m-%d %H:%M") if e.made else "—",
         e.machine, e.harness.words,
         "post hoc" if e.made is not None and e.made < _revised else "in force",
         ("this run" if e.run_id == run.run_id else
          _by[e.run_id]["reproduced of compared"] if e.run_id in _by else "—")]
        for e in _entries]
include("runs.inc", list_table(["run", "profile", "made (UTC)", "machine", "harness",
                                "claim rules", "verdicts reproduced of compared"], _cat)
        + "\n")

# %% [markdown]
# ## The reports' own programs, here
#
# S1, S2 and S3 published their programs. A run of the `claims` or `paper` profile fetches
# them at the pinned commits, builds them with their own `Makefile` as an unprivileged user,
# and runs each in the block of the copybench cell it replicates, so that *their program here*
# and *copybench here* are paired like every other comparison ({ref}`claims-originals`; this
# run has their program for {glue:text}`claims.ipynb::originals_rows:s` of those
# rows). A gap between the published number and their program here is the testbed (or their
# configuration); a gap between their program and copybench here is what the two programs
# measure. Two differences are known from their code before any run: S1's "latency" is the
# window over the messages received in a stream, not a round trip, and its size is per field
# of a message of eight fields; S2's server stops sending two seconds after its last client
# connects, whatever window the clients were given.
#
# Why they differ is read from the data by written rules ({ref}`claims-why`): the *report
# gap* (does their program here reproduce the published ratio, with a CI narrow enough to
# tell?) and the *program gap* (their ratio over copybench's, paired by round: is a gap
# shown, and if so, which of their methods carries it, measured as their program over
# copybench's counterpart in the same block; and does a fact read from their code predict it,
# beyond what their program as a whole does, measured by their method whose code is
# copybench's?). A fact that fits either direction only labels a row. Over the rows:
# {glue:text}`claims.ipynb::why_summary:s`. Per claim, the most frequent reading
# of the program gap, with one row as its example:
#
# ```{list-table}
# :header-rows: 1
# :widths: 8 92
#
# * - Claim
#   - Why their program, copybench and the report differ
# * - C1
#   - {glue:text}`claims.ipynb::why_C1:s`
# * - C4
#   - {glue:text}`claims.ipynb::why_C4:s`
# * - C5
#   - {glue:text}`claims.ipynb::why_C5:s`
# * - C6
#   - {glue:text}`claims.ipynb::why_C6:s`
# * - C8
#   - {glue:text}`claims.ipynb::why_C8:s`
# * - C9
#   - {glue:text}`claims.ipynb::why_C9:s`
# * - C10
#   - {glue:text}`claims.ipynb::why_C10:s`
# ```
#
# ## Why do two reports on the same assignment disagree?
#
# S2 {cite}`debnath2026` finds one-copy and zero-copy ahead of two-copy (C4, C5); S3
# {cite}`mt25043` finds the opposite (C8, C9). Both ran sender and receiver on one small
# machine. If sharing a CPU between a connection's sender and receiver changes the
# ranking, each report may be right for its placement. We test this directly: the same
# cells under `same-core` and `cross-core` placement and the ranking under each, every
# ordering decided at the confidence level that covers every cell searched; a *flip* counts
# only where both orderings are decided and opposite. Verdict of the placement hypothesis:
# **{glue:text}`claims.ipynb::verdict_P1:s`** —
# {glue:text}`claims.ipynb::stat_P1:s`.
#
# ## Reading the verdicts
#
# A verdict holds for the configuration stated beside it, not in general. The CI decides,
# never a point estimate or a rank test that cannot reach significance at the run's sample
# size — in this run, {glue:text}`claims.ipynb::p_floor:s`. Comparisons at a fixed
# thread count (C8–C10 at four connections) stay testable on a machine with fewer CPUs than
# threads: both methods share the same oversubscription, so their ratio still compares the
# methods; a comparison *between* thread counts (C6, C11) does not, and is not testable there
# ({ref}`replication-threads` reads them from a machine with a CPU per thread).
# Of the message methods' comparisons against `send` in the message chapter's reference
# configuration ({glue:text}`claims.ipynb::count_ref_config:s`),
# {glue:text}`claims.ipynb::count_ref_undecided:s`
# are inconclusive. Zero-copy claims must be read with the copied fraction of completions
# ({doc}`zerocopy`): over loopback and veth the kernel copies the data anyway.

# %% tags=["remove-input"]
# The paper's verdict table (book/verdicts.md {include}s it): one row per verdict in five
# columns (the reading and placement, the published ratio and ours, the direction and the
# magnitude merged), glued as its include
_v = C.compact_table(results)
_here = [p if b == "their program" else c for b, p, c in
         zip(_v["basis"], _v["their program here [CI]"], _v["copybench here [CI]"])]
_body = [[str(cl), ", ".join(x for x in (str(rd), str(pl)) if x not in ("—", "")) or "—",
          str(rule), f"{pub}; {here}" if pub not in ("—", "") else str(here),
          f"{d} [{n}]" if n != "—" else str(d),
          str(mg)]
         for cl, rd, pl, rule, pub, here, d, n, mg in zip(
             _v["claim"], _v["reading"], _v["placement"], _v["rule"], _v["published"],
             _here, _v["direction"], _v["rounds/looks"], _v["magnitude"])]
include("verdicts.inc", list_table(["claim", "reading, placement", "rule",
                                    "published; here [CI]", "direction [rounds]",
                                    "magnitude"], _body) + "\n")

# %% tags=["remove-input"]
# Each rerun judged by the run-level criterion of its CPU class (same-class or cross-class,
# from the catalog), post hoc where it was made before that criterion was declared
from analysis.words import criterion_class as CW

_cw_rows, _cw_parts = [], []
for _d in RP.reruns(run.path):
    _other = SD.open(_d, tables=False).run
    _j = RP.judge_runs(RP.table(results, evaluated[_other.run_id]), run.path, _d)
    _late = CW.post_hoc(_other.created_at, _j.criterion)
    _cw_parts.append(CW.judgement_text(_other.run_id, MA.label(_other), _j, _late))
    _cw_rows.append({"run": _other.run_id, "CPU": MA.label(_other), "criterion": _j.criterion,
                     "post hoc": "post hoc" if _late else "its test", "study": _j.status,
                     "sets reproduced": f"{_j.same} of {_j.decided}", "reversed": _j.reversed})
glue_text("reruns_by_class", CW.judgements_text(_cw_parts))
# the table says it run by run (the glued sentence is for the artifact appendix)
if _cw_rows:
    show_table(pd.DataFrame(_cw_rows))
