#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/run.sh [options] -- CMD [ARGS...]
#
# Runs CMD as root inside a throw-away QEMU (TCG) VM that boots the Debian
# kernel bloom.ko is built for, sees the host's whole file system (read-only
# 9p plus a tmpfs overlay) and has bloom.ko loaded. CMD's stdout and stderr
# come out on run.sh's stdout and stderr; run.sh exits with CMD's status, or
# with one of its own codes below. See selftests/vm/README.
#
# The job part at the end uses variables that run.sh writes in front of it:
# shellcheck disable=SC2154,SC2163
set -euo pipefail

usage() {
	cat <<'EOF'
usage: selftests/vm/run.sh [options] -- CMD [ARGS...]

Runs CMD as root in a QEMU VM (TCG) with bloom.ko loaded, in the host's
current directory, with the host's file system visible (read-only, writes go
to a tmpfs overlay; /tmp and /run are fresh tmpfs, except that a current
directory, checkout or build directory under them is shared at its path).
Exits with CMD's status.

options:
  --kernel IMAGE  boot IMAGE (a vmlinux with a PVH entry, or a bzImage)
                  instead of Debian's /boot/vmlinuz-$KVER; its virtio-pci, 9p
                  and overlayfs must be built in (=y) unless /lib/modules/
                  <its release> has them. KVER is its release.
  --append ARGS   add ARGS to the kernel command line
  --module PATH   module to insmod before CMD (default: bloom.ko at the repo root)
  --no-module     do not load any module
  --rmmod         rmmod the module after CMD; the run fails if that fails
  --dmesg         print the guest's dmesg (to stderr) after CMD
  --firewall      get the iptables match ready for CMD: the netfilter
                  modules, then xt_bloom.ko of this tree, and XTABLES_LIBDIR
                  with build/xt first, so iptables -m bloom works (make vm)
  --smp N         virtual CPUs (default 2)
  --mem SIZE      guest memory, QEMU syntax (default 2G)
  --timeout SECS  kill the VM after SECS seconds (default 600)
  --env NAME=VAL  set an environment variable for CMD (repeatable)
  -h, --help      this text

environment: KVER (kernel release to boot, default tools/kver.sh),
  BUILD (build directory, default <repo>/build; the VM's files go to $BUILD/vm)

exit status: CMD's status, or
  121 the module could not be loaded     122 --rmmod failed
  123 kernel warnings in dmesg after CMD 124 timeout
  125 the VM crashed, panicked or never reported (console tail is printed)
EOF
}

die() {
	echo "run.sh: $*" >&2
	exit 125
}

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)
BUILD=${BUILD:-$REPO/build}
VMDIR=$BUILD/vm

module=$REPO/bloom.ko
load_module=1
rmmod=0
show_dmesg=0
firewall=0
smp=2
mem=2G
timeout_s=600
extra_env=()
custom_kernel=
extra_append=

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || die "--kernel needs an image"; custom_kernel=$2; shift 2 ;;
	--kernel=*) custom_kernel=${1#*=}; shift ;;
	--append) [ $# -ge 2 ] || die "--append needs arguments"; extra_append+=" $2"; shift 2 ;;
	--append=*) extra_append+=" ${1#*=}"; shift ;;
	--module) [ $# -ge 2 ] || die "--module needs a path"; module=$2; shift 2 ;;
	--module=*) module=${1#*=}; shift ;;
	--no-module) load_module=0; shift ;;
	--rmmod) rmmod=1; shift ;;
	--dmesg) show_dmesg=1; shift ;;
	--firewall) firewall=1; shift ;;
	--smp) [ $# -ge 2 ] || die "--smp needs a number"; smp=$2; shift 2 ;;
	--smp=*) smp=${1#*=}; shift ;;
	--mem) [ $# -ge 2 ] || die "--mem needs a size"; mem=$2; shift 2 ;;
	--mem=*) mem=${1#*=}; shift ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout_s=$2; shift 2 ;;
	--timeout=*) timeout_s=${1#*=}; shift ;;
	--env) [ $# -ge 2 ] || die "--env needs NAME=VALUE"; extra_env+=("$2"); shift 2 ;;
	--env=*) extra_env+=("${1#*=}"); shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (the command goes after --; see --help)" ;;
	esac
done
[ $# -gt 0 ] || die "no command given: run.sh [options] -- CMD [ARGS...] (see --help)"
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "--smp wants a positive number, not '$smp'"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, not '$timeout_s'"
for e in "${extra_env[@]+"${extra_env[@]}"}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants NAME=VALUE, not '$e'"
done
[ $rmmod = 0 ] || [ $load_module = 1 ] || die "--rmmod makes no sense with --no-module"
xtmod=$REPO/xt_bloom.ko
if [ $firewall = 1 ]; then
	[ $load_module = 1 ] || die "--firewall needs bloom.ko: xt_bloom.ko depends on it"
	[ -e "$xtmod" ] && [ -e "$BUILD/xt/libxt_bloom.so" ] ||
		die "--firewall: $xtmod or $BUILD/xt/libxt_bloom.so missing: run make"
	xtlibdir=$(pkg-config --variable=xtlibdir xtables 2>/dev/null)
	extra_env+=("XTABLES_LIBDIR=$BUILD/xt:${xtlibdir:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/xtables}")
fi

# --- what to boot ----------------------------------------------------------
image_release() { # the release string in a vmlinux or a bzImage, or nothing
	local f=$1 off
	if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		LC_ALL=C grep -aom1 'Linux version [^ ]*' "$f" | sed 's/^Linux version //'
	else # bzImage: the header's kernel_version field points at the string
		off=$(od -An -tu2 -j $((0x20e)) -N 2 "$f" | tr -d ' ')
		[ -n "$off" ] && [ "$off" -gt 0 ] &&
			dd if="$f" bs=1 skip=$((off + 0x200)) count=128 status=none |
			LC_ALL=C tr '\0' '\n' | head -n 1 | cut -d' ' -f1
	fi
}
if [ -n "$custom_kernel" ]; then
	kernel=$(readlink -f -- "$custom_kernel" 2>/dev/null || true)
	[ -r "$kernel" ] && [ -f "$kernel" ] || die "no kernel image $custom_kernel"
	# the image's own release, whatever KVER the environment says (make
	# check exports Debian's)
	KVER=$(image_release "$kernel" || true)
	KVER=${KVER:-custom}
	moddir=/lib/modules/$KVER
else
	KVER=${KVER:-$("$REPO/tools/kver.sh")}
	[ -n "$KVER" ] || die "no kernel with a build tree found: run tools/deps.sh (as root)"
	kernel=/boot/vmlinuz-$KVER
	moddir=/lib/modules/$KVER
	[ -r "$kernel" ] || die "no kernel image $kernel: run tools/deps.sh (it installs linux-image-amd64), or set KVER"
	[ -d "$moddir/kernel" ] || die "no modules in $moddir: install linux-image-$KVER (tools/deps.sh)"
fi
for t in qemu-system-x86_64 busybox cpio modinfo timeout; do
	command -v $t >/dev/null || die "$t not found: run tools/deps.sh (as root)"
done
busybox=$(command -v busybox)
ldd "$busybox" >/dev/null 2>&1 &&
	die "$busybox is dynamically linked: install busybox-static (tools/deps.sh)"

if [ $load_module = 1 ]; then
	module=$(readlink -f -- "$module" 2>/dev/null || true)
	[ -f "$module" ] || {
		if [ "$module" = "$REPO/bloom.ko" ] || [ -z "$module" ]; then
			die "no module ${module:-given}: build it first ('make' at the repo root), or pass --no-module"
		fi
		die "no module file $module"
	}
	modname=$(modinfo -F name "$module" 2>/dev/null || true)
	[ -n "$modname" ] || { modname=$(basename "$module"); modname=${modname%%.ko*}; modname=${modname//-/_}; }
fi

cwd=$(pwd -P)
case $cwd/ in
/proc/*|/sys/*|/dev/*)
	case $cwd/ in
	/dev/shm/*) ;;
	*) die "the current directory $cwd cannot be reached in the guest (its /proc, /sys and /dev are its own): run from elsewhere" ;;
	esac ;;
esac

# The guest mounts fresh tmpfs on /tmp, /run and /dev/shm, which hides the
# host's. A checkout, a build directory or a current directory under one of
# them is shared with the guest as a 9p mount of its own, mounted (read-only,
# with a tmpfs overlay like the root) at the same path over the guest's tmpfs.
# Nested paths share their outermost directory once.
shares=()
for d in "$cwd" "$REPO" "$(mkdir -p "$BUILD" && cd "$BUILD" && pwd -P)"; do
	case $d/ in
	/tmp/?*|/run/?*|/dev/shm/?*) ;;
	*) continue ;;
	esac
	[[ $d != *$'\n'* ]] || die "cannot share $d with the guest: its name holds a newline"
	keep=()
	covered=0
	for s in "${shares[@]+"${shares[@]}"}"; do
		if [[ $d/ == "$s"/* ]]; then
			covered=1
			keep+=("$s")
		elif [[ $s/ != "$d"/* ]]; then
			keep+=("$s")
		fi
	done
	[ $covered = 1 ] || keep+=("$d")
	shares=("${keep[@]}")
done

mkdir -p "$VMDIR"

# --- the initramfs: busybox, the kernel's virtio/9p/overlay modules, init ---
# Cached in $VMDIR; rebuilt when this script, busybox, KVER or a module changes.
# A --kernel without a /lib/modules directory has them built in: no modules.
want_mods="virtio_pci 9pnet_virtio 9p overlay"
[ -z "$custom_kernel" ] || [ -d "$moddir" ] || want_mods=
declare -A seen=()
order=()
add_mod() { # depth-first: dependencies first
	local m=$1 d deps
	m=${m//-/_}
	[ -z "${seen[$m]:-}" ] || return 0
	seen[$m]=1
	deps=$(modinfo -k "$KVER" -F depends "$m" 2>/dev/null) ||
		die "kernel module $m not found for $KVER: reinstall linux-image-$KVER"
	for d in ${deps//,/ }; do add_mod "$d"; done
	# built-in modules have no file and need no loading
	[ -n "$(modinfo -k "$KVER" -F filename "$m" 2>/dev/null | grep -v '^(builtin)$')" ] && order+=("$m")
	return 0
}
for m in $want_mods; do add_mod "$m"; done

modfiles=()
for m in "${order[@]+"${order[@]}"}"; do modfiles+=("$(modinfo -k "$KVER" -F filename "$m")"); done
key=$( {
	echo "$KVER ${order[*]+"${order[*]}"}"
	sha256sum "$SELF"
	stat -L -c '%n %s %Y' "$busybox" "${modfiles[@]+"${modfiles[@]}"}"
} | sha256sum | cut -d' ' -f1)
initramfs=$VMDIR/initramfs-$KVER.cpio

build_initramfs() {
	local stage=$VMDIR/stage.$$ i f
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,dev,proc,sys,lower,ovl,newroot,modules}
	cp "$busybox" "$stage/bin/busybox"
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
	for i in "${!order[@]}"; do
		f=${modfiles[$i]}
		case $f in
		*.ko) cp "$f" "$stage/modules/${order[$i]}.ko" ;;
		*.ko.xz) xz -dc "$f" >"$stage/modules/${order[$i]}.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$stage/modules/${order[$i]}.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$stage/modules/${order[$i]}.ko" ;;
		*) die "unexpected module file $f" ;;
		esac
	done
	echo "${order[*]+"${order[*]}"}" >"$stage/modules/order"
	sed -n '/^#@INIT-BEGIN$/,/^#@INIT-END$/{//!p}' "$SELF" >"$stage/init"
	chmod 755 "$stage/init"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) >"$initramfs.tmp.$$"
	mv -f "$initramfs.tmp.$$" "$initramfs"
	echo "$key" >"$initramfs.key"
	rm -rf "$stage"
}
if [ ! -f "$initramfs" ] || [ "$(cat "$initramfs.key" 2>/dev/null)" != "$key" ]; then
	build_initramfs
fi

# --- the kernel: booted as an uncompressed ELF through its PVH entry when it
# has one (skips the BIOS boot path and the in-guest decompression under TCG,
# about 4 s); else the bzImage as it is.
boot_kernel=$kernel
vmlinux=$VMDIR/vmlinux-$KVER
if [ -n "$custom_kernel" ]; then
	: # booted as given: a vmlinux (ELF) through its PVH note, else a bzImage
elif [ ! -s "$vmlinux" ] || [ "$vmlinux" -ot "$kernel" ]; then
	rm -f "$vmlinux"
	"$REPO/tools/vmlinux.sh" "$kernel" "$vmlinux.tmp.$$" || true
	if [ -s "$vmlinux.tmp.$$" ] &&
		LC_ALL=C readelf -n "$vmlinux.tmp.$$" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
		mv -f "$vmlinux.tmp.$$" "$vmlinux"
	else # remember that this kernel boots as it is
		rm -f "$vmlinux.tmp.$$"
		: >"$vmlinux"
		touch -r "$kernel" "$vmlinux"
	fi
fi
[ -n "$custom_kernel" ] || [ ! -s "$vmlinux" ] || boot_kernel=$vmlinux

# --- this run: the job script and the module, appended as a second cpio ----
run=$(mktemp -d "$VMDIR/run.XXXXXX")
qpid=
catpids=()
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	for p in "${catpids[@]+"${catpids[@]}"}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$run/stage/job"
job=$run/stage/job/job.sh
{
	echo '# generated by selftests/vm/run.sh; runs in the guest under the host'"'"'s bash'
	echo 'set -u'
	# the host's PATH, less pyenv's shims: each shim is a shell script that
	# forks a dozen processes, ~25 s per python3 start under TCG
	gpath=$BUILD/bin
	IFS=: read -ra pdirs <<<"${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}"
	for d in "${pdirs[@]}"; do
		case $d in */.pyenv/shims | */.pyenv/plugins/*/shims) ;; *) gpath+=:$d ;; esac
	done
	printf 'guest_path=%q\n' "$gpath"
	printf 'cwd=%q\n' "$cwd"
	printf 'load_module=%s rmmod=%s show_dmesg=%s firewall=%s\n' $load_module $rmmod $show_dmesg $firewall
	printf 'modname=%q modfile=%q\n' "${modname:-}" "/run/bloom-vm/$(basename "${module:-none}")"
	printf 'cmd=('; printf '%q ' "$@"; printf ')\n'
	# a small, predictable environment: locale, home, the build, python
	echo 'env_vars=('
	for v in HOME USER LOGNAME LANG LANGUAGE TZ TERM $(compgen -e | grep -E '^(LC_|PYTHON|BLOOM_|KSFT_)' || true); do
		[ -n "${!v+x}" ] && printf '  %q\n' "$v=${!v}"
	done
	printf '  %q\n' "BUILD=$BUILD" "KVER=$KVER" "BLOOM_VM=1"
	for e in "${extra_env[@]+"${extra_env[@]}"}"; do printf '  %q\n' "$e"; done
	echo ')'
	sed -n '/^#@JOB-BEGIN$/,/^#@JOB-END$/{//!p}' "$SELF"
} >"$job"
[ $load_module = 0 ] || cp "$module" "$run/stage/job/$(basename "$module")"
[ $firewall = 0 ] || cp "$xtmod" "$run/stage/job/xt_bloom.ko"
# the extra 9p shares: "TAG PATH" per line, read by /init
: >"$run/stage/job/shares"
virtfs_extra=()
for i in "${!shares[@]}"; do
	printf 'share%d %s\n' "$i" "${shares[$i]}" >>"$run/stage/job/shares"
	# QEMU's option syntax: a comma in a value is written twice
	virtfs_extra+=(-virtfs "local,path=${shares[$i]//,/,,},mount_tag=share$i,security_model=none,readonly=on,multidevs=remap")
done
(cd "$run/stage" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet) >"$run/job.cpio"
cat "$initramfs" "$run/job.cpio" >"$run/initrd"
rm -rf "$run/stage" "$run/job.cpio"

# --- boot ------------------------------------------------------------------
# Serial ports: ttyS0 kernel console -> console.log, ttyS1 result marker ->
# file, ttyS2 CMD's stdout, ttyS3 CMD's stderr. A pipe or a terminal QEMU
# opens again through /proc; anything else (a regular file, whose offset we
# share with the caller, or a socket) gets a fifo and a cat in between.
chardev_for() { # fd id -> sets $chardev_path (no subshell: it looks at our fds)
	local fd=$1 id=$2
	if [ -p "/proc/self/fd/$fd" ] || [ -c "/proc/self/fd/$fd" ]; then
		chardev_path=/proc/self/fd/$fd
	else
		mkfifo "$run/$id"
		chardev_path=$run/$id
	fi
}
chardev_for 1 out; out_path=$chardev_path
chardev_for 2 err; err_path=$chardev_path
if [ -p "$run/out" ]; then cat "$run/out" & catpids+=($!); fi
if [ -p "$run/err" ]; then cat "$run/err" >&2 & catpids+=($!); fi

append="console=ttyS0 quiet panic_on_warn=1 oops=panic panic=-1"
append+=" rdinit=/init 8250.nr_uarts=4 mitigations=off tsc=reliable$extra_append"
console=$run/console.log
result=$run/result
: >"$result"

# The guest CPU: "max" without ERMS and FSRM. A guest kernel that sees either
# copies user memory and pages with "rep movsb", which TCG emulates one byte
# at a time, while a real CPU with ERMS runs it at full speed; without them
# the kernel takes its unrolled 8-byte-word copies, which TCG translates as
# it does any other code. Measured under TCG: 256 MiB through a pipe took
# 12.0 s and 0.9 s without ERMS against 22.6 s and 21.5 s with it, and a
# 4,096-key QUERY batch (which copies the keys in and the results out) cost
# 0.92x-0.99x the filter core in guest userspace against 1.07x-1.42x.
vm_cpu=${BLOOM_VM_CPU:-max,-erms,-fsrm}

# shellcheck disable=SC2054 # the commas are QEMU's
qemu=(qemu-system-x86_64 -accel tcg -cpu "$vm_cpu" -smp "$smp" -m "$mem"
	-nographic -nodefaults -no-reboot
	-kernel "$boot_kernel" -initrd "$run/initrd" -append "$append"
	-chardev "file,id=con,path=$console" -serial chardev:con
	-chardev "file,id=res,path=$result" -serial chardev:res
	-chardev "file,id=out,path=$out_path,append=on" -serial chardev:out
	-chardev "file,id=err,path=$err_path,append=on" -serial chardev:err
	-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap
	"${virtfs_extra[@]+"${virtfs_extra[@]}"}")

rc=0
timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null &
qpid=$!
wait "$qpid" || rc=$?
qpid=
for p in "${catpids[@]+"${catpids[@]}"}"; do wait "$p" 2>/dev/null || true; done
catpids=()
cp -f "$console" "$VMDIR/console.log" 2>/dev/null || true

tail_console() { # from the first sign of trouble, else the last N lines
	local log=$VMDIR/console.log first
	first=$(grep -anE 'WARNING:|BUG:|Oops|Kernel panic|general protection|Call Trace' "$log" |
		head -n 1 | cut -d: -f1 || true)
	if [ -n "$first" ]; then
		echo "run.sh: the guest console from the first trouble on ($log):" >&2
		tail -n +$((first > 3 ? first - 3 : 1)) "$log" | head -n 120 | sed 's/^/  | /' >&2
	else
		echo "run.sh: last lines of the guest console ($log):" >&2
		tail -n "${1:-40}" "$log" | sed 's/^/  | /' >&2
	fi
}

marker=$(grep -a '^BLOOM-VM-RESULT ' "$result" | tail -n 1 | tr -d '\r' || true)
if [ -z "$marker" ]; then
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		tail_console
		echo "run.sh: FAILED: the VM did not finish within ${timeout_s}s (--timeout) and was killed" >&2
		exit 124
	fi
	tail_console
	if grep -aq 'Kernel panic' "$console"; then
		echo "run.sh: FAILED: the guest kernel panicked (a WARN, BUG or Oops is fatal here: panic_on_warn=1 oops=panic); see above" >&2
	elif [ -s "$result" ]; then
		echo "run.sh: FAILED: the guest init reported: $(tr -d '\r' <"$result" | tail -n 3)" >&2
	else
		echo "run.sh: FAILED: the VM ended (qemu status $rc) without reporting CMD's result" >&2
	fi
	exit 125
fi

field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<<"$marker"; }
status=$(field status)
if [ "$(field cwd)" = fail ]; then
	echo "run.sh: FAILED: cannot enter $cwd in the guest" >&2
	exit 125
fi
if [ "$(field insmod)" = fail ]; then
	tail_console 15
	echo "run.sh: FAILED: insmod $module failed in the guest (built for another kernel than $KVER? see above)" >&2
	exit 121
fi
final=$status
if [ "$(field rmmod)" = fail ]; then
	echo "run.sh: FAILED: rmmod $modname failed after CMD (module still in use, or its exit path is broken)" >&2
	final=122
fi
if [ "$(field dmesg)" = fail ]; then
	echo "run.sh: FAILED: the kernel logged warnings during the run (see above, and $VMDIR/console.log)" >&2
	final=123
fi
[[ $final =~ ^[0-9]+$ ]] || die "garbled result marker '$marker'"
exit "$final"

# Everything below is not run on the host: it is copied into the VM.

#@INIT-BEGIN
#!/bin/busybox sh
# /init of the bloom test VM (from selftests/vm/run.sh): mount the host's root
# read-only over 9p with a tmpfs overlay, make it the root, run /job/job.sh.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
# booted quiet (faster); from here on everything goes to the console log
echo 8 >/proc/sys/kernel/printk
fail() {
	echo "bloom-vm init: $*"
	for t in /dev/ttyS1 /newroot/dev/ttyS1; do
		[ -c $t ] && echo "BLOOM-VM-FAIL $*" >$t
	done
	poweroff -f
}
for m in $(cat /modules/order); do
	insmod /modules/$m.ko || fail "insmod $m failed"
done
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose host /lower ||
	fail "cannot mount the host root over 9p (a --kernel needs virtio-pci and 9p built in)"
mount -t tmpfs -o mode=755 tmpfs /ovl
mkdir -p /ovl/upper /ovl/work
mount -t overlay -o lowerdir=/lower,upperdir=/ovl/upper,workdir=/ovl/work overlay /newroot ||
	fail "cannot mount the overlay"
for d in proc sys dev; do
	mount --move /$d /newroot/$d || fail "cannot move /$d"
done
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
mount -t tmpfs -o mode=755 tmpfs /newroot/run
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
# host directories under /tmp, /run or /dev/shm (the checkout, the build, the
# current directory): each its own 9p share, read-only with a tmpfs overlay,
# mounted at its host path over the guest's fresh tmpfs
while read -r tag path; do
	[ -n "$tag" ] || continue
	mkdir -p /share/$tag /ovl/$tag/upper /ovl/$tag/work "/newroot$path" ||
		fail "cannot create the mount point $path"
	mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose $tag /share/$tag ||
		fail "cannot mount the host's $path over 9p"
	mount -t overlay -o lowerdir=/share/$tag,upperdir=/ovl/$tag/upper,workdir=/ovl/$tag/work overlay "/newroot$path" ||
		fail "cannot mount the overlay on $path"
done </job/shares
cp -a /job /newroot/run/bloom-vm
# raw serial ports for CMD's output (termios outlives the open), the
# kernel log's length before the job (scanned after CMD from there on)
for t in 1 2 3; do stty -F /newroot/dev/ttyS$t raw -echo; done
hostname bloom-vm
dmesg | wc -l >/newroot/run/bloom-vm/dmesg-lines
# debugfs: the module's live_allocations, the kernel's fault injection
mount -t debugfs debugfs /newroot/sys/kernel/debug 2>/dev/null
echo "bloom-vm init: running the job at uptime $(cut -d' ' -f1 /newroot/proc/uptime)"
# The overlay becomes the root, as switch_root makes it: moved onto / with
# everything mounted under it, then entered with chroot("."). The kernel
# refuses user namespaces to a chrooted process (current_chrooted(): the
# root differs from the topmost mount on the namespace's root), so a
# plain chroot into /newroot would fail every unshare -U. busybox comes
# along (this initramfs is not reachable any more) for the power-off.
cp /bin/busybox /newroot/run/bloom-vm/busybox || fail "cannot copy busybox"
cd /newroot || fail "cannot enter the new root"
mount --move . / || fail "cannot move the overlay onto /"
exec chroot . /run/bloom-vm/busybox sh -c '
/bin/bash /run/bloom-vm/job.sh
echo "bloom-vm init: job ended with status $?"
/run/bloom-vm/busybox poweroff -f'
#@INIT-END

#@JOB-BEGIN
# (the variables above were written by run.sh on the host)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
exec </dev/null >/dev/ttyS2 2>/dev/ttyS3
insmod=skip rm=skip dm=ok cd=ok status=125
report() {
	printf 'BLOOM-VM-RESULT status=%s insmod=%s rmmod=%s dmesg=%s cwd=%s\n' \
		"$status" "$insmod" "$rm" "$dm" "$cd" >/dev/ttyS1
	exit 0
}
read -r before </run/bloom-vm/dmesg-lines
if [ "$load_module" = 1 ]; then
	if insmod "$modfile"; then insmod=ok; else insmod=fail; report; fi
fi
# --firewall: the guest autoloads no module; iptables (either backend) and
# ip6tables need these, xt_bloom.ko needs x_tables. A kernel with them
# built in has no /lib/modules directory for them.
if [ "$firewall" = 1 ]; then
	if [ -d "/lib/modules/$(uname -r)" ] &&
	   ! modprobe -a nf_tables nft_compat x_tables ip_tables iptable_filter \
		ip6_tables ip6table_filter; then
		echo "run.sh: --firewall: the netfilter modules did not load" >&2
		insmod=fail
		report
	fi
	if ! insmod /run/bloom-vm/xt_bloom.ko; then insmod=fail; report; fi
fi
if ! cd -- "$cwd"; then
	echo "run.sh: cannot cd to $cwd in the guest" >&2
	cd=fail
	report
fi
unset -v OLDPWD
export PWD="$cwd"
# CMD writes into pipes, as under make or CI, not into the serial ttys: no
# colours, no tty line discipline; two cats copy to the ports.
mkfifo /run/bloom-vm/out /run/bloom-vm/err
cat /run/bloom-vm/out & cat_out=$!
cat /run/bloom-vm/err >&2 & cat_err=$!
(
	for e in "${env_vars[@]}"; do export "$e"; done
	export PATH="$guest_path"
	"${cmd[@]}"
) >/run/bloom-vm/out 2>/run/bloom-vm/err
status=$?
# a background process of CMD may hold the pipes open: give it 5 s
for ((i = 0; i < 50; i++)); do
	kill -0 $cat_out 2>/dev/null || kill -0 $cat_err 2>/dev/null || break
	sleep 0.1
done
kill $cat_out $cat_err 2>/dev/null
wait $cat_out $cat_err 2>/dev/null
if [ "$rmmod" = 1 ]; then
	# xt_bloom holds bloom: it goes first
	[ "$firewall" = 0 ] || rmmod xt_bloom || rm=fail
	if [ "$rm" != fail ] && rmmod "$modname"; then rm=ok; else rm=fail; fi
fi
# (BUG: covers KASAN, sleeping in atomic, soft lockups; INFO: hung tasks,
# RCU stalls and some lockdep reports; UBSAN: its own prefix)
# kmemleak's own scan-area allocation may be failed by fault injection
# (bloom_faults' load sweep): it then scans the whole object, no report
bad=$(dmesg --color=never | tail -n +"$((before + 1))" | grep -E 'WARNING:|BUG:|Oops|[Ll]eak|UBSAN:|INFO: ' |
	grep -v 'kmemleak: Cannot allocate a scan area, scanning the full object')
if [ -n "$bad" ]; then
	dm=fail
	printf 'run.sh: kernel warnings in dmesg:\n%s\n' "$bad" >&2
fi
if [ "$show_dmesg" = 1 ]; then
	echo "----- guest dmesg -----" >&2
	dmesg --color=never >&2
	echo "----- end of guest dmesg -----" >&2
fi
report
#@JOB-END
