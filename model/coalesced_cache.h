// Coalesced cache (CC) of the ICC unit, seed 001 §6.3: a small fully associative LRU cache at the
// cluster that keeps lines whose reply had more than one requester, so reads arriving after the
// merge-table entry was freed can still be served without a NoC request. Looked up on every L1
// read miss before the merge table. Tags only unless data is kept (data-integrity mode).
//
// Stores: the ICC passes writes to the NoC; a write to a line held in the CC invalidates it
// (write-evict, like the Fermi L1), so the CC never returns data older than a store that went
// past it. Kernel boundaries invalidate everything (the CC is no more coherent than the L1).
#pragma once
#include <cstdint>
#include <vector>

#include "model/types.h"

namespace locsim {

class CoalescedCache {
 public:
  CoalescedCache(std::uint32_t entries, std::uint32_t line_bytes, bool keep_data);

  std::uint32_t capacity() const { return static_cast<std::uint32_t>(entries_.size()); }
  std::uint32_t occupancy() const;
  // A read needing `needed` bytes of `line`: true (and LRU update) if every byte is present.
  bool lookup(Addr line, const ByteMask& needed);
  bool contains(Addr line) const { return find(line) >= 0; }
  // Line data (line_bytes, only the valid bytes meaningful); nullptr without data or entry.
  const std::uint8_t* data(Addr line) const;
  // Inserts (or extends) `line` with `bytes`; `src` (line-sized) may be null. Evicts the LRU
  // entry when full; returns true if a valid line was evicted.
  bool fill(Addr line, const ByteMask& bytes, const std::uint8_t* src);
  // Returns true if the line was present.
  bool invalidate(Addr line);
  void invalidate_all();

 private:
  struct Entry {
    bool valid = false;
    Addr line = 0;
    ByteMask bytes;
    std::uint64_t stamp = 0;  // LRU: last use
  };
  int find(Addr line) const;
  std::vector<Entry> entries_;
  std::uint32_t line_bytes_;
  std::vector<std::uint8_t> data_;  // entries x line_bytes when keeping data
  std::uint64_t clock_ = 0;
};

}  // namespace locsim
