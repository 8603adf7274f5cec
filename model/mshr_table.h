// Miss-status holding registers of the L1 and L2 caches. Template on the request handle so tests
// can use ints.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace locsim {

// MSHRs of a sectored cache with one entry per sector in flight, as GPGPU-Sim keys its MSHR
// table on the sector address of a sectored cache (`mshr_addr`, atom size = sector): a request
// to a line whose fill is in flight fetches the sectors nobody has asked for yet instead of
// waiting for the line, and waits only for the sectors it needs. Each sector in flight admits
// up to max_merged waiting requests (the one that fetched it included).
template <class Req>
class SectorMshrTable {
 public:
  SectorMshrTable(std::uint32_t entries, std::uint32_t max_merged)
      : entries_(entries), max_merged_(max_merged) {}

  std::uint32_t capacity() const { return entries_; }
  std::uint32_t max_merged() const { return max_merged_; }
  // Sectors in flight over all lines (entries in use).
  std::uint32_t in_use() const { return in_use_; }
  // Sectors of `line` in flight.
  std::uint32_t pending(Addr line) const {
    auto it = table_.find(line);
    return it == table_.end() ? 0 : it->second.pending;
  }
  // Room for `sectors` more in flight.
  bool can_fetch(std::uint32_t sectors) const { return in_use_ + popcount(sectors) <= entries_; }
  // Room for one more request waiting for `sectors` of line (each below max_merged).
  bool can_wait(Addr line, std::uint32_t sectors) const {
    auto it = table_.find(line);
    if (it == table_.end()) return true;
    for (std::uint32_t s = sectors; s != 0; s &= s - 1) {
      const std::uint32_t bit = s & (~s + 1);
      std::uint32_t n = 0;
      for (const Waiter& w : it->second.waiters) n += (w.sectors & bit) ? 1u : 0u;
      if (n >= max_merged_) return false;
    }
    return true;
  }
  // Precondition: can_fetch(sectors); sectors not already pending.
  void fetch(Addr line, std::uint32_t sectors) {
    table_[line].pending |= sectors;
    in_use_ += popcount(sectors);
  }
  // `r` waits for `sectors` of line (a subset of what is pending). Precondition: can_wait.
  void wait(Addr line, std::uint32_t sectors, Req r) {
    table_[line].waiters.push_back(Waiter{sectors, std::move(r)});
  }
  // `sectors` of line arrived: returns, in arrival order, the requests that now have every
  // sector they waited for; the line's entry goes when nothing of it is in flight.
  std::vector<Req> fill(Addr line, std::uint32_t sectors) {
    std::vector<Req> out;
    auto it = table_.find(line);
    if (it == table_.end()) return out;
    Line& l = it->second;
    in_use_ -= popcount(l.pending & sectors);
    l.pending &= ~sectors;
    std::size_t keep = 0;
    for (std::size_t i = 0; i < l.waiters.size(); ++i) {
      if ((l.waiters[i].sectors & l.pending) == 0)
        out.push_back(std::move(l.waiters[i].req));
      else
        l.waiters[keep++] = std::move(l.waiters[i]);
    }
    l.waiters.erase(l.waiters.begin() + static_cast<std::ptrdiff_t>(keep), l.waiters.end());
    if (l.pending == 0) table_.erase(it);
    return out;
  }

 private:
  static std::uint32_t popcount(std::uint32_t v) {
    return static_cast<std::uint32_t>(__builtin_popcount(v));
  }
  struct Waiter {
    std::uint32_t sectors;
    Req req;
  };
  struct Line {
    std::uint32_t pending = 0;
    std::vector<Waiter> waiters;
  };
  std::uint32_t entries_;
  std::uint32_t max_merged_;
  std::uint32_t in_use_ = 0;
  std::unordered_map<Addr, Line> table_;
};

}  // namespace locsim
