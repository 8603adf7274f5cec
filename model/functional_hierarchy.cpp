#include "model/functional_hierarchy.h"

#include <algorithm>
#include <stdexcept>

// The stimulus interface only (header-only use: virtual calls on Kernel / WarpStream); model/
// stays free of SystemC and links without the stimuli library.
#include "model/params.h"
#include "model/workload/kernel.h"

namespace locsim {

namespace {

constexpr std::uint32_t kUnlimited = ~std::uint32_t{0};
constexpr std::size_t kQueueFree = ~std::size_t{0};

}  // namespace

void FunctionalConfig::validate() const {
  if (num_sms == 0) throw std::invalid_argument("functional replay: num_sms must be >= 1");
  l1.validate();
  l2.validate();
  if (l1.line_bytes > 128)
    throw std::invalid_argument("functional replay: L1 line larger than 128 B");
  if (l2.line_bytes != l1.line_bytes)
    throw std::invalid_argument("functional replay: L2 line (" + std::to_string(l2.line_bytes) +
                                " B) must equal the L1 line (" + std::to_string(l1.line_bytes) +
                                " B)");
  if (coalesce_sector_bytes == 0 || l1.line_bytes % coalesce_sector_bytes != 0)
    throw std::invalid_argument("functional replay: coalescer sector must divide the line");
}

FunctionalHierarchy::FunctionalHierarchy(const FunctionalConfig& cfg, const AddressMap& map)
    : cfg_((cfg.validate(), cfg)),
      map_(map),
      policy_(make_cta_policy(cfg.cta_policy, cfg.cta_policy_args)) {
  const std::uint32_t nl2 = map_.num_subpartitions();
  policy_->register_stats(stats_, "replay.dispatcher");
  for (std::uint32_t s = 0; s < cfg_.num_sms; ++s) {
    l1_.emplace_back(L1PolicyConfig{cfg_.l1, cfg_.l1_enabled, L1BypassMode::None, false, kUnlimited,
                                    kUnlimited, cfg_.l1_store_hit_update});
    const std::string sm = "replay.sm" + std::to_string(s);
    const std::string p = sm + ".l1d";
    auto c = [&](const char* n, const char* u, const char* d) -> Counter* {
      return &stats_.counter(p, "l1d", n, u, d);
    };
    l1c_.push_back({c("accesses", "accesses", "global loads, stores and atomics received"),
                    c("hits", "accesses", "loads that found all their sectors valid"),
                    c("misses", "accesses", "loads that fetched (instant fill)"),
                    c("sector_misses", "accesses", "misses on a present line (sectored)"),
                    c("bypassed", "accesses", "loads sent to the L2 without L1 allocation"),
                    c("stores", "accesses", "global store line requests (write-through)"),
                    c("atomics", "accesses", "atomic line requests (performed at L2)"),
                    c("evictions", "lines", "valid lines displaced or write-evicted"),
                    c("fills", "lines", "fills received from below")});
    auto sc = [&](const char* n, const char* u, const char* d) -> Counter* {
      return &stats_.counter(sm, "sm", n, u, d);
    };
    smc_.push_back({sc("warp_insts", "instructions", "warp instructions executed"),
                    sc("thread_insts", "instructions", "thread instructions (active lanes)"),
                    sc("global_mem_insts", "instructions", "global load/store/atomic warp insts"),
                    sc("line_requests", "requests", "coalesced line requests"),
                    sc("shared_mem_insts", "instructions", "shared-memory warp instructions"),
                    sc("ctas_completed", "CTAs", "CTAs run to completion")});
  }
  for (std::uint32_t t = 0; t < nl2; ++t) {
    l2_.emplace_back(cfg_.l2, kUnlimited, kUnlimited,
                     cfg_.l2_bank_local_index ? &bank_index_ : nullptr);
    const std::string p = "replay.l2_" + std::to_string(t);
    auto c = [&](const char* n, const char* u, const char* d) -> Counter* {
      return &stats_.counter(p, "l2", n, u, d);
    };
    l2c_.push_back({c("accesses", "accesses", "loads, stores and atomics received"),
                    c("hits", "accesses", "accesses served without a DRAM access"),
                    c("misses", "accesses", "accesses that needed a line or sector allocation"),
                    c("writebacks", "lines", "dirty lines written back to DRAM"),
                    c("evictions", "lines", "valid lines displaced"),
                    c("stores", "accesses", "store requests"),
                    c("atomics", "accesses", "atomic requests performed"),
                    c("fills", "lines", "fills received from DRAM")});
  }
  for (std::uint32_t ch = 0; ch < map_.channels(); ++ch) {
    const std::string p = "replay.mc" + std::to_string(ch);
    dram_reads_.push_back(
        &stats_.counter(p, "dram", "reads", "requests", "read requests (L2 fills)"));
    dram_writes_.push_back(
        &stats_.counter(p, "dram", "writes", "requests", "write requests (L2 write-backs)"));
  }
}

void FunctionalHierarchy::invalidate_l1s() {
  for (auto& l1 : l1_) l1.invalidate_all();
}

void FunctionalHierarchy::access_warp(std::uint32_t sm, AccessKind kind,
                                      const std::array<Addr, kWarpSize>& addrs,
                                      std::uint32_t active_mask, std::uint32_t access_bytes) {
  coalesce(addrs, active_mask, access_bytes, cfg_.l1.line_bytes, cfg_.coalesce_sector_bytes,
           coalesced_);
  ++*smc_[sm].mem_insts;
  *smc_[sm].line_requests += coalesced_.size();
  for (const LineRequest& r : coalesced_) access(sm, kind, r);
}

void FunctionalHierarchy::access(std::uint32_t sm, AccessKind kind, const LineRequest& r) {
  L1CachePolicy<int>& l1 = l1_[sm];
  L1Counters& c = l1c_[sm];
  const CacheGeometry& g = cfg_.l1;
  const L1Decision d = l1.access(kind, r.line_addr, r.bytes, 0, 0, false, false);
  ++*c.accesses;
  if (d.evicted) ++*c.evictions;
  switch (d.outcome) {
    case L1Outcome::WriteThrough:
      // Write-through, no-write-allocate, write-evict; atomics are performed at the L2.
      ++*(kind == AccessKind::Atomic ? c.atomics : c.stores);
      l2_access(kind, d.line, r.bytes);
      return;
    case L1Outcome::Bypass:
    case L1Outcome::PdpBypass:
      ++*c.bypassed;
      l2_access(kind, d.line, r.bytes);
      return;
    case L1Outcome::Hit:
      ++*c.hits;
      return;
    case L1Outcome::Miss:
    case L1Outcome::SectorMiss:
      // Fills are instant: nothing is ever in flight, so no merge and no reservation failure.
      ++*c.misses;
      if (d.outcome == L1Outcome::SectorMiss) ++*c.sector_misses;
      l2_access(AccessKind::Load, d.line, ByteMask::of_sectors(d.fetch, g.sector_bytes));
      l1.fill(d.line, d.fetch);
      ++*c.fills;
      return;
    case L1Outcome::MshrMerge:
    case L1Outcome::Fail:
      throw std::logic_error("functional replay: an L1 request waited (fills are instant)");
  }
}

void FunctionalHierarchy::l2_access(AccessKind kind, Addr line, const ByteMask& bytes) {
  const std::uint32_t t = map_.subpartition(line);
  L2CachePolicy<int>& l2 = l2_[t];
  L2Counters& c = l2c_[t];
  const bool writes = kind != AccessKind::Load && kind != AccessKind::Prefetch;
  ++*c.accesses;
  if (kind == AccessKind::Store) ++*c.stores;
  if (kind == AccessKind::Atomic) ++*c.atomics;
  const L2Decision d = l2.access(kind, line, bytes, 0, kQueueFree);
  switch (d.outcome) {
    case L2Outcome::Hit:
      ++*c.hits;
      break;
    case L2Outcome::StoreAllocate:
    case L2Outcome::Miss:
      ++*c.misses;
      if (d.victim.valid) {
        ++*c.evictions;
        if (d.victim.dirty_sectors) {
          ++*c.writebacks;
          ++*dram_writes_[map_.channel(d.victim.line_addr)];
        }
      }
      if (d.outcome == L2Outcome::Miss) {
        // Fetch the missing sectors (fetch-on-write for a partial store); the fill is instant.
        ++*dram_reads_[map_.channel(line)];
        ++*c.fills;
        l2.fill(d.line, d.missing);
      }
      break;
    case L2Outcome::MshrMerge:
    case L2Outcome::Fail:
      throw std::logic_error("functional replay: an L2 request waited (fills are instant)");
  }
  if (writes) l2.mark_written(d.line, bytes);
}

void FunctionalHierarchy::run_kernel(const Kernel& k) {
  const std::uint32_t nctas = k.num_ctas();
  const std::uint32_t wpc = k.warps_per_cta();
  const CtaNeeds needs{k.threads_per_cta(), k.regs_per_thread(), k.shared_mem_bytes()};
  std::string limiter;
  const std::uint32_t max_per_sm = max_ctas_per_sm(cfg_.resources, needs, &limiter);
  if (max_per_sm == 0)
    throw ConfigError("kernel '" + k.name() +
                      "' cannot run: " + cta_does_not_fit(limiter, needs, cfg_.resources));
  if (nctas == 0) return;
  const GpuTopology topo{cfg_.num_sms, cfg_.sms_per_cluster};
  CtaSchedulingPolicy& policy = *policy_;
  LazyCtaAccessSets access_sets(k);
  policy.begin_kernel(KernelLaunch{k, max_per_sm, access_sets, topo});

  struct Warp {
    std::unique_ptr<WarpStream> stream;
    bool active = false;
    bool at_barrier = false;
  };
  struct CtaSlot {
    bool used = false;
    std::uint32_t cta = 0;
    std::uint32_t live = 0, at_barrier = 0;
  };
  struct Sm {
    std::vector<CtaSlot> ctas;
    std::vector<Warp> warps;  // slot i owns warps [i*wpc, (i+1)*wpc)
    std::uint32_t next = 0;   // round-robin position
    std::uint32_t resident = 0;
  };
  std::vector<Sm> sms(cfg_.num_sms);
  for (Sm& s : sms) {
    s.ctas.resize(max_per_sm);
    s.warps.resize(std::size_t{max_per_sm} * wpc);
  }
  std::vector<SmView> views(cfg_.num_sms);
  std::vector<CtaAssignment> picks;
  std::uint32_t done = 0;
  bool freed = true;  // a dispatch is due

  auto launch = [&](const CtaAssignment& a) {
    Sm& s = sms[a.sm];
    std::uint32_t slot = 0;
    while (s.ctas[slot].used) ++slot;
    s.ctas[slot] = CtaSlot{true, a.cta, wpc, 0};
    for (std::uint32_t w = 0; w < wpc; ++w) {
      Warp& wp = s.warps[std::size_t{slot} * wpc + w];
      wp.stream = k.warp_stream(a.cta, w);
      wp.active = true;
      wp.at_barrier = false;
    }
    ++s.resident;
  };
  auto release_barrier = [&](Sm& s, std::uint32_t slot) {
    for (std::uint32_t w = 0; w < wpc; ++w) s.warps[std::size_t{slot} * wpc + w].at_barrier = false;
    s.ctas[slot].at_barrier = 0;
  };

  WarpInst in;
  while (done < nctas) {
    if (freed && policy.remaining()) {
      for (std::uint32_t i = 0; i < cfg_.num_sms; ++i)
        views[i] = SmView{i, max_per_sm - sms[i].resident};
      picks.clear();
      policy.select(views, picks);
      for (const CtaAssignment& a : picks) launch(a);
    }
    freed = false;
    for (std::uint32_t si = 0; si < cfg_.num_sms; ++si) {
      Sm& s = sms[si];
      if (!s.resident) continue;
      const std::uint32_t nw = static_cast<std::uint32_t>(s.warps.size());
      std::uint32_t wi = s.next, tries = 0;
      for (; tries < nw; ++tries, wi = (wi + 1) % nw)
        if (s.warps[wi].active && !s.warps[wi].at_barrier) break;
      if (tries == nw) continue;  // cannot happen: the last barrier arrival releases
      s.next = (wi + 1) % nw;
      Warp& w = s.warps[wi];
      const std::uint32_t slot = wi / wpc;
      CtaSlot& cs = s.ctas[slot];
      SmCounters& sc = smc_[si];
      if (!w.stream->next(in)) in.op = WarpOp::Exit;  // a stream that ends without Exit
      *sc.warp_insts += in.warp_insts();
      *sc.thread_insts += std::uint64_t{in.warp_insts()} *
                          static_cast<unsigned>(__builtin_popcount(in.active_mask));
      switch (in.op) {
        case WarpOp::Load:
        case WarpOp::Store:
        case WarpOp::Atomic:
          in.fill_lanes();  // (a linear instruction's producer may have written lane 0 alone)
          access_warp(si,
                      in.op == WarpOp::Load    ? AccessKind::Load
                      : in.op == WarpOp::Store ? AccessKind::Store
                                               : AccessKind::Atomic,
                      in.addr, in.active_mask, in.size);
          break;
        case WarpOp::SharedLoad:
        case WarpOp::SharedStore:
          ++*sc.shared_insts;
          break;
        case WarpOp::Compute:
          break;
        case WarpOp::Barrier:
          w.at_barrier = true;
          if (++cs.at_barrier == cs.live) release_barrier(s, slot);
          break;
        case WarpOp::Exit:
          w.active = false;
          w.stream.reset();
          --cs.live;
          if (cs.live && cs.at_barrier == cs.live) release_barrier(s, slot);
          if (!cs.live) {
            cs.used = false;
            --s.resident;
            ++*sc.ctas;
            ++done;
            policy.cta_finished(si, cs.cta);
            freed = true;
          }
          break;
      }
    }
  }
}

std::vector<FunctionalHierarchy::KernelRecord> FunctionalHierarchy::run(const Workload& w) {
  std::vector<KernelRecord> out;
  for (const auto& k : w.kernels()) {
    invalidate_l1s();
    KernelRecord r;
    r.name = k->name();
    r.ctas = k->num_ctas();
    r.max_ctas_per_sm = max_ctas_per_sm(
        cfg_.resources, CtaNeeds{k->threads_per_cta(), k->regs_per_thread(), k->shared_mem_bytes()},
        &r.occupancy_limiter);
    r.begin = stats_.snapshot();
    run_kernel(*k);
    r.end = stats_.snapshot();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace locsim
