#!/usr/bin/env bash
# A local three-broker Apache Kafka cluster in KRaft mode (each node broker and controller, the
# three a controller quorum) on loopback, data under $STACK_DIR/kafka-cluster. It runs the
# multi-node topology: topics with replication factor 3 and min.insync.replicas 2
# (KAFKA_REPLICATION_FACTOR=3 KAFKA_MIN_INSYNC_REPLICAS=2 node infra/kafka/topics.ts), which
# stay writable with one broker down. Same jars as kafka.sh (Maven Central, infra/kafka/pom.xml).
#
#   bash infra/local/kafka-cluster.sh up|down|status|brokers
#
# Ports (base + n, n = 1..3): clients FRS_KAFKA_CLUSTER_BASE (19190), controllers base + 100.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DIR="$STACK_DIR/kafka-cluster"
LIBS="${FRS_KAFKA_LIBS:-$ROOT/.stack/kafka/libs}"
BASE="${FRS_KAFKA_CLUSTER_BASE:-19190}"
NODES=3

voters() {
  local out=()
  for i in $(seq 1 $NODES); do out+=("$i@127.0.0.1:$((BASE + 100 + i))"); done
  (IFS=,; echo "${out[*]}")
}

# The brokers as KAFKA_BROKERS takes them.
brokers() {
  local out=()
  for i in $(seq 1 $NODES); do out+=("127.0.0.1:$((BASE + i))"); done
  (IFS=,; echo "${out[*]}")
}

write_config() {
  local n=$1 d="$DIR/kafka$1"
  mkdir -p "$d/data" "$d/log"
  cat >"$d/server.properties" <<PROPS
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$(voters)
listeners=PLAINTEXT://127.0.0.1:$((BASE + n)),CONTROLLER://127.0.0.1:$((BASE + 100 + n))
advertised.listeners=PLAINTEXT://127.0.0.1:$((BASE + n))
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$d/data
num.partitions=3
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
unclean.leader.election.enable=false
log.retention.hours=168
PROPS
  cat >"$d/log4j.properties" <<PROPS
log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=$d/log/server.log
log4j.appender.file.MaxFileSize=20MB
log4j.appender.file.MaxBackupIndex=1
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
}

# Small heaps: three brokers share the machine with the rest of the stack (330-400 MB RSS each).
JVM=(-Xms128m -Xmx384m -XX:+UseG1GC -Djava.awt.headless=true -cp "$LIBS/*")

java_run() {
  local d=$1
  shift
  java "${JVM[@]}" -Dlog4j.configuration="file:$d/log4j.properties" "$@"
}

up() {
  ls "$LIBS"/kafka_*.jar >/dev/null 2>&1 || bash "$ROOT/infra/local/kafka.sh" install
  mkdir -p "$DIR"
  # One cluster id for the three nodes, kept so a restart finds its formatted storage.
  [[ -f $DIR/cluster-id ]] || java_run "$DIR" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1 >"$DIR/cluster-id"
  for n in $(seq 1 $NODES); do
    local d="$DIR/kafka$n"
    pid_alive "$d/pid" && continue
    write_config "$n"
    if [[ ! -f $d/data/meta.properties ]]; then
      java_run "$d" kafka.tools.StorageTool format -t "$(cat "$DIR/cluster-id")" -c "$d/server.properties" \
        >"$d/log/format.log" 2>&1 || die "storage format of broker $n failed; see $d/log/format.log"
    fi
    # A session of its own: a Ctrl-C of `npm run start:cluster` reaches its process group, and
    # the brokers must outlive the API nodes still flushing audit records to them.
    setsid nohup java "${JVM[@]}" -Dlog4j.configuration="file:$d/log4j.properties" \
      kafka.Kafka "$d/server.properties" >"$d/log/stdout.log" 2>&1 &
    echo $! >"$d/pid"
  done
  # A broker binds its client port once the controller quorum has elected a leader.
  for n in $(seq 1 $NODES); do
    wait_for "kafka broker $n" 90 port_open "$((BASE + n))" || die "kafka broker $n did not start; see $DIR/kafka$n/log/"
  done
  log "kafka cluster up: KAFKA_BROKERS=$(brokers) KAFKA_REPLICATION_FACTOR=3 KAFKA_MIN_INSYNC_REPLICAS=2"
}

down() {
  # All at once: stopped one by one, the last broker has no controller quorum left to finish its
  # controlled shutdown with, and hangs until it is killed 30 s later.
  local n
  signal_pidfiles "$DIR"/kafka*/pid
  for n in $(seq 1 $NODES); do stop_pidfile "kafka broker $n" "$DIR/kafka$n/pid"; done
}

status() {
  for n in $(seq 1 $NODES); do
    pid_alive "$DIR/kafka$n/pid" && echo "kafka broker $n: pid $(cat "$DIR/kafka$n/pid"), port $((BASE + n))" ||
      echo "kafka broker $n: stopped"
  done
}

"${1:-up}"
