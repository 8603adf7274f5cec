// A map from pending times (ps) to values (small integers or pointers), for the activation
// scheduler's "is this time pending already, and in which bucket": open addressing with linear
// probing over a power-of-two table kept at most half full, and backward-shift deletion, so a
// search stops at the first free entry without tombstones. A dozen live times is typical (the next
// edge of each clock domain); a search is a multiply, a shift and usually one comparison.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace locsim {

// V: an unsigned integer (kAbsent its largest value) or a pointer (kAbsent null).
template <class V>
class BasicTimeIndex {
 public:
  static constexpr std::uint64_t kFree = std::numeric_limits<std::uint64_t>::max();
  static constexpr V kAbsent = [] {
    if constexpr (std::is_pointer_v<V>)
      return V{};
    else
      return std::numeric_limits<V>::max();
  }();

  // 2^log2_size entries to start with (it grows when half full).
  explicit BasicTimeIndex(unsigned log2_size = 6)
      : keys_(std::size_t{1} << log2_size, kFree),
        values_(std::size_t{1} << log2_size, V{}),
        mask_((std::size_t{1} << log2_size) - 1),
        shift_(64 - log2_size),
        limit_(std::size_t{1} << (log2_size - 1)) {}

  // The value of t, or kAbsent with `e` set to the free entry where t would go.
  V lookup(std::uint64_t t, std::size_t& e) const {
    for (std::size_t h = home(t);; h = (h + 1) & mask_) {
      const std::uint64_t k = keys_[h];
      if (k == t) return values_[h];
      if (k == kFree) {
        e = h;
        return kAbsent;
      }
    }
  }
  // found(t's value) if t is present, else absent(e) with e the free entry where t would go:
  // the caller branches on the probe's own comparisons, not on a returned kAbsent.
  template <class Found, class Absent>
  __attribute__((always_inline)) auto visit(std::uint64_t t, Found&& found, Absent&& absent) const {
    for (std::size_t h = home(t);; h = (h + 1) & mask_) {
      const std::uint64_t k = keys_[h];
      if (k == t) return found(values_[h]);
      if (k == kFree) return absent(h);
    }
  }
  // The entry where t is, or the free entry where it would go.
  std::size_t find(std::uint64_t t) const {
    std::size_t h = home(t);
    while (keys_[h] != t && keys_[h] != kFree) h = (h + 1) & mask_;
    return h;
  }
  // The value at an entry find() returned; kAbsent if the entry is free.
  V value(std::size_t e) const { return keys_[e] == kFree ? kAbsent : values_[e]; }
  // Puts t (not present; t != kFree) at the free entry e that find(t) or lookup(t) gave.
  void insert_at(std::size_t e, std::uint64_t t, V v) {
    keys_[e] = t;
    values_[e] = v;
    if (++size_ > limit_) grow();
  }
  // insert_at() and erase(t, hint) without the count and the growth check, for a caller that
  // bounds the number of its keys itself (at most half the capacity, see reserve()): the
  // activation scheduler, whose due list holds every pending time. size() does not count them.
  void insert_fixed(std::size_t e, std::uint64_t t, V v) {
    keys_[e] = t;
    values_[e] = v;
  }
  void erase_fixed(std::uint64_t t, std::size_t hint) {
    hint &= mask_;
    erase_entry<false>(keys_[hint] == t ? hint : find(t));
  }
  // Room for n keys at most half the table.
  void reserve(std::size_t n) {
    while (limit_ < n) grow();
  }
  // Removes t (present).
  void erase(std::uint64_t t) { erase_entry(find(t)); }
  // The same, with the entry insert_at() put t at: used if t is still there (a later removal
  // or growth may have moved it), which saves the search.
  void erase(std::uint64_t t, std::size_t hint) {
    hint &= mask_;
    erase_entry(keys_[hint] == t ? hint : find(t));
  }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return keys_.size(); }
  // The entry a time hashes to (tests build collisions with it).
  std::size_t home(std::uint64_t t) const {
    return static_cast<std::size_t>((t * 0x9E3779B97F4A7C15ull) >> shift_);
  }

 private:
  template <bool kCount = true>
  void erase_entry(std::size_t h) {
    // Backward shift: move up each later entry of the run whose home the hole would cut it
    // off from (its home is not cyclically in (h, j]).
    for (std::size_t j = (h + 1) & mask_; keys_[j] != kFree; j = (j + 1) & mask_) {
      if (((j - home(keys_[j])) & mask_) >= ((j - h) & mask_)) {
        keys_[h] = keys_[j];
        values_[h] = values_[j];
        h = j;
      }
    }
    keys_[h] = kFree;
    if (kCount) --size_;
  }
  // Out of line: rare, and inlined it costs the callers' hot paths registers.
  __attribute__((noinline)) void grow() {
    std::vector<std::uint64_t> old_keys(keys_.size() * 2, kFree);
    std::vector<V> old_values(values_.size() * 2, V{});
    old_keys.swap(keys_);
    old_values.swap(values_);
    mask_ = keys_.size() - 1;
    limit_ = keys_.size() / 2;
    --shift_;
    for (std::size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] == kFree) continue;
      const std::size_t e = find(old_keys[i]);
      keys_[e] = old_keys[i];
      values_[e] = old_values[i];
    }
  }
  // Keys and values apart: a probe reads 8-byte keys, indexed without scaling arithmetic.
  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::size_t mask_;
  unsigned shift_;  // 64 - log2(table size)
  std::size_t size_ = 0;
  std::size_t limit_;  // half the table
};

using TimeIndex = BasicTimeIndex<std::uint32_t>;

}  // namespace locsim
