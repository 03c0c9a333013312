# syntax=docker/dockerfile:1

# Build a static binary (modernc.org/sqlite is pure Go, so CGO is off).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/bot ./cmd/bot
# The database volume must be writable by the runtime's nonroot user.
RUN mkdir -p /out/data

# Runtime: Debian 12 slim with git 2.39 (github.test_branches: git builds
# test branches in bare clones under /data/git-clones and needs git 2.38 or
# later) and the CA certificates for HTTPS; the bot runs as the unprivileged
# user 65532, as on distroless's nonroot.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --gid 65532 nonroot \
    && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin nonroot
COPY --from=build /out/bot /bot
COPY --from=build --chown=65532:65532 /out/data /data
# The example config takes its secrets from the environment
# (MQ_GITHUB_APP_ID, MQ_GITHUB_WEBHOOK_SECRET, MQ_GITHUB_PRIVATE_KEY[_PATH]);
# mount your own file over it to change anything else.
COPY config.example.yml /etc/mq/config.yml
ENV MQ_DATABASE_PATH=/data/mq.db
VOLUME /data
EXPOSE 8080
# Numeric, so Kubernetes runAsNonRoot can verify it.
USER 65532:65532
# Health: `bot healthcheck` GETs /healthz on the configured listen address
# (no shell needed); it exits 1 when nothing answers 200 within 5 s.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["/bot", "healthcheck", "--config", "/etc/mq/config.yml", "--timeout", "5s"]
ENTRYPOINT ["/bot"]
CMD ["serve", "--config", "/etc/mq/config.yml"]
