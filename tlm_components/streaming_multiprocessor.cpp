#include "tlm_components/streaming_multiprocessor.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace locsim {

namespace {
constexpr Cycle kNeverCycle = ~Cycle{0};
bool is_global_mem(WarpOp op) {
  return op == WarpOp::Load || op == WarpOp::Store || op == WarpOp::Atomic;
}
bool is_shared_mem(WarpOp op) {
  return op == WarpOp::SharedLoad || op == WarpOp::SharedStore;
}
}  // namespace

StreamingMultiprocessor::StreamingMultiprocessor(sc_core::sc_module_name name, const SmConfig& cfg,
                                                 SimContext& ctx)
    : sc_module(name),
      mem("mem"),
      launch("launch"),
      done("done"),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      port_("mem_port"),
      warps_(cfg.resources.max_warps),
      masks_((cfg.resources.max_warps + 63) / 64),
      idle_warps_(masks_.size(), 0),
      sched_warps_(cfg.schedulers, std::vector<std::uint64_t>(masks_.size(), 0)),
      one_word_(masks_.size() == 1),
      ctas_(cfg.resources.max_ctas),
      warp_insts_(ctx.stats.counter(this->name(), "sm", "warp_insts", "instructions",
                                    "warp instructions issued")),
      thread_insts_(ctx.stats.counter(this->name(), "sm", "thread_insts", "instructions",
                                      "thread instructions issued (active lanes)")),
      active_cycles_(ctx.stats.counter(this->name(), "sm", "issue_cycles", "cycles",
                                       "core cycles in which at least one warp issued")),
      mem_insts_(ctx.stats.counter(this->name(), "sm", "global_mem_insts", "instructions",
                                   "global load/store/atomic warp instructions")),
      line_requests_(ctx.stats.counter(this->name(), "sm", "line_requests", "requests",
                                       "line requests after intra-warp coalescing")),
      shared_insts_(ctx.stats.counter(this->name(), "sm", "shared_mem_insts", "instructions",
                                      "shared-memory warp instructions")),
      shared_conflict_cycles_(ctx.stats.counter(this->name(), "sm", "shared_conflict_cycles",
                                                "cycles", "extra cycles from bank conflicts")),
      ldst_stall_(ctx.stats.counter(this->name(), "sm", "ldst_full_events", "events",
                                    "times the load/store queue filled (memory back-pressure)")),
      ctas_done_(ctx.stats.counter(this->name(), "sm", "ctas_completed", "CTAs",
                                   "CTAs that ran to completion")),
      sb_stall_cycles_(ctx.stats.counter(
          this->name(), "sm", "scoreboard_stall_cycles", "cycles",
          "warp-cycles an otherwise ready instruction waited for a load it depends on")),
      sb_stalled_insts_(ctx.stats.counter(this->name(), "sm", "scoreboard_stalled_insts",
                                          "instructions",
                                          "instructions that had to wait for an outstanding load")),
      load_latency_(ctx.stats.distribution(this->name(), "sm", "load_latency", "ps",
                                           "SM-observed latency of a global load line request")) {
  line_sectors_ = cfg.line_bytes / cfg.sector_bytes;
  // coalesce_linear()'s whole-line request but for its address (none when the line is not 32
  // lanes of 1 to 4 bytes or has more than 32 sectors: whole_line_size_ stays 0, no access size).
  if (cfg.line_bytes % kWarpSize == 0 && line_sectors_ <= 32) {
    whole_line_size_ = cfg.line_bytes / kWarpSize;
    std::vector<LineRequest> one;
    coalesce_linear(0, whole_line_size_, cfg.line_bytes, cfg.sector_bytes, one, line_sectors_);
    sc_assert(one.size() == 1);
    whole_line_ = one[0];
  }
  // This SM's first share of the payload pool, built now rather than while simulating: a line
  // request per warp slot and a full LD/ST queue.
  ctx.pool.reserve_more(cfg.resources.max_warps + cfg.ldst_queue);
  for (std::uint32_t i = 0; i < cfg.resources.max_warps; ++i) {
    sched_warps_[i % cfg.schedulers][i >> 6] |= std::uint64_t{1} << (i & 63);
    idle_warps_[i >> 6] |= std::uint64_t{1} << (i & 63);
  }
  sc_assert(cfg.schedulers >= 1 && cfg.schedulers <= kMaxSchedulers);
  last_issued_.fill(-1);
  for (std::uint32_t s = 0; s < cfg.schedulers; ++s)
    sched_word_[s] = sched_warps_[s].empty() ? 0 : sched_warps_[s][0];
  const std::uint32_t S = cfg.schedulers;
  if (S >= 4 && S <= 32 && (S & (S - 1)) == 0) sched_fold_ = __builtin_ctz(S);
  gto_one_word_ = one_word_ && cfg.policy == WarpSchedulerPolicy::Gto;
  fast_path_ = gto_one_word_ && !cfg.warp_limit && (S == 2 || S == 4);
  if (!cfg.rotate_issue)
    first_mask_ = 0;
  else if ((S & (S - 1)) == 0)
    first_mask_ = S - 1;
  launch.bind(*this);
  mem.register_nb_transport_bw(this, &StreamingMultiprocessor::nb_transport_bw);
  port_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return mem->nb_transport_fw(gp, ph, d); },
             [this](Payload& gp) { return on_response(gp); },
             [this]() {
               // END_REQ (about one per line request): the send inline in the port's callback
               // (an out-of-line call cost about 9 instructions per transaction on fermi).
               if (!port_.busy() && !ldst_queue_.empty()) send_queued_at(clk_.now());
             });
  // The activation's method chosen once for the configuration (no per-run tests of it).
  const std::string act_name = std::string(this->name()) + ".cycle_method";
  if (fast_path_ && S == 4)
    wake_.bind<&StreamingMultiprocessor::cycle_method<4>>(this, act_name);
  else if (fast_path_)
    wake_.bind<&StreamingMultiprocessor::cycle_method<2>>(this, act_name);
  else
    wake_.bind<&StreamingMultiprocessor::cycle_method<0>>(this, act_name);
}

// Every caller asks for an edge after the current cycle: the edge's time needs no comparison with
// the time now (ClockDomain::ps_at()).
void StreamingMultiprocessor::schedule_wake(Cycle c) {
  if (c >= wake_at_) return;
  wake_at_ = c;
  const std::uint64_t t_ps = c * clk_.period().value();
  sc_assert(t_ps > sim_time().value());
  wake_.notify_at(t_ps);
}

void StreamingMultiprocessor::launch_cta(const Kernel& k, std::uint16_t kernel_seq,
                                         std::uint32_t cta) {
  std::uint32_t slot = 0;
  while (slot < ctas_.size() && ctas_[slot].active) ++slot;
  sc_assert(slot < ctas_.size());
  CtaSlot& c = ctas_[slot];
  c = CtaSlot();
  c.active = true;
  c.cta = cta;
  c.kernel_seq = kernel_seq;
  c.kernel = &k;
  c.launch_seq = launch_counter_++;
  c.older = resident_;  // the youngest: every resident CTA is older
  const std::uint32_t nw = k.warps_per_cta();
  Cycle now = clk_.next_edge_cycle();
  std::size_t word = 0;
  for (std::uint32_t w = 0; w < nw; ++w) {
    // The lowest idle slot, as a scan of the warps' active flags finds it.
    while (word < idle_warps_.size() && !idle_warps_[word]) ++word;
    sc_assert(word < idle_warps_.size());
    const std::uint32_t wi =
        static_cast<std::uint32_t>(word * 64 + __builtin_ctzll(idle_warps_[word]));
    idle_warps_[word] &= idle_warps_[word] - 1;
    Warp& wp = warps_[wi];
    static_cast<WarpState&>(wp) = WarpState();
    wp.sb.reset();
    wp.active = true;
    wp.cta_slot = slot;
    wp.warp_in_cta = w;
    wp.age = age_counter_++;
    k.emplace_warp_stream(cta, w, wp.stream);
    wp.ready_at = now + 1;
    fetch(wp, wi);
  }
  c.live_warps = nw;
  ++resident_;
  schedule_wake(now + 1);
}

[[gnu::always_inline]] inline void StreamingMultiprocessor::note_scoreboard(Warp& w,
                                                                            std::uint32_t wi) {
  // Called with ready_at already set: the stall counts from there (a warp only adds to its own
  // scoreboard by issuing, so an instruction that is free now stays free).
  w.sb_stalled = !w.sb.ready(w.inst);
  refresh_fetched(w, wi);  // have_inst, sb_stalled final
  if (!w.sb_stalled) return;
  w.sb_since = w.ready_at;
  ++sb_stalled_insts_;
}

// Inline at its callers (once per issued instruction: the call cost about 15 instructions).
[[gnu::always_inline]] inline void StreamingMultiprocessor::fetch(Warp& w, std::uint32_t wi) {
  w.have_inst = w.stream->next(w.inst);
  if (!w.have_inst) {
    // A stream that ends without Exit is treated as an implicit Exit.
    w.inst = WarpInst();
    w.inst.op = WarpOp::Exit;
    w.have_inst = true;
  }
  if (w.inst.op == WarpOp::Compute) w.compute_left = std::max<std::uint32_t>(1, w.inst.count);
  note_scoreboard(w, wi);
}

// fetch() after a compute (was_global false) or global memory instruction issued: the warp was
// eligible (so not at a barrier), its shared bit was clear and its global bit was was_global, so
// only what the new instruction changes is written.
[[gnu::always_inline]] inline void StreamingMultiprocessor::fetch_issued(Warp& w, std::uint32_t wi,
                                                                         bool was_global) {
  w.have_inst = w.stream->next(w.inst);
  if (!w.have_inst) {
    w.inst = WarpInst();
    w.inst.op = WarpOp::Exit;
    w.have_inst = true;
  }
  MaskWord& mw = masks_[wi >> 6];
  const std::uint64_t bit = std::uint64_t{1} << (wi & 63);
  if (w.inst.op == WarpOp::Compute) {
    w.compute_left = std::max<std::uint32_t>(1, w.inst.count);
    if (was_global) mw.global &= ~bit;
  } else {
    const unsigned op = static_cast<unsigned>(w.inst.op) & 7u;
    if (was_global)
      mw.global &= kGlobalAll[op] | ~bit;
    else
      mw.global |= kGlobalAll[op] & bit;
    mw.shared |= kSharedAll[op] & bit;
  }
  w.sb_stalled = !w.sb.ready(w.inst);
  if (!w.sb_stalled) return;
  mw.eligible &= ~bit;
  w.sb_since = w.ready_at;
  ++sb_stalled_insts_;
}

bool StreamingMultiprocessor::can_issue(std::uint32_t wi, Cycle now) const {
  if (!eligible(wi)) return false;
  const Warp& w = warps_[wi];
  if (w.ready_at > now) return false;
  if (w.age > swl_max_age_) return false;
  if (is_global_mem(w.inst.op))
    return ldst_free_at_ <= now && ldst_occupancy(now) < cfg_.ldst_queue;
  if (is_shared_mem(w.inst.op)) return shared_free_at_ <= now;
  return true;
}

// Inlined into cycle_method, its only caller (twice per activation on fermi).
[[gnu::always_inline]] inline int StreamingMultiprocessor::pick(std::uint32_t s, Cycle now) {
  const std::uint32_t S = cfg_.schedulers, n = static_cast<std::uint32_t>(warps_.size());
  if (cfg_.policy == WarpSchedulerPolicy::Gto) {
    // can_issue() with the unit tests done once for all warps, by masks.
    const bool ldst_ok = ldst_free_at_ <= now && ldst_occupancy(now) < cfg_.ldst_queue;
    const bool shared_ok = shared_free_at_ <= now;
    auto candidates = [&](std::size_t k) {
      const MaskWord& mw = masks_[k];
      std::uint64_t m = mw.eligible;
      if (!ldst_ok) m &= ~mw.global;
      if (!shared_ok) m &= ~mw.shared;
      return m;
    };
    const int last = last_issued_[s];
    if (last >= 0) {
      const Warp& w = warps_[static_cast<std::uint32_t>(last)];
      if (((candidates(static_cast<std::uint32_t>(last) >> 6) >> (last & 63)) & 1u) &&
          w.ready_at <= now && w.age <= swl_max_age_)
        return last;
    }
    // Otherwise the oldest issuable warp of this scheduler.
    int best = -1;
    std::uint64_t best_age = 0;
    for (std::size_t k = 0; k < masks_.size(); ++k) {
      std::uint64_t m = candidates(k) & sched_warps_[s][k];
      for (; m; m &= m - 1) {
        const std::uint32_t i = static_cast<std::uint32_t>(k * 64 + __builtin_ctzll(m));
        const Warp& w = warps_[i];
        if (w.ready_at > now || w.age > swl_max_age_) continue;
        if (best < 0 || w.age < best_age) {
          best = static_cast<int>(i);
          best_age = w.age;
        }
      }
    }
    return best;
  }
  // Loose round-robin: the next issuable warp after the last one issued.
  std::uint32_t slots = (n - s + S - 1) / S;
  std::uint32_t start =
      last_issued_[s] < 0 ? 0 : (static_cast<std::uint32_t>(last_issued_[s]) - s) / S + 1;
  for (std::uint32_t k = 0; k < slots; ++k) {
    std::uint32_t i = s + ((start + k) % slots) * S;
    if (can_issue(i, now)) return static_cast<int>(i);
  }
  return -1;
}

// pick() and issue() for GTO with one mask word: the same choices in the same order, without
// the loops over words. The unit tests are redone after a memory or shared-memory issue only
// (nothing else changes them). With a power-of-two number of schedulers (up to 32) the loop
// visits only the schedulers that own a candidate warp: a scheduler's candidates can only shrink
// through another scheduler's issue, except after a barrier or an exit (a barrier's release makes
// warps eligible that may issue now), which recompute the set; warps made eligible by a response
// or a launch inside the loop are not ready before now + 1. Each visit reads the masks afresh.
template <std::uint32_t kS>
[[gnu::always_inline]] inline bool StreamingMultiprocessor::issue_gto_one_word(Cycle now) {
  const std::uint32_t S = kS ? kS : cfg_.schedulers;
  const int fold = kS >= 4 ? __builtin_ctz(kS) : kS ? -1 : sched_fold_;
  // kS is a power of two: first_mask_ is then 0 or kS - 1.
  const std::uint32_t s0 = kS || first_mask_ != ~std::uint32_t{0}
                               ? static_cast<std::uint32_t>(now) & first_mask_
                               : static_cast<std::uint32_t>(now % S);
  const MaskWord& mw0 = masks_[0];
  // Once per cycle, before any issue of this cycle: an earlier cycle's issue set ldst_free_at_ to
  // at most now, so only the queue decides; an issue this cycle sets it to now + 1.
  // The units taken: bit 0 the LD/ST unit, bit 1 shared memory. With more than two schedulers
  // as one word (one register across the stream's call, one test while both are free; with two
  // the two flags cost less).
  bool ldst_ok = true, shared_ok = true;
  unsigned taken = 0;
  if constexpr (kS == 2) {
    ldst_ok = ldst_occupancy(now) < cfg_.ldst_queue;
    shared_ok = shared_free_at_ <= now;
  } else {
    taken = unsigned{ldst_occupancy(now) >= cfg_.ldst_queue} | unsigned{shared_free_at_ > now} << 1;
  }
  bool issued = false;
  auto candidates = [&]() {
    // With four schedulers the masks' address is read afresh (not kept across the stream's call).
    const MaskWord& mw = kS == 4 ? masks_[0] : mw0;
    std::uint64_t m = mw.eligible;
    if constexpr (kS == 2) {
      if (!ldst_ok) m &= ~mw.global;
      if (!shared_ok) m &= ~mw.shared;
    } else if (taken) {
      if (taken & 1u) m &= ~mw.global;
      if (taken & 2u) m &= ~mw.shared;
    }
    return m;
  };
  // Scheduler s's turn. Returns the op it issued, or -1.
  auto visit = [&](std::uint32_t s) __attribute__((always_inline))->int {
    std::uint64_t m = candidates() & sched_word_[s];
    if (!m) return -1;
    int wi = -1;
    const int last = last_issued_[s];
    if (last >= 0 && ((m >> last) & 1u)) {
      const Warp& w = warps_[static_cast<std::uint32_t>(last)];
      // kS != 0 only on cycle_method's own path, without a warp limit (no age bound).
      if (w.ready_at <= now && (kS != 0 || w.age <= swl_max_age_)) wi = last;
    }
    if (wi < 0) {  // the oldest issuable warp of this scheduler
      // Ages at or above best_age lose; it starts just past the SWL limit (ages never reach ~0).
      std::uint64_t best_age = swl_age_bound_;
      for (; m; m &= m - 1) {
        const int i = __builtin_ctzll(m);
        const Warp& w = warps_[static_cast<std::uint32_t>(i)];
        if (w.ready_at > now || w.age >= best_age) continue;
        wi = i;
        best_age = w.age;
      }
      if (wi < 0) return -1;
    }
    const int op = static_cast<int>(warps_[static_cast<std::uint32_t>(wi)].inst.op);
    issue(static_cast<std::uint32_t>(wi), now);
    last_issued_[s] = wi;
    issued = true;
    // A global issue sets ldst_free_at_ to now + 1, a shared-memory one shared_free_at_ past now:
    // that unit is taken for the rest of the cycle, and nothing else changed the other.
    if constexpr (kS == 2) {
      if (kGlobalOps >> op & 1u)
        ldst_ok = false;
      else if (kSharedOps >> op & 1u)
        shared_ok = false;
    } else {
      taken |= (kGlobalOps >> op & 1u) | (kSharedOps >> op & 1u) << 1;
    }
    return op;
  };
  if constexpr (kS == 2) {  // s0, then the other one
    visit(s0);
    visit(s0 ^ 1u);
    return issued;
  }
  if (fold < 0) {
    for (std::uint32_t k = 0, s = s0; k < S; ++k, s = s + 1 == S ? 0 : s + 1) visit(s);
    return issued;
  }
  // Bit j of `turns`: scheduler s0 + j (mod S) owns a candidate. The word is rotated first (64 is
  // a multiple of S, so bit j then holds a warp of scheduler s0 + j mod S) and folded after.
  auto turns_from = [&](std::uint64_t m) {
    m = (m >> s0) | (m << ((64 - s0) & 63));
    switch (fold) {  // OR the bits of each residue mod S into bits 0 .. S - 1
      case 0:
        m |= m >> 1;
        [[fallthrough]];
      case 1:
        m |= m >> 2;
        [[fallthrough]];
      case 2:
        m |= m >> 4;
        [[fallthrough]];
      case 3:
        m |= m >> 8;
        [[fallthrough]];
      case 4:
        m |= m >> 16;
        [[fallthrough]];
      default:
        m |= m >> 32;
    }
    return m & ((std::uint64_t{1} << S) - 1);
  };
  for (std::uint64_t turns = turns_from(candidates()); turns;) {
    const std::uint32_t j = static_cast<std::uint32_t>(__builtin_ctzll(turns));
    turns &= turns - 1;
    const std::uint32_t s = (s0 + j) & (S - 1);
    const int op = visit(s);
    if (op == static_cast<int>(WarpOp::Barrier) || op == static_cast<int>(WarpOp::Exit))
      turns = turns_from(candidates()) & ~((std::uint64_t{2} << j) - 1);
  }
  return issued;
}

// The wake-up scan of cycle_method() with one mask word.
template <bool kSwl>
[[gnu::always_inline]] inline Cycle StreamingMultiprocessor::next_ready_one_word(Cycle now) const {
  const MaskWord& mw = masks_[0];
  const bool ldst_full = ldst_queue_.size() >= cfg_.ldst_queue;
  const Cycle soon = now + 1;
  std::uint64_t m = mw.eligible & (ldst_full ? ~mw.global : ~std::uint64_t{0});
  // Only an issue at `now` moves ldst_free_at_, to now + 1, so it never delays a global warp
  // past `soon`; a shared-memory warp waits for shared_free_at_ only if that is later.
  Cycle next = kNeverCycle;
  if (shared_free_at_ > soon && (mw.shared & m)) {
    const std::uint64_t shared_wait = mw.shared;
    for (; m; m &= m - 1) {
      const unsigned i = static_cast<unsigned>(__builtin_ctzll(m));
      const Warp& w = warps_[i];
      if (kSwl && w.age > swl_max_age_) continue;
      Cycle r = w.ready_at;
      if ((shared_wait >> i) & 1u) r = std::max(r, shared_free_at_);
      if (r <= soon) return soon;  // no warp is ready before now + 1
      next = std::min(next, r);
    }
    return next;
  }
  for (; m; m &= m - 1) {  // no warp waits for a unit
    const Warp& w = warps_[static_cast<unsigned>(__builtin_ctzll(m))];
    if (kSwl && w.age > swl_max_age_) continue;
    if (w.ready_at <= soon) return soon;
    next = std::min(next, w.ready_at);
  }
  return next;
}

template <std::uint32_t kFast>
void StreamingMultiprocessor::cycle_method() {
  // Every run is asked for through wake_at_, for an edge after the current cycle
  // (schedule_wake()'s callers and the end of this method), and the earliest request wins: the
  // run is at cycle wake_at_'s edge (no time read or division) and at most one per cycle (no
  // same-cycle test).
  const Cycle now = wake_at_;
  const std::uint64_t period_ps = clk_.period().value();
  sc_assert(now * period_ps == sim_time().value());
  wake_at_ = kNeverCycle;
  if (shared_next_ <= now) release_shared_loads(now);
  Cycle next = kNeverCycle;
  if constexpr (kFast != 0) {  // GTO, one mask word, kFast (2 or 4) schedulers, no warp limit
    if (issue_gto_one_word<kFast>(now)) ++active_cycles_;
    next = next_ready_one_word<false>(now);
  } else {
    next = cycle_general(now);
  }
  next = std::min(next, shared_next_);
  // schedule_wake(next) without ps_at()'s time read: next > now, so its edge is in the future
  // (next == kNeverCycle is never below wake_at_).
  if (next < wake_at_) {
    wake_at_ = next;
    wake_.notify_at(next * period_ps);
  }
}

// cycle_method()'s issue and wake-up scan for the other configurations. Returns the wake-up cycle.
Cycle StreamingMultiprocessor::cycle_general(Cycle now) {
  if (cfg_.warp_limit) update_warp_limit();
  bool issued = false;
  if (gto_one_word_) {
    issued = issue_gto_one_word<0>(now);
  } else {
    // The schedulers take turns at going first (the first one gets the shared LDST and shared
    // memory ports), rotating every cycle as GPGPU-Sim's shader_core_ctx::issue() does; a
    // fixed order (sm.issue_order=fixed) lets scheduler 0's warps issue all their loads before
    // the others' first one.
    const std::uint32_t S = cfg_.schedulers;
    std::uint32_t s = !cfg_.rotate_issue ? 0
                      : S == 2           ? static_cast<std::uint32_t>(now & 1u)
                                         : static_cast<std::uint32_t>(now % S);
    for (std::uint32_t k = 0; k < S; ++k, s = s + 1 == S ? 0 : s + 1) {
      int w = pick(s, now);
      if (w < 0) continue;
      issue(static_cast<std::uint32_t>(w), now);
      last_issued_[s] = w;
      issued = true;
    }
  }
  if (issued) ++active_cycles_;
  // Sleep until the first cycle at which some warp can issue (responses and launches wake us).
  if (cfg_.warp_limit) update_warp_limit();  // warps may have exited or reached a barrier
  Cycle next = kNeverCycle;
  // send_queued_at() wakes us when the LD/ST queue is full; slots it freed this cycle are usable
  // from now + 1 <= r. No warp is ready before now + 1, so the scan stops when one is.
  if (one_word_) {
    next = cfg_.warp_limit ? next_ready_one_word<true>(now) : next_ready_one_word<false>(now);
  } else {
    const bool ldst_full = ldst_queue_.size() >= cfg_.ldst_queue;
    for (std::size_t k = 0; k < masks_.size() && next > now + 1; ++k) {
      const MaskWord& mw = masks_[k];
      for (std::uint64_t m = mw.eligible & (ldst_full ? ~mw.global : ~std::uint64_t{0}); m;
           m &= m - 1) {
        const std::uint64_t bit = m & (~m + 1);
        const Warp& w = warps_[k * 64 + static_cast<unsigned>(__builtin_ctzll(m))];
        if (w.age > swl_max_age_) continue;  // re-evaluated whenever an older warp waits or exits
        Cycle r = std::max(w.ready_at, now + 1);
        if (mw.global & bit)
          r = std::max(r, ldst_free_at_);
        else if (mw.shared & bit)
          r = std::max(r, shared_free_at_);
        next = std::min(next, r);
        if (next == now + 1) break;
      }
    }
  }
  return next;
}

// Inline in on_response() (once per returned load line) and release_shared_loads().
template <typename AtFn>
[[gnu::always_inline]] inline bool StreamingMultiprocessor::release_load(std::uint32_t wi,
                                                                         std::uint32_t slot,
                                                                         AtFn at_fn) {
  Warp& w = warps_[wi];
  if (!w.sb.line_returned(slot) || !w.sb_stalled || !w.sb.ready(w.inst)) return false;
  const Cycle at = at_fn();
  w.sb_stalled = false;
  refresh(w, wi, false);
  if (!w.at_barrier && at > w.sb_since) sb_stall_cycles_ += at - w.sb_since;
  w.ready_at = std::max(w.ready_at, at);
  return true;
}

void StreamingMultiprocessor::release_shared_loads(Cycle now) {
  while (!shared_releases_.empty() && shared_releases_.top().when <= now) {
    const SharedRelease r = shared_releases_.top();
    shared_releases_.pop();
    // The consumer issues in the cycle the data is back, as it did when the warp waited at the
    // load.
    release_load(r.warp, r.slot, [&r] { return r.when; });
  }
  shared_next_ = shared_releases_.empty() ? kNeverCycle : shared_releases_.top().when;
}

void StreamingMultiprocessor::update_warp_limit() {
  // The K oldest warps that are neither finished nor waiting at a barrier may issue. Counting
  // barrier waiters out keeps SWL free of deadlock when K is below the warps of one CTA.
  swl_ages_.clear();
  for (const Warp& w : warps_)
    if (w.active && !w.exited && !w.at_barrier) swl_ages_.push_back(w.age);
  if (swl_ages_.size() <= cfg_.warp_limit) {
    swl_max_age_ = swl_age_bound_ = ~std::uint64_t{0};
    return;
  }
  std::nth_element(swl_ages_.begin(), swl_ages_.begin() + (cfg_.warp_limit - 1), swl_ages_.end());
  swl_max_age_ = swl_ages_[cfg_.warp_limit - 1];
  swl_age_bound_ = swl_max_age_ + (swl_max_age_ != ~std::uint64_t{0});
}

// Inlined into cycle_method, its only caller.
[[gnu::always_inline]] inline void StreamingMultiprocessor::issue(std::uint32_t wi, Cycle now) {
  Warp& w = warps_[wi];
  const WarpInst& in = w.inst;
  ++warp_insts_;
  thread_insts_ += static_cast<std::uint64_t>(__builtin_popcount(in.active_mask));
  ++ctx_.progress;
  if (in.op == WarpOp::Compute) {  // the common case first, without the jump table
    if (--w.compute_left == 0) {
      w.ready_at = now + std::max<Cycle>(1, in.latency);
      fetch_issued(w, wi, false);
    } else {
      w.ready_at = now + 1;
    }
    return;
  }
  if (kGlobalOps >> static_cast<unsigned>(in.op) & 1u) {
    issue_memory(wi, now);
  } else if (in.op == WarpOp::Exit) {  // once per warp: inline
    CtaSlot& c = ctas_[w.cta_slot];
    w.exited = true;
    w.active = false;
    idle_warps_[wi >> 6] |= std::uint64_t{1} << (wi & 63);
    refresh(w, wi, false);
    w.stream.reset();
    --c.live_warps;
    if (c.live_warps && c.at_barrier == c.live_warps) release_barrier(w.cta_slot);
    check_cta_done(w.cta_slot);
  } else {
    issue_rare(wi, now);
  }
}

// Shared memory and barriers: out of line, so that each inlined copy of issue() stays small.
void StreamingMultiprocessor::issue_rare(std::uint32_t wi, Cycle now) {
  Warp& w = warps_[wi];
  const WarpInst& in = w.inst;
  CtaSlot& c = ctas_[w.cta_slot];
  switch (in.op) {
    case WarpOp::Compute:
    case WarpOp::Load:
    case WarpOp::Store:
    case WarpOp::Atomic:
    case WarpOp::Exit:
      return;  // issued by issue()
    case WarpOp::SharedLoad:
    case WarpOp::SharedStore: {
      ++shared_insts_;
      std::uint32_t degree = std::max<std::uint32_t>(
          1, shared_bank_conflict_degree(in.addr, in.active_mask, cfg_.shared_banks, 4));
      shared_conflict_cycles_ += degree - 1;
      shared_free_at_ = now + degree;
      if (in.op == WarpOp::SharedLoad) {
        // The data is back after the shared-memory latency and the conflict replays.
        const Cycle done = now + cfg_.shared_latency + degree - 1;
        const std::uint32_t slot = w.sb.reserve(in, 1, cfg_.scoreboard == ScoreboardMode::BlockAll);
        shared_releases_.push(SharedRelease{done, wi, slot});
        shared_next_ = std::min(shared_next_, done);
        schedule_wake(done);
      }
      w.ready_at = now + 1;
      fetch(w, wi);
      return;
    }
    case WarpOp::Barrier:
      w.at_barrier = true;
      ++c.at_barrier;
      w.ready_at = now + 1;
      fetch(w, wi);
      if (c.at_barrier == c.live_warps) release_barrier(w.cta_slot);
      return;
  }
}

void StreamingMultiprocessor::release_barrier(std::uint32_t slot) {
  const Cycle now = clk_.now();
  for (Warp& w : warps_)
    if (w.active && w.cta_slot == slot && w.at_barrier) {
      w.at_barrier = false;
      w.sb_since = std::max(w.sb_since, now);  // the wait at the barrier is not a stall
      refresh(w, false);
    }
  ctas_[slot].at_barrier = 0;
}

// Sends the LD/ST queue's head to the L1 in cycle c, counting its slot as freed in c.
[[gnu::always_inline]] inline void StreamingMultiprocessor::send_head_at(Cycle c) {
  Payload* gp = ldst_queue_.front();
  ldst_queue_.pop_front();
  if (c != ldst_pop_cycle_) {
    ldst_pop_cycle_ = c;
    ldst_pops_ = 0;
  }
  ++ldst_pops_;
  port_.send(*gp);
}

[[gnu::always_inline]] inline void StreamingMultiprocessor::send_queued_at(Cycle c) {
  const bool was_full = ldst_queue_.size() >= cfg_.ldst_queue;
  while (!port_.busy() && !ldst_queue_.empty()) send_head_at(c);
  if (was_full && ldst_queue_.size() < cfg_.ldst_queue) schedule_wake(clk_.next_edge_cycle() + 1);
}

void StreamingMultiprocessor::issue_memory(std::uint32_t wi, Cycle now) {
  Warp& w = warps_[wi];
  CtaSlot& c = ctas_[w.cta_slot];
  const WarpInst& in = w.inst;
  ++mem_insts_;
  // The requests' count and first one (the stores below could alias the vector's).
  std::size_t n_lines = 1;
  const LineRequest* lines = &whole_line_;
  if (in.linear && in.size == whole_line_size_ && (in.addr[0] & (cfg_.line_bytes - 1)) == 0) {
    // The usual access, one whole line from its start (coalesce_linear()'s first case): only
    // the address changes from one to the next, so the request is kept, not built.
    whole_line_.line_addr = in.addr[0];
  } else {
    if (in.linear)  // the producer knows the lanes: no check of them
      coalesce_linear(in.addr[0], in.size, cfg_.line_bytes, cfg_.sector_bytes, coalesced_,
                      line_sectors_);
    else
      coalesce(in.addr, in.active_mask, in.size, cfg_.line_bytes, cfg_.sector_bytes, coalesced_,
               line_sectors_);
    n_lines = coalesced_.size();
    lines = coalesced_.data();
  }
  const AccessKind kind = in.op == WarpOp::Load    ? AccessKind::Load
                          : in.op == WarpOp::Store ? AccessKind::Store
                                                   : AccessKind::Atomic;
  const std::uint64_t now_ps = sim_time().value();
  // Loads and atomics enter the scoreboard once, with the number of line requests to wait for.
  std::uintptr_t sb_slot = 0;
  if (kind != AccessKind::Store && n_lines != 0)
    sb_slot = w.sb.reserve(in, static_cast<std::uint32_t>(n_lines),
                           cfg_.scoreboard == ScoreboardMode::BlockAll);
  // The same for every line of the instruction: computed once (name() is a call).
  const char* const where = name();
  // Seed 004 §5.2: with one CTA running on the SM its warps are the bypass units, otherwise
  // the CTAs, ranked by launch order.
  const bool one_cta = resident_ <= 1;
  const auto bypass_rank = static_cast<std::uint16_t>(one_cta ? w.warp_in_cta : c.older);
  const auto bypass_population =
      static_cast<std::uint16_t>(one_cta ? c.kernel->warps_per_cta() : resident_);
  for (std::size_t i = 0; i < n_lines; ++i) {
    const LineRequest& lr = lines[i];
    // The pool resets only what this loop does not set (allocate_request()).
    Payload* gp = ctx_.pool.allocate_request();
    GpuExtension& e = static_cast<PooledPayload*>(gp)->ext;  // the pool's own payload
    gp->set_command(kind == AccessKind::Load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    gp->set_address(lr.line_addr);
    gp->set_data_length(cfg_.line_bytes);
    gp->set_streaming_width(cfg_.line_bytes);
    gp->set_byte_enable_ptr(nullptr);  // a store's below
    gp->set_byte_enable_length(0);
    e.sm = static_cast<std::uint16_t>(cfg_.id);
    e.cluster = static_cast<std::uint16_t>(cfg_.cluster);
    e.warp = static_cast<std::uint16_t>(wi);
    e.cta = c.cta;
    e.kernel = c.kernel_seq;
    e.data_structure = in.data_structure;
    e.kind = kind;
    e.bypass_rank = bypass_rank;
    e.bypass_population = bypass_population;
    e.sector_mask = lr.sector_mask;
    e.bytes = lr.bytes;
    e.requesters.push_back(e.sm);
    e.owner = this;
    e.owner_tag = w.cta_slot | sb_slot << 32;
    e.issue_ps = now_ps;
    e.at(where);
    if (kind == AccessKind::Atomic) count_atomic_words(in, lr, e);
    if (kind != AccessKind::Load) {
      // Stores and atomics carry TLM byte enables for the bytes they touch.
      std::uint8_t* be = PayloadPool::byte_enables(gp);
      if (cfg_.line_bytes == 128 && (lr.bytes.w[0] & lr.bytes.w[1]) == ~std::uint64_t{0})
        std::memset(be, 0xff, 128);  // a whole 128-byte line (the common store): one fill
      else
        for (unsigned b0 = 0; b0 < cfg_.line_bytes;
             b0 += 64) {  // a 64-byte word of the mask at a time
          const unsigned n = std::min(64u, cfg_.line_bytes - b0);
          const std::uint64_t bits = lr.bytes.w[b0 >> 6];
          if (n == 64 && (bits == 0 || bits == ~std::uint64_t{0}))  // constant size: inlined
            std::memset(be + b0, bits ? 0xff : 0x00, 64);
          else if (bits == 0)
            std::memset(be + b0, 0x00, n);
          else
            for (unsigned b = 0; b < n; ++b) be[b0 + b] = (bits >> b) & 1u ? 0xff : 0x00;
        }
      gp->set_byte_enable_ptr(be);
      gp->set_byte_enable_length(cfg_.line_bytes);
      if (kind == AccessKind::Store && ctx_.check_data) golden_store(lr, *gp);
    }
    ldst_queue_.push_back(gp);
    ++c.pending_mem;
  }
  line_requests_ += n_lines;
  ldst_free_at_ = now + 1;
  if (ldst_queue_.size() >= cfg_.ldst_queue) ++ldst_stall_;
  w.ready_at = now + 1;
  fetch_issued(w, wi, true);
  if (port_.busy()) return;
  if (ldst_queue_.size() == 1 && cfg_.ldst_queue > 1) {
    // send_queued_at() of a queue holding one request (the usual case on volta, where the port
    // is free at the issue): the queue was not full before, nor is after.
    send_head_at(now);
  } else if (!ldst_queue_.empty()) {
    send_queued_at(now);
  }
}

bool StreamingMultiprocessor::on_response(Payload& gp) {
  // A response comes back in the payload issue_memory() took from the pool: its own extension,
  // without gpu_ext()'s type test.
  sc_assert(as_pooled(gp) != nullptr);
  GpuExtension& e = static_cast<PooledPayload&>(gp).ext;
  const std::uint32_t slot = static_cast<std::uint32_t>(e.owner_tag & 0xffffffffu);
  CtaSlot& c = ctas_[slot];
  ++ctx_.progress;
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE || ctx_.check_data) check_response(gp, e);
  if (e.kind != AccessKind::Store) {
    const std::uint64_t t_ps = sim_time().value();
    load_latency_.sample(t_ps - e.issue_ps);
    // clk_.next_edge_cycle() + 1, computed only for a warp this response releases.
    auto at = [this, t_ps] {
      const std::uint64_t p = clk_.period().value();
      return (t_ps + p - 1) / p + 1;
    };
    if (release_load(e.warp, static_cast<std::uint32_t>(e.owner_tag >> 32), at))
      schedule_wake(warps_[e.warp].ready_at);
  }
  --c.pending_mem;
  gp.release();
  check_cta_done(slot);
  return true;
}

void StreamingMultiprocessor::count_atomic_words(const WarpInst& in, const LineRequest& lr,
                                                 GpuExtension& e) {
  // Per-word add counts: several lanes may hit the same word (performed at the L2).
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!((in.active_mask >> l) & 1u)) continue;
    Addr a = in.lane(l) & ~Addr{3};  // (a linear instruction's lanes may be unwritten)
    if (a < lr.line_addr || a >= lr.line_addr + cfg_.line_bytes) continue;
    ++e.word_count[(a - lr.line_addr) / 4];
  }
  if (ctx_.check_data)
    for (unsigned i = 0; i < cfg_.line_bytes / 4; ++i)
      if (e.word_count[i]) ctx_.golden.atomic_add(lr.line_addr + 4 * i, e.word_count[i]);
}

void StreamingMultiprocessor::golden_store(const LineRequest& lr, Payload& gp) {
  ctx_.golden.store(lr.line_addr, lr.bytes, cfg_.line_bytes, gp.get_data_ptr());
}

void StreamingMultiprocessor::check_response(Payload& gp, const GpuExtension& e) {
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    std::ostringstream os;
    os << name() << ": memory error response for address 0x" << std::hex << gp.get_address();
    ctx_.fail(os.str());
  }
  if (ctx_.check_data && e.kind == AccessKind::Load) {
    std::string err =
        ctx_.golden.check_load(gp.get_address(), e.bytes, cfg_.line_bytes, gp.get_data_ptr());
    if (!err.empty()) ctx_.fail(std::string(this->name()) + ": data integrity: " + err);
  } else if (ctx_.check_data && e.kind == AccessKind::Atomic) {
    for (unsigned i = 0; i < cfg_.line_bytes / 4; ++i) {
      if (!e.word_count[i]) continue;
      std::uint32_t old;
      std::memcpy(&old, gp.get_data_ptr() + 4 * i, 4);
      std::string err = ctx_.golden.check_atomic(gp.get_address() + 4 * i, old, e.word_count[i]);
      if (!err.empty()) ctx_.fail(std::string(this->name()) + ": data integrity: " + err);
    }
  }
}

void StreamingMultiprocessor::cta_done(std::uint32_t slot) {
  CtaSlot& c = ctas_[slot];
  c.active = false;
  --resident_;
  for (CtaSlot& o : ctas_) o.older -= o.active && o.launch_seq > c.launch_seq;
  ++ctas_done_;
  done->cta_done(cfg_.id, c.cta);
}

unsigned StreamingMultiprocessor::debug_read(Addr a, std::uint8_t* dst, unsigned n) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(a);
  gp.set_data_ptr(dst);
  gp.set_data_length(n);
  gp.set_streaming_width(n);
  return mem->transport_dbg(gp);
}

std::string StreamingMultiprocessor::describe_state() const {
  std::ostringstream os;
  for (std::size_t i = 0; i < warps_.size(); ++i) {
    const Warp& w = warps_[i];
    if (!w.active) continue;
    os << name() << " warp " << i << " (CTA " << ctas_[w.cta_slot].cta << "): "
       << (w.at_barrier   ? "at barrier"
           : w.sb_stalled ? "waiting for loads"
                          : "ready")
       << ", outstanding loads " << w.sb.outstanding() << ", next op " << to_string(w.inst.op)
       << "\n";
  }
  return os.str();
}

}  // namespace locsim
