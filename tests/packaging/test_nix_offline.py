"""The Nix path, checked as far as this network allows.

The real nixpkgs cannot be fetched here, so the flake is run by the installed `nix` against
the stub nixpkgs of tests/test_packaging.py (exactly the attributes nix/attributes.txt lists),
turned into real (if trivial) derivations in a throw-away store:

* `nix flake show` and `nix flake check --no-build` accept the flake's outputs;
* `nix run .#book -- ARGS` / `.#reproduce -- ARGS` hand ARGS to the app unchanged, and the
  app's script (the flake's own text) passes them to make after the target;
* under Nix (COPYBENCH_NIX=1) the book is built with the flake's jupyter-book, not .venv's;
* nix/requirements-nixpkgs*.txt (the check venv of `make test-nix-book`) carry the versions of
  nix/python-versions.tsv, and that table covers every Python package the flake names;
* the README states the Nix version the pinned nixpkgs needs;
* the hardened build (`make -C src hardened`) really has the wrapper's link-time hardening.

What stays unchecked (GitHub and the Nix binary cache are unreachable): evaluating the real
nixpkgs at the pin, and building anything with it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

import test_packaging as tp

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "nix" / "python-versions.tsv"
REQS = (ROOT / "nix" / "requirements-nixpkgs.txt", ROOT / "nix" / "requirements-nixpkgs-nodeps.txt")
# what the nixos-25.11 nixpkgs needs to be evaluated at all (lib/minver.nix, see README)
NIX_MINIMUM = "2.18"
NIX_ENV = {
    **os.environ,
    "NIX_CONFIG": "experimental-features = nix-command flakes\nbuild-users-group =\nsandbox = false\n",
}
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


# --- a flake of the stub nixpkgs whose derivations Nix can instantiate ------------------

# Nix's built-in builder runs inside the nix process: nothing to execute in the chroot of a
# throw-away store. With no packages it makes an empty directory.
REAL_DRV = '''  mkDrv = name: args: builtins.deepSeq args (derivation {
    inherit name; system = "builtin"; builder = "builtin:buildenv";
    derivations = ""; manifest = "/dev/null";
  });
'''
# writeShellApplication: the script written beforehand to ./apps/<name>/bin/<name>, linked
# into the output by the same builder, so `nix run` has a real program to execute.
REAL_APP = '''"writeShellApplication" = args: derivation {
    inherit (args) name; system = "builtin"; builder = "builtin:buildenv";
    derivations = "true 5 1 ${builtins.path { path = ./apps + "/${args.name}"; name = "${args.name}-script"; }}";
    manifest = "/dev/null";
  };'''


def stub_flake(tmp: Path, attrs: dict[str, str], scripts: dict[str, str] | None = None) -> Path:
    text = tp.stub_nixpkgs(attrs)
    mk_drv = re.search(r"  mkDrv = name: args: builtins\.deepSeq args \{.*?\n  \};\n", text, re.S)
    assert mk_drv, "tests/test_packaging.py's stub no longer defines mkDrv as expected"
    text = text.replace(mk_drv.group(0), REAL_DRV)
    if scripts is not None:
        app = re.search(r'"writeShellApplication" = .*?\(mkDrv args\.name args\);', text, re.S)
        assert app, "tests/test_packaging.py's stub no longer defines writeShellApplication as expected"
        text = text.replace(app.group(0), REAL_APP)
    stub = tmp / "stub"
    stub.mkdir()
    (stub / "stub.nix").write_text(text, encoding="utf-8")
    (stub / "flake.nix").write_text(
        "{ outputs = _: { legacyPackages = (import ./stub.nix).legacyPackages; }; }\n", encoding="utf-8")
    for name, body in (scripts or {}).items():
        script = stub / "apps" / name / "bin" / name
        script.parent.mkdir(parents=True)
        script.write_text(body, encoding="utf-8")
        script.chmod(0o755)
    return stub


def flake_copy(tmp: Path) -> Path:
    """The files the flake reads: flake.nix, flake.lock, pyproject.toml and src/ (no builds)."""
    flake = tmp / "flake"
    flake.mkdir()
    for name in ("flake.nix", "flake.lock", "pyproject.toml"):
        shutil.copy2(ROOT / name, flake / name)
    shutil.copytree(ROOT / "src", flake / "src", ignore=shutil.ignore_patterns("build", "build-*"))
    return flake


def nix(tmp: Path, stub: Path, *args: str, ref: str = "", cwd: Path | None = None,
        env: dict[str, str] | None = None, after: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    exe = tp.need("nix")
    flake = tmp / "flake" if (tmp / "flake").is_dir() else flake_copy(tmp)
    cmd = [exe, *args, "--offline", "--no-write-lock-file", "--store", str(tmp / "store"),
           "--override-input", "nixpkgs", f"path:{stub}", f"path:{flake}{ref}", *after]
    done = subprocess.run(cmd, cwd=cwd or tmp, env={**NIX_ENV, **(env or {})}, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0 and "experimental" in done.stderr and "flakes" in done.stderr:
        pytest.skip(f"this nix cannot enable flakes: {done.stderr.strip().splitlines()[-1]}")
    return done


def test_flake_show_lists_every_output(tmp_path: Path) -> None:
    stub = stub_flake(tmp_path, tp.verified_attributes())
    done = nix(tmp_path, stub, "flake", "show", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    for system in tp.SYSTEMS:
        assert shown["packages"][system]["copybench"]["name"] == f"copybench-{VERSION}"
        assert {"reproduce", "book", "default"} <= set(shown["apps"][system])
        assert all(app["type"] == "app" for app in shown["apps"][system].values())
        assert set(shown["devShells"][system]) == {"default"}
        assert {"copybench", "pytest"} <= set(shown["checks"][system])


def test_flake_check_no_build_passes(tmp_path: Path) -> None:
    stub = stub_flake(tmp_path, tp.verified_attributes())
    done = nix(tmp_path, stub, "flake", "check", "--no-build")
    assert done.returncode == 0, done.stderr


def test_flake_check_fails_without_an_attribute(tmp_path: Path) -> None:
    """The check above can fail: without pkgs.iperf3 in the stub, `nix flake check` stops on it."""
    attrs = dict(tp.verified_attributes())
    del attrs["pkgs.iperf3"]
    stub = stub_flake(tmp_path, attrs)
    done = nix(tmp_path, stub, "flake", "check", "--no-build")
    assert done.returncode != 0
    assert "iperf3" in done.stderr


def app_scripts_as_built(tmp: Path) -> dict[str, str]:
    """The flake's app scripts, with the prelude writeShellApplication puts before the text."""
    prelude = "#!/usr/bin/env bash\nset -o errexit\nset -o nounset\nset -o pipefail\n"
    return {name: prelude + text + "\n" for name, text in tp.app_scripts(str(tmp / "unused")).items()}


@pytest.mark.parametrize("app, target, args", [
    ("book", "book", ["RUN=data/raw/a run", "-j1"]),
    ("reproduce", "reproduce", ["PROFILE=quick"]),
    ("default", "reproduce", []),
])
def test_nix_run_passes_the_arguments_after_double_dash(tmp_path: Path, app: str, target: str,
                                                        args: list[str]) -> None:
    stub = stub_flake(tmp_path, tp.verified_attributes(), app_scripts_as_built(tmp_path))
    checkout = tp.make_checkout(tmp_path / "checkout")
    env = tp.fake_make(tmp_path)
    done = nix(tmp_path, stub, "run", ref=f"#{app}", cwd=checkout, env=env, after=("--", *args))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"cwd={checkout}" in lines
    assert lines[0].startswith("cwd="), done.stdout
    got = [line.removeprefix("arg=") for line in lines if line.startswith("arg=")]
    assert got[-1 - len(args):] == [target, *args]
    assert any(a.startswith("PY=/nix/store/") and a.endswith("/bin/python") for a in got)


# --- make under Nix ---------------------------------------------------------------------

def test_under_nix_the_book_uses_the_flakes_jupyter_book() -> None:
    """nix run .#book runs `make book` with the flake's Python on PATH and no .venv."""
    tp.need("make")
    ref = tp.committed_reference_run()
    if ref is None:
        pytest.skip("no committed reference run (not a git checkout?)")
    done = subprocess.run(["make", "--no-print-directory", "-n", "-B", "book", "COPYBENCH_NIX=1",
                           "PY=/nix/store/x-python3-env/bin/python", f"RUN={ref.relative_to(ROOT)}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    builds = [line for line in done.stdout.splitlines() if " build book " in line]
    assert builds, done.stdout
    # the flake's jupyter-book by name (on PATH), whatever shell wraps it (pipefail, a filter)
    assert all(re.search(r"(^|[;&|(]\s*|\s)jupyter-book build book ", line) for line in builds), \
        builds
    assert ".venv/" not in done.stdout


# --- the version table and the check venv -----------------------------------------------

def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def table() -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    lines = [line for line in TABLE.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    header = lines[0].split("\t")
    assert header == ["package", "pip_path", "nixpkgs_25_11", "evidence", "notes"], header
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        assert len(fields) == 5, f"python-versions.tsv row {number}: {len(fields)} fields"
        assert all(f.strip() for f in fields), f"python-versions.tsv row {number}: an empty field"
        rows[_norm(fields[0])] = dict(zip(header, fields))
    return rows


def requirements() -> dict[str, str]:
    pins: dict[str, str] = {}
    for path in REQS:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, version = line.partition("==")
            pins[_norm(name if sep else re.split(r"[<>=!~]", line, maxsplit=1)[0])] = version
    return pins


# dependencies of the --no-deps packages, pinned only so that they import; not flake packages
REQ_ONLY = {"linkify-it-py", "ruamel-yaml", "docopt", "pykwalify"}


def test_check_venv_has_the_table_versions() -> None:
    rows, pins = table(), requirements()
    for name, version in pins.items():
        if name in REQ_ONLY:
            continue
        assert name in rows, f"{name} is in nix/requirements-nixpkgs*.txt but not in python-versions.tsv"
        want = rows[name]["nixpkgs_25_11"]
        # cffconvert: nixpkgs has a git snapshot after 2.0.0; PyPI's 2.0.0 is the closest release
        assert want == version or want.startswith(f"{version}-unstable-"), (name, version, want)
    missing = sorted(set(rows) - set(pins) - {"python3"})
    assert not missing, f"python-versions.tsv rows without a pin in the check venv: {missing}"


def test_table_covers_every_python_package_of_the_flake() -> None:
    rows = table()
    used = {_norm(a.removeprefix("ps.")) for a in tp.attributes_used_in_flake() if a.startswith("ps.")}
    used -= {"buildpythonpackage", "setuptools"}  # builders, not packages of the environment
    missing = sorted(used - set(rows))
    assert not missing, f"flake.nix names Python packages python-versions.tsv has no row for: {missing}"
    assert "sphinx-mathjax-offline" in rows


def test_relaxed_bounds_are_the_only_ones_installed_without_dependencies() -> None:
    """Each --no-deps pin says why nixpkgs does not enforce the bound pip would."""
    text = REQS[1].read_text(encoding="utf-8")
    for name in ("jupyter-book", "cffconvert", "sphinx-book-theme"):
        assert re.search(rf"^{name}==", text, re.M), name
    assert "pythonRelaxDeps" in text


# --- README and the hardened build -------------------------------------------------------

def test_readme_states_the_nix_version_the_pin_needs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"Nix {re.escape(NIX_MINIMUM)}\b[^\n]*(or newer|or later)", text), \
        f"README.md does not state Nix {NIX_MINIMUM} or newer"
    assert "2.8 or newer" not in text


def test_installed_nix_is_reported_against_the_minimum() -> None:
    """Not a failure: Debian 12's nix-bin (2.8) runs the checks above but cannot evaluate the
    real nixos-25.11 nixpkgs; say so when that is the nix installed here."""
    exe = tp.need("nix")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split()[-1]
    major_minor = tuple(int(x) for x in version.split(".")[:2])
    assert major_minor >= (2, 4), f"nix {version} has no flakes at all"
    if major_minor < tuple(int(x) for x in NIX_MINIMUM.split(".")):
        print(f"nix {version} is installed: enough for these offline checks, too old for the "
              f"pinned nixpkgs (needs {NIX_MINIMUM})")


def test_hardened_build_has_the_wrappers_link_hardening() -> None:
    tp.need("make")
    readelf = tp.need("readelf")
    built = subprocess.run(["make", "--no-print-directory", "-C", "src", "hardened"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    binary = ROOT / "src" / "build-hardened" / "copybench"
    dyn = subprocess.run([readelf, "-d", str(binary)], capture_output=True, text=True).stdout
    hdr = subprocess.run([readelf, "-lh", str(binary)], capture_output=True, text=True).stdout
    syms = subprocess.run([readelf, "--dyn-syms", "-W", str(binary)], capture_output=True, text=True).stdout
    assert "BIND_NOW" in dyn, "no -z now"
    assert "GNU_RELRO" in hdr, "no -z relro"
    assert re.search(r"Type:\s+DYN", hdr), "not a position-independent executable"
    assert "__stack_chk_fail" in syms, "no -fstack-protector-strong"
    if "fortify" not in os.environ.get("NIX_HARDENING_ENABLE", ""):  # in a Nix build the wrapper adds its own
        assert "__memcpy_chk" not in syms and "__read_chk" not in syms, "fortify is on (flake.nix disables it)"
