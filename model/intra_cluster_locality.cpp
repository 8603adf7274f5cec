#include "model/intra_cluster_locality.h"

namespace locsim {

void IntraClusterLocality::expire(Cycle now) {
  // Lines not touched within the window can never make a request redundant again: forget them so
  // memory stays bounded by the lines of the last W cycles.
  while (!order_.empty() && now - order_.front().first > window_) {
    auto it = lines_.find(order_.front().second);
    if (it != lines_.end() && it->second.last == order_.front().first) lines_.erase(it);
    order_.pop_front();
  }
}

RequestLocality IntraClusterLocality::observe(Addr line, const ByteMask& bytes, Cycle now) {
  expire(now);
  ++requests_;
  LineHistory& h = lines_[line];
  RequestLocality kind = RequestLocality::First;
  if (recent(h.last, now)) {
    kind = RequestLocality::LineSharing;
    for (unsigned w = 0; w < 32; ++w) {
      const bool wanted = bytes.test(4 * w) || bytes.test(4 * w + 1) || bytes.test(4 * w + 2) ||
                          bytes.test(4 * w + 3);
      if (wanted && recent(h.word_last[w], now)) {
        kind = RequestLocality::DataSharing;
        break;
      }
    }
  }
  if (kind == RequestLocality::LineSharing) ++line_sharing_;
  if (kind == RequestLocality::DataSharing) ++data_sharing_;
  h.last = now;
  for (unsigned w = 0; w < 32; ++w)
    if (bytes.test(4 * w) || bytes.test(4 * w + 1) || bytes.test(4 * w + 2) ||
        bytes.test(4 * w + 3))
      h.word_last[w] = now;
  order_.emplace_back(now, line);
  return kind;
}

}  // namespace locsim
