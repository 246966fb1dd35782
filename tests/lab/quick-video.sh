# Quick lab check of experiment 5 (make bench, under -icount): video
# streams beside on/off readers on the disk model, ours beside
# mq-deadline, kyber and none, with exp5-video.sh's regression guards
# (LAB_VIDEO_GUARD=1: ours at least 0.8x the best other's streams, at
# most half its part of frames more than 40 ms late) and issue 40's
# bounds reported. Before soft real-time raising reached new processes,
# ours sustained 5-9 streams against 16-18; about 5 minutes of guest time
# (under a minute of wall time with -icount sleep=off).
# vmtest-timeout: 900
LAB_SCHEDS="ours mq-deadline kyber none"
LAB_VIDEO_GUARD=1
. /tests/exp5-video.sh
