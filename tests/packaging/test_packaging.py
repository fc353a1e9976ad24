"""Packaging: flake.nix/flake.lock, the verified nixpkgs attribute list, CITATION.cff, LICENSE,
README and the make hooks in mk/nix.mk.

Nothing here builds with Nix or reaches a network: Nix's binary cache and GitHub are out of
reach, so the flake is parsed, its lock read, and its outputs evaluated against a stub
nixpkgs made from nix/attributes.txt. Tests that need the `nix` commands skip, saying why,
where Nix is not installed (`.ci/run` installs Debian's nix-bin via scripts/setup).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import committed_reference_run

ROOT = Path(__file__).resolve().parents[2]
FLAKE = ROOT / "flake.nix"
LOCK = ROOT / "flake.lock"
ATTRIBUTES = ROOT / "nix" / "attributes.txt"
SYSTEMS = ("x86_64-linux", "aarch64-linux")

# The nixos-25.11 lock entry given in DESIGN.md ("Nix").
PIN = {
    "type": "github", "owner": "NixOS", "repo": "nixpkgs",
    "rev": "b6018f87da91d19d0ab4cf979885689b469cdd41",
    "narHash": "sha256-twXPFqFsrrY5r28Zh7Homgcp2gUMBgQ6WDS98Q/3xFI=",
    "lastModified": 1782847189,
}
BRANCH = "nixos-25.11"

NIX_ENV = {
    **os.environ,
    "NIX_CONFIG": "experimental-features = nix-command flakes\nbuild-users-group =\n",
}


def design_md() -> Path | None:
    """``../shared/DESIGN.md`` beside the checkout (marker ``shared``), or None."""
    path = ROOT.parent / "shared" / "DESIGN.md"
    return path if path.is_file() else None


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} not installed (Debian: apt-get install nix-bin); Nix checks skipped")
    return path


def run(cmd: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=NIX_ENV, capture_output=True, text=True, timeout=300)


# --- the verified attribute list --------------------------------------------------------

def verified_attributes() -> dict[str, str]:
    """attribute -> kind, from nix/attributes.txt."""
    out: dict[str, str] = {}
    for number, line in enumerate(ATTRIBUTES.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()
        assert len(fields) >= 3, f"attributes.txt:{number}: want 'attribute kind evidence'"
        attr, kind = fields[0], fields[1]
        assert attr.split(".")[0] in ("pkgs", "ps", "tl"), f"attributes.txt:{number}: {attr}"
        assert attr not in out, f"attributes.txt:{number}: {attr} listed twice"
        out[attr] = kind
    return out


def flake_text_without_comments() -> str:
    return "\n".join(line.split("#", 1)[0] for line in FLAKE.read_text(encoding="utf-8").splitlines())


def attributes_used_in_flake() -> set[str]:
    text = flake_text_without_comments()
    return {m.group(0) for m in re.finditer(r"(?<![\w.-])(?:pkgs|ps|tl)(?:\.[A-Za-z_][\w'-]*)+", text)}


def test_attribute_list_is_well_formed() -> None:
    attrs = verified_attributes()
    kinds = {"drv", "withPackages", *STUB_BUILDERS}
    assert set(attrs.values()) <= kinds
    for needed in ("pkgs.liburing", "pkgs.perf", "pkgs.iproute2", "pkgs.iperf3", "pkgs.sockperf",
                   "pkgs.python3.withPackages", "pkgs.writeShellApplication",
                   "ps.jupyter-book", "ps.myst-nb", "ps.papermill", "ps.sphinxcontrib-bibtex"):
        assert needed in attrs, needed


def test_flake_uses_only_verified_attributes() -> None:
    """Static check (no Nix needed); the stub evaluation below is the thorough one."""
    used = attributes_used_in_flake()
    assert used, "no pkgs./ps./tl. attributes found in flake.nix"
    unverified = sorted(used - set(verified_attributes()))
    assert not unverified, f"flake.nix uses attributes not in nix/attributes.txt: {unverified}"


def _normalize(requirement: str) -> str:
    name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def test_flake_python_has_every_pyproject_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {_normalize(r) for r in project["dependencies"]}
    provided = {a.removeprefix("ps.") for a in attributes_used_in_flake() if a.startswith("ps.")}
    missing = sorted(wanted - provided)
    assert not missing, f"pyproject.toml dependencies missing from the flake's python3.withPackages: {missing}"


def test_flake_python_has_every_sphinx_extension_of_the_book() -> None:
    from ruamel.yaml import YAML

    path = ROOT / "book" / "_config.yml"  # committed: missing is a failure
    config = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    extensions = (config.get("sphinx") or {}).get("extra_extensions") or []
    text = flake_text_without_comments()
    for extension in extensions:
        name = re.sub(r"[._]+", "-", extension.split(".")[0] if extension.startswith("sphinx.ext")
                      else extension).lower()
        if name == "sphinx":
            continue  # sphinx.ext.* ships with Sphinx
        assert f"ps.{name}" in text or f'pname = "{name}"' in text, (
            f"book/_config.yml loads {extension}; the flake's Python has no {name}")


# --- flake.nix and flake.lock -----------------------------------------------------------

ORIGINALS = {"originals-s1": "S1", "originals-s2": "S2", "originals-s3": "S3"}


def test_lock_matches_design_entry() -> None:
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    assert lock["version"] == 7
    root = lock["nodes"][lock["root"]]
    # nixpkgs, and the replicated reports' programs as non-flake inputs
    assert root["inputs"] == {"nixpkgs": "nixpkgs", **{k: k for k in ORIGINALS}}
    node = lock["nodes"]["nixpkgs"]
    assert node["locked"] == PIN
    assert node["original"] == {"type": "github", "owner": "NixOS", "repo": "nixpkgs", "ref": BRANCH}
    assert set(lock["nodes"]) == {"root", "nixpkgs", *ORIGINALS}


def test_originals_inputs_pin_the_commits_of_sources_tsv() -> None:
    """flake.nix and flake.lock pin each report's repository at the commit the runner pins
    (runner/originals/sources.tsv), as a non-flake input."""
    from runner.originals import sources
    pins = sources.load()
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    text = flake_text_without_comments()
    for name, sid in ORIGINALS.items():
        src = pins[sid]
        owner, repo = src.repository.split("/")
        node = lock["nodes"][name]
        assert node["flake"] is False
        assert node["original"] == {"type": "github", "owner": owner, "repo": repo,
                                    "rev": src.commit}
        locked = node["locked"]
        assert (locked["owner"], locked["repo"], locked["rev"]) == (owner, repo, src.commit)
        assert re.search(rf'inputs\.{name}\s*=\s*{{\s*url\s*=\s*"github:{src.repository}/'
                         rf'{src.commit}";\s*flake\s*=\s*false;\s*}};', text), name


@pytest.mark.shared
def test_originals_lock_hashes_are_nix_own_of_the_archives() -> None:
    """Each narHash is what Nix computes for GitHub's archive of the commit (nix-prefetch-url
    --unpack of the archive ../shared/seed-repos holds), and lastModified its commit time
    (GitHub sets every entry's mtime to it)."""
    import tarfile
    from runner.originals import sources
    tool = need("nix-prefetch-url")
    nix = need("nix")
    seed = ROOT.parent / "shared" / "seed-repos"
    if not seed.is_dir():
        pytest.skip(f"needs the archives in {seed}")
    lock = json.loads(LOCK.read_text(encoding="utf-8"))
    pins = sources.load()
    for name, sid in ORIGINALS.items():
        archive = seed / pins[sid].archive_name
        got = run([tool, "--unpack", "--type", "sha256", f"file://{archive}"])
        assert got.returncode == 0, got.stderr
        sri = subprocess.run([nix, "hash", "to-sri", "--type", "sha256", got.stdout.strip()],
                             capture_output=True, text=True, env=NIX_ENV, check=False)
        assert sri.returncode == 0, sri.stderr
        locked = lock["nodes"][name]["locked"]
        assert locked["narHash"] == sri.stdout.strip(), name
        with tarfile.open(archive) as t:
            assert {m.mtime for m in t.getmembers()} == {locked["lastModified"]}, name


@pytest.mark.shared
def test_pin_is_the_one_in_design_md() -> None:
    path = design_md()
    if path is None:
        pytest.skip(f"needs {ROOT.parent / 'shared' / 'DESIGN.md'} beside the checkout")
    text = path.read_text(encoding="utf-8")
    for key in ("rev", "narHash", "lastModified"):
        match = re.search(rf"{key} `([^`]+)`", text)
        assert match, f"DESIGN.md names no {key}"
        assert match.group(1) == str(PIN[key]), key
    assert f"`{BRANCH}`" in text


def test_flake_input_is_the_branch_of_the_lock() -> None:
    text = flake_text_without_comments()
    urls = re.findall(r'url\s*=\s*"([^"]+)"', text)
    assert urls[0] == f"github:NixOS/nixpkgs/{BRANCH}", urls
    assert len(urls) == 1 + len(ORIGINALS), urls  # the others: test_originals_inputs_...


def test_flake_parses() -> None:
    nix_instantiate = need("nix-instantiate")
    done = run([nix_instantiate, "--parse", str(FLAKE)])
    assert done.returncode == 0, done.stderr


def test_flake_metadata_reads_the_lock(tmp_path: Path) -> None:
    """`nix flake metadata` offline, on a copy of the flake in a throw-away store: the lock is
    read and agrees with flake.nix (a disagreement would make Nix re-lock, i.e. fetch)."""
    nix = need("nix")
    flake = tmp_path / "flake"
    flake.mkdir()
    for name in ("flake.nix", "flake.lock", "pyproject.toml"):
        shutil.copy2(ROOT / name, flake / name)
    done = run([nix, "flake", "metadata", "--offline", "--no-write-lock-file", "--json",
                "--store", str(tmp_path / "store"), f"path:{flake}"])
    if done.returncode != 0 and "experimental" in done.stderr:
        pytest.skip(f"this nix cannot enable flakes: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)
    assert meta["locks"]["nodes"]["nixpkgs"]["locked"] == PIN
    assert meta["locks"]["nodes"]["nixpkgs"]["original"]["ref"] == BRANCH
    assert "copybench" in meta["description"]


# --- evaluating the outputs against a stub nixpkgs --------------------------------------

STUB_BUILDERS = {
    "mkDerivation": 'args: mkDrv (args.name or "${args.pname}-${args.version}") args',
    "mkShell": 'args: mkDrv (args.name or "nix-shell") args',
    # The script text is traced (stderr) so tests can run it; see app_scripts().
    "writeShellApplication": (
        'args: assert builtins.isString args.text && builtins.isList (args.runtimeInputs or [ ]);'
        ' builtins.trace "SCRIPT-BEGIN ${args.name}\n${args.text}\nSCRIPT-END" (mkDrv args.name args)'),
    "runCommand": "name: env: text: mkDrv name { inherit env text; }",
    "fetchPypi": 'args: assert args ? hash; mkDrv "${args.pname}-${args.version}-src" args',
    "buildPythonPackage": 'args: mkDrv "${args.pname}-${args.version}" args',
}


def _nix_attrs(tree: dict[str, Any], indent: str = "  ") -> str:
    lines = ["{"]
    for key, value in sorted(tree.items()):
        rendered = _nix_attrs(value, indent + "  ") if isinstance(value, dict) else value
        lines.append(f'{indent}"{key}" = {rendered};')
    lines.append(indent[:-2] + "}")
    return "\n".join(lines)


def stub_nixpkgs(attrs: dict[str, str]) -> str:
    """A Nix expression: legacyPackages.<system> holding exactly the listed attributes."""
    sets: dict[str, dict[str, Any]] = {"pkgs": {}, "ps": {}, "tl": {}}
    for attr, kind in attrs.items():
        space, *path = attr.split(".")
        node = sets[space]
        for key in path[:-1]:
            node = node.setdefault(key, {})
        leaf = path[-1]
        if kind == "drv":
            node[leaf] = f'mkDrv "{leaf}" {{ }}'
        elif kind == "withPackages":
            member = "ps" if path[0] == "python3" else "tl"
            node[leaf] = f'f: mkDrv "{path[0]}-env" {{ members = f {member}; }}'
        else:
            node[leaf] = STUB_BUILDERS[kind]
    return f"""
let
  mkDrv = name: args: builtins.deepSeq args {{
    type = "derivation"; inherit name;
    outPath = "/nix/store/00000000000000000000000000000000-${{name}}";
  }};
  ps = {_nix_attrs(sets["ps"])};
  tl = {_nix_attrs(sets["tl"])};
  pkgs = {_nix_attrs(sets["pkgs"])};
in {{ legacyPackages = {{ {" ".join(f'"{s}" = pkgs;' for s in SYSTEMS)} }}; }}
"""


def evaluate_flake(attrs: dict[str, str],
                   self_path: str = "/nix/store/00000000000000000000000000000000-source",
                   ) -> subprocess.CompletedProcess[str]:
    nix_instantiate = need("nix-instantiate")
    expr = f"""
let
  flake = import {FLAKE};
  outputs = flake.outputs {{
    self = {{ outPath = "{self_path}"; }};
    nixpkgs = {stub_nixpkgs(attrs)};
  }};
  show = v: if v ? type && v.type == "app" then {{ inherit (v) type program; }} else v.name;
in builtins.mapAttrs (_: bySystem: builtins.mapAttrs (_: builtins.mapAttrs (_: show)) bySystem) outputs
"""
    return run([nix_instantiate, "--eval", "--strict", "--json", "--readonly-mode", "-E", expr])


def test_flake_outputs_evaluate_with_only_verified_attributes() -> None:
    done = evaluate_flake(verified_attributes())
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"packages", "apps", "devShells", "checks"}
    for system in SYSTEMS:
        packages = out["packages"][system]
        assert set(packages) == {"copybench", "default"}
        assert packages["copybench"].startswith("copybench-")
        assert packages["default"] == packages["copybench"]
        apps = out["apps"][system]
        assert {"reproduce", "book"} <= set(apps)
        assert apps["reproduce"]["type"] == "app"
        assert apps["reproduce"]["program"].endswith("/bin/copybench-reproduce")
        assert apps["book"]["program"].endswith("/bin/copybench-book")
        assert set(out["devShells"][system]) == {"default"}
        assert {"copybench", "pytest"} <= set(out["checks"][system])


def test_version_comes_from_pyproject() -> None:
    done = evaluate_flake(verified_attributes())
    assert done.returncode == 0, done.stderr
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert json.loads(done.stdout)["packages"]["x86_64-linux"]["copybench"] == f"copybench-{version}"


@pytest.mark.parametrize("drop", ["pkgs.sockperf", "ps.jupyter-book", "tl.latexmk", "pkgs.liburing"])
def test_stub_catches_an_unverified_attribute(drop: str) -> None:
    """The stub is strict: without one listed attribute the evaluation fails on it."""
    attrs = dict(verified_attributes())
    del attrs[drop]
    done = evaluate_flake(attrs)
    assert done.returncode != 0
    assert drop.split(".")[-1] in done.stderr


def test_reproduce_app_carries_every_tool() -> None:
    text = flake_text_without_comments()
    assert re.search(r'makeApp "copybench-reproduce" "reproduce"', text)
    for tool in ("copybench", "python", "tex", "pkgs.perf", "pkgs.iproute2", "pkgs.iperf3",
                 "pkgs.sockperf"):
        assert re.search(rf"runtimeTools = \[[^\]]*\b{re.escape(tool)}\b", text, re.S), tool


def app_scripts(self_path: str) -> dict[str, str]:
    """name -> shell text of every writeShellApplication in the flake (traced by the stub)."""
    done = evaluate_flake(verified_attributes(), self_path)
    assert done.returncode == 0, done.stderr
    scripts = {}
    for match in re.finditer(r"SCRIPT-BEGIN (\S+)\n(.*?)\nSCRIPT-END", done.stderr, re.S):
        scripts[match.group(1)] = match.group(2)
    return scripts


def fake_make(tmp: Path) -> dict[str, str]:
    """PATH with a `make` that prints its arguments and the Nix variables, for the app scripts."""
    bindir = tmp / "bin"
    bindir.mkdir()
    (bindir / "make").write_text(
        '#!/bin/sh\necho "cwd=$PWD"\necho "nix=$COPYBENCH_NIX bin=$COPYBENCH_BIN"\n'
        'for a in "$@"; do echo "arg=$a"; done\n', encoding="utf-8")
    (bindir / "make").chmod(0o755)
    return {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}


def write_script(tmp: Path, text: str) -> Path:
    # writeShellApplication's own prelude (bash, errexit, nounset, pipefail) around the text
    script = tmp / "app.sh"
    script.write_text("#!/usr/bin/env bash\nset -o errexit\nset -o nounset\nset -o pipefail\n"
                      + text + "\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def make_checkout(path: Path) -> Path:
    (path / "src").mkdir(parents=True)
    (path / "runner").mkdir()
    (path / "Makefile").write_text("reproduce:\n", encoding="utf-8")
    (path / "src" / "README.md").write_text("copybench\n", encoding="utf-8")
    return path


def test_app_scripts_pass_shellcheck(tmp_path: Path) -> None:
    scripts = app_scripts(str(tmp_path))
    assert set(scripts) == {"copybench-reproduce", "copybench-book"}
    for name, text in scripts.items():
        script = write_script(tmp_path, text)
        syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert syntax.returncode == 0, f"{name}: {syntax.stderr}"
        if shutil.which("shellcheck"):  # what writeShellApplication's checkPhase runs
            lint = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
            assert lint.returncode == 0, f"{name}: {lint.stdout}"


def test_reproduce_app_runs_make_reproduce_with_the_same_options(tmp_path: Path) -> None:
    checkout = make_checkout(tmp_path / "checkout")
    text = app_scripts(str(tmp_path / "unused"))["copybench-reproduce"]
    done = subprocess.run([str(write_script(tmp_path, text)), "PROFILE=quick", "-j1"],
                          cwd=checkout, env=fake_make(tmp_path), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"cwd={checkout}" in lines
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert f"nix=1 bin=/nix/store/{'0' * 32}-copybench-{version}/bin/copybench" in lines
    args = [line.removeprefix("arg=") for line in lines if line.startswith("arg=")]
    assert args[-3:] == ["reproduce", "PROFILE=quick", "-j1"]
    assert any(a.startswith("PY=/nix/store/") and a.endswith("/bin/python") for a in args)
    assert any(a.startswith("BIN=/nix/store/") for a in args)


def test_app_refuses_a_destination_that_is_not_a_checkout(tmp_path: Path) -> None:
    text = app_scripts(str(tmp_path / "unused"))["copybench-reproduce"]
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "copybench").mkdir(parents=True)
    done = subprocess.run([str(write_script(tmp_path, text))], cwd=elsewhere,
                          env=fake_make(tmp_path), capture_output=True, text=True)
    assert done.returncode == 2
    assert "is not a copybench checkout" in done.stderr
    assert "arg=" not in done.stdout


def test_app_outside_a_checkout_copies_the_pinned_sources(tmp_path: Path) -> None:
    source = make_checkout(tmp_path / "source")
    text = app_scripts(str(source))["copybench-book"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([str(write_script(tmp_path, text)), "RUN=data/raw/x"], cwd=elsewhere,
                          env=fake_make(tmp_path), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"cwd={elsewhere / 'copybench'}" in done.stdout.splitlines()
    assert (elsewhere / "copybench" / "src" / "README.md").is_file()
    assert done.stdout.splitlines()[-2:] == ["arg=book", "arg=RUN=data/raw/x"]


# --- mk/nix.mk --------------------------------------------------------------------------

def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.parametrize("target", ["seal", "pack"])
def test_make_seal_and_pack_without_run_are_usage_errors(target: str) -> None:
    """They write into a run, so never default to the committed reference run."""
    need("make")
    done = make(target)
    assert done.returncode == 2
    assert "RUN is required" in done.stderr


@pytest.mark.slow  # in make test-slow: make test stays under 15 min
def test_make_verify_without_run_checks_the_reference_run() -> None:
    need("make")
    ref = committed_reference_run()
    if ref is None:
        pytest.skip("no committed reference run (not a git checkout?)")
    done = make("verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"verify {ref.relative_to(ROOT)}: ok;" in done.stdout


def test_under_nix_setup_and_build_use_the_flake_tools() -> None:
    need("make")
    done = make("-n", "setup", "build", env={"COPYBENCH_NIX": "1", "COPYBENCH_BIN": "/nix/store/x-copybench/bin/copybench"})
    assert done.returncode == 0, done.stderr
    assert "scripts/setup" not in done.stdout
    assert "tools from Nix" in done.stdout
    assert 'test -x "/nix/store/x-copybench/bin/copybench"' in done.stdout
    assert "make -C src" not in done.stdout


def test_without_nix_setup_is_untouched() -> None:
    need("make")
    done = make("-n", "setup", env={"COPYBENCH_NIX": ""})
    assert "scripts/setup" in done.stdout


# --- CITATION.cff, LICENSE, README ------------------------------------------------------

def test_citation_cff_validates() -> None:
    from cffconvert.cli.create_citation import create_citation

    citation = create_citation(str(ROOT / "CITATION.cff"), None)
    citation.validate()  # raises on a schema violation (CFF 1.2.0 JSON schema)


def test_citation_cff_fields() -> None:
    from ruamel.yaml import YAML

    cff = YAML(typ="safe").load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff["cff-version"] == "1.2.0"
    for key in ("title", "authors", "version", "date-released", "license",
                "preferred-citation", "message"):
        assert cff.get(key), key
    # no placeholder address: a field not known yet is left out
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert "example.org" not in text and "example.com" not in text
    for url in re.findall(r"https?://\S+", text):
        assert "example" not in url, url
    assert str(cff["version"]) == project["version"]
    assert cff["license"] == "MIT"
    assert cff["preferred-citation"]["title"] and cff["preferred-citation"]["authors"]


def test_citation_is_rejected_when_broken(tmp_path: Path) -> None:
    """The validation above can fail: a CFF with a bad cff-version does not validate."""
    from cffconvert.cli.create_citation import create_citation

    broken = tmp_path / "CITATION.cff"
    broken.write_text((ROOT / "CITATION.cff").read_text(encoding="utf-8")
                      .replace('cff-version: 1.2.0', 'cff-version: 1.2.0\nlicense-url: not a url'),
                      encoding="utf-8")
    with pytest.raises(Exception):
        create_citation(str(broken), None).validate()


def test_license_is_mit() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "2026 the copybench authors" in text
    assert "WITHOUT WARRANTY OF ANY KIND" in text


def test_readme_shows_the_commands() -> None:
    lines = [line.strip() for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()]
    for command in ("make reproduce", "make test", "nix run .#reproduce"):
        assert command in lines, f"README.md has no line '{command}'"
    text = "\n".join(lines)
    for topic in ("CITATION.cff", "make verify RUN=", "book/_build/html"):
        assert topic in text, topic


def test_the_readme_reads_in_five_minutes() -> None:
    """The README is what a newcomer reads first: at most 200 lines (the run-by-run history
    lives in data/raw/README.md, the audits in the artifact appendix and nix/README.md)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines"
