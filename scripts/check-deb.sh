#!/usr/bin/env bash
# Checks the installation (issue 28, item 9) from one release build:
#   1. `make install` with another PREFIX below a DESTDIR: the file list, and the units' paths rewritten;
#   2. the Debian package scripts/build-deb.sh makes, unpacked into a scratch root with `dpkg -x`: the file list,
#      the control fields (Depends, conffiles), man pages, completions, units, binaries that run from there
#      without a Swift toolchain's libraries, and the postinst enabling both units (run against stand-ins for
#      deb-systemd-helper and systemctl that only record their arguments).
#
#   scripts/check-deb.sh [PACKAGE.deb]      without an argument, builds the package first
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "check-deb: $*" >&2; failures=$((failures + 1)); }

# The files a prefix gets, relative to it (etc/ where the prefix keeps its configuration).
expect_files() { # prefix unitdir zshdir etcdir mansuffix
    local p=$1 units=$2 zsh=$3 etc=$4 gz=$5
    printf '%s\n' "$etc/default/almanacd" "$units/almanacd.service" "$units/almanacd.socket" \
        "$p/bin/almanac" "$p/bin/almanacd" \
        "$p/share/bash-completion/completions/almanac" "$p/share/bash-completion/completions/almanacd" \
        "$p/share/fish/vendor_completions.d/almanac.fish" "$p/share/fish/vendor_completions.d/almanacd.fish" \
        "$p/share/man/man1/almanac.1$gz" "$p/share/man/man8/almanacd.8$gz" \
        "$zsh/_almanac" "$zsh/_almanacd"
}

# 1. make install PREFIX=/opt/almanac DESTDIR=...
make install PREFIX=/opt/almanac DESTDIR="$scratch/make" >"$scratch/make.log" 2>&1 \
    || { cat "$scratch/make.log" >&2; fail "make install failed"; exit 1; }
expected=$(expect_files /opt/almanac /opt/almanac/lib/systemd/system /opt/almanac/share/zsh/site-functions \
    /opt/almanac/etc "" | sort)
actual=$(cd "$scratch/make" && find . -type f | sed 's|^\.||' | sort)
[ "$actual" = "$expected" ] || fail "make install put other files: $(diff <(echo "$expected") <(echo "$actual"))"
service="$scratch/make/opt/almanac/lib/systemd/system/almanacd.service"
grep -q '^ExecStart=/opt/almanac/bin/almanacd ' "$service" || fail "ExecStart not rewritten to the prefix"
grep -q '^EnvironmentFile=-/opt/almanac/etc/default/almanacd$' "$service" || fail "EnvironmentFile not rewritten"
! grep -rq /usr/local "$scratch/make/opt/almanac/lib/systemd/system" || fail "a unit still names /usr/local"

# 2. The package.
deb=${1:-$(scripts/build-deb.sh --output "$scratch/out")}
root="$scratch/root"
dpkg -x "$deb" "$root"
dpkg-deb -e "$deb" "$scratch/control"
expected=$(expect_files /usr /lib/systemd/system /usr/share/zsh/vendor-completions /etc .gz; \
    echo /usr/share/doc/almanac/README.md)
actual=$(cd "$root" && find . -type f | sed 's|^\.||' | sort)
[ "$actual" = "$(echo "$expected" | sort)" ] \
    || fail "the package holds other files: $(diff <(echo "$expected" | sort) <(echo "$actual"))"
[ "$(cat "$scratch/control/conffiles")" = /etc/default/almanacd ] || fail "conffiles: $(cat "$scratch/control/conffiles")"
depends=$(dpkg-deb -f "$deb" Depends)
for package in libc6 libxml2 libsqlite3-0; do
    [[ ", $depends," == *", $package,"* ]] || fail "Depends lacks $package: $depends"
done
grep -q '^ExecStart=/usr/bin/almanacd --watch /var/lib/almanac/inbox \$ALMANACD_OPTIONS$' \
    "$root/lib/systemd/system/almanacd.service" || fail "the packaged ExecStart is not /usr/bin/almanacd"
grep -q '^DynamicUser=yes$' "$root/lib/systemd/system/almanacd.service" || fail "no DynamicUser"
man1=$(zcat "$root/usr/share/man/man1/almanac.1.gz")
man8=$(zcat "$root/usr/share/man/man8/almanacd.8.gz")
grep -q '^\.Dt ALMANAC 1$' <<<"$man1" || fail "almanac(1) is not a section 1 page"
grep -q '^\.Dt ALMANACD 8$' <<<"$man8" || fail "almanacd(8) is not a section 8 page"
grep -q 'export html' <<<"$man1" || fail "almanac(1) does not document export html"
grep -q -- '-F _almanac almanac$' "$root/usr/share/bash-completion/completions/almanac" || fail "no bash completion"
grep -q '^#compdef almanac$' "$root/usr/share/zsh/vendor-completions/_almanac" || fail "no zsh completion"
grep -q "^complete -c 'almanac'" "$root/usr/share/fish/vendor_completions.d/almanac.fish" || fail "no fish completion"

# The binaries run from the scratch root, and need no Swift runtime library.
version=$(dpkg-deb -f "$deb" Version)
[ "$("$root/usr/bin/almanac" --version)" = "$version" ] || fail "almanac --version is not $version"
"$root/usr/bin/almanacd" --help >/dev/null || fail "almanacd --help failed"
if ldd "$root/usr/bin/almanac" "$root/usr/bin/almanacd" | grep -q 'libswift\|libFoundation'; then
    fail "the binaries need the Swift runtime: $(ldd "$root/usr/bin/almanacd" | grep -E 'swift|Foundation')"
fi

# The units pass systemd-analyze verify (ExecStart pointed at the unpacked binary), when it is installed.
if command -v systemd-analyze >/dev/null 2>&1; then
    mkdir -p "$scratch/units"
    for unit in almanacd.service almanacd.socket; do
        sed "s|/usr/bin/almanacd|$root/usr/bin/almanacd|" "$root/lib/systemd/system/$unit" >"$scratch/units/$unit"
    done
    said=$(systemd-analyze verify "$scratch/units/almanacd.service" "$scratch/units/almanacd.socket" 2>&1 || true)
    [ -z "$said" ] || fail "systemd-analyze verify: $said"
fi

# postinst on a first install enables both units through deb-systemd-helper (stand-ins record the calls).
mkdir -p "$scratch/bin"
for tool in deb-systemd-helper deb-systemd-invoke systemctl; do
    printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$scratch/calls" >"$scratch/bin/$tool"
    chmod 755 "$scratch/bin/$tool"
done
PATH="$scratch/bin:/usr/bin:/bin" sh "$scratch/control/postinst" configure "" || fail "postinst configure failed"
for unit in almanacd.socket almanacd.service; do
    grep -qx "deb-systemd-helper enable $unit" "$scratch/calls" || fail "postinst did not enable $unit"
done
PATH="$scratch/bin:/usr/bin:/bin" sh "$scratch/control/prerm" remove || fail "prerm remove failed"
PATH="$scratch/bin:/usr/bin:/bin" sh -n "$scratch/control/postrm" || fail "postrm does not parse"

if [ "$failures" -gt 0 ]; then
    echo "check-deb: $failures failure(s)" >&2
    exit 1
fi
echo "check-deb: $deb ($(du -k "$deb" | cut -f1) KB, $(echo "$actual" | wc -l) files) and make install are as expected"
