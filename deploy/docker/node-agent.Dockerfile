# ocg/node-agent: runs a market's jobs on this machine's Docker engine, serves
# the node API and the port ingress. Run it in the host's network namespace
# (it reaches job containers by their bridge address and isolates job networks
# with iptables there), with the Docker socket and NET_ADMIN + NET_RAW:
#   docker run --network host --cap-add NET_ADMIN --cap-add NET_RAW \
#     -v /var/run/docker.sock:/var/run/docker.sock --group-add <socket's gid> ocg/node-agent
# Build context: tmp/images/node-agent (tools/images/build.ts bundles it).
ARG BASE=node:24-bookworm-slim
# A Debian with apt, for iptables (the base has no package manager).
ARG DEBIAN=debian:bookworm-slim

FROM ${DEBIAN} AS iptables
# iptables and its libraries (the files of every package the install adds, no docs),
# the iptables/ip6tables alternatives as installed (nft, with the legacy binaries
# beside them), and file capabilities so the agent's non-root user may change rules.
RUN dpkg-query -W -f '${Package}\n' | sort >/tmp/before \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iptables libcap2-bin >/dev/null \
 && dpkg-query -W -f '${Package}\n' | sort >/tmp/after \
 && comm -13 /tmp/before /tmp/after | grep -v -x -e libcap2-bin -e libpam-cap >/tmp/added \
 && setcap cap_net_admin,cap_net_raw+ep /usr/sbin/xtables-nft-multi \
 && setcap cap_net_admin,cap_net_raw+ep /usr/sbin/xtables-legacy-multi \
 && mkdir /out \
 && { xargs dpkg -L </tmp/added; ls -d /etc/alternatives/ip*tables* /usr/sbin/ip*tables*; } \
    | grep -v -e '^/usr/share/doc' -e '^/usr/share/man' -e '^/usr/share/lintian' \
    | while read -r f; do [ -d "$f" ] && [ ! -L "$f" ] || echo "$f"; done | sort -u \
    | tar -cf - --no-recursion --xattrs --xattrs-include='security.capability' -T - | tar -xf - --xattrs --xattrs-include='security.capability' -C /out

FROM ${BASE} AS build
WORKDIR /opt/ocg
COPY app/ ./
COPY smoke.js /tmp/smoke.js
RUN NODE_COMPILE_CACHE=/opt/ocg/.compile-cache node /tmp/smoke.js main.js 'Invalid configuration:[\s\S]*LOG_LEVEL' && node -e "require('fs').mkdirSync('/state')"

FROM ${BASE}
ARG VERSION=0.0.0
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="ocg/node-agent" \
      org.opencontainers.image.description="Open Compute Gateway: the node agent" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
# Configuration (apps/node-agent/README.md, "Configuration"). To join a market:
# CONTROL_PLANE_URL, MARKET, JOIN_TOKEN, INGRESS_URL (where the gateway reaches the
# ingress). Also: NODE_KEY (else NODE_KEY_FILE, made on first start: keep it on a
# volume), NETWORK_ISOLATION, NETWORK_ISOLATION_ALLOW, IPTABLES (iptables-legacy when
# dockerd uses legacy rules), ALLOW_PRIVATE_REGISTRIES, MAX_JOBS, CONTAINER_MEMORY_MB,
# STOP_JOBS_ON_EXIT, DOCKER_SOCKET, RESOURCE_CACHE_DIR (bind-mount it at the same path
# as on the host: job containers mount its entries by host path).
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/opt/ocg/.compile-cache \
    HOST=0.0.0.0 \
    API_PORT=8090 \
    INGRESS_PORT=8091 \
    METRICS_PORT=9465 \
    LOG_LEVEL=info \
    NODE_DOMAIN=nodes.localhost \
    NODE_KEY_FILE=/var/lib/ocg-node/node-key \
    DOCKER_SOCKET=/var/run/docker.sock \
    RESOURCE_CACHE_DIR=/var/lib/ocg-resources
COPY --from=iptables /out/ /
WORKDIR /opt/ocg
COPY --from=build /opt/ocg ./
COPY healthcheck.js /opt/healthcheck.js
# The node key's directory (NODE_KEY_FILE), the agent's to write.
COPY --from=build --chown=node:node /state /var/lib/ocg-node
COPY --from=build --chown=node:node /state /var/lib/ocg-resources
VOLUME /var/lib/ocg-node
USER node
EXPOSE 8090 8091
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "/opt/healthcheck.js"]
CMD ["node", "main.js"]
