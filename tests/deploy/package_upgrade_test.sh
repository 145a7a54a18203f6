#!/usr/bin/env bash
# The Debian package, installed for real and upgraded under load (scripts/test runs this).
#
#   tests/deploy/package_upgrade_test.sh [STACKDIR]      (default var/test-package)
#
# 1. scripts/package builds supportcrm_<v>_amd64.deb, then the same tree again as version
#    <v>+upgradetest1 (a second build, incremental: seconds).
# 2. dpkg -i of the first on this machine (root; the package must not be installed already),
#    checks what it gave (user, /run/supportcrm, conffile, units), edits
#    /etc/supportcrm/supportcrm.conf to point at a private MariaDB (scripts/lib/stack.sh) and
#    runs the installed supportcrm-admin migrate with the default config path.
# 3. Starts the INSTALLED /usr/bin/supportcrm-fcgi the way supportcrm.socket does, through
#    systemd-socket-activate (LISTEN_FDS), and a private nginx that includes the INSTALLED
#    /usr/share/supportcrm/nginx/supportcrm.conf; a request through nginx must answer 200.
# 4. Under load (parallel clients through nginx): dpkg -i of the second .deb, then SIGHUP to
#    the master, which is what `systemctl reload supportcrm` sends (ExecReload) and what the
#    package's postinst asks systemd for on an upgrade. Every request must answer 200, and
#    the edited config must still be there (a conffile dpkg kept).
# 5. dpkg -P, and checks that nothing of the package is left but the system user (Debian
#    keeps system users on purge).
#
# After the reload the master (same pid) and every worker run the NEW binary: SIGHUP
# re-executes the master (docs/operations.md, "Reload, restart, stop").
# Never uses systemctl. Writes one summary line to $STEP_NOTE when set (scripts/test).
set -euo pipefail

# shellcheck source=scripts/lib/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/stack.sh"

REPO=$SUPPORTCRM_REPO
STACKDIR=${1:-$REPO/var/test-package}
LOAD_CLIENTS=4
CONF=/etc/supportcrm/supportcrm.conf
MARKER="# edited by package_upgrade_test: must survive the upgrade"

[[ $EUID -eq 0 ]] || die "needs root (dpkg -i); run as root or skip this test"
status=$(dpkg-query -W -f='${Status}' supportcrm 2>/dev/null || true)
[[ "$status" != *installed* ]] ||
    die "the supportcrm package is installed on this machine; this test installs and purges it"
command -v systemd-socket-activate >/dev/null || ensure_packages systemd
command -v systemd-socket-activate >/dev/null || die "systemd-socket-activate not found"

installed=0
cleanup() {
    local rc=$?
    stop_stack "$STACKDIR" # nginx, the pool (fcgi.pid), MariaDB
    if ((installed)); then
        dpkg -P supportcrm >"$STACKDIR/dpkg-purge.log" 2>&1 || log_tail "$STACKDIR/dpkg-purge.log"
    fi
    rm -f -- "$STACKDIR/load.stop"
    return "$rc"
}
trap cleanup EXIT

timed() { # timed LABEL CMD...: run CMD, log how long it took
    local label=$1 start=$SECONDS
    shift
    "$@"
    log "$label took $((SECONDS - start))s"
}

# dpkg_step WHAT ARGS...: dpkg ARGS with its output in STACKDIR/dpkg-WHAT.log, timed.
dpkg_step() {
    local what=$1 start=$SECONDS
    shift
    if ! dpkg "$@" >"$STACKDIR/dpkg-$what.log" 2>&1; then
        log_tail "$STACKDIR/dpkg-$what.log"
        die "dpkg $* failed"
    fi
    log "dpkg $* took $((SECONDS - start))s"
}

# --- 1. two builds ----------------------------------------------------------------------
deb1=$(timed "scripts/package" "$REPO/scripts/package" | tail -n1)
v1=$(dpkg-deb -f "$deb1" Version)
v2=$v1+upgradetest1
deb2=$(timed "scripts/package --version $v2" "$REPO/scripts/package" --version "$v2" | tail -n1)
[[ -f "$deb1" && -f "$deb2" ]] || die "scripts/package did not give two packages"

# --- 2. install -------------------------------------------------------------------------
stop_stack "$STACKDIR"
rm -rf -- "$STACKDIR"
mkdir -p -- "$STACKDIR"
start_mariadb "$STACKDIR"
installed=1
dpkg_step install -i "$deb1"
id supportcrm >/dev/null || die "the package did not create the user supportcrm"
[[ -d /run/supportcrm && "$(stat -c %U /run/supportcrm)" == supportcrm ]] ||
    die "the package did not create /run/supportcrm owned by supportcrm (tmpfiles.d)"
grep -qx "$CONF" /var/lib/dpkg/info/supportcrm.conffiles || die "$CONF is not a conffile"
for f in /usr/bin/supportcrm-fcgi /usr/bin/supportcrm-admin /lib/systemd/system/supportcrm.service \
    /lib/systemd/system/supportcrm.socket /usr/share/supportcrm/sql/001_initial.sql \
    /usr/share/supportcrm/nginx/supportcrm.conf /usr/share/doc/supportcrm/operations.md.gz; do
    [[ -e "$f" ]] || die "the package did not install $f"
done
file -L /usr/bin/supportcrm-fcgi | grep -q ', stripped' || die "/usr/bin/supportcrm-fcgi is not stripped"

# The operator's edit (docs/operations.md, "Configuration"), on the installed conffile.
cat >>"$CONF" <<EOF

$MARKER
db-socket = $STACKDIR/mysqld.sock
db-password-file = $STACKDIR/db-password
workers = 2
shutdown-timeout = 10
EOF
/usr/bin/supportcrm-fcgi --test-config >&2 || die "the edited $CONF does not pass --test-config"
/usr/bin/supportcrm-admin migrate >&2 || die "supportcrm-admin migrate (installed, default config) failed"

# --- 3. start as supportcrm.socket would, nginx in front ---------------------------------
sock=$STACKDIR/supportcrm.sock
log "starting /usr/bin/supportcrm-fcgi under systemd-socket-activate on $sock"
(
    exec setsid systemd-socket-activate -l "$sock" /usr/bin/supportcrm-fcgi </dev/null \
        >>"$STACKDIR/fcgi.log" 2>&1
) &
echo $! >"$STACKDIR/fcgi.pid"
for ((i = 0; i < 100; i++)); do
    [[ -S "$sock" ]] && break
    sleep 0.1
done
[[ -S "$sock" ]] || die "systemd-socket-activate did not create $sock"
port=$(free_port "${SUPPORTCRM_TEST_PACKAGE_PORT:-18090}")
SUPPORTCRM_NGINX_DIR=/usr/share/supportcrm/nginx start_nginx "$STACKDIR" "$port"
master=$(cat "$STACKDIR/fcgi.pid")
url=http://127.0.0.1:$port/healthz
for ((i = 0; i < 100; i++)); do
    code=$(curl -s -o "$STACKDIR/first.body" -w '%{http_code}' --max-time 5 "$url" || true)
    [[ "$code" == 200 ]] && break
    sleep 0.2
done
[[ "$code" == 200 ]] || { log_tail "$STACKDIR/fcgi.log"; die "GET /healthz through nginx answered $code"; }
[[ "$(cat /proc/"$master"/comm)" == supportcrm-fcgi ]] || die "pid $master is not supportcrm-fcgi"
grep -q 'listening on fd 3 from systemd (LISTEN_FDS)' "$STACKDIR/fcgi.log" ||
    die "the installed binary did not take the socket from LISTEN_FDS"
log "installed $v1 serves through nginx: $(cat "$STACKDIR/first.body")"

# --- 4. upgrade under load ---------------------------------------------------------------
load_client() { # load_client N: GET /healthz until load.stop exists, one status per line
    while [[ ! -e "$STACKDIR/load.stop" ]]; do
        curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 "$url" || echo "curl-exit-$?"
    done >"$STACKDIR/load.$1"
}
rm -f -- "$STACKDIR/load.stop" "$STACKDIR"/load.[0-9]*
pids=()
for ((c = 1; c <= LOAD_CLIENTS; c++)); do
    load_client "$c" &
    pids+=($!)
done
sleep 1
ready_before=$(grep -c 'ready: ' "$STACKDIR/fcgi.log" || true)
dpkg_step upgrade -i "$deb2"
log "SIGHUP to the master (pid $master): what systemctl reload supportcrm sends"
kill -HUP "$master"
for ((i = 0; i < 300; i++)); do
    (($(grep -c 'ready: ' "$STACKDIR/fcgi.log" || true) > ready_before)) && break
    sleep 0.1
done
sleep 2 # keep the load on the new pool for a while
touch "$STACKDIR/load.stop"
wait "${pids[@]}"
total=$(cat "$STACKDIR"/load.[0-9]* | wc -l)
failed=$(cat "$STACKDIR"/load.[0-9]* | grep -vcx 200 || true)
note="package $v1 -> $v2 under load: $total requests, $failed failed"
log "$note"
[[ -n "${STEP_NOTE:-}" ]] && echo "$note" >"$STEP_NOTE"
((total > 0)) || die "no requests were made during the upgrade"
if ((failed > 0)); then
    cat "$STACKDIR"/load.[0-9]* | grep -vx 200 | sort | uniq -c >&2
    log_tail "$STACKDIR/fcgi.log"
    die "$failed of $total requests failed during the upgrade"
fi
pid_alive "$master" || die "the master is gone after the reload"
[[ "$(dpkg-query -W -f='${Version}' supportcrm)" == "$v2" ]] || die "dpkg does not list $v2"
grep -qxF "$MARKER" "$CONF" || die "the edited $CONF did not survive the upgrade"
[[ ! -e "$CONF.dpkg-new" && ! -e "$CONF.dpkg-dist" ]] || die "dpkg left $CONF.dpkg-* behind"
log "the edited $CONF survived the upgrade"
# SIGHUP re-executed the master: it and the workers it forked since run the new file, not
# the old, deleted one.
exe=$(readlink "/proc/$master/exe" || true)
[[ "$exe" == "/usr/bin/supportcrm-fcgi" ]] ||
    die "after the reload the master runs '$exe', not the new /usr/bin/supportcrm-fcgi"
for w in $(pgrep -P "$master" || true); do
    wexe=$(readlink "/proc/$w/exe" || true)
    [[ "$wexe" == "/usr/bin/supportcrm-fcgi" ]] ||
        die "after the reload worker $w runs '$wexe', not the new /usr/bin/supportcrm-fcgi"
done
log "the master (pid $master, unchanged) and its workers run the new binary"

# --- 5. purge ----------------------------------------------------------------------------
stop_stack "$STACKDIR"
dpkg_step purge -P supportcrm
installed=0
for f in /usr/bin/supportcrm-fcgi /etc/supportcrm /lib/systemd/system/supportcrm.service \
    /usr/share/supportcrm; do
    [[ ! -e "$f" ]] || die "$f is still there after dpkg -P"
done
log "package test passed: $note"
if [[ "${SUPPORTCRM_TEST_KEEP:-0}" != 1 ]]; then
    rm -rf -- "$STACKDIR"
fi
