#!/usr/bin/env bash
# A unix socket supportcrm-fcgi binds itself gets listen-owner, listen-group and listen-mode,
# and the start-up log line says so; as root the master warns that workers would run as root.
# As root the owner and group are a throwaway system user and group made (and removed) here;
# otherwise the caller's own group. No database is needed: the master binds before any worker
# connects. Run by ctest (label unit).
#   listen_socket_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: listen_socket_test.sh BUILD_DIR}
bin=$build/bin/supportcrm-fcgi
tmp=$(mktemp -d)
chmod 755 "$tmp"
pid=""
made_user=""
cleanup() {
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    if [[ -n "$made_user" ]]; then
        userdel "$made_user" 2>/dev/null || true
        groupdel "$made_user" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

if [[ $EUID -eq 0 ]]; then
    made_user=scrmtest$$
    groupadd --system "$made_user"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
        -g "$made_user" "$made_user"
    owner=$made_user group=$made_user
    owner_args=(--listen-owner "$owner" --listen-group "$group")
else
    owner=$(id -un) group=$(id -gn)
    owner_args=(--listen-group "$group")
fi
sock=$tmp/supportcrm.sock
cat >"$tmp/supportcrm.conf" <<CONF
workers = 1
shutdown-timeout = 2
db-socket = $tmp/no-database.sock
CONF
"$bin" --config "$tmp/supportcrm.conf" --listen "$sock" --listen-mode 0640 "${owner_args[@]}" \
    </dev/null >"$tmp/fcgi.log" 2>&1 &
pid=$!
for ((i = 0; i < 100; i++)); do
    [[ -S "$sock" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
fail() {
    echo "FAIL: $*"
    cat "$tmp/fcgi.log"
    exit 1
}
[[ -S "$sock" ]] || fail "no socket at $sock"
got=$(stat -c '%U:%G %a' "$sock")
[[ "$got" == "$owner:$group 640" ]] || fail "socket is $got, want $owner:$group 640"
for ((i = 0; i < 50; i++)); do
    grep -q "listening on" "$tmp/fcgi.log" && break
    sleep 0.1
done
grep -qE "listening on unix:$sock owner=$owner:$group mode=0640 " "$tmp/fcgi.log" ||
    fail "no start-up line with the socket's owner and mode"
if [[ $EUID -eq 0 ]]; then
    grep -q "WARNING .*running as root: the workers will serve requests as root" "$tmp/fcgi.log" ||
        fail "no warning about running as root"
fi
kill -TERM "$pid"
wait "$pid" || fail "the master exited non-zero on SIGTERM"
pid=""
[[ ! -e "$sock" ]] || fail "the socket was left behind"
echo "listen socket: $got, logged, removed on stop"
