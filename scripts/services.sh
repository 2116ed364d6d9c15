#!/usr/bin/env bash
# Brings up PostgreSQL and Redis on this machine for npm start and npm test:
# starts them when installed and stopped, installs them with apt-get when
# missing (Debian, as root), and fails with a clear message otherwise.
set -euo pipefail

PGHOST=127.0.0.1
PGPORT=5432
REDIS_PORT=6379

say() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

pg_up() { pg_isready -q -h "$PGHOST" -p "$PGPORT" 2>/dev/null; }
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]; }

apt_install() {
  command -v apt-get >/dev/null || die "$1 is missing and this is not a Debian-like system: install $1 yourself, or point DATABASE_URL / REDIS_URL at running servers."
  [ "$(id -u)" = 0 ] || die "$1 is missing and installing it needs root: run 'sudo apt-get install $*' once, then try again."
  say "installing $* with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || die "apt-get update failed"
  apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
}

wait_for() {
  local what=$1 check=$2
  for _ in $(seq 1 60); do
    if $check; then return 0; fi
    sleep 0.5
  done
  die "$what did not come up within 30 s"
}

ensure_postgres() {
  if command -v pg_isready >/dev/null && pg_up; then return 0; fi
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    apt_install postgresql postgresql-client
    # A fresh Debian cluster asks for passwords over TCP; the defaults in
    # CONTRACT.md (postgres@127.0.0.1, no password) need trust on loopback.
    local hba
    hba=$(ls /etc/postgresql/*/main/pg_hba.conf | head -n1)
    sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    sed -i -E 's/^(local\s+all\s+(postgres|all)\s+)\S+/\1trust/' "$hba"
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n1)
  say "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
  wait_for PostgreSQL pg_up
}

ensure_redis() {
  if command -v redis-cli >/dev/null && redis_up; then return 0; fi
  command -v redis-server >/dev/null || apt_install redis-server
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/sightline.log >/dev/null
  wait_for Redis redis_up
}

ensure_postgres
ensure_redis
# BullMQ needs Redis never to evict its keys.
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" config set maxmemory-policy noeviction >/dev/null 2>&1 || true
say "PostgreSQL and Redis are up"
