#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# install-config.sh SRC DEST SHIPPED: installs configuration file SRC as
# DEST without overwriting a change the user made. SHIPPED is the copy of
# what the last install put at DEST: DEST is replaced when it is missing,
# or equal to SHIPPED (nobody changed it); else SRC goes beside it as
# DEST.bloom-new and a note says so. SHIPPED becomes SRC either way.
set -e
src=$1 dest=$2 shipped=$3

install -d "$(dirname "$dest")" "$(dirname "$shipped")"
if [ ! -e "$dest" ] || cmp -s "$dest" "$src" ||
	{ [ -e "$shipped" ] && cmp -s "$dest" "$shipped"; }; then
	install -m 644 "$src" "$dest"
	rm -f "$dest.bloom-new"
else
	install -m 644 "$src" "$dest.bloom-new"
	echo "note: $dest was changed: left as it is; bloom's is $dest.bloom-new" >&2
fi
install -m 644 "$src" "$shipped"
