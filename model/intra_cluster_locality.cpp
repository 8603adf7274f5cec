#include "model/intra_cluster_locality.h"

namespace locsim {

void IntraClusterLocality::expire(Cycle now) {
  // Lines not touched within the window can never make a request redundant again: forget them so
  // memory stays bounded by the lines of the last W cycles.
  while (!order_.empty() && now - order_.front().first > window_) {
    auto it = lines_.find(order_.front().second);
    if (it != lines_.end() && it->second.last == order_.front().first)
      spare_.push_back(lines_.extract(it));
    order_.pop_front();
  }
}

namespace {
// The 4-byte words of a 128-byte line that `bytes` touches, one bit per word: each nibble of the
// byte mask is folded to its low bit, then the bits at 4w are packed down to bit w.
std::uint32_t touched_words(const ByteMask& bytes) {
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
  auto it = lines_.find(line);
  if (it == lines_.end()) {
    if (spare_.empty()) {
      it = lines_.emplace(line, LineHistory()).first;
    } else {
      auto node = std::move(spare_.back());
      spare_.pop_back();
      node.key() = line;
      node.mapped() = LineHistory();
      it = lines_.insert(std::move(node)).position;
    }
  }
  LineHistory& h = it->second;
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
  order_.emplace_back(now, line);
  return kind;
}

}  // namespace locsim
