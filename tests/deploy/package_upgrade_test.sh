#!/usr/bin/env bash
# The Debian package, installed for real under a real systemd and upgraded under load
# (scripts/test runs this, as root).
#
#   tests/deploy/package_upgrade_test.sh [STACKDIR]      (default var/test-package)
#   tests/deploy/package_upgrade_test.sh --build-only    step 1 only: the two packages
#   tests/deploy/package_upgrade_test.sh --prebuilt [STACKDIR]
#                                                        steps 2-6 with the packages of an
#                                                        earlier --build-only (scripts/test
#                                                        builds them in the background)
#
# Runs in ../shared/tools/systemd-sandbox: systemd as PID 1 in private namespaces (its own
# /run, /tmp, /var/tmp; the host's network and every other path). What is installed there is
# installed on this machine: the test needs the package not to be installed, and purges it.
#
# 1. scripts/package builds supportcrm_<v>_amd64.deb, then the same tree again as version
#    <v>+upgradetest1 (a second build, incremental: seconds).
# 2. `apt-get install ./…deb` in the sandbox; checks what it gave (user, /run/supportcrm, the
#    conffiles: config, nginx site and snippets under /etc/supportcrm/nginx/, logrotate; the
#    units, whose Documentation= is shipped uncompressed; the socket started, the service and
#    the deliverer not, the deliverer not even enabled). The files (extensions.md E13): the
#    link secret the postinst made (64 hex digits, 0640 root:supportcrm), files-dir
#    /var/lib/supportcrm/files (tmpfiles.d: 2750 supportcrm:www-data), the sweep's timer
#    enabled and started. Points the config at a private MariaDB (scripts/lib/stack.sh) with
#    /etc/supportcrm/db-password, and public-base-url at nginx's port, runs
#    `supportcrm-admin migrate`; `systemctl start supportcrm-files-sweep` removes an old temp
#    upload and old content no row names, keeps a young temp upload.
# 3. `systemctl enable --runtime --now supportcrm.socket`; nginx (workers as www-data, as on
#    Debian) with the INSTALLED site on a free port: the first request starts the service
#    through the socket; /status has a number for listenQueue (AF_NETLINK in the unit).
# 4. A file uploaded through nginx is stored 0640 supportcrm:www-data (UMask=0027, setgid
#    files-dir) and nginx sends it (X-Accel-Redirect), by key and by its signed link; made
#    old, the sweep keeps it (a row names it). Then under load (parallel clients through
#    nginx, two of them writing tickets and comments):
#    `apt-get install` of the second .deb with a migration and a re-index walk pending (its
#    postinst reloads the service, then migrates), then `systemctl reload supportcrm`: every
#    request must answer 200; the postinst ran the migrate; once the walks are done, every
#    ticket and comment written meanwhile is found by `q`; the master (same pid) and its
#    workers run the new binary; the edited config is still there (a conffile dpkg kept);
#    the link secret is unchanged (the link signed before the upgrade still works) and the
#    sweep's timer still enabled and active; `journalctl -p warning` has nothing of ours
#    (the sweep included). A checkout under /tmp (private to the
#    sandbox) puts the stack and the packages under /var/lib/supportcrm-package-test.
# 5. A broken config: `systemctl reload supportcrm` fails (ExecReload runs --test-config) and
#    the service keeps serving.
# 6. With the shipped site enabled as docs/operations.md §6 says (a link in
#    /etc/nginx/sites-enabled/): `apt-get remove` leaves `nginx -t` passing (the site and the
#    snippets are conffiles) and keeps the link secret and the files (it stops the timer),
#    `apt-get purge` too (postrm removes the link) and removes /etc/supportcrm with the
#    password file and the link secret, and /var/lib/supportcrm with the files; nothing of the
#    package is left but the system user (Debian keeps system users on purge).
# Writes one summary line to $STEP_NOTE when set (scripts/test). Whatever it started (the
# private MariaDB, nginx, the load clients, the sandbox) is stopped at the end, passed or not.
set -euo pipefail

# shellcheck source=scripts/lib/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/stack.sh"

REPO=$SUPPORTCRM_REPO
MODE=all
case ${1:-} in
--build-only | --prebuilt)
    MODE=${1#--}
    shift
    ;;
esac
STACKDIR=${1:-$REPO/var/test-package}
SANDBOX=${SUPPORTCRM_SYSTEMD_SANDBOX:-$REPO/../shared/tools/systemd-sandbox}
LOAD_CLIENTS=4
CONF=/etc/supportcrm/supportcrm.conf
PASSWORD_FILE=/etc/supportcrm/db-password
SECRET_FILE=/etc/supportcrm/file-link-secret
FILES_DIR=/var/lib/supportcrm/files
SWEEP=supportcrm-files-sweep.service
TIMER=supportcrm-files-sweep.timer
SITE_LINK=/etc/nginx/sites-enabled/supportcrm
MARKER="# edited by package_upgrade_test: must survive the upgrade"
STARTED=$SECONDS

[[ $EUID -eq 0 ]] || die "needs root (apt-get install); run as root or skip this test"
[[ -x "$SANDBOX" ]] || die "systemd-sandbox not found at $SANDBOX (SUPPORTCRM_SYSTEMD_SANDBOX)"
status=$(dpkg-query -W -f='${Status}' supportcrm 2>/dev/null || true)
[[ "$status" != *installed* ]] ||
    die "the supportcrm package is installed on this machine; this test installs and purges it"
[[ ! -e "$SITE_LINK" && ! -L "$SITE_LINK" ]] || die "$SITE_LINK exists; this test creates and removes it"
[[ ! -e /var/lib/supportcrm ]] || die "/var/lib/supportcrm exists; this test's purge removes it"

# --- 1. two builds ----------------------------------------------------------------------
# The second is the same tree as version <v>+upgradetest1 (scripts/package keeps obj-*).
deb_paths() { # the two packages' paths, one a line
    local v1 arch
    v1=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)
    arch=$(dpkg --print-architecture)
    echo "$REPO/build-deb/supportcrm_${v1}_$arch.deb"
    echo "$REPO/build-deb/supportcrm_${v1}+upgradetest1_$arch.deb"
}
build_packages() {
    local v2
    timed "scripts/package" "$REPO/scripts/package" >/dev/null
    v2=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)+upgradetest1
    timed "scripts/package --version $v2" "$REPO/scripts/package" --version "$v2" >/dev/null
}
timed() { # timed LABEL CMD...: run CMD, log how long it took
    local label=$1 start=$SECONDS
    shift
    "$@"
    log "$label took $((SECONDS - start))s"
}
if [[ $MODE == build-only ]]; then
    build_packages
    deb_paths
    exit 0
fi

[[ -x "$NGINX_BIN" ]] || ensure_packages nginx-light
STACKDIR=$(abs_dir "$STACKDIR") || exit 1
# The sandbox has its own /tmp, /var/tmp, /run and /dev: a checkout under one of them (a CI
# clone in /tmp) would hide the packages, the MariaDB socket and nginx's files from what runs
# inside. Such a stack directory moves to one the sandbox shares.
case $STACKDIR/ in
/tmp/* | /var/tmp/* | /run/* | /dev/*)
    log "$STACKDIR is private to the sandbox; using /var/lib/supportcrm-package-test instead"
    STACKDIR=/var/lib/supportcrm-package-test
    ;;
esac

sb() { "$SANDBOX" exec "$@"; }

installed=0
sandbox_up=0
load_pids=()
cleanup() {
    local rc=$?
    # The load clients stop at load.stop; killed too, should one hang in curl.
    if ((${#load_pids[@]})); then
        touch "$STACKDIR/load.stop"
        kill "${load_pids[@]}" 2>/dev/null || true
        wait "${load_pids[@]}" 2>/dev/null || true
    fi
    rm -f -- "$STACKDIR/load.stop"
    if ((sandbox_up)); then
        sb "$NGINX_BIN" -c "$STACKDIR/nginx.conf" -s stop >/dev/null 2>&1 || true
        rm -rf -- /var/lib/nginx/supportcrm-cache # the site's cache (purge removes it too)
        if ((installed)); then
            sb apt-get purge -y supportcrm >"$STACKDIR/apt-purge.log" 2>&1 ||
                log_tail "$STACKDIR/apt-purge.log"
        fi
        if [[ -d "$STACKDIR" ]]; then # kept for a failure's post-mortem
            sb journalctl --no-pager -o short-precise >"$STACKDIR/journal.log" 2>&1 || true
        fi
        "$SANDBOX" down >&2 || warn "systemd-sandbox down failed"
    fi
    if [[ -L "$SITE_LINK" ]]; then rm -f -- "$SITE_LINK"; fi
    stop_stack "$STACKDIR"
    return "$rc"
}
trap cleanup EXIT

# wait_until SECONDS WHAT CMD...: run CMD every 0.1 s until it succeeds; die after SECONDS.
wait_until() {
    local seconds=$1 what=$2 i
    shift 2
    for ((i = 0; i < seconds * 10; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    die "$what: not within ${seconds}s"
}

# apt_step WHAT ARGS...: apt-get ARGS in the sandbox, output in STACKDIR/apt-WHAT.log, timed.
apt_step() {
    local what=$1 start=$SECONDS
    shift
    if ! sb env DEBIAN_FRONTEND=noninteractive apt-get -y --no-install-recommends "$@" \
        >"$STACKDIR/apt-$what.log" 2>&1; then
        log_tail "$STACKDIR/apt-$what.log"
        die "apt-get $* failed"
    fi
    log "apt-get $* took $((SECONDS - start))s"
}

[[ $MODE == prebuilt ]] || build_packages
{ read -r deb1 && read -r deb2; } < <(deb_paths)
[[ -f "$deb1" && -f "$deb2" ]] || die "no packages $deb1 and $deb2 (scripts/package, or --build-only)"
v1=$(dpkg-deb -f "$deb1" Version)
v2=$(dpkg-deb -f "$deb2" Version)
[[ "$v2" == "$v1+upgradetest1" ]] || die "$deb2 is version $v2, not $v1+upgradetest1"

# --- 2. install -------------------------------------------------------------------------
stop_stack "$STACKDIR"
rm -rf -- "$STACKDIR"
mkdir -p -- "$STACKDIR"
start_mariadb "$STACKDIR"
# The service runs as supportcrm: it must reach the private MariaDB's socket in STACKDIR.
chmod 711 "$STACKDIR"
path=$STACKDIR
while [[ "$path" != / ]]; do
    path=$(dirname "$path")
    (($(stat -c %a "$path") % 2 == 1)) ||
        die "$path is not searchable by others: the service could not reach $STACKDIR/mysqld.sock"
done

# The packages where the sandbox sees them (the build's own paths may be private to it).
mkdir -p -- "$STACKDIR/debs"
cp -- "$deb1" "$deb2" "$STACKDIR/debs/"
deb1=$STACKDIR/debs/$(basename "$deb1")
deb2=$STACKDIR/debs/$(basename "$deb2")

timed "systemd-sandbox up" "$SANDBOX" up >&2
sandbox_up=1
installed=1
apt_step install install "$deb1"
id supportcrm >/dev/null || die "the package did not create the user supportcrm"
[[ "$(sb stat -c %U /run/supportcrm)" == supportcrm ]] ||
    die "the package did not create /run/supportcrm owned by supportcrm (tmpfiles.d)"
for f in "$CONF" /etc/supportcrm/nginx/site-example.conf /etc/supportcrm/nginx/supportcrm.conf \
    /etc/supportcrm/nginx/supportcrm-status.conf /etc/supportcrm/nginx/supportcrm-ratelimit.conf \
    /etc/logrotate.d/supportcrm; do
    grep -qx "$f" /var/lib/dpkg/info/supportcrm.conffiles || die "$f is not a conffile"
done
for f in /usr/bin/supportcrm-fcgi /usr/bin/supportcrm-admin /lib/systemd/system/supportcrm.service \
    /lib/systemd/system/supportcrm.socket "/lib/systemd/system/$SWEEP" "/lib/systemd/system/$TIMER" \
    /usr/share/supportcrm/sql/001_initial.sql; do
    [[ -e "$f" ]] || die "the package did not install $f"
done
# Sites written for earlier versions include the snippets from /usr/share: links keep them working.
for f in supportcrm.conf supportcrm-status.conf supportcrm-ratelimit.conf; do
    [[ "$(readlink -f "/usr/share/supportcrm/nginx/$f")" == "/etc/supportcrm/nginx/$f" ]] ||
        die "/usr/share/supportcrm/nginx/$f is not a link to /etc/supportcrm/nginx/$f"
done
file -L /usr/bin/supportcrm-fcgi | grep -q ', stripped' || die "/usr/bin/supportcrm-fcgi is not stripped"
for unit in supportcrm.service supportcrm.socket supportcrm-webhooks.service "$SWEEP"; do
    doc=$(sed -n 's#^Documentation=file:##p' "/lib/systemd/system/$unit")
    [[ -n "$doc" && -f "$doc" ]] || die "$unit: Documentation= names '$doc', which is not shipped"
done
[[ "$(sb systemctl is-active supportcrm.socket)" == active ]] || die "supportcrm.socket was not started"
[[ "$(sb systemctl is-active supportcrm.service || true)" != active ]] ||
    die "supportcrm.service was started at install (it needs the database first)"
state=$(sb systemctl is-enabled supportcrm-webhooks.service || true)
[[ "$state" == disabled ]] || die "supportcrm-webhooks.service is '$state' after the install, not disabled"
[[ "$(sb systemctl is-active supportcrm-webhooks.service || true)" != active ]] ||
    die "supportcrm-webhooks.service was started at install"
if command -v logrotate >/dev/null; then
    logrotate -d /etc/logrotate.d/supportcrm >"$STACKDIR/logrotate.log" 2>&1 ||
        { log_tail "$STACKDIR/logrotate.log"; die "logrotate refuses /etc/logrotate.d/supportcrm"; }
fi
# The files (E13): the link secret (postinst), files-dir (tmpfiles.d), the sweep's timer.
modes() { stat -c '%a %U:%G' "$1" 2>/dev/null || echo missing; }
[[ "$(modes "$SECRET_FILE")" == "640 root:supportcrm" ]] ||
    die "$SECRET_FILE is '$(modes "$SECRET_FILE")' after the install, not 640 root:supportcrm"
[[ "$(cat "$SECRET_FILE")" =~ ^[0-9a-f]{64}$ ]] || die "$SECRET_FILE does not hold 64 hex digits"
secret_sum=$(sha256sum <"$SECRET_FILE")
[[ "$(modes /var/lib/supportcrm)" == "755 supportcrm:supportcrm" ]] ||
    die "/var/lib/supportcrm is '$(modes /var/lib/supportcrm)', not 755 supportcrm:supportcrm (tmpfiles.d)"
[[ "$(modes "$FILES_DIR")" == "2750 supportcrm:www-data" ]] ||
    die "$FILES_DIR is '$(modes "$FILES_DIR")', not 2750 supportcrm:www-data (tmpfiles.d)"
timer_on() { # timer_on WHEN: the sweep's timer is enabled and active
    local enabled active
    enabled=$(sb systemctl is-enabled "$TIMER" || true)
    active=$(sb systemctl is-active "$TIMER" || true)
    [[ "$enabled $active" == "enabled active" ]] || die "$TIMER is $enabled and $active $1"
}
timer_on "after the install, not enabled and active"

# The operator's edits (docs/operations.md §3), on the installed conffile. public-base-url
# (the signed links, on the port of step 3's nginx) makes the service and the admin tool read
# the link secret, as the user supportcrm.
port=$(free_port "${SUPPORTCRM_TEST_PACKAGE_PORT:-18090}")
url=http://127.0.0.1:$port
install -m 0640 -o root -g supportcrm "$STACKDIR/db-password" "$PASSWORD_FILE"
cat >>"$CONF" <<EOF

$MARKER
db-socket = $STACKDIR/mysqld.sock
db-password-file = $PASSWORD_FILE
public-base-url = $url
workers = 2
shutdown-timeout = 10
EOF
sb runuser -u supportcrm -- /usr/bin/supportcrm-fcgi --test-config >&2 ||
    die "the edited $CONF does not pass --test-config as the user supportcrm"
sb /usr/bin/supportcrm-admin migrate >&2 || die "supportcrm-admin migrate (installed, default config) failed"

# The sweep under its unit, as the timer starts it: an old temp upload and old content no row
# names go; a young temp upload stays (within the grace period: an upload in progress).
sweep() { # sweep WHEN: systemctl start the sweep; the test fails if it does
    if ! sb systemctl start "$SWEEP"; then
        sb journalctl -u "$SWEEP" --no-pager -o cat | tail -n 20 >&2
        die "systemctl start $SWEEP failed $1"
    fi
    log "the sweep $1: $(sb journalctl -t supportcrm-files-sweep --no-pager -o cat | grep -v '^-- ' | tail -n 1)"
}
stray=$(printf 'no row names this\n' | sha256sum | cut -c1-64)
stray_path=$FILES_DIR/${stray:0:2}/${stray:2:2}/$stray
old_upload=$FILES_DIR/tmp/up-00000000000000aa
young_upload=$FILES_DIR/tmp/up-00000000000000bb
# As the service would leave them: directories 0750 (setgid from files-dir), files 0640.
install -d -o supportcrm -g www-data -m 2750 "$FILES_DIR/tmp" "$FILES_DIR/${stray:0:2}" \
    "$FILES_DIR/${stray:0:2}/${stray:2:2}"
printf 'no row names this\n' >"$stray_path"
printf 'half an upload' >"$old_upload"
printf 'an upload in progress' >"$young_upload"
chown supportcrm:www-data "$stray_path" "$old_upload" "$young_upload"
chmod 0640 "$stray_path" "$old_upload" "$young_upload"
touch -d '30 days ago' "$stray_path" "$old_upload"
sweep "with stray bytes"
[[ ! -e "$stray_path" ]] || die "the sweep left $stray_path (30 days old, no row names it)"
[[ ! -e "$old_upload" ]] || die "the sweep left $old_upload (30 days old)"
[[ -e "$young_upload" ]] || die "the sweep removed $young_upload, made just now"
rm -f -- "$young_upload"

# --- 3. the socket starts the service; nginx in front ------------------------------------
sb systemctl enable --runtime --now supportcrm.socket
# The installed site as it is, but on 127.0.0.1:PORT (the host's port 80 is not ours) and
# logging under STACKDIR; workers as www-data, as in Debian's nginx.conf.
sed -e "s#^\(\s*\)listen 80 default_server;#\1listen 127.0.0.1:$port default_server;#" \
    -e '/listen \[::\]:80/d' \
    -e "s#/var/log/nginx/#$STACKDIR/nginx-#g" \
    /etc/supportcrm/nginx/site-example.conf >"$STACKDIR/site.conf"
grep -q "listen 127.0.0.1:$port default_server;" "$STACKDIR/site.conf" ||
    die "the installed site has no 'listen 80 default_server;'"
cat >"$STACKDIR/nginx.conf" <<EOF
user www-data;
worker_processes 1;
pid $STACKDIR/nginx.pid;
error_log $STACKDIR/nginx-main-error.log;
events {}
http {
    include /etc/nginx/mime.types;
    include $STACKDIR/site.conf;
}
EOF
sb "$NGINX_BIN" -t -q -c "$STACKDIR/nginx.conf" || die "nginx -t refuses the installed site"
sb "$NGINX_BIN" -c "$STACKDIR/nginx.conf" || die "nginx did not start"
healthz_ok() {
    [[ "$(curl -s -o "$STACKDIR/healthz.body" -w '%{http_code}' --max-time 5 "$url/healthz")" == 200 ]]
}
first=$SECONDS
wait_until 60 "GET /healthz through nginx answering 200 (the socket starting the service)" healthz_ok
# The unit is "active" at READY=1, once every worker has connected to the database; a worker
# that connected first may answer before that (the unit still "activating"): wait for it.
state=$(sb systemctl is-active supportcrm.service || true)
log "first request through nginx: 200 after $((SECONDS - first))s (the unit $state): $(cat "$STACKDIR/healthz.body")"
service_active() { [[ "$(sb systemctl is-active supportcrm.service || true)" == active ]]; }
wait_until 60 "supportcrm.service active after the first request" service_active
master=$(sb systemctl show -p MainPID --value supportcrm.service)
sb journalctl -u supportcrm --no-pager -o cat | grep -q 'listening on fd 3 from systemd (LISTEN_FDS)' ||
    die "the service did not take its socket from supportcrm.socket"

# /status: the listen queue, read over NETLINK_SOCK_DIAG, needs AF_NETLINK in the unit.
curl -s --max-time 5 "$url/status" >"$STACKDIR/status.json"
python3 -c '
import json, sys
q = json.load(open(sys.argv[1]))["listenQueue"]
sys.exit(0 if type(q) is int else 1)' "$STACKDIR/status.json" ||
    die "/status listenQueue is not a number under the unit: $(cat "$STACKDIR/status.json")"
log "/status under the unit: $(cut -c1-160 "$STACKDIR/status.json")"

# --- 4. upgrade and reload under load ----------------------------------------------------
# The upgrade brings a migration and a re-index walk, as one from a release before sql/018
# does: sql/020 and the walk are put back to pending (020 is ADD COLUMN IF NOT EXISTS, so
# running it again is what it does on an older schema), and tickets exist for the walk. The
# postinst must then run the migrate itself (debian/postinst), and every ticket and comment
# written meanwhile must be found by `q` once the re-index task has walked again.
sql() { mariadb_root "$STACKDIR" "$@" supportcrm; }
key=$(sb /usr/bin/supportcrm-admin shop create --domain upgrade.example >/dev/null &&
    sb /usr/bin/supportcrm-admin key create --shop upgrade.example --label upgrade |
    sed -n 's/.*"key":"\([^"]*\)".*/\1/p')
[[ -n "$key" ]] || die "no key for the upgrade's writers"
api() { # api METHOD PATH [BODY]: the JSON answer on stdout, non-2xx fails
    curl -sf --max-time 10 -X "$1" -H "x-api-key: $key" -H 'Content-Type: application/json' \
        ${3:+--data "$3"} "$url/api/v1$2"
}

# A file (E13) through nginx: the service stores it (files-dir is writable under
# ProtectSystem=strict) readable by nginx's group and nobody else, and nginx sends it
# (X-Accel-Redirect), by key and by the signed link.
printf 'uploaded before the upgrade %s\n' "$(date +%s%N)" >"$STACKDIR/upload.txt"
curl -sf --max-time 10 -X POST -H "x-api-key: $key" -H 'Content-Type: text/plain' \
    --data-binary "@$STACKDIR/upload.txt" "$url/api/v1/files?filename=upgrade.txt" \
    >"$STACKDIR/upload.json" || die "POST /api/v1/files failed"
{ read -r file_id && read -r file_sha && read -r file_url; } < <(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["file"]
print(f["id"]); print(f["sha256"]); print(f["url"] or "")' "$STACKDIR/upload.json") ||
    die "POST /api/v1/files answered no file shape: $(cat "$STACKDIR/upload.json")"
[[ "$file_sha" == "$(sha256sum <"$STACKDIR/upload.txt" | cut -c1-64)" ]] ||
    die "the file's sha256 $file_sha is not that of the bytes sent"
[[ "$file_url" == "$url/files/$file_id/"* ]] || die "the file's url is '$file_url', not under $url/files/$file_id/"
content=$FILES_DIR/${file_sha:0:2}/${file_sha:2:2}/$file_sha
[[ "$(modes "$content")" == "640 supportcrm:www-data" ]] ||
    die "$content is '$(modes "$content")', not 640 supportcrm:www-data (UMask=0027, setgid files-dir)"
for dir in "${content%/*}" "${content%/*/*}"; do
    [[ "$(modes "$dir")" =~ ^2?750\ supportcrm:www-data$ ]] ||
        die "$dir is '$(modes "$dir")', not 750 supportcrm:www-data"
done
file_served() { # file_served WHAT CURL-ARGS...: nginx sends the uploaded bytes
    local what=$1
    shift
    curl -sf --max-time 10 -o "$STACKDIR/download.txt" "$@" ||
        die "$what: the download failed (curl exit $?)"
    cmp -s "$STACKDIR/upload.txt" "$STACKDIR/download.txt" || die "$what: not the bytes uploaded"
}
file_served "GET /api/v1/files/$file_id" -H "x-api-key: $key" "$url/api/v1/files/$file_id"
file_served "the signed link" "$file_url"
# Older than any grace period, but named by a row: the sweep keeps it.
touch -d '30 days ago' "$content"
sweep "with an old named file"
[[ -e "$content" ]] || die "the sweep removed $content, which a row names"
file_served "the signed link after the sweep" "$file_url"
log "file $file_id: stored $(modes "$content"), sent by nginx by key and by its signed link, kept by the sweep"

customer=$(api POST /customers '{"email":"upgrade@example.com"}' | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
[[ -n "$customer" ]] || die "POST /api/v1/customers failed"
for ((i = 1; i <= 50; i++)); do
    api POST /tickets "{\"customerId\":$customer,\"Channel\":\"Mail\",\"name\":\"before $i\"}" >/dev/null ||
        die "POST /api/v1/tickets failed"
done
sql <<<"DELETE FROM schema_migrations WHERE version = 20;
UPDATE search_reindex SET done_through = 0, finished_at = NULL, recheck = 0;"
writer() { # writer N: a ticket named upgradeNx<i>z, a comment commentNx<i>z on it, until load.stop
    local i=0 id name text
    while [[ ! -e "$STACKDIR/load.stop" ]]; do
        i=$((i + 1))
        # q matches word prefixes: the z keeps upgrade1x1z from matching upgrade1x10z.
        name=upgrade$1x${i}z text=comment$1x${i}z
        id=$(api POST /tickets "{\"customerId\":$customer,\"Channel\":\"Mail\",\"name\":\"$name\"}" |
            sed -n 's/.*"id":"\([0-9]*\)".*/\1/p') || { echo "ticket-failed"; continue; }
        api POST "/tickets/$id/comments" "{\"text\":\"$text\"}" >/dev/null ||
            { echo "comment-failed $id"; continue; }
        echo "$id $name $text"
        sleep 0.1 # a steady trickle: every write is looked up afterwards
    done >"$STACKDIR/writes.$1"
}
found_by() { # found_by WORD: the ids GET /tickets?q=WORD lists, one a line
    api GET "/tickets?q=$1" | grep -o '"id":"[0-9]*"' | grep -o '[0-9]*' || true
}
ready_count() { sb journalctl -u supportcrm --no-pager -o cat | grep -c 'ready: ' || true; }
ready_after() { (($(ready_count) > $1)); }
answers() { cat "$STACKDIR"/load.[0-9]* 2>/dev/null | wc -l; }
answers_at_least() { (($(answers) >= $1)); }
load_client() { # load_client N: GET /healthz until load.stop exists, one status per line
    while [[ ! -e "$STACKDIR/load.stop" ]]; do
        curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 "$url/healthz" || echo "curl-exit-$?"
    done >"$STACKDIR/load.$1"
}
rm -f -- "$STACKDIR/load.stop" "$STACKDIR"/load.[0-9]*
for ((c = 1; c <= LOAD_CLIENTS; c++)); do
    load_client "$c" &
    load_pids+=($!)
done
for c in 1 2; do
    writer "$c" &
    load_pids+=($!)
done
wait_until 30 "the load clients' first answers" answers_at_least "$LOAD_CLIENTS"
before=$(ready_count)
apt_step upgrade install "$deb2"
wait_until 60 "the new pool of the postinst's reload serving" ready_after "$before"
before=$(ready_count)
reload=$SECONDS
sb systemctl reload supportcrm || die "systemctl reload supportcrm failed"
wait_until 60 "the new pool of systemctl reload serving" ready_after "$before"
log "systemctl reload: the new pool served after $((SECONDS - reload))s"
# Keep the load on until the new pool has answered every client a few times.
wait_until 30 "answers from the new pool" answers_at_least $(($(answers) + 4 * LOAD_CLIENTS))
touch "$STACKDIR/load.stop"
wait "${load_pids[@]}"
load_pids=()
grep -q 'applying the schema migrations' "$STACKDIR/apt-upgrade.log" ||
    die "the postinst did not run supportcrm-admin migrate (apt-upgrade.log)"
pending=$(sb /usr/bin/supportcrm-admin migrate --status)
[[ "$pending" == *'"pending":[]'* ]] || die "migrations pending after the upgrade: $pending"
# The migrate's walk, then the re-index task's walk after the last reload's takeover.
walks_done() {
    [[ "$(sql -N <<<"SELECT COUNT(*) FROM search_reindex WHERE recheck = 1 OR finished_at IS NULL")" == 0 ]]
}
wait_until 120 "the re-index walks done (search_reindex)" walks_done
writes=$(cat "$STACKDIR"/writes.[0-9]* | wc -l)
if grep -h 'failed' "$STACKDIR"/writes.[0-9]*; then die "writes failed during the upgrade"; fi
((writes > 0)) || die "no ticket was written during the upgrade"
missed=0
while read -r id name_word comment_word; do
    for word in "$name_word" "$comment_word"; do
        [[ "$(found_by "$word")" == "$id" ]] || { warn "ticket $id is not found by q=$word"; missed=$((missed + 1)); }
    done
done < <(cat "$STACKDIR"/writes.[0-9]*)
((missed == 0)) || die "$missed words written during the upgrade are not found by q"
log "the upgrade migrated (postinst) and re-indexed: the $writes tickets and comments written during it are all found by q"
total=$(answers)
failed=$(cat "$STACKDIR"/load.[0-9]* | grep -vcx 200 || true)
note="package $v1 -> $v2 (migrating), then systemctl reload, under load: $total requests, $failed failed; $writes tickets written meanwhile, all found by q"
log "$note"
((total > 0)) || die "no requests were made during the upgrade"
if ((failed > 0)); then
    cat "$STACKDIR"/load.[0-9]* | grep -vx 200 | sort | uniq -c >&2
    die "$failed of $total requests failed during the upgrade and the reload"
fi
[[ "$(sb systemctl show -p MainPID --value supportcrm.service)" == "$master" ]] ||
    die "the main pid changed: the service was restarted, not reloaded"
[[ "$(dpkg-query -W -f='${Version}' supportcrm)" == "$v2" ]] || die "dpkg does not list $v2"
# Know what runs (issue 43): the binary reports the package's version and a git revision.
running=$(sb /usr/bin/supportcrm-fcgi --version || true)
[[ "$running" =~ ^supportcrm-fcgi\ ${v2//+/\\+}\ \(revision\ [0-9a-f]{12}(\+dirty)?\)$ ]] ||
    die "supportcrm-fcgi --version says '$running', not version $v2 with its revision"
log "supportcrm-fcgi --version: $running"
grep -qxF "$MARKER" "$CONF" || die "the edited $CONF did not survive the upgrade"
[[ ! -e "$CONF.dpkg-new" && ! -e "$CONF.dpkg-dist" ]] || die "dpkg left $CONF.dpkg-* behind"
[[ "$(sha256sum <"$SECRET_FILE")" == "$secret_sum" ]] || die "the upgrade changed $SECRET_FILE"
[[ "$(modes "$SECRET_FILE")" == "640 root:supportcrm" ]] ||
    die "$SECRET_FILE is '$(modes "$SECRET_FILE")' after the upgrade, not 640 root:supportcrm"
file_served "the link signed before the upgrade" "$file_url"
timer_on "after the upgrade, not enabled and active"
exe=$(sb readlink "/proc/$master/exe" || true)
[[ "$exe" == /usr/bin/supportcrm-fcgi ]] || die "after the reload the master runs '$exe'"
for w in $(sb pgrep -P "$master" || true); do
    wexe=$(sb readlink "/proc/$w/exe" || true)
    [[ "$wexe" == /usr/bin/supportcrm-fcgi ]] || die "after the reload worker $w runs '$wexe'"
done
log "the master (pid $master in the sandbox, unchanged) and its workers run the new binary"
warnings=$(sb journalctl -p warning --no-pager -o cat -u supportcrm.service -u supportcrm.socket \
    -u supportcrm-webhooks.service -u "$SWEEP" -u "$TIMER" | grep -vx -- '-- No entries --' || true)
[[ -z "$warnings" ]] || die "journalctl -p warning for the supportcrm units is not empty:
$warnings"

# --- 5. a broken config fails systemctl reload --------------------------------------------
cp -- "$CONF" "$STACKDIR/supportcrm.conf.good"
echo "workers = many" >>"$CONF"
if sb systemctl reload supportcrm >"$STACKDIR/reload-broken.log" 2>&1; then
    die "systemctl reload succeeded with a broken config"
fi
healthz_ok || die "the service stopped serving after a refused reload"
[[ "$(sb systemctl is-active supportcrm.service)" == active ]] || die "a refused reload stopped the service"
cp -- "$STACKDIR/supportcrm.conf.good" "$CONF"
sb systemctl reload supportcrm || die "systemctl reload failed after the config was repaired"
log "a broken config: systemctl reload failed ($(head -c 120 "$STACKDIR/reload-broken.log")), the service kept serving"

# --- 6. remove, purge: nginx keeps passing nginx -t ----------------------------------------
sb "$NGINX_BIN" -c "$STACKDIR/nginx.conf" -s stop 2>>"$STACKDIR/nginx-main-error.log" || true
# Debian's nginx.conf with the shipped site enabled as §6 says (a link in sites-enabled, in
# place of Debian's default site, which this test leaves alone), pid and logs private.
ln -s /etc/supportcrm/nginx/site-example.conf "$SITE_LINK"
sed -e 's#^\s*include /etc/nginx/sites-enabled/\*;#include /etc/nginx/sites-enabled/supportcrm*;#' \
    -e "s#^pid .*#pid $STACKDIR/system-nginx.pid;#" \
    -e "s#/var/log/nginx/#$STACKDIR/system-nginx-#g" /etc/nginx/nginx.conf >"$STACKDIR/system-nginx.conf"
grep -q 'sites-enabled/supportcrm\*;' "$STACKDIR/system-nginx.conf" ||
    die "/etc/nginx/nginx.conf does not include /etc/nginx/sites-enabled/*"
system_nginx_t() { # system_nginx_t WHEN
    local site=$STACKDIR/system-site.conf
    # The site's own log paths, made private too (nginx -t opens them).
    if [[ -e "$SITE_LINK" ]]; then
        sed "s#/var/log/nginx/#$STACKDIR/system-nginx-#g" "$SITE_LINK" >"$site"
        sed -i "s#include /etc/nginx/sites-enabled/supportcrm\*;#include $site;#" "$STACKDIR/system-nginx.conf"
    else
        rm -f -- "$site"
        sed -i "s#include $site;#include /etc/nginx/sites-enabled/supportcrm*;#" "$STACKDIR/system-nginx.conf"
    fi
    sb "$NGINX_BIN" -t -q -c "$STACKDIR/system-nginx.conf" >"$STACKDIR/nginx-t.log" 2>&1 || {
        cat "$STACKDIR/nginx-t.log" >&2
        die "nginx -t fails $1"
    }
}
system_nginx_t "with the shipped site enabled"
apt_step remove remove supportcrm
system_nginx_t "after apt-get remove"
[[ -f "$CONF" && -f /etc/supportcrm/nginx/supportcrm.conf ]] || die "apt-get remove took the conffiles"
[[ "$(sha256sum <"$SECRET_FILE")" == "$secret_sum" ]] || die "apt-get remove took or changed $SECRET_FILE"
[[ -e "$content" ]] || die "apt-get remove took the files' bytes ($content)"
[[ "$(sb systemctl is-active "$TIMER" || true)" != active ]] || die "$TIMER still active after apt-get remove"
apt_step purge purge supportcrm
installed=0
[[ ! -L "$SITE_LINK" ]] || die "apt-get purge left $SITE_LINK pointing at a removed file"
system_nginx_t "after apt-get purge"
for f in /usr/bin/supportcrm-fcgi /etc/supportcrm /lib/systemd/system/supportcrm.service \
    /usr/share/supportcrm /etc/logrotate.d/supportcrm /var/lib/nginx/supportcrm-cache \
    /var/lib/supportcrm "/lib/systemd/system/$TIMER" "/etc/systemd/system/timers.target.wants/$TIMER"; do
    [[ ! -e "$f" && ! -L "$f" ]] || die "$f is still there after apt-get purge"
done
log "remove and purge: nginx -t passes; nothing of the package is left, the password file, the link secret and the files neither"
note="$note; $((SECONDS - STARTED))s"
if [[ -n "${STEP_NOTE:-}" ]]; then echo "$note" >"$STEP_NOTE"; fi
log "package test passed: $note"
# The private MariaDB stops here, not in cleanup: that finds no STACKDIR once it is removed.
stop_stack "$STACKDIR"
if [[ "${SUPPORTCRM_TEST_KEEP:-0}" != 1 ]]; then
    rm -rf -- "$STACKDIR"
fi
