#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Installs what building and testing bloom needs, from Debian's packages, on a
# machine that lacks it. Usage: tools/deps.sh [check|bench|debug|dkms|clients|deb]
#
# check: compiler, kernel image and headers for the test VM, QEMU, busybox,
#        libsodium (the userspace SipHash), libxxhash (the snapshot checksum,
#        xxh64, as the kernel's), the kernel source tarball (it holds
#        the kselftest harness and checkpatch.pl), clang with its runtime
#        (libclang_rt.fuzzer: libFuzzer for tools/fuzz), clang-15 (BPF
#        programs that keep referenced pointers in maps: bloom-xdp's holds
#        of its filters; clang 14 drops the type tag), sparse (make lint),
#        iptables and libxtables-dev (libxt_bloom.so and its tests), iproute2
#        and ping (the network tests), dwarves (pahole), libelf-dev and
#        zlib1g-dev (module BTF: tools/btf.sh, which this script runs to
#        build resolve_btfids once), bpftool and libbpf-dev (bloom-xdp and
#        the BPF tests), libxdp-dev and xdp-tools (bloom-xdp attaches
#        through libxdp's dispatcher; its tests run xdp-filter and
#        xdp-loader beside it), tor-geoipdb (the country ranges the feed
#        tests read as Debian ships them)
# bench: the above plus the peers and plotting the benchmarks use (ipset:
#        the firewall benchmark's exact-set peer), and the clients part's
#        programs: those of "clients" below, crowdsec-firewall-bouncer and
#        nftables (the backends the ban tools' users run); their services
#        are not started (policy-rc.d), and crowdsec-firewall-bouncer's
#        unit, which its package enables, is disabled: the part runs it,
#        and at a boot it would put its rules in this machine's firewall
# debug: the above (check) plus what building a kernel from linux-source-6.1
#        needs, for make check-debug (selftests/debug-kernel/)
# dkms:  the above (check) plus dkms, for make check-install
# clients: the above (check) plus the programs that ban addresses and the
#        backends bloom ships for them (selftests/net/test_clients.sh):
#        fail2ban, crowdsec with crowdsec-custom-bouncer, sshguard; their
#        services are not started (policy-rc.d), the tests run them
# deb:   the above (check) plus what "make deb" builds and checks the Debian
#        packages with (debhelper, dh-dkms, lintian), what installing them
#        needs (dkms), and what selftests/deb/ runs against them
#        (prometheus-node-exporter, prometheus for promtool); their services
#        are not started (policy-rc.d)
set -e

pkgs="build-essential pkg-config libsodium-dev libxxhash-dev linux-image-amd64 \
linux-headers-amd64 linux-source-6.1 qemu-system-x86 busybox-static cpio \
kmod xz-utils python3 clang libclang-rt-14-dev clang-15 sparse \
iptables libxtables-dev iproute2 iputils-ping dwarves libelf-dev zlib1g-dev \
bpftool libbpf-dev libxdp-dev xdp-tools tor-geoipdb"
if [ "$1" = bench ]; then
	pkgs="$pkgs gnuplot-nox golang-github-dcso-bloom-cli ipset nftables \
fail2ban crowdsec crowdsec-custom-bouncer sshguard crowdsec-firewall-bouncer"
fi
if [ "$1" = dkms ]; then
	pkgs="$pkgs dkms"
fi
if [ "$1" = clients ]; then
	pkgs="$pkgs fail2ban crowdsec crowdsec-custom-bouncer sshguard"
fi
if [ "$1" = deb ]; then
	pkgs="$pkgs debhelper dh-dkms dkms lintian prometheus-node-exporter prometheus"
fi
if [ "$1" = debug ]; then
	pkgs="$pkgs bc bison flex libssl-dev"
fi

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	"$(dirname "$0")/btf.sh" resolve-btfids || true
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "bloom needs these Debian packages:$missing" >&2
	echo "install them as root (apt-get install$missing) and run make again" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# the clients' and exporters' daemons are for the tests to start, not for
# this machine
if { [ "$1" = clients ] || [ "$1" = bench ] || [ "$1" = deb ]; } &&
	[ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
# crowdsec's postinst registers with its Central API over the network
# unless this file exists and is not empty (Debian's way to opt out)
if { [ "$1" = clients ] || [ "$1" = bench ]; } &&
	[ ! -s /etc/crowdsec/online_api_credentials.yaml ]; then
	mkdir -p /etc/crowdsec
	echo "# no Central API: registration skipped by bloom's tools/deps.sh" \
		>/etc/crowdsec/online_api_credentials.yaml
fi
apt-get update -qq
# crowdsec-firewall-bouncer's postinst registers it with the local API
# (cscli bouncers add, once), which needs crowdsec configured first: it
# goes in a second step. It also enables its unit: disabled again, only
# when this run installed it (an admin's choice stays).
later=
case " $missing " in
*" crowdsec-firewall-bouncer "*)
	later=crowdsec-firewall-bouncer
	missing=$(echo " $missing " | sed 's/ crowdsec-firewall-bouncer / /')
	;;
esac
# shellcheck disable=SC2086
[ -z "$(echo $missing)" ] || apt-get install -y -qq --no-install-recommends $missing >/dev/null
if [ -n "$later" ]; then
	apt-get install -y -qq --no-install-recommends $later >/dev/null
	if command -v systemctl >/dev/null; then
		systemctl disable --now crowdsec-firewall-bouncer.service >/dev/null 2>&1 || true
	fi
fi
"$(dirname "$0")/btf.sh" resolve-btfids || true
