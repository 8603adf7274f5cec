#include "model/intra_cluster_locality.h"

namespace locsim {

void IntraClusterLocality::rebuild(Cycle now) {
  // Keeps only the lines of the last W cycles, in a table at most an eighth full: the next
  // rebuild then comes after at least 3/8 of its size new positions, so its cost per request is
  // a few instructions.
  auto for_each_occupied = [](const std::vector<std::uint64_t>& bits, auto&& f) {
    for (std::size_t k = 0; k < bits.size(); ++k)
      for (std::uint64_t m = bits[k]; m; m &= m - 1)
        f(static_cast<std::uint32_t>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m))));
  };
  std::size_t live = 0;
  for_each_occupied(occupied_, [&](std::uint32_t i) { live += recent(index_[i].last, now); });
  std::size_t size = 64;
  while (size < 8 * live) size *= 2;
  std::unique_ptr<Entry[]> old(new Entry[size]);  // (uninitialised: no position occupied)
  std::vector<std::uint64_t> old_occupied(size / 64, 0);
  old.swap(index_);
  old_occupied.swap(occupied_);
  size_ = size;
  index_mask_ = static_cast<std::uint32_t>(size - 1);
  index_shift_ = 64 - static_cast<std::uint32_t>(__builtin_ctzll(size));
  used_ = live;
  for_each_occupied(old_occupied, [&](std::uint32_t p) {
    const Entry& e = old[p];
    if (!recent(e.last, now)) {
      if (e.words != kNone) free_.push_back(e.words);
      return;
    }
    std::uint32_t i = home(e.line);
    while (occupied(i)) i = (i + 1) & index_mask_;
    index_[i] = e;
    occupy(i);
  });
}

namespace {
// The 4-byte words of a 128-byte line that `bytes` touches, one bit per word: each nibble of the
// byte mask is folded to its low bit, then the bits at 4w are packed down to bit w.
std::uint32_t touched_words(const ByteMask& bytes) {
  // A whole-line read (every coalesced float/int warp load of a line) needs no folding.
  if ((bytes.w[0] & bytes.w[1]) == ~std::uint64_t{0}) return ~std::uint32_t{0};
  std::uint32_t words = 0;
  for (unsigned h = 0; h < 2; ++h) {
    std::uint64_t x = bytes.w[h];
    x |= x >> 1;
    x |= x >> 2;
    x &= 0x1111111111111111ull;
    x = (x | (x >> 3)) & 0x0303030303030303ull;
    x = (x | (x >> 6)) & 0x000f000f000f000full;
    x = (x | (x >> 12)) & 0x000000ff000000ffull;
    x = (x | (x >> 24)) & 0xffffull;
    words |= static_cast<std::uint32_t>(x) << (16 * h);
  }
  return words;
}
}  // namespace

RequestLocality IntraClusterLocality::observe(Addr line, const ByteMask& bytes, Cycle now) {
  ++requests_;
  if ((used_ + 1) * 2 > size_) rebuild(now);  // at most half full: short probe runs
  // The line's position, else the first forgotten line's on its probe run, else the empty
  // position that ends the run.
  std::uint32_t i = home(line), reuse = kNone;
  bool found = false;
  for (; occupied(i); i = (i + 1) & index_mask_) {
    const Entry& e = index_[i];
    if (e.line == line) {
      found = true;
      break;
    }
    if (reuse == kNone && !recent(e.last, now)) reuse = i;
  }
  if (!found) {
    if (reuse != kNone) {
      // A forgotten line's position and word history: its reads (and so its words') are more
      // than W cycles old, so none is recent now or later.
      i = reuse;
      index_[i].line = line;
    } else {
      index_[i] = Entry{line, kNever, kNever, kNone};
      occupy(i);
      ++used_;
    }
  }
  Entry& e = index_[i];
  const std::uint32_t words = touched_words(bytes);
  RequestLocality kind = RequestLocality::First;
  if (recent(e.last, now)) {
    kind = RequestLocality::LineSharing;
    if (words && recent(e.full, now)) {
      kind = RequestLocality::DataSharing;
    } else if (e.words != kNone) {
      const std::array<Cycle, 32>& h = words_[e.words];
      for (std::uint32_t m = words; m; m &= m - 1)
        if (recent(h[static_cast<unsigned>(__builtin_ctz(m))], now)) {
          kind = RequestLocality::DataSharing;
          break;
        }
    }
  }
  if (kind == RequestLocality::LineSharing) ++line_sharing_;
  if (kind == RequestLocality::DataSharing) ++data_sharing_;
  e.last = now;
  if (words == ~std::uint32_t{0}) {  // a whole-line read: every word at once
    e.full = now;
  } else if (words) {
    if (e.words == kNone) {
      if (free_.empty()) {
        e.words = static_cast<std::uint32_t>(words_.size());
        words_.emplace_back();
        words_.back().fill(kNever);
      } else {
        e.words = free_.back();  // a dropped line's, all as old as its last read
        free_.pop_back();
      }
    }
    std::array<Cycle, 32>& h = words_[e.words];
    for (std::uint32_t m = words; m; m &= m - 1) h[static_cast<unsigned>(__builtin_ctz(m))] = now;
  }
  return kind;
}

}  // namespace locsim
