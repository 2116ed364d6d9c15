#!/usr/bin/env bash
# Stops or starts PostgreSQL or Redis on this machine, for the fault tests
# (test/faults): `fault-service.sh stop postgres`, `fault-service.sh start redis`.
# Starting reuses scripts/services.sh, which brings up whichever is down.
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?stop or start}
service=${2:?postgres or redis}
case "$action:$service" in
  stop:postgres) pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main stop -m fast ;;
  stop:redis) redis-cli -h 127.0.0.1 -p 6379 shutdown nosave >/dev/null 2>&1 || true ;;
  start:*) bash scripts/services.sh ;;
  *) echo "usage: fault-service.sh stop|start postgres|redis" >&2; exit 2 ;;
esac
