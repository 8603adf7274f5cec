#include "model/coalesced_cache.h"

#include <cstring>
#include <stdexcept>

namespace locsim {

CoalescedCache::CoalescedCache(std::uint32_t entries, std::uint32_t line_bytes, bool keep_data)
    : entries_(entries), line_bytes_(line_bytes) {
  if (entries == 0) throw std::invalid_argument("coalesced cache needs at least one entry");
  if (line_bytes == 0 || line_bytes > 128)
    throw std::invalid_argument("coalesced cache line must be 1..128 bytes");
  if (keep_data) data_.assign(std::size_t{entries} * line_bytes, 0);
}

std::uint32_t CoalescedCache::occupancy() const {
  std::uint32_t n = 0;
  for (const Entry& e : entries_) n += e.valid;
  return n;
}

int CoalescedCache::find(Addr line) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].valid && entries_[i].line == line) return static_cast<int>(i);
  return -1;
}

bool CoalescedCache::lookup(Addr line, const ByteMask& needed) {
  const int i = find(line);
  if (i < 0) return false;
  Entry& e = entries_[static_cast<std::size_t>(i)];
  if ((needed.w[0] & ~e.bytes.w[0]) | (needed.w[1] & ~e.bytes.w[1])) return false;
  e.stamp = ++clock_;
  return true;
}

const std::uint8_t* CoalescedCache::data(Addr line) const {
  const int i = find(line);
  if (i < 0 || data_.empty()) return nullptr;
  return &data_[static_cast<std::size_t>(i) * line_bytes_];
}

bool CoalescedCache::fill(Addr line, const ByteMask& bytes, const std::uint8_t* src) {
  int i = find(line);
  bool evicted = false;
  if (i < 0) {
    // A free entry, else the least recently used one.
    std::size_t victim = 0;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      if (!entries_[k].valid) {
        victim = k;
        break;
      }
      if (entries_[k].stamp < entries_[victim].stamp) victim = k;
    }
    Entry& v = entries_[victim];
    evicted = v.valid;
    v = Entry();
    v.valid = true;
    v.line = line;
    i = static_cast<int>(victim);
  }
  Entry& e = entries_[static_cast<std::size_t>(i)];
  e.bytes |= bytes;
  e.stamp = ++clock_;
  if (src && !data_.empty()) {
    std::uint8_t* d = &data_[static_cast<std::size_t>(i) * line_bytes_];
    for (unsigned b = 0; b < line_bytes_; ++b)
      if (bytes.test(b)) d[b] = src[b];
  }
  return evicted;
}

bool CoalescedCache::invalidate(Addr line) {
  const int i = find(line);
  if (i < 0) return false;
  entries_[static_cast<std::size_t>(i)].valid = false;
  return true;
}

void CoalescedCache::invalidate_all() {
  for (Entry& e : entries_) e.valid = false;
}

}  // namespace locsim
