#!/usr/bin/env bash
# Personal data stays out of nginx's error log: requests that fail inside nginx, sent as
# POST /api/v1/customers?email=<address>, must not put the address in the error log of the
# shipped site (nginx/site-example.conf, its `error_log` level), whatever the failure: a body
# over client_max_body_size (413), a pool that does not answer in time (504), a malformed
# chunked body (400), an unknown Transfer-Encoding (501), `HTTP/2.0` on the request line (505),
# the pool's socket missing (502). nginx quotes the request line on every line it logs about
# a request, and no configuration rewrites that quote: only the level keeps it out.
#
# The same requests with the server's level lowered to `error` must put the address there:
# proof that the requests reach the code that logs (else this test could not fail).
# Also checks that 501 and 505 answer the API's JSON error. Run by ctest (label unit).
#   nginx_error_log_test.sh REPO_DIR
set -euo pipefail
repo=${1:?usage: nginx_error_log_test.sh REPO_DIR}
# shellcheck source=scripts/lib/stack.sh
source "$repo/scripts/lib/stack.sh"
[[ -x "$NGINX_BIN" ]] || die "nginx is not installed (scripts/test installs it)"
tmp=$(mktemp -d)
chmod 755 "$tmp" # nginx's workers (nobody when started as root) reach the upstream socket here
upstream_pid=""
cleanup() {
    [[ -f "$tmp/nginx.pid" ]] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
    [[ -n "$upstream_pid" ]] && kill "$upstream_pid" 2>/dev/null
    rm -rf -- "$tmp"
}
trap cleanup EXIT

email="leak-$(random_hex 4)@example.org"
target="/api/v1/customers?email=$email"
port=$(free_port 18600)

# A pool that accepts connections and never answers: nginx's read times out (504). The
# snippet's 30 s timeout is cut to 1 s in this copy, nothing else is changed.
python3 - "$tmp/pool.sock" <<'PY' &
import os, socket, sys
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
os.chmod(path, 0o666)
s.listen(64)
held = []
while True:
    held.append(s.accept()[0])
PY
upstream_pid=$!

mkdir -p "$tmp/share" "$tmp/logs" "$tmp/body"
cp "$repo"/nginx/*.conf "$tmp/share/"
sed -i 's/fastcgi_read_timeout 35s;/fastcgi_read_timeout 1s;/' "$tmp/share/supportcrm.conf"
grep -q 'fastcgi_read_timeout 1s;' "$tmp/share/supportcrm.conf" || die "no fastcgi_read_timeout 35s in the snippet"

# site LEVEL: the shipped site on 127.0.0.1:PORT with its paths under tmp; LEVEL replaces the
# server's error_log level when given.
site() {
    local level=${1:-}
    sed -e "s#/etc/supportcrm/nginx/#$tmp/share/#g" \
        -e "s#/var/log/nginx/#$tmp/logs/#g" \
        -e "s#/var/lib/nginx/supportcrm-cache#$tmp/cache#" \
        -e "s#unix:/run/supportcrm/supportcrm.sock#unix:$tmp/pool.sock#" \
        -e "s#^\(\s*\)listen 80 default_server;#\1listen 127.0.0.1:$port default_server;#" \
        -e '/listen \[::\]:80/d' \
        "$repo/nginx/site-example.conf" >"$tmp/site.conf"
    if [[ -n "$level" ]]; then
        sed -i -E "s#^(\s*error_log \S+) [a-z]+;#\1 $level;#" "$tmp/site.conf"
    fi
}
site
level=$(sed -nE 's/^\s*error_log \S+ ([a-z]+);$/\1/p' "$tmp/site.conf")
[[ -n "$level" ]] || die "the site sets no error_log level"
error_log=$tmp/logs/supportcrm.error.log

cat >"$tmp/nginx.conf" <<CONF
pid $tmp/nginx.pid;
error_log $tmp/logs/main.log;
worker_processes 1;
events {}
http {
    client_body_temp_path $tmp/body;
    fastcgi_temp_path $tmp/body;
    include $tmp/site.conf;
}
CONF

start() {
    rm -f -- "$error_log"
    "$NGINX_BIN" -p "$tmp/" -c "$tmp/nginx.conf" -e "$tmp/logs/main.log" ||
        die "nginx did not start: $(tail -n 5 "$tmp/logs/main.log")"
    local i
    for ((i = 0; i < 100; i++)); do
        curl -s -o /dev/null "http://127.0.0.1:$port/nope" && return 0
        sleep 0.1
    done
    die "nginx did not answer on port $port"
}
stop() {
    local pid
    pid=$(cat "$tmp/nginx.pid")
    kill "$pid"
    wait_pid_gone "$pid" 10 || die "nginx (pid $pid) did not stop"
}

# raw BYTES: send BYTES (printf escapes) on a fresh connection, print the answer.
raw() {
    python3 - "$port" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=15)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
sys.stdout.write(out.decode("latin-1"))
PY
}

failures=0
# expect WHAT STATUS CODE ANSWER: ANSWER must have STATUS and the JSON error CODE.
expect() {
    local what=$1 status=$2 code=$3 answer=$4
    if [[ "$answer" != "HTTP/1.1 $status "* || "$answer" != *"\"code\":\"$code\""* ||
        "$answer" != *"Content-Type: application/json"* ]]; then
        echo "FAIL: $what: expected $status $code in JSON, got: ${answer:0:300}"
        failures=$((failures + 1))
    fi
}

# The failing requests, each checked for its answer.
send_failing_requests() {
    head -c 3000000 /dev/zero >"$tmp/big"
    expect "body over client_max_body_size" 413 body_too_large \
        "$(curl -s -i -H 'Content-Type: application/json' --data-binary @"$tmp/big" \
            "http://127.0.0.1:$port$target")"
    expect "pool too slow" 503 unavailable \
        "$(curl -s -i -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port$target")"
    expect "malformed chunked body" 400 bad_request \
        "$(raw "POST $target HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")"
    expect "Transfer-Encoding: gzip" 501 not_implemented \
        "$(raw "POST $target HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n")"
    expect "HTTP/2.0 on the request line" 505 http_version_not_supported \
        "$(raw "POST $target HTTP/2.0\r\nHost: a\r\n\r\n")"
    mv "$tmp/pool.sock" "$tmp/pool.sock.away"
    expect "pool socket missing" 503 unavailable \
        "$(curl -s -i -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port$target")"
    mv "$tmp/pool.sock.away" "$tmp/pool.sock"
}

start
send_failing_requests
stop
if grep -qF "$email" "$error_log"; then
    echo "FAIL: the error log at level $level has the query string:"
    grep -F "$email" "$error_log" | cut -c1-300
    failures=$((failures + 1))
else
    echo "error log at level $level: no query string after 413, 504, bad chunked body, 501, 505, 502"
fi

# The same at `error`: the address must be there (413, 504 and the chunked body log at error).
site error
start
send_failing_requests
stop
seen=$(grep -cF "$email" "$error_log" || true)
if ((seen < 3)); then
    echo "FAIL: at level error only $seen lines quote the request; the requests did not fail in nginx"
    failures=$((failures + 1))
else
    echo "error log at level error: $seen lines quote the request line with its query string"
fi
((failures == 0))
