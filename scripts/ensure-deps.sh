#!/usr/bin/env bash
# Makes sure what Rein needs is installed before `npm run up` or `npm test`.
#
#   bash scripts/ensure-deps.sh up     # npm packages, Prisma client, git, ripgrep, bubblewrap, and the desktop's
#                                      # Xvfb, x11vnc, openbox, Chromium and fonts (runs on T2 need them)
#   bash scripts/ensure-deps.sh test   # the same plus xdotool, ...
#
# npm packages: `npm ci` when node_modules is missing or package-lock.json is
# newer than node_modules/.package-lock.json.
# System packages: on Debian as root the missing ones are installed with
# apt-get; otherwise the script says what to install and carries on (the
# features or tests that need them then fail with their own message).
# Prisma client: generated when missing or older than prisma/schema.prisma.
set -euo pipefail

mode="${1:-up}"
case "$mode" in
  up | test) ;;
  *)
    echo "usage: $0 [up|test]" >&2
    exit 2
    ;;
esac

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[deps] %s\n' "$*"; }

# REIN_DEPS_CHECK_ONLY=1: only say which system packages would be installed
# (a test checks the lists on a PATH without them); npm and Prisma are skipped.
check_only="${REIN_DEPS_CHECK_ONLY:-}"

# --- npm packages -----------------------------------------------------------
if [[ -n "$check_only" ]]; then
  :
elif [[ ! -d node_modules || ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  log "installing npm packages (npm ci)"
  if ! npm ci --no-audit --no-fund; then
    # npm ci refuses a lock file without entries for optional packages that the
    # registry does not have (seen: @next/swc-darwin-* for next 16.4.6); npm
    # install accepts it and installs the same tree. --no-save keeps the lock.
    log "WARNING: npm ci failed; installing from the lock file with npm install --no-save" >&2
    npm install --no-audit --no-fund --no-save
  fi
else
  log "npm packages are up to date"
fi

# --- native modules ---------------------------------------------------------
# Addons are built for one Node ABI: packages installed under another Node (the
# machine's own before .rein/node, or an older Node 24 line) are rebuilt here.
if [[ -z "$check_only" ]] && ! node -e 'new (require("better-sqlite3"))(":memory:").close(); require("node-pty")' >/dev/null 2>&1; then
  log "building native modules (better-sqlite3, node-pty) for Node $(node -v)"
  npm rebuild better-sqlite3 node-pty
fi

# --- system packages --------------------------------------------------------
# "debian-package:how-to-check" ; a check starting with / is a file, else a command.
up_packages=(
  "git:git"
  "ripgrep:rg"
  # Every shell an agent runs, and every file it touches, is confined by bubblewrap.
  "bubblewrap:bwrap"
  # The operative desktop (T2): agents such as demo-browser drive Chromium on it.
  "xvfb:Xvfb"
  "x11vnc:x11vnc"
  "openbox:openbox"
  "chromium:chromium"
  "fonts-dejavu-core:/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
)
test_packages=(
  "git:git"
  "ripgrep:rg"
  "chromium:chromium"
  "bubblewrap:bwrap"
  "xvfb:Xvfb"
  "x11vnc:x11vnc"
  "openbox:openbox"
  "xdotool:xdotool"
  "fonts-dejavu-core:/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
  # The machine tests (T3) start a real sshd in a network namespace of their own; sshd is in /usr/sbin.
  "openssh-server:/usr/sbin/sshd"
)
if [[ "$mode" == test ]]; then
  wanted=("${test_packages[@]}")
else
  wanted=("${up_packages[@]}")
fi

missing=()
for entry in "${wanted[@]}"; do
  pkg="${entry%%:*}"
  check="${entry#*:}"
  if [[ "$check" == /* ]]; then
    [[ -e "$check" ]] || missing+=("$pkg")
  else
    command -v "$check" >/dev/null 2>&1 || missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  log "system packages are present"
elif [[ -n "$check_only" ]]; then
  log "would install: ${missing[*]}"
  exit 0
elif [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && command -v apt-get >/dev/null 2>&1; then
  log "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    log "installed: ${missing[*]}"
    # The package starts the system's sshd where it can; the tests start their own, so stop that one by its pid.
    if [[ " ${missing[*]} " == *" openssh-server "* && -f /run/sshd.pid ]]; then
      kill "$(cat /run/sshd.pid)" 2>/dev/null && log "stopped the sshd the openssh-server package started"
    fi
  else
    log "WARNING: apt-get could not install: ${missing[*]}" >&2
    log "WARNING: features and tests that need them will fail" >&2
  fi
else
  {
    log "WARNING: missing system packages: ${missing[*]}"
    log "WARNING: install them, for example: sudo apt-get install -y --no-install-recommends ${missing[*]}"
    log "WARNING: continuing; features and tests that need them will fail"
  } >&2
fi

# --- PostgreSQL and Redis (tests only) ---------------------------------------
# The cluster, queue and PostgreSQL tests talk to a real PostgreSQL (a database
# `test` the user `postgres` reaches without a password, or REIN_PG_URL) and a
# real Redis (REDIS_URL); they fail, never skip, when these are missing. On
# Debian as root a missing one is installed and started here, as Chromium is;
# elsewhere the script says what to install. See docs/development.md#postgresql-and-redis.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_postgres() {
  command -v pg_ctlcluster >/dev/null 2>&1 || {
    log "installing PostgreSQL (postgresql)"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null || return 1
  }
  local version
  version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)"
  if [[ -z "$version" ]]; then
    log "WARNING: PostgreSQL is installed but has no cluster (pg_createcluster creates one)" >&2
    return 1
  fi
  # The tests connect as postgres over 127.0.0.1 without a password, to the database `test` only.
  local hba="/etc/postgresql/$version/main/pg_hba.conf"
  if [[ -f "$hba" ]] && ! grep -q "rein tests" "$hba"; then
    local rule
    rule=$'# rein tests: the test database, from this machine only\nhost test postgres 127.0.0.1/32 trust\nhost test postgres ::1/128 trust'
    printf '%s\n%s\n' "$rule" "$(cat "$hba")" >"$hba"
  fi
  log "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || pg_ctlcluster --skip-systemctl-redirect "$version" main reload
  local i
  for i in $(seq 1 30); do
    listening 5432 && break
    sleep 0.5
  done
  listening 5432 || return 1
  runuser -u postgres -- psql -q -c "CREATE DATABASE test" 2>/dev/null || true
}

start_redis() {
  command -v redis-server >/dev/null 2>&1 || {
    log "installing Redis (redis-server)"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null || return 1
  }
  log "starting Redis on 127.0.0.1:6379 (nothing kept on disk)"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null || return 1
  local i
  for i in $(seq 1 20); do
    listening 6379 && return 0
    sleep 0.25
  done
  return 1
}

if [[ "$mode" == test && -z "$check_only" ]]; then
  can_install=""
  [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && command -v apt-get >/dev/null 2>&1 && can_install=1
  export DEBIAN_FRONTEND=noninteractive
  if [[ -n "${REIN_PG_URL:-}" ]]; then
    log "PostgreSQL: REIN_PG_URL is set; the tests use it"
  elif listening 5432; then
    log "PostgreSQL answers on 127.0.0.1:5432"
  elif [[ -n "$can_install" ]] && start_postgres; then
    log "PostgreSQL answers on 127.0.0.1:5432"
  else
    log "WARNING: no PostgreSQL on 127.0.0.1:5432: install PostgreSQL 15 or newer (Debian: apt-get install postgresql)," >&2
    log "WARNING: let the user postgres reach a database named test without a password, or set REIN_PG_URL;" >&2
    log "WARNING: the PostgreSQL and cluster tests will fail until then" >&2
  fi
  if [[ -n "${REDIS_URL:-}" ]]; then
    log "Redis: REDIS_URL is set; the tests use it"
  elif listening 6379; then
    log "Redis answers on 127.0.0.1:6379"
  elif [[ -n "$can_install" ]] && start_redis; then
    log "Redis answers on 127.0.0.1:6379"
  else
    log "WARNING: no Redis on 127.0.0.1:6379: install Redis 7 (Debian: apt-get install redis-server) and start it," >&2
    log "WARNING: or set REDIS_URL; the cluster tests will fail until then" >&2
  fi
fi

# --- Prisma client ----------------------------------------------------------
[[ -n "$check_only" ]] && exit 0
# Two clients from the one data model: SQLite (the embedded default) and
# PostgreSQL (several machines), each regenerated when its schema is newer.
generate_client() { # <schema> <stamp>
  if [[ ! -f "$2" || "$1" -nt "$2" ]]; then
    log "generating the Prisma client for $1"
    bash scripts/prisma.sh generate --schema "$1"
    # Prisma may keep unchanged files as they are; mark the client as fresh.
    touch "$2"
  else
    log "Prisma client for $1 is up to date"
  fi
}
generate_client prisma/schema.prisma server/db/generated/client.ts
generate_client prisma/postgres/schema.prisma server/db/generated-pg/client.ts
