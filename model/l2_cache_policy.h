// The L2 sub-partition's decisions, as a plain-C++ policy object shared by the timed L2 shell
// (tlm_components/l2_cache_bank) and the functional replay (model/functional_hierarchy):
// sectored, write-back, write-allocate, LRU; a store that fully covers the sectors it misses
// allocates without fetching, a partial one fetches them first (fetch-on-write); requests to a
// line being filled wait for the sectors they need, fetching those nobody has asked for yet
// (one MSHR entry per sector in flight, model/mshr_table.h); a dirty victim is written back; a
// request that cannot get a line, MSHR entries or a merge slot, or room in the queue towards DRAM
// fails, by cause. It owns the tag array and the MSHR table; `Req` is the caller's handle of a
// waiting request.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/cache_policy_fills.h"
#include "model/mshr_table.h"
#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

enum class L2Fail { None, LineAlloc, MshrEntry, MshrMerge, MissQueue };

enum class L2Outcome {
  Fail,           // see L2Decision::fail; nothing changed
  Hit,            // perform now (a store or atomic marks its sectors dirty: mark_written)
  MshrMerge,      // waits for the line's fill
  Miss,           // `missing` sectors to fetch (line allocated on a tag miss)
  StoreAllocate,  // a store supplying every missing sector: allocated and valid, perform now
};

struct L2Decision {
  L2Outcome outcome = L2Outcome::Fail;
  L2Fail fail = L2Fail::None;
  Addr line = 0;
  std::uint32_t missing = 0;  // Miss / StoreAllocate: sectors the request needed and lacked
  bool sector_miss = false;   // the tag was present
  // The displaced line (valid when a Miss or StoreAllocate took a valid victim); the victim's
  // frame (set, way) still holds its data until the caller overwrites it.
  Eviction victim;
  // Hit, Miss and StoreAllocate: the line's frame (on a Miss the victim's until the fill).
  std::uint32_t set = 0;
  int way = -1;
  std::uint32_t need = 0;  // the request's sectors (unless LineAlloc failed)
};

// AddressMap::bank_local() of the baseline map (no registered range): the chunk index divided by
// the channel count and then by the sub-partitions per channel, in one division (the quotient of
// a quotient is the quotient by the product). Inline in the L2's decision, where the set index
// otherwise reaches the map through a virtual call.
class BankLocalBaseline {
 public:
  BankLocalBaseline() = default;
  // interleave_bytes: a power of two.
  BankLocalBaseline(std::uint32_t interleave_bytes, std::uint32_t channels,
                    std::uint32_t subpartitions_per_channel)
      : shift_(static_cast<unsigned>(__builtin_ctz(interleave_bytes))),
        div_(Addr{channels} * subpartitions_per_channel),
        low_(interleave_bytes - 1) {}
  Addr operator()(Addr a) const { return (((a >> shift_) / div_) << shift_) | (a & low_); }

 private:
  unsigned shift_ = 0;
  Addr div_ = 1;
  Addr low_ = 0;
};

// Sectors every byte of which is in the mask.
inline std::uint32_t fully_covered_sectors(const ByteMask& m, const CacheGeometry& g) {
  return m.full_sector_mask(g.sector_bytes) & g.full_sector_mask();
}

template <class Req>
class L2CachePolicy : public CachePolicyFills<L2CachePolicy<Req>, Req> {
 public:
  // index_addr (optional): set indexing on a bank-local address (TagArray).
  L2CachePolicy(const CacheGeometry& g, std::uint32_t mshr_entries, std::uint32_t mshr_max_merge,
                const SetIndexAddress* index_addr = nullptr)
      : tags_(g, index_addr), mshr_(mshr_entries, mshr_max_merge, tags_.slots()) {}

  // `queue_free`: entries free in the queue towards DRAM (a miss needs one for its fetch and one
  // for a dirty victim's write-back).
  L2Decision access(AccessKind kind, Addr addr, const ByteMask& bytes, Req req,
                    std::size_t queue_free) {
    L2Decision d;
    access(kind, addr, bytes, req, queue_free, d);
    return d;
  }
  // The same into `d`, a default-constructed decision (not reset here: the caller's fresh one
  // would be cleared twice). Always inline: the tag stage's one call per request, which then
  // fills its own decision in place (a returned 56-byte struct was copied once more).
  // `set`: the line's set if the caller knows it (TagArray::probe_in()), else kNoSlot.
  [[gnu::always_inline]] void access(AccessKind kind, Addr addr, const ByteMask& bytes, Req req,
                                     std::size_t queue_free, L2Decision& d,
                                     std::uint32_t set = kNoSlot) {
    const CacheGeometry& g = tags_.geometry();
    d.line = tags_.line_addr(addr);
    const Addr line = d.line;
    const std::uint32_t need = bytes.sector_mask(g.sector_bytes);
    d.need = need;
    const bool is_store = kind == AccessKind::Store;
    const std::uint32_t covered = is_store ? covered_sectors(bytes) : 0;
    const Probe p = set == kNoSlot ? tags_.probe(line, need) : tags_.probe_in(set, line, need);
    if (p.result == ProbeResult::MissNoVictim) return fail(d, L2Fail::LineAlloc);
    if (p.result == ProbeResult::HitReserved) {
      // Out of line: the rarer case (requests merging into a fill in flight), which keeps the
      // usual paths of this always-inline decision small enough for the compiler to inline
      // what they call.
      access_in_flight(p, line, need, covered, req, queue_free, d);
      return;
    }
    if (p.result == ProbeResult::Hit) {
      tags_.touch(p.set, p.way);
      d.set = p.set;
      d.way = p.way;
      d.outcome = L2Outcome::Hit;
      return;
    }
    // Miss or sector miss.
    d.sector_miss = p.result == ProbeResult::SectorMiss;
    const std::uint32_t valid = d.sector_miss ? tags_.line(p.set, p.way).valid_sectors : 0;
    d.missing = need & ~valid;
    const bool no_fetch = is_store && (d.missing & ~covered) == 0;
    const bool dirty_victim = p.result == ProbeResult::Miss && tags_.line(p.set, p.way).valid &&
                              tags_.line(p.set, p.way).dirty_sectors != 0;
    const std::size_t slots = (no_fetch ? 0u : 1u) + (dirty_victim ? 1u : 0u);
    if (!no_fetch && !mshr_.can_fetch(d.missing)) return fail(d, L2Fail::MshrEntry);
    if (queue_free < slots) return fail(d, L2Fail::MissQueue);
    d.set = p.set;
    d.way = p.way;
    if (p.result == ProbeResult::Miss)
      d.victim = tags_.allocate(line, p);
    else
      tags_.touch(p.set, p.way);
    if (no_fetch) {
      // Write-allocate without fetch: the store supplies every byte of the missing sectors.
      tags_.fill_way(p.set, p.way, d.missing);
      d.outcome = L2Outcome::StoreAllocate;
      return;
    }
    if (d.sector_miss) tags_.reserve_sectors(line);
    mshr_.fetch_and_wait(tags_.slot(p.set, p.way), d.missing, d.missing, req);
    d.outcome = L2Outcome::Miss;
    return;
  }

  // A store or atomic was performed on a present line: write-back marks its sectors dirty.
  void mark_written(Addr line, const ByteMask& bytes) {
    tags_.mark_dirty(line, bytes.sector_mask(tags_.geometry().sector_bytes));
  }
  // The same for the line in (set, way) of a Hit or StoreAllocate decision (no lookup).
  void mark_written(std::uint32_t set, int way, const ByteMask& bytes) {
    tags_.mark_dirty_way(set, way, bytes.sector_mask(tags_.geometry().sector_bytes));
  }
  // The same with the request's sectors known (L2Decision::need).
  void mark_written_sectors(std::uint32_t set, int way, std::uint32_t sectors) {
    tags_.mark_dirty_way(set, way, sectors);
  }
  // A fill of `line` arrived with `sectors`: each request it completes is handed to `release`
  // as it leaves the MSHR entry, before the fill's sectors are marked valid; `release` may call
  // store_covers() and mark_written() (which only add valid and dirty sectors, and read what is
  // still in flight) but nothing else of this policy. CachePolicyFills collects them.
  template <class F>
  [[gnu::always_inline]] void fill_each(Addr line, std::uint32_t sectors, std::uint32_t slot,
                                        F&& release) {
    if (!tags_.holds(slot, line) && (slot = tags_.slot_of(line)) == kNoSlot) {
      if (!claims_.empty()) claims_.erase(line);  // not in flight
      return;
    }
    const std::uint32_t left = mshr_.fill_each(slot, sectors, release);
    tags_.fill_slot(slot, sectors, left != 0);  // still reserved while sectors are in flight
    if (left == 0 && !claims_.empty()) claims_.erase(line);  // claims are rare: skip the lookup
  }
  // A store released by a fill may fully cover sectors that were not fetched: they are valid
  // now, or a later load would refetch them over the stored bytes.
  void store_covers(Addr line, const ByteMask& bytes) {
    const std::uint32_t slot = tags_.slot_of(line);
    if (slot == kNoSlot) return;
    tags_.fill_slot(slot, covered_sectors(bytes), mshr_.pending(slot) != 0);
  }

  const TagArray& tags() const { return tags_; }
  TagArray& tags() { return tags_; }

 private:
  static void fail(L2Decision& d, L2Fail f) { d.fail = f; }
  // access() for a line whose fill is in flight (probe p: HitReserved).
  [[gnu::noinline]] void access_in_flight(const Probe& p, Addr line, std::uint32_t need,
                                          std::uint32_t covered, Req req, std::size_t queue_free,
                                          L2Decision& d) {
    // The line's fill is in flight. Sectors that neither are valid nor in flight (nor fully
    // written by this store) are fetched now, one MSHR entry each; the request then waits for
    // the sectors it needs, or, a store covering everything not in flight, behind the fill.
    const std::uint32_t valid = tags_.line(p.set, p.way).valid_sectors;
    const std::uint32_t slot = tags_.slot(p.set, p.way);
    const std::uint32_t pending = mshr_.pending(slot);
    // Sectors a waiting store will write without a fetch: fetching them now could land stale
    // DRAM data over the store, so requests for them wait for the line's fill to complete.
    auto claim = claims_.find(line);
    if (claim != claims_.end() && (need & claim->second) != 0) return fail(d, L2Fail::MshrMerge);
    const std::uint32_t extra = need & ~valid & ~pending & ~covered;
    std::uint32_t waits = need & pending;
    if (extra == 0 && waits == 0) waits = pending;
    if (!mshr_.can_wait(slot, waits)) return fail(d, L2Fail::MshrMerge);
    const std::uint32_t claims = covered & ~valid & ~pending;
    if (extra != 0) {
      if (!mshr_.can_fetch(extra)) return fail(d, L2Fail::MshrEntry);
      if (queue_free < 1) return fail(d, L2Fail::MissQueue);
      if (claims != 0) claims_[line] |= claims;
      tags_.touch(p.set, p.way);
      mshr_.fetch_and_wait(slot, extra, waits | extra, req);
      d.sector_miss = true;
      d.missing = extra;
      d.set = p.set;
      d.way = p.way;
      d.outcome = L2Outcome::Miss;
      return;
    }
    if (claims != 0) claims_[line] |= claims;
    tags_.touch(p.set, p.way);
    mshr_.wait(slot, waits, req);
    d.outcome = L2Outcome::MshrMerge;
  }
  // fully_covered_sectors(): a store of the whole line (a line is at most 128 bytes, so every
  // byte of the mask) covers every sector, without the per-sector tests.
  std::uint32_t covered_sectors(const ByteMask& bytes) const {
    if ((bytes.w[0] & bytes.w[1]) == ~std::uint64_t{0}) return tags_.full_sector_mask();
    return bytes.full_sector_mask(tags_.geometry().sector_bytes) & tags_.full_sector_mask();
  }

  TagArray tags_;
  SlotMshrTable<Req> mshr_;
  std::unordered_map<Addr, std::uint32_t> claims_;  // per line in flight: see access()
};

}  // namespace locsim
