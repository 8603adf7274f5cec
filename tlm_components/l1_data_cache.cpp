#include "tlm_components/l1_data_cache.h"

#include <cstring>

namespace locsim {

namespace {
ByteMask sector_bytes_mask(std::uint32_t sectors, std::uint32_t sector_bytes) {
  ByteMask m;
  for (unsigned s = 0; s < 32 && (sectors >> s) != 0; ++s)  // s == 32 would shift by the width
    if ((sectors >> s) & 1u) m.set_range(s * sector_bytes, sector_bytes);
  return m;
}
}  // namespace

L1DataCache::L1DataCache(sc_core::sc_module_name name, const L1Config& cfg, SimContext& ctx)
    : sc_module(name),
      cpu("cpu"),
      mem("mem"),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      up_("up"),
      down_("down"),
      policy_(L1PolicyConfig{cfg.geometry, cfg.enabled, cfg.bypass, cfg.pdp, cfg.mshr_entries,
                             cfg.mshr_max_merge}),
      miss_queue_(cfg.miss_queue),
      bypass_queue_(cfg.bypass_queue),
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
      fills_(L1_STAT("fills", "lines", "fills received from below"))
#undef L1_STAT
{
  if (ctx.check_data) data_.assign(cfg.geometry.capacity_bytes(), 0);
  cpu.register_nb_transport_fw(this, &L1DataCache::nb_fw);
  cpu.register_b_transport(this, &L1DataCache::b_transport);
  cpu.register_transport_dbg(this, &L1DataCache::transport_dbg);
  mem.register_nb_transport_bw(this, &L1DataCache::nb_bw);
  up_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                  sc_core::sc_time& d) { return cpu->nb_transport_bw(gp, ph, d); },
           [this](Payload& gp) { return on_request(gp); },
           [this]() { resp_ev_.notify(sc_core::SC_ZERO_TIME); });
  down_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return mem->nb_transport_fw(gp, ph, d); },
             [this](Payload& gp) { return on_response_from_below(gp); }, [this]() { send_down(); });
  SC_HAS_PROCESS(L1DataCache);
  SC_METHOD(retry_method);
  sensitive << retry_ev_;
  dont_initialize();
  SC_METHOD(response_method);
  sensitive << resp_ev_;
  dont_initialize();
}

std::uint8_t* L1DataCache::line_data(Addr line) {
  const TagArray& tags = policy_.tags();
  int way = tags.find(line);
  if (way < 0 || data_.empty()) return nullptr;
  const CacheGeometry& g = tags.geometry();
  return &data_[(std::size_t(tags.set_index(line)) * g.ways + way) * g.line_bytes];
}

bool L1DataCache::on_request(Payload& gp) {
  const Cycle now = clk_.now();
  if (now == last_accept_ || sc_core::sc_time_stamp() != clk_.at(now)) {
    // One request per cycle: take this one at the next edge.
    retry_ev_.notify(clk_.until(clk_.next_edge_cycle() + (now == last_accept_ ? 1 : 0)));
    held_cause_ = ReservationFail::None;
    return false;
  }
  ReservationFail f = process(gp, now);
  if (f == ReservationFail::None) {
    last_accept_ = now;
    observe_accepted(gp);
    return true;
  }
  held_cause_ = f;
  held_since_ = now;
  return false;
}

void L1DataCache::note_retry_outcome(ReservationFail f, Cycle now) {
  if (held_cause_ == ReservationFail::BypassQueue && now > held_since_) {
    bypass_stalls_ += now - held_since_;
  } else if (held_cause_ != ReservationFail::None && now > held_since_) {
    // The held request failed in every cycle from held_since_ up to now (exclusive).
    std::uint64_t n = now - held_since_;
    rf_ += n;
    if (on_reservation_fail) on_reservation_fail(n);
    switch (held_cause_) {
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
      case ReservationFail::BypassQueue:
        break;
    }
  }
  held_cause_ = f;
  held_since_ = now;
}

void L1DataCache::observe_accepted(Payload& gp) {
  GpuExtension& e = gpu_ext(gp);
  if (on_load_access && e.kind == AccessKind::Load && cfg_.enabled)
    on_load_access(policy_.tags().line_addr(gp.get_address()), e);
}

void L1DataCache::retry_method() {
  Payload* gp = up_.held_request();
  if (!gp) return;
  const Cycle now = clk_.now();
  if (sc_core::sc_time_stamp() != clk_.at(now) || now == last_accept_) {
    retry_ev_.notify(clk_.until(now + 1));
    return;
  }
  ReservationFail f = process(*gp, now);
  note_retry_outcome(f, now);
  if (f == ReservationFail::None) {
    last_accept_ = now;
    observe_accepted(*gp);
    up_.accept_request();
  }
}

ReservationFail L1DataCache::process(Payload& gp, Cycle now) {
  GpuExtension& e = gpu_ext(gp);
  const L1Decision d = policy_.access(e.kind, gp.get_address(), e.bytes, e.bypass_rank, &gp,
                                      miss_queue_.full(), bypass_queue_.full());
  if (d.outcome == L1Outcome::Fail) return d.fail;
  ++accesses_;
  if (d.evicted) ++evictions_;
  e.at(name());
  switch (d.outcome) {
    case L1Outcome::WriteThrough:
      ++(e.kind == AccessKind::Atomic ? atomics_ : stores_);
      miss_queue_.push(&gp);
      send_down();
      break;
    case L1Outcome::Bypass:
    case L1Outcome::PdpBypass:
      // Seed 004 Figure 1 bypass path: no line, MSHR or miss-queue entry; the request itself
      // goes to the L2 and its reply passes through.
      ++bypassed_;
      if (d.outcome == L1Outcome::PdpBypass) ++pdp_bypasses_;
      (d.via_bypass_queue ? bypass_queue_ : miss_queue_).push(&gp);
      send_down();
      break;
    case L1Outcome::Hit:
      ++hits_;
      if (std::uint8_t* data = line_data(d.line))
        copy_masked(gp.get_data_ptr(), data, e.bytes, policy_.tags().geometry().line_bytes);
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      responses_.push(now + cfg_.hit_latency, &gp);
      resp_ev_.notify(clk_.until(now + 1));
      break;
    case L1Outcome::MshrMerge:
      ++mshr_hits_;
      break;
    case L1Outcome::Miss:
    case L1Outcome::SectorMiss:
      ++misses_;
      if (d.outcome == L1Outcome::SectorMiss) ++sector_misses_;
      send_fill_request(gp, d.line, d.fetch);
      break;
    case L1Outcome::Fail:
      break;
  }
  return ReservationFail::None;
}

void L1DataCache::send_fill_request(const Payload& gp, Addr line, std::uint32_t fetch) {
  const GpuExtension& e = gpu_ext(const_cast<Payload&>(gp));
  const CacheGeometry& g = policy_.tags().geometry();
  Payload* f = ctx_.pool.allocate();
  GpuExtension& fe = gpu_ext(*f);
  fe.sm = e.sm;
  fe.cluster = e.cluster;
  fe.warp = e.warp;
  fe.cta = e.cta;
  fe.kernel = e.kernel;
  fe.pc = e.pc;
  fe.data_structure = e.data_structure;
  fe.kind = AccessKind::Load;
  fe.bytes = sector_bytes_mask(fetch, g.sector_bytes);
  fe.sector_mask = fe.bytes.sector_mask(kTransferSectorBytes);
  fe.demand = e.bytes;
  fe.requesters.push_back(e.sm);
  fe.owner = this;
  fe.issue_ps = e.issue_ps;
  fe.at(name());
  f->set_command(tlm::TLM_READ_COMMAND);
  f->set_address(line);
  f->set_data_length(g.line_bytes);
  f->set_streaming_width(g.line_bytes);
  miss_queue_.push(f);
  send_down();
}

void L1DataCache::send_down() {
  bool popped = false;
  while (!down_.busy() && (!miss_queue_.empty() || !bypass_queue_.empty())) {
    const bool bypass = !bypass_queue_.empty() && (bypass_turn_ || miss_queue_.empty());
    Payload* gp = bypass ? bypass_queue_.pop() : miss_queue_.pop();
    bypass_turn_ = !bypass;
    popped = true;
    down_.send(*gp);
  }
  if (popped && up_.held_request()) retry_ev_.notify(clk_.until(clk_.next_edge_cycle() + 1));
}

bool L1DataCache::on_response_from_below(Payload& gp) {
  GpuExtension& e = gpu_ext(gp);
  const Cycle now = clk_.next_edge_cycle();
  if (e.owner == this) {
    const Addr line = gp.get_address();
    const CacheGeometry& g = policy_.tags().geometry();
    const unsigned lb = g.line_bytes;
    const std::vector<Payload*> waiting = policy_.fill(line, e.bytes.sector_mask(g.sector_bytes));
    ++fills_;
    std::uint8_t* d = line_data(line);
    if (d) copy_masked(d, gp.get_data_ptr(), e.bytes, lb);
    for (Payload* r : waiting) {
      if (d) copy_masked(r->get_data_ptr(), d, gpu_ext(*r).bytes, lb);
      r->set_response_status(tlm::TLM_OK_RESPONSE);
      gpu_ext(*r).at(name());
      responses_.push(now + 1, r);
    }
    gp.release();
    if (up_.held_request()) retry_ev_.notify(clk_.until(now + 1));
  } else {
    e.at(name());
    responses_.push(now + 1, &gp);
  }
  resp_ev_.notify(clk_.until(now + 1));
  return true;
}

void L1DataCache::response_method() {
  const Cycle now = clk_.now();
  if (sc_core::sc_time_stamp() != clk_.at(now) || now == last_response_) {
    resp_ev_.notify(clk_.until(now + 1));
    return;
  }
  if (up_.response_busy()) return;  // the SM's END_RESP wakes us
  if (responses_.ready(now)) {
    last_response_ = now;
    up_.respond(*responses_.pop());
  }
  if (!responses_.empty()) resp_ev_.notify(clk_.until(std::max(responses_.next_cycle(), now + 1)));
}

}  // namespace locsim
