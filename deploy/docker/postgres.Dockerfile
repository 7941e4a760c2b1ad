# ocg/postgres: Debian's PostgreSQL 15, a stand-in for the official postgres:15
# image where no registry is reachable (tools/images/build.ts builds it). It takes
# the official image's variables: POSTGRES_PASSWORD (required), POSTGRES_USER
# (postgres), POSTGRES_DB (= user) and PGDATA (/var/lib/postgresql/data).
ARG DEBIAN=debian:bookworm-slim
FROM ${DEBIAN}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/lib/postgresql/15 /etc/postgresql \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]
