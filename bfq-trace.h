/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFQ tracepoints: fired where the scheduler decides something (a queue
 * becomes backlogged, is selected, dispatches, starts or stops idling, is
 * expired, its weight raising starts or ends, the injection limit or a
 * waker changes), keyed by the device's dev_t and the queue's pid.
 * Enable with: echo 1 > /sys/kernel/tracing/events/bfq/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bfq

#if !defined(_TRACE_BFQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BFQ_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(bfq_queue_class,
		    TP_PROTO(dev_t dev, pid_t pid, bool sync,
			     unsigned int class_idx, unsigned int weight,
			     unsigned int budget),
		    TP_ARGS(dev, pid, sync, class_idx, weight, budget),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(pid_t, pid)
				     __field(bool, sync)
				     __field(unsigned int, class_idx)
				     __field(unsigned int, weight)
				     __field(unsigned int, budget)),
		    TP_fast_assign(__entry->dev = dev;
				   __entry->pid = pid;
				   __entry->sync = sync;
				   __entry->class_idx = class_idx;
				   __entry->weight = weight;
				   __entry->budget = budget;),
		    TP_printk("%d,%d bfq%d%c class=%u weight=%u budget=%u",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->pid, __entry->sync ? 'S' : 'A',
			      __entry->class_idx, __entry->weight,
			      __entry->budget));

DEFINE_EVENT(bfq_queue_class, bfq_activate,
	     TP_PROTO(dev_t dev, pid_t pid, bool sync, unsigned int class_idx,
		      unsigned int weight, unsigned int budget),
	     TP_ARGS(dev, pid, sync, class_idx, weight, budget));

DEFINE_EVENT(bfq_queue_class, bfq_select,
	     TP_PROTO(dev_t dev, pid_t pid, bool sync, unsigned int class_idx,
		      unsigned int weight, unsigned int budget),
	     TP_ARGS(dev, pid, sync, class_idx, weight, budget));

TRACE_EVENT(bfq_expire,
	    TP_PROTO(dev_t dev, pid_t pid, int reason, unsigned int served,
		     unsigned int charge, unsigned int next_budget),
	    TP_ARGS(dev, pid, reason, served, charge, next_budget),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(int, reason)
			     __field(unsigned int, served)
			     __field(unsigned int, charge)
			     __field(unsigned int, next_budget)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pid = pid;
			   __entry->reason = reason;
			   __entry->served = served;
			   __entry->charge = charge;
			   __entry->next_budget = next_budget;),
	    TP_printk("%d,%d bfq%d %s served=%u charge=%u next_budget=%u",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __print_symbolic(__entry->reason,
				       { BFQ_EXP_EMPTY, "empty" },
				       { BFQ_EXP_IDLE_TIMEOUT, "idle_timeout" },
				       { BFQ_EXP_BUDGET, "budget_exhausted" },
				       { BFQ_EXP_TIMEOUT, "budget_timeout" },
				       { BFQ_EXP_PREEMPTED, "preempted" }),
		      __entry->served, __entry->charge, __entry->next_budget));

TRACE_EVENT(bfq_dispatch,
	    TP_PROTO(dev_t dev, pid_t pid, sector_t sector,
		     unsigned int sectors, unsigned int service,
		     unsigned int budget),
	    TP_ARGS(dev, pid, sector, sectors, service, budget),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(sector_t, sector)
			     __field(unsigned int, sectors)
			     __field(unsigned int, service)
			     __field(unsigned int, budget)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pid = pid;
			   __entry->sector = sector;
			   __entry->sectors = sectors;
			   __entry->service = service;
			   __entry->budget = budget;),
	    TP_printk("%d,%d bfq%d %llu + %u service=%u/%u",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      (unsigned long long)__entry->sector, __entry->sectors,
		      __entry->service, __entry->budget));

DECLARE_EVENT_CLASS(bfq_idle_class,
		    TP_PROTO(dev_t dev, pid_t pid, u64 slice_ns),
		    TP_ARGS(dev, pid, slice_ns),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(pid_t, pid)
				     __field(u64, slice_ns)),
		    TP_fast_assign(__entry->dev = dev;
				   __entry->pid = pid;
				   __entry->slice_ns = slice_ns;),
		    TP_printk("%d,%d bfq%d slice=%lluns",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->pid,
			      (unsigned long long)__entry->slice_ns));

DEFINE_EVENT(bfq_idle_class, bfq_idle_start,
	     TP_PROTO(dev_t dev, pid_t pid, u64 slice_ns),
	     TP_ARGS(dev, pid, slice_ns));

DEFINE_EVENT(bfq_idle_class, bfq_idle_stop,
	     TP_PROTO(dev_t dev, pid_t pid, u64 slice_ns),
	     TP_ARGS(dev, pid, slice_ns));

TRACE_EVENT(bfq_wr_start,
	    TP_PROTO(dev_t dev, pid_t pid, bool soft_rt, unsigned int coeff,
		     unsigned int duration_ms),
	    TP_ARGS(dev, pid, soft_rt, coeff, duration_ms),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(bool, soft_rt)
			     __field(unsigned int, coeff)
			     __field(unsigned int, duration_ms)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pid = pid;
			   __entry->soft_rt = soft_rt;
			   __entry->coeff = coeff;
			   __entry->duration_ms = duration_ms;),
	    TP_printk("%d,%d bfq%d %s coeff=%u duration=%ums",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __entry->soft_rt ? "soft_rt" : "interactive",
		      __entry->coeff, __entry->duration_ms));

TRACE_EVENT(bfq_wr_end,
	    TP_PROTO(dev_t dev, pid_t pid, int reason, unsigned int raised_ms),
	    TP_ARGS(dev, pid, reason, raised_ms),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(int, reason)
			     __field(unsigned int, raised_ms)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pid = pid;
			   __entry->reason = reason;
			   __entry->raised_ms = raised_ms;),
	    TP_printk("%d,%d bfq%d %s after=%ums",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __print_symbolic(__entry->reason,
				       { BFQ_WR_END_EXPIRED, "expired" },
				       { BFQ_WR_END_BULK, "bulk" },
				       { BFQ_WR_END_OFF, "low_latency_off" },
				       { BFQ_WR_END_BURST, "large_burst" },
				       { BFQ_WR_END_CLASS, "class" },
				       { BFQ_WR_END_EXIT, "exit" }),
		      __entry->raised_ms));

TRACE_EVENT(bfq_inject_limit,
	    TP_PROTO(dev_t dev, unsigned int limit, u64 base_ns, u64 wait_ns),
	    TP_ARGS(dev, limit, base_ns, wait_ns),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned int, limit)
			     __field(u64, base_ns)
			     __field(u64, wait_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->limit = limit;
			   __entry->base_ns = base_ns;
			   __entry->wait_ns = wait_ns;),
	    TP_printk("%d,%d limit=%u base=%lluns wait=%lluns",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->limit,
		      (unsigned long long)__entry->base_ns,
		      (unsigned long long)__entry->wait_ns));

TRACE_EVENT(bfq_waker,
	    TP_PROTO(dev_t dev, pid_t pid, pid_t waker, pid_t old_waker),
	    TP_ARGS(dev, pid, waker, old_waker),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, pid)
			     __field(pid_t, waker)
			     __field(pid_t, old_waker)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->pid = pid;
			   __entry->waker = waker;
			   __entry->old_waker = old_waker;),
	    TP_printk("%d,%d bfq%d waker=bfq%d was=bfq%d",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		      __entry->waker, __entry->old_waker));

TRACE_EVENT(bfq_merge,
	    TP_PROTO(dev_t dev, pid_t from, pid_t to, unsigned int members,
		     int why),
	    TP_ARGS(dev, from, to, members, why),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, from)
			     __field(pid_t, to)
			     __field(unsigned int, members)
			     __field(int, why)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->from = from;
			   __entry->to = to;
			   __entry->members = members;
			   __entry->why = why;),
	    TP_printk("%d,%d bfq%d into bfq%d members=%u %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->from,
		      __entry->to, __entry->members,
		      __print_symbolic(__entry->why,
				       { BFQ_MERGE_CLOSE, "close" },
				       { BFQ_MERGE_STABLE, "stable" })));

TRACE_EVENT(bfq_split,
	    TP_PROTO(dev_t dev, pid_t merged, pid_t own, unsigned int left,
		     int why),
	    TP_ARGS(dev, merged, own, left, why),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(pid_t, merged)
			     __field(pid_t, own)
			     __field(unsigned int, left)
			     __field(int, why)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->merged = merged;
			   __entry->own = own;
			   __entry->left = left;
			   __entry->why = why;),
	    TP_printk("%d,%d bfq%d from bfq%d left=%u %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->own,
		      __entry->merged, __entry->left,
		      __print_symbolic(__entry->why,
				       { BFQ_SPLIT_SEEKY, "seeky" },
				       { BFQ_SPLIT_IOPRIO, "ioprio" },
				       { BFQ_SPLIT_OFF, "coop_merge_off" })));

#endif /* _TRACE_BFQ_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE bfq-trace
#include <trace/define_trace.h>
