# Quick lab check (make lab QUICK=1, so make check): ours starts the model
# application on the disk model under ten sequential readers within 2.5x
# its idle time. Ours measured 1.37x there and stock 1.2-1.3x (6.1,
# 2026-11-25); 16x when the readers were raised as soft real time
# (fixed in ef98db5), which this guards against. Experiment 6 with one
# model, one background and ours only; about 2 minutes.
# vmtest-timeout: 400
LAB_MODELS=disk
LAB_KINDS=10r-seq
LAB_SCHEDS=ours
LAB_GUARD=2.5
. /tests/exp6-startup.sh
