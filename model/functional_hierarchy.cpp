#include "model/functional_hierarchy.h"

#include <algorithm>
#include <stdexcept>

// The stimulus interface only (header-only use: virtual calls on Kernel / WarpStream); model/
// stays free of SystemC and links without the stimuli library.
#include "stimuli/kernel.h"

namespace locsim {

namespace {

ByteMask sectors_to_bytes(std::uint32_t sectors, std::uint32_t sector_bytes) {
  ByteMask m;
  for (unsigned s = 0; sectors >> s; ++s)
    if ((sectors >> s) & 1u) m.set_range(s * sector_bytes, sector_bytes);
  return m;
}

// Sectors every byte of which is in the mask (as the timed L2's fully_covered()).
std::uint32_t fully_covered(const ByteMask& m, const CacheGeometry& g) {
  std::uint32_t out = 0;
  for (unsigned s = 0; s < g.sectors_per_line(); ++s) {
    const ByteMask whole = sectors_to_bytes(1u << s, g.sector_bytes);
    if ((m.w[0] & whole.w[0]) == whole.w[0] && (m.w[1] & whole.w[1]) == whole.w[1]) out |= 1u << s;
  }
  return out;
}

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
    : cfg_((cfg.validate(), cfg)), map_(map) {
  const std::uint32_t nl2 = map_.num_subpartitions();
  for (std::uint32_t s = 0; s < cfg_.num_sms; ++s) {
    l1_.emplace_back(cfg_.l1);
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
    l2_.emplace_back(cfg_.l2);
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
  for (TagArray& t : l1_) t.invalidate_all();
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
  TagArray& tags = l1_[sm];
  L1Counters& c = l1c_[sm];
  const CacheGeometry& g = cfg_.l1;
  const Addr line = tags.line_addr(r.line_addr);
  ++*c.accesses;
  if (kind != AccessKind::Load) {
    // Write-through, no-write-allocate, write-evict; atomics are performed at the L2.
    ++*(kind == AccessKind::Atomic ? c.atomics : c.stores);
    if (cfg_.l1_enabled && tags.find(line) >= 0) {
      tags.invalidate(line);
      ++*c.evictions;
    }
    l2_access(kind, line, r.bytes);
    return;
  }
  if (!cfg_.l1_enabled) {
    ++*c.bypassed;
    l2_access(kind, line, r.bytes);
    return;
  }
  const std::uint32_t want = r.bytes.sector_mask(g.sector_bytes);
  const Probe p = tags.probe(line, want);
  if (p.result == ProbeResult::Hit) {
    ++*c.hits;
    tags.touch(p.set, p.way);
    return;
  }
  // Nothing is ever reserved here (fills are instant): Miss or SectorMiss.
  ++*c.misses;
  std::uint32_t fetch;
  if (p.result == ProbeResult::SectorMiss || p.result == ProbeResult::HitReserved) {
    ++*c.sector_misses;
    fetch = want & ~tags.line(p.set, p.way).valid_sectors;
    tags.touch(p.set, p.way);
  } else {
    const Eviction ev = tags.allocate(line, p);
    if (ev.valid) ++*c.evictions;
    fetch = g.sector_bytes < g.line_bytes ? want : g.full_sector_mask();
  }
  l2_access(AccessKind::Load, line, sectors_to_bytes(fetch, g.sector_bytes));
  tags.fill(line, fetch);
  ++*c.fills;
}

void FunctionalHierarchy::l2_access(AccessKind kind, Addr line, const ByteMask& bytes) {
  const std::uint32_t t = map_.subpartition(line);
  TagArray& tags = l2_[t];
  L2Counters& c = l2c_[t];
  const CacheGeometry& g = cfg_.l2;
  const std::uint32_t need = bytes.sector_mask(g.sector_bytes);
  const bool is_store = kind == AccessKind::Store;
  const bool writes = kind != AccessKind::Load && kind != AccessKind::Prefetch;
  ++*c.accesses;
  if (is_store) ++*c.stores;
  if (kind == AccessKind::Atomic) ++*c.atomics;
  const Probe p = tags.probe(line, need);
  if (p.result == ProbeResult::Hit) {
    ++*c.hits;
    tags.touch(p.set, p.way);
    if (writes) tags.mark_dirty(line, need);
    return;
  }
  ++*c.misses;
  std::uint32_t valid = 0;
  if (p.result == ProbeResult::Miss) {
    const Eviction ev = tags.allocate(line, p);
    if (ev.valid) {
      ++*c.evictions;
      if (ev.dirty_sectors) {
        ++*c.writebacks;
        ++*dram_writes_[map_.channel(ev.line_addr)];
      }
    }
  } else {
    valid = tags.line(p.set, p.way).valid_sectors;
    tags.touch(p.set, p.way);
  }
  const std::uint32_t missing = need & ~valid;
  const std::uint32_t covered = is_store ? fully_covered(bytes, g) : 0;
  if (!(is_store && (missing & ~covered) == 0)) {
    // Fetch the missing sectors (fetch-on-write for a partial store).
    ++*dram_reads_[map_.channel(line)];
    ++*c.fills;
  }
  tags.fill(line, missing);
  if (writes) tags.mark_dirty(line, need);
}

void FunctionalHierarchy::run_kernel(const Kernel& k) {
  const std::uint32_t nctas = k.num_ctas();
  const std::uint32_t wpc = k.warps_per_cta();
  const CtaNeeds needs{k.threads_per_cta(), k.regs_per_thread(), k.shared_mem_bytes()};
  std::string limiter;
  const std::uint32_t max_per_sm = max_ctas_per_sm(cfg_.resources, needs, &limiter);
  if (max_per_sm == 0)
    throw std::invalid_argument("kernel " + k.name() + ": one CTA does not fit on an SM (" +
                                limiter + ")");
  if (nctas == 0) return;
  const GpuTopology topo{cfg_.num_sms, cfg_.sms_per_cluster};
  CtaSchedulingPolicy& policy = policy_;
  policy.begin_kernel(nctas, max_per_sm, topo);

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
