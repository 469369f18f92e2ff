#!/usr/bin/env bash
# Local ClickHouse from Debian's package (18.16 on bookworm), on loopback, data under
# $STACK_DIR/clickhouse. The project's schema keeps to what 18.16 and current releases both accept.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DIR="$STACK_DIR/clickhouse"
PIDFILE="$DIR/pid"

install() {
  command -v clickhouse-server >/dev/null && command -v clickhouse-client >/dev/null && return 0
  apt_install clickhouse-server clickhouse-client
}

write_config() {
  mkdir -p "$DIR/data" "$DIR/tmp" "$DIR/user_files" "$DIR/format_schemas" "$DIR/log"
  cat >"$DIR/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>$DIR/log/clickhouse-server.log</log>
    <errorlog>$DIR/log/clickhouse-server.err.log</errorlog>
    <size>100M</size>
    <count>3</count>
  </logger>
  <http_port>$CLICKHOUSE_HTTP_PORT</http_port>
  <tcp_port>$CLICKHOUSE_TCP_PORT</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>1024</max_connections>
  <keep_alive_timeout>10</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>536870912</mark_cache_size>
  <path>$DIR/data/</path>
  <tmp_path>$DIR/tmp/</tmp_path>
  <user_files_path>$DIR/user_files/</user_files_path>
  <format_schema_path>$DIR/format_schemas/</format_schema_path>
  <users_config>$DIR/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
XML
  cat >"$DIR/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
      <load_balancing>random</load_balancing>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
  </interval></default></quotas>
</yandex>
XML
}

ping() { curl -sf "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT/ping" | grep -q Ok; }

start() {
  install
  if pid_alive "$PIDFILE"; then
    log "clickhouse already running (pid $(cat "$PIDFILE")) on http port $CLICKHOUSE_HTTP_PORT"
    return 0
  fi
  if port_open "$CLICKHOUSE_HTTP_PORT"; then
    ping || die "port $CLICKHOUSE_HTTP_PORT is taken by something that is not ClickHouse"
    log "a ClickHouse not started by this project answers on port $CLICKHOUSE_HTTP_PORT: reusing it"
    return 0
  fi
  write_config
  clickhouse-server --config-file="$DIR/config.xml" --pid-file="$PIDFILE" --daemon
  wait_for clickhouse 60 ping || die "clickhouse did not answer; see $DIR/log/"
  log "clickhouse logs: $DIR/log/"
}

stop() { stop_pidfile clickhouse "$PIDFILE"; }

"${1:-start}"
