# Quick lab check (make lab QUICK=1, so make check): ours starts the model
# application on the disk model under ten sequential readers within 2.5x
# its idle time. Ours and stock both stay well inside that bound (see
# docs/results/); readers wrongly raised as soft real time make it an
# order of magnitude longer, which this guards against. Experiment 6 with
# one model, one background and ours only; about 2 minutes.
# vmtest-timeout: 400
LAB_MODELS=disk
LAB_KINDS=10r-seq
LAB_SCHEDS=ours
LAB_GUARD=2.5
. /tests/exp6-startup.sh
