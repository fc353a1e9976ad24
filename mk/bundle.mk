# The bundle: one tarball that runs a profile's sweep on a bare x86-64 Linux with root and
# Python >= 3.11 + numpy + scipy (copybench static, ip/git/sysctl with their libraries, the
# runner and its pure-Python wheels): build/copybench-bundle.tar.gz. On the other machine:
#   tar xzf copybench-bundle.tar.gz && copybench-bundle/run-threads OUTDIR
# ORIGINALS_ARCHIVES=DIR puts the reports' archives in it (their programs then run there).
.PHONY: bundle
# (ORIGINALS_ARCHIVES reaches scripts/bundle through the environment: mk/runner.mk exports it)
bundle: ARCHIVES_FOR := bundle
bundle: ARCHIVES_NEEDED := 1
bundle: originals-archives setup
	scripts/bundle build/copybench-bundle.tar.gz
