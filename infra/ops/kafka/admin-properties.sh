#!/bin/sh
# Writes the Kafka CLI client properties of the `admin` user to $1 (mode 600), from
# FRS_KAFKA_ADMIN_PASSWORD; used by the broker's health check and by acls.sh. SASL over TLS, the
# broker verified against the deployment's CA (KAFKA_SSL_CA_FILE, by default where the compose
# file mounts it).
set -eu
: "${FRS_KAFKA_ADMIN_PASSWORD:?FRS_KAFKA_ADMIN_PASSWORD is not set}"
umask 077
cat > "$1" <<PROPS
security.protocol=SASL_SSL
ssl.truststore.type=PEM
ssl.truststore.location=${KAFKA_SSL_CA_FILE:-/etc/kafka/secrets/ca.crt}
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${FRS_KAFKA_ADMIN_PASSWORD}";
PROPS
