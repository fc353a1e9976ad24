"""The runner's lowest layer: this machine and the other one (errors, processes, namespaces,
ssh, CPUs, the copybench binary, host facts, CPU profiles, the remote host, the manifest)."""
