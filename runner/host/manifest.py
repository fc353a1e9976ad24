"""The environment manifest (``manifest.json``): everything about the machine a reader needs.

Every probe is best effort: a value that cannot be read is ``null`` and, where useful, a
sibling ``*_unavailable`` says why. Nothing here changes the machine.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

from rundir import layout, utf8
from runner.host.proc import ask
from runner import __version__
from runner.host.cpuprofile import available as perf_available
from runner.host.netns import can_create_netns

SYSCTLS = (
    "net.core.optmem_max", "net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default",
    "net.core.wmem_default", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_congestion_control", "kernel.perf_event_paranoid",
    "kernel.kptr_restrict", "vm.dirty_ratio", "vm.dirty_background_ratio",
)
PACKAGES = ("rich", "numpy", "scipy", "pandas", "statsmodels", "seaborn", "matplotlib",
            "papermill", "jupyter-book", "sphinx", "myst-nb", "pytest", "hypothesis",
            "jsonschema")


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(errors="replace").strip()
    except OSError:
        return None


#: how long a tool may take to answer a question of the manifest (a version, a dry run)
ASK_TIMEOUT_S = 10.0


def _run(argv: list[str], timeout: float = ASK_TIMEOUT_S) -> str | None:
    """A tool's answer (stdout, else stderr), or None: not installed, nothing printed, or no
    answer within ``timeout`` (:func:`runner.host.proc.ask`: its process group is ended, so
    a tool that hangs leaves nothing running)."""
    if shutil.which(argv[0]) is None and not os.path.isabs(argv[0]):
        return None
    return ask(argv, timeout=timeout).text


def sysctl(name: str) -> str | None:
    v = _read("/proc/sys/" + name.replace(".", "/"))
    return " ".join(v.split()) if v is not None else None


def os_release() -> dict[str, str]:
    text = _read("/etc/os-release") or ""
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition("=")
        if k in ("PRETTY_NAME", "ID", "VERSION_ID"):
            out[k.lower()] = v.strip('"')
    return out


def cpu() -> dict[str, Any]:
    info = _read("/proc/cpuinfo") or ""
    model = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    flags = re.search(r"^flags\s*:\s*(.+)$", info, re.M)
    flagset = set(flags.group(1).split()) if flags else set()
    return {
        "model": model.group(1).strip() if model else platform.processor() or None,
        "count": os.cpu_count(),
        "online": _read("/sys/devices/system/cpu/online"),
        "affinity": sorted(os.sched_getaffinity(0)),
        "flags_of_interest": sorted(flagset & {"erms", "fsrm", "avx2", "avx512f", "rep_good",
                                               "hypervisor", "constant_tsc"}),
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "turbo": _turbo(),
        "smt": _read("/sys/devices/system/cpu/smt/active"),
    }


def _turbo() -> str | None:
    no_turbo = _read("/sys/devices/system/cpu/intel_pstate/no_turbo")
    if no_turbo is not None:
        return "off" if no_turbo == "1" else "on"
    boost = _read("/sys/devices/system/cpu/cpufreq/boost")
    if boost is not None:
        return "on" if boost == "1" else "off"
    return None


def memory() -> dict[str, Any]:
    info = _read("/proc/meminfo") or ""
    m = re.search(r"^MemTotal:\s*(\d+) kB", info, re.M)
    return {"total_bytes": int(m.group(1)) * 1024 if m else None,
            "transparent_hugepage": _read("/sys/kernel/mm/transparent_hugepage/enabled")}


KERNEL_PARAMS = ("mitigations", "isolcpus", "nohz", "nohz_full", "rcu_nocbs", "intel_pstate",
                 "idle", "processor.max_cstate", "intel_idle.max_cstate",
                 "transparent_hugepage", "preempt", "spectre_v2", "pti", "nosmt")


def kernel_params() -> dict[str, str]:
    """Only the boot parameters that can change a measurement."""
    out = {}
    for tok in (_read("/proc/cmdline") or "").split():
        if tok == "--":
            break
        k, _, v = tok.partition("=")
        if k in KERNEL_PARAMS:
            out[k] = v
    return out


def virtualization() -> dict[str, Any]:
    info = _read("/proc/cpuinfo") or ""
    return {
        "detect_virt": _run(["systemd-detect-virt"]),
        "hypervisor_flag": bool(re.search(r"^flags\s*:.*\bhypervisor\b", info, re.M)),
        "dmi_product": _read("/sys/class/dmi/id/product_name"),
        "dmi_vendor": _read("/sys/class/dmi/id/sys_vendor"),
    }


def mitigations() -> dict[str, str]:
    d = Path("/sys/devices/system/cpu/vulnerabilities")
    out = {}
    if d.is_dir():
        for f in sorted(d.iterdir()):
            v = _read(str(f))
            if v is not None:
                out[f.name] = v
    return out


def pmu() -> dict[str, Any]:
    """Are hardware counters there? Ask perf (``perf stat -e cycles``), not assumptions."""
    devices = sorted(os.listdir("/sys/bus/event_source/devices")) \
        if os.path.isdir("/sys/bus/event_source/devices") else []
    hw = any(d in ("cpu", "cpu_core", "cpu_atom", "armv8_pmuv3") or d.startswith("armv")
             for d in devices)
    out: dict[str, Any] = {"event_sources": devices, "hardware_pmu_device": hw}
    if shutil.which("perf"):
        r = ask(["perf", "stat", "-x,", "-e", "cycles,instructions", "--", "true"],
                timeout=ASK_TIMEOUT_S)
        lines = [ln for ln in r.stderr.splitlines() if ",cycles" in ln or ",instructions" in ln]
        ok = bool(lines) and all("<not supported>" not in ln and "<not counted>" not in ln
                                 for ln in lines)
        out["cycles_countable"] = ok
        out["perf_stat"] = lines if r.problem is None else r.problem
    else:
        out["cycles_countable"] = None
        out["perf_stat"] = "perf not installed"
    rec_ok, why = perf_available()
    out["perf_record_cpu_clock"] = rec_ok
    if not rec_ok:
        out["perf_record_unavailable"] = why
    out["available"] = bool(out.get("cycles_countable"))
    return out


def git_info(root: Path) -> dict[str, Any]:
    if shutil.which("git") is None or not (root / ".git").exists():
        # a bundle (make bundle) has no .git: it names the commit it was made from
        named = os.environ.get("COPYBENCH_SOURCE_COMMIT") or None
        return {"commit": named.removesuffix("+dirty") if named else None,
                "dirty": named.endswith("+dirty") if named else None,
                **({"from": "the bundle's COMMIT file"} if named else {})}
    commit = _run(["git", "-C", str(root), "rev-parse", "HEAD"])
    status = ask(["git", "-C", str(root), "status", "--porcelain", "--", "src", "runner"],
                 timeout=60)
    return {"commit": commit,
            "dirty": bool(status.stdout.strip()) if status.problem is None else None}


def packages() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for p in PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = None
    return out


def compiler(root: Path) -> dict[str, Any]:
    """The compiler and the exact flags `make -C src` uses (a dry run, nothing built)."""
    cc = os.environ.get("CC", "cc")
    version = _run([cc, "--version"])
    flags = command = None
    if (root / "src" / "Makefile").is_file() and shutil.which("make"):
        r = ask(["make", "-s", "-n", "-B", "-C", str(root / "src"), "build/copybench"],
                timeout=60)
        for line in r.stdout.splitlines():
            if "-o build/copybench" in line:
                command = line.strip()
                # (-DCOPYBENCH_*_SHA: the build's name for --build-info, not a flag)
                flags = " ".join(t for t in command.split()[1:] if not t.endswith(".c")
                                 and t not in ("-o", "build/copybench")
                                 and not t.startswith(("-DCOPYBENCH_SOURCE_SHA=",
                                                       "-DCOPYBENCH_FLAGS_SHA=")))
    return {"cc": cc, "version": version.splitlines()[0] if version else None,
            "flags": flags, "build_command": command}


def tools(binary: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, argv in (("perf", ["perf", "--version"]), ("iperf3", ["iperf3", "--version"]),
                       ("sockperf", ["sockperf", "--version"]), ("ip", ["ip", "-V"])):
        v = _run(argv)
        out[name] = v.splitlines()[0] if v else None
        out[f"{name}_path"] = shutil.which(name)
    out["liburing"] = _run(["pkg-config", "--modversion", "liburing"])
    return out


def copybench_info(binary: Path | None) -> dict[str, Any]:
    if binary is None:
        return {"path": None, "unavailable": "copybench not built (make -C src)"}
    methods = _run([str(binary), "methods", "--json"])
    try:
        parsed = json.loads(methods) if methods else None
    except json.JSONDecodeError:
        parsed = methods
    real = str(Path(binary).resolve())
    return {"path": str(binary), "realpath": real, "methods": parsed,
            "nix_store_path": real if real.startswith("/nix/store/") else None}


#: the working-set size of the manifest's headline memcpy figure (copybench memcpy's default,
#: and the only size manifests written before per-size bounds hold)
MEMCPY_DEFAULT_SIZE = 64 << 20
#: the smallest working set a memcpy bound is measured at: copybench memcpy reads the clock
#: after every copy (memcpy_bound.c), and a clock read (tens of ns) is a large part of a
#: cache-resident copy of a few KiB, so there the figure would understate the bandwidth and
#: bound nothing; from 64 KiB a copy takes microseconds and the read is below 1 %
MEMCPY_MIN_SIZE = 64 << 10
#: seconds per working-set size (the 64 MiB headline keeps copybench's default of 1 s)
MEMCPY_SECONDS_PER_SIZE = 0.25


def _memcpy_once(binary: Path, size: int | None, cpus: str | None,
                 seconds: float | None) -> dict[str, Any]:
    """One ``copybench memcpy`` run: its JSON line and the argv, or why there is none."""
    argv = [str(binary), "memcpy"] + (["--size", str(size)] if size else []) \
        + (["--duration", f"{seconds:g}"] if seconds else []) + (["--cpus", cpus] if cpus else [])
    r = ask(argv, timeout=60)
    if r.problem is not None:
        return {"memcpy_gbit_per_s": None, "size": size, "unavailable": r.problem, "argv": argv}
    try:
        d = json.loads(r.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"memcpy_gbit_per_s": None, "size": size, "argv": argv,
                "unavailable": f"exit {r.returncode}: {r.stderr.strip()[-300:]}"}
    d["argv"] = argv
    return d


def memcpy_bandwidth(binary: Path | None, cpus: str | None = "0",
                     sizes: Sequence[int] = ()) -> dict[str, Any]:
    """memcpy bandwidth between two buffers: the 64 MiB figure at the top level (the shape
    of every manifest), and under ``at_sizes`` one measurement per working-set size the run
    uses. A copy whose buffers fit in a cache runs at that cache's speed, so a memcpy
    bandwidth bounds a one-copy path only at its own size (the analysis draws it only
    there). Sizes below :data:`MEMCPY_MIN_SIZE` are listed with the reason."""
    if binary is None:
        return {"memcpy_gbit_per_s": None, "unavailable": "copybench not built"}
    out = _memcpy_once(binary, None, cpus, None)
    at: list[dict[str, Any]] = []
    for size in sorted({int(s) for s in sizes if s}):
        if size < MEMCPY_MIN_SIZE:
            at.append({"memcpy_gbit_per_s": None, "size": size,
                       "unavailable": f"below {MEMCPY_MIN_SIZE} bytes: copybench memcpy "
                                      "reads the clock after every copy, which would "
                                      "understate a cache-resident copy's bandwidth"})
        elif size == MEMCPY_DEFAULT_SIZE and out.get("memcpy_gbit_per_s") is not None:
            at.append({k: v for k, v in out.items() if k != "argv"})
        else:
            at.append(_memcpy_once(binary, size, cpus, MEMCPY_SECONDS_PER_SIZE))
    if sizes:
        out["at_sizes"] = at
    return out


def plan_sizes(run_dir: Path) -> list[int]:
    """The distinct message and file sizes of a run's plan (``plan.json`` cells): the
    working-set sizes its memcpy bounds are measured at; none when there is no plan."""
    try:
        plan = utf8.json_loads(utf8.read(Path(run_dir) / layout.PLAN, inside=Path(run_dir)))
    except (OSError, ValueError, utf8.BadInput):
        return []
    cells = plan.get("cells") or {}
    cells = cells.values() if isinstance(cells, dict) else cells
    return sorted({int(c["size"]) for c in cells
                   if isinstance(c, dict) and isinstance(c.get("size"), (int, float))})


#: where copybench makes its files unless a profile says otherwise (copybench's --dir default)
COPY_DIR = "/var/tmp"


def filesystem_of(path: str) -> dict[str, Any]:
    """The mount a path lives on (the longest mount point that contains it, from
    /proc/self/mounts): copy_file_range copies data only where the file system cannot share
    extents (ext4, tmpfs copy; btrfs, xfs reflink), so the copies chapter needs it."""
    try:
        real = os.path.realpath(path)
        best: tuple[str, str, str] | None = None
        with open("/proc/self/mounts", encoding="utf-8") as f:
            for line in f:
                dev, mnt, fstype = line.split()[:3]
                mnt = mnt.replace("\\040", " ")
                if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and \
                        (best is None or len(mnt) > len(best[1])):
                    best = (dev, mnt, fstype)
    except OSError as e:
        return {"path": path, "fstype": None, "unavailable": str(e)}
    if best is None:
        return {"path": path, "fstype": None, "unavailable": "no mount contains it"}
    return {"path": path, "mount": best[1], "device": best[0], "fstype": best[2]}


def collect(root: Path, binary: Path | None, measure: bool = True,
            sizes: Sequence[int] = ()) -> dict[str, Any]:
    """The manifest; ``sizes``: the working-set sizes to measure memcpy at (the plan's)."""
    uname = os.uname()
    nix = os.environ.get("NIX_STORE") or (sys.prefix if sys.prefix.startswith("/nix/store/")
                                           else None)
    return {
        "schema_version": 1,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "runner_version": __version__,
        "kernel": {"release": uname.release, "version": uname.version,
                   "machine": uname.machine, "cmdline_relevant": kernel_params()},
        "distribution": os_release(),
        "cpu": cpu(),
        "memory": memory(),
        "virtualization": virtualization(),
        "mitigations": mitigations(),
        "sysctls": {k: sysctl(k) for k in SYSCTLS},
        "perf_event_paranoid": sysctl("kernel.perf_event_paranoid"),
        "pmu": pmu(),
        "clocksource": _read(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "compiler": compiler(root),
        "git": git_info(root),
        "python": {"version": platform.python_version(), "executable": sys.executable,
                   "packages": packages()},
        "nix_store_path": nix,
        "tools": tools(binary),
        "copybench": copybench_info(binary),
        "memcpy": memcpy_bandwidth(binary, sizes=sizes) if measure else None,
        "euid": os.geteuid(),
        "can_create_netns": can_create_netns(),
        "loadavg": list(os.getloadavg()),
        "filesystems": {"copy_dir": filesystem_of(COPY_DIR)},
    }
