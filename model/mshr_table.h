// Miss-status holding registers of the L1 and L2 caches. Template on the request handle so tests
// can use ints.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/types.h"

namespace locsim {

namespace detail {
inline std::uint32_t mshr_popcount(std::uint32_t v) {
  return static_cast<std::uint32_t>(__builtin_popcount(v));
}
// A request waiting in an MSHR entry for `sectors` of its line.
template <class Req>
struct MshrWaiter {
  std::uint32_t sectors;
  Req req;
};
// Room for one more waiter for `sectors`: fewer than max_merged wait for each of them.
template <class Req>
bool mshr_room_to_wait(const std::vector<MshrWaiter<Req>>& waiters, std::uint32_t sectors,
                       std::uint32_t max_merged) {
  for (std::uint32_t s = sectors; s != 0; s &= s - 1) {
    const std::uint32_t bit = s & (~s + 1);
    std::uint32_t n = 0;
    for (const MshrWaiter<Req>& w : waiters) n += (w.sectors & bit) ? 1u : 0u;
    if (n >= max_merged) return false;
  }
  return true;
}
// Hands `release`, in arrival order, the waiters none of whose sectors is still `pending`, and
// keeps the others (inline in each table's fill(), where it was written out before: a call cost
// 30 per transaction).
template <class Req, class F>
[[gnu::always_inline]] inline void mshr_release_ready(std::vector<MshrWaiter<Req>>& waiters,
                                                      std::uint32_t pending, F&& release) {
  if (waiters.size() == 1) {  // a line nobody merged into (the usual miss): no loop
    if ((waiters[0].sectors & pending) != 0) return;
    release(std::move(waiters[0].req));
    waiters.clear();
    return;
  }
  std::size_t keep = 0;
  for (std::size_t i = 0; i < waiters.size(); ++i) {
    if ((waiters[i].sectors & pending) == 0)
      release(std::move(waiters[i].req));
    else
      waiters[keep++] = std::move(waiters[i]);
  }
  waiters.erase(waiters.begin() + static_cast<std::ptrdiff_t>(keep), waiters.end());
}
}  // namespace detail

// MSHRs of a sectored cache with one entry per sector in flight, as GPGPU-Sim keys its MSHR
// table on the sector address of a sectored cache (`mshr_addr`, atom size = sector): a request
// to a line whose fill is in flight fetches the sectors nobody has asked for yet instead of
// waiting for the line, and waits only for the sectors it needs. Each sector in flight admits
// up to max_merged waiting requests (the one that fetched it included).
template <class Req>
class SectorMshrTable {
 public:
  SectorMshrTable(std::uint32_t entries, std::uint32_t max_merged)
      : entries_(entries), max_merged_(max_merged) {
    // Sized for every entry in flight; an unbounded table (the functional replay's) starts
    // small and grows as lines come.
    std::size_t n = 8;
    while (n < 2 * std::size_t{std::min<std::uint32_t>(entries, 1024)}) n *= 2;
    resize(n);
  }

  std::uint32_t capacity() const { return entries_; }
  std::uint32_t max_merged() const { return max_merged_; }
  // Sectors in flight over all lines (entries in use).
  std::uint32_t in_use() const { return in_use_; }
  // Sectors of `line` in flight.
  std::uint32_t pending(Addr line) const {
    const std::size_t i = find(line);
    return i == kNone ? 0 : lines_[i].pending;
  }
  // Room for `sectors` more in flight.
  bool can_fetch(std::uint32_t sectors) const { return in_use_ + popcount(sectors) <= entries_; }
  // Room for one more request waiting for `sectors` of line (each below max_merged).
  bool can_wait(Addr line, std::uint32_t sectors) const {
    const std::size_t i = find(line);
    return i == kNone || detail::mshr_room_to_wait(lines_[i].waiters, sectors, max_merged_);
  }
  // Precondition: can_fetch(sectors); sectors not already pending.
  void fetch(Addr line, std::uint32_t sectors) {
    lines_[find_or_add(line)].pending |= sectors;
    in_use_ += popcount(sectors);
  }
  // fetch(line, sectors) then wait(line, waits, r) with one lookup of the line. `hint`: a value
  // the caller keeps with the line while it is in flight (fill() returns it), e.g. where its tag
  // is.
  void fetch_and_wait(Addr line, std::uint32_t sectors, std::uint32_t waits, Req r,
                      std::uint32_t hint = 0) {
    Line& l = lines_[find_or_add(line)];
    l.hint = hint;
    l.pending |= sectors;
    in_use_ += popcount(sectors);
    l.waiters.push_back(Waiter{waits, std::move(r)});
  }
  // `r` waits for `sectors` of line (a subset of what is pending). Precondition: can_wait.
  void wait(Addr line, std::uint32_t sectors, Req r) {
    lines_[find_or_add(line)].waiters.push_back(Waiter{sectors, std::move(r)});
  }
  // `sectors` of line arrived: returns, in arrival order, the requests that now have every
  // sector they waited for; the line's entry goes when nothing of it is in flight.
  std::vector<Req> fill(Addr line, std::uint32_t sectors) {
    std::vector<Req> out;
    fill(line, sectors, out);
    return out;
  }
  // The same into `out` (cleared first), so a caller that keeps the vector allocates nothing;
  // returns the sectors of line still in flight (pending(line) after the fill).
  std::uint32_t fill(Addr line, std::uint32_t sectors, std::vector<Req>& out) {
    std::uint32_t hint;
    return fill(line, sectors, out, hint);
  }
  // The same, and `hint` the line's last fetch_and_wait() hint (unchanged if it is not in flight).
  std::uint32_t fill(Addr line, std::uint32_t sectors, std::vector<Req>& out, std::uint32_t& hint) {
    out.clear();
    const std::size_t at = find(line);
    if (at == kNone) return 0;
    Line& l = lines_[at];
    hint = l.hint;
    in_use_ -= popcount(l.pending & sectors);
    l.pending &= ~sectors;
    detail::mshr_release_ready(l.waiters, l.pending,
                               [&out](Req&& r) { out.push_back(std::move(r)); });
    const std::uint32_t left = l.pending;
    if (left == 0) erase(at);
    return left;
  }

 private:
  static std::uint32_t popcount(std::uint32_t v) { return detail::mshr_popcount(v); }
  using Waiter = detail::MshrWaiter<Req>;
  struct Line {
    std::uint32_t pending = 0;
    std::uint32_t hint = 0;
    std::vector<Waiter> waiters;
  };
  // The lines with sectors in flight, looked up on every access: open addressing with linear
  // probing over slots that keep their waiter vectors, so a miss allocates nothing once the
  // table has warmed up (a node-based map allocated per missing line). Nothing iterates it.
  static constexpr std::size_t kNone = ~std::size_t{0};
  static constexpr std::size_t kReservedWaiters = 2;
  static constexpr Addr kEmpty = ~Addr{0};
  std::size_t home(Addr line) const {
    return static_cast<std::size_t>((line * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::size_t find(Addr line) const {
    for (std::size_t i = home(line);; i = (i + 1) & mask_) {
      if (keys_[i] == line) return i;
      if (keys_[i] == kEmpty) return kNone;
    }
  }
  std::size_t find_or_add(Addr line) {
    std::size_t i = home(line);
    for (; keys_[i] != kEmpty; i = (i + 1) & mask_)
      if (keys_[i] == line) return i;
    keys_[i] = line;
    if (2 * ++used_ > keys_.size()) {  // keep probes short: at most half full
      resize(2 * keys_.size());
      return find(line);
    }
    return i;
  }
  // Backward-shift deletion: later entries of the probe run move up so that no lookup stops
  // early at the hole.
  void erase(std::size_t i) {
    for (std::size_t j = (i + 1) & mask_; keys_[j] != kEmpty; j = (j + 1) & mask_) {
      if (((j - home(keys_[j])) & mask_) >= ((j - i) & mask_)) {
        keys_[i] = keys_[j];
        std::swap(lines_[i], lines_[j]);
        i = j;
      }
    }
    keys_[i] = kEmpty;
    lines_[i].pending = 0;
    lines_[i].hint = 0;
    lines_[i].waiters.clear();
    --used_;
  }
  void resize(std::size_t n) {
    std::vector<Addr> keys(n, kEmpty);
    std::vector<Line> lines(n);
    // Room for a line's usual waiters in every slot now: a slot's first line would allocate
    // otherwise, which a long run keeps doing until its lines have hit every slot.
    for (Line& l : lines) l.waiters.reserve(kReservedWaiters);
    keys.swap(keys_);
    lines.swap(lines_);
    mask_ = n - 1;
    shift_ = 64;
    for (std::size_t b = n; b > 1; b >>= 1) --shift_;
    used_ = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] == kEmpty) continue;
      std::size_t i = home(keys[k]);
      while (keys_[i] != kEmpty) i = (i + 1) & mask_;
      keys_[i] = keys[k];
      lines_[i] = std::move(lines[k]);
      ++used_;
    }
  }

  std::uint32_t entries_;
  std::uint32_t max_merged_;
  std::uint32_t in_use_ = 0;
  std::vector<Addr> keys_;
  std::vector<Line> lines_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t used_ = 0;
};

// The same MSHRs for a cache whose lines in flight keep their tag-array frame: a line with
// sectors in flight holds a reserved tag that is never evicted or moved, so the frame's index
// (TagArray::slot(), "slot" here) names the line for as long as it is in flight. Each slot in
// flight points to an entry of a small pool (at most one per line in flight, each keeping its
// waiter vector), instead of a hash table looked up and shifted on every miss and fill. The
// caller keeps the invariant: a slot is only fetched for while it holds (or just got) the line,
// and keeps the line until its last sector has arrived.
template <class Req>
class SlotMshrTable {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // `slots`: the tag array's frames (sets x ways).
  SlotMshrTable(std::uint32_t entries, std::uint32_t max_merged, std::size_t slots)
      : entries_(entries), max_merged_(max_merged), entry_of_(slots, kNone) {
    // Room for every line in flight at once (one sector each at worst); an unbounded table
    // (the functional replay's) starts small and grows as lines come.
    const std::size_t n = std::min<std::size_t>(std::min<std::uint32_t>(entries, 1024), slots);
    pool_.reserve(n);
    free_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) add_entry();
  }

  std::uint32_t capacity() const { return entries_; }
  std::uint32_t max_merged() const { return max_merged_; }
  // Sectors in flight over all lines (entries in use).
  std::uint32_t in_use() const { return in_use_; }
  // Sectors in flight of the line in `slot`.
  std::uint32_t pending(std::uint32_t slot) const {
    const std::uint32_t e = entry_of_[slot];
    return e == kNone ? 0 : pool_[e].pending;
  }
  // Room for `sectors` more in flight.
  bool can_fetch(std::uint32_t sectors) const { return in_use_ + popcount(sectors) <= entries_; }
  // Room for one more request waiting for `sectors` of the line in `slot` (each below
  // max_merged).
  bool can_wait(std::uint32_t slot, std::uint32_t sectors) const {
    const std::uint32_t e = entry_of_[slot];
    return e == kNone || detail::mshr_room_to_wait(pool_[e].waiters, sectors, max_merged_);
  }
  // `sectors` of the line in `slot` go in flight (precondition: can_fetch(sectors), none of
  // them pending) and `r` waits for `waits` of them.
  void fetch_and_wait(std::uint32_t slot, std::uint32_t sectors, std::uint32_t waits, Req r) {
    Line& l = pool_[entry(slot)];
    l.pending |= sectors;
    in_use_ += popcount(sectors);
    l.waiters.push_back(Waiter{waits, std::move(r)});
  }
  // `r` waits for `sectors` of the line in `slot` (a subset of what is pending). Precondition:
  // can_wait.
  void wait(std::uint32_t slot, std::uint32_t sectors, Req r) {
    pool_[entry(slot)].waiters.push_back(Waiter{sectors, std::move(r)});
  }
  // `sectors` of the line in `slot` arrived: `out` (cleared first) gets, in arrival order, the
  // requests that now have every sector they waited for; returns the sectors still in flight.
  // The slot's entry goes when nothing of the line is in flight.
  std::uint32_t fill(std::uint32_t slot, std::uint32_t sectors, std::vector<Req>& out) {
    out.clear();
    return fill_each(slot, sectors, [&out](Req&& r) { out.push_back(std::move(r)); });
  }
  // The same, each completed request handed to `release` (in arrival order) as it leaves: no
  // vector written and read again. `release` may read the table (pending() then gives what is
  // still in flight) but not change it.
  template <class F>
  [[gnu::always_inline]] std::uint32_t fill_each(std::uint32_t slot, std::uint32_t sectors,
                                                 F&& release) {
    const std::uint32_t e = entry_of_[slot];
    if (e == kNone) return 0;
    Line& l = pool_[e];
    in_use_ -= popcount(l.pending & sectors);
    l.pending &= ~sectors;
    detail::mshr_release_ready(l.waiters, l.pending, release);
    const std::uint32_t left = l.pending;
    if (left == 0) {
      entry_of_[slot] = kNone;
      free_.push_back(e);
    }
    return left;
  }

 private:
  static std::uint32_t popcount(std::uint32_t v) { return detail::mshr_popcount(v); }
  using Waiter = detail::MshrWaiter<Req>;
  struct Line {
    std::uint32_t pending = 0;
    std::vector<Waiter> waiters;  // empty when the entry is free
  };
  static constexpr std::size_t kReservedWaiters = 2;  // a slot's first waiter allocates nothing
  // The slot's entry, taken from the free ones if it has none.
  std::uint32_t entry(std::uint32_t slot) {
    std::uint32_t& e = entry_of_[slot];
    if (e == kNone) {
      if (free_.empty()) add_entry();
      e = free_.back();
      free_.pop_back();
    }
    return e;
  }
  void add_entry() {
    free_.push_back(static_cast<std::uint32_t>(pool_.size()));
    pool_.emplace_back();
    pool_.back().waiters.reserve(kReservedWaiters);
  }

  std::uint32_t entries_;
  std::uint32_t max_merged_;
  std::uint32_t in_use_ = 0;
  std::vector<std::uint32_t> entry_of_;  // per slot: its entry in pool_, or kNone
  std::vector<Line> pool_;
  std::vector<std::uint32_t> free_;  // entries of pool_ not in use
};

}  // namespace locsim
