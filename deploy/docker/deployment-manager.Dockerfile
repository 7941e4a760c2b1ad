# ocg/deployment-manager: jobs, the content-addressed store, scheduling
# Build context: tmp/images/deployment-manager (tools/images/build.ts bundles it).
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
LABEL org.opencontainers.image.title="ocg/deployment-manager" \
      org.opencontainers.image.description="Open Compute Gateway: deployment-manager" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
# Configuration (README "Configuration", apps/deployment-manager/README.md). Required: DATABASE_URL, REDIS_URL, MASTER_KEY (32 bytes, hex or base64).
# Secrets and optional: INTERNAL_TOKEN, PUBLIC_URL, NODE_PUBLIC_PORT,
# JOB_POSTS_PER_MINUTE, UPLOADS_PER_MINUTE, MAX_UPLOADS_PER_USER, MAX_UPLOAD_BYTES_PER_USER.
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/opt/ocg/.compile-cache \
    HOST=0.0.0.0 \
    PORT=8083 \
    LOG_LEVEL=info \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464 \
    CLIENT_MANAGER_URL=http://client-manager:8081 \
    HOST_MANAGER_URL=http://host-manager:8082 \
    NODE_DOMAIN=nodes.localhost
WORKDIR /opt/ocg
COPY --from=build /opt/ocg ./
COPY healthcheck.js /opt/healthcheck.js
USER node
# 8083: the service; 9464: /metrics for Prometheus (never publish it).
EXPOSE 8083 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/healthcheck.js"]
CMD ["node", "main.js"]
