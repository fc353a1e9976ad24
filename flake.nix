{
  # copybench with every tool pinned. `nix run .#reproduce` does what `make reproduce` does
  # (same make options) with the tools below instead of apt + .venv; benchmarks run on the host
  # kernel, never inside a build sandbox. Every nixpkgs attribute used here is listed, with
  # where it was checked in nixpkgs' sources, in nix/attributes.txt (tests/packaging/test_packaging.py
  # evaluates this file against a stub nixpkgs made from that list).
  description = "copybench: what Linux data-movement primitives really cost, as a reproducible artifact";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  # The replicated reports' own programs (runner/originals), at the commits runner/originals/
  # sources.tsv pins: not flakes and never copied into this repository (they carry no
  # licence); the runner verifies each tree's git hash before building it.
  inputs.originals-s1 = { url = "github:yashchoudhery/GRS-Assignment-2/4f60d52a29b2ea26ada8cb1282de7936626788d6"; flake = false; };
  inputs.originals-s2 = { url = "github:arpitadebnath29/GRS_PA02/35b0228a748766d4d557299fa7cd3957c9856a74"; flake = false; };
  inputs.originals-s3 = { url = "github:shivam697/GRS_PA02/54e8032f7de9312564bd9b035ef900af8fc04594"; flake = false; };

  outputs = { self, nixpkgs, ... }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAllSystems = f: builtins.listToAttrs (map (system: { name = system; value = f system; }) systems);
      version = (builtins.fromTOML (builtins.readFile ./pyproject.toml)).project.version;

      perSystem = system:
        let
          pkgs = nixpkgs.legacyPackages.${system};

          # Every Python dependency of pyproject.toml (runner, notebooks, book, tests), and the
          # Sphinx extensions book/_config.yml loads.
          python = pkgs.python3.withPackages (ps: [
            ps.papermill ps.jupyter-book ps.myst-nb ps.sphinx ps.sphinxcontrib-bibtex
            ps.pandas ps.seaborn ps.matplotlib ps.scipy ps.statsmodels ps.ipykernel
            ps.rich ps.jsonschema ps.pytest ps.hypothesis ps.cffconvert ps.numpy ps.jupytext ps.selenium
            (sphinx-mathjax-offline ps)
          ]);

          # MathJax served from the book itself (no CDN): not in nixpkgs, so built here from
          # the PyPI sdist of the version requirements.lock pins.
          sphinx-mathjax-offline = ps: ps.buildPythonPackage {
            pname = "sphinx-mathjax-offline";
            version = "0.0.2";
            pyproject = true;
            src = pkgs.fetchPypi {
              pname = "sphinx-mathjax-offline";
              version = "0.0.2";
              hash = "sha256-ffvL1txg79jY8arAcY8O5ZE6XOoDyw4D/6d/8N+/5b0=";
            };
            build-system = [ ps.setuptools ];
            dependencies = [ ps.sphinx ];
            doCheck = false; # no tests; its package directory has a '-', so no import check
          };

          # pdflatex + latexmk for the PDF: the TeX Live counterpart of Debian's
          # texlive-latex-recommended, texlive-latex-extra, texlive-fonts-recommended, latexmk.
          tex = pkgs.texlive.withPackages (tl: [
            tl.scheme-medium tl.latexmk tl.collection-latexextra tl.collection-fontsrecommended
          ]);

          copybench = pkgs.stdenv.mkDerivation {
            pname = "copybench";
            inherit version;
            src = builtins.path {
              name = "copybench-src";
              path = ./src;
              filter = path: type: !(builtins.elem (baseNameOf path) [ "build" "build-hardened" ]);
            };
            nativeBuildInputs = [ pkgs.pkg-config ];
            buildInputs = [ pkgs.liburing ];
            # Build with the flags of src/Makefile only: _FORTIFY_SOURCE would swap in checked
            # memcpy/read variants, and the ASan test build is unoptimized.
            hardeningDisable = [ "fortify" ];
            enableParallelBuilding = true;
            # `make -C src test`: an -O2 and an ASan+UBSan build, both running the C tests
            # (loopback only, which the build sandbox has). tests/run_tests.sh starts with
            # `#!/usr/bin/env bash`, absent from the sandbox, and checks records with python3.
            postPatch = ''
              patchShebangs tests
            '';
            doCheck = true;
            checkTarget = "test";
            nativeCheckInputs = [ python ];
            installPhase = ''
              runHook preInstall
              install -Dm755 build/copybench "$out/bin/copybench"
              install -Dm644 README.md "$out/share/doc/copybench/README.md"
              runHook postInstall
            '';
            meta = {
              description = "Measures what Linux data-movement primitives cost";
              mainProgram = "copybench";
            };
          };

          # Tools `make reproduce` needs at run time, all from the pin.
          runtimeTools = [
            copybench python tex
            pkgs.perf pkgs.iproute2 pkgs.iperf3 pkgs.sockperf
            pkgs.gnumake pkgs.coreutils pkgs.git pkgs.util-linux
          ];

          # A make target run in a copybench checkout with the pinned tools. mk/nix.mk reads
          # COPYBENCH_NIX/COPYBENCH_BIN: `setup` (apt + .venv) and `build` (cc) become checks.
          makeApp = name: target: pkgs.writeShellApplication {
            inherit name;
            runtimeInputs = runtimeTools;
            text = ''
              if [ ! -f Makefile ] || [ ! -f src/README.md ] || [ ! -d runner ]; then
                dest=''${COPYBENCH_CHECKOUT:-$PWD/copybench}
                if [ ! -d "$dest" ]; then
                  echo "${name}: not in a copybench checkout; copying the pinned sources to $dest" >&2
                  cp -R ${self} "$dest"
                  chmod -R u+w "$dest"
                fi
                cd "$dest"
                if [ ! -f Makefile ] || [ ! -d runner ]; then
                  echo "${name}: $dest exists but is not a copybench checkout" >&2
                  exit 2
                fi
              fi
              export COPYBENCH_NIX=1
              export COPYBENCH_BIN=${copybench}/bin/copybench
              export COPYBENCH_NIX_STORE_PATH=${copybench}
              export PYTHONPATH="$PWD''${PYTHONPATH:+:$PYTHONPATH}"
              exec make PY=${python}/bin/python BIN=${copybench}/bin/copybench ${target} "$@"
            '';
          };

          reproduce = makeApp "copybench-reproduce" "reproduce";
          book = makeApp "copybench-book" "book";

          # pytest on the parts that need neither root nor a real sweep, in the sandbox.
          pytest = pkgs.runCommand "copybench-pytest-${version}" {
            nativeBuildInputs = [ python copybench pkgs.gnumake pkgs.coreutils ];
          } ''
            cp -R ${self} source
            chmod -R u+w source
            cd source
            mkdir -p src/build
            ln -s ${copybench}/bin/copybench src/build/copybench
            export HOME="$TMPDIR" COPYBENCH_BIN=${copybench}/bin/copybench
            python -m pytest -q -p no:cacheprovider -m "not (root or sweep or slow or reference or sshd or book or compare_report)"
            touch "$out"
          '';
        in
        {
          packages = { inherit copybench; default = copybench; };
          apps = {
            reproduce = { type = "app"; program = "${reproduce}/bin/copybench-reproduce"; };
            book = { type = "app"; program = "${book}/bin/copybench-book"; };
            default = { type = "app"; program = "${reproduce}/bin/copybench-reproduce"; };
          };
          devShells.default = pkgs.mkShell {
            inputsFrom = [ copybench ];
            # chromium + chromedriver: the book's browser test (make test-browser)
            packages = runtimeTools ++ [ pkgs.chromium pkgs.chromedriver ];
            shellHook = ''
              export COPYBENCH_NIX=1
              echo "copybench dev shell: make test / make reproduce use these tools (no apt, no .venv)"
            '';
          };
          checks = { inherit copybench pytest; };
        };

      outputsBySystem = forAllSystems perSystem;
      pick = attr: builtins.mapAttrs (_system: outs: outs.${attr}) outputsBySystem;
    in
    {
      packages = pick "packages";
      apps = pick "apps";
      devShells = pick "devShells";
      checks = pick "checks";
    };
}
