#!/bin/sh
# Makes Temporal's `default` namespace once the server answers (Steward's workers register their
# search attributes on it at start). Safe to run again.
set -eu
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do sleep 2; done
temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1 \
  || temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$NAMESPACE" --retention "$RETENTION"
echo "namespace $NAMESPACE ready"
