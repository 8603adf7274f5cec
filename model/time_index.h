// A map from pending times (ps) to small integers, for the activation scheduler's "is this time
// pending already, and in which bucket": open addressing with linear probing over a power-of-two
// table kept at most half full, and backward-shift deletion, so a search stops at the first free
// entry without tombstones. A dozen live times is typical (the next edge of each clock domain);
// a search is a multiply, a shift and usually one comparison.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace locsim {

class TimeIndex {
 public:
  static constexpr std::uint64_t kFree = std::numeric_limits<std::uint64_t>::max();
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  TimeIndex() : table_(64) {}

  // The value of t, or kAbsent with `e` set to the free entry where t would go.
  std::uint32_t lookup(std::uint64_t t, std::size_t& e) const {
    for (std::size_t h = home(t);; h = (h + 1) & mask_) {
      if (table_[h].t == t) return table_[h].value;
      if (table_[h].t == kFree) {
        e = h;
        return kAbsent;
      }
    }
  }
  // The entry where t is, or the free entry where it would go.
  std::size_t find(std::uint64_t t) const {
    std::size_t h = home(t);
    while (table_[h].t != t && table_[h].t != kFree) h = (h + 1) & mask_;
    return h;
  }
  // The value at an entry find() returned; kAbsent if the entry is free.
  std::uint32_t value(std::size_t e) const {
    return table_[e].t == kFree ? kAbsent : table_[e].value;
  }
  // Puts t (not present; t != kFree) at the free entry e that find(t) or lookup(t) gave.
  void insert_at(std::size_t e, std::uint64_t t, std::uint32_t v) {
    table_[e] = Entry{t, v};
    if (++size_ > limit_) grow();
  }
  // Removes t (present).
  void erase(std::uint64_t t) { erase_entry(find(t)); }
  // The same, with the entry insert_at() put t at: used if t is still there (a later removal
  // or growth may have moved it), which saves the search.
  void erase(std::uint64_t t, std::size_t hint) {
    hint &= mask_;
    erase_entry(table_[hint].t == t ? hint : find(t));
  }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return table_.size(); }
  // The entry a time hashes to (tests build collisions with it).
  std::size_t home(std::uint64_t t) const {
    return static_cast<std::size_t>((t * 0x9E3779B97F4A7C15ull) >> shift_);
  }

 private:
  void erase_entry(std::size_t h) {
    // Backward shift: move up each later entry of the run whose home the hole would cut it
    // off from (its home is not cyclically in (h, j]).
    for (std::size_t j = (h + 1) & mask_; table_[j].t != kFree; j = (j + 1) & mask_) {
      if (((j - home(table_[j].t)) & mask_) >= ((j - h) & mask_)) {
        table_[h] = table_[j];
        h = j;
      }
    }
    table_[h] = Entry{};
    --size_;
  }
  struct Entry {
    std::uint64_t t = kFree;
    std::uint32_t value = 0;
  };
  void grow() {
    std::vector<Entry> old(table_.size() * 2);
    old.swap(table_);
    mask_ = table_.size() - 1;
    limit_ = table_.size() / 2;
    --shift_;
    for (const Entry& e : old)
      if (e.t != kFree) table_[find(e.t)] = e;
  }
  std::vector<Entry> table_;
  std::size_t mask_ = 63;
  unsigned shift_ = 58;  // 64 - log2(table size)
  std::size_t size_ = 0;
  std::size_t limit_ = 32;  // half the table
};

}  // namespace locsim
