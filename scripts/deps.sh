#!/bin/bash
# Install the host packages every project command needs, when missing.
# Idempotent: a second run installs nothing and takes about a second.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
      xz-utils zstd rsync perl python3 sparse qemu-system-x86 busybox-static
      fio python3-matplotlib dkms blktrace dmsetup e2fsprogs libc6-dev)
apt_need "${pkgs[@]}"
