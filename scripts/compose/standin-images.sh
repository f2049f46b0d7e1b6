#!/usr/bin/env bash
# Stand-in base images for a Docker engine that can reach no image registry (as on these machines):
# built from Debian's packages with debootstrap, through the same apt mirror and CA certificates the
# machine itself uses. Tags:
#   node:20-bookworm-slim          this machine's node + npm on Debian 12, user node (uid 1000)
#   local/postgres:15-debian       Debian's PostgreSQL 15, the official image's POSTGRES_* variables
#   local/redis:7-debian           Debian's Redis 7
# Usage (as root, dockerd running): standin-images.sh [workdir]   (~3-6 min the first time)
# The compose smoke (scripts/compose-smoke.ts) runs it when the images docker-compose.yml names are
# neither on the host nor pulled. The same logic as the workplace's shared/tools/docker-standin-images.sh,
# kept here so the project builds its own stand-ins.
set -euo pipefail
WORK=${1:-/var/tmp/deal-radar-standin}; mkdir -p "$WORK"
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list)
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null

if docker image inspect node:20-bookworm-slim local/postgres:15-debian local/redis:7-debian >/dev/null 2>&1; then
  echo "stand-in images already built"; exit 0
fi
base=$WORK/rootfs
if [ ! -x "$base/bin/bash" ]; then
  echo "debootstrap bookworm from the machine's mirror"
  debootstrap --variant=minbase --include=ca-certificates,libstdc++6 bookworm "$base" "$mirror" >/dev/null
  # The machine's apt sources/settings and CA certificates, so apt and npm inside builds work here too.
  cp /etc/apt/sources.list.d/*.sources "$base/etc/apt/sources.list.d/" 2>/dev/null && rm -f "$base/etc/apt/sources.list" || true
  cp /etc/apt/apt.conf.d/99* "$base/etc/apt/apt.conf.d/" 2>/dev/null || true
  cp /usr/local/share/ca-certificates/*.crt "$base/usr/local/share/ca-certificates/" 2>/dev/null || true
  chroot "$base" update-ca-certificates >/dev/null
fi

variant() { # name, packages...: a copy of the base with packages added
  local dir=$WORK/$1; shift
  [ -d "$dir" ] && return 0
  cp -a "$base" "$dir"
  if [ $# -gt 0 ]; then
    mount --bind /proc "$dir/proc"
    chroot "$dir" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $* >/dev/null && rm -rf /var/lib/apt/lists/*" || { umount "$dir/proc"; return 1; }
    umount "$dir/proc"
  fi
}

# node
if ! docker image inspect node:20-bookworm-slim >/dev/null 2>&1; then
  variant node
  d=$WORK/node; mkdir -p "$d/usr/local/bin" "$d/usr/local/lib/node_modules"
  cp "$(readlink -f "$(command -v node)")" "$d/usr/local/bin/node"
  npmdir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  cp -a "$npmdir" "$d/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$d/usr/local/bin/npm"; ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$d/usr/local/bin/npx"
  [ -f /etc/npmrc ] && cp /etc/npmrc "$d/etc/npmrc" || true
  chroot "$d" bash -c 'id node >/dev/null 2>&1 || useradd -m -u 1000 -s /bin/bash node'
  tar -C "$d" -c . | docker import -c 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' -c 'CMD ["node"]' - node:20-bookworm-slim >/dev/null
  echo "built node:20-bookworm-slim ($(docker run --rm node:20-bookworm-slim node --version))"
fi

# postgres: the official image's contract (POSTGRES_USER/PASSWORD/DB, PGDATA, port 5432, pg_isready)
if ! docker image inspect local/postgres:15-debian >/dev/null 2>&1; then
  variant postgres postgresql
  cat > "$WORK/postgres/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/bash
set -e
export PGDATA=${PGDATA:-/var/lib/postgresql/data}; BIN=/usr/lib/postgresql/15/bin
mkdir -p "$PGDATA" /run/postgresql && chown -R postgres:postgres "$PGDATA" /run/postgresql && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "${POSTGRES_PASSWORD:-postgres}" > /tmp/pwfile && chown postgres /tmp/pwfile
  su postgres -c "$BIN/initdb -D $PGDATA -U ${POSTGRES_USER:-postgres} --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256" >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "${POSTGRES_DB}" != "${POSTGRES_USER:-postgres}" ] || [ "${POSTGRES_USER:-postgres}" != postgres ]; then
    su postgres -c "$BIN/pg_ctl -D $PGDATA -o '-c listen_addresses=' -w start" >/dev/null
    su postgres -c "psql -U ${POSTGRES_USER:-postgres} -d postgres -c 'CREATE DATABASE \"${POSTGRES_DB:-${POSTGRES_USER:-postgres}}\"'" >/dev/null 2>&1 || true
    su postgres -c "$BIN/pg_ctl -D $PGDATA -m fast -w stop" >/dev/null
  fi
fi
exec su postgres -c "exec $BIN/postgres -D $PGDATA -c listen_addresses='*'"
SH
  chmod +x "$WORK/postgres/usr/local/bin/docker-entrypoint.sh"
  tar -C "$WORK/postgres" -c . | docker import -c 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'ENV PGDATA=/var/lib/postgresql/data' -c 'EXPOSE 5432' -c 'CMD ["/usr/local/bin/docker-entrypoint.sh"]' - local/postgres:15-debian >/dev/null
  echo "built local/postgres:15-debian"
fi

# redis
if ! docker image inspect local/redis:7-debian >/dev/null 2>&1; then
  variant redis redis-server
  mkdir -p "$WORK/redis/data"
  # As the official image: `redis-server …` runs with protected mode off unless the command says otherwise.
  cat > "$WORK/redis/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/bash
set -e
[ "${1:-}" = redis-server ] || [ $# -eq 0 ] || exec "$@"
[ $# -gt 0 ] && shift
case " $* " in *" --protected-mode "*) ;; *) set -- "$@" --protected-mode no ;; esac
exec /usr/bin/redis-server --bind 0.0.0.0 "$@"
SH
  chmod +x "$WORK/redis/usr/local/bin/docker-entrypoint.sh"
  tar -C "$WORK/redis" -c . | docker import -c 'WORKDIR /data' -c 'EXPOSE 6379' \
    -c 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' -c 'CMD ["redis-server"]' - local/redis:7-debian >/dev/null
  echo "built local/redis:7-debian"
fi
docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'node:20|local/'
