# The jobq image: the one static jobq binary (worker, dashboard, migrate, CLI) on Alpine, run as
# an unprivileged user. Built from the repository root:
#
#   docker build --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse HEAD) -t jobq .
#
# Alpine rather than scratch: busybox wget serves the healthchecks of docker-compose.yml. The
# binary is the one make dist builds (CGO off, -trimpath, stamped; cmd/jobq TestDockerfile).
FROM golang:1.26-alpine AS build
ARG VERSION=v0.0.0-dev
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.releaseVersion=${VERSION} -X main.releaseCommit=${COMMIT}" \
      -o /out/jobq ./cmd/jobq

FROM alpine:3.22
RUN adduser -D -H -u 10001 jobq
COPY --from=build /out/jobq /usr/local/bin/jobq
USER 10001:10001
# The dashboard's port in docker-compose.yml; a worker's health server is set with --health-addr.
EXPOSE 8090
ENTRYPOINT ["jobq"]
CMD ["--help"]
