#!/usr/bin/env bash
# The shipped systemd units pass `systemd-analyze verify`, and the shipped example config is
# accepted by `supportcrm-fcgi --test-config`. Run by ctest (label unit): no services needed.
#   systemd_units_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: systemd_units_test.sh BUILD_DIR}
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

if ! command -v systemd-analyze >/dev/null; then
    echo "systemd-analyze not installed: unit verification skipped"
    exit 0
fi
# The units name the installed binary; point them at this build's so verify can check it.
for unit in supportcrm.service supportcrm.socket supportcrm-webhooks.service; do
    sed -E "s#^(Exec(Start|StartPre|Reload)=)[^ ]*/(supportcrm-fcgi|supportcrm-webhooks)#\1$build/bin/\3#" \
        "$build/systemd/$unit" >"$tmp/$unit"
done
out=$(cd "$tmp" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify ./supportcrm.socket ./supportcrm.service \
    ./supportcrm-webhooks.service 2>&1 || true)
# Only complaints about our own units count (verify also reports on unrelated system units).
ours=$(grep -E 'supportcrm(-webhooks)?\.(service|socket)' <<<"$out" || true)
if [[ -n "$ours" ]]; then
    echo "systemd-analyze verify found problems:"
    echo "$ours"
    exit 1
fi
echo "systemd units verified"
