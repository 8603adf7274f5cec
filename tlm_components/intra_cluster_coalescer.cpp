#include "tlm_components/intra_cluster_coalescer.h"

#include <algorithm>
#include <string>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/payload_pool.h"

namespace locsim {

IntraClusterCoalescer::IntraClusterCoalescer(sc_core::sc_module_name name, const IccConfig& cfg,
                                             SimContext& ctx)
    : sc_module(name),
      cpu("cpu"),
      noc("noc"),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      down_("down"),
      cc_(cfg.coalesced_cache ? cfg.cc_entries : 1, cfg.line_bytes, ctx.check_data),
      icl_(cfg.locality_window),
      to_l1_(cfg.sms),
      delivered_(cfg.sms, ~Cycle{0}),
#define ICC_STAT(n, u, d) ctx.stats.counter(this->name(), "icc", n, u, d)
      reads_(ICC_STAT("reads", "requests", "global reads received from the cluster's L1s")),
      writes_(ICC_STAT("writes", "requests", "stores and atomics passed to the NoC unmerged")),
      merge_hits_(ICC_STAT("merge_hits", "requests",
                           "reads merged into an outstanding request of the cluster")),
      merge_allocs_(ICC_STAT("merge_allocations", "requests",
                             "reads that allocated a merge-table entry and went to the NoC")),
      merge_full_(ICC_STAT("merge_full", "requests", "reads sent unmerged: merge table full")),
      merge_uncovered_(ICC_STAT("merge_uncovered", "requests",
                                "reads sent unmerged: the outstanding request lacks their bytes")),
      cc_hits_(ICC_STAT("cc_hits", "requests", "reads answered by the coalesced cache")),
      cc_fills_(ICC_STAT("cc_fills", "lines", "replies with more than one requester cached")),
      cc_evictions_(ICC_STAT("cc_evictions", "lines", "coalesced-cache lines displaced (LRU)")),
      cc_invalidations_(ICC_STAT("cc_write_invalidations", "lines",
                                 "coalesced-cache lines invalidated by a store or atomic")),
      broadcasts_(ICC_STAT("broadcast_replies", "replies",
                           "replies delivered to a merged requester (beyond the leader)")),
      noc_requests_(ICC_STAT("noc_requests", "requests", "requests sent to the NoC port")),
      broadcast_stalls_(ICC_STAT("broadcast_stalls", "replies",
                                 "NoC replies held at the port: a broadcast queue lacked room")),
      broadcast_depth_(ctx.stats.distribution(
          this->name(), "icc", "broadcast_queue_depth", "packets",
          "packets in an L1's broadcast queue when a packet joins it (max: at most "
          "icc.broadcast_queue)")),
#undef ICC_STAT
#define CL_STAT(n, u, d) ctx.stats.counter(this->name(), "cluster", n, u, d)
      icl_requests_(CL_STAT("read_requests", "requests",
                            "reads leaving the cluster's L1s (before coalescing)")),
      icl_line_(CL_STAT("redundant_line_sharing", "requests",
                        "reads of a line another windowed read touched, disjoint words")),
      icl_data_(CL_STAT("redundant_data_sharing", "requests",
                        "reads of a word another windowed read also read"))
#undef CL_STAT
{
  if (cfg.merge_table && cfg.merge_entries == 0)
    throw std::invalid_argument("ICC merge table needs at least one entry");
  if (cfg.broadcast_queue == 0)
    throw std::invalid_argument("ICC broadcast queues need at least one entry");
  const std::uint32_t entries = cfg.merge_table ? cfg.merge_entries : 0;
  if (!cfg.merge_table || cfg.model == MergeTableModel::Tlm) {
    table_ = std::make_unique<TlmMergeTable>(entries, cfg.first_sm);
  } else {
    auto fail = [this](const std::string& msg) { ctx_.fail(msg); };
    auto rtl = make_rtl_merge_table("merge_table_rtl", entries, cfg.sms, cfg.first_sm,
                                    cfg.line_bytes, fail);
    rtl_cycles_ = &ctx.stats.counter(this->name(), "icc", "rtl_cycles", "cycles",
                                     "clock cycles of the Verilated merge table (one per "
                                     "operation the transactor drives)");
    if (cfg.model == MergeTableModel::Rtl) {
      table_ = std::move(rtl);
    } else {
      auto lockstep = std::make_unique<LockstepMergeTable>(
          std::move(rtl), std::make_unique<TlmMergeTable>(entries, cfg.first_sm), this->name(),
          fail);
      lockstep_ = lockstep.get();
      table_ = std::move(lockstep);
      lockstep_checks_ = &ctx.stats.counter(this->name(), "icc", "lockstep_checks", "operations",
                                            "merge-table operations compared between RTL and TLM");
      lockstep_probes_ =
          &ctx.stats.counter(this->name(), "icc", "lockstep_probes", "replies",
                             "reply probes (no clock edge) compared between RTL and TLM");
    }
  }
  cpu.register_nb_transport_fw(this, &IntraClusterCoalescer::nb_fw);
  cpu.register_b_transport(this, &IntraClusterCoalescer::b_transport);
  cpu.register_transport_dbg(this, &IntraClusterCoalescer::transport_dbg);
  noc.register_nb_transport_bw(this, &IntraClusterCoalescer::nb_bw);
  for (std::uint32_t i = 0; i < cfg.sms; ++i) {
    up_.push_back(std::make_unique<TargetPort>("up"));
    up_.back()->bind([this, i](Payload& gp, tlm::tlm_phase& ph,
                               sc_core::sc_time& d) { return cpu[i]->nb_transport_bw(gp, ph, d); },
                     [this, i](Payload& gp) { return try_accept(i, gp, clk_.now()); },
                     [this]() { kick(clk_.next_edge_cycle()); });
  }
  down_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return noc->nb_transport_fw(gp, ph, d); },
             [this](Payload& gp) { return on_reply(gp); },
             [this]() { kick(clk_.next_edge_cycle()); });
  step_ev_.bind<&IntraClusterCoalescer::step_method>(this,
                                                     std::string(this->name()) + ".step_method");
}

void IntraClusterCoalescer::count_table_op() {
  if (rtl_cycles_) ++*rtl_cycles_;
  if (lockstep_checks_) lockstep_checks_->set(lockstep_->checks());
}

void IntraClusterCoalescer::invalidate_all() {
  if (cfg_.coalesced_cache) cc_.invalidate_all();
}

std::uint32_t IntraClusterCoalescer::port_of(const Payload& gp) const {
  return gpu_ext(const_cast<Payload&>(gp)).sm - cfg_.first_sm;
}

bool IntraClusterCoalescer::can_accept(std::uint32_t port) const {
  // Room for a request towards the NoC in case the lookup misses, and, with a coalesced cache,
  // room in the requester's broadcast queue in case it hits.
  return to_noc_.size() < cfg_.queue &&
         (!cfg_.coalesced_cache || to_l1_[port].size() < cfg_.broadcast_queue);
}

bool IntraClusterCoalescer::try_accept(std::uint32_t, Payload& gp, Cycle now) {
  // One lookup per cycle (the unit is the cluster's single path to its port).
  if (!clk_.on_edge(now) || now == last_accept_ || !can_accept(port_of(gp))) {
    kick(std::max(clk_.next_edge_cycle(), now + (now == last_accept_ ? 1 : 0)));
    return false;
  }
  last_accept_ = now;
  process(port_of(gp), gp, now);
  return true;
}

void IntraClusterCoalescer::process(std::uint32_t port, Payload& gp, Cycle now) {
  GpuExtension& e = gpu_ext(gp);
  const Addr line = gp.get_address() & ~Addr{cfg_.line_bytes - 1};
  const Cycle ready = now + cfg_.latency;
  e.at(name());
  if (e.kind != AccessKind::Load) {
    // Writes bypass the merge table (§6.1) and evict a CC copy so the CC never serves data
    // older than a store that went past it.
    ++writes_;
    if (cfg_.merge_table && rtl_cycles_) {
      table_->bypass(gp, line, now);
      count_table_op();
    }
    if (cfg_.coalesced_cache && cc_.invalidate(line)) ++cc_invalidations_;
    to_noc_.push(ready, &gp);
    kick(ready);
    return;
  }
  ++reads_;
  // Equation (1) counts the bytes the warps asked for, not the L1's (possibly whole-line) fetch.
  const ByteMask& wanted = e.demand.any() ? e.demand : e.bytes;
  ++icl_requests_;
  switch (icl_.observe(line, wanted, now)) {
    case RequestLocality::LineSharing:
      ++icl_line_;
      break;
    case RequestLocality::DataSharing:
      ++icl_data_;
      break;
    case RequestLocality::First:
      break;
  }
  if (cfg_.coalesced_cache && cc_.lookup(line, e.bytes)) {
    ++cc_hits_;
    if (const std::uint8_t* d = cc_.data(line))
      copy_masked(gp.get_data_ptr(), d, e.bytes, cfg_.line_bytes);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    deliver(port, gp, ready, ++group_);
    return;
  }
  if (cfg_.merge_table) {
    const MergeOutcome o = table_->lookup(gp, line, now);
    count_table_op();
    switch (o) {
      case MergeOutcome::Merged:
        ++merge_hits_;
        return;  // waits in the entry for the leader's reply
      case MergeOutcome::Allocated:
        ++merge_allocs_;
        break;
      case MergeOutcome::Full:
        ++merge_full_;
        break;
      case MergeOutcome::Uncovered:
        ++merge_uncovered_;
        break;
    }
  }
  to_noc_.push(ready, &gp);
  kick(ready);
}

bool IntraClusterCoalescer::on_reply(Payload& gp) {
  if (take_reply(gp)) return true;
  // Held at the port (the NoC cannot send this port another reply meanwhile); step_method
  // takes it once the broadcast queues have drained.
  ++broadcast_stalls_;
  return false;
}

bool IntraClusterCoalescer::broadcast_room(const std::vector<std::uint16_t>& sms) {
  // One slot in the queue of every SM on the list (several requests of one SM share it).
  for (std::uint16_t sm : sms)
    if (to_l1_[sm - cfg_.first_sm].size() >= cfg_.broadcast_queue) return false;
  return true;
}

bool IntraClusterCoalescer::take_reply(Payload& gp) {
  GpuExtension& e = gpu_ext(gp);
  const Cycle ready = clk_.next_edge_cycle() + cfg_.latency;
  const Addr line = gp.get_address() & ~Addr{cfg_.line_bytes - 1};
  const bool table = e.kind == AccessKind::Load && cfg_.merge_table;
  // The SMs this reply goes to, before anything changes: the table is looked up again (and
  // changed) only if every one of their queues has room.
  sms_scratch_.clear();
  const bool probed = table && table_->probe_release(gp, line, ready - cfg_.latency, sms_scratch_);
  if (lockstep_probes_ && table) lockstep_probes_->set(lockstep_->probes());
  if (!probed) sms_scratch_.assign(1, e.sm);
  if (!broadcast_room(sms_scratch_)) return false;
  e.at(name());
  sms_scratch_.clear();
  merged_scratch_.clear();
  bool released = false;
  const std::uint64_t group = ++group_;
  if (table) {
    released = table_->release(gp, line, ready - cfg_.latency, sms_scratch_, merged_scratch_);
    count_table_op();
  }
  if (released) {
    for (Payload* m : merged_scratch_) {
      GpuExtension& me = gpu_ext(*m);
      copy_masked(m->get_data_ptr(), gp.get_data_ptr(), me.bytes, cfg_.line_bytes);
      m->set_response_status(gp.get_response_status());
      me.at(name());
      e.requesters.push_back(me.sm);
      ++broadcasts_;
      deliver(port_of(*m), *m, ready, group);
    }
    // §6.3: only lines that were effectively coalesced (the entry had more than one requester)
    // enter the CC.
    if (cfg_.coalesced_cache && !merged_scratch_.empty()) {
      ++cc_fills_;
      if (cc_.fill(line, e.bytes, ctx_.check_data ? gp.get_data_ptr() : nullptr)) ++cc_evictions_;
    }
  }
  deliver(port_of(gp), gp, ready, group);
  return true;
}

void IntraClusterCoalescer::deliver(std::uint32_t port, Payload& gp, Cycle when,
                                    std::uint64_t group) {
  std::deque<BroadcastSlot>& q = to_l1_[port];
  if (q.empty() || q.back().group != group) {
    q.push_back(BroadcastSlot{when, group, {}, 0});
    broadcast_depth_.sample(q.size());
  }
  q.back().reqs.push_back(&gp);
  kick(when);
}

void IntraClusterCoalescer::step_method() {
  const Cycle now = clk_.now();
  if (!clk_.on_edge(now)) {
    kick(now + 1);
    return;
  }
  Cycle next = ~Cycle{0};
  // Held requests, round-robin over the L1s.
  // The first L1 in round-robin order whose request can go on (one lookup per cycle).
  bool held = false;
  for (std::uint32_t k = 0; k < cfg_.sms && now != last_accept_; ++k) {
    const std::uint32_t i = (rr_ + k) % cfg_.sms;
    Payload* gp = up_[i]->held_request();
    if (!gp) continue;
    held = true;
    if (!can_accept(i)) continue;
    last_accept_ = now;
    process(i, *gp, now);
    up_[i]->accept_request();
    rr_ = (i + 1) % cfg_.sms;
    break;
  }
  for (std::uint32_t i = 0; i < cfg_.sms && !held; ++i) held = up_[i]->held_request() != nullptr;
  // Towards the NoC: one request per cycle when the port's request channel is free.
  if (!down_.busy() && to_noc_.ready(now)) {
    ++noc_requests_;
    down_.send(*to_noc_.pop());
  }
  if (!to_noc_.empty() && !down_.busy())
    next = std::min(next, std::max(to_noc_.next_cycle(), now + 1));
  // Towards the L1s: one response per L1 per cycle.
  for (std::uint32_t i = 0; i < cfg_.sms; ++i) {
    std::deque<BroadcastSlot>& q = to_l1_[i];
    if (q.empty()) continue;
    if (!up_[i]->response_busy() && delivered_[i] != now && q.front().when <= now) {
      delivered_[i] = now;
      BroadcastSlot& slot = q.front();
      Payload* gp = slot.reqs[slot.next++];
      if (slot.next == slot.reqs.size()) q.pop_front();  // the slot is free again
      up_[i]->respond(*gp);
    }
    if (!q.empty() && !up_[i]->response_busy())
      next = std::min(next, std::max(q.front().when, now + 1));
  }
  // A reply held at the port for want of broadcast-queue room: the deliveries above may have
  // made room.
  if (Payload* r = down_.held_response()) {
    if (take_reply(*r)) down_.accept_response();
  }
  // A held request waits for the next cycle, or for queue room (a send wakes us).
  if (held && (to_noc_.size() < cfg_.queue)) next = std::min(next, now + 1);
  if (next != ~Cycle{0}) kick(next);
}

}  // namespace locsim
