#!/bin/sh
# The broker answers an authenticated client.
set -eu
props=$(mktemp)
trap 'rm -f "$props"' EXIT
sh "$(dirname "$0")/admin-properties.sh" "$props"
/opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server localhost:9092 \
  --command-config "$props" > /dev/null 2>&1
