#!/usr/bin/env bash
# Makes sure the machine's PostgreSQL server answers on 127.0.0.1:5432 (trust auth), starting the
# Debian cluster if it is down, with room for `pnpm check`'s connections: its test tasks run side by
# side (the reliability suite's three gateways and three workers, the ledger's workers and
# writers, each with a pool of up to 10), past Debian's 100 at their peak, so a server that allows
# fewer than MIN_CONNECTIONS is set to that (ALTER SYSTEM) and restarted. Tests and benchmarks that
# use a real server read DATABASE_URL; without one, paykit runs on PGlite and needs no server at all.
set -euo pipefail
MIN_CONNECTIONS=400
ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
cluster() { ls /etc/postgresql | sort -V | tail -1; }
wait_ready() {
  for _ in $(seq 1 30); do
    ready && { echo "postgres: running on 127.0.0.1:5432."; return 0; }
    sleep 1
  done
  echo "postgres: the cluster did not answer on 127.0.0.1:5432 within 30 s; see /var/log/postgresql/." >&2
  return 1
}
if ready; then
  allowed=$(psql -h 127.0.0.1 -U postgres -d postgres -Atc 'SHOW max_connections')
  if [ "$allowed" -ge "$MIN_CONNECTIONS" ]; then
    echo "postgres: running on 127.0.0.1:5432 (max_connections $allowed)."
    exit 0
  fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "postgres: max_connections is $allowed and pg_ctlcluster is not installed to restart it with $MIN_CONNECTIONS; pnpm check may run out of connections." >&2
    exit 0
  fi
  echo "postgres: max_connections is $allowed; setting $MIN_CONNECTIONS and restarting cluster $(cluster)/main."
  psql -h 127.0.0.1 -U postgres -d postgres -qc "ALTER SYSTEM SET max_connections = $MIN_CONNECTIONS"
  pg_ctlcluster --skip-systemctl-redirect "$(cluster)" main restart
  wait_ready
  exit
fi
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "postgres: not running and pg_ctlcluster is not installed; install PostgreSQL or unset DATABASE_URL to run on PGlite." >&2
  exit 1
fi
echo "postgres: starting cluster $(cluster)/main."
pg_ctlcluster --skip-systemctl-redirect "$(cluster)" main start -o "-c max_connections=$MIN_CONNECTIONS"
wait_ready
