# ocg/gateway: the API's one front door (routes by the contract's x-service),
# job and node hosts, job pages, /openapi.json and /docs.
# Build context: tmp/images/gateway (tools/images/build.ts bundles it).
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
LABEL org.opencontainers.image.title="ocg/gateway" \
      org.opencontainers.image.description="Open Compute Gateway: the API gateway" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
# Configuration (README "Configuration", apps/gateway/README.md). Required: REDIS_URL.
# Secrets and optional: INTERNAL_TOKEN (job hosts and pages), TLS_CERT_FILE and TLS_KEY_FILE
# (PORT serves HTTPS), HTTP_REDIRECT_PORT, PUBLIC_HTTPS_PORT, TRUSTED_PROXIES,
# ALLOW_PRIVATE_INGRESS, INGRESS_ALLOW_CIDRS, INGRESS_CA_FILE.
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/opt/ocg/.compile-cache \
    HOST=0.0.0.0 \
    PORT=8080 \
    LOG_LEVEL=info \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464 \
    CLIENT_MANAGER_URL=http://client-manager:8081 \
    HOST_MANAGER_URL=http://host-manager:8082 \
    DEPLOYMENT_MANAGER_URL=http://deployment-manager:8083 \
    NODE_DOMAIN=nodes.localhost
WORKDIR /opt/ocg
COPY --from=build /opt/ocg ./
COPY healthcheck.js /opt/healthcheck.js
USER node
# 8080: the service; 9464: /metrics for Prometheus (never publish it).
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/healthcheck.js"]
CMD ["node", "main.js"]
