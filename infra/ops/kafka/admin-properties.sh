#!/bin/sh
# Writes the Kafka CLI client properties of the `admin` user to $1 (mode 600), from
# FRS_KAFKA_ADMIN_PASSWORD; used by the broker's health check and by acls.sh.
set -eu
: "${FRS_KAFKA_ADMIN_PASSWORD:?FRS_KAFKA_ADMIN_PASSWORD is not set}"
umask 077
cat > "$1" <<PROPS
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${FRS_KAFKA_ADMIN_PASSWORD}";
PROPS
