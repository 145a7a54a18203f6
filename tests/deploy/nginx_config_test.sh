#!/usr/bin/env bash
# `nginx -t` on the shipped nginx files as a sysadmin would install them (the example site
# including the snippet, with the optional rate limit switched on) and on the configuration the
# local stacks generate (scripts/lib/stack.sh); then a check that the stacks run every directive
# of the example site, so that what the integration tests exercise is what production runs.
# Run by ctest (label unit).
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
sed -e "s#/etc/supportcrm/nginx/#$tmp/share/#g" \
    -e "s#/var/log/nginx/#$tmp/logs/#g" \
    -e 's/^#include \(.*supportcrm-ratelimit.conf;\)/include \1/' \
    -e 's/^\(\s*\)#limit_req/\1limit_req/' \
    -e 's/^\(\s*\)#keepalive /\1keepalive /' \
    -e 's/^\(\s*\)#keepalive_timeout /\1keepalive_timeout /' \
    -e 's/^\(\s*\)#fastcgi_keep_conn on;/\1fastcgi_keep_conn on;/' \
    "$repo/nginx/site-example.conf" >"$tmp/site.conf"
grep -q '^include .*supportcrm-ratelimit.conf;' "$tmp/site.conf"
grep -q '^\s*limit_req zone=supportcrm_per_key' "$tmp/site.conf"
grep -q '^\s*limit_req zone=supportcrm_per_address' "$tmp/site.conf"
grep -q '^\s*keepalive [0-9]*;' "$tmp/site.conf"
grep -q '^\s*keepalive_timeout [0-9]*s;' "$tmp/site.conf"
grep -q '^\s*fastcgi_keep_conn on;' "$tmp/site.conf"

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
echo "nginx -t: the example site with the snippet, the rate limit and keep-alive is valid"

# The stacks' configuration, with the rate-limited second server.
# shellcheck source=scripts/lib/stack.sh
source "$repo/scripts/lib/stack.sh"
# With keep-alive on (the stacks' default), so with the third server that has it off.
SUPPORTCRM_FCGI_KEEPALIVE=2 write_nginx_conf "$tmp/stack" 18080 19080 20080
grep -q '^\s*keepalive 2;' "$tmp/stack/nginx/nginx.conf"
# nginx closes an idle kept connection before the pool's bound on a parked one (300 s).
grep -q '^\s*keepalive_timeout 60s;' "$tmp/stack/nginx/nginx.conf"
grep -q '^\s*fastcgi_keep_conn off;' "$tmp/stack/nginx/nginx.conf"
stack_conf=$tmp/stack/nginx/nginx.conf
"$nginx" -t -q -p "$tmp/stack/nginx/" -c "$stack_conf" -e "$tmp/logs/stack-error.log"
echo "nginx -t: the stack configuration is valid"

# Every directive line of the example site, except those naming this host's addresses and
# paths, must appear (leading blanks aside) in the stack's configuration.
trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }
absent=0
# Trimmed once into a file: `trim | grep -q` under pipefail fails when grep stops reading early.
trim <"$stack_conf" >"$tmp/stack-trimmed.conf"
while IFS= read -r line; do
    if ! grep -qxF -- "$line" "$tmp/stack-trimmed.conf"; then
        echo "in nginx/site-example.conf but not in the stack's nginx.conf: $line"
        absent=1
    fi
done < <(trim <"$repo/nginx/site-example.conf" |
    grep -vE '^(#|$|\}$|upstream |server unix:|server \{|listen |server_name |include |access_log |error_log |fastcgi_cache_path )')
grep -qE '^\s*fastcgi_cache_path \S+ levels=1 keys_zone=supportcrm_openapi:1m$' "$stack_conf" || {
    echo "the stack's nginx.conf has no cache zone supportcrm_openapi like the example site's"
    absent=1
}
grep -qE '^\s*access_log \S+ supportcrm;' "$stack_conf" || {
    echo "the stack's access_log does not use the log_format supportcrm"
    absent=1
}
# The error log's level, which keeps request lines (query strings) out of it.
site_level=$(sed -nE 's/^\s*error_log \S+ ([a-z]+);$/\1/p' "$repo/nginx/site-example.conf")
[[ -n "$site_level" ]] || {
    echo "nginx/site-example.conf sets no error_log level for its server"
    absent=1
}
grep -qE "^\s*error_log \S+ $site_level;" <(sed -n '/server {/,$p' "$stack_conf") || {
    echo "the stack's servers do not log errors at the example site's level ($site_level)"
    absent=1
}
((absent == 0))
echo "the stack's nginx.conf carries every directive of nginx/site-example.conf"
