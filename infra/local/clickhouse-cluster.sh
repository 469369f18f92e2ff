#!/usr/bin/env bash
# A local ClickHouse cluster `frs`: 2 shards x 2 replicas (four Debian 18.16 servers) on a
# ZooKeeper ensemble, all on loopback, data under $STACK_DIR/ch-cluster. It exists to run the
# cluster mode of the schema (CLICKHOUSE_CLUSTER=frs) as production has it; production runs
# ClickHouse Keeper instead of ZooKeeper (docs/scale-out.md).
#
# ZooKeeper 3.8 comes from the Kafka broker's jars (resolved from Maven Central by kafka.sh with
# infra/kafka/pom.xml: zookeeper, zookeeper-jute, and the metrics-core and snappy-java it needs).
#
#   bash infra/local/clickhouse-cluster.sh up|down|status|urls
#
# Ports (base + n, n = 1..4): HTTP FRS_CH_CLUSTER_HTTP_BASE (18130), native FRS_CH_CLUSTER_TCP_BASE
# (19130), interserver FRS_CH_CLUSTER_INTERSERVER_BASE (19230); ZooKeeper clients FRS_ZK_BASE
# (12180), FRS_ZK_NODES ensemble members (3; 1 where memory is tight).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DIR="$STACK_DIR/ch-cluster"
LIBS="${FRS_KAFKA_LIBS:-$ROOT/.stack/kafka/libs}"
HTTP_BASE="${FRS_CH_CLUSTER_HTTP_BASE:-18130}"
TCP_BASE="${FRS_CH_CLUSTER_TCP_BASE:-19130}"
INTERSERVER_BASE="${FRS_CH_CLUSTER_INTERSERVER_BASE:-19230}"
ZK_BASE="${FRS_ZK_BASE:-12180}"
ZK_NODES="${FRS_ZK_NODES:-3}"
CLUSTER=frs
SERVERS=4

zk_config() {
  local n=$1 d="$DIR/zk$1"
  mkdir -p "$d/data" "$d/log"
  echo "$n" >"$d/data/myid"
  {
    echo "tickTime=500"
    echo "initLimit=20"
    echo "syncLimit=10"
    echo "dataDir=$d/data"
    echo "clientPort=$((ZK_BASE + n))"
    echo "clientPortAddress=127.0.0.1"
    echo "admin.enableServer=false"
    echo "4lw.commands.whitelist=mntr"
    echo "autopurge.purgeInterval=1"
    if ((ZK_NODES > 1)); then
      for i in $(seq 1 "$ZK_NODES"); do
        echo "server.$i=127.0.0.1:$((ZK_BASE + 700 + i)):$((ZK_BASE + 800 + i))"
      done
    fi
  } >"$d/zoo.cfg"
  cat >"$d/log4j.properties" <<PROPS
log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$d/log/zookeeper.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
}

zk_start() {
  local n=$1 d="$DIR/zk$1"
  pid_alive "$d/pid" && return 0
  zk_config "$n"
  # Small heaps: the ensemble holds a few thousand znodes of replication logs and DDL tasks.
  # A session of its own: a Ctrl-C of `npm run start:cluster` reaches its process group, and
  # ZooKeeper must outlive the services that are still draining into ClickHouse.
  setsid nohup java -Xms64m -Xmx128m -XX:+UseSerialGC -Dlog4j.configuration="file:$d/log4j.properties" \
    -Dzookeeper.jmx.log4j.disable=true -cp "$LIBS/*" org.apache.zookeeper.server.quorum.QuorumPeerMain \
    "$d/zoo.cfg" >"$d/log/stdout.log" 2>&1 &
  echo $! >"$d/pid"
}

zk_nodes_xml() {
  for i in $(seq 1 "$ZK_NODES"); do
    echo "    <node><host>127.0.0.1</host><port>$((ZK_BASE + i))</port></node>"
  done
}

replica_xml() {
  echo "        <replica><host>127.0.0.1</host><port>$((TCP_BASE + $1))</port></replica>"
}

ch_config() {
  local n=$1 d="$DIR/ch$1"
  local shard=$(((n + 1) / 2))
  mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas" "$d/log"
  cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>$d/log/clickhouse-server.log</log>
    <errorlog>$d/log/clickhouse-server.err.log</errorlog>
    <size>50M</size>
    <count>2</count>
  </logger>
  <http_port>$((HTTP_BASE + n))</http_port>
  <tcp_port>$((TCP_BASE + n))</tcp_port>
  <interserver_http_port>$((INTERSERVER_BASE + n))</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>256</max_connections>
  <keep_alive_timeout>10</keep_alive_timeout>
  <max_concurrent_queries>50</max_concurrent_queries>
  <uncompressed_cache_size>33554432</uncompressed_cache_size>
  <mark_cache_size>67108864</mark_cache_size>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$DIR/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <remote_servers>
    <$CLUSTER>
      <shard>
        <internal_replication>true</internal_replication>
$(replica_xml 1)
$(replica_xml 2)
      </shard>
      <shard>
        <internal_replication>true</internal_replication>
$(replica_xml 3)
$(replica_xml 4)
      </shard>
    </$CLUSTER>
  </remote_servers>
  <zookeeper>
$(zk_nodes_xml)
    <session_timeout_ms>10000</session_timeout_ms>
  </zookeeper>
  <!-- replica names are unique across the cluster: the one-path-for-all migrations ledger needs it -->
  <macros>
    <cluster>$CLUSTER</cluster>
    <shard>0$shard</shard>
    <replica>ch$n</replica>
  </macros>
  <distributed_ddl>
    <path>/clickhouse/task_queue/ddl</path>
  </distributed_ddl>
</yandex>
XML
}

users_config() {
  mkdir -p "$DIR"
  cat >"$DIR/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>1000000000</max_memory_usage>
      <load_balancing>in_order</load_balancing>
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

ch_ping() { curl -sf "http://127.0.0.1:$((HTTP_BASE + $1))/ping" | grep -q Ok; }
# Serving, not only running: a member of an ensemble without a quorum yet answers ruok but closes
# client sessions, and a ClickHouse 18.16 with replicated tables exits at start without ZooKeeper.
zk_ok() { [[ $(exec 3<>"/dev/tcp/127.0.0.1/$((ZK_BASE + $1))" && printf mntr >&3 && cat <&3) == *zk_server_state* ]]; }

up() {
  command -v clickhouse-server >/dev/null || bash "$ROOT/infra/local/clickhouse.sh" install
  ls "$LIBS"/zookeeper-3.*.jar >/dev/null 2>&1 || bash "$ROOT/infra/local/kafka.sh" install
  mkdir -p "$DIR"
  for i in $(seq 1 "$ZK_NODES"); do zk_start "$i"; done
  for i in $(seq 1 "$ZK_NODES"); do
    wait_for "zookeeper $i" 60 zk_ok "$i" || die "zookeeper $i did not answer; see $DIR/zk$i/log/"
  done
  users_config
  for n in $(seq 1 $SERVERS); do
    pid_alive "$DIR/ch$n/pid" && continue
    ch_config "$n"
    clickhouse-server --config-file="$DIR/ch$n/config.xml" --pid-file="$DIR/ch$n/pid" --daemon
  done
  for n in $(seq 1 $SERVERS); do
    wait_for "clickhouse $n" 60 ch_ping "$n" || die "clickhouse $n did not answer; see $DIR/ch$n/log/"
  done
  log "clickhouse cluster $CLUSTER up: CLICKHOUSE_CLUSTER=$CLUSTER CLICKHOUSE_URL=$(urls)"
}

down() {
  # ClickHouse first, all at once, then the ensemble it kept its replication state in.
  signal_pidfiles "$DIR"/ch*/pid
  for n in $(seq 1 $SERVERS); do stop_pidfile "clickhouse $n" "$DIR/ch$n/pid"; done
  signal_pidfiles "$DIR"/zk*/pid
  for i in $(seq 1 "$ZK_NODES"); do stop_pidfile "zookeeper $i" "$DIR/zk$i/pid"; done
}

status() {
  for n in $(seq 1 $SERVERS); do
    pid_alive "$DIR/ch$n/pid" && echo "clickhouse $n: pid $(cat "$DIR/ch$n/pid"), http $((HTTP_BASE + n))" ||
      echo "clickhouse $n: stopped"
  done
  for i in $(seq 1 "$ZK_NODES"); do
    pid_alive "$DIR/zk$i/pid" && echo "zookeeper $i: pid $(cat "$DIR/zk$i/pid"), port $((ZK_BASE + i))" ||
      echo "zookeeper $i: stopped"
  done
}

# The servers' URLs as CLICKHOUSE_URL takes several (comma list: the client fails over in order).
urls() {
  local out=()
  for n in $(seq 1 $SERVERS); do out+=("http://127.0.0.1:$((HTTP_BASE + n))"); done
  (IFS=,; echo "${out[*]}")
}

"${1:-up}"
