#!/usr/bin/env bash
# Debian's haproxy for the reliability suite's replicas scenario (three gateways behind it; the
# test writes its configuration and starts it in the foreground). Idempotent: does nothing when
# haproxy is there.
set -euo pipefail
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || (apt-get update && apt-get install -y haproxy)
