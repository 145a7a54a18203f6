# shellcheck shell=bash
# scripts/lib/stack.sh - private supportcrm stacks (MariaDB + supportcrm-fcgi + nginx)
#
# Sourced by scripts/devstack and scripts/test; not executable on its own.
# Every function takes the stack directory (and, where needed, a bin dir or a
# port) as arguments, so several stacks can live side by side:
#
#   STACKDIR/mysql/             MariaDB data directory
#   STACKDIR/mysqld.sock        MariaDB unix socket (no TCP: --skip-networking)
#   STACKDIR/mysqld.pid|.err    MariaDB pid file and error log
#   STACKDIR/db-password        password of 'supportcrm'@'localhost' (mode 600)
#   STACKDIR/supportcrm.conf    config of supportcrm-fcgi / supportcrm-admin
#   STACKDIR/supportcrm.sock    FastCGI socket of supportcrm-fcgi
#   STACKDIR/fcgi.pid|.log      its pid (of the master) and its stdout+stderr
#   STACKDIR/nginx/             nginx prefix: nginx.conf and temp dirs
#   STACKDIR/nginx.pid, nginx-error.log, nginx-access.log
#
# Nothing here touches the system MariaDB / nginx instances, /etc, /var/log or
# /run: every daemon runs as the invoking user with all paths under STACKDIR.
#
# Functions report progress on stderr and fail with `die` (exit 1 of the shell
# or subshell they run in) after printing the relevant log tail. Their checks
# are explicit rather than left to `set -e`, so they also fail properly when
# called from an `if` or `||`. Safe to source under `set -euo pipefail`.
# Tunables: SUPPORTCRM_*_TIMEOUT below, SUPPORTCRM_WORKERS, SUPPORTCRM_LOG_LEVEL,
# SUPPORTCRM_FCGI_KEEPALIVE, SUPPORTCRM_NGINX_DIR, NGINX_BIN.

if [[ -n "${SUPPORTCRM_STACK_SH_LOADED:-}" ]]; then
    return 0
fi
SUPPORTCRM_STACK_SH_LOADED=1

# Repository root (this file is scripts/lib/stack.sh).
SUPPORTCRM_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Debian packages needed to build the daemons and the CLI, to run a stack, and to test (for
# the scripts that source this file: ensure_packages takes the list).
SUPPORTCRM_BUILD_PACKAGES=(
    build-essential cmake pkg-config
    ninja-build          # the generator of every build directory the scripts configure
    libfcgi-dev libjsoncpp-dev libmysqlcppconn-dev libboost-program-options-dev
    libssl-dev libcurl4-openssl-dev libsystemd-dev
    libicu-dev           # ICU's NFKC_Casefold: E10's words (common/words.cpp)
    python3 python3-yaml # tools/openapi/embed.py, run by the build
    tzdata               # /usr/share/zoneinfo: CSAT's tz (extensions.md E4), its unit tests
)
# What scripts/devstack needs: the build, MariaDB, nginx, curl (its probes).
SUPPORTCRM_STACK_PACKAGES=(
    "${SUPPORTCRM_BUILD_PACKAGES[@]}"
    mariadb-server mariadb-client nginx-light curl
)
# shellcheck disable=SC2034 # used by the scripts that source this file
SUPPORTCRM_PACKAGES=(
    "${SUPPORTCRM_STACK_PACKAGES[@]}"
    libgtest-dev # the unit and integration tests (SUPPORTCRM_BUILD_TESTS)
    prometheus   # promtool: the integration tests check GET /metrics with `promtool check metrics`
)
# Added for the fuzz build (scripts/fuzz): clang, and compiler-rt, whose
# libclang_rt.fuzzer*.a is what -fsanitize=fuzzer links (no libfuzzer-14-dev needed).
# shellcheck disable=SC2034 # used by the scripts that source this file
SUPPORTCRM_FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)

# Bounded waits (seconds); override from the environment if a machine is slow.
: "${SUPPORTCRM_MARIADB_START_TIMEOUT:=30}"
: "${SUPPORTCRM_MARIADB_STOP_TIMEOUT:=60}"
: "${SUPPORTCRM_FCGI_START_TIMEOUT:=30}"
: "${SUPPORTCRM_FCGI_STOP_TIMEOUT:=20}" # > shutdown-timeout written by write_config
: "${SUPPORTCRM_NGINX_START_TIMEOUT:=15}"
# The nginx snippets a stack's nginx includes: the tree's, or installed ones
# (/etc/supportcrm/nginx).
: "${SUPPORTCRM_NGINX_DIR:=$SUPPORTCRM_REPO/nginx}"

# ---------------------------------------------------------------------------
# helpers

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { log "WARNING: $*"; }
die() {
    log "ERROR: $*"
    exit 1
}

# Print the last lines of a log file to stderr (if it exists).
log_tail() {
    local file=$1 lines=${2:-40}
    if [[ -s "$file" ]]; then
        printf -- '----- last %s lines of %s -----\n' "$lines" "$file" >&2
        tail -n "$lines" -- "$file" >&2 || true
        printf -- '----- end of %s -----\n' "$file" >&2
    else
        printf -- '(%s is empty or missing)\n' "$file" >&2
    fi
}

# Absolute path of a (possibly not yet existing) directory.
abs_dir() {
    mkdir -p -- "$1" || die "cannot create directory $1"
    (cd -- "$1" && pwd)
}

# True if PID is a live process (a zombie counts as dead: our daemons may be
# reparented to a PID 1 that does not reap).
pid_alive() {
    local pid=$1 stat
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ "${stat:0:1}" != Z ]]
}

# Pid stored in FILE if that process is alive (prints it), else fail.
# With COMM, the process must also be named COMM (guards against a stale pid
# file whose pid now belongs to an unrelated process).
pidfile_alive() {
    local file=$1 comm=${2:-} pid
    [[ -s "$file" ]] || return 1
    pid=$(head -n1 -- "$file" 2>/dev/null) || return 1
    pid=${pid//[[:space:]]/}
    pid_alive "$pid" || return 1
    if [[ -n "$comm" && "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm" ]]; then
        return 1
    fi
    printf '%s\n' "$pid"
}

# First free port on 127.0.0.1 at or above $1.
free_port() {
    local port=$1 i
    for ((i = 0; i < 100; i++, port++)); do
        if ! port_in_use "$port"; then
            echo "$port"
            return 0
        fi
    done
    die "no free TCP port in $1..$((port - 1))"
}

# Wait up to SECONDS for PID to disappear.
wait_pid_gone() {
    local pid=$1 seconds=$2 i
    for ((i = 0; i < seconds * 10; i++)); do
        pid_alive "$pid" || return 0
        sleep 0.1
    done
    ! pid_alive "$pid"
}

# Send SIGNAL to PID, wait up to SECONDS, then SIGKILL. NAME is for messages.
# Our daemons are started with setsid, so each leads a process group with the
# same id; leftovers of that group (e.g. workers orphaned by a killed master)
# are killed afterwards. (A pgid is never reused while the group exists, so
# this cannot hit unrelated processes.)
stop_pid() {
    local name=$1 pid=$2 sig=$3 seconds=$4
    if pid_alive "$pid"; then
        log "stopping $name (pid $pid, SIG$sig)"
        kill "-$sig" "$pid" 2>/dev/null || true
        if ! wait_pid_gone "$pid" "$seconds"; then
            warn "$name (pid $pid) still running after ${seconds}s; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            wait_pid_gone "$pid" 5 || warn "$name (pid $pid) did not die"
        fi
    fi
    local i
    for ((i = 0; i < 20; i++)); do
        group_alive "$pid" || return 0
        sleep 0.1
    done
    warn "killing leftover processes of $name's process group $pid"
    kill -KILL -- "-$pid" 2>/dev/null || true
    return 0
}

# True if process group PGID has a live (non-zombie) member. Reads /proc
# directly (procps may be missing on minimal images).
group_alive() {
    local pgid=$1 f stat fields
    for f in /proc/[0-9]*/stat; do
        # Not $(<"$f"): in bash 5.2 a failing $(<file) ends a `set -e` shell
        # even on the left of ||, and processes vanish while we iterate.
        read -r stat 2>/dev/null <"$f" || continue
        # after "pid (comm) ": state ppid pgrp ...
        read -r -a fields <<<"${stat##*) }"
        [[ "${fields[2]}" == "$pgid" && "${fields[0]}" != Z ]] && return 0
    done
    return 1
}

# Run a command as root (directly, or through sudo).
as_root() {
    if [[ $EUID -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -- "$@"
    else
        die "need root to run: $* (not root and sudo is not installed); install the packages listed in scripts/lib/stack.sh by hand"
    fi
}

# True if something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Unix socket paths are limited to 108 bytes (sun_path), including the NUL.
check_socket_path() {
    local path=$1
    if ((${#path} > 100)); then
        die "socket path too long for a unix socket (${#path} > 100 bytes): $path; move the checkout to a shorter path"
    fi
}

# Random password: 48 hex characters (no quoting issues in SQL or INI files).
random_hex() {
    head -c 24 /dev/urandom | od -An -tx1 -v | tr -d ' \n'
}

# Does LeakSanitizer work here? (It needs ptrace-like access to the process,
# which some containers forbid: then it aborts with "LeakSanitizer has
# encountered a fatal error" instead of reporting leaks.) Builds a tiny
# leaking program in DIR with CC (default cc) and checks that a leak is
# actually reported.
lsan_works() {
    local dir=$1 cc=${2:-cc} out
    mkdir -p "$dir"
    printf '#include <stdlib.h>\nvoid *volatile p;\nint main(void) { p = malloc(33); p = 0; return 0; }\n' >"$dir/lsan-probe.c"
    if ! "$cc" -fsanitize=address -g -O0 "$dir/lsan-probe.c" -o "$dir/lsan-probe" 2>"$dir/lsan-probe.log"; then
        return 1
    fi
    out=$(ASAN_OPTIONS=detect_leaks=1 "$dir/lsan-probe" 2>&1 || true)
    grep -q 'ERROR: LeakSanitizer: detected memory leaks' <<<"$out"
}

# ---------------------------------------------------------------------------
# ensure_packages PACKAGE...: install (apt) whatever of the packages is missing
# (SUPPORTCRM_PACKAGES for a stack, SUPPORTCRM_FUZZ_PACKAGES in addition to
# SUPPORTCRM_BUILD_PACKAGES for the fuzz build).

ensure_packages() {
    local missing=() p installed
    (($#)) || die "ensure_packages: no packages given"
    # One dpkg-query for all (a second each, on a busy machine, adds up): the installed ones.
    # dpkg-query fails for a name dpkg has never seen (e.g. lintian on a fresh machine):
    # with pipefail that must not end the caller.
    installed=" $({ dpkg-query -W -f='${db:Status-Status} ${Package}\n' "$@" 2>/dev/null || true; } |
        sed -n 's/^installed //p' | tr '\n' ' ') "
    for p in "$@"; do
        [[ "$installed" == *" ${p%%:*} "* ]] || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then
        log "all required Debian packages are installed"
        return 0
    fi
    log "installing missing Debian packages: ${missing[*]}"
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install by hand: ${missing[*]}"
    if [[ $EUID -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
        die "missing packages and not root (no sudo either); as root run: apt-get install --no-install-recommends ${missing[*]}"
    fi

    # policy-rc.d guard: make invoke-rc.d refuse (exit 101) to start the system
    # mariadb/nginx services the packages ship; our stacks never use them.
    # Only our own guard is removed afterwards; an existing one is left alone.
    # (SUPPORTCRM_POLICY_RC only exists to test this code path.)
    local policy=${SUPPORTCRM_POLICY_RC:-/usr/sbin/policy-rc.d} own_policy=0 rc=0 old_exit_trap
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\n# temporary, written by supportcrm scripts/lib/stack.sh during apt-get install\nexit 101\n' |
            as_root tee "$policy" >/dev/null || die "cannot write $policy"
        as_root chmod 755 "$policy" || die "cannot chmod $policy"
        own_policy=1
        old_exit_trap=$(trap -p EXIT)
        # shellcheck disable=SC2064 # expand $policy now
        trap "as_root rm -f '$policy' || true" EXIT
    fi

    as_root env DEBIAN_FRONTEND=noninteractive apt-get update || rc=$?
    if ((rc == 0)); then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" || rc=$?
    fi

    if ((own_policy)); then
        as_root rm -f "$policy" || warn "could not remove $policy"
        if [[ -n "$old_exit_trap" ]]; then eval "$old_exit_trap"; else trap - EXIT; fi
    fi
    ((rc == 0)) || die "apt-get failed (exit $rc) installing: ${missing[*]}"
    log "packages installed"
}

# ---------------------------------------------------------------------------
# build BUILDDIR [cmake args...] [-- TARGET...]: configure BUILDDIR (a new one RelWithDebInfo
# unless the args say otherwise; one configured already keeps its build type and flags, e.g.
# scripts/test's build/, which has the package's: debian_build_args), then build the TARGETs, or every target when none is given. With
# ccache installed it is the compiler launcher (unless the environment names one already, or
# SUPPORTCRM_CCACHE=0): a rebuild of unchanged sources, e.g. a second build directory or a
# fresh checkout, then costs seconds.

build() {
    local dir=$1 args=() targets=() jobs
    shift
    while (($#)); do
        if [[ $1 == -- ]]; then
            shift
            targets=("$@")
            break
        fi
        args+=("$1")
        shift
    done
    # The launcher joins any configure, but never causes one by itself: a directory built
    # before ccache was installed (a fresh machine's devstack, then scripts/test installs it)
    # would otherwise be configured again and compiled anew from an empty cache.
    local launcher=()
    if use_ccache && [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]]; then
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
        ccache_env
    elif [[ "${SUPPORTCRM_CCACHE:-1}" == 0 ]]; then
        args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=) # asked for: off in this directory too
    fi
    jobs=$(nproc 2>/dev/null || echo 2)
    if [[ ! -f "$dir/CMakeCache.txt" ]]; then
        args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "${args[@]}")
        # Ninja keeps both cores busy across the targets of one build, where make's recursive
        # Makefiles build them one after another (the devstack's three: 2 min 27 s with Ninja
        # against 2 min 44 s with make, cold). A directory keeps the generator it was made with.
        if command -v ninja >/dev/null 2>&1; then
            args=(-G Ninja "${args[@]}")
        fi
    fi
    if configured_as "$dir" "${args[@]}"; then
        # cmake --build itself configures again when a CMakeLists.txt changed.
        log "$dir is configured so already"
    else
        log "configuring $dir"
        args+=("${launcher[@]}")
        log "+ cmake -S $SUPPORTCRM_REPO -B $dir ${args[*]}"
        cmake -S "$SUPPORTCRM_REPO" -B "$dir" "${args[@]}" >&2 ||
            die "cmake configure failed for $dir"
    fi
    if ((${#targets[@]})); then
        log "+ cmake --build $dir -j$jobs --target ${targets[*]}"
        cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >&2 || die "build failed in $dir"
    else
        log "+ cmake --build $dir -j$jobs"
        cmake --build "$dir" -j"$jobs" >&2 || die "build failed in $dir"
    fi
}

# children_cpu VAR: VAR = CPU seconds (user + system) of this shell's children that have ended
# (and been waited for) so far; scripts/test's steps report the difference. `times` must run
# in this very shell (a subshell counts only its own children): no $(...) around it.
children_cpu() {
    local f=$SUPPORTCRM_REPO/var/test-times.$BASHPID
    mkdir -p -- "$SUPPORTCRM_REPO/var"
    times >"$f"
    # line 2: the children's "1m2.345s 0m0.100s"
    printf -v "$1" '%s' "$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
        printf "%.0f\n", t }' "$f")"
    rm -f -- "$f"
}

# use_ccache: true if ccache is installed and not turned off (SUPPORTCRM_CCACHE=0).
use_ccache() {
    [[ "${SUPPORTCRM_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null 2>&1
}

# ccache_env: what makes ccache hit across build directories of one tree, exported for the
# compiles that follow. The normal build (build/) and the package's (build-deb/src/obj-*/)
# compile the same sources with the same flags (debian_build_args), one level below their own
# copy of the tree: with the tree's parent as base directory, ccache hashes the relative paths,
# which are the same; without hashing the working directory (-g would otherwise hash it); and
# without hashing -ffile-prefix-map=DIR=. (the Debian flags map each copy's own root to ".", so
# the option differs only in the root it names, and its effect, paths below the root, is the
# same). Left as they are when the environment sets them (e.g. /work/ccache.env).
ccache_env() {
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$SUPPORTCRM_REPO")}
    export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
    # The test programs' precompiled headers (CMakeLists.txt): ccache caches the header's
    # compile and the compiles that include it only with these (its manual, "Precompiled
    # headers"; the header is written during the build, hence the mtime/ctime ones).
    local s
    for s in pch_defines time_macros include_file_mtime include_file_ctime; do
        case ",${CCACHE_SLOPPINESS:-}," in
        *",$s,"*) ;;
        *) export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}$s" ;;
        esac
    done
    case " ${CCACHE_IGNOREOPTIONS:-} " in
    *" -ffile-prefix-map=* "*) ;;
    *) export CCACHE_IGNOREOPTIONS="${CCACHE_IGNOREOPTIONS:+$CCACHE_IGNOREOPTIONS }-ffile-prefix-map=*" ;;
    esac
}

# debian_build_args: the cmake arguments that make a build compile exactly as the package's
# (dh_auto_configure in debian/rules, run by scripts/package): build type None with the flags of
# dpkg-buildflags under debian/rules' DEB_BUILD_MAINT_OPTIONS (hardening=+all; CPPFLAGS appended
# to CXXFLAGS, as debhelper's cmake build system does), prefix /usr. scripts/test's normal build
# uses them, so the tests run what the package ships and the package's compile is a ccache hit
# of the normal build's. One argument per line.
debian_build_args() {
    local maint flags
    maint=$(sed -n 's/^export DEB_BUILD_MAINT_OPTIONS *= *//p' "$SUPPORTCRM_REPO/debian/rules")
    # dpkg-buildflags maps the directory it runs in (the tree's root) to "." (fixfilepath).
    flags=$(cd "$SUPPORTCRM_REPO" && export DEB_BUILD_MAINT_OPTIONS="$maint" &&
        echo "$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)") ||
        die "dpkg-buildflags failed (apt-get install dpkg-dev)"
    printf '%s\n' -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr "-DCMAKE_CXX_FLAGS=$flags" \
        "-DCMAKE_EXE_LINKER_FLAGS=$(cd "$SUPPORTCRM_REPO" && DEB_BUILD_MAINT_OPTIONS="$maint" dpkg-buildflags --get LDFLAGS)"
}

# configured_as BUILDDIR -DNAME=VALUE...: true if BUILDDIR's CMakeCache.txt already has every
# NAME=VALUE (a later -DNAME wins, as on cmake's command line), so configuring is redundant.
configured_as() {
    local cache=$1/CMakeCache.txt arg name
    shift
    [[ -f "$cache" ]] || return 1
    local -A wanted=()
    for arg in "$@"; do
        [[ "$arg" == -D*=* ]] || return 1
        arg=${arg#-D}
        name=${arg%%=*}
        wanted[${name%%:*}]=${arg#*=}
    done
    for name in "${!wanted[@]}"; do
        grep -qxF -- "$name:$(sed -n "s/^$name:\([A-Z]*\)=.*/\1/p" "$cache" | head -n1)=${wanted[$name]}" "$cache" ||
            return 1
    done
}

# ---------------------------------------------------------------------------
# MariaDB

# Run SQL as the (password-less, socket-only) root of a private MariaDB.
mariadb_root() {
    local dir=$1
    shift
    mariadb --no-defaults --socket="$dir/mysqld.sock" --user=root --batch "$@"
}

# start_mariadb STACKDIR: start (or reuse) the private server, then make sure
# database `supportcrm` and user 'supportcrm'@'localhost' exist.
start_mariadb() {
    local dir
    dir=$(abs_dir "$1") || exit 1
    chmod 700 "$dir" || die "cannot chmod $dir"
    local datadir=$dir/mysql sock=$dir/mysqld.sock pidf=$dir/mysqld.pid errlog=$dir/mysqld.err
    local user pid i
    user=$(id -un)
    check_socket_path "$sock"

    if pid=$(pidfile_alive "$pidf" mariadbd); then
        log "MariaDB already running (pid $pid), reusing it"
    else
        if [[ ! -d "$datadir/mysql" ]]; then
            log "initializing MariaDB data directory $datadir"
            rm -rf -- "$datadir"
            mkdir -p -- "$datadir" || die "cannot create $datadir"
            if ! mariadb-install-db --no-defaults --datadir="$datadir" --user="$user" \
                --auth-root-authentication-method=normal --skip-test-db \
                >"$dir/mysql-install.log" 2>&1; then
                log_tail "$dir/mysql-install.log"
                rm -rf -- "$datadir"
                die "mariadb-install-db failed"
            fi
        fi
        # A stale socket is removed by mariadbd itself (its mysqld.sock.lock
        # protects a server that is still running without a pid file).
        rm -f -- "$pidf"
        log "starting MariaDB (socket $sock)"
        # Dev/test stack only: innodb_flush_log_at_trx_commit=2 writes the redo
        # log at commit but fsyncs once a second - a crash of the OS could lose
        # the last second of commits, which is fine for throw-away data and makes
        # the tests much faster. Production keeps the default (1).
        (
            exec setsid mariadbd --no-defaults \
                --datadir="$datadir" \
                --socket="$sock" \
                --pid-file="$pidf" \
                --log-error="$errlog" \
                --skip-networking \
                --user="$user" \
                --innodb-buffer-pool-size=256M \
                --innodb-flush-log-at-trx-commit=2 \
                --character-set-server=utf8mb4 \
                --collation-server=utf8mb4_bin \
                </dev/null >>"$dir/mysqld.out" 2>&1
        ) &
        pid=$!
        # mariadbd writes the same pid here itself once it is up; writing it
        # now lets stop_stack find a server that is still starting.
        echo "$pid" >"$pidf"
        for ((i = 0; ; i++)); do
            if mariadb-admin --no-defaults --socket="$sock" --user=root \
                --connect-timeout=2 ping >/dev/null 2>&1; then
                break
            fi
            if ! pid_alive "$pid"; then
                log_tail "$errlog"
                log_tail "$dir/mysqld.out" 10
                die "MariaDB exited during startup (see $errlog)"
            fi
            if ((i >= SUPPORTCRM_MARIADB_START_TIMEOUT * 5)); then
                log_tail "$errlog"
                stop_pid MariaDB "$pid" TERM "$SUPPORTCRM_MARIADB_STOP_TIMEOUT"
                die "MariaDB did not answer on $sock within ${SUPPORTCRM_MARIADB_START_TIMEOUT}s (see $errlog)"
            fi
            sleep 0.2
        done
        log "MariaDB is up (pid $(cat "$pidf" 2>/dev/null || echo "$pid"))"
    fi

    # Database and application user (idempotent; the password file is the
    # source of truth and the account is re-synced to it every time).
    local pwfile=$dir/db-password password
    if [[ ! -s "$pwfile" ]]; then
        (umask 077 && { random_hex && echo; } >"$pwfile") || die "cannot write $pwfile"
    fi
    chmod 600 "$pwfile"
    password=$(head -n1 "$pwfile")
    [[ "$password" =~ ^[0-9a-f]+$ ]] || die "unexpected content in $pwfile (delete it to regenerate)"
    if ! mariadb_root "$dir" <<SQL >"$dir/mysql-setup.log" 2>&1; then
CREATE DATABASE IF NOT EXISTS supportcrm CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'supportcrm'@'localhost' IDENTIFIED BY '$password';
ALTER USER 'supportcrm'@'localhost' IDENTIFIED BY '$password';
GRANT ALL PRIVILEGES ON supportcrm.* TO 'supportcrm'@'localhost';
-- Scratch databases of the tests (an older schema a reload meets: tests/integration).
GRANT ALL PRIVILEGES ON \`supportcrm\\_scratch\\_%\`.* TO 'supportcrm'@'localhost';
SQL
        log_tail "$dir/mysql-setup.log"
        die "could not create database/user in the private MariaDB"
    fi
    log "database 'supportcrm' and user 'supportcrm'@'localhost' ready"
}

# stack_workers: the pool size of a stack, SUPPORTCRM_WORKERS or nproc, at least 2
# (concurrency is part of what the tests exercise), at most 8 (each worker holds a database
# connection).
stack_workers() {
    local workers=${SUPPORTCRM_WORKERS:-$(nproc 2>/dev/null || echo 2)}
    ((workers >= 2)) || workers=2
    ((workers <= 8)) || workers=8
    echo "$workers"
}

# stack_keepalive: the idle FastCGI connections the stack's nginx keeps open to the pool
# (upstream `keepalive`, docs/operations.md "nginx keep-alive"): SUPPORTCRM_FCGI_KEEPALIVE,
# 0 = off (a connection per request, the default, as the shipped site), e.g. the pool's
# workers to run a stack with it.
stack_keepalive() {
    local n=${SUPPORTCRM_FCGI_KEEPALIVE:-0}
    [[ "$n" =~ ^[0-9]+$ ]] || die "SUPPORTCRM_FCGI_KEEPALIVE must be a number (0 = off), not '$n'"
    echo "$n"
}

# keepalive_line N: an upstream's `keepalive N` line (nothing for 0), with nginx's idle timeout
# of a kept connection set explicitly: under the pool's own bound on a parked connection
# (300 s, fcgi/parking.h), so that nginx, never the pool, closes an idle one.
keepalive_line() {
    (($1 > 0)) || return 0
    printf '        keepalive %s;\n        keepalive_timeout 60s;' "$1"
}

# keep_conn_line N: `fastcgi_keep_conn on` at http level, where every location of the snippet
# inherits it (nothing for 0). It goes with `keepalive`: without a cache of idle connections
# nginx closes each one after its request anyway.
keep_conn_line() {
    (($1 > 0)) || return 0
    printf '    fastcgi_keep_conn on;'
}

# ---------------------------------------------------------------------------
# write_config STACKDIR: STACKDIR/supportcrm.conf for supportcrm-fcgi/-admin.

write_config() {
    local dir
    dir=$(abs_dir "$1") || exit 1
    local conf=$dir/supportcrm.conf workers
    workers=$(stack_workers)
    check_socket_path "$dir/supportcrm.sock"
    cat >"$conf.tmp" <<EOF || die "cannot write $conf"
# Generated by scripts/lib/stack.sh for the private stack in $dir.
# Rewritten on every start; do not edit (keys: docs/INTERFACES.md).
listen = $dir/supportcrm.sock
# 0666: the socket lives in a mode-700 directory, so only this user reaches it.
listen-mode = 0666
workers = $workers
shutdown-timeout = 10
# The slow log and the stuck-request kills (extensions.md §E6), short enough for the tests
# (tests/integration/pool_status_test.cpp) and far above any request of the suite.
slowlog-threshold = 1000
request-terminate-timeout = 6
# The exports' own, longer timer (tests/integration/pool_status_test.cpp holds one past 6 s).
stream-terminate-timeout = 15
db-socket = $dir/mysqld.sock
db-name = supportcrm
db-user = supportcrm
db-password-file = $dir/db-password
migrations-dir = $SUPPORTCRM_REPO/sql
log-level = ${SUPPORTCRM_LOG_LEVEL:-info}
# supportcrm-webhooks: receivers on 127.0.0.1 are allowed here (never in production), and
# retries come within a second and give up after ${SUPPORTCRM_WEBHOOK_RETRY_FOR:-8} s, so
# tests see them.
webhook-allow-private = true
webhook-poll-ms = 100
webhook-retry-first-ms = 300
webhook-retry-max-ms = 1000
webhook-retry-for = ${SUPPORTCRM_WEBHOOK_RETRY_FOR:-8}
# Files (extensions.md §E13): this stack's own directory and link secret; links start with
# SUPPORTCRM_PUBLIC_BASE_URL (devstack: its BASE_URL), else a name the tests replace.
files-dir = $dir/files
public-base-url = ${SUPPORTCRM_PUBLIC_BASE_URL:-http://files.supportcrm.test}
file-link-secret-file = $dir/file-link-secret
clamd-socket = ${SUPPORTCRM_CLAMD_SOCKET:-}
EOF
    mv -f -- "$conf.tmp" "$conf" || die "cannot write $conf"
    make_files_dir "$dir"
    log "wrote $conf"
}

# make_files_dir STACKDIR: STACKDIR/files (files-dir) and STACKDIR/file-link-secret, made once:
# a restart keeps both, so links and bytes stay valid.
make_files_dir() {
    local dir=$1
    mkdir -p -m 0750 -- "$dir/files" || die "cannot create $dir/files"
    if [[ ! -s "$dir/file-link-secret" ]]; then
        (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$dir/file-link-secret") ||
            die "cannot write $dir/file-link-secret"
    fi
}

# ---------------------------------------------------------------------------
# migrate STACKDIR BINDIR: apply sql/NNN_*.sql (idempotent). Output -> stderr.

migrate() {
    local dir=$1 bindir=$2
    local admin=$bindir/supportcrm-admin
    [[ -x "$admin" ]] || die "$admin not found (build first)"
    log "+ $admin --config $dir/supportcrm.conf migrate"
    "$admin" --config "$dir/supportcrm.conf" migrate >&2 || die "migrations failed"
}

# ---------------------------------------------------------------------------
# start_daemon NAME PIDFILE LOGFILE READY CMD...: start CMD as a daemon of a stack (its own
# session, so stop_pid can end its whole process group; stdin /dev/null, stdout and stderr
# appended to LOGFILE after a "=== <time> starting CMD" line), write its pid to PIDFILE, then
# wait until the shell command READY succeeds, polling every 0.1 s up to
# SUPPORTCRM_FCGI_START_TIMEOUT seconds. Dies with the log's tail when the daemon exits first
# or is not ready in time (it is stopped then). Prints nothing on stdout.

start_daemon() {
    local name=$1 pidf=$2 logf=$3 ready=$4 pid i
    shift 4
    log "starting $1 (log: $logf)"
    printf '=== %s starting %s\n' "$(date -u +%FT%TZ)" "$*" >>"$logf"
    (
        exec setsid "$@" </dev/null >>"$logf" 2>&1
    ) &
    pid=$!
    echo "$pid" >"$pidf"
    for ((i = 0; ; i++)); do
        eval "$ready" && break
        if ! pid_alive "$pid"; then
            rm -f -- "$pidf"
            log_tail "$logf"
            die "$name exited during startup (see $logf)"
        fi
        if ((i >= SUPPORTCRM_FCGI_START_TIMEOUT * 10)); then
            log_tail "$logf"
            stop_pid "$name" "$pid" TERM "$SUPPORTCRM_FCGI_STOP_TIMEOUT"
            rm -f -- "$pidf"
            die "$name was not ready within ${SUPPORTCRM_FCGI_START_TIMEOUT}s (waited for: $ready; see $logf)"
        fi
        sleep 0.1
    done
    log "$name is up (pid $pid)"
}

# ---------------------------------------------------------------------------
# supportcrm-fcgi

stop_fcgi() {
    local dir=$1 pid
    if pid=$(pidfile_alive "$dir/fcgi.pid" supportcrm-fcgi); then
        stop_pid supportcrm-fcgi "$pid" TERM "$SUPPORTCRM_FCGI_STOP_TIMEOUT"
    fi
    rm -f -- "$dir/fcgi.pid"
}

# start_fcgi STACKDIR BINDIR: (re)start the pool so the current binary runs.
# Waits until the master has created its listen socket.
start_fcgi() {
    local dir bindir=$2
    dir=$(abs_dir "$1") || exit 1
    local bin=$bindir/supportcrm-fcgi conf=$dir/supportcrm.conf sock=$dir/supportcrm.sock
    [[ -x "$bin" ]] || die "$bin not found (build first)"
    [[ -f "$conf" ]] || die "$conf missing (write_config first)"

    if pidfile_alive "$dir/fcgi.pid" supportcrm-fcgi >/dev/null; then
        log "supportcrm-fcgi already running; restarting it"
        stop_fcgi "$dir"
    fi
    rm -f -- "$sock"
    start_daemon supportcrm-fcgi "$dir/fcgi.pid" "$dir/fcgi.log" "[[ -S '$sock' ]]" \
        "$bin" --config "$conf"
}

# ---------------------------------------------------------------------------
# supportcrm-webhooks (the deliverer; /proc/PID/comm keeps 15 characters of its name)

WEBHOOKS_COMM=supportcrm-webh

stop_webhooks() {
    local dir=$1 pid
    if pid=$(pidfile_alive "$dir/webhooks.pid" "$WEBHOOKS_COMM"); then
        stop_pid supportcrm-webhooks "$pid" TERM "$SUPPORTCRM_FCGI_STOP_TIMEOUT"
    fi
    rm -f -- "$dir/webhooks.pid"
}

# start_webhooks STACKDIR BINDIR: (re)start the deliverer; waits until it has its database
# connection (a new "delivering" line in its log).
start_webhooks() {
    local dir bindir=$2
    dir=$(abs_dir "$1") || exit 1
    local bin=$bindir/supportcrm-webhooks conf=$dir/supportcrm.conf logf=$dir/webhooks.log lines
    [[ -x "$bin" ]] || die "$bin not found (build first)"
    [[ -f "$conf" ]] || die "$conf missing (write_config first)"
    stop_webhooks "$dir"
    lines=$(grep -c ' delivering: ' "$logf" 2>/dev/null || true)
    start_daemon supportcrm-webhooks "$dir/webhooks.pid" "$logf" \
        "((\$(grep -c ' delivering: ' '$logf' || true) > ${lines:-0}))" "$bin" --config "$conf"
}

# ---------------------------------------------------------------------------
# nginx

NGINX_BIN=${NGINX_BIN:-$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)}

# nginx command line for the stack in DIR (absolute), extra args appended.
nginx_cmd() {
    local dir=$1
    shift
    "$NGINX_BIN" -p "$dir/nginx/" -c "$dir/nginx/nginx.conf" -e "$dir/nginx-error.log" "$@"
}

# site_server PORT [DIRECTIVES]: a server {} on 127.0.0.1:PORT wired up exactly
# as nginx/site-example.conf wires its server (server-level error pages, the
# snippet, the JSON 404), with DIRECTIVES (e.g. a rate limit) added.
# tests/deploy/nginx_config_test.sh checks that every directive of the example
# site appears here. Its error log is STACKDIR/nginx-error.log ($dir of
# write_nginx_conf, the caller).
site_server() {
    local port=$1 directives=${2:-}
    cat <<EOF
    server {
        listen 127.0.0.1:$port;
        server_name localhost;
$directives
        # The example site's level: no request line (query string included) in the log.
        error_log $dir/nginx-error.log alert;
        error_page 400 = /.supportcrm/bad-request;
        error_page 414 = /.supportcrm/uri-too-long;
        error_page 494 = /.supportcrm/header-too-large;
        error_page 501 = /.supportcrm/not-implemented;
        error_page 505 = /.supportcrm/http-version-not-supported;
        error_page 405 = @supportcrm_method_not_allowed;
        error_page 413 = @supportcrm_body_too_large;
        error_page 429 = @supportcrm_rate_limited;

        # The same snippet a production site includes.
        include $SUPPORTCRM_NGINX_DIR/supportcrm.conf;
        # This stack's files-dir (write_config), after the snippet's package default.
        set \$supportcrm_files_dir $dir/files;
        # /status and /metrics, for 127.0.0.1 only (the shipped allow list).
        include $SUPPORTCRM_NGINX_DIR/supportcrm-status.conf;

        location / {
            set \$supportcrm_request_id \$request_id;
            if (\$http_x_request_id ~ "^[A-Za-z0-9._:-]{1,128}\$") {
                set \$supportcrm_request_id \$http_x_request_id;
            }
            add_header X-Request-Id \$supportcrm_request_id always;
            add_header X-Content-Type-Options nosniff always;
            default_type application/json;
            charset utf-8;
            charset_types application/json;
            return 404 '{"success":false,"code":"not_found","message":"Not found"}';
        }
    }
EOF
}

# The http-context part of the optional rate limits and a server using both on
# PORT (nothing when PORT is empty): per address (burst 10), then per key
# (burst 2), small bursts so that tests reach them quickly.
rate_limited_server() {
    local port=$1
    [[ -n "$port" ]] || return 0
    printf '    include %s;\n\n' "$SUPPORTCRM_NGINX_DIR/supportcrm-ratelimit.conf"
    site_server "$port" '        limit_req zone=supportcrm_per_address burst=10 nodelay;
        limit_req zone=supportcrm_per_key burst=2 nodelay;
        limit_req_status 429;'
}

# plain_server PORT: with keep-alive on (stack_keepalive), a third server on PORT (nothing when
# PORT is empty or keep-alive is off) like the first but with `fastcgi_keep_conn off`: a new
# FastCGI connection per request, as without keep-alive, to the same pool, so that a test
# compares the two in one run (tests/integration/keepalive_test.cpp).
plain_server() {
    local port=$1
    [[ -n "$port" ]] && (($(stack_keepalive) > 0)) || return 0
    site_server "$port" '        fastcgi_keep_conn off;'
}

# write_nginx_conf STACKDIR PORT [RATE_PORT [PLAIN_PORT]]: STACKDIR/nginx/nginx.conf (see
# start_nginx). Writes the file only; no nginx is started or checked.
write_nginx_conf() {
    local dir=$1 port=$2 rate_port=${3:-} plain_port=${4:-} conf=$1/nginx/nginx.conf
    make_nginx_prefix "$dir"
    cat >"$conf.tmp" <<EOF || die "cannot write $conf"
# Generated by scripts/lib/stack.sh for the private stack in $dir - do not edit.
$(nginx_conf_main "$dir")

http {
    # The access log of nginx/site-example.conf: no query strings.
    map \$request \$supportcrm_request_line {
        "~(?s)^(?<supportcrm_line_head>[^?]*)\\?.*?(?<supportcrm_line_tail> HTTP/[0-9.]+)?\$"
            \$supportcrm_line_head\$supportcrm_line_tail;
        default \$request;
    }
    log_format supportcrm '\$remote_addr [\$time_local] "\$supportcrm_request_line" \$status '
                          '\$body_bytes_sent \$request_time "\$http_user_agent" \$sent_http_x_request_id';
    access_log $dir/nginx-access.log supportcrm;

$(nginx_conf_http_common "$dir")
$(rate_limited_server "$rate_port")
$(plain_server "$plain_port")

$(site_server "$port")
}
EOF
    mv -f -- "$conf.tmp" "$conf" || die "cannot write $conf"
}

# make_nginx_prefix STACKDIR: STACKDIR/nginx/, the prefix of a stack's nginx, and its temp dirs.
make_nginx_prefix() {
    local prefix=$1/nginx
    mkdir -p -- "$prefix"/tmp/{body,fastcgi,proxy,scgi,uwsgi} "$prefix"/cache || die "cannot create $prefix"
}

# nginx_conf_main STACKDIR: the main context of a stack's nginx.conf (everything but http {}),
# all its files under STACKDIR.
nginx_conf_main() {
    local dir=$1 prefix=$1/nginx
    # Workers must reach STACKDIR/supportcrm.sock (mode-700 dir): run them as
    # the invoking user. As root nginx would otherwise drop to 'nobody'; as
    # non-root the directive is meaningless (and nginx warns), so omit it.
    if [[ $EUID -eq 0 ]]; then
        echo "user $(id -un) $(id -gn);"
    fi
    cat <<EOF
daemon on;
worker_processes 1;
pid $dir/nginx.pid;
lock_file $prefix/nginx.lock;
error_log $dir/nginx-error.log warn;

events {
    worker_connections 1024;
}
EOF
}

# nginx_conf_http_common STACKDIR: what every stack's http {} has: temp paths inside the
# prefix, the upstream of the stack's pool and the cache of its API description.
nginx_conf_http_common() {
    local dir=$1 prefix=$1/nginx keepalive
    keepalive=$(stack_keepalive) || exit 1
    cat <<EOF
    # Keep every temp path inside the private prefix (the compiled-in
    # defaults are under /var/lib/nginx).
    client_body_temp_path $prefix/tmp/body;
    fastcgi_temp_path $prefix/tmp/fastcgi;
    proxy_temp_path $prefix/tmp/proxy;
    scgi_temp_path $prefix/tmp/scgi;
    uwsgi_temp_path $prefix/tmp/uwsgi;

    default_type application/octet-stream;
    server_tokens off;
    keepalive_timeout 65s;

    upstream supportcrm_fcgi {
        server unix:$dir/supportcrm.sock;
$(keepalive_line "$keepalive")
    }
$(keep_conn_line "$keepalive")
    # The snippet's cache of /api/v1/openapi.json (nginx/site-example.conf).
    fastcgi_cache_path $prefix/cache/supportcrm levels=1 keys_zone=supportcrm_openapi:1m
                       max_size=16m inactive=1h use_temp_path=off;
EOF
}

# start_nginx STACKDIR PORT [RATE_PORT [PLAIN_PORT]]: generate STACKDIR/nginx/nginx.conf (a
# server on 127.0.0.1:PORT that includes nginx/supportcrm.conf, exactly as a
# production site does), then launch_nginx. With RATE_PORT, a second server there also has
# the optional per-key rate limit of nginx/supportcrm-ratelimit.conf switched on (with a small
# burst so tests reach it quickly).
start_nginx() {
    local dir port=$2 rate_port=${3:-} plain_port=${4:-}
    dir=$(abs_dir "$1") || exit 1
    if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
        die "invalid port '$port'"
    fi
    local snippet=$SUPPORTCRM_NGINX_DIR/supportcrm.conf
    [[ -f "$snippet" ]] || die "$snippet missing"
    check_socket_path "$dir/supportcrm.sock"
    write_nginx_conf "$dir" "$port" "$rate_port" "$plain_port"
    # A private stack's pool is usually a fresh build: its cached API description (up to
    # max-age=300 old) must not outlive the binary that served it.
    rm -rf -- "$dir/nginx/cache/supportcrm"
    launch_nginx "$dir" "$port"
}

# launch_nginx STACKDIR PORT [CODE]: check STACKDIR/nginx/nginx.conf (written by
# write_nginx_conf, or bench/run's own), start nginx with it (or reload the one running on
# PORT), record PORT in STACKDIR/nginx.port and wait until GET /healthz on PORT answers (with
# HTTP status CODE when given, any status otherwise).
launch_nginx() {
    local dir=$1 port=$2 want=${3:-} pidf=$1/nginx.pid pid i code
    [[ -x "$NGINX_BIN" ]] || die "nginx not found (install nginx-light)"
    if ! nginx_cmd "$dir" -t -q >"$dir/nginx-test.log" 2>&1; then
        cat "$dir/nginx-test.log" >&2
        die "nginx configuration test failed for $dir/nginx/nginx.conf"
    fi

    if pid=$(pidfile_alive "$pidf" nginx); then
        if [[ "$(cat "$dir/nginx.port" 2>/dev/null)" == "$port" ]]; then
            log "nginx already running (pid $pid); reloading its configuration"
            nginx_cmd "$dir" -s reload >>"$dir/nginx-error.log" 2>&1 || die "nginx reload failed"
        else
            log "nginx running on another port; restarting it"
            stop_nginx "$dir"
            pid=""
        fi
    else
        pid=""
    fi
    if [[ -z "$pid" ]]; then
        if port_in_use "$port"; then
            die "port 127.0.0.1:$port is already in use by another program"
        fi
        log "starting nginx on 127.0.0.1:$port"
        if ! nginx_cmd "$dir" </dev/null >>"$dir/nginx-error.log" 2>&1; then
            log_tail "$dir/nginx-error.log"
            die "nginx failed to start"
        fi
    fi
    echo "$port" >"$dir/nginx.port"

    for ((i = 0; ; i++)); do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/healthz" 2>/dev/null || true)
        if [[ -n "$want" ]]; then
            [[ "$code" == "$want" ]] && break
        else
            [[ -n "$code" && "$code" != 000 ]] && break
        fi
        if ((i >= SUPPORTCRM_NGINX_START_TIMEOUT * 5)); then
            log_tail "$dir/nginx-error.log"
            die "nginx did not answer${want:+ $want} on http://127.0.0.1:$port/healthz within ${SUPPORTCRM_NGINX_START_TIMEOUT}s (last: ${code:-none})"
        fi
        sleep 0.2
    done
    log "nginx is up: http://127.0.0.1:$port (GET /healthz -> $code)"
}

stop_nginx() {
    local dir=$1 pid
    if pid=$(pidfile_alive "$dir/nginx.pid" nginx); then
        # QUIT: graceful (finish in-flight requests), then TERM/KILL if stuck.
        stop_pid nginx "$pid" QUIT 10
    fi
    rm -f -- "$dir/nginx.pid" "$dir/nginx.port"
}

# ---------------------------------------------------------------------------
# MariaDB stop, whole-stack stop

stop_mariadb() {
    local dir=$1 pid
    if pid=$(pidfile_alive "$dir/mysqld.pid" mariadbd); then
        stop_pid MariaDB "$pid" TERM "$SUPPORTCRM_MARIADB_STOP_TIMEOUT"
    fi
}

# stop_stack STACKDIR: nginx, the deliverer, the pool, then MariaDB. Never fails.
stop_stack() {
    local dir=$1
    [[ -d "$dir" ]] || return 0
    stop_nginx "$dir" || true
    stop_webhooks "$dir" || true
    stop_fcgi "$dir" || true
    stop_mariadb "$dir" || true
    return 0
}

# stack_status STACKDIR: one line per component; returns 1 if any is down.
stack_status() {
    local dir=$1 rc=0 pid name file comm
    for name in mariadb supportcrm-fcgi supportcrm-webhooks nginx; do
        case $name in
        mariadb) file=$dir/mysqld.pid comm=mariadbd ;;
        supportcrm-fcgi) file=$dir/fcgi.pid comm=supportcrm-fcgi ;;
        supportcrm-webhooks) file=$dir/webhooks.pid comm=$WEBHOOKS_COMM ;;
        nginx) file=$dir/nginx.pid comm=nginx ;;
        esac
        if pid=$(pidfile_alive "$file" "$comm"); then
            printf '%-16s running (pid %s)\n' "$name" "$pid"
        else
            printf '%-16s stopped\n' "$name"
            rc=1
        fi
    done
    return "$rc"
}
