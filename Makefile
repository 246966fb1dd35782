# SPDX-License-Identifier: GPL-2.0
#
# One Makefile, two readers.
#
# kbuild reads the first half (KERNELRELEASE is set): in a kernel tree's
# block/ (see scripts/intree.sh) and for the out-of-tree module alike.
#
# A user reads the second half:
#   make                     bfq.ko for the running kernel if its headers are
#                            installed, else for Debian's 6.1
#   make KVER=6.1|6.12|trixie|latest build/<KVER>/bfq.ko against the cached
#                            Debian kernel (6.12: bookworm-backports',
#                            trixie: Debian 13's 6.12, latest:
#                            trixie-backports' newest)
#   make KDIR=<kernel tree>  build/custom/bfq.ko against any prepared tree
#   make check               the test tier: every build, check, KUnit and
#                            functional VM test, the debug kernel (CI)
#   make bench KVER=6.1      the benchmark tier: every bounded performance
#                            matrix, a dated record in docs/results/
#   make help                every target and variable

ifneq ($(KERNELRELEASE),)

ifneq ($(KBUILD_EXTMOD),)
# Out of tree: the distribution kernel already says CONFIG_IOSCHED_BFQ=m,
# but build the module whatever it says, and find the block layer's private
# headers (blk.h, elevator.h, ...) in the matching linux-source tree.
CONFIG_IOSCHED_BFQ := m
ccflags-y += -I$(BFQ_BLOCK_SRC)
endif
# make TEST_HOOKS=1: the hooks some VM tests need to widen a race window.
ccflags-$(BFQ_TEST_HOOKS) += -DBFQ_TEST_HOOKS

obj-$(CONFIG_IOSCHED_BFQ) += bfq.o
# Every bfq-*.c is built in bfq-build.c's one unit (see its header).
bfq-y := bfq-build.o
# bfq-trace.h is found by define_trace.h through the include path.
CFLAGS_bfq-build.o += -I$(src)

else

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BFQ_CACHE ?= /var/cache/bfq-lab
SRCS := $(wildcard $(TOP)/bfq-*.c $(TOP)/bfq-*.h) $(TOP)/Makefile $(TOP)/Kconfig

# The cache folder of a kernel, from its release ($(1), e.g. 6.12.117+deb13-amd64):
# 6.1 and bookworm-backports' 6.12 have their own; Debian 13's 6.12 is
# "trixie" (its block layer took stable changes bookworm-backports' has
# not: blkg_policy_data grew an rcu_head in 6.12.117); a 7.x kernel's is
# "latest" (the newest kernel of Debian trixie-backports), whose series
# the fetch rule checks against the kernel's.
cache_series = $(if $(filter 7.%,$(1)),latest,$(if $(and $(filter 6.12.%,$(1)),$(findstring +deb13,$(1))),trixie,$(shell echo $(1) | cut -d. -f1,2)))

ifneq ($(KDIR),)
KVER ?= custom
# A full kernel tree has its block/ headers; a headers package (Debian's,
# DKMS) does not: then take them from the cached linux-source of the
# kernel's series.
ifneq ($(wildcard $(KDIR)/block/blk.h),)
BLOCK_SRC ?= $(abspath $(KDIR))/block
else
TARGET_RELEASE := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
TARGET_SERIES := $(shell echo $(TARGET_RELEASE) | cut -d. -f1,2)
SERIES := $(call cache_series,$(TARGET_RELEASE))
BLOCK_SRC ?= $(BFQ_CACHE)/$(SERIES)/linux/block
endif
else
ifeq ($(KVER),)
ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
# Debian's running 6.1, 6.12 or 7.x: its private block headers come from
# the cached linux-source of the same series.
KVER := running
KDIR := /lib/modules/$(shell uname -r)/build
TARGET_SERIES := $(shell uname -r | cut -d. -f1,2)
SERIES := $(call cache_series,$(shell uname -r))
BLOCK_SRC ?= $(BFQ_CACHE)/$(SERIES)/linux/block
else
KVER := 6.1
endif
endif
endif
KDIR ?= $(BFQ_CACHE)/$(KVER)/kdir
BLOCK_SRC ?= $(BFQ_CACHE)/$(KVER)/linux/block
# TEST_HOOKS=1: a test build (bfq-cgroup.c's test_pd_free_delay_ms, ...)
# in build/<KVER>-hooks/, which the VM tests that need it ship beside ours.
OUT := $(TOP)/build/$(KVER)$(if $(TEST_HOOKS),-hooks)
# OUT=dir on the command line: kbuild's M= needs it absolute.
override OUT := $(abspath $(OUT))

# Kbuild flags a user passes through (make KVER=6.1 W=1 C=2).
KBUILD_ARGS := $(if $(W),W=$(W)) $(if $(C),C=$(C))

# The compiler the kernel was built with, as its config names it. Debian's
# 7.x kernels (trixie) are built by gcc-14, which a bookworm host does not
# have: the module is then built by the host's gcc, without the one option
# of the kernel's flags that gcc-14 has and gcc-12 lacks
# (-fmin-function-alignment: kbuild gives the same alignment by
# -falign-functions, as for any compiler without it). CC=... on the
# command line overrides this. DKMS exports the kernel's compiler as CC
# (from the headers' .kernelvariables), installed or not: a CC from the
# environment that is not installed falls back the same way.
KERNEL_CC := $(shell sed -n 's/^CONFIG_CC_VERSION_TEXT="*\([^ "]*\) .*/\1/p' \
	$(KDIR)/include/config/auto.conf 2>/dev/null)
CC_UNSET := $(filter default,$(origin CC))
ifeq ($(origin CC),environment)
CC_UNSET := $(if $(shell command -v $(firstword $(CC)) 2> /dev/null),,missing)
endif
ifneq ($(KERNEL_CC),)
ifneq ($(CC_UNSET),)
ifeq ($(shell command -v $(KERNEL_CC) 2> /dev/null),)
KBUILD_ARGS += CC=gcc CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=
endif
endif
endif
# The same for pahole: an older one than the kernel's does not know the
# --btf_features kbuild asks of it for the module's BTF. The module is then
# built without BTF (BPF tools do not see its types; it loads the same),
# and kbuild is told the host's pahole version: the kernel's would only
# serve the BTF that is not built, and kbuild warns when they differ.
KERNEL_PAHOLE := $(shell sed -n 's/^CONFIG_PAHOLE_VERSION=//p' \
	$(KDIR)/include/config/auto.conf 2>/dev/null)
HOST_PAHOLE := $(shell pahole --version 2> /dev/null | sed -E 's/v([0-9]+)\.([0-9]+)/\1\2/')
ifneq ($(KERNEL_PAHOLE),)
ifeq ($(shell [ "0$(HOST_PAHOLE)" -lt "$(KERNEL_PAHOLE)" ] && echo older),older)
KBUILD_ARGS += CONFIG_DEBUG_INFO_BTF_MODULES= CONFIG_PAHOLE_VERSION=$(HOST_PAHOLE)
endif
endif

# After each build, scripts/layout-check.sh compares the private structures
# of block/ the module was built with (BLOCK_SRC) against the target
# kernel's BTF, and refuses the module (removed, the build fails) when one
# differs, or when the target has no BTF to compare with. LAYOUT_BTF names
# that BTF (a raw BTF file, a vmlinux or a bzImage) where the script does
# not find it; LAYOUT_CHECK=0 skips the check.
LAYOUT_CHECK ?= 1
LAYOUT_BTF ?=

.PHONY: all modules fetch clean kunit kunit-debug vmtest check bench help \
	checkpatch intree install uninstall demo debug-kernel vmtest-debug debug-tests \
	stress lab blktests dkms-vm

all: modules

help:
	@echo 'Targets (KVER=6.1, 6.12 or latest where it applies; default: the'
	@echo 'running kernel when its headers are installed, else 6.1):'
	@echo '  make [KVER=..]           build/KVER/bfq.ko against the cached Debian kernel'
	@echo '  make KDIR=<tree>         build/custom/bfq.ko against any prepared kernel tree'
	@echo '  make check               the test tier (CI): builds, checkpatch, KUnit, VM'
	@echo '                           tests, debug kernel and a short stress; ends with'
	@echo '                           "N passed, N failed"'
	@echo '  make bench KVER=..       the benchmark tier: bounded performance matrices in'
	@echo '                           full, a record in docs/results/'
	@echo '  make demo                build, boot in a VM, show two readers sharing a disk'
	@echo '  make kunit KVER=..       our KUnit suites (kunit.py, a small x86_64 kernel)'
	@echo '  make kunit-debug KVER=.. our KUnit suites in the debug kernel (KASAN, lockdep)'
	@echo '  make vmtest KVER=..      the functional VM tests (TESTS= to pick some)'
	@echo '  make checkpatch          checkpatch.pl --strict on our sources'
	@echo '  make intree KVER=..      our files in a kernel tree'"'"'s block/, built there'
	@echo '  make debug-kernel KVER=.. the kernel with our bfq built in and the checkers on'
	@echo '  make vmtest-debug KVER=.. the VM tests that apply, on that kernel'
	@echo '  make debug-tests         their names (DEBUG_TESTS=)'
	@echo '  make stress KVER=..      the stress matrix on the debug kernel (DURATION=)'
	@echo '  make lab KVER=..         BFQ'"'"'s published experiments on a disk model'
	@echo '  make blktests KVER=..    upstream blktests (block loop dm) in a VM, stock bfq'
	@echo '                           then ours as every test device'"'"'s scheduler; a'
	@echo '                           table and "N passed, N failed" (long; not in check)'
	@echo '  make dkms-vm KVER=..     DKMS in a VM on the kernel'"'"'s own image: dkms add,'
	@echo '                           build, install, modprobe takes ours from updates/,'
	@echo '                           dkms remove gives the stock bfq back (long; not in'
	@echo '                           check)'
	@echo '  make install | uninstall into /lib/modules/<release>/updates/ and depmod'
	@echo '  make fetch KVER=..       download and unpack a Debian kernel into the cache'
	@echo '  make clean               remove build/'
	@echo 'Variables:'
	@echo '  KVER=6.1|6.12|trixie|latest the Debian kernel (6.12: bookworm-backports'"'"','
	@echo '                  trixie: Debian 13'"'"'s 6.12, latest: the newest of'
	@echo '                  trixie-backports, 7.3 at the time of writing)'
	@echo '  KDIR=<tree>     a prepared kernel tree or headers (KVER becomes "custom")'
	@echo '  W=1 C=2         kbuild'"'"'s extra warnings and sparse'
	@echo '  TEST_HOOKS=1    a test build with race-widening hooks, in build/KVER-hooks/'
	@echo '  BLOCK_SRC=dir   the block/ of the linux-source whose private headers the'
	@echo '                  module takes (default: the cached source of the series)'
	@echo '  LAYOUT_BTF=file the target kernel'"'"'s BTF for the layout check (raw BTF,'
	@echo '                  vmlinux or bzImage; default: found from KDIR'"'"'s release)'
	@echo '  LAYOUT_CHECK=0  build without checking block/'"'"'s private structures against'
	@echo '                  the target kernel'"'"'s BTF (the check refuses a mismatch)'
	@echo '  OUT=dir         build the module there instead of build/KVER/'
	@echo '  TESTS="a b"     vmtest: only these tests/vm/ tests'
	@echo '  VMTEST_QUICK=0  vmtest: the full form of the share and latency tests'
	@echo '  QUICK=1         lab: the calibration and one case of each kind only'
	@echo '  EXPS="a b"      lab: only these experiments'
	@echo '  DURATION=N      stress: seconds of stress on the debug kernel (300)'
	@echo '  BENCH_VM="a b"  bench: the VM tests to run in full'
	@echo '  BENCH_RUNS="a b" bench: the scripts/bench runs (tput bursts cgshare)'
	@echo '  BLKTESTS_SRC=dir blktests: the suite, a git dir or a checkout'
	@echo '                  ($$BFQ_CACHE/blktests/src; none: SKIP)'
	@echo '  BLKTESTS_GROUPS="a b" blktests: groups or tests (block loop dm)'
	@echo '  BLKTESTS_IMPL="a b" blktests: the boots (stock ours)'
	@echo '  DKMS_VM_TIMEOUT=N dkms-vm: the boot'"'"'s limit in seconds (5400)'
	@echo '  BFQ_CACHE=dir   downloaded and built kernels (/var/cache/bfq-lab)'
	@echo 'More: README.md, tests/README.md, docs/developing.md.'

SERIES ?= $(KVER)

fetch:
	@case "$(SERIES)" in 6.1|6.12|trixie|latest) $(TOP)/scripts/fetch-kernel.sh $(SERIES);; esac
ifneq ($(TARGET_SERIES),)
	@if [ "$(SERIES)" = latest ] && [ "$(origin BLOCK_SRC)" = file ] && \
	    [ "$$(cut -d. -f1,2 $(BFQ_CACHE)/latest/release)" != "$(TARGET_SERIES)" ]; then \
		echo "the cached latest kernel is $$(cat $(BFQ_CACHE)/latest/release), not $(TARGET_SERIES):" \
		     "BLOCK_SRC=<a $(TARGET_SERIES) source tree>/block" >&2; \
		exit 1; \
	fi
endif

# The sources are linked into build/<KVER>/ so that objects of different
# kernels never mix and the source tree stays clean.
modules: fetch
	@mkdir -p $(OUT)
	@for f in $(SRCS); do ln -sf $$f $(OUT)/; done
	$(MAKE) -C $(KDIR) M=$(OUT) BFQ_BLOCK_SRC=$(BLOCK_SRC) $(KBUILD_ARGS) \
		$(if $(TEST_HOOKS),BFQ_TEST_HOOKS=y) modules
	@LAYOUT_CHECK="$(LAYOUT_CHECK)" LAYOUT_BTF="$(LAYOUT_BTF)" \
		BFQ_CACHE="$(BFQ_CACHE)" $(TOP)/scripts/layout-check.sh \
		$(OUT)/bfq.ko $(BLOCK_SRC) $(KDIR) || { rm -f $(OUT)/bfq.ko; exit 1; }
	@echo "built $(OUT)/bfq.ko"

clean:
	rm -rf $(TOP)/build

kunit:
	$(TOP)/scripts/kunit.sh $(KVER)

kunit-debug:
	$(TOP)/scripts/kunit-debug.sh $(KVER)

# The check tier's VM tests (share and latency tests in their quick form;
# VMTEST_QUICK=0 for the full one), or those named in TESTS.
vmtest: modules
	@$(MAKE) --no-print-directory TEST_HOOKS=1 modules > /dev/null
	$(TOP)/scripts/vmtest.sh $(KVER) $(TESTS)

# The VM tests that make sense with bfq built in, on the debug kernel. Not
# core-share: its bounds assume Debian's kernel speed. cgroup-v1 checks
# the CONFIG_BFQ_CGROUP_DEBUG statistics there. The stress matrix toggles
# strict_guarantees there. discard sends multi-range discards through bfq
# on the NVMe namespace (the merge path bfq_add_request() keeps them out of
# the hash for).
DEBUG_TESTS ?= tunables fio-verify fio-slowdev scsi-debug core-classes \
	core-observe core-strict cgroup-v1 discard
vmtest-debug:
	VMTEST_DEBUG=1 $(TOP)/scripts/vmtest.sh $(KVER) $(DEBUG_TESTS)

# Their names (make check leaves them out of vm/KVER where vm-debug/KVER
# runs them).
debug-tests:
	@echo $(DEBUG_TESTS)

checkpatch: fetch
	$(TOP)/scripts/checkpatch.sh $(KVER)

intree:
	$(TOP)/scripts/intree.sh $(KVER)

debug-kernel:
	$(TOP)/scripts/debug-kernel.sh $(KVER)

# The stress matrix (tests/stress/README.md): DURATION seconds of stress on
# the debug kernel, then a short run on Debian's with our module.
DURATION ?= 300
stress:
	$(TOP)/scripts/stress.sh $(KVER) $(DURATION)

install: modules
	$(TOP)/scripts/install.sh install $(OUT)/bfq.ko

uninstall:
	$(TOP)/scripts/install.sh uninstall

demo:
	$(TOP)/scripts/demo.sh

# The lab (tests/lab/README.md): BFQ's published experiments on a disk
# model, ours beside stock bfq, mq-deadline, kyber and none; the report in
# build/lab/report.md. QUICK=1: the calibration and one share case.
# EXPS="calibrate exp1-maxbudget": those experiments only.
lab: modules
	LAB_QUICK=$(if $(QUICK),1,0) $(TOP)/scripts/lab.sh $(KVER) $(EXPS)

# Upstream blktests (tests/README.md, "Upstream blktests"): its block,
# loop and dm groups in a VM, stock bfq then ours made every test device's
# scheduler by a udev rule; build/KVER/results/blktests-{stock,ours}.txt
# and a table.
# Long: not part of make check. BLKTESTS_SRC (environment or command line)
# names the suite; scripts/blktests.sh lists its other variables.
BLKTESTS_GROUPS ?= block loop dm
BLKTESTS_IMPL ?= stock ours
blktests: modules
	BLKTESTS_GROUPS="$(BLKTESTS_GROUPS)" BLKTESTS_IMPL="$(BLKTESTS_IMPL)" \
		$(TOP)/scripts/blktests.sh $(KVER)

# DKMS on the kernel's own image (tests/dkms/README.md): in a VM booted on
# the cached Debian kernel, with its modules and headers installed as
# Debian installs them, dkms add, build and install our committed tree,
# modprobe bfq takes ours from updates/, dkms remove gives Debian's back;
# build/KVER/results/dkms.txt. The guest's build under TCG takes minutes:
# not part of make check.
dkms-vm: fetch
	$(TOP)/scripts/dkms-vm.sh $(KVER)

check:
	$(TOP)/scripts/check.sh

bench:
	$(TOP)/scripts/bench.sh $(KVER)

endif
