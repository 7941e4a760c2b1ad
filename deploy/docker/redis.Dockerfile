# ocg/redis: Debian's Redis 7, a stand-in for the official redis:7 image where
# no registry is reachable (tools/images/build.ts builds it). Data in /data;
# arguments are redis-server's, as with the official image.
ARG DEBIAN=debian:bookworm-slim
FROM ${DEBIAN}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* \
 && mkdir -p /data && chown redis:redis /data
USER redis
WORKDIR /data
VOLUME /data
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no"]
