#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""userns_run.py [-n] SCRIPT: runs /bin/sh -c SCRIPT as root of a new user
namespace (uid and gid 0 mapped to the caller's 0), with -n also in a new
network namespace that the new user namespace owns.

The kernel refuses a user namespace to a chrooted process, and the test VM's
init chroots into the VM's root. Then the child steps into init's root
first (/proc/1/root, the namespace's real root), makes the namespaces there
and chroots back into the VM's root, which root of the new user namespace
may do. Where nothing is chrooted the first unshare() simply works.
"""
import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000

libc = ctypes.CDLL(None, use_errno=True)
args = sys.argv[1:]
flags = CLONE_NEWUSER
if args and args[0] == "-n":
    flags |= CLONE_NEWNET
    args = args[1:]
if len(args) != 1:
    sys.exit(__doc__)

ready_r, ready_w = os.pipe()
go_r, go_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(ready_r)
    os.close(go_w)
    root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    cwd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    if libc.unshare(flags) != 0:
        os.chroot("/proc/1/root")
        if libc.unshare(flags) != 0:
            os.write(2, b"userns_run.py: unshare: %s\n" %
                     os.strerror(ctypes.get_errno()).encode())
            os._exit(125)
    os.write(ready_w, b"x")
    if os.read(go_r, 1) != b"x":
        os._exit(125)
    os.fchdir(root)
    os.chroot(".")
    os.fchdir(cwd)
    os.close(root)
    os.close(cwd)
    os.execv("/bin/sh", ["sh", "-c", args[0]])

os.close(ready_w)
os.close(go_r)
if os.read(ready_r, 1) == b"x":
    for name, text in (("setgroups", "deny"), ("uid_map", "0 0 1"),
                       ("gid_map", "0 0 1")):
        with open("/proc/%d/%s" % (pid, name), "w") as f:
            f.write(text)
    os.write(go_w, b"x")
os.close(go_w)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
