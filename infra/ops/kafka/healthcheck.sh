#!/bin/sh
# The broker answers an authenticated client.
set -eu
sh /opt/frs/admin-properties.sh /tmp/health.properties
exec /opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server localhost:9092 \
  --command-config /tmp/health.properties > /dev/null 2>&1
