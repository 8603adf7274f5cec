// The L1 data cache's decisions (Fermi-style, seed 004 Figure 1), as a plain-C++ policy object
// shared by the timed L1 shell (tlm_components/l1_data_cache) and the functional replay
// (model/functional_hierarchy): allocate-on-miss with LRU (or PDP) victims, sectored fetch,
// MSHR merging, write-through / no-write-allocate / write-evict for stores, atomics performed at
// the L2, the bypass path (static, rank-limited by MDB, or a fully protected PDP set), and the
// reservation failure that stalls a request, by cause. It owns the tag array and the MSHR table;
// `Req` is the caller's handle of a waiting request (a TLM payload in the shell).
// A decision either fails (changing nothing) or is applied at once.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "model/cache_policy_fills.h"
#include "model/ldesc_selection.h"
#include "model/mshr_table.h"
#include "model/protecting_distance.h"
#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

// Seed 004: which global loads take the bypass path (straight to the L2, no line, MSHR or
// miss-queue entry in the L1; the warp's own coalescing is kept).
enum class L1BypassMode {
  None,       // every load uses the L1
  All,        // static bypass of all global loads (like -dlcm=cg)
  RankLimit,  // warps/CTAs of rank >= limit bypass (set by a bypassing parameter generator)
};

// Why a request could not be taken this cycle (counted per stalled cycle by the shell).
enum class ReservationFail { None, LineAlloc, MshrEntry, MshrMerge, MissQueue, BypassQueue };

enum class L1Outcome {
  Fail,          // see L1Decision::fail; nothing changed
  Hit,           // every wanted sector valid: answer after the hit latency
  MshrMerge,     // waits for the line's in-flight fill (MSHR hit)
  Miss,          // line allocated (victim evicted), `fetch` sectors to request
  SectorMiss,    // line present, `fetch` missing sectors to request
  WriteThrough,  // store / atomic: goes down through the miss queue (a present copy evicted)
  Bypass,        // load sent down without L1 allocation (bypass mode, or the L1 is disabled)
  PdpBypass,     // PDP: every way of the set protected, the miss bypasses (CBWT)
};

struct L1Decision {
  L1Outcome outcome = L1Outcome::Fail;
  ReservationFail fail = ReservationFail::None;
  Addr line = 0;
  std::uint32_t fetch = 0;  // Miss / SectorMiss: tag-array sectors to fetch
  bool evicted = false;     // a valid line was displaced (Miss) or write-evicted (WriteThrough)
  bool updated = false;     // WriteThrough: a present line kept and updated (store_hit_update)
  bool via_bypass_queue = false;  // Bypass / PdpBypass: the bypass queue, else the miss queue
  Addr evicted_line = 0;          // the displaced line when `evicted`
  bool no_reuse = false;          // Bypass because the data structure is NO-REUSE (seed 000)
  std::uint8_t pin = 0;           // Miss: insertion priority of the allocated line (seed 000)
  // Miss / SectorMiss: the line's tag-array frame (TagArray::slot()), a hint for its fill.
  std::uint32_t slot = 0;
};

// GpuExtension::data_structure of an access that belongs to no declared data structure.
constexpr std::uint16_t kNoDataStructure = 0xffff;

struct L1PolicyConfig {
  CacheGeometry geometry;
  bool enabled = true;
  L1BypassMode bypass = L1BypassMode::None;
  bool pdp = false;
  std::uint32_t mshr_entries = 32;
  std::uint32_t mshr_max_merge = 8;
  // A global store that hits keeps the line, updated and touched, instead of evicting it
  // (GPGPU-Sim's write-through "L" policy for global data, the simulator of seeds 000 and 004;
  // the Fermi hardware evicts). Atomics always evict: they are performed at the L2.
  bool store_hit_update = false;
};

template <class Req>
class L1CachePolicy : public CachePolicyFills<L1CachePolicy<Req>, Req> {
 public:
  explicit L1CachePolicy(const L1PolicyConfig& c)
      : cfg_(c), tags_(c.geometry), mshr_(c.mshr_entries, c.mshr_max_merge, tags_.slots()) {
    if (c.pdp) {
      PdpConfig pc;
      pc.geometry = c.geometry;
      pdp_ = std::make_unique<ProtectingDistancePolicy>(pc);
    }
  }

  // Decides what to do with a request (`bytes` of the line at `addr`) and applies it unless it
  // fails. `miss_queue_full` / `bypass_queue_full` are the shell's queues towards the NoC.
  // `data_structure` selects the Locality Descriptor treatment (set_ds_treatment), if any.
  L1Decision access(AccessKind kind, Addr addr, const ByteMask& bytes, std::uint32_t bypass_rank,
                    Req req, bool miss_queue_full, bool bypass_queue_full,
                    std::uint16_t data_structure = kNoDataStructure) {
    L1Decision d;
    access(kind, addr, bytes, bypass_rank, req, miss_queue_full, bypass_queue_full, data_structure,
           d);
    return d;
  }
  // The same into `d`, a default-constructed decision (not reset here: the caller's fresh one
  // would be cleared twice). Always inline: one call per attempt of the L1 shell, which fills
  // its own decision in place (every return of a returned struct wrote all of it to the stack).
  [[gnu::always_inline]] void access(AccessKind kind, Addr addr, const ByteMask& bytes,
                                     std::uint32_t bypass_rank, Req req, bool miss_queue_full,
                                     bool bypass_queue_full, std::uint16_t data_structure,
                                     L1Decision& d) {
    d.line = tags_.line_addr(addr);
    const Addr line = d.line;
    auto fail = [&](ReservationFail f) { d.fail = f; };
    if (kind != AccessKind::Load) {
      // Stores and atomics: write-through / performed at L2; evict a present copy (write-evict).
      if (miss_queue_full) return fail(ReservationFail::MissQueue);
      if (cfg_.enabled) {
        std::uint32_t set;
        const int way = tags_.find(line, set);
        if (way >= 0 && !tags_.line(set, way).reserved) {
          if (kind == AccessKind::Store && cfg_.store_hit_update) {
            tags_.touch(set, way);
            d.updated = true;
          } else {
            tags_.invalidate_way(set, way);  // write-evict: the line found above
            d.evicted = true;
            d.evicted_line = line;
          }
        }
      }
      d.outcome = L1Outcome::WriteThrough;
      return;
    }
    if (!cfg_.enabled) {
      if (miss_queue_full) return fail(ReservationFail::MissQueue);
      d.outcome = L1Outcome::Bypass;
      return;
    }
    const DsTreatment* t = treatment(data_structure);
    d.no_reuse = t && t->bypass;  // seed 000 R3.1: NO-REUSE loads never allocate
    if (cfg_.bypass == L1BypassMode::All || d.no_reuse ||
        (cfg_.bypass == L1BypassMode::RankLimit && bypass_rank >= bypass_limit_)) {
      if (bypass_queue_full) return fail(ReservationFail::BypassQueue);
      d.outcome = L1Outcome::Bypass;
      d.via_bypass_queue = true;
      return;
    }
    const std::uint32_t want = bytes.sector_mask(tags_.geometry().sector_bytes);
    const Probe p = tags_.probe(line, want);
    std::uint32_t waits = 0;  // sectors this request waits for that are already in flight
    switch (p.result) {
      case ProbeResult::Hit:
        touch(p, line);
        d.outcome = L1Outcome::Hit;
        return;
      case ProbeResult::HitReserved: {
        // The line's fill is in flight: wait for the wanted sectors already on their way, and
        // fetch the others now as a sector miss (one MSHR entry per sector, model/mshr_table.h).
        const std::uint32_t slot = tags_.slot(p.set, p.way);
        const std::uint32_t pending = mshr_.pending(slot);
        waits = want & pending;
        if (!mshr_.can_wait(slot, waits)) return fail(ReservationFail::MshrMerge);
        if ((want & ~tags_.line(p.set, p.way).valid_sectors & ~pending) == 0) {
          touch(p, line);
          mshr_.wait(slot, waits, req);
          d.outcome = L1Outcome::MshrMerge;
          return;
        }
        break;
      }
      case ProbeResult::MissNoVictim:
        return fail(ReservationFail::LineAlloc);
      case ProbeResult::Miss:
      case ProbeResult::SectorMiss:
        break;
    }
    const CacheGeometry& g = tags_.geometry();
    const bool tag_miss = p.result == ProbeResult::Miss;
    // Sectored caches fetch only the sectors asked for; others fetch the whole line.
    const std::uint32_t fetch =
        tag_miss ? (g.sector_bytes < g.line_bytes ? want : tags_.full_sector_mask())
                 : want & ~tags_.line(p.set, p.way).valid_sectors &
                       ~mshr_.pending(tags_.slot(p.set, p.way));
    if (!mshr_.can_fetch(fetch)) return fail(ReservationFail::MshrEntry);
    if (miss_queue_full) return fail(ReservationFail::MissQueue);
    Probe victim = p;
    if (pdp_) {
      // CBWT's PDP (seed 004 §7.1): an inserting miss whose set has only protected lines
      // bypasses.
      const int way = tag_miss ? pdp_->victim(tags_, p.set) : p.way;
      if (way < 0 && bypass_queue_full) return fail(ReservationFail::BypassQueue);
      pdp_->on_access(p.set, line);
      if (way < 0) {
        d.outcome = L1Outcome::PdpBypass;
        d.via_bypass_queue = true;
        return;
      }
      victim.way = way;
    }
    d.fetch = fetch;
    if (!tag_miss) {
      d.outcome = L1Outcome::SectorMiss;
      tags_.reserve_sectors(line);
      tags_.touch(p.set, p.way);
    } else {
      d.outcome = L1Outcome::Miss;
      d.pin = t ? t->pin : std::uint8_t{kPinNone};  // seed 000 R4.1: insertion priority
      const Eviction ev = tags_.allocate(line, victim, d.pin);
      d.evicted = ev.valid;
      d.evicted_line = ev.line_addr;
    }
    if (pdp_) pdp_->protect(victim.set, victim.way);
    d.slot = tags_.slot(victim.set, victim.way);
    mshr_.fetch_and_wait(d.slot, d.fetch, waits | d.fetch, req);
  }

  // Seed 000 §4.5 (R6.4): a prefetch of the line holding `addr` with insertion priority `pin`.
  // It takes a line and an MSHR entry whose first waiting request is `marker` (a value the
  // caller recognises at the fill: no warp waits for it), or is dropped, changing nothing, when
  // the line is present or in flight, no way can be allocated, the MSHR table is full or the
  // miss queue is: a prefetch never causes a reservation failure.
  enum class PrefetchDrop { None, Present, InFlight, NoLine, NoMshr, MissQueue };
  PrefetchDrop prefetch(Addr addr, Req marker, bool miss_queue_full, std::uint8_t pin,
                        L1Decision& d) {
    d = L1Decision();
    d.line = tags_.line_addr(addr);
    const CacheGeometry& g = tags_.geometry();
    const Probe p = tags_.probe(d.line, g.full_sector_mask());
    if (p.result == ProbeResult::Hit || p.result == ProbeResult::SectorMiss)
      return PrefetchDrop::Present;
    // A line absent from the tags has nothing in flight (its tag stays until its fill).
    if (p.result == ProbeResult::HitReserved) return PrefetchDrop::InFlight;
    if (p.result == ProbeResult::MissNoVictim) return PrefetchDrop::NoLine;
    if (!mshr_.can_fetch(g.full_sector_mask())) return PrefetchDrop::NoMshr;
    if (miss_queue_full) return PrefetchDrop::MissQueue;
    d.outcome = L1Outcome::Miss;
    d.pin = pin;
    const Eviction ev = tags_.allocate(d.line, p, pin);
    d.evicted = ev.valid;
    d.evicted_line = ev.line_addr;
    d.fetch = g.full_sector_mask();
    d.slot = tags_.slot(p.set, p.way);
    mshr_.fetch_and_wait(d.slot, d.fetch, d.fetch, marker);
    return PrefetchDrop::None;
  }

  // A fill of `line` arrived with `sectors`: each request it completes is handed to `release`
  // as it leaves the MSHR entry (before the line's sectors are marked valid: `release` must not
  // look at the tags or the MSHRs). CachePolicyFills collects them into a vector.
  template <class F>
  [[gnu::always_inline]] void fill_each(Addr line, std::uint32_t sectors, std::uint32_t slot,
                                        F&& release) {
    if (!tags_.holds(slot, line) && (slot = tags_.slot_of(line)) == kNoSlot) return;
    const std::uint32_t left = mshr_.fill_each(slot, sectors, release);
    tags_.fill_slot(slot, sectors, left != 0);  // still reserved while sectors are in flight
  }

  // Kernel boundary: GPUs drop (non-coherent) L1 contents between kernels.
  void invalidate_all() { tags_.invalidate_all(); }
  // Drops `addr`'s line if it is present and not waiting for a fill; true if it was dropped
  // (a shared L1's leftover private copy, seed 002 R5.8).
  bool drop(Addr addr) {
    const int way = tags_.find(addr);
    if (way < 0 || tags_.line(tags_.set_index(addr), way).reserved) return false;
    tags_.invalidate(addr);
    return true;
  }
  // Seed 000: the treatment of each data structure of the running kernel (indexed by
  // data_structure id; empty = none), and the periodic unpin (R4.3).
  void set_ds_treatment(std::vector<DsTreatment> t) {
    treatment_ = std::move(t);
    treatments_ = treatment_.size();
  }
  const DsTreatment* treatment(std::uint16_t ds) const {
    return ds < treatments_ ? &treatment_[ds] : nullptr;
  }
  void unpin_all() { tags_.unpin_all(); }
  // RankLimit mode: the first `limit` warps/CTAs (by bypass rank) use the L1.
  void set_bypass_limit(std::uint32_t limit) { bypass_limit_ = limit; }
  std::uint32_t bypass_limit() const { return bypass_limit_; }
  const TagArray& tags() const { return tags_; }
  std::uint32_t mshr_in_use() const { return mshr_.in_use(); }

 private:
  void touch(const Probe& p, Addr line) {
    tags_.touch(p.set, p.way);
    if (pdp_) {
      pdp_->on_access(p.set, line);
      pdp_->protect(p.set, p.way);
    }
  }

  L1PolicyConfig cfg_;
  TagArray tags_;
  SlotMshrTable<Req> mshr_;
  std::uint32_t bypass_limit_ = ~std::uint32_t{0};
  std::unique_ptr<ProtectingDistancePolicy> pdp_;
  std::vector<DsTreatment> treatment_;
  std::size_t treatments_ = 0;  // treatment_.size(), kept: asked on every load (no division)
};

}  // namespace locsim
