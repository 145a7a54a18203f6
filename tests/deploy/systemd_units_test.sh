#!/usr/bin/env bash
# The shipped systemd units (the files sweep's timer with them) pass `systemd-analyze verify`,
# and the shipped example config is accepted by `supportcrm-fcgi --test-config`. Run by ctest
# (label unit): no services needed.
#   systemd_units_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: systemd_units_test.sh BUILD_DIR}
# The timer is no template (nothing in it depends on the prefix): it is the source's file.
timer=$(dirname "${BASH_SOURCE[0]}")/../../systemd/supportcrm-files-sweep.timer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --listen: --test-config checks that the socket's directory exists, and /run/supportcrm
# exists only where the package (tmpfiles.d) or supportcrm.socket made it.
"$build/bin/supportcrm-fcgi" --config "$build/etc/supportcrm.conf" --listen "$tmp/s.sock" --test-config
"$build/bin/supportcrm-webhooks" --config "$build/etc/supportcrm.conf" --test-config

# What only a real systemd shows (tests/deploy/package_upgrade_test.sh runs the unit), checked
# here too so that a unit edit cannot lose it unnoticed: /status reads the listen queue over
# NETLINK_SOCK_DIAG, and `systemctl reload` must fail on a config the master would refuse.
service=$build/systemd/supportcrm.service
grep -qE '^RestrictAddressFamilies=.*\bAF_NETLINK\b' "$service" ||
    { echo "supportcrm.service: RestrictAddressFamilies= lacks AF_NETLINK (listenQueue would be null)"; exit 1; }
reloads=$(grep '^ExecReload=' "$service")
[[ "$(head -n1 <<<"$reloads")" == *"supportcrm-fcgi "*"--test-config" &&
    "$(tail -n1 <<<"$reloads")" == *"kill -HUP"* ]] ||
    { echo "supportcrm.service: ExecReload= must run --test-config, then send SIGHUP:"; echo "$reloads"; exit 1; }
# The files (extensions.md E13): the pool and the sweep write files-dir through
# ProtectSystem=strict, the pool with the umask that leaves the bytes readable by nginx's group
# (files-dir is setgid www-data: supportcrm.tmpfiles); the sweep runs daily as the service user.
sweep=$build/systemd/supportcrm-files-sweep.service
[[ -f "$sweep" ]] || { echo "$sweep: not made (CMakeLists.txt configures it)"; exit 1; }
for unit in "$service" "$sweep"; do
    grep -qx 'ReadWritePaths=-/var/lib/supportcrm/files' "$unit" ||
        { echo "${unit##*/}: no ReadWritePaths=-/var/lib/supportcrm/files (ProtectSystem=strict)"; exit 1; }
    grep -qx 'UMask=0027' "$unit" || { echo "${unit##*/}: UMask= is not 0027"; exit 1; }
done
if ! grep -qx 'Type=oneshot' "$sweep" || ! grep -qx 'User=supportcrm' "$sweep" ||
    ! grep -qE '^ExecStart=[^ ]*/supportcrm-admin --config [^ ]+ files sweep$' "$sweep"; then
    echo "supportcrm-files-sweep.service: not a oneshot running 'supportcrm-admin files sweep' as supportcrm"
    exit 1
fi
for line in OnCalendar=daily RandomizedDelaySec=1h Persistent=true WantedBy=timers.target; do
    grep -qx "$line" "$timer" || { echo "supportcrm-files-sweep.timer: no $line"; exit 1; }
done

if ! command -v systemd-analyze >/dev/null; then
    echo "systemd-analyze not installed: unit verification skipped"
    exit 0
fi
# The units name the installed binary; point them at this build's so verify can check it.
for unit in supportcrm.service supportcrm.socket supportcrm-webhooks.service supportcrm-files-sweep.service; do
    sed -E "s#^(Exec(Start|StartPre|Reload)=)[^ ]*/(supportcrm-fcgi|supportcrm-webhooks|supportcrm-admin)#\1$build/bin/\3#" \
        "$build/systemd/$unit" >"$tmp/$unit"
done
cp -- "$timer" "$tmp/"
out=$(cd "$tmp" && { SYSTEMD_LOG_LEVEL=warning systemd-analyze verify ./supportcrm.socket ./supportcrm.service \
    ./supportcrm-webhooks.service ./supportcrm-files-sweep.service ./supportcrm-files-sweep.timer 2>&1 || true; })
# Only complaints about our own units count (verify also reports on unrelated system units).
ours=$(grep -E 'supportcrm(-webhooks|-files-sweep)?\.(service|socket|timer)' <<<"$out" || true)
if [[ -n "$ours" ]]; then
    echo "systemd-analyze verify found problems:"
    echo "$ours"
    exit 1
fi
echo "systemd units verified"
