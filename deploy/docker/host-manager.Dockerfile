# ocg/host-manager: markets, nodes, benchmarks, benchmark templates
# Build context: tmp/images/host-manager (tools/images/build.ts bundles it).
ARG BASE=node:24-bookworm-slim

FROM ${BASE} AS build
WORKDIR /opt/ocg
COPY app/ ./
COPY smoke.js /tmp/smoke.js
RUN NODE_COMPILE_CACHE=/opt/ocg/.compile-cache node /tmp/smoke.js main.js 'Invalid configuration:[\s\S]*LOG_LEVEL'

FROM ${BASE}
ARG VERSION=0.0.0
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="ocg/host-manager" \
      org.opencontainers.image.description="Open Compute Gateway: host-manager" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
# Configuration (README "Configuration", apps/host-manager/README.md). Required: DATABASE_URL, REDIS_URL.
# Secrets and optional: INTERNAL_TOKEN, ALLOW_PRIVATE_INGRESS,
# INGRESS_ALLOW_CIDRS, NODE_PRESENCE_TTL_SECONDS, BENCHMARK_APPLY_LOCK_TIMEOUT_MS.
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/opt/ocg/.compile-cache \
    HOST=0.0.0.0 \
    PORT=8082 \
    LOG_LEVEL=info \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464 \
    CLIENT_MANAGER_URL=http://client-manager:8081 \
    DEPLOYMENT_MANAGER_URL=http://deployment-manager:8083
WORKDIR /opt/ocg
COPY --from=build /opt/ocg ./
COPY healthcheck.js /opt/healthcheck.js
USER node
# 8082: the service; 9464: /metrics for Prometheus (never publish it).
EXPOSE 8082 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/healthcheck.js"]
CMD ["node", "main.js"]
