#!/usr/bin/env bash
# `nginx -t` on the shipped nginx files as a sysadmin would install them: the example site
# including the snippet, with the optional rate limit switched on. Run by ctest (label unit).
#   nginx_config_test.sh REPO_DIR
set -euo pipefail
repo=${1:?usage: nginx_config_test.sh REPO_DIR}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x "$nginx" ]] || { echo "nginx is not installed (scripts/test installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/share" "$tmp/logs"
cp "$repo"/nginx/*.conf "$tmp/share/"
# The example names the installed path; point it at this copy and uncomment the rate limit.
sed -e "s#/usr/share/supportcrm/nginx/#$tmp/share/#g" \
    -e 's/^#include \(.*supportcrm-ratelimit.conf;\)/include \1/' \
    -e 's/^\(\s*\)#limit_req/\1limit_req/' \
    "$repo/nginx/site-example.conf" >"$tmp/site.conf"
grep -q '^include .*supportcrm-ratelimit.conf;' "$tmp/site.conf"
grep -q '^\s*limit_req zone=supportcrm_per_key' "$tmp/site.conf"

cat >"$tmp/nginx.conf" <<CONF
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
events {}
http {
    access_log off;
    include $tmp/site.conf;
}
CONF
"$nginx" -t -q -p "$tmp/" -c "$tmp/nginx.conf" -e "$tmp/logs/error.log"
echo "nginx -t: the example site with the snippet and the rate limit is valid"
