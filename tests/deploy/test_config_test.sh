#!/usr/bin/env bash
# `supportcrm-fcgi --test-config` fails (exit 78, the key named, nothing "OK") on each bad
# setup an operator meets first, and passes on a good one. Run by ctest (label unit).
#   test_config_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: test_config_test.sh BUILD_DIR}
bin=$build/bin/supportcrm-fcgi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect CODE PATTERN ARGS...: supportcrm-fcgi --test-config ARGS exits CODE and prints PATTERN.
expect() {
    local code=$1 pattern=$2 out rc=0
    shift 2
    out=$("$bin" --test-config "$@" 2>&1) || rc=$?
    if [[ $rc -ne $code ]] || ! grep -qE -- "$pattern" <<<"$out"; then
        echo "FAIL: --test-config $* -> exit $rc (want $code), output: $out (want /$pattern/)"
        failures=$((failures + 1))
    else
        echo "ok: --test-config $* -> $rc: $out"
    fi
}

printf 'db-name = supportcrm\n' >"$tmp/good.conf"
expect 0 "configuration OK: config=$tmp/good.conf" --config "$tmp/good.conf" --listen "$tmp/s.sock"
expect 0 'configuration OK' --config "$tmp/good.conf" --listen 127.0.0.1:9000
expect 78 'cannot read /nonexistent/x.conf: No such file or directory \(errno 2, as user ' \
    --config /nonexistent/x.conf
expect 78 "^supportcrm-fcgi: listen: .*got '127.0.0.1:notaport'" \
    --config "$tmp/good.conf" --listen 127.0.0.1:notaport
expect 78 '^supportcrm-fcgi: listen: .*port 1-65535' --config "$tmp/good.conf" --listen '[::1]:70000'
expect 78 '^supportcrm-fcgi: listen: cannot use directory /nonexistent/dir' \
    --config "$tmp/good.conf" --listen /nonexistent/dir/s.sock
expect 78 "^supportcrm-fcgi: listen-group: no such group 'no-such-group-x'" \
    --config "$tmp/good.conf" --listen-group no-such-group-x
expect 78 "^supportcrm-fcgi: db-password-file: cannot read $tmp/missing: No such file" \
    --config "$tmp/good.conf" --db-password-file "$tmp/missing"
# extensions.md §E6: the slow log must come before the kill, and both are bounded.
expect 0 'slowlog-threshold=900ms request-terminate-timeout=1s' --config "$tmp/good.conf" \
    --listen "$tmp/s.sock" --slowlog-threshold 900 --request-terminate-timeout 1
expect 78 '^supportcrm-fcgi: slowlog-threshold: must be below request-terminate-timeout' \
    --config "$tmp/good.conf" --slowlog-threshold 1000 --request-terminate-timeout 1
expect 78 '^supportcrm-fcgi: request-terminate-timeout: must be between 0 and 86400' \
    --config "$tmp/good.conf" --request-terminate-timeout 86401
expect 78 '^supportcrm-fcgi: slowlog-threshold: must be between 0 and 3600000' \
    --config "$tmp/good.conf" --slowlog-threshold 3600001
# The exports' own timer: 30 s and 1800 s by default, never below the other routes'.
expect 0 'request-terminate-timeout=30s stream-terminate-timeout=1800s' \
    --config "$tmp/good.conf" --listen "$tmp/s.sock"
expect 78 '^supportcrm-fcgi: stream-terminate-timeout: must be 0 \(off\) or at least request-terminate-timeout \(30\)' \
    --config "$tmp/good.conf" --stream-terminate-timeout 29
expect 78 '^supportcrm-fcgi: stream-terminate-timeout: must be between 0 and 86400' \
    --config "$tmp/good.conf" --stream-terminate-timeout 86401
expect 78 '^supportcrm-fcgi: slowlog-threshold: must be between 0 and 3600000' \
    --config "$tmp/good.conf" --slowlog-threshold -5
# The default file: only checkable where it is not installed.
if [[ ! -e /etc/supportcrm/supportcrm.conf ]]; then
    expect 78 'cannot read /etc/supportcrm/supportcrm.conf: .*--config FILE'
else
    echo "skipped: /etc/supportcrm/supportcrm.conf exists here, the missing-default case is not checked"
fi
# No more "configuration OK: config=(none)".
if "$bin" --test-config --config "$tmp/good.conf" 2>&1 | grep -q '(none)'; then
    echo "FAIL: --test-config still prints config=(none)"
    failures=$((failures + 1))
fi
((failures == 0)) || exit 1
echo "--test-config: all cases as expected"
