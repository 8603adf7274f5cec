#include "model/intra_cluster_locality.h"

namespace locsim {

void IntraClusterLocality::expire(Cycle now) {
  // Lines not touched within the window can never make a request redundant again: forget them so
  // memory stays bounded by the lines of the last W cycles. An access's slot still holds its line
  // (a slot is freed only at its line's last access, after every earlier access of the line, and
  // the accesses of one cycle all expire in one call, before any slot is reused); a line touched
  // again later has a later `last`, and a freed slot has kNever.
  while (!order_.empty() && now - order_.front().at > window_) {
    const Access a = order_.front();
    order_.pop_front();
    LineHistory& h = slots_[a.slot];
    if (h.last != a.at) continue;
    erase(h.line);
    h.last = kNever;
    free_.push_back(a.slot);
    --live_;
  }
}

void IntraClusterLocality::erase(Addr line) {
  std::uint32_t i = probe(line);
  // Backward shift: later entries of the probe run whose home is not cyclically in (i, j] move
  // into the hole, so that lookups need no tombstones.
  for (std::uint32_t j = (i + 1) & index_mask_; index_[j].slot != kEmpty;
       j = (j + 1) & index_mask_) {
    const std::uint32_t k = home(index_[j].line);
    const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (stays) continue;
    index_[i] = index_[j];
    i = j;
  }
  index_[i].slot = kEmpty;
}

void IntraClusterLocality::grow() {
  std::vector<IndexEntry> old;
  old.swap(index_);
  const std::size_t size = old.empty() ? 64 : old.size() * 2;
  index_.assign(size, IndexEntry{0, kEmpty});
  index_mask_ = static_cast<std::uint32_t>(size - 1);
  index_shift_ = 64 - static_cast<std::uint32_t>(__builtin_ctzll(size));
  for (const IndexEntry& e : old)
    if (e.slot != kEmpty) index_[probe(e.line)] = e;
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
  expire(now);
  ++requests_;
  if ((live_ + 1) * 4 > index_.size()) grow();  // at most a quarter full: short probe runs
  std::uint32_t pos = probe(line);
  std::uint32_t slot = index_[pos].slot;
  if (slot == kEmpty) {
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      // A reused slot keeps its previous line's word cycles: that line was forgotten because its
      // last access (and so every word's) was more than W cycles before, so none is recent now or
      // later.
      slot = free_.back();
      free_.pop_back();
    }
    index_[pos] = IndexEntry{line, slot};
    slots_[slot].line = line;
    ++live_;
  }
  LineHistory& h = slots_[slot];
  const std::uint32_t words = touched_words(bytes);
  RequestLocality kind = RequestLocality::First;
  if (recent(h.last, now)) {
    kind = RequestLocality::LineSharing;
    for (std::uint32_t m = words; m; m &= m - 1)
      if (recent(h.word_last[static_cast<unsigned>(__builtin_ctz(m))], now)) {
        kind = RequestLocality::DataSharing;
        break;
      }
  }
  if (kind == RequestLocality::LineSharing) ++line_sharing_;
  if (kind == RequestLocality::DataSharing) ++data_sharing_;
  h.last = now;
  if (words == ~std::uint32_t{0})  // a whole-line read: one vectorisable fill
    h.word_last.fill(now);
  else
    for (std::uint32_t m = words; m; m &= m - 1)
      h.word_last[static_cast<unsigned>(__builtin_ctz(m))] = now;
  order_.push_back(Access{now, slot});
  return kind;
}

}  // namespace locsim
