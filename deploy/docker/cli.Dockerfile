# ocg/cli: the `ocg` command line. Give it the gateway and a key:
#   docker run --rm -e OCG_GATEWAY_URL=https://api.example.net -e OCG_API_KEY=ocg_... ocg/cli job list
# Build context: tmp/images/cli (tools/images/build.ts bundles it).
ARG BASE=node:24-bookworm-slim

FROM ${BASE} AS build
WORKDIR /opt/ocg
COPY app/ ./
COPY smoke.js /tmp/smoke.js
RUN NODE_COMPILE_CACHE=/opt/ocg/.compile-cache node /tmp/smoke.js apps/cli/src/main.js '^ocg \d' --version

FROM ${BASE}
ARG VERSION=0.0.0
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="ocg/cli" \
      org.opencontainers.image.description="Open Compute Gateway: the ocg command line" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
# Configuration: OCG_GATEWAY_URL, OCG_API_KEY; NODE_EXTRA_CA_CERTS to trust a private CA.
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/opt/ocg/.compile-cache
WORKDIR /opt/ocg
COPY --from=build /opt/ocg ./
USER node
WORKDIR /home/node
# A command, not a service: nothing to check.
HEALTHCHECK NONE
ENTRYPOINT ["node", "/opt/ocg/apps/cli/src/main.js"]
CMD ["--help"]
