# ocg/gateway: the API's one front door (routes by the contract's x-service),
# job and node hosts, job pages, /openapi.json and /docs.
# Build context: tmp/images/gateway (tools/images/build.ts bundles it).
ARG BASE=node:24-bookworm-slim
# A Debian with apt, for HAProxy (the base has no package manager).
ARG DEBIAN=debian:bookworm-slim

FROM ${BASE} AS base-libs
# The names of the shared libraries the base has, which the edge stage leaves out.
RUN node -e "const fs = require('fs'); fs.writeFileSync('/tmp/base-libs', ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib64'].flatMap((d) => fs.existsSync(d) ? fs.readdirSync(d) : []).join('\\n') + '\\n')"

FROM ${DEBIAN} AS edge
# The edge (EDGE_PORT, ADR 0093): Debian's HAProxy 2.6 (with bookworm's security updates, from the
# base's apt sources: it faces clients) and util-linux's setpriv (the gateway starts HAProxy through it, so HAProxy dies with the
# gateway), with the shared libraries they load that the base lacks. Nothing else of the packages.
COPY --from=base-libs /tmp/base-libs /tmp/base-libs
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy >/dev/null \
 && mkdir -p /out/usr/sbin /out/usr/bin /out/usr/lib/x86_64-linux-gnu \
 && cp /usr/sbin/haproxy /out/usr/sbin/ && cp /usr/bin/setpriv /out/usr/bin/ \
 && ldd /usr/sbin/haproxy /usr/bin/setpriv | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u \
    | while read -r lib; do grep -qxF "${lib##*/}" /tmp/base-libs || cp -L "$lib" /out/usr/lib/x86_64-linux-gnu/; done \
 && rm -rf /var/lib/apt/lists/*

FROM ${BASE} AS build
WORKDIR /opt/ocg
COPY app/ ./
COPY smoke.js /tmp/smoke.js
COPY --from=edge /out/ /
# The bundle loads, and HAProxy runs on this base as the image's user, started as the gateway starts it.
RUN NODE_COMPILE_CACHE=/opt/ocg/.compile-cache node /tmp/smoke.js main.js 'Invalid configuration:[\s\S]*LOG_LEVEL' \
 && setpriv --reuid 1000 --regid 1000 --clear-groups --pdeathsig KILL -- haproxy -v

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
# The edge (ADR 0093; off unless EDGE_PORT is set): EDGE_PORT, HAProxy (in this image) serving job
# hosts' HTTPS on a port of its own, as the gateway's child; it needs a certificate (EDGE_TLS_CERT_FILE
# and EDGE_TLS_KEY_FILE, default TLS_CERT_FILE and TLS_KEY_FILE) and INTERNAL_TOKEN. Point deployment-manager's NODE_PUBLIC_PORT at its published port. Also EDGE_HOST,
# EDGE_DIR (default /tmp/ocg-edge-<EDGE_PORT>: /tmp must be writable), EDGE_THREADS,
# EDGE_MAX_CONNECTIONS (4096: HAProxy needs a nofile limit of about twice that), EDGE_ROUTE_TTL_MS.
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
COPY --from=edge /out/ /
COPY --from=build /opt/ocg ./
COPY healthcheck.js /opt/healthcheck.js
USER node
# 8080: the service; 9464: /metrics for Prometheus (never publish it); the edge listens on EDGE_PORT.
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/healthcheck.js"]
CMD ["node", "main.js"]
