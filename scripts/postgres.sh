#!/usr/bin/env bash
# Makes sure the machine's PostgreSQL server answers on 127.0.0.1:5432 (trust auth), starting the
# Debian cluster if it is down. Tests and benchmarks that use a real server read DATABASE_URL;
# without one, paykit runs on PGlite and needs no server at all.
set -euo pipefail
ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if ready; then
  echo "postgres: running on 127.0.0.1:5432."
  exit 0
fi
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "postgres: not running and pg_ctlcluster is not installed; install PostgreSQL or unset DATABASE_URL to run on PGlite." >&2
  exit 1
fi
version=$(ls /etc/postgresql | sort -V | tail -1)
echo "postgres: starting cluster $version/main."
pg_ctlcluster --skip-systemctl-redirect "$version" main start
for _ in $(seq 1 30); do
  ready && { echo "postgres: running on 127.0.0.1:5432."; exit 0; }
  sleep 1
done
echo "postgres: the cluster did not answer on 127.0.0.1:5432 within 30 s; see /var/log/postgresql/." >&2
exit 1
