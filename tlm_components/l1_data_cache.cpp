#include "tlm_components/l1_data_cache.h"

#include <cstring>

namespace locsim {

L1DataCache::L1DataCache(sc_core::sc_module_name name, const L1Config& cfg, SimContext& ctx)
    : CacheShell(name, cfg.clock_hz, "cpu", "mem", false),
      ctx_(ctx),
      data_(cfg.geometry, ctx.check_data),
      miss_queue_(cfg.miss_queue),
      bypass_queue_(cfg.bypass_queue),
      policy_(L1PolicyConfig{cfg.geometry, cfg.enabled, cfg.bypass, cfg.pdp, cfg.mshr_entries,
                             cfg.mshr_max_merge, cfg.store_hit_update}),
#define L1_STAT(n, u, d) ctx.stats.counter(this->name(), "l1d", n, u, d)
      accesses_(L1_STAT("accesses", "accesses", "global loads, stores and atomics received")),
      hits_(L1_STAT("hits", "accesses", "loads that found all their sectors valid")),
      misses_(L1_STAT("misses", "accesses", "loads that allocated an MSHR entry and fetched")),
      mshr_hits_(L1_STAT("mshr_hits", "accesses", "loads merged into an in-flight miss")),
      sector_misses_(L1_STAT("sector_misses", "accesses", "misses on a present line (sectored)")),
      rf_(L1_STAT("reservation_fails", "cycles",
                  "cycles a request was refused for lack of a resource")),
      rf_line_(L1_STAT("rf_line_alloc", "cycles", "reservation failures: every way reserved")),
      rf_mshr_(L1_STAT("rf_mshr_entry", "cycles", "reservation failures: MSHR table full")),
      rf_merge_(L1_STAT("rf_mshr_merge", "cycles", "reservation failures: MSHR merge limit")),
      rf_mq_(L1_STAT("rf_miss_queue", "cycles", "reservation failures: miss queue full")),
      bypassed_(L1_STAT("bypassed", "accesses", "loads sent to the L2 without L1 allocation")),
      pdp_bypasses_(L1_STAT("pdp_bypasses", "accesses",
                            "misses bypassed because every way of the set was protected (PDP)")),
      bypass_stalls_(L1_STAT("bypass_stalls", "cycles",
                             "cycles a bypassing load waited for the bypass path (not an RF)")),
      evictions_(L1_STAT("evictions", "lines", "valid lines displaced or write-evicted")),
      stores_(L1_STAT("stores", "accesses", "global store line requests (write-through)")),
      atomics_(L1_STAT("atomics", "accesses", "atomic line requests (performed at L2)")),
      fills_(L1_STAT("fills", "lines", "fills received from below")),
      cfg_(cfg) {
  direct_calls<L1DataCache>();
  if (cfg.store_hit_update)
    store_updates_ =
        &L1_STAT("store_updates", "accesses",
                 "store line requests that hit and updated the line (write_hit=update)");
#undef L1_STAT
}

void L1DataCache::stalled(int cause, std::uint64_t n) {
  switch (static_cast<ReservationFail>(cause)) {
    case ReservationFail::BypassQueue:
      // Waiting for the bypass path is not a reservation failure (seed 004 §5).
      bypass_stalls_ += n;
      return;
    case ReservationFail::LineAlloc:
      rf_line_ += n;
      break;
    case ReservationFail::MshrEntry:
      rf_mshr_ += n;
      break;
    case ReservationFail::MshrMerge:
      rf_merge_ += n;
      break;
    case ReservationFail::MissQueue:
      rf_mq_ += n;
      break;
    case ReservationFail::None:
      return;
  }
  rf_ += n;
  if (on_reservation_fail) on_reservation_fail(n);
}

void L1DataCache::accepted(Payload& gp) {
  on_load_access(policy_.tags().line_addr(gp.get_address()), gpu_ext(gp));
}

void L1DataCache::enable_locality_descriptor(Cycle unpin_period) {
  unpin_period_ = unpin_period;
  next_unpin_ = unpin_period;
  if (ldesc_) return;
#define L1_STAT(n, u, d) &ctx_.stats.counter(this->name(), "l1d", n, u, d)
  ldesc_.reset(new LDescStats{
      L1_STAT("ldesc_no_reuse_bypasses", "accesses",
              "loads of a NO-REUSE data structure sent down without allocation (seed 000 §4.4)"),
      L1_STAT("ldesc_soft_pinned_fills", "lines",
              "lines allocated soft-pinned (INTER-THREAD COACCESSED IRREGULAR)"),
      L1_STAT("ldesc_hard_pinned_fills", "lines", "lines allocated hard-pinned (INTRA-THREAD)"),
      L1_STAT("ldesc_unpins", "events", "periodic resets of every line's priority (unpin timer)"),
      L1_STAT("pf_issued", "lines", "descriptor-guided prefetches sent (seed 000 §4.5)"),
      L1_STAT("pf_useful", "lines", "prefetched lines whose first demand access hit"),
      L1_STAT("pf_late", "lines", "prefetches a demand load merged into while in flight"),
      L1_STAT("pf_evicted_unused", "lines", "prefetched lines evicted before any demand use"),
      L1_STAT("pf_dropped", "prefetches", "prefetches not sent (all causes below)"),
      L1_STAT("pf_drop_outside", "prefetches", "dropped: target outside the data structure"),
      L1_STAT("pf_drop_present", "prefetches", "dropped: line already present"),
      L1_STAT("pf_drop_inflight", "prefetches", "dropped: line already being fetched"),
      L1_STAT("pf_drop_no_line", "prefetches", "dropped: every way of the set reserved"),
      L1_STAT("pf_drop_mshr", "prefetches", "dropped: MSHR table full"),
      L1_STAT("pf_drop_miss_queue", "prefetches", "dropped: miss queue full")});
#undef L1_STAT
}

void L1DataCache::enable_working_set() {
  if (!working_set_)
    working_set_ = &ctx_.stats.counter(name(), "l1d", "working_set_lines", "lines",
                                       "distinct lines the SM's loads touched, summed over "
                                       "kernels (seed 000 §2.1 working set)");
}

void L1DataCache::flush_working_set() {
  if (working_set_) *working_set_ += ws_lines_.size();
  ws_lines_.clear();
}

void L1DataCache::maybe_unpin(Cycle now) {
  // The timer is applied lazily, at the first access after each period boundary: priorities
  // only matter when a victim is chosen, which happens at an access.
  if (!unpin_period_ || now < next_unpin_) return;
  policy_.unpin_all();
  ++*ldesc_->unpins;
  next_unpin_ = (now / unpin_period_ + 1) * unpin_period_;
}

void L1DataCache::invalidate_all() {
  policy_.invalidate_all();
  if (ldesc_) *ldesc_->pf_evicted_unused += pf_unused_.size();
  pf_unused_.clear();
}

void L1DataCache::drop_line(Addr addr) {
  const Addr line = policy_.tags().line_addr(addr);
  if (!policy_.drop(line)) return;
  ++evictions_;
  if (ldesc_) line_evicted(line);
}

void L1DataCache::line_evicted(Addr line) {
  if (pf_unused_.erase(line)) ++*ldesc_->pf_evicted_unused;
}

inline Payload* L1DataCache::fill_request(const GpuExtension& e, Addr line, std::uint32_t fetch,
                                          std::uint32_t slot, AccessKind kind) {
  const CacheGeometry& g = policy_.tags().geometry();
  if (fetch != fill_fetch_) {  // mostly the same sectors as the previous fill request
    fill_fetch_ = fetch;
    fill_bytes_ = ByteMask::of_sectors(fetch, g.sector_bytes);
    fill_transfer_ = fill_bytes_.sector_mask(kTransferSectorBytes);
  }
  PayloadPool::Request r;  // each field written once by allocate()
  r.address = line;
  r.length = g.line_bytes;
  r.ext.sm = e.sm;
  r.ext.cluster = e.cluster;
  r.ext.warp = e.warp;
  r.ext.cta = e.cta;
  r.ext.kernel = e.kernel;
  r.ext.data_structure = e.data_structure;
  r.ext.kind = kind;
  r.ext.bytes = fill_bytes_;
  r.ext.sector_mask = fill_transfer_;
  if (kind == AccessKind::Load) r.ext.demand = e.bytes;
  r.ext.sm_requests = true;
  r.ext.owner = this;
  r.ext.owner_tag = slot;  // the line's frame: its fill finds the line there
  r.ext.issue_ps = e.issue_ps;
  r.ext.parent = e.id;
  Payload* f = ctx_.pool.allocate(r);
  // The pool's payloads are PooledPayloads: the extension without gpu_ext()'s type test (which
  // GCC called out of line here).
  GpuExtension& fe = static_cast<PooledPayload*>(f)->ext;
  fe.at(at_name_);
  return f;
}

inline void L1DataCache::send_below(Payload* gp, bool via_bypass) {
  if (!down_.busy() && miss_queue_.empty() && bypass_queue_.empty()) {
    // What queue_below() would do: the only request waiting is sent.
    bypass_turn_ = !via_bypass;
    down_.send(*gp);
    return;
  }
  queue_below(gp, via_bypass);
}

void L1DataCache::queue_below(Payload* gp, bool via_bypass) {
  (via_bypass ? bypass_queue_ : miss_queue_).push(gp);
  drain();
}

inline bool L1DataCache::drain() {
  bool popped = false;
  while (!down_.busy() && (!miss_queue_.empty() || !bypass_queue_.empty())) {
    const bool bypass = !bypass_queue_.empty() && (bypass_turn_ || miss_queue_.empty());
    Payload* gp = bypass ? bypass_queue_.pop() : miss_queue_.pop();
    bypass_turn_ = !bypass;
    popped = true;
    down_.send(*gp);
  }
  return popped;
}

void L1DataCache::maybe_prefetch(const Payload& gp, const L1Decision& demand) {
  const GpuExtension& e = gpu_ext(const_cast<Payload&>(gp));
  const DsTreatment* t = policy_.treatment(e.data_structure);
  if (!t || t->prefetch == LDescPrefetch::None) return;
  const CacheGeometry& g = policy_.tags().geometry();
  const std::uint32_t tiles =
      e.data_structure < active_tiles_.size() ? active_tiles_[e.data_structure] : 1;
  LDescStats& st = *ldesc_;
  Addr target = 0;
  if (!ldesc_prefetch_target(*t, gp.get_address(), demand.line, g.line_bytes, g.capacity_bytes(),
                             tiles, target)) {
    ++*st.pf_dropped;
    ++*st.pf_drop_outside;
    return;
  }
  L1Decision d;
  using Drop = L1CachePolicy<Payload*>::PrefetchDrop;
  const Drop why = policy_.prefetch(target, nullptr, miss_queue_.full(), t->pin, d);
  if (why != Drop::None) {
    ++*st.pf_dropped;
    switch (why) {
      case Drop::Present:
        ++*st.pf_drop_present;
        break;
      case Drop::InFlight:
        ++*st.pf_drop_inflight;
        break;
      case Drop::NoLine:
        ++*st.pf_drop_line;
        break;
      case Drop::NoMshr:
        ++*st.pf_drop_mshr;
        break;
      case Drop::MissQueue:
      case Drop::None:
        ++*st.pf_drop_queue;
        break;
    }
    return;
  }
  ++*st.pf_issued;
  if (d.evicted) {
    ++evictions_;
    line_evicted(d.evicted_line);
  }
  if (d.pin) ++*(d.pin == kPinHard ? st.hard_fills : st.soft_fills);
  pf_inflight_[d.line] = false;
  queue_below(fill_request(e, d.line, d.fetch, d.slot, AccessKind::Prefetch), false);
}

void L1DataCache::note_working_set(Addr line) {
  ws_lines_.insert(line);
}

void L1DataCache::ldesc_hit(Addr line) {
  if (pf_unused_.erase(line)) ++*ldesc_->pf_useful;
}

void L1DataCache::ldesc_merge(Addr line) {
  auto it = pf_inflight_.find(line);
  if (it != pf_inflight_.end() && !it->second) {
    ++*ldesc_->pf_late;
    it->second = true;
  }
}

int L1DataCache::process(Payload& gp, Cycle now) {
  GpuExtension& e = gpu_ext(gp);
  if (ldesc_) maybe_unpin(now);
  L1Decision d;
  policy_.access(e.kind, gp.get_address(), e.bytes, e.bypass_rank, &gp, miss_queue_.full(),
                 bypass_queue_.full(), e.data_structure, d);
  if (d.outcome == L1Outcome::Fail) return static_cast<int>(d.fail);
  ++accesses_;
  if (working_set_ && e.kind == AccessKind::Load) note_working_set(d.line);
  if (d.evicted) {
    ++evictions_;
    if (ldesc_) line_evicted(d.evicted_line);
  }
  e.at(at_name_);
  if (on_load_outcome && e.kind == AccessKind::Load &&
      (d.outcome == L1Outcome::Hit || d.outcome == L1Outcome::MshrMerge ||
       d.outcome == L1Outcome::Miss || d.outcome == L1Outcome::SectorMiss))
    on_load_outcome(d.line, d.outcome, gp);
  // What goes below (one send_below() for every outcome: the link's send inline once).
  Payload* below = nullptr;
  switch (d.outcome) {
    case L1Outcome::WriteThrough:
      ++(e.kind == AccessKind::Atomic ? atomics_ : stores_);
      if (d.updated) {
        ++*store_updates_;
        if (std::uint8_t* data = line_data(d.line))
          copy_masked(data, gp.get_data_ptr(), e.bytes, policy_.tags().geometry().line_bytes);
      }
      below = &gp;
      break;
    case L1Outcome::Bypass:
    case L1Outcome::PdpBypass:
      // Seed 004 Figure 1 bypass path: no line, MSHR or miss-queue entry; the request itself
      // goes to the L2 and its reply passes through.
      ++bypassed_;
      if (d.outcome == L1Outcome::PdpBypass) ++pdp_bypasses_;
      if (d.no_reuse && ldesc_) ++*ldesc_->no_reuse;
      below = &gp;
      break;
    case L1Outcome::Hit:
      ++hits_;
      if (ldesc_) ldesc_hit(d.line);
      if (std::uint8_t* data = line_data(d.line))
        copy_masked(gp.get_data_ptr(), data, e.bytes, policy_.tags().geometry().line_bytes);
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      queue_response(now + cfg_.hit_latency, gp);
      wake_responses(now);  // process() runs at an edge: now is the next edge's cycle
      break;
    case L1Outcome::MshrMerge:
      ++mshr_hits_;
      if (ldesc_) ldesc_merge(d.line);
      break;
    case L1Outcome::Miss:
    case L1Outcome::SectorMiss:
      ++misses_;
      if (d.outcome == L1Outcome::SectorMiss) ++sector_misses_;
      if (d.pin && ldesc_) ++*(d.pin == kPinHard ? ldesc_->hard_fills : ldesc_->soft_fills);
      below = fill_request(e, d.line, d.fetch, d.slot);
      break;
    case L1Outcome::Fail:
      break;
  }
  if (below) {
    send_below(below, d.via_bypass_queue);  // no retry_at: see drain()
    // R6.1: on a primary miss, after its own fill request.
    if (ldesc_ && (d.outcome == L1Outcome::Miss || d.outcome == L1Outcome::SectorMiss))
      maybe_prefetch(gp, d);
  }
  // The load-stream observer sees every accepted load, in accepted() (after the shell's stall
  // accounting, which it observes too).
  if (on_load_access && cfg_.enabled && e.kind == AccessKind::Load) call_accepted_ = true;
  return 0;
}

void L1DataCache::send_down() {
  // A miss-queue slot or MSHR entry freed in cycle t serves the request of cycle t, whichever of
  // the two SystemC runs first (a retry at the same edge; docs/validation.md, "Event-order
  // sensitivity").
  if (drain()) retry_at(clk_.next_edge_cycle());
}

bool L1DataCache::on_response_from_below(Payload& gp) {
  GpuExtension& e = gpu_ext(gp);
  const Cycle now = clk_.next_edge_cycle();
  if (e.owner == this) {
    const Addr line = gp.get_address();
    const CacheGeometry& g = policy_.tags().geometry();
    const unsigned lb = g.line_bytes;
    std::uint8_t* d = line_data(line);
    if (d) copy_masked(d, gp.get_data_ptr(), e.bytes, lb);
    // GpuExtension::at() for each released request, the time and the timeline read once (a
    // timeline's moved() changes neither).
    const sc_core::sc_time since = sim_time();
    Timeline* const timeline = Timeline::active();
    // The completed requests' responses are queued as the MSHR entry releases them (before the
    // fill's sectors are marked valid, which nothing here looks at).
    policy_.fill_each(line, e.bytes.sector_mask(g.sector_bytes),
                      static_cast<std::uint32_t>(e.owner_tag), [&](Payload* r) {
                        if (!r) return;  // a prefetch's marker: no warp waits for it
                        GpuExtension& re = gpu_ext(*r);
                        if (d) copy_masked(r->get_data_ptr(), d, re.bytes, lb);
                        r->set_response_status(tlm::TLM_OK_RESPONSE);
                        if (timeline) timeline->moved(re, at_name_);
                        re.where = at_name_;
                        re.since = since;
                        queue_response(now + 1, *r);
                      });
    ++fills_;
    if (on_fill) on_fill(line);
    if (ldesc_) {
      auto it = pf_inflight_.find(line);
      if (it != pf_inflight_.end()) {
        if (!it->second) pf_unused_.insert(line);  // no demand merged: unused so far
        pf_inflight_.erase(it);
      }
    }
    gp.release();
    retry_at(now);  // the freed entry serves this cycle's request (see send_down)
  } else {
    e.at(at_name_);
    queue_response(now + 1, gp);
  }
  wake_responses(now);
  return true;
}

}  // namespace locsim
