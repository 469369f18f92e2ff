#!/usr/bin/env bash
# Local Apache Kafka 3.9 broker in KRaft mode (one combined broker+controller) on loopback.
# No Debian package exists: the broker jars are resolved from Maven Central with infra/kafka/pom.xml
# once, cached under $STACK_DIR/kafka/libs, and run on the machine's Java 17.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DIR="$STACK_DIR/kafka"
# Jars are shared by every broker of this checkout (a fault test may run a second one elsewhere).
LIBS="${FRS_KAFKA_LIBS:-$ROOT/.stack/kafka/libs}"
PIDFILE="$DIR/pid"
POM="$ROOT/infra/kafka/pom.xml"

install() {
  mkdir -p "$DIR" "$LIBS"
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  local stamp
  stamp=$(sha256sum "$POM" | cut -c1-16)
  [[ -f $LIBS/.stamp && $(cat "$LIBS/.stamp") == "$stamp" ]] && return 0
  command -v mvn >/dev/null || apt_install maven
  log "resolving Kafka broker jars from Maven Central (first run only)"
  rm -rf "$LIBS"
  mkdir -p "$LIBS"
  mvn -q -B -f "$POM" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIBS" \
    >"$DIR/mvn.log" 2>&1 || die "mvn failed; see $DIR/mvn.log"
  echo "$stamp" >"$LIBS/.stamp"
}

write_config() {
  mkdir -p "$DIR/data" "$DIR/log"
  cat >"$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DIR/data
num.partitions=3
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.retention.hours=168
PROPS
  cat >"$DIR/log4j.properties" <<PROPS
log4j.rootLogger=INFO, file
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=$DIR/log/server.log
log4j.appender.file.MaxFileSize=50MB
log4j.appender.file.MaxBackupIndex=2
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
}

java_run() {
  java -Xms256m -Xmx768m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$DIR/log4j.properties" -cp "$LIBS/*" "$@"
}

format_storage() {
  [[ -f $DIR/data/meta.properties ]] && return 0
  local cluster_id
  cluster_id=$(java_run kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1)
  log "formatting KRaft storage (cluster $cluster_id)"
  java_run kafka.tools.StorageTool format -t "$cluster_id" -c "$DIR/server.properties" \
    >"$DIR/log/format.log" 2>&1 || die "storage format failed; see $DIR/log/format.log"
}

start() {
  mkdir -p "$DIR"
  install
  if pid_alive "$PIDFILE"; then
    log "kafka already running (pid $(cat "$PIDFILE")) on port $KAFKA_PORT"
    return 0
  fi
  if port_open "$KAFKA_PORT"; then
    log "something not started by this project listens on port $KAFKA_PORT: assuming it is Kafka"
    return 0
  fi
  write_config
  format_storage
  nohup java -Xms256m -Xmx768m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$DIR/log4j.properties" -cp "$LIBS/*" \
    kafka.Kafka "$DIR/server.properties" >"$DIR/log/stdout.log" 2>&1 &
  echo $! >"$PIDFILE"
  # The broker binds its port only once the KRaft controller is ready, so an open port means usable.
  if ! wait_for kafka 90 port_open "$KAFKA_PORT"; then
    tail -n 20 "$DIR/log/server.log" >&2 || true
    die "kafka did not open port $KAFKA_PORT; see $DIR/log/"
  fi
  log "kafka logs: $DIR/log/"
}

stop() { stop_pidfile kafka "$PIDFILE"; }

"${1:-start}"
