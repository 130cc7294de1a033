#!/usr/bin/env bash
# Starts (or stops) PostgreSQL and MariaDB from Debian's packages on loopback
# for the test suite, without systemd. Usage: .ci/databases.sh start|stop|env
set -euo pipefail

PG_VERSION="$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)"
PG_DSN="postgres://joe:joe@127.0.0.1:5432/postgres"
MYSQL_DSN="mysql://joe:joe@127.0.0.1:3306/mysql"
MYSQL_SOCK=/run/mysqld/mysqld.sock

wait_for() { # seconds, description, command...
  local n=$1 what=$2; shift 2
  for _ in $(seq 1 "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "timed out waiting for $what" >&2; return 1
}

start_pg() {
  if ! pg_lsclusters -h | grep -q "^$PG_VERSION main"; then
    pg_createcluster "$PG_VERSION" main >/dev/null
  fi
  pg_conftool "$PG_VERSION" main set listen_addresses localhost
  pg_conftool "$PG_VERSION" main set max_connections 300
  pg_conftool "$PG_VERSION" main set fsync off
  pg_ctlcluster "$PG_VERSION" main start || true
  wait_for 60 postgresql pg_isready -h 127.0.0.1 -p 5432
  su postgres -c "psql -qtAc \"select 1 from pg_roles where rolname='joe'\"" | grep -q 1 ||
    su postgres -c "psql -qc \"create role joe login createdb password 'joe'\""
}

start_mysql() {
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  if ! mysqladmin --socket="$MYSQL_SOCK" ping >/dev/null 2>&1; then
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
    (mysqld_safe --user=mysql --bind-address=127.0.0.1 --port=3306 --socket="$MYSQL_SOCK" \
      --max-connections=300 --innodb-flush-log-at-trx-commit=0 >/dev/null 2>&1 &)
  fi
  wait_for 60 mariadb mysqladmin --socket="$MYSQL_SOCK" ping
  mysql --socket="$MYSQL_SOCK" -uroot -e "
    create user if not exists 'joe'@'127.0.0.1' identified by 'joe';
    create user if not exists 'joe'@'localhost' identified by 'joe';
    grant all privileges on *.* to 'joe'@'127.0.0.1';
    grant all privileges on *.* to 'joe'@'localhost';
    flush privileges;"
}

case "${1:-}" in
  start)
    start_pg
    start_mysql
    ;;
  stop)
    pg_ctlcluster "$PG_VERSION" main stop >/dev/null 2>&1 || true
    mysqladmin --socket="$MYSQL_SOCK" -uroot shutdown >/dev/null 2>&1 || true
    ;;
  env)
    echo "export JOE_TEST_PG_DSN=$PG_DSN"
    echo "export JOE_TEST_MYSQL_DSN=$MYSQL_DSN"
    ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
