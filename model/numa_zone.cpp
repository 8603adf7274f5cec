#include "model/numa_zone.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace locsim {

namespace {
std::string hex(Addr a) {
  std::ostringstream os;
  os << "0x" << std::hex << a;
  return os.str();
}
}  // namespace

unsigned numa_zone_bits(std::uint32_t zones) {
  if (zones == 0 || zones > 64 || (zones & (zones - 1)) != 0)
    throw std::invalid_argument("NUMA zones = " + std::to_string(zones) +
                                " (must be a power of two from 1 to 64)");
  unsigned n = 0;
  while ((1u << n) < zones) ++n;
  return n;
}

NumaZoneMap::NumaZoneMap(std::uint32_t zones) : zones_(zones), bits_(numa_zone_bits(zones)) {}

void NumaZoneMap::place(const std::string& name, Addr base, std::uint64_t bytes,
                        unsigned start_bit) {
  const std::string what = "NUMA placement of '" + name + "'";
  if (start_bit < kNumaMinStartBit || start_bit > kNumaMaxStartBit)
    throw std::invalid_argument(what + ": start bit " + std::to_string(start_bit) +
                                " (must be 7 to 16)");
  if (bytes == 0) throw std::invalid_argument(what + ": empty range");
  const std::uint64_t align = alignment(start_bit);
  if (base % align != 0)
    throw std::invalid_argument(what + ": base " + hex(base) + " is not a multiple of " +
                                std::to_string(align) + " bytes (2^(start bit + zone bits))");
  const Addr end = base + (bytes + align - 1) / align * align;
  for (const Range& r : ranges_)
    if (base < r.end && r.base < end)
      throw std::invalid_argument(what + ": overlaps '" + r.name + "' (ranges padded to " +
                                  std::to_string(align) + " bytes)");
  ranges_.push_back({base, end, start_bit, name});
  std::sort(ranges_.begin(), ranges_.end(),
            [](const Range& a, const Range& b) { return a.base < b.base; });
}

const NumaZoneMap::Range* NumaZoneMap::find(Addr a) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                             [](Addr v, const Range& r) { return v < r.base; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return a < it->end ? &*it : nullptr;
}

unsigned NumaZoneMap::start_bit(Addr a) const {
  const Range* r = find(a);
  return r ? r->bit : kNumaXorStartBit;
}

std::uint32_t NumaZoneMap::zone(Addr a) const {
  const Range* r = find(a);
  return r ? zone_at_bit(a, r->bit, zones_) : xor_zone(a, zones_);
}

FirstTouchPages::FirstTouchPages(std::uint64_t page_bytes) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0)
    throw std::invalid_argument("first-touch page size " + std::to_string(page_bytes) +
                                " (must be a power of two)");
  page_shift_ = 0;
  while ((std::uint64_t{1} << page_shift_) < page_bytes) ++page_shift_;
}

std::uint32_t FirstTouchPages::touch(Addr a, std::uint32_t toucher_zone) {
  return zone_.emplace(a >> page_shift_, toucher_zone).first->second;
}

std::optional<std::uint32_t> FirstTouchPages::zone(Addr a) const {
  auto it = zone_.find(a >> page_shift_);
  if (it == zone_.end()) return std::nullopt;
  return it->second;
}

}  // namespace locsim
