"""One trial: its pair of processes on a transport, copybench's and the peer tools' argv and
output, the record it leaves (over :mod:`runner.plan` and :mod:`runner.host`)."""
