#!/bin/sh
# Kafka ACLs of the services (idempotent: adding an existing ACL changes nothing). With
# allow.everyone.if.no.acl.found=false, anything not granted here is refused:
#   frs-api   writes audit records to scores.v1 and outcome records to outcomes.v1
#   frs-sink  reads scores.v1 and outcomes.v1 in its consumer group (and reads the group's
#             offsets for its lag metric), writes refused records to the two .dlq topics, and
#             reads outcomes.v1 in the ledger learner's group (<group>-ledger); the portal
#             has no Kafka user (its Activity page reads what the sink keeps in Redis)
# `admin` (a super user) creates topics and these ACLs.
# KAFKA_ACLS names the kafka-acls command (the broker image's by default).
set -eu
here=$(dirname "$0")
props=$(mktemp)
trap 'rm -f "$props"' EXIT
sh "$here/admin-properties.sh" "$props"
acl() {
  ${KAFKA_ACLS:-/opt/kafka/bin/kafka-acls.sh} --bootstrap-server "${KAFKA_BOOTSTRAP:-kafka:9092}" \
    --command-config "$props" --add "$@" > /dev/null
}
acl --allow-principal User:frs-api --operation Write --operation Describe --topic scores.v1
acl --allow-principal User:frs-api --operation Write --operation Describe --topic outcomes.v1
acl --allow-principal User:frs-api --operation IdempotentWrite --cluster
acl --allow-principal User:frs-sink --operation Read --operation Describe --topic scores.v1
acl --allow-principal User:frs-sink --operation Write --operation Describe --topic scores.v1.dlq
acl --allow-principal User:frs-sink --operation Read --operation Describe --topic outcomes.v1
acl --allow-principal User:frs-sink --operation Write --operation Describe --topic outcomes.v1.dlq
acl --allow-principal User:frs-sink --operation IdempotentWrite --cluster
acl --allow-principal User:frs-sink --operation Read --operation Describe --group "${AUDIT_SINK_GROUP:-frs-audit-sink}"
acl --allow-principal User:frs-sink --operation Read --operation Describe --group "${AUDIT_SINK_GROUP:-frs-audit-sink}-ledger"
echo "kafka ACLs in place"
