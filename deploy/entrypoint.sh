#!/bin/sh
# The container's entrypoint (deploy/Containerfile, deploy/kubernetes/deployment.yaml):
# make this replica's GATEWAY_HOME match the team's lockfile, then serve it over HTTP.
#
#   LOCKFILE     the lockfile          (default /etc/gateway/gateway.lock)
#   TOKENS_FILE  the shared tokens.json, e.g. a mounted Secret
#                                      (default /etc/gateway/tokens/tokens.json; used if present)
#   LISTEN       [HOST:]PORT           (default 0.0.0.0:8080)
#   METRICS      [HOST:]PORT of /metrics (Prometheus; default: none), e.g. 0.0.0.0:9464
#   extra arguments go to `gateway serve` (e.g. --package ID, --max-calls N)
# OTEL_* (e.g. OTEL_EXPORTER_OTLP_ENDPOINT) turn on OpenTelemetry traces and metrics.
set -eu

: "${GATEWAY_HOME:?GATEWAY_HOME must name this replica's gateway home}"
LOCKFILE="${LOCKFILE:-/etc/gateway/gateway.lock}"
TOKENS_FILE="${TOKENS_FILE:-/etc/gateway/tokens/tokens.json}"
LISTEN="${LISTEN:-0.0.0.0:8080}"

umask 077
mkdir -p "$GATEWAY_HOME"
chmod 0700 "$GATEWAY_HOME"

# The server only reads tokens.json (again whenever it changes), so a link to a read-only
# file works: a Secret updated in place (or a token revoked by replacing the file) reaches
# the running server at its next request. `gateway token create|revoke` are run where the
# file is made, not here.
if [ -f "$TOKENS_FILE" ]; then
    ln -sfn "$TOKENS_FILE" "$GATEWAY_HOME/tokens.json"
fi

gateway sync --frozen --accept --lockfile "$LOCKFILE"
# --lockfile: a new lockfile (a ConfigMap updated in place) is synced and served without a
# restart; the clients are told of the new tools.
set -- --lockfile "$LOCKFILE" "$@"
if [ -n "${METRICS:-}" ]; then
    set -- --metrics "$METRICS" "$@"
fi
exec gateway serve --mcp --http "$LISTEN" "$@"
